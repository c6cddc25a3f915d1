// Vertex-centric top-down BFS: one thread per vertex, every level. A vertex whose level is the
// current one expands its out-edges; an unvisited neighbour is claimed with an atomicCAS on its
// level (one winner, so the parent is written exactly once), and the winner raises the
// `new_vertex_visited` flag the host reads after the launch. All n threads run every level, and
// a high-degree vertex is one thread's serial loop: the two costs this baseline shows.
#include "baselines/common.cuh"

namespace gbcuda::detail::cuda::baselines {
namespace {

__global__ void vertex_top_down_level(Index n, const Offset* __restrict__ out_ptr, const Vid* __restrict__ out_idx,
                                      std::int32_t* level, std::int64_t* parent, std::int32_t current,
                                      unsigned long long* new_vertex_visited, LevelCounters* stats) {
  bool added = false;
  unsigned long long edges = 0, found = 0;
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    if (load_level(level + v) != current) continue;
    const Offset begin = out_ptr[v], end = out_ptr[v + 1];
    edges += static_cast<unsigned long long>(end - begin);
    for (Offset e = begin; e < end; ++e) {
      const Vid w = out_idx[e];
      if (load_level(level + w) != -1) continue;  // cheap test before the atomic
      if (atomicCAS(level + w, -1, current + 1) != -1) continue;
      if (parent) parent[w] = v;
      added = true;
      ++found;
    }
  }
  block_report(added, edges, found, new_vertex_visited, stats);
}

}  // namespace

void vertex_top_down(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r) {
  const Index n = g.n;
  SearchState state(n, source, parents);
  const unsigned grid = grid_for(n);
  run_level_loop(
      state, collect_stats, Direction::Push, r, [] {},
      [&](std::int32_t d, unsigned long long* flag, LevelCounters* stats) {
        vertex_top_down_level<<<grid, kBlock>>>(n, g.out_ptr, g.out_idx, state.level(), state.parent(), d - 1, flag,
                                                stats);
        CUDA_CHECK_LAUNCH();
      },
      // edges: exact, the out-degrees of the vertices on the current level.
      [](const LevelCounters& c) { return c.edges; });
}

}  // namespace gbcuda::detail::cuda::baselines
