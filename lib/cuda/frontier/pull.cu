// The pull kernel, one launch per level (the body, pull_level, is in level_bodies.cuh), and the
// conversion of a queue frontier into the bitmap the pull reads.
#include "cuda/frontier/level_bodies.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

__global__ void queue_to_bitmap_kernel(const Vid* __restrict__ q, Index size, std::uint32_t* bm) {
  for (Index i = global_thread(); i < size; i += grid_threads()) {
    const Vid v = q[i];
    atomicOr(bm + (v >> 5), 1u << (v & 31));
  }
}

__global__ void __launch_bounds__(kQueueThreads)
    pull_kernel(SearchArgs a, int lvl, const std::uint32_t* __restrict__ fin, std::uint32_t* __restrict__ fout,
                Vid* __restrict__ out) {
  __shared__ ull s_sum;
  pull_level<false>(a, lvl, fin, fout, out, ctl_counters(a), &s_sum);
  finish_level(a, true);
}

}  // namespace

void launch_queue_to_bitmap(const Vid* q, Index size, std::uint32_t* bm, Index n) {
  const Index words = (n + 31) / 32;
  CUDA_CHECK(cudaMemsetAsync(bm, 0, std::size_t(words) * sizeof(std::uint32_t), 0));
  if (size == 0) return;
  queue_to_bitmap_kernel<<<grid_for(size), kBlock>>>(q, size, bm);
  CUDA_CHECK_LAUNCH();
}

void launch_pull(const SearchArgs& a, int lvl, const std::uint32_t* fin, std::uint32_t* fout, Vid* out) {
  if (!a.g.in_ptr) throw Error(Status::InvalidValue, "the pull kernel needs the in-edges (A') on the device");
  const Index words = (a.g.n + 31) / 32;
  const Index blocks = (words + kQueueThreads / 32 - 1) / (kQueueThreads / 32);
  const unsigned grid = unsigned(std::clamp<Index>(blocks, 1, Index(a.sms) * 16));
  pull_kernel<<<grid, kQueueThreads>>>(a, lvl, fin, fout, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda::frontier
