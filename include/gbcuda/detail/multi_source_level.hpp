#pragma once
// One level of a multi-source BFS pass (multi_source.hpp), the same on both backends: the host's
// in lib/algorithms/multi_source_bfs.cpp, the GPU's in lib/cuda/multi_source.cu.
#include <cstdint>

#include "gbcuda/detail/views.hpp"

namespace gbcuda::detail {

// The pass's arrays, in the backend's memory. Bit s of a vertex's word belongs to the pass's
// search s; `full` has a bit for each search of the pass.
struct MultiSourceLevel {
  Index n = 0;
  std::uint64_t full = 0;
  const std::uint64_t* frontier = nullptr;  // the searches that reached v at the previous level
  std::uint64_t* next = nullptr;            // out: those that reach v at this one
  std::uint64_t* seen = nullptr;            // the searches that have reached v; updated
  std::int32_t* level = nullptr;            // level[s * n + v] (null: not kept)
  int lvl = 0;
  // GPU pulls: the vertices whose in-rows are longer than long_in_row, pulled a warp a row.
  Offset long_in_row = 0;
  const Vid* long_rows = nullptr;
  Index long_count = 0;
};

// What a level counts: [s] the vertices search s reached at this level (s < 64); then the
// vertices some search reached (the next frontier), their out-edges, and the out-edges of every
// (vertex, search) reached, summed (edges traversed).
inline constexpr int kMultiSourceCounts = 64 + 3;

}  // namespace gbcuda::detail
