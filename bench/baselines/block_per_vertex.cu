// One block per frontier vertex. The frontier is a queue in global memory; block b takes entry
// b, and its threads stride over that vertex's out-edges. An unvisited neighbour is claimed with
// an atomicCAS on its level (one winner, which writes the parent) and appended to the next
// queue with an atomicAdd on its size. The host reads that size after each level to size the
// next launch. Good for a few high-degree vertices; a low-degree frontier leaves most threads
// of each block idle.
#include <utility>

#include "baselines/common.cuh"

namespace gbcuda::detail::cuda::baselines {
namespace {

// Threads per block: enough to cover a typical row in one or two passes; the rest of a big row
// is covered by the stride loop.
constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
    block_per_vertex_level(const Offset* __restrict__ out_ptr, const Vid* __restrict__ out_idx,
                           const Vid* __restrict__ queue, Vid* __restrict__ next_queue, unsigned long long* next_size,
                           std::int32_t* level, std::int64_t* parent, std::int32_t current, LevelCounters* stats) {
  const Vid v = queue[blockIdx.x];
  const Offset begin = out_ptr[v], end = out_ptr[v + 1];
  for (Offset e = begin + threadIdx.x; e < end; e += blockDim.x) {
    const Vid w = out_idx[e];
    if (load_level(level + w) != -1) continue;  // cheap test before the atomic
    if (atomicCAS(level + w, -1, current + 1) != -1) continue;
    if (parent) parent[w] = v;
    next_queue[atomicAdd(next_size, 1ull)] = w;  // each vertex is claimed once: n slots suffice
  }
  if (stats && threadIdx.x == 0) atomicAdd(&stats->edges, static_cast<unsigned long long>(end - begin));
}

}  // namespace

void block_per_vertex(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r) {
  const Index n = g.n;
  SearchState state(n, source, parents);
  Array<Vid> queue(static_cast<std::size_t>(n), Backend::Cuda);
  Array<Vid> next_queue(static_cast<std::size_t>(n), Backend::Cuda);
  // Here the counters' `flag` slot holds the next queue's size.
  DeviceLevelCounters counters;
  LevelCounters* stats = collect_stats ? counters.get() : nullptr;
  EventTimer total, level_timer;

  total.start();
  state.init();
  const Vid first = static_cast<Vid>(source);
  CUDA_CHECK(cudaMemcpyAsync(queue.data(), &first, sizeof(first), cudaMemcpyHostToDevice, 0));
  Index frontier_size = 1;
  for (std::int32_t d = 1; frontier_size > 0; ++d) {
    if (collect_stats) level_timer.start();
    counters.clear();
    // frontier_size <= n < 2^31 fits the grid's x dimension.
    block_per_vertex_level<<<static_cast<unsigned>(frontier_size), kThreads>>>(
        g.out_ptr, g.out_idx, queue.data(), next_queue.data(), counters.flag(), state.level(), state.parent(), d - 1,
        stats);
    CUDA_CHECK_LAUNCH();
    const LevelCounters c = counters.read();
    if (collect_stats) {
      const double t = level_timer.stop();
      // edges: exact, the out-degrees of the frontier's vertices.
      r.levels.push_back({d, frontier_size, static_cast<Index>(c.edges), Direction::Push, BfsKernel::Auto, t});
    }
    frontier_size = static_cast<Index>(c.flag);
    std::swap(queue, next_queue);
  }
  r.seconds = total.stop();
  state.finish(r);
}

}  // namespace gbcuda::detail::cuda::baselines
