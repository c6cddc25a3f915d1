#pragma once
// The kernel bodies of the boolean masked product: what one block does for one product (one BFS
// level) of each kernel. Each is a device function that every thread of the block calls,
// accumulating into counters it is given (the output's tail, the output's out-edges, the edges
// a pull scanned), and writing through a target (targets.cuh). Two kernels run them: the
// product kernel of vxm/mxv (product.cu, one product per launch) and the fused BFS
// (fused_bfs.cu, level after level with a grid barrier in between). Both run one block of 1024
// threads per SM and read what other blocks wrote in the same launch through L2 (Fresh = true,
// see load()).
//
// Push (push_level), three rungs of the same ladder that differ only in how a new output entry
// reaches the global output:
//   queue-global  each new entry reserves its own slot with an atomicAdd on the global tail;
//   queue-block   one queue per block in shared memory (a shared atomic per entry), copied out
//                 with one global atomic per block, coalesced; what overflows it spills to the
//                 global output directly;
//   queue-warp    per-warp queues in shared memory (warp-aggregated: one vote, no atomic),
//                 merged into the block queue with one shared atomic per warp, then as above;
//                 a full warp queue is merged early, a full block queue spills (one global
//                 atomic per warp).
// The input is expanded tile by tile (expand_tile in common.cuh): rows >= 1024 by the block, the
// others' edges dealt out evenly over the block's threads.
#include "cuda/product/targets.cuh"

#if defined(__CUDACC__)

namespace gbcuda::detail::cuda::product {

enum class QueueMode { Global, Block, Warp };

template <class Tgt>
struct GlobalAppender {
  const Tgt& t;
  ull* tail;
  __device__ void append(bool won, Vid v, Vid p) {
    if (won) t.write(atomicAdd(tail, 1ull), v, p);
  }
  __device__ void tile_end() {}
};

template <class Tgt>
struct BlockAppender {
  const Tgt& t;
  SmemQueue q;      // block queue (shared)
  unsigned* count;  // its fill count (may run past cap)
  unsigned cap;
  ull* tail;
  __device__ void append(bool won, Vid v, Vid p) {
    if (!won) return;
    const unsigned k = atomicAdd(count, 1u);
    if (k < cap) {
      q.v[k] = v;
      if constexpr (Tgt::kPayload) q.p[k] = p;
    } else {
      t.write(atomicAdd(tail, 1ull), v, p);  // block queue full: straight to the global output
    }
  }
  __device__ void tile_end() {}
};

// Each warp owns a contiguous slice of `cap` entries; the lanes of one append write consecutive
// entries (rank among the winners), so a warp's stores hit 32 different banks.
template <class Tgt>
struct WarpAppender {
  const Tgt& t;
  SmemQueue wq;    // this warp's queue (shared)
  unsigned cap;    // its capacity
  unsigned count;  // its fill count, identical in every lane
  SmemQueue bq;    // block queue (shared)
  unsigned* bcount;
  unsigned bcap;
  ull* tail;

  // Moves the warp queue into the block queue (whole warp).
  __device__ void flush_warp() {
    __syncwarp();  // the lanes' stores to wq are visible to the warp
    for (unsigned k = 0; k < count; k += 32) {
      const unsigned i = k + lane_id();
      const bool h = i < count;
      Vid p = 0;
      if constexpr (Tgt::kPayload) p = h ? wq.p[i] : 0;
      warp_push(h, h ? wq.v[i] : 0, p, bq, bcount, bcap, t, tail);
    }
    __syncwarp();  // every lane has read wq before it is refilled
    count = 0;
  }
  __device__ void append(bool won, Vid v, Vid p) {
    const unsigned m = __ballot_sync(kFullMask, won);
    if (m == 0) return;
    const unsigned c = __popc(m);
    if (count + c > cap) {
      flush_warp();
      if (c > cap) {  // tiny warp queue: this batch goes to the block queue directly
        warp_push(won, v, p, bq, bcount, bcap, t, tail);
        return;
      }
    }
    if (won) {
      const unsigned slot = count + __popc(m & lanes_below());
      wq.v[slot] = v;
      if constexpr (Tgt::kPayload) wq.p[slot] = p;
    }
    count += c;
  }
  __device__ void tile_end() { flush_warp(); }
};

// Where a product's contributions go.
struct LevelCounters {
  ull* tail;        // the output's fill count (slots are reserved here)
  ull* next_edges;  // out-edges of the output's entries
  ull* examined;    // pull: in-edges read (a row's scan stops at its find)
};

// Block-shared scratch of the push bodies. `count` must be 0 and `big.owner` INT_MAX on entry;
// both are again on exit.
struct PushShared {
  unsigned count;
  ull base, sum;
  BigRow big;
};

// Entries per shared-memory queue slot: the entry, and its payload when the target has one.
template <class Tgt>
constexpr std::size_t slot_bytes() {
  return Tgt::kPayload ? 2 * sizeof(Vid) : sizeof(Vid);
}

// Shared-memory queue entries the bodies use, of which a kernel's dynamic shared memory holds the
// largest (one body runs at a time): a push's block queue and one warp queue per warp (the
// queue-block push uses the block queue alone), the single-block body's two queues; the pull
// stages its finds in the same room (pull_level).
__host__ __device__ inline std::size_t body_queue_entries(const Capacities& caps, int threads) {
  const std::size_t block = std::size_t(caps.block_queue > 0 ? caps.block_queue : 0);
  const std::size_t warps = std::size_t(caps.warp_queue > 0 ? caps.warp_queue : 0) * std::size_t(threads / 32);
  const std::size_t single = 2 * std::size_t(caps.single_block_queue > 0 ? caps.single_block_queue : 0);
  return block + warps > single ? block + warps : single;
}
template <class Tgt>
std::size_t body_queue_smem_bytes(const Capacities& caps) {
  return body_queue_entries(caps, kThreads) * slot_bytes<Tgt>();
}

// The shared-memory queues of a push body, laid out in `smem`: the block queue's entries and
// payloads, then each warp's.
template <class Tgt>
__device__ void push_queues(Vid* smem, unsigned bcap, unsigned wcap, SmemQueue& bq, SmemQueue& wq) {
  const unsigned warps = blockDim.x / 32;
  bq.v = smem;
  bq.p = Tgt::kPayload ? smem + bcap : nullptr;
  Vid* w0 = smem + (Tgt::kPayload ? 2 : 1) * bcap;
  const unsigned warp = threadIdx.x / 32;
  wq.v = w0 + warp * wcap;
  wq.p = Tgt::kPayload ? w0 + warps * wcap + warp * wcap : nullptr;
}

// One push: the input `in` (size `size`) into the target's output, in tiles spread over the
// blocks [0, blocks) of which this is `block`.
template <QueueMode M, bool Fresh, class Tgt>
__device__ void push_level(const Tgt& t, int lvl, const Vid* in, Index size, LevelCounters k, Vid* smem, PushShared& s,
                           unsigned blocks, unsigned block) {
  const unsigned bcap = unsigned(t.caps.block_queue > 0 ? t.caps.block_queue : 0);
  const unsigned wcap = unsigned(t.caps.warp_queue > 0 ? t.caps.warp_queue : 0);
  SmemQueue bq, wq;
  push_queues<Tgt>(smem, bcap, wcap, bq, wq);
  auto make = [&] {
    if constexpr (M == QueueMode::Global) return GlobalAppender<Tgt>{t, k.tail};
    else if constexpr (M == QueueMode::Block) return BlockAppender<Tgt>{t, bq, &s.count, bcap, k.tail};
    else return WarpAppender<Tgt>{t, wq, wcap, 0u, bq, &s.count, bcap, k.tail};
  };
  auto app = make();
  ull new_edges = 0;
  // A block's tile: its share of the input in whole warps, at most blockDim.x. An input
  // narrower than the grid is spread over many blocks, one warp each, rather than packed into a
  // few full blocks: a level's memory transactions then issue from many SMs at once (a
  // 1000-vertex grid frontier in one SM costs ~9 us, bound by that SM's L2 requests).
  const Index share = (size + blocks - 1) / blocks;
  const Index width = min(Index(blockDim.x), max(Index(32), (share + 31) / 32 * 32));
  for (Index tile = Index(block) * width; tile < size; tile += Index(blocks) * width) {  // block-uniform
    expand_tile<Fresh>(t, lvl, in, min(size, tile + width), tile, app, &s.big, new_edges);
    if constexpr (M != QueueMode::Global) {
      app.tile_end();
      flush_block_queue(bq, &s.count, bcap, t, k.tail, &s.base);
    }
  }
  block_add(new_edges, k.next_edges, &s.sum);
}

// A few long rows (an input of at most kFewRows entries holding kFewRowsMinEdges edges or more:
// product.hpp): one block per row would leave the other SMs idle, so the rows' edges are laid end
// to end and cut into chunks of kChunkEdges, a block per chunk. Each block finds the row of each of
// its edges from the rows' prefix sums (at most kFewRows, in shared memory) and appends through its
// block queue.
inline constexpr Offset kChunkEdges = 2048;

GBCUDA_HD inline bool few_long_rows(Index size, Index edges) { return size <= kFewRows && edges >= kFewRowsMinEdges; }

struct FewRowsShared {
  Offset start[kFewRows + 1];
  Offset begin[kFewRows];
  Vid u[kFewRows];
  unsigned count;
  ull base, sum;
};

template <bool Fresh, class Tgt>
__device__ void few_rows_level(const Tgt& t, int lvl, const Vid* in, Index size, LevelCounters k, Vid* smem,
                               FewRowsShared& s) {
  if (threadIdx.x == 0) {
    Offset acc = 0;
    for (Index i = 0; i < size; ++i) {
      const Vid u = load<Fresh>(in + i);
      s.u[i] = u;
      s.begin[i] = t.g.out_ptr[u];
      s.start[i] = acc;
      acc += t.g.out_ptr[u + 1] - t.g.out_ptr[u];
    }
    s.start[size] = acc;
    s.count = 0;
  }
  __syncthreads();
  const Offset total = s.start[size];
  const unsigned bcap = unsigned(t.caps.block_queue > 0 ? t.caps.block_queue : 0);
  SmemQueue bq{smem, Tgt::kPayload ? smem + bcap : nullptr};
  BlockAppender<Tgt> app{t, bq, &s.count, bcap, k.tail};
  ull new_edges = 0;
  for (Offset chunk = Offset(blockIdx.x) * kChunkEdges; chunk < total; chunk += Offset(gridDim.x) * kChunkEdges) {
    const Offset end = min(chunk + kChunkEdges, total);
    for (Offset base = chunk; base < end; base += blockDim.x) {  // block-uniform bounds
      const Offset e = base + threadIdx.x;
      const bool h = e < end;
      Index r = 0;
      if (h)
        while (r + 1 < size && s.start[r + 1] <= e) ++r;
      visit(t, lvl, h, h ? t.g.out_idx[s.begin[r] + (e - s.start[r])] : 0, s.u[r], app, new_edges);
    }
    flush_block_queue(bq, &s.count, bcap, t, k.tail, &s.base);
  }
  block_add(new_edges, k.next_edges, &s.sum);
}

// The push of one level over every block, the ladder both kernels run (product.cu's product
// kernel and fused_bfs.cu's fused kernel): a few long rows are dealt out as edge chunks over all
// blocks (few_long_rows); otherwise the queue kernel `kind` (any kind but QueueGlobal and
// QueueBlock means warp queues). The single-block body and the pull are the callers' own, since
// each runs them differently. `edges`: the input's out-edges (the policy's count).
template <bool Fresh, class Tgt>
__device__ __forceinline__ void grid_push_level(const Tgt& t, int lvl, const Vid* in, Index size, Index edges,
                                                ProductKernel kind, LevelCounters k, Vid* smem, PushShared& ps,
                                                FewRowsShared& fs) {
  if (few_long_rows(size, edges)) few_rows_level<Fresh>(t, lvl, in, size, k, smem, fs);
  else if (kind == ProductKernel::QueueGlobal)
    push_level<QueueMode::Global, Fresh>(t, lvl, in, size, k, smem, ps, gridDim.x, blockIdx.x);
  else if (kind == ProductKernel::QueueBlock)
    push_level<QueueMode::Block, Fresh>(t, lvl, in, size, k, smem, ps, gridDim.x, blockIdx.x);
  else push_level<QueueMode::Warp, Fresh>(t, lvl, in, size, k, smem, ps, gridDim.x, blockIdx.x);
}

// A pull's finds, staged per warp in shared memory (`cap` entries) and written out with one
// atomic on the output's tail per full stage, rather than one atomic on that single address per
// warp iteration (pair of words). Measured: kron:22:16
// -4 to -8%, randout:1e8:4's last two pull levels -10 to -21%; predicted -50% there, so the
// same-address atomics were a small part of what bounds those levels. The whole warp calls
// append() and flush(). A pull's entry carries a payload when the target has one and also when
// it writes terms (the value of the term found).
template <class Tgt>
struct WarpStageAppender {
  static constexpr bool kStagedPayload = Tgt::kPayload || Tgt::kTerms;
  // Entries a warp's stage holds in `entries` queue slots of the body's shared memory (a slot
  // is slot_bytes<Tgt>(); a term's payload takes a second Vid that the slot does not have).
  __device__ static unsigned capacity(std::size_t entries, unsigned warps) {
    const std::size_t vids = entries * slot_bytes<Tgt>() / sizeof(Vid);
    return unsigned(vids / (std::size_t(warps) * (kStagedPayload ? 2 : 1)));
  }

  const Tgt& t;
  SmemQueue q;     // this warp's stage
  unsigned cap;    // its capacity
  unsigned count;  // its fill, identical in every lane
  ull* tail;

  // Writes `c` entries (this lane's when `have`, at its rank in `m`) from one reservation.
  __device__ void write_out(unsigned m, unsigned c, bool have, Vid v, Vid p) {
    ull base = 0;
    if (lane_id() == 0) base = atomicAdd(tail, ull(c));
    base = __shfl_sync(kFullMask, base, 0);
    if (have) t.write(base + __popc(m & lanes_below()), v, p);
  }
  __device__ void flush() {
    __syncwarp();  // the lanes' stores to q are visible to the warp
    if (count == 0) return;
    ull base = 0;
    if (lane_id() == 0) base = atomicAdd(tail, ull(count));
    base = __shfl_sync(kFullMask, base, 0);
    for (unsigned k = lane_id(); k < count; k += 32) t.write(base + k, q.v[k], kStagedPayload ? q.p[k] : 0);
    __syncwarp();  // every lane has read q before it is refilled
    count = 0;
  }
  __device__ void append(bool won, Vid v, Vid p) {
    const unsigned m = __ballot_sync(kFullMask, won);
    if (m == 0) return;
    const unsigned c = __popc(m);
    if (count + c > cap) {
      flush();
      if (c > cap) {  // a stage smaller than one append: straight out
        write_out(m, c, won, v, p);
        return;
      }
    }
    if (won) {
      const unsigned slot = count + __popc(m & lanes_below());
      q.v[slot] = v;
      if constexpr (kStagedPayload) q.p[slot] = p;
    }
    count += c;
  }
};

// One pull (bottom-up, masked SpMV over the pull rows with early exit): each candidate output
// (the target says which: unvisited vertices, or what the mask allows) scans its in-edges and
// stops at the first input entry in the frontier bitmap `fin`. A scan is a chain of dependent
// round trips (in-edge, then its probe) and a warp waits for its lanes' longest, so one warp owns
// kPullChains 32-output words at a time (w, w + nwarps, ...), a lane one output of each, and the
// lane's scans advance together: kPullChains independent chains in flight. With one word a warp
// the pull levels ran below half of the H100's L2 and DRAM throughput with warps waiting on
// memory (ncu); two took kron:22:16's pull levels from 169 and
// 107 us to 123 and 80. (Lanes that share a batch's candidates, so that none idles while a long
// scan finishes, were slower on urand and kron, faster on randout:1e8:4; two in-edges a step per chain, both probes in
// flight, left every pull level as it was or slower.) Each word's result comes from one vote and the target commits it
// with one store; the new entries go through the warp's stage in `smem` (WarpStageAppender), which needs
// body_queue_smem_bytes() of dynamic shared memory.
inline constexpr int kPullChains = 2;  // 4 measured slower (register spills at 64 a thread)

// Long in-rows (kPullLaneSteps, kPullChunk: product.hpp).
inline constexpr int kDeferredChunkBits = 36;
inline constexpr ull kDeferredChunkMask = (ull(1) << kDeferredChunkBits) - 1;

// The deferred rows of one pull: row i is v[i], its rest starts at in-edge from[i], and its
// chunks are chunk_base[i], chunk_base[i] + 1, ... The count of rows and of chunks share one
// word, `packed` (rows << kDeferredChunkBits | chunks), so one atomic reserves both and the
// chunk bases grow with i. `packed` must be 0 when a pull starts; v null: no deferral.
struct DeferredRows {
  int lane_steps = kPullLaneSteps;  // 0: no deferral; set per pull (pull_lane_steps)
  Vid* v = nullptr;
  Offset* from = nullptr;
  ull* chunk_base = nullptr;
  ull* packed = nullptr;
};

// Entries a DeferredRows needs for a pull over n rows holding nnz entries: only rows longer than
// lane_steps are ever deferred (pulls of up to kPullLaneStepsMin steps: lane_steps =
// kPullLaneStepsMin).
__host__ __device__ inline Index deferred_rows_capacity(Index n, Offset nnz, int lane_steps) {
  const Index longer = Index(nnz / Offset(lane_steps + 1));
  return (longer < n ? longer : n) + 1;
}

__device__ __forceinline__ void defer_row(const DeferredRows& d, Vid v, Offset from, Offset end) {
  const ull chunks = ull(end - from + kPullChunk - 1) / kPullChunk;
  const ull old = atomicAdd(d.packed, (ull(1) << kDeferredChunkBits) | chunks);
  const ull i = old >> kDeferredChunkBits;
  d.v[i] = v;
  d.from[i] = from;
  d.chunk_base[i] = old & kDeferredChunkMask;
}

// `d`: where the rest of a row goes that has not met the frontier within d.lane_steps in-edges
// (see DeferredRows; d.v may be null only when no row is that long). The caller then runs
// pull_deferred_rows() after a grid barrier when *d.packed is not 0. A target with terms never
// defers: its search goes on past a false term's find.
template <class Tgt>
__device__ void pull_level(const Tgt& t, int lvl, const std::uint32_t* fin, LevelCounters k, const DeferredRows& d,
                           Vid* smem, ull* s_sum) {
  const bool defer = !Tgt::kTerms && d.lane_steps > 0;
  const Index n = t.g.n;
  const Index words = (n + 31) / 32;
  const Index nwarps = grid_threads() / 32;
  const unsigned lane = lane_id();
  const unsigned block_warps = blockDim.x / 32, warp = threadIdx.x / 32;
  const unsigned cap = WarpStageAppender<Tgt>::capacity(body_queue_entries(t.caps, int(blockDim.x)), block_warps);
  WarpStageAppender<Tgt> app{
      t,
      SmemQueue{smem + warp * cap,
                WarpStageAppender<Tgt>::kStagedPayload ? smem + (block_warps + warp) * cap : nullptr},
      cap, 0u, k.tail};
  ull new_edges = 0, examined = 0;
  // The kPullChains words w[] (>= words: none) with their candidates, one chain each.
  auto pull_words = [&](const Index(&w)[kPullChains], const std::uint32_t(&cand)[kPullChains]) {
    Offset p[kPullChains], e[kPullChains];
    bool found[kPullChains], best[kPullChains];
    // The find's in-neighbour; before a find, -1 for a candidate without in-edges and -2 for a row
    // cut at lane_steps (its rest is deferred unless the cut part meets the frontier).
    Vid par[kPullChains];
#pragma unroll
    for (int c = 0; c < kPullChains; ++c) {
      p[c] = e[c] = 0;
      found[c] = best[c] = false;
      par[c] = 0;
      if ((cand[c] >> lane) & 1u) {
        const Index v = w[c] * 32 + lane;
        p[c] = t.g.in_ptr[v];
        e[c] = t.g.in_ptr[v + 1];
        if (p[c] == e[c]) par[c] = -1;
        if (defer && e[c] - p[c] > d.lane_steps) {  // the rest may wait
          e[c] = p[c] + d.lane_steps;
          par[c] = -2;
        }
        examined += static_cast<ull>(e[c] - p[c]);  // less what a find leaves unread
      }
    }
    for (;;) {
      bool more = false;
      Vid u[kPullChains];
#pragma unroll
      for (int c = 0; c < kPullChains; ++c) {  // the chains' in-edges first, then their probes
        more |= p[c] < e[c];
        u[c] = p[c] < e[c] ? t.g.in_idx[p[c]] : 0;
      }
      if (!more) break;
#pragma unroll
      for (int c = 0; c < kPullChains; ++c) {
        if (p[c] >= e[c]) continue;
        const int h = t.pull_hit(fin, u[c]);
        if constexpr (Tgt::kTerms) {  // keep looking past a false term for a true one
          if (h != 0) {
            if (!found[c] || h == 2) par[c] = u[c];
            found[c] = true;
            best[c] = h == 2;
          }
          if (best[c]) examined -= static_cast<ull>(e[c] - p[c] - 1);
          p[c] = best[c] ? e[c] : p[c] + 1;
        } else if (h != 0) {  // any entry ends the search
          found[c] = best[c] = true;
          par[c] = u[c];
          examined -= static_cast<ull>(e[c] - p[c] - 1);
          p[c] = e[c];
        } else {
          ++p[c];
        }
      }
    }
    if (defer) {  // the rest of a row cut short without a find waits for pull_deferred_rows()
#pragma unroll
      for (int c = 0; c < kPullChains; ++c) {
        if (!found[c] && par[c] == -2) {
          const Vid v = Vid(w[c] * 32 + lane);
          defer_row(d, v, e[c], t.g.in_ptr[v + 1]);
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kPullChains; ++c) {
      const std::uint32_t m = __ballot_sync(kFullMask, found[c]);
      const std::uint32_t unreachable = __ballot_sync(kFullMask, par[c] == -1);
      if (lane == 0 && w[c] < words) t.pull_commit(w[c], m, unreachable);
      const Vid v = Vid(w[c] * 32 + lane);
      if (found[c]) {  // (the exact degree: the finds of a word are consecutive, their reads coalesce)
        t.record(v, par[c], lvl);
        new_edges += static_cast<ull>(t.counted_degree(v));
      }
      app.append(found[c], v, t.pull_payload(par[c], best[c]));
    }
  };
  const Index first = global_thread() / 32;  // a warp's words: first, first + nwarps, ...
  if constexpr (Tgt::kLaneCandidates) {
    // Lane l reads the candidates of word wj + l * nwarps (the warp's next 32 words), and the warp
    // pulls only the words that have some: one round trip for 32 words' candidates, and a word with
    // none (finished, or only vertices without in-edges left) costs no chain at all. kron:22:16's
    // last two pulls 61 and 27 us -> 51 and 10.
    for (Index wj = first; wj < words; wj += 32 * nwarps) {  // warp-uniform
      const Index wl = wj + lane * nwarps;
      const std::uint32_t lane_cand = wl < words ? t.pull_candidates(wl) : 0u;
      if (wl < words && lane_cand == 0) t.pull_commit(wl, 0u, 0u);
      for (unsigned todo = __ballot_sync(kFullMask, lane_cand != 0); todo;) {
        Index w[kPullChains];
        std::uint32_t cand[kPullChains];
#pragma unroll
        for (int c = 0; c < kPullChains; ++c) {
          const int b = __ffs(int(todo)) - 1;  // -1: no word left for this chain
          w[c] = b >= 0 ? wj + b * nwarps : words;
          cand[c] = b >= 0 ? __shfl_sync(kFullMask, lane_cand, b) : 0u;
          todo &= todo - 1;
        }
        pull_words(w, cand);
      }
    }
  } else {
    for (Index w0 = first; w0 < words; w0 += kPullChains * nwarps) {  // warp-uniform
      Index w[kPullChains];
      std::uint32_t cand[kPullChains];
#pragma unroll
      for (int c = 0; c < kPullChains; ++c) {
        w[c] = w0 + c * nwarps;
        cand[c] = w[c] < words ? t.pull_candidates(w[c]) : 0u;
      }
      pull_words(w, cand);
    }
  }
  app.flush();
  block_add(new_edges, k.next_edges, s_sum);
  block_add(examined, k.examined, s_sum);
}

// The rest of the rows pull_level deferred, after a grid barrier (every thread of every block
// calls it). Chunk c belongs to the last row i with chunk_base[i] <= c; a warp scans a chunk 32
// in-edges a lane-step, kPullProbes steps in flight, and stops at the first in-edge in the
// frontier. The first find of a row claims it (the target's claim bitmap: the BFS's visited
// bits, the product's claimed bits) and writes it out; later chunks of a claimed row are skipped.
inline constexpr int kPullProbes = 4;

template <class Tgt>
__device__ void pull_deferred_rows(const Tgt& t, int lvl, const std::uint32_t* fin, LevelCounters k,
                                   const DeferredRows& d, ull* s_sum) {
  const ull packed = __ldcg(d.packed);
  const ull rows = packed >> kDeferredChunkBits, chunks = packed & kDeferredChunkMask;
  const ull nwarps = ull(grid_threads() / 32);
  const unsigned lane = lane_id();
  ull new_edges = 0, examined = 0;
  for (ull c = ull(global_thread() / 32); c < chunks; c += nwarps) {  // warp-uniform
    // The row: a 32-way search (lane j probes lo + j * step), chunk_base[lo] <= c < chunk_base[hi].
    ull lo = 0, hi = rows;
    while (hi - lo > 1) {
      const ull step = (hi - lo + 31) / 32, at = lo + lane * step;
      const unsigned le = __ballot_sync(kFullMask, at < hi && __ldcg(d.chunk_base + at) <= c);
      lo += ull(31 - __clz(int(le))) * step;  // lane 0 always holds (chunk_base[lo] <= c)
      hi = min(hi, lo + step);
    }
    const Vid v = __ldcg(d.v + lo);
    if (!t.unclaimed(v)) continue;  // a find in another chunk (a stale line only costs the scan)
    const Offset begin = __ldcg(d.from + lo) + Offset(c - __ldcg(d.chunk_base + lo)) * kPullChunk;
    const Offset end = min(t.g.in_ptr[v + 1], begin + kPullChunk);
    for (Offset q = begin; q < end; q += 32 * kPullProbes) {
      if (lane == 0) examined += ull(min(end - q, Offset(32 * kPullProbes)));
      Vid u[kPullProbes];
#pragma unroll
      for (int j = 0; j < kPullProbes; ++j) {
        const Offset at = q + j * 32 + lane;
        u[j] = at < end ? t.g.in_idx[at] : -1;
      }
      Vid hit = -1;
#pragma unroll
      for (int j = kPullProbes - 1; j >= 0; --j)
        if (u[j] >= 0 && t.pull_hit(fin, u[j])) hit = u[j];
      const unsigned m = __ballot_sync(kFullMask, hit >= 0);
      if (m == 0) continue;
      const Vid par = __shfl_sync(kFullMask, hit, __ffs(int(m)) - 1);
      if (lane == 0 && t.claim_unclaimed(v)) {
        t.record(v, par, lvl);
        t.pull_commit_one(v);
        t.write(atomicAdd(k.tail, 1ull), v, t.pull_payload(par, true));
        new_edges += static_cast<ull>(t.counted_degree(v));
      }
      break;
    }
  }
  block_add(new_edges, k.next_edges, s_sum);
  block_add(examined, k.examined, s_sum);
}

// Warp-aggregated appends into the single block's shared next queue, spilling to the output.
template <class Tgt>
struct SingleAppender {
  const Tgt& t;
  SmemQueue q;
  unsigned* count;
  unsigned cap;
  ull* tail;
  __device__ void append(bool won, Vid v, Vid p) { warp_push(won, v, p, q, count, cap, t, tail); }
};

struct SingleShared {
  unsigned count;
  ull sum, size, kept, spilled;
  int level, go;
  BigRow big;
};

// Dynamic shared memory of the single-block body: two queues of caps.single_block_queue slots
// (body_queue_smem_bytes() covers it; this is what the body needs on its own).
template <class Tgt>
std::size_t single_block_smem_bytes(const Capacities& caps) {
  return 2 * std::size_t(std::max(caps.single_block_queue, 0)) * slot_bytes<Tgt>();
}

// The single-block body: ONE block (1024 threads) runs narrow levels back to back, with
// __syncthreads() between them and the frontier in shared memory (two ping-pong queues of
// caps.single_block_queue slots). After every level thread 0 closes it (advance() on `c`,
// which only thread 0 reads or writes) and the block goes on while the policy still says
// single-block, the new frontier fit its queue and fewer than max_levels ran. Otherwise it hands
// over: the new frontier is written to the target's output. A frontier that overflows the shared
// queue spills its extra entries to the output as they are found (warp-aggregated, one global
// atomic per warp on `tail`, which must be 0 on entry), so nothing is lost. The first level
// reads `in` (global memory, FreshIn as in expand_tile). On return c.next_size is 0 and c holds
// the handed-over frontier; the output holds its c.frontier_size entries. A product runs one
// level (max_levels 1); the fused BFS runs as many as the policy allows.
template <bool FreshIn, class Tgt>
__device__ void single_block_levels(const Tgt& t, const LevelRule& rule, Control& c, const Vid* in, ull* tail,
                                    LevelRecord* records, int max_levels, Vid* smem, SingleShared& s) {
  const unsigned cap = unsigned(t.caps.single_block_queue > 0 ? t.caps.single_block_queue : 0);
  SmemQueue qa{smem, Tgt::kPayload ? smem + cap : nullptr};
  Vid* second = smem + (Tgt::kPayload ? 2 : 1) * cap;
  SmemQueue qb{second, Tgt::kPayload ? second + cap : nullptr};
  if (threadIdx.x == 0) {
    s.size = c.frontier_size;
    s.level = c.level;
    s.count = 0;
    s.big.owner = INT_MAX;
  }
  __syncthreads();

  const Vid* cur = in;
  SmemQueue next = qa;
  int done = 0;  // levels run (thread 0's copy is the one used)
  for (bool first = true;; first = false) {
    const Index size = Index(s.size);
    const int lvl = s.level;
    const ull t0 = records && threadIdx.x == 0 ? globaltimer_ns() : 0;
    SingleAppender<Tgt> app{t, next, &s.count, cap, tail};
    ull new_edges = 0;
    for (Index tile = 0; tile < size; tile += blockDim.x) {
      const Index end = min(size, tile + Index(blockDim.x));
      if (first) expand_tile<FreshIn>(t, lvl, cur, end, tile, app, &s.big, new_edges);
      else expand_tile<false>(t, lvl, cur, end, tile, app, &s.big, new_edges);  // shared memory
    }
    block_sum(new_edges, &s.sum);  // also: every append of this level is done
    if (threadIdx.x == 0) {
      if (records)
        records[done] = {c.frontier_size, c.frontier_edges, t0, globaltimer_ns(), int(ProductKernel::SingleBlock), 0};
      const unsigned kept = min(s.count, cap);
      const ull spilled = s.count - kept;  // every append past `cap` went to the output
      advance(c, kept + spilled, s.sum, false, 0, rule);
      ++done;
      s.go = c.frontier_size > 0 && spilled == 0 && c.kernel == int(ProductKernel::SingleBlock) && done < max_levels;
      s.kept = kept;
      s.spilled = spilled;
      s.size = c.frontier_size;
      s.level = c.level;
      s.count = 0;
    }
    __syncthreads();
    if (!s.go) {
      // Hand over: spilled entries are output[0, spilled); the shared ones follow them.
      const ull kept = s.kept, spilled = s.spilled;
      for (ull k = threadIdx.x; k < kept; k += blockDim.x)
        t.write(spilled + k, next.v[k], Tgt::kPayload ? next.p[k] : 0);
      break;
    }
    cur = next.v;
    next = next.v == qa.v ? qb : qa;
  }
  if (threadIdx.x == 0) c.next_size = 0;  // the spilled slots now belong to the handed-over frontier
}

}  // namespace gbcuda::detail::cuda::product

#endif  // __CUDACC__
