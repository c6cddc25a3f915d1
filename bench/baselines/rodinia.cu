// Rodinia's two-kernel BFS. State per vertex: frontier mask, updating mask, visited, level.
//   kernel 1 (expand): each vertex in the frontier mask leaves it and offers level+1 to every
//                      neighbour not yet visited; the neighbour that takes it joins `updating`.
//   kernel 2 (commit): `updating` moves into the frontier mask and into visited, and the device
//                      `over` flag is raised (Rodinia's name; here it means "not over yet").
// The host clears `over`, runs both kernels and reads `over` back, once per level. Each kernel
// touches all n vertices every level, whatever the frontier's size: that is the idea's cost.
// Deviation from the original: a neighbour is claimed with an atomicCAS on its level, so exactly
// one frontier vertex becomes its parent and `updating` has a single writer.
#include "baselines/common.cuh"

namespace gbcuda::detail::cuda::baselines {
namespace {

__global__ void rodinia_expand(Index n, const Offset* __restrict__ out_ptr, const Vid* __restrict__ out_idx,
                               std::uint8_t* __restrict__ frontier, std::uint8_t* __restrict__ updating,
                               const std::uint8_t* __restrict__ visited, std::int32_t* level, std::int64_t* parent,
                               std::int32_t next_level, unsigned long long* over, LevelCounters* stats) {
  unsigned long long edges = 0;
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    if (!frontier[v]) continue;
    frontier[v] = 0;
    const Offset begin = out_ptr[v], end = out_ptr[v + 1];
    edges += static_cast<unsigned long long>(end - begin);
    for (Offset e = begin; e < end; ++e) {
      const Vid w = out_idx[e];
      // visited is written only by kernel 2, so this plain read is race-free; the CAS decides
      // among the frontier vertices that reach w in this launch.
      if (visited[w]) continue;
      if (atomicCAS(level + w, -1, next_level) != -1) continue;
      if (parent) parent[w] = v;
      updating[w] = 1;
    }
  }
  block_report(false, edges, 0, over, stats);
}

__global__ void rodinia_commit(Index n, std::uint8_t* __restrict__ frontier, std::uint8_t* __restrict__ updating,
                               std::uint8_t* __restrict__ visited, unsigned long long* over, LevelCounters* stats) {
  unsigned long long moved = 0;
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    if (!updating[v]) continue;
    updating[v] = 0;
    frontier[v] = 1;
    visited[v] = 1;
    ++moved;
  }
  block_report(moved > 0, 0, moved, over, stats);
}

}  // namespace

void rodinia(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r) {
  const Index n = g.n;
  SearchState state(n, source, parents);
  Array<std::uint8_t> frontier(static_cast<std::size_t>(n), Backend::Cuda);
  Array<std::uint8_t> updating(static_cast<std::size_t>(n), Backend::Cuda);
  Array<std::uint8_t> visited(static_cast<std::size_t>(n), Backend::Cuda);
  const unsigned grid = grid_for(n);
  run_level_loop(
      state, collect_stats, Direction::Push, r,
      [&] {
        CUDA_CHECK(cudaMemsetAsync(frontier.data(), 0, frontier.bytes(), 0));
        CUDA_CHECK(cudaMemsetAsync(updating.data(), 0, updating.bytes(), 0));
        CUDA_CHECK(cudaMemsetAsync(visited.data(), 0, visited.bytes(), 0));
        CUDA_CHECK(cudaMemsetAsync(frontier.data() + source, 1, 1, 0));
        CUDA_CHECK(cudaMemsetAsync(visited.data() + source, 1, 1, 0));
      },
      [&](std::int32_t d, unsigned long long* flag, LevelCounters* stats) {
        rodinia_expand<<<grid, kBlock>>>(n, g.out_ptr, g.out_idx, frontier.data(), updating.data(), visited.data(),
                                         state.level(), state.parent(), d, flag, stats);
        CUDA_CHECK_LAUNCH();
        rodinia_commit<<<grid, kBlock>>>(n, frontier.data(), updating.data(), visited.data(), flag, stats);
        CUDA_CHECK_LAUNCH();
      },
      // edges: exact, the out-degrees of the vertices expanded. (The counters' read is Rodinia's
      // host poll of `over`.)
      [](const LevelCounters& c) { return c.edges; });
}

}  // namespace gbcuda::detail::cuda::baselines
