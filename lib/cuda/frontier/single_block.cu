// The single-block kernel: ONE block of 1024 threads runs many narrow levels in one launch
// (single_block_levels in level_bodies.cuh: __syncthreads() between levels, the frontier in
// shared memory, handing over when the frontier outgrows it or choose_kernel says so). No host
// round trip per level: a 4093-level grid BFS is a handful of launches.
#include "cuda/frontier/level_bodies.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

__global__ void __launch_bounds__(kSingleThreads)
    single_block_kernel(SearchArgs a, const Vid* __restrict__ in, Vid* __restrict__ out, LevelRecord* records,
                        int max_levels) {
  extern __shared__ Vid smem[];  // two queues of caps.single_block_queue entries
  __shared__ SingleShared s;
  Control c{};  // thread 0's
  if (threadIdx.x == 0) c = *a.ctl;
  // ctl->next_size is 0 on entry; it counts the spilled vertices of the last level
  single_block_levels<false>(a, c, in, out, &a.ctl->next_size, records, max_levels, smem, s);
  if (threadIdx.x == 0) *a.ctl = c;
}

}  // namespace

// The single-block queues must fit one block's shared memory (static shared memory is under
// 200 bytes; leave it room).
void check_single_block_fits(const Capacities& caps) {
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (single_block_smem_bytes(caps) + 512 > std::size_t(optin))
    throw Error(Status::InvalidValue, "single-block queue of " + std::to_string(caps.single_block_queue) +
                                          " entries does not fit in shared memory (" + std::to_string(optin) +
                                          " bytes per block)");
}

void launch_single_block(const SearchArgs& a, const Vid* in, Vid* out, LevelRecord* records, int max_levels) {
  check_single_block_fits(a.caps);
  const std::size_t smem = single_block_smem_bytes(a.caps);
  static thread_local std::size_t raised = kDefaultDynamicSmem;
  allow_dynamic_smem(single_block_kernel, smem, raised);
  single_block_kernel<<<1, kSingleThreads, smem>>>(a, in, out, records, max_levels < 1 ? 1 : max_levels);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda::frontier
