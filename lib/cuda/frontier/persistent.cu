// The persistent kernel: the whole level loop in ONE cooperative launch. Every block runs every
// level (the bodies of level_bodies.cuh), a grid barrier separates levels, and after each
// barrier every block closes the level itself from the same counters (advance(): the next
// frontier's size and out-edges, choose_kernel), so all blocks agree on the next body without
// any host involvement. Narrow phases run the single-block body in block 0 while the other
// blocks wait at the barrier.
//
// Why: a level launched from the host costs a launch (~4 us) plus, to size the next launch, a
// copy of the counters and a stream sync (~20 us on the H100 with the launch); a grid barrier
// costs ~1.2-1.4 us (132-264 blocks), and a CUDA graph WHILE node with IF-node dispatch measured
// ~13 us an iteration (docs/PERFORMANCE.md, 2026-11-22).
//
// Counters: level `it` of this launch accumulates into slots[it % 3]; block 0 zeroes
// slots[(it + 1) % 3] at the top of level `it`: that slot was last read right after the barrier
// that closed level it - 2, and everyone has passed another barrier since; its next writers
// come after the barrier that closes level `it`.
// Coherence: data written by another block in this launch (queues, frontier bitmaps, visited
// words, the counters) is read from L2 (load<true>, __ldcg), never from a possibly stale L1 line.
#include <cooperative_groups.h>

#include "cuda/frontier/level_bodies.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

namespace cg = cooperative_groups;

std::size_t persistent_smem_bytes(const Capacities& caps) {
  return std::max({single_block_smem_bytes(caps), push_smem_bytes(QueueMode::Warp, caps, kSingleThreads),
                   push_smem_bytes(QueueMode::Block, caps, kSingleThreads)});
}

// One block of 1024 threads per SM (64 registers a thread). Capping registers at 32 for two
// blocks per SM was measured slower on every graph of the standard set (docs/PERFORMANCE.md).
__global__ void __launch_bounds__(kSingleThreads) persistent_kernel(SearchArgs a, PersistentBuffers b) {
  extern __shared__ Vid smem[];  // the bodies' queues, one body at a time
  __shared__ Control s_c;        // this block's copy of the control (thread 0 writes it)
  __shared__ PushShared ps;
  __shared__ FewRowsShared fs;
  __shared__ SingleShared ss;
  __shared__ ull s_sum;
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) {
    s_c = load_control(a.ctl);
    ps.count = 0;
    ps.big.owner = INT_MAX;
  }
  __syncthreads();
  int cur = s_c.queue, bm = s_c.bitmap;
  const int last_level = int(a.g.n) + 1;  // a guard only: a BFS has at most n levels
  int recorded = 0;
  for (unsigned it = 0;; ++it) {
    const Control c = s_c;
    if (c.frontier_size == 0 || recorded >= b.max_levels || c.level > last_level) break;
    LevelSlot* slot = b.slots + it % 3;
    ull t0 = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      LevelSlot* z = b.slots + (it + 1) % 3;
      z->next_size = z->next_edges = z->examined = 0;
      t0 = globaltimer_ns();
    }
    const LevelCounters k{&slot->next_size, &slot->next_edges, &slot->examined};
    const BfsKernel kind = static_cast<BfsKernel>(c.kernel);
    const Vid* in = b.queues[cur];
    Vid* out = b.queues[1 - cur];
    const Index size = Index(c.frontier_size);
    if (kind == BfsKernel::SingleBlock) {
      if (blockIdx.x == 0) {
        single_block_levels<true>(a, s_c, in, out, k.tail, b.records ? b.records + recorded : nullptr,
                                  b.max_levels - recorded, smem, ss);
        if (threadIdx.x == 0) {
          *a.ctl = s_c;
          __threadfence();
        }
      }
      grid.sync();
      if (blockIdx.x != 0 && threadIdx.x == 0) s_c = load_control(a.ctl);
    } else {
      if (kind == BfsKernel::PullSpmv) {
        std::uint32_t* fin = b.bitmaps[bm];
        if (!c.pulling) {  // the frontier is a queue: make it a bitmap first
          const Index words = (a.g.n + 31) / 32;
          for (Index w = global_thread(); w < words; w += grid_threads()) fin[w] = 0;
          grid.sync();
          for (Index i = global_thread(); i < size; i += grid_threads()) {
            const Vid v = load<true>(in + i);
            atomicOr(fin + (v >> 5), 1u << (v & 31));
          }
          grid.sync();
        }
        pull_level<true>(a, c.level, fin, b.bitmaps[1 - bm], out, k, &s_sum);
        bm = 1 - bm;
      } else if (few_long_rows(size, Index(c.frontier_edges))) {
        few_rows_level<true>(a, c.level, in, size, out, k, smem, fs);
      } else if (kind == BfsKernel::QueueGlobal) {
        push_level<QueueMode::Global, true>(a, c.level, in, size, out, k, smem, ps);
      } else if (kind == BfsKernel::QueueBlock) {
        push_level<QueueMode::Block, true>(a, c.level, in, size, out, k, smem, ps);
      } else {
        push_level<QueueMode::Warp, true>(a, c.level, in, size, out, k, smem, ps);
      }
      grid.sync();
      if (threadIdx.x == 0) {
        const ull ns = __ldcg(&slot->next_size), ne = __ldcg(&slot->next_edges), ex = __ldcg(&slot->examined);
        if (blockIdx.x == 0 && b.records)
          b.records[recorded] = {
              c.frontier_size, kind == BfsKernel::PullSpmv ? ex : c.frontier_edges, t0, globaltimer_ns(), c.kernel, 0};
        s_c.examined += ex;
        advance(s_c, ns, ne, kind == BfsKernel::PullSpmv, a);
      }
    }
    cur = 1 - cur;
    __syncthreads();
    recorded += s_c.level - c.level;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    s_c.queue = cur;
    s_c.bitmap = bm;
    s_c.next_size = 0;
    s_c.blocks_done = 0;
    *a.ctl = s_c;
  }
}

}  // namespace

int persistent_blocks(const SearchArgs& a) {
  int device = 0, coop = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  if (!coop) return 0;
  int optin = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t smem = persistent_smem_bytes(a.caps);
  if (smem + 1024 > std::size_t(optin)) return 0;
  static thread_local std::size_t raised = kDefaultDynamicSmem;
  allow_dynamic_smem(persistent_kernel, smem, raised);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel, kSingleThreads, smem));
  return per_sm * a.sms;
}

void launch_persistent(const SearchArgs& a, const PersistentBuffers& b, int blocks) {
  const std::size_t smem = persistent_smem_bytes(a.caps);  // opted in by persistent_blocks()
  SearchArgs args = a;
  PersistentBuffers bufs = b;
  void* params[] = {&args, &bufs};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(persistent_kernel), dim3(unsigned(blocks)),
                                         dim3(kSingleThreads), params, smem, 0));
}

}  // namespace gbcuda::detail::cuda::frontier
