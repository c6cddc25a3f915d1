#pragma once
// The binary graph file (*.gbc) as seen by the generic readers (input.cpp, detect.cpp,
// convert.cpp). Not part of the public API.
#include <cstddef>
#include <string>

#include "gbcuda/io.hpp"
#include "io/gbc_magic.hpp"
#include "io/input.hpp"

namespace gbcuda::io_detail {

// A .gbc file from an opened input (in.binary()): read straight from a regular file, or parsed
// from the bytes that came through a pipe. `header` (when not null) receives "gbc pattern" or
// "gbc values". Values of another type are converted to T (for bool: dropped, structure only).
template <class T>
Matrix<T> read_binary_input(const Input& in, std::string* header);

// The same as coordinates (values as double; none for an iso file).
CooData read_binary_coo(const Input& in);

}  // namespace gbcuda::io_detail
