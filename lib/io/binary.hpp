#pragma once
// The binary graph file (*.gbc) as seen by the generic readers (detect.cpp, convert.cpp).
// Not part of the public API.
#include <string>

#include "gbcuda/io.hpp"

namespace gbcuda::io_detail {

// True when `path` ends in ".gbc" or starts with the .gbc magic (reads 8 bytes at most; false
// when the file cannot be opened, so the text readers report that).
bool is_binary_graph(const std::string& path);

// A .gbc file as coordinates (values as double; none for an iso file).
CooData read_binary_coo(const std::string& path);

}  // namespace gbcuda::io_detail
