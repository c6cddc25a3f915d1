#pragma once
// Pieces shared by the frontier kernels (queue_kernels.cu, single_block.cu, pull.cu,
// persistent.cu) and the level loop (frontier_bfs.cu): the device-side control block, the
// per-level decision, the visited claim, the degree-binned expansion of a tile of frontier
// vertices, and the launchers. The level bodies themselves are in level_bodies.cuh.
#include <climits>
#include <cstddef>
#include <cstdint>

#include "cuda/cuda_check.cuh"
#include "cuda/frontier/frontier_bfs.hpp"

namespace gbcuda::detail::cuda::frontier {

using ull = unsigned long long;
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kQueueThreads = 256;     // block size of the queue and pull kernels
inline constexpr int kSingleThreads = 1024;   // block size of the single-block kernel
inline constexpr Offset kWarpDegree = 32;     // rows this long are expanded by a warp ...
inline constexpr Offset kBlockDegree = 1024;  // ... and rows this long by the whole block

// The search's state that decides the next level; lives in device memory and is copied to
// pinned host memory once per host-visible level. Counters a kernel accumulates (next_*,
// examined) are reset by advance() when the level closes. `queue` and `bitmap` are kept by the
// persistent kernel only (which of the two queues / frontier bitmaps holds the frontier), so that
// a later launch resumes where it stopped.
struct Control {
  ull frontier_size;     // vertices in the current frontier (the queue `in`)
  ull frontier_edges;    // their out-edges
  ull prev_size;         // the frontier before it
  ull unexplored_edges;  // nnz minus the out-edges of every frontier expanded so far
  ull next_size;         // the next frontier's tail: kernels reserve queue slots here
  ull next_edges;        // out-edges of the next frontier
  ull examined;          // pull: in-edges of unvisited vertices scanned (upper bound), cumulative
  int level;             // the level the next expansion produces (1 = the source's neighbours)
  int pulling;           // the last expansion was a pull
  int kernel;            // BfsKernel chosen for the next expansion (by choose_kernel, on the device)
  unsigned blocks_done;  // last-block-done ticket of the running multi-block kernel
  int queue;             // persistent kernel: queues[queue] holds the frontier
  int bitmap;            // persistent kernel: bitmaps[bitmap] holds it too while `pulling`
};

// One level as the kernels saw it, for --verbose (written only when stats are collected).
struct LevelRecord {
  ull frontier_size;
  ull edges;       // push: out-edges of the frontier; pull: in-edges scanned
  ull t_begin_ns;  // %globaltimer around the level (device clock, ns)
  ull t_end_ns;
  int kernel;  // BfsKernel
  int pad;
};

// What every kernel needs besides its queues.
struct SearchArgs {
  DeviceGraph g;
  std::int32_t* level = nullptr;     // n, -1 = unvisited
  std::int64_t* parent = nullptr;    // n or null
  std::uint32_t* visited = nullptr;  // ceil(n/32) words
  Control* ctl = nullptr;
  KernelPolicy policy;
  Capacities caps;
  int sms = 1;  // multiprocessors (host side: grid sizes)
};

// The next kernel, from choose_kernel() plus two facts it does not know: whether in-edges exist
// (no pull without them) and the single-block kernel's queue capacity.
GBCUDA_HD inline BfsKernel decide(const KernelPolicy& p, const Capacities& caps, const LevelInfo& info, bool can_pull) {
  BfsKernel k = choose_kernel(p, info);
  if (k == BfsKernel::PullSpmv && !can_pull) {
    LevelInfo push_only = info;  // frontier_edges 0 and not pulling: choose_kernel stays on push
    push_only.frontier_edges = 0;
    push_only.pulling = false;
    k = choose_kernel(p, push_only);
  }
  if (k == BfsKernel::SingleBlock && info.frontier_size > Index(caps.single_block_queue)) k = BfsKernel::QueueBlock;
  return k;
}

// The kernel for the frontier described by c (c.pulling: the expansion that produced it pulled).
GBCUDA_HD inline int next_kernel(const Control& c, const SearchArgs& a) {
  LevelInfo info;
  info.level = c.level;
  info.frontier_size = Index(c.frontier_size);
  info.previous_frontier_size = Index(c.prev_size);
  info.frontier_edges = Index(c.frontier_edges);
  info.unexplored_edges = Index(c.unexplored_edges);
  info.n = a.g.n;
  info.pulling = c.pulling != 0;
  return static_cast<int>(decide(a.policy, a.caps, info, a.g.in_ptr != nullptr));
}

// Closes a level: the counters of the next frontier become the current ones and the next
// kernel is chosen. One thread calls it, once every contribution to next_* is complete.
GBCUDA_HD inline void advance(Control& c, ull next_size, ull next_edges, bool was_pull, const SearchArgs& a) {
  c.unexplored_edges = c.unexplored_edges > c.frontier_edges ? c.unexplored_edges - c.frontier_edges : 0;
  c.prev_size = c.frontier_size;
  c.frontier_size = next_size;
  c.frontier_edges = next_edges;
  c.next_size = 0;
  c.next_edges = 0;
  c.level += 1;
  c.pulling = was_pull ? 1 : 0;
  c.kernel = next_kernel(c, a);
}

#if defined(__CUDACC__)

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// A load of data another block may have written during this launch (the persistent kernel,
// across a grid barrier): from L2, never a stale L1 line. Plain load when not Fresh (data
// written by an earlier launch, whose L1 lines the launch boundary invalidated).
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

// True for exactly one caller per vertex: the one whose atomicOr sets v's visited bit. The
// plain read first skips most already-visited vertices (a stale read only costs the atomic).
__device__ __forceinline__ bool claim(std::uint32_t* visited, Vid v) {
  const std::uint32_t bit = 1u << (v & 31);
  if (__ldcg(visited + (v >> 5)) & bit) return false;
  return !(atomicOr(visited + (v >> 5), bit) & bit);
}

// Visits edge u -> v (when `have`) and hands the outcome to the appender; the whole warp calls
// it together (appenders use warp votes). Winners get their level, parent and out-degree counted.
// What a winner of v (reached from u) records: its level, its parent, its out-degree.
__device__ __forceinline__ void record_win(const SearchArgs& a, int lvl, Vid v, Vid u, ull& new_edges) {
  a.level[v] = lvl;
  if (a.parent) a.parent[v] = u;
  new_edges += static_cast<ull>(a.g.out_ptr[v + 1] - a.g.out_ptr[v]);
}

template <class Appender>
__device__ __forceinline__ void visit(const SearchArgs& a, int lvl, bool have, Vid v, Vid u, Appender& app,
                                      ull& new_edges) {
  const bool won = have && claim(a.visited, v);
  if (won) record_win(a, lvl, v, u, new_edges);
  app.append(won, v);
}

// Short rows are walked kShortBatch edges per step: the step's index loads, then its claims, are
// independent of each other, so their memory latencies overlap instead of adding up.
inline constexpr int kShortBatch = 4;

// Shared state of the block-cooperative expansion (one row >= kBlockDegree at a time).
struct BigRow {
  int owner;  // INT_MAX when free
  Vid u;
  Offset begin, end;
};

// Expands the frontier entries [tile, tile + blockDim.x) of `in` (size `size`): rows of
// kBlockDegree or more by the whole block, rows of kWarpDegree or more by a warp, the rest by
// their own thread. Every thread of the block calls it (it synchronizes the block); warps stay
// converged around every append. `big->owner` must be INT_MAX on entry (and is on exit).
// FreshIn: `in` was written during this launch (see load()).
template <bool FreshIn, class Appender>
__device__ void expand_tile(const SearchArgs& a, int lvl, const Vid* in, Index size, Index tile, Appender& app,
                            BigRow* big, ull& new_edges) {
  const Index i = tile + threadIdx.x;
  Vid u = 0;
  Offset beg = 0, deg = 0;
  if (i < size) {
    u = load<FreshIn>(in + i);
    beg = a.g.out_ptr[u];
    deg = a.g.out_ptr[u + 1] - beg;
  }
  const Vid* idx = a.g.out_idx;

  // 1. Huge rows: the block takes them one at a time (lowest thread first).
  while (__syncthreads_or(deg >= kBlockDegree)) {
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
      visit(a, lvl, h, h ? idx[e] : 0, bu, app, new_edges);
    }
  }

  // 2. Long rows: the warp takes them one at a time.
  unsigned want;
  while ((want = __ballot_sync(kFullMask, deg >= kWarpDegree)) != 0) {
    const int leader = __ffs(want) - 1;
    const Vid wu = __shfl_sync(kFullMask, u, leader);
    const Offset wb = __shfl_sync(kFullMask, beg, leader);
    const Offset we = wb + __shfl_sync(kFullMask, deg, leader);
    if (int(lane_id()) == leader) deg = 0;
    for (Offset base = wb; base < we; base += 32) {  // warp-uniform bounds
      const Offset e = base + lane_id();
      const bool h = e < we;
      visit(a, lvl, h, h ? idx[e] : 0, wu, app, new_edges);
    }
  }

  // 3. Short rows (< kWarpDegree): each thread its own, the warp iterating together, a batch of
  //    kShortBatch edges per step (all loads, then all claims, then the appends).
  for (Offset j = 0; __any_sync(kFullMask, j < deg); j += kShortBatch) {
    Vid v[kShortBatch];
    bool won[kShortBatch];
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) {
      won[k] = j + k < deg;
      v[k] = won[k] ? idx[beg + j + k] : 0;
    }
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) won[k] = won[k] && claim(a.visited, v[k]);
#pragma unroll
    for (int k = 0; k < kShortBatch; ++k) {
      if (won[k]) record_win(a, lvl, v[k], u, new_edges);
      app.append(won[k], v[k]);
    }
  }
}

// Warp-aggregated push of one value per lane (when `have`) into a shared queue of `cap`
// entries whose fill count is *count (which may run past cap); what does not fit goes straight
// to the global queue `out` with one global atomic for the warp. The whole warp calls it.
__device__ __forceinline__ void warp_push(bool have, Vid v, Vid* q, unsigned* count, unsigned cap, Vid* out,
                                          ull* tail) {
  const unsigned m = __ballot_sync(kFullMask, have);
  if (m == 0) return;
  const unsigned rank = __popc(m & lanes_below());
  unsigned base = 0;
  if (lane_id() == 0) base = atomicAdd(count, unsigned(__popc(m)));
  base = __shfl_sync(kFullMask, base, 0);
  const bool spill = have && base + rank >= cap;
  if (have && !spill) q[base + rank] = v;
  const unsigned sm = __ballot_sync(kFullMask, spill);
  if (sm == 0) return;
  ull gbase = 0;
  if (lane_id() == 0) gbase = atomicAdd(tail, ull(__popc(sm)));
  gbase = __shfl_sync(kFullMask, gbase, 0);
  if (spill) out[gbase + __popc(sm & lanes_below())] = v;
}

// Copies the block queue (min(*count, cap) entries) to the global queue with one atomic for the
// block, coalesced, and empties it. Every thread of the block calls it.
__device__ __forceinline__ void flush_block_queue(Vid* q, unsigned* count, unsigned cap, Vid* out, ull* tail,
                                                  ull* s_base) {
  __syncthreads();  // every append to q is done
  const unsigned c = min(*count, cap);
  if (threadIdx.x == 0 && c > 0) *s_base = atomicAdd(tail, ull(c));
  __syncthreads();
  if (c > 0) {
    const ull base = *s_base;
    for (unsigned k = threadIdx.x; k < c; k += blockDim.x) out[base + k] = q[k];
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
  c.level = v->level;
  c.pulling = v->pulling;
  c.kernel = v->kernel;
  c.blocks_done = v->blocks_done;
  c.queue = v->queue;
  c.bitmap = v->bitmap;
  return c;
}

// Called by every thread of every block at the end of a multi-block level kernel, after its
// contributions to ctl->next_* are made: the last block to finish closes the level (advance()).
__device__ __forceinline__ void finish_level(const SearchArgs& a, bool was_pull) {
  __threadfence();  // every thread's counter atomics are visible device-wide before the ticket
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(&a.ctl->blocks_done, 1u);
    if (t == gridDim.x - 1) {
      __threadfence();
      Control c = load_control(a.ctl);  // the other blocks' atomics live in L2
      const ull ns = c.next_size, ne = c.next_edges;
      advance(c, ns, ne, was_pull, a);
      c.blocks_done = 0;
      *a.ctl = c;
    }
  }
}

#endif  // __CUDACC__

// Dynamic shared memory a kernel may use without opting in.
inline constexpr std::size_t kDefaultDynamicSmem = 48 * 1024;

// Opts `kernel` in to `bytes` of dynamic shared memory when that is more than it was allowed so
// far (`raised`: a static per kernel at the call site).
template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes, std::size_t& raised) {
  if (bytes <= raised) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  raised = bytes;
}

// ---- launchers (one per kernel family), all on the legacy default stream --------------------
// Push: one expansion of `in` (size `size`) into `out`, appending through ctl->next_size.
// A frontier of a few long rows (`edges` out-edges in all) is spread over many blocks instead.
void launch_push(BfsKernel kind, const SearchArgs& a, int lvl, const Vid* in, Index size, Index edges, Vid* out);
// Pull: one expansion from the frontier bitmap `fin` into the bitmap `fout` and the queue `out`.
void launch_pull(const SearchArgs& a, int lvl, const std::uint32_t* fin, std::uint32_t* fout, Vid* out);
// Sets the bitmap `bm` (ceil(n/32) words) to the vertices of the queue `q`.
void launch_queue_to_bitmap(const Vid* q, Index size, std::uint32_t* bm, Index n);
// Single block: levels from `in` (in global memory) until done, handing over, or `max_levels`
// (stats buffer full); the last frontier it produces (if any) lands in `out`. Writes one
// LevelRecord per level to `records` when not null.
void launch_single_block(const SearchArgs& a, const Vid* in, Vid* out, LevelRecord* records, int max_levels);
// Throws Error(InvalidValue) when the single-block queues do not fit one block's shared memory.
void check_single_block_fits(const Capacities& caps);
// Persistent: every level from the state in *a.ctl, inside one cooperative launch with a grid
// barrier between levels, choosing each level's body on the device, until the frontier is empty
// or `max_levels` levels ran (stats buffer full). queues/bitmaps: the two ping-pong queues and
// frontier bitmaps (bitmaps may be null without in-edges); slots: 3 zeroed counter slots.
struct LevelSlot {
  ull next_size, next_edges, examined, pad;
};
struct PersistentBuffers {
  Vid* queues[2];
  std::uint32_t* bitmaps[2];
  LevelSlot* slots;
  LevelRecord* records;  // max_levels entries, or null
  int max_levels;
};
// Blocks the persistent kernel runs with on this device (all co-resident), 0 when it cannot run
// (no cooperative launch, or the capacities' shared memory leaves no block room).
int persistent_blocks(const SearchArgs& a);
void launch_persistent(const SearchArgs& a, const PersistentBuffers& b, int blocks);

}  // namespace gbcuda::detail::cuda::frontier
