// The push queue kernels: one expansion of a sparse frontier (a queue of vertices) into the next
// one, three rungs of the same ladder that differ only in how a newly visited vertex reaches the
// global output queue:
//   queue-global  each new vertex reserves its own slot with an atomicAdd on the global tail;
//   queue-block   one queue per block in shared memory (a shared atomic per vertex), copied out
//                 with one global atomic per block, coalesced; what overflows it spills to the
//                 global queue directly;
//   queue-warp    per-warp queues in shared memory (warp-aggregated: one vote, no atomic),
//                 merged into the block queue with one shared atomic per warp, then as above;
//                 a full warp queue is merged early, a full block queue spills (one global
//                 atomic per warp).
// The frontier is expanded tile by tile (blockDim.x vertices) with degree binning (see
// expand_tile in frontier_common.cuh): rows >= 1024 by the block, >= 32 by a warp.
// The last block to finish closes the level on the device (finish_level: counters and the
// choice of the next kernel).
#include "cuda/frontier/frontier_common.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

enum class QueueMode { Global, Block, Warp };

struct GlobalAppender {
  Vid* out;
  ull* tail;
  __device__ void append(bool won, Vid v) {
    if (won) out[atomicAdd(tail, 1ull)] = v;
  }
};

struct BlockAppender {
  Vid* q;           // block queue (shared)
  unsigned* count;  // its fill count (may run past cap)
  unsigned cap;
  Vid* out;
  ull* tail;
  __device__ void append(bool won, Vid v) {
    if (!won) return;
    const unsigned k = atomicAdd(count, 1u);
    if (k < cap) q[k] = v;
    else out[atomicAdd(tail, 1ull)] = v;  // block queue full: straight to the global queue
  }
  __device__ void tile_end() {}
};

// Each warp owns a contiguous slice of `cap` entries; the lanes of one append write consecutive
// entries (rank among the winners), so a warp's stores hit 32 different banks. (Interleaving the
// queues across warps, as in the lecture's per-lane sub-queues, would only matter if each lane
// owned a queue; here it would turn the consecutive ranks into strided, conflicting stores.)
struct WarpAppender {
  Vid* wq;          // this warp's queue (shared)
  unsigned cap;     // its capacity
  unsigned count;   // its fill count, identical in every lane
  Vid* bq;          // block queue (shared)
  unsigned* bcount;
  unsigned bcap;
  Vid* out;
  ull* tail;

  // Moves the warp queue into the block queue (whole warp).
  __device__ void flush_warp() {
    __syncwarp();  // the lanes' stores to wq are visible to the warp
    for (unsigned k = 0; k < count; k += 32) {
      const unsigned i = k + lane_id();
      const bool h = i < count;
      warp_push(h, h ? wq[i] : 0, bq, bcount, bcap, out, tail);
    }
    __syncwarp();  // every lane has read wq before it is refilled
    count = 0;
  }
  __device__ void append(bool won, Vid v) {
    const unsigned m = __ballot_sync(kFullMask, won);
    if (m == 0) return;
    const unsigned c = __popc(m);
    if (count + c > cap) {
      flush_warp();
      if (c > cap) {  // tiny warp queue: this batch goes to the block queue directly
        warp_push(won, v, bq, bcount, bcap, out, tail);
        return;
      }
    }
    if (won) wq[count + __popc(m & lanes_below())] = v;
    count += c;
  }
  __device__ void tile_end() { flush_warp(); }
};

template <QueueMode M>
__global__ void __launch_bounds__(kQueueThreads)
    push_kernel(SearchArgs a, int lvl, const Vid* __restrict__ in, Index size, Vid* __restrict__ out) {
  extern __shared__ Vid smem[];  // block queue (caps.block_queue), then the warp queues
  __shared__ unsigned s_count;
  __shared__ ull s_base, s_sum;
  __shared__ BigRow big;
  if (threadIdx.x == 0) {
    s_count = 0;
    big.owner = INT_MAX;
  }
  __syncthreads();
  ull* tail = &a.ctl->next_size;
  const unsigned bcap = unsigned(a.caps.block_queue > 0 ? a.caps.block_queue : 0);
  const unsigned wcap = unsigned(a.caps.warp_queue > 0 ? a.caps.warp_queue : 0);
  auto make = [&] {
    if constexpr (M == QueueMode::Global) return GlobalAppender{out, tail};
    else if constexpr (M == QueueMode::Block) return BlockAppender{smem, &s_count, bcap, out, tail};
    else return WarpAppender{smem + bcap + (threadIdx.x / 32) * wcap, wcap, 0u, smem, &s_count, bcap, out, tail};
  };
  auto app = make();
  ull new_edges = 0;
  const Index stride = Index(gridDim.x) * blockDim.x;
  for (Index tile = Index(blockIdx.x) * blockDim.x; tile < size; tile += stride) {  // block-uniform
    expand_tile(a, lvl, in, size, tile, app, &big, new_edges);
    if constexpr (M != QueueMode::Global) {
      app.tile_end();
      flush_block_queue(smem, &s_count, bcap, out, tail, &s_base);
    }
  }
  block_add(new_edges, &a.ctl->next_edges, &s_sum);
  finish_level(a, false);
}

// A few long rows (a frontier of at most kFewRows vertices holding many edges, e.g. the first
// level from a Kronecker hub): one block per row would leave the other SMs idle, so the rows'
// edges are laid end to end and cut into chunks of kChunkEdges, a block per chunk. Each block
// finds the row of each of its edges from the rows' prefix sums (at most kFewRows, in shared
// memory) and appends through its block queue.
inline constexpr Index kFewRows = 32;
inline constexpr Offset kFewRowsMinEdges = 16384;
inline constexpr Offset kChunkEdges = 2048;

__global__ void __launch_bounds__(kQueueThreads)
    few_rows_kernel(SearchArgs a, int lvl, const Vid* __restrict__ in, Index size, Vid* __restrict__ out) {
  extern __shared__ Vid smem[];  // block queue (caps.block_queue)
  __shared__ Offset s_start[kFewRows + 1];
  __shared__ Offset s_begin[kFewRows];
  __shared__ Vid s_u[kFewRows];
  __shared__ unsigned s_count;
  __shared__ ull s_base, s_sum;
  if (threadIdx.x == 0) {
    Offset acc = 0;
    for (Index i = 0; i < size; ++i) {
      const Vid u = in[i];
      s_u[i] = u;
      s_begin[i] = a.g.out_ptr[u];
      s_start[i] = acc;
      acc += a.g.out_ptr[u + 1] - a.g.out_ptr[u];
    }
    s_start[size] = acc;
    s_count = 0;
  }
  __syncthreads();
  const Offset total = s_start[size];
  const unsigned bcap = unsigned(a.caps.block_queue > 0 ? a.caps.block_queue : 0);
  BlockAppender app{smem, &s_count, bcap, out, &a.ctl->next_size};
  ull new_edges = 0;
  for (Offset chunk = Offset(blockIdx.x) * kChunkEdges; chunk < total; chunk += Offset(gridDim.x) * kChunkEdges) {
    const Offset end = min(chunk + kChunkEdges, total);
    for (Offset base = chunk; base < end; base += blockDim.x) {  // block-uniform bounds
      const Offset e = base + threadIdx.x;
      const bool h = e < end;
      Index r = 0;
      if (h)
        while (r + 1 < size && s_start[r + 1] <= e) ++r;
      visit(a, lvl, h, h ? a.g.out_idx[s_begin[r] + (e - s_start[r])] : 0, s_u[r], app, new_edges);
    }
    flush_block_queue(smem, &s_count, bcap, out, &a.ctl->next_size, &s_base);
  }
  block_add(new_edges, &a.ctl->next_edges, &s_sum);
  finish_level(a, false);
}

template <QueueMode M>
void launch(const SearchArgs& a, int lvl, const Vid* in, Index size, Vid* out) {
  const Index tiles = (size + kQueueThreads - 1) / kQueueThreads;
  const unsigned grid = unsigned(std::clamp<Index>(tiles, 1, Index(a.sms) * 8));
  std::size_t smem = 0;
  if constexpr (M != QueueMode::Global) smem += std::size_t(std::max(a.caps.block_queue, 0)) * sizeof(Vid);
  if constexpr (M == QueueMode::Warp) smem += std::size_t(std::max(a.caps.warp_queue, 0)) * (kQueueThreads / 32) * sizeof(Vid);
  static thread_local std::size_t raised = 48 * 1024;  // dynamic shared memory allowed so far
  if (smem > raised) {
    CUDA_CHECK(cudaFuncSetAttribute(push_kernel<M>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    raised = smem;
  }
  push_kernel<M><<<grid, kQueueThreads, smem>>>(a, lvl, in, size, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_push(BfsKernel kind, const SearchArgs& a, int lvl, const Vid* in, Index size, Index edges, Vid* out) {
  if (size <= kFewRows && edges >= kFewRowsMinEdges) {  // any push kind: spread the long rows
    const Index chunks = (edges + kChunkEdges - 1) / kChunkEdges;
    const unsigned grid = unsigned(std::clamp<Index>(chunks, 1, Index(a.sms) * 8));
    const std::size_t smem = std::size_t(std::max(a.caps.block_queue, 0)) * sizeof(Vid);
    static thread_local std::size_t raised = 48 * 1024;
    if (smem > raised) {
      CUDA_CHECK(cudaFuncSetAttribute(few_rows_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      raised = smem;
    }
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
