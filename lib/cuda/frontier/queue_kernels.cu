// The push queue kernels, one launch per level: queue-global, queue-block and queue-warp (the
// bodies and what distinguishes them are in level_bodies.cuh), and the few-long-rows kernel
// that any of them uses for a frontier of a few huge rows. The last block to finish closes the
// level on the device (finish_level: counters and the choice of the next kernel).
#include "cuda/frontier/level_bodies.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

template <QueueMode M>
__global__ void __launch_bounds__(kQueueThreads)
    push_kernel(SearchArgs a, int lvl, const Vid* __restrict__ in, Index size, Vid* __restrict__ out) {
  extern __shared__ Vid smem[];  // block queue (caps.block_queue), then the warp queues
  __shared__ PushShared s;
  if (threadIdx.x == 0) {
    s.count = 0;
    s.big.owner = INT_MAX;
  }
  __syncthreads();
  push_level<M, false>(a, lvl, in, size, out, ctl_counters(a), smem, s);
  finish_level(a, false);
}

__global__ void __launch_bounds__(kQueueThreads)
    few_rows_kernel(SearchArgs a, int lvl, const Vid* __restrict__ in, Index size, Vid* __restrict__ out) {
  extern __shared__ Vid smem[];  // block queue (caps.block_queue)
  __shared__ FewRowsShared s;
  few_rows_level<false>(a, lvl, in, size, out, ctl_counters(a), smem, s);
  finish_level(a, false);
}

template <QueueMode M>
void launch(const SearchArgs& a, int lvl, const Vid* in, Index size, Vid* out) {
  const Index tiles = (size + kQueueThreads - 1) / kQueueThreads;
  const unsigned grid = unsigned(std::clamp<Index>(tiles, 1, Index(a.sms) * 8));
  const std::size_t smem = push_smem_bytes(M, a.caps, kQueueThreads);
  static thread_local std::size_t raised = kDefaultDynamicSmem;
  allow_dynamic_smem(push_kernel<M>, smem, raised);
  push_kernel<M><<<grid, kQueueThreads, smem>>>(a, lvl, in, size, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_push(BfsKernel kind, const SearchArgs& a, int lvl, const Vid* in, Index size, Index edges, Vid* out) {
  if (few_long_rows(size, edges)) {  // any push kind: spread the long rows
    const Index chunks = (edges + kChunkEdges - 1) / kChunkEdges;
    const unsigned grid = unsigned(std::clamp<Index>(chunks, 1, Index(a.sms) * 8));
    const std::size_t smem = push_smem_bytes(QueueMode::Block, a.caps, kQueueThreads);
    static thread_local std::size_t raised = kDefaultDynamicSmem;
    allow_dynamic_smem(few_rows_kernel, smem, raised);
    few_rows_kernel<<<grid, kQueueThreads, smem>>>(a, lvl, in, size, out);
    CUDA_CHECK_LAUNCH();
    return;
  }
  switch (kind) {
    case BfsKernel::QueueGlobal: launch<QueueMode::Global>(a, lvl, in, size, out); break;
    case BfsKernel::QueueBlock: launch<QueueMode::Block>(a, lvl, in, size, out); break;
    case BfsKernel::QueueWarp: launch<QueueMode::Warp>(a, lvl, in, size, out); break;
    default: throw Error(Status::InvalidValue, std::string("not a push queue kernel: ") + to_string(kind));
  }
}

}  // namespace gbcuda::detail::cuda::frontier
