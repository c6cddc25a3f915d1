#pragma once
// Pieces shared by the kernel bodies of the boolean masked product (bodies.cuh) and by the two
// kernels that run them: the product kernel of vxm/mxv (product.cu) and the fused BFS
// (fused_bfs.cu). Here: the graph view, queue capacities, the control block of a chain of
// products and its per-level decision, the claim of an output entry, the appenders' building
// blocks, block sums, and the degree-binned expansion of a tile of input entries.
//
// A body does not know what it writes: a Target does (targets.cuh). The fused BFS's target marks
// the visited bitmap and writes levels and parents in place; the product's target leaves the
// mask alone, claims entries in its own bitmap and writes the output vector's (index, value)
// lists. Bodies call the target through:
//   claim(v)                    true for exactly one caller per new output entry v (push); its two
//                               steps: unclaimed(v) (a read) then claim_unclaimed(v) (the atomic);
//                               admits(v): what unclaimed(v) reads besides the claim bit (the
//                               mask), for claims that skip that read (wide_level())
//   won(v, u, lvl, new_edges)   after a claim: v reached from input entry u; its two steps:
//                               record(v, u, lvl) (stores) and its degree (reads; exact from
//                               counted_degree(v), or by sample on wide pushes, see below)
//   payload(u)                  what an appender carries to write() for an entry reached from u
//   write(pos, v, payload)      the output's slot pos
//   pull_candidates(w) / pull_hit(u, term) / pull_commit(w, found, unreachable)   the pull's word of
//                               32 outputs (kLaneCandidates: a lane may ask for its own word)
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "cuda/cuda_check.cuh"
#include "cuda/product/product.hpp"

namespace gbcuda::detail::cuda::product {

using ull = unsigned long long;
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kThreads = 1024;         // block size of the product and fused kernels
inline constexpr Offset kBlockDegree = 1024;  // rows this long are expanded by the whole block

// What decides the next level of a chain of products (the fused BFS, and the single-block body's
// levels): the policy, the queue capacities, the output length, whether pull is possible.
struct LevelRule {
  ProductPolicy policy;
  Capacities caps;
  Index n = 0;
  bool can_pull = false;
};

// The state of a chain of products that decides the next one; lives in device memory (fused
// BFS) or in a thread's registers (the single-block body). Counters a kernel accumulates
// (next_*, examined) are reset by advance() when a level closes. `queue` and `bitmap` are kept
// by the fused kernel only (which of the two queues / frontier bitmaps holds the frontier), so
// that a later launch resumes where it stopped.
struct Control {
  ull frontier_size;     // entries of the current frontier (the queue `in`)
  ull frontier_edges;    // their out-edges
  ull prev_size;         // the frontier before it
  ull unexplored_edges;  // nnz minus the out-edges of every frontier expanded so far
  ull next_size;         // the next frontier's tail: kernels reserve queue slots here
  ull next_edges;        // out-edges of the next frontier
  ull examined;          // pull: in-edges read, cumulative
  double pull_penalty;   // FrontierInfo::pull_penalty (0 before the first level: 1)
  int level;             // the level the next expansion produces (1 = the source's neighbours)
  int pulling;           // the last expansion was a pull
  int kernel;            // ProductKernel chosen for the next expansion
  int queue;             // fused kernel: queues[queue] holds the frontier
  int bitmap;            // fused kernel: bitmaps[bitmap] holds it too while `pulling`
};

// One level as the kernels saw it, for statistics (written only when they are collected).
struct LevelRecord {
  ull frontier_size;
  ull edges;       // push: out-edges of the frontier; pull: in-edges scanned
  ull t_begin_ns;  // %globaltimer around the level (device clock, ns)
  ull t_end_ns;
  int kernel;  // ProductKernel
  int pad;
};

// The next kernel for the frontier described by c (c.pulling: the expansion that produced it
// pulled), by the library's one policy, plus the single-block queue's capacity.
GBCUDA_HD inline int next_kernel(const Control& c, const LevelRule& r) {
  FrontierInfo info;
  info.frontier_size = Index(c.frontier_size);
  info.previous_frontier_size = Index(c.prev_size);
  info.frontier_edges = Index(c.frontier_edges);
  info.unexplored_edges = Index(c.unexplored_edges);
  info.n = r.n;
  info.pulling = c.pulling != 0;
  info.pull_penalty = c.pull_penalty > 1.0 ? c.pull_penalty : 1.0;
  ProductKernel k = choose_product_kernel(r.policy, info, r.can_pull);
  if (k == ProductKernel::SingleBlock && info.frontier_size > Index(r.caps.single_block_queue))
    k = ProductKernel::QueueBlock;
  return static_cast<int>(k);
}

// Closes a level: the counters of the next frontier become the current ones and the next
// kernel is chosen. One thread calls it, once every contribution to next_* is complete.
// `examined`: a pull's in-edges read (for its penalty; anything for a push).
GBCUDA_HD inline void advance(Control& c, ull next_size, ull next_edges, bool was_pull, ull examined,
                              const LevelRule& r) {
  c.unexplored_edges = c.unexplored_edges > c.frontier_edges ? c.unexplored_edges - c.frontier_edges : 0;
  if (was_pull) c.pull_penalty = pull_penalty_after(r.policy, Index(examined), Index(c.unexplored_edges));
  c.prev_size = c.frontier_size;
  c.frontier_size = next_size;
  c.frontier_edges = next_edges;
  c.next_size = 0;
  c.next_edges = 0;
  c.level += 1;
  c.pulling = was_pull ? 1 : 0;
  c.kernel = next_kernel(c, r);
}

#if defined(__CUDACC__)

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// A load of data another block may be writing in the same phase (between two grid barriers), or
// whose staleness would be wrong rather than slow: from L2, never a stale L1 line. Plain load when
// not Fresh: data written by an earlier launch (the launch boundary invalidated L1), or written
// before the last grid barrier and only read since: the barrier's acquire at GPU scope makes it
// visible to plain loads (PTX memory model; the pull's frontier bitmap relies on it, and the
// benches validate every search).
template <bool Fresh, class T>
__device__ __forceinline__ T load(const T* p) {
  if constexpr (Fresh) return __ldcg(p);
  else return *p;
}

__device__ __forceinline__ ull globaltimer_ns() {
  ull t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned lanes_below() { return (1u << lane_id()) - 1u; }

// A claim of vertex v in a bitmap is two steps: bit_clear, a plain read that skips most bits
// already set, then set_bit_first, true for exactly one caller per vertex: the one whose
// atomicOr sets v's bit. Kept apart so that a thread's batch of claims issues all its reads,
// then all its atomics. The read may hit a stale L1 line (the atomics of this phase go to L2):
// bits are only ever set during a search, so a stale word only misses bits, which costs the
// atomic and nothing else; L1 hits save L2 requests (grid:2048:2048 -3%).
__device__ __forceinline__ bool bit_clear(const std::uint32_t* bits, Vid v) {
  return !((bits[v >> 5] >> (v & 31)) & 1u);
}
__device__ __forceinline__ bool set_bit_first(std::uint32_t* bits, Vid v) {
  const std::uint32_t bit = 1u << (v & 31);
  return !(atomicOr(bits + (v >> 5), bit) & bit);
}

// Out-degree of v (what a new frontier entry adds to the next level's edges).
__device__ __forceinline__ Offset row_degree(const Graph& g, Vid v) { return g.out_ptr[v + 1] - g.out_ptr[v]; }

// Choices that hold for a whole wide push level (over kSampleEdges input edges), the same in
// every thread of a block: one flag pair per block in shared memory (wide_level()), set by
// thread 0 before a barrier that precedes the body (a register for it made the fused kernel, at
// its 64-register cap, spill), read once per tile and branched on uniformly (tested per entry
// instead, it cost grid:2048:2048, which never has a wide level, 6%).
//
// sample_degrees: the next frontier's out-edges are only read by the policy (the push/pull
//   choice, m_f); reading every new entry's row offsets is a random L2 request per entry
//   (urand:26:8's widest push: 32 M of its 172 M, at 85% of the L2's throughput; ncu). On a wide push one entry in
//   kDegreeSample (by a hash of its index) reads its offsets and counts kDegreeSample times its degree: the sum
//   estimates the edges within a few per cent once the frontier holds thousands of entries, which such a push's output
//   does. Every push path samples (randout:1e8:4's push of 4 M rows of 4 edges: 2.58 -> 1.86 ms); the pull counts
//   exactly (its finds are consecutive: coalesced reads).
// blind_claims: a claim is a read of the claim bit, then the atomic only if it was clear; that
//   read saves an atomic when most edges lead to entries already claimed, and costs a round trip
//   and an L2 request when most lead to new ones. On a wide push while most edges are
//   unexplored (the early levels of a search), the short-row and dealt-out paths skip it, but
//   only while the claim bitmap is a small part of the L2 (blind_claims_allowed()):
//   urand:22:16's wide push (512 KB bitmap) took 106 us blind against 135, urand:20:16's (128 KB)
//   65 against 77, while urand:26:8's (8 MB) and randout:1e8:4's (12.5 MB) wide pushes took
//   19-37% longer blind (H100). Our reading, not checked with counters: an
//   atomic whose line is not in L2 holds the L2's atomic unit while the line comes from DRAM,
//   where a read that misses does not.
inline constexpr Offset kSampleEdges = Offset(1) << 20;
inline constexpr Offset kDegreeSample = 16;
struct WideLevel {
  bool sample_degrees;
  bool blind_claims;
};
__device__ __forceinline__ WideLevel& wide_level() {
  __shared__ WideLevel w;
  return w;
}
// The flags of a level: a push over `edges` input edges, `unexplored` of the graph's `nnz`
// unexplored so far; blind_ok: blind_claims_allowed() for the claim bitmap.
__device__ __forceinline__ WideLevel wide_level_for(bool push, ull edges, ull unexplored, ull nnz, bool blind_ok) {
  const bool wide = push && edges >= ull(kSampleEdges);
  return {wide, blind_ok && wide && 2 * unexplored > nnz};
}
// Is v one of the entries whose degree a sampling level reads (the top 4 bits of a hash)?
__device__ __forceinline__ bool degree_sampled(Vid v) { return (v * 2654435761u) >> 28 == 0; }
// What a push's new entry v adds to the next level's edges: its degree, or by sample (above).
__device__ __forceinline__ Offset sampled_row_degree(const Graph& g, Vid v) {
  const bool sample = wide_level().sample_degrees;
  const bool take = !sample || degree_sampled(v);
  const Offset d = take ? row_degree(g, v) : 0;
  return sample ? kDegreeSample * d : d;
}

// Visits edge u -> v (when `have`) and hands the outcome to the appender; the whole warp calls
// it together (appenders use warp votes).
template <class Tgt, class Appender>
__device__ __forceinline__ void visit(const Tgt& t, int lvl, bool have, Vid v, Vid u, Appender& app, ull& new_edges) {
  const bool won = have && t.claim(v);
  if (won) t.won(v, u, lvl, new_edges);
  app.append(won, v, t.payload(u));
}

// Short rows are walked kShortBatch edges per step: the step's index loads, then its claims, are
// independent of each other, so their memory latencies overlap instead of adding up.
inline constexpr int kShortBatch = 4;

// Claims of one step's kShortBatch edges (want[k]: edge k exists): every read first, then the
// atomics of the entries still clear, so that the step waits for two memory round trips, not two
// per edge (an atomic orders the reads after it to the same word, so the compiler cannot
// reorder them itself). want[k] becomes: this thread won v[k].
// blind: skip the read of the claim bits (wide_level()).
template <class Tgt>
__device__ __forceinline__ void claim_batch(const Tgt& t, const Vid* v, bool* want, bool blind) {
  if (blind) {
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) want[k] = want[k] && t.admits(v[k]);
  } else {
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) want[k] = want[k] && t.unclaimed(v[k]);
  }
#pragma unroll
  for (int k = 0; k < kShortBatch; ++k) want[k] = want[k] && t.claim_unclaimed(v[k]);
}

// Sum of the counted out-degrees of the entries won in one step: their row offsets are read
// together, after the step's appends, and waited for once. sample: only the sampled entries'
// (wide_level()), each counted kDegreeSample times.
template <class Tgt>
__device__ __forceinline__ ull counted_degrees(const Tgt& t, const Vid* v, const bool* won, bool sample) {
  Offset d[kShortBatch];
  if (sample) {
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) d[k] = won[k] && degree_sampled(v[k]) ? t.counted_degree(v[k]) : 0;
  } else {
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) d[k] = won[k] ? t.counted_degree(v[k]) : 0;
  }
  ull sum = 0;
#pragma unroll
  for (int k = 0; k < kShortBatch; ++k) sum += static_cast<ull>(d[k]);
  return sample ? kDegreeSample * sum : sum;
}

// Shared state of the block-cooperative expansion (one row >= kBlockDegree at a time).
struct BigRow {
  int owner;  // INT_MAX when free
  Vid u;
  Offset begin, end;
};

// Scratch of expand_tile's even dealing of a tile's edges: one copy per block, whatever the
// instantiation (a __shared__ array in a template would be one per instantiation).
struct GatherShared {
  int start[kThreads];     // first edge of each row, rows laid end to end
  Offset delta[kThreads];  // the row's first index in out_idx minus its start
  Vid u[kThreads];         // the row's vertex
  Offset warp_sums[33];
};
__device__ __forceinline__ GatherShared& gather_shared() {
  __shared__ GatherShared s;
  return s;
}

// Inclusive prefix sum of one value per lane over the warp (every lane calls it).
template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T x) {
  const unsigned lane = lane_id();
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T y = __shfl_up_sync(kFullMask, x, d);
    if (lane >= unsigned(d)) x += y;
  }
  return x;
}

// Exclusive prefix sum of one value per thread over the block (warp shuffles, then the warp
// totals in `warp_sums`, 33 entries); `total` receives the block's sum. Every thread calls it.
__device__ __forceinline__ Offset block_exclusive_sum(Offset x, Offset* warp_sums, Offset& total) {
  const unsigned lane = lane_id(), warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const Offset incl = warp_inclusive_sum(x);
  if (lane == 31) warp_sums[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const Offset w = lane < warps ? warp_sums[lane] : 0;
    const Offset wi = warp_inclusive_sum(w);
    if (lane < warps) warp_sums[lane] = wi - w;
    if (lane == 31) warp_sums[32] = wi;
  }
  __syncthreads();
  total = warp_sums[32];
  return warp_sums[warp] + incl - x;
}

// The largest r in [0, rows) with start[r] <= e (start ascending, start[0] = 0 <= e): the row
// holding edge e of the rows laid end to end (rows without edges share their successor's start
// and are never the largest).
__device__ __forceinline__ int row_of_edge(const int* start, int rows, int e) {
  int lo = 0, hi = rows - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (start[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Expands the input entries [tile, min(end, tile + blockDim.x)) of `in` along the push rows:
// rows of kBlockDegree or more by the whole block, one at a time; then, when every other row fits
// one batch of kShortBatch edges (meshes), each by its own thread in one step; otherwise the other
// rows' edges laid end to end and dealt out evenly, kShortBatch x blockDim.x edges per step (the
// scan-based gather of Merrill et al.), so that a tile of rows of ~30 edges costs a few steps, not
// one step per edge of the longest row (urand:22:16's early levels took 100+ us each that way). Every thread of the
// block calls it (it synchronizes the block); warps stay converged around every append. `big->owner` must be INT_MAX on
// entry (and is on exit). FreshIn: `in` was written during this launch (see load()).
template <bool FreshIn, class Tgt, class Appender>
__device__ void expand_tile(const Tgt& t, int lvl, const Vid* in, Index end, Index tile, Appender& app, BigRow* big,
                            ull& new_edges) {
  const Index i = tile + threadIdx.x;
  Vid u = 0;
  Offset beg = 0, deg = 0;
  if (i < end) {
    u = load<FreshIn>(in + i);
    beg = t.g.out_ptr[u];
    deg = t.g.out_ptr[u + 1] - beg;
  }
  const Vid* idx = t.g.out_idx;

  // 1. Huge rows: the block takes them one at a time (lowest thread first). A tile of short rows
  //    only (a mesh's) learns that from one block barrier, not two: grid:2048:2048 and
  //    grid:1024:1024 -1.2% and -1.4% (H100). Only a tile whose block took a
  //    huge row pays one more (the recheck below). (Rechecking every tile with longer rows, the
  //    grids ran 1.8-2.3% slower, though their tiles never get there: the kernel's code differed
  //    throughout.)
  bool long_rows = __syncthreads_or(deg > kShortBatch), took = false;
  while (long_rows && __syncthreads_or(deg >= kBlockDegree)) {
    took = true;
    if (deg >= kBlockDegree) atomicMin(&big->owner, int(threadIdx.x));
    __syncthreads();
    if (int(threadIdx.x) == big->owner) {
      big->u = u;
      big->begin = beg;
      big->end = beg + deg;
      deg = 0;
    }
    __syncthreads();
    const Vid bu = big->u;
    const Offset bb = big->begin, be = big->end;
    __syncthreads();  // everyone has read big before it is reset
    if (threadIdx.x == 0) big->owner = INT_MAX;
    for (Offset base = bb; base < be; base += blockDim.x) {  // block-uniform bounds
      const Offset e = base + threadIdx.x;
      const bool h = e < be;
      visit(t, lvl, h, h ? idx[e] : 0, bu, app, new_edges);
    }
  }

  // 2. Rows of at most kShortBatch edges only: each thread its own, in one step (all loads, then
  //    all claims' reads, then their atomics, the appends, and the found rows' offsets: a narrow
  //    level, such as a mesh's, is one such chain of round trips, so each one saved counts).
  const WideLevel wide = wide_level();
  const bool blind = wide.blind_claims;
  if (took) long_rows = __syncthreads_or(deg > kShortBatch);  // what the huge rows left
  if (!long_rows) {
    Vid v[kShortBatch];
    bool won[kShortBatch];
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) {
      won[k] = k < deg;
      v[k] = won[k] ? idx[beg + k] : 0;
    }
    claim_batch(t, v, won, blind);
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k)
      if (won[k]) t.record(v[k], u, lvl);
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) app.append(won[k], v[k], t.payload(u));
    new_edges += counted_degrees(t, v, won, wide.sample_degrees);
    return;
  }

  // 3. Longer rows: their edges end to end, dealt out evenly; each step's loads, then its claims,
  //    are independent of each other.
  GatherShared& g = gather_shared();
  Offset total = 0;
  const Offset start = block_exclusive_sum(deg, g.warp_sums, total);
  g.start[threadIdx.x] = int(start);  // < 1024 rows of < kBlockDegree edges: fits an int
  g.delta[threadIdx.x] = beg - start;
  g.u[threadIdx.x] = u;
  __syncthreads();
  const int rows = int(min(Index(blockDim.x), end - tile));
  for (int base = 0; base < int(total); base += kShortBatch * int(blockDim.x)) {  // block-uniform bounds
    Vid v[kShortBatch], from[kShortBatch];
    bool won[kShortBatch];
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) {
      const int e = base + k * int(blockDim.x) + int(threadIdx.x);
      won[k] = e < int(total);
      v[k] = from[k] = 0;
      if (won[k]) {
        const int r = row_of_edge(g.start, rows, e);
        v[k] = idx[g.delta[r] + e];
        from[k] = g.u[r];
      }
    }
    if (blind) {
#pragma unroll
      for (int k = 0; k < kShortBatch; ++k) won[k] = won[k] && t.admits(v[k]) && t.claim_unclaimed(v[k]);
    } else {
#pragma unroll
      for (int k = 0; k < kShortBatch; ++k) won[k] = won[k] && t.claim(v[k]);
    }
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) {
      if (won[k]) t.won(v[k], from[k], lvl, new_edges);
      app.append(won[k], v[k], t.payload(from[k]));
    }
  }
  __syncthreads();  // every thread is done with the scratch before the next tile refills it
}

// Shared-memory queue: entries (and, when the target carries one, a payload per entry).
struct SmemQueue {
  Vid* v;
  Vid* p;  // payloads, or null
};

// Warp-aggregated push of one entry per lane (when `have`) into a shared queue of `cap` entries
// whose fill count is *count (which may run past cap); what does not fit goes straight to the
// target's output with one global atomic on `tail` for the warp. The whole warp calls it.
template <class Tgt>
__device__ __forceinline__ void warp_push(bool have, Vid v, Vid p, SmemQueue q, unsigned* count, unsigned cap,
                                          const Tgt& t, ull* tail) {
  const unsigned m = __ballot_sync(kFullMask, have);
  if (m == 0) return;
  const unsigned rank = __popc(m & lanes_below());
  unsigned base = 0;
  if (lane_id() == 0) base = atomicAdd(count, unsigned(__popc(m)));
  base = __shfl_sync(kFullMask, base, 0);
  const bool spill = have && base + rank >= cap;
  if (have && !spill) {
    q.v[base + rank] = v;
    if constexpr (Tgt::kPayload) q.p[base + rank] = p;
  }
  const unsigned sm = __ballot_sync(kFullMask, spill);
  if (sm == 0) return;
  ull gbase = 0;
  if (lane_id() == 0) gbase = atomicAdd(tail, ull(__popc(sm)));
  gbase = __shfl_sync(kFullMask, gbase, 0);
  if (spill) t.write(gbase + __popc(sm & lanes_below()), v, p);
}

// Copies the block queue (min(*count, cap) entries) to the target's output with one atomic for
// the block, coalesced, and empties it. Every thread of the block calls it.
template <class Tgt>
__device__ __forceinline__ void flush_block_queue(SmemQueue q, unsigned* count, unsigned cap, const Tgt& t, ull* tail,
                                                  ull* s_base) {
  __syncthreads();  // every append to q is done
  const unsigned c = min(*count, cap);
  if (threadIdx.x == 0 && c > 0) *s_base = atomicAdd(tail, ull(c));
  __syncthreads();
  if (c > 0) {
    const ull base = *s_base;
    for (unsigned k = threadIdx.x; k < c; k += blockDim.x) t.write(base + k, q.v[k], Tgt::kPayload ? q.p[k] : 0);
  }
  __syncthreads();  // everyone has read count, s_base and q
  if (threadIdx.x == 0) *count = 0;
}

// Block-wide sum of `v` into *s_sum, valid for every thread on return. Every thread calls it;
// *s_sum must not be read by anyone between two calls without a barrier in between.
__device__ __forceinline__ void block_sum(ull v, ull* s_sum) {
  __syncthreads();  // earlier readers of *s_sum are done
  if (threadIdx.x == 0) *s_sum = 0;
  __syncthreads();
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
  if (lane_id() == 0 && v) atomicAdd(s_sum, v);
  __syncthreads();
}

// Block-wide sum of `v` added to *total with one atomic. Every thread calls it.
__device__ __forceinline__ void block_add(ull v, ull* total, ull* s_sum) {
  block_sum(v, s_sum);
  if (threadIdx.x == 0 && *s_sum) atomicAdd(total, *s_sum);
}

// A copy of the control block that bypasses L1 (volatile reads): other blocks updated it.
__device__ inline Control load_control(const Control* p) {
  const volatile Control* v = p;
  Control c;
  c.frontier_size = v->frontier_size;
  c.frontier_edges = v->frontier_edges;
  c.prev_size = v->prev_size;
  c.unexplored_edges = v->unexplored_edges;
  c.next_size = v->next_size;
  c.next_edges = v->next_edges;
  c.examined = v->examined;
  c.pull_penalty = v->pull_penalty;
  c.level = v->level;
  c.pulling = v->pulling;
  c.kernel = v->kernel;
  c.queue = v->queue;
  c.bitmap = v->bitmap;
  return c;
}

#endif  // __CUDACC__

// Static shared memory of `kernel` in bytes (its __shared__ variables): dynamic shared memory
// fits a block only in what the opt-in limit leaves beside it.
template <class Kernel>
std::size_t static_smem_bytes(Kernel* kernel) {
  cudaFuncAttributes fa{};
  CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
  return fa.sharedSizeBytes;
}

// Opts `kernel` in to `bytes` of dynamic shared memory when that is more than it was allowed so
// far (`raised`: a static per kernel at the call site, starting at 0: the default allowance is
// 48 KB less the kernel's static shared memory, so no size is assumed to fit without asking).
template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes, std::atomic<std::size_t>& raised) {
  // The attribute is the process's, not the thread's: it only ever rises, under one lock, so a
  // thread that needs less never lowers it under one that launched with more.
  if (bytes <= raised.load(std::memory_order_acquire)) return;
  static std::mutex mu;
  std::lock_guard lock(mu);
  if (bytes <= raised.load(std::memory_order_relaxed)) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  raised.store(bytes, std::memory_order_release);
}

// What the launches need to know about the device, asked once per process (the library runs on
// one device; product.cu): each query costs host time on every call otherwise.
struct DeviceFacts {
  int sms = 0;             // streaming multiprocessors
  int smem_optin = 0;      // dynamic shared memory a block may opt in to (bytes)
  long long l2_bytes = 0;  // L2 cache
};
const DeviceFacts& device_facts();

// May wide pushes claim without reading the claim bit first (WideLevel::blind_claims)? Only
// while a claim bitmap of n bits is at most 1/kBlindClaimsL2Share of this device's L2 (1.6 MB,
// 13 M vertices, on the H100): measured faster at 512 KB and slower at 8 and 12.5 MB; where
// between the two it turns is not measured.
inline constexpr long long kBlindClaimsL2Share = 32;
inline bool blind_claims_allowed(Index n) {
  return (static_cast<long long>(n) + 31) / 32 * 4 <= device_facts().l2_bytes / kBlindClaimsL2Share;
}

}  // namespace gbcuda::detail::cuda::product
