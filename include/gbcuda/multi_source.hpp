#pragma once
// Breadth-first search from many sources at once (MS-BFS, Then et al., VLDB'15): 64 searches in
// one pass, each vertex holding a 64-bit word of "seen from source s" bits, so that one read of an
// edge serves every search that crosses it. More sources run in passes of 64.
#include <cstdint>
#include <vector>

#include "gbcuda/context.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda {

// Searches per pass: one bit each in a vertex's word.
inline constexpr int kSourcesPerPass = 64;

struct MultiSourceBfsOptions {
  Device device = Device::Auto;
  // Keep every search's levels (MultiSourceBfsResult::level: 4 bytes per source and vertex, on
  // the GPU too). Off: only the per-level counts, enough for closeness and harmonic centrality.
  bool keep_levels = true;
  // A level pushes (expands the frontier's out-edges) while the frontier vertices' out-edges are
  // under the graph's stored entries / alpha, else pulls (every vertex not yet seen by all the
  // searches ORs its in-neighbours' words, stopping once all are seen). 0: 15.
  double alpha = 0.0;
  // GPU pulls: an in-row longer than this is pulled by a warp (its lanes over the row), the
  // others by a thread each. 0: 32. The host backend ignores it.
  Index long_in_row = 0;
};

struct MultiSourceBfsResult {
  std::vector<Index> sources;  // as given (duplicates are searched twice)
  Index n = 0;                 // vertices
  // level[s * n + v]: the level of v in the search from sources[s], -1 when unreachable; empty
  // unless keep_levels.
  std::vector<std::int32_t> level;
  // level_sizes[s][l]: vertices at level l of the search from sources[s] (l = 0: the source).
  std::vector<std::vector<Index>> level_sizes;
  std::vector<Index> vertices_reached;  // per source
  int num_levels = 0;                   // the deepest search's levels, level 0 included
  // Stored entries in the rows of the reached vertices, summed over the searches (each search
  // counted as bfs() counts it, for GTEPS).
  Index edges_traversed = 0;
  Backend backend = Backend::Host;
  double seconds = 0.0;  // all passes, the graph on the device before
  int passes = 0;        // ceil(sources / kSourcesPerPass)
};

// BFS from every vertex of `sources` over A (square; A(i,j) stored = edge i -> j). Throws
// Error(InvalidValue) for a matrix that is not square or empty, Error(InvalidIndex) for a source
// out of range; no sources: an empty result.
template <class T>
MultiSourceBfsResult bfs_multi_source(const Matrix<T>& A, const std::vector<Index>& sources,
                                      const MultiSourceBfsOptions& options = {});

}  // namespace gbcuda
