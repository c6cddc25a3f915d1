#pragma once
// The level bodies: what one block does for one level of each kernel family. Each is a device
// function that every thread of the block calls, accumulating into counters it is given (the
// next queue's tail, the next frontier's out-edges, the in-edges scanned). Two kinds of kernel
// wrap them:
//   - one launch per level (queue_kernels.cu, pull.cu, single_block.cu), closing the level with
//     finish_level() on ctl's counters;
//   - the persistent kernel (persistent.cu), which runs them level after level with a grid
//     barrier in between and reads what other blocks wrote in the same launch (Fresh = true:
//     loads from L2, see load()).
//
// Push (push_level), three rungs of the same ladder that differ only in how a newly visited
// vertex reaches the global output queue:
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
#include "cuda/frontier/frontier_common.cuh"

#if defined(__CUDACC__)

namespace gbcuda::detail::cuda::frontier {

enum class QueueMode { Global, Block, Warp };

constexpr QueueMode queue_mode(BfsKernel k) {
  return k == BfsKernel::QueueGlobal  ? QueueMode::Global
         : k == BfsKernel::QueueBlock ? QueueMode::Block
                                      : QueueMode::Warp;
}

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
  Vid* wq;         // this warp's queue (shared)
  unsigned cap;    // its capacity
  unsigned count;  // its fill count, identical in every lane
  Vid* bq;         // block queue (shared)
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

// Where a level's contributions go.
struct LevelCounters {
  ull* tail;        // the next queue's fill count (slots are reserved here)
  ull* next_edges;  // out-edges of the next frontier
  ull* examined;    // pull: in-edges scanned
};

// The counters of a kernel launched for one level: ctl's, closed by finish_level().
__device__ inline LevelCounters ctl_counters(const SearchArgs& a) {
  return {&a.ctl->next_size, &a.ctl->next_edges, &a.ctl->examined};
}

// Block-shared scratch of the push bodies. `count` must be 0 and `big.owner` INT_MAX on entry;
// both are again on exit.
struct PushShared {
  unsigned count;
  ull base, sum;
  BigRow big;
};

// Dynamic shared memory a push body needs (block queue, then one warp queue per warp).
inline std::size_t push_smem_bytes(QueueMode m, const Capacities& caps, int threads) {
  std::size_t entries = 0;
  if (m != QueueMode::Global) entries += std::size_t(std::max(caps.block_queue, 0));
  if (m == QueueMode::Warp) entries += std::size_t(std::max(caps.warp_queue, 0)) * std::size_t(threads / 32);
  return entries * sizeof(Vid);
}

// One push level: the frontier `in` (size `size`) into `out`, in tiles spread over the grid.
template <QueueMode M, bool Fresh>
__device__ void push_level(const SearchArgs& a, int lvl, const Vid* in, Index size, Vid* out, LevelCounters k,
                           Vid* smem, PushShared& s) {
  const unsigned bcap = unsigned(a.caps.block_queue > 0 ? a.caps.block_queue : 0);
  const unsigned wcap = unsigned(a.caps.warp_queue > 0 ? a.caps.warp_queue : 0);
  auto make = [&] {
    if constexpr (M == QueueMode::Global) return GlobalAppender{out, k.tail};
    else if constexpr (M == QueueMode::Block) return BlockAppender{smem, &s.count, bcap, out, k.tail};
    else return WarpAppender{smem + bcap + (threadIdx.x / 32) * wcap, wcap, 0u, smem, &s.count, bcap, out, k.tail};
  };
  auto app = make();
  ull new_edges = 0;
  // A block's tile: its share of the frontier in whole warps, at most blockDim.x. A frontier
  // narrower than the grid is spread over many blocks, one warp each, rather than packed into a
  // few full blocks: a level's memory transactions then issue from many SMs at once (a
  // 1000-vertex grid frontier in one SM costs ~9 us, bound by that SM's L2 requests).
  const Index share = (size + gridDim.x - 1) / gridDim.x;
  const Index width = min(Index(blockDim.x), max(Index(32), (share + 31) / 32 * 32));
  for (Index tile = Index(blockIdx.x) * width; tile < size; tile += Index(gridDim.x) * width) {  // block-uniform
    expand_tile<Fresh>(a, lvl, in, min(size, tile + width), tile, app, &s.big, new_edges);
    if constexpr (M != QueueMode::Global) {
      app.tile_end();
      flush_block_queue(smem, &s.count, bcap, out, k.tail, &s.base);
    }
  }
  block_add(new_edges, k.next_edges, &s.sum);
}

// A few long rows (a frontier of at most kFewRows vertices holding many edges, e.g. the first
// level from a Kronecker hub): one block per row would leave the other SMs idle, so the rows'
// edges are laid end to end and cut into chunks of kChunkEdges, a block per chunk. Each block
// finds the row of each of its edges from the rows' prefix sums (at most kFewRows, in shared
// memory) and appends through its block queue.
inline constexpr Index kFewRows = 32;
inline constexpr Offset kFewRowsMinEdges = 16384;
inline constexpr Offset kChunkEdges = 2048;

GBCUDA_HD inline bool few_long_rows(Index size, Index edges) { return size <= kFewRows && edges >= kFewRowsMinEdges; }

struct FewRowsShared {
  Offset start[kFewRows + 1];
  Offset begin[kFewRows];
  Vid u[kFewRows];
  unsigned count;
  ull base, sum;
};

template <bool Fresh>
__device__ void few_rows_level(const SearchArgs& a, int lvl, const Vid* in, Index size, Vid* out, LevelCounters k,
                               Vid* smem, FewRowsShared& s) {
  if (threadIdx.x == 0) {
    Offset acc = 0;
    for (Index i = 0; i < size; ++i) {
      const Vid u = load<Fresh>(in + i);
      s.u[i] = u;
      s.begin[i] = a.g.out_ptr[u];
      s.start[i] = acc;
      acc += a.g.out_ptr[u + 1] - a.g.out_ptr[u];
    }
    s.start[size] = acc;
    s.count = 0;
  }
  __syncthreads();
  const Offset total = s.start[size];
  const unsigned bcap = unsigned(a.caps.block_queue > 0 ? a.caps.block_queue : 0);
  BlockAppender app{smem, &s.count, bcap, out, k.tail};
  ull new_edges = 0;
  for (Offset chunk = Offset(blockIdx.x) * kChunkEdges; chunk < total; chunk += Offset(gridDim.x) * kChunkEdges) {
    const Offset end = min(chunk + kChunkEdges, total);
    for (Offset base = chunk; base < end; base += blockDim.x) {  // block-uniform bounds
      const Offset e = base + threadIdx.x;
      const bool h = e < end;
      Index r = 0;
      if (h)
        while (r + 1 < size && s.start[r + 1] <= e) ++r;
      visit(a, lvl, h, h ? a.g.out_idx[s.begin[r] + (e - s.start[r])] : 0, s.u[r], app, new_edges);
    }
    flush_block_queue(smem, &s.count, bcap, out, k.tail, &s.base);
  }
  block_add(new_edges, k.next_edges, &s.sum);
}

// One pull level (bottom-up, masked SpMV over A' with early exit): each unvisited vertex scans
// its in-edges and stops at the first in-neighbour in the frontier bitmap `fin`. One warp owns
// one 32-vertex word of the bitmaps, so the word of the next frontier comes from one vote and
// the visited word is updated by one plain store (no other warp touches it during the level).
// The next frontier is written both as the bitmap `fout` (every word) and as the queue `out`,
// appended with one atomic per warp.
template <bool Fresh>
__device__ void pull_level(const SearchArgs& a, int lvl, const std::uint32_t* fin, std::uint32_t* fout, Vid* out,
                           LevelCounters k, ull* s_sum) {
  const Index n = a.g.n;
  const Index words = (n + 31) / 32;
  const Index nwarps = grid_threads() / 32;
  const unsigned lane = lane_id();
  ull new_edges = 0, examined = 0;
  for (Index w = global_thread() / 32; w < words; w += nwarps) {  // warp-uniform
    const std::uint32_t vis = load<Fresh>(a.visited + w);
    if (vis == kFullMask) {
      if (lane == 0) fout[w] = 0;
      continue;
    }
    const Index v = w * 32 + lane;
    bool found = false;
    Vid par = 0;
    if (v < n && !((vis >> lane) & 1u)) {
      const Offset b = a.g.in_ptr[v], e = a.g.in_ptr[v + 1];
      examined += static_cast<ull>(e - b);
      for (Offset p = b; p < e; ++p) {
        const Vid u = a.g.in_idx[p];
        if ((load<Fresh>(fin + (u >> 5)) >> (u & 31)) & 1u) {
          found = true;
          par = u;
          break;
        }
      }
    }
    const unsigned m = __ballot_sync(kFullMask, found);
    if (lane == 0) {
      fout[w] = m;
      if (m) a.visited[w] = vis | m;
    }
    if (m == 0) continue;
    if (found) {
      a.level[v] = lvl;
      if (a.parent) a.parent[v] = par;
      new_edges += static_cast<ull>(a.g.out_ptr[v + 1] - a.g.out_ptr[v]);
    }
    ull base = 0;
    if (lane == 0) base = atomicAdd(k.tail, ull(__popc(m)));
    base = __shfl_sync(kFullMask, base, 0);
    if (found) out[base + __popc(m & lanes_below())] = Vid(v);
  }
  block_add(new_edges, k.next_edges, s_sum);
  block_add(examined, k.examined, s_sum);
}

// Warp-aggregated appends into the single block's shared next queue, spilling to the global queue.
struct SingleAppender {
  Vid* q;
  unsigned* count;
  unsigned cap;
  Vid* out;
  ull* tail;
  __device__ void append(bool won, Vid v) { warp_push(won, v, q, count, cap, out, tail); }
};

struct SingleShared {
  unsigned count;
  ull sum, size, kept, spilled;
  int level, go;
  BigRow big;
};

// Dynamic shared memory of the single-block body: two queues of caps.single_block_queue entries.
inline std::size_t single_block_smem_bytes(const Capacities& caps) {
  return 2 * std::size_t(std::max(caps.single_block_queue, 0)) * sizeof(Vid);
}

// The single-block body: ONE block (1024 threads) runs narrow levels back to back, with
// __syncthreads() between them and the frontier in shared memory (two ping-pong queues of
// caps.single_block_queue entries). After every level thread 0 closes it (advance() on `c`,
// which only thread 0 reads or writes) and the block goes on while choose_kernel still says
// single-block and the new frontier fit its queue. Otherwise it hands over: the new frontier is
// written to the global queue `out`. A frontier that overflows the shared queue spills its extra
// vertices to `out` as they are found (warp-aggregated, one global atomic per warp on `tail`,
// which must be 0 on entry), so nothing is lost. The first level reads `in` (global memory,
// FreshIn as in expand_tile). On return c.next_size is 0 and c holds the handed-over frontier.
template <bool FreshIn>
__device__ void single_block_levels(const SearchArgs& a, Control& c, const Vid* in, Vid* out, ull* tail,
                                    LevelRecord* records, int max_levels, Vid* smem, SingleShared& s) {
  const unsigned cap = unsigned(a.caps.single_block_queue > 0 ? a.caps.single_block_queue : 0);
  Vid* qa = smem;
  Vid* qb = smem + cap;
  if (threadIdx.x == 0) {
    s.size = c.frontier_size;
    s.level = c.level;
    s.count = 0;
    s.big.owner = INT_MAX;
  }
  __syncthreads();

  const Vid* cur = in;
  Vid* next = qa;
  int done = 0;  // levels run (thread 0's copy is the one used)
  for (bool first = true;; first = false) {
    const Index size = Index(s.size);
    const int lvl = s.level;
    const ull t0 = records && threadIdx.x == 0 ? globaltimer_ns() : 0;
    SingleAppender app{next, &s.count, cap, out, tail};
    ull new_edges = 0;
    for (Index tile = 0; tile < size; tile += blockDim.x) {
      if (first) expand_tile<FreshIn>(a, lvl, cur, size, tile, app, &s.big, new_edges);
      else expand_tile<false>(a, lvl, cur, size, tile, app, &s.big, new_edges);  // shared memory
    }
    block_sum(new_edges, &s.sum);  // also: every append of this level is done
    if (threadIdx.x == 0) {
      if (records)
        records[done] = {c.frontier_size, c.frontier_edges, t0, globaltimer_ns(), int(BfsKernel::SingleBlock), 0};
      const unsigned kept = min(s.count, cap);
      const ull spilled = s.count - kept;  // every append past `cap` went to `out`
      advance(c, kept + spilled, s.sum, false, a);
      ++done;
      s.go = c.frontier_size > 0 && spilled == 0 && c.kernel == int(BfsKernel::SingleBlock) && done < max_levels;
      s.kept = kept;
      s.spilled = spilled;
      s.size = c.frontier_size;
      s.level = c.level;
      s.count = 0;
    }
    __syncthreads();
    if (!s.go) {
      // Hand over: spilled vertices are out[0, spilled); the shared ones follow them.
      const ull kept = s.kept, spilled = s.spilled;
      for (ull k = threadIdx.x; k < kept; k += blockDim.x) out[spilled + k] = next[k];
      break;
    }
    cur = next;
    next = next == qa ? qb : qa;
  }
  if (threadIdx.x == 0) {
    c.next_size = 0;  // the spilled slots now belong to the handed-over frontier
    c.blocks_done = 0;
  }
}

}  // namespace gbcuda::detail::cuda::frontier

#endif  // __CUDACC__
