#pragma once
// How a .gbc file announces itself: what the input layer (input.cpp) needs to tell a binary
// graph file from text without depending on the .gbc reader (binary.hpp).
#include <cstddef>

namespace gbcuda::io_detail {

// The .gbc magic: the first 8 bytes of every .gbc file.
inline constexpr std::size_t kGbcMagicBytes = 8;
// True when the `size` bytes at `bytes` start with the magic (binary.cpp).
bool has_gbc_magic(const char* bytes, std::size_t size);

}  // namespace gbcuda::io_detail
