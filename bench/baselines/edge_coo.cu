// Edge-centric BFS over COO: one thread per stored edge (u, w), every level. The row array u is
// expanded from out_ptr once, before timing starts. An edge whose source is on the current
// level claims its unvisited target with an atomicCAS on the level (one winner, which writes
// the parent) and raises `new_vertex_visited`. Perfect load balance whatever the degrees, at the
// price of reading all nnz edges every level.
#include "baselines/common.cuh"

namespace gbcuda::detail::cuda::baselines {
namespace {

// row[e] = u for every edge e of row u; one thread per row (untimed setup).
__global__ void expand_rows(Index n, const Offset* __restrict__ out_ptr, Vid* __restrict__ row) {
  for (Index u = global_thread(); u < n; u += grid_threads())
    for (Offset e = out_ptr[u]; e < out_ptr[u + 1]; ++e) row[e] = static_cast<Vid>(u);
}

__global__ void edge_coo_level(Offset nnz, const Vid* __restrict__ row, const Vid* __restrict__ col,
                               std::int32_t* level, std::int64_t* parent, std::int32_t current,
                               unsigned long long* new_vertex_visited, LevelCounters* stats) {
  unsigned long long found = 0;
  for (Offset e = global_thread(); e < nnz; e += grid_threads()) {
    const Vid u = row[e];
    if (load_level(level + u) != current) continue;
    const Vid w = col[e];
    if (load_level(level + w) != -1) continue;  // cheap test before the atomic
    if (atomicCAS(level + w, -1, current + 1) != -1) continue;
    if (parent) parent[w] = u;
    ++found;
  }
  block_report(found > 0, 0, found, new_vertex_visited, stats);
}

}  // namespace

void edge_coo(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r) {
  const Index n = g.n;
  const Offset nnz = g.nnz;
  Array<Vid> row(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (nnz > 0) {
    expand_rows<<<grid_for(n), kBlock>>>(n, g.out_ptr, row.data());
    CUDA_CHECK_LAUNCH();
  }
  SearchState state(n, source, parents);
  const unsigned grid = grid_for(nnz);
  run_level_loop(
      state, collect_stats, Direction::Push, r, [] {},
      [&](std::int32_t d, unsigned long long* flag, LevelCounters* stats) {
        edge_coo_level<<<grid, kBlock>>>(nnz, row.data(), g.out_idx, state.level(), state.parent(), d - 1, flag, stats);
        CUDA_CHECK_LAUNCH();
      },
      // edges: exact, every stored edge is read each level (its source's level is tested).
      [nnz](const LevelCounters&) { return static_cast<unsigned long long>(nnz); });
}

}  // namespace gbcuda::detail::cuda::baselines
