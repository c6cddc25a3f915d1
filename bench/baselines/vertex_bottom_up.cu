// Vertex-centric bottom-up BFS: one thread per vertex, every level. An unvisited vertex scans
// its in-edges (the CSR of A') for a neighbour on the current level and stops at the first one;
// that neighbour is its parent. Each vertex has one writer (its own thread), so no claim is
// needed; the level entries are read and written with relaxed atomics because other threads
// read them as in-neighbours in the same launch. Unvisited vertices rescan their in-edges every
// level until found: cheap when the frontier is wide, wasteful when it is narrow.
#include "baselines/common.cuh"

namespace gbcuda::detail::cuda::baselines {
namespace {

__global__ void vertex_bottom_up_level(Index n, const Offset* __restrict__ in_ptr, const Vid* __restrict__ in_idx,
                                       std::int32_t* level, std::int64_t* parent, std::int32_t current,
                                       unsigned long long* new_vertex_visited, LevelCounters* stats) {
  unsigned long long edges = 0, found = 0;
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    if (load_level(level + v) != -1) continue;
    const Offset begin = in_ptr[v], end = in_ptr[v + 1];
    for (Offset e = begin; e < end; ++e) {
      ++edges;
      const Vid u = in_idx[e];
      // A vertex found in this launch gets current+1, never `current`, so it cannot be taken
      // for a frontier vertex by a thread that reads it later in the same launch.
      if (load_level(level + u) != current) continue;
      store_level(level + v, current + 1);
      if (parent) parent[v] = u;
      ++found;
      break;
    }
  }
  block_report(found > 0, edges, found, new_vertex_visited, stats);
}

}  // namespace

void vertex_bottom_up(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r) {
  if (g.n > 0 && (g.in_ptr == nullptr || g.in_idx == nullptr))
    throw Error(Status::InvalidValue, "kernel 'vertex-bottomup' needs the graph's in-edges (the transpose) on the GPU");
  const Index n = g.n;
  SearchState state(n, source, parents);
  const unsigned grid = grid_for(n);
  run_level_loop(
      state, collect_stats, Direction::Pull, r, [] {},
      [&](std::int32_t d, unsigned long long* flag, LevelCounters* stats) {
        vertex_bottom_up_level<<<grid, kBlock>>>(n, g.in_ptr, g.in_idx, state.level(), state.parent(), d - 1, flag,
                                                 stats);
        CUDA_CHECK_LAUNCH();
      },
      // edges: exact, the in-edges actually read (each unvisited vertex up to its first hit).
      [](const LevelCounters& c) { return c.edges; });
}

}  // namespace gbcuda::detail::cuda::baselines
