// The single-block kernel: ONE block of 1024 threads runs many narrow levels in one launch,
// with __syncthreads() between levels and the frontier in shared memory (two ping-pong queues of
// caps.single_block_queue entries each). After every level thread 0 closes it on the device
// (advance(): counters, choose_kernel) and the block goes on while choose_kernel still says
// single-block and the new frontier fit its queue. Otherwise it hands over: the new frontier is
// written to the global queue `out` and the host loop continues with the kernel chosen. A
// frontier that overflows the shared queue spills its extra vertices to `out` as they are found
// (warp-aggregated, one global atomic per warp), so nothing is lost.
// No host round trip per level: a 4093-level grid BFS is a handful of launches.
#include "cuda/frontier/frontier_common.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

// Warp-aggregated appends into the shared next queue, spilling to the global queue.
struct SingleAppender {
  Vid* q;
  unsigned* count;
  unsigned cap;
  Vid* out;
  ull* tail;
  __device__ void append(bool won, Vid v) { warp_push(won, v, q, count, cap, out, tail); }
};

__global__ void __launch_bounds__(kSingleThreads)
    single_block_kernel(SearchArgs a, const Vid* __restrict__ in, Vid* __restrict__ out, LevelRecord* records,
                        int max_levels) {
  extern __shared__ Vid smem[];  // two queues of `cap` entries
  __shared__ unsigned s_count;
  __shared__ ull s_sum, s_size, s_kept, s_spilled;
  __shared__ int s_level, s_go;
  __shared__ BigRow big;
  const unsigned cap = unsigned(a.caps.single_block_queue > 0 ? a.caps.single_block_queue : 0);
  Vid* qa = smem;
  Vid* qb = smem + cap;
  ull* tail = &a.ctl->next_size;  // 0 on entry; reserves the slots of spilled vertices

  Control c{};  // used by thread 0 only
  if (threadIdx.x == 0) {
    c = *a.ctl;
    s_size = c.frontier_size;
    s_level = c.level;
    s_count = 0;
    big.owner = INT_MAX;
  }
  __syncthreads();

  const Vid* cur = in;  // the first level reads the global queue, later ones shared memory
  Vid* next = qa;
  int done = 0;  // levels run (thread 0's copy is the one used)
  for (;;) {
    const Index size = Index(s_size);
    const int lvl = s_level;
    if (threadIdx.x == 0 && records) records[done] = {c.frontier_size, c.frontier_edges};
    SingleAppender app{next, &s_count, cap, out, tail};
    ull new_edges = 0;
    for (Index tile = 0; tile < size; tile += blockDim.x) expand_tile(a, lvl, cur, size, tile, app, &big, new_edges);
    block_sum(new_edges, &s_sum);  // also: every append of this level is done
    if (threadIdx.x == 0) {
      const unsigned kept = min(s_count, cap);
      const ull spilled = s_count - kept;  // every append past `cap` went to `out`
      advance(c, kept + spilled, s_sum, false, a);
      ++done;
      s_go = c.frontier_size > 0 && spilled == 0 && c.kernel == int(BfsKernel::SingleBlock) && done < max_levels;
      s_kept = kept;
      s_spilled = spilled;
      s_size = c.frontier_size;
      s_level = c.level;
      s_count = 0;
    }
    __syncthreads();
    if (!s_go) {
      // Hand over: spilled vertices are out[0, spilled); the shared ones follow them.
      const ull kept = s_kept, spilled = s_spilled;
      for (ull k = threadIdx.x; k < kept; k += blockDim.x) out[spilled + k] = next[k];
      break;
    }
    cur = next;
    next = next == qa ? qb : qa;
  }
  if (threadIdx.x == 0) {
    c.next_size = 0;  // the spilled slots now belong to the handed-over frontier
    c.blocks_done = 0;
    *a.ctl = c;
  }
}

}  // namespace

void launch_single_block(const SearchArgs& a, const Vid* in, Vid* out, LevelRecord* records, int max_levels) {
  const std::size_t smem = 2 * std::size_t(std::max(a.caps.single_block_queue, 0)) * sizeof(Vid);
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // Static shared memory is under 100 bytes; leave it room.
  if (smem + 256 > std::size_t(optin))
    throw Error(Status::InvalidValue, "single-block queue of " + std::to_string(a.caps.single_block_queue) +
                                          " entries does not fit in shared memory (" + std::to_string(optin) +
                                          " bytes per block)");
  static thread_local std::size_t raised = 48 * 1024;
  if (smem > raised) {
    CUDA_CHECK(cudaFuncSetAttribute(single_block_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    raised = smem;
  }
  single_block_kernel<<<1, kSingleThreads, smem>>>(a, in, out, records, max_levels < 1 ? 1 : max_levels);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda::frontier
