#pragma once
// The fused BFS's barrier-free tail (fused_bfs.cu). Once a search has run kTailAfterLevels narrow
// levels in a row (a mesh, a road network, a long path: thousands of levels of a few thousand
// vertices, each paying a grid barrier and a chain of round trips, ~3-6 us on the H100), the rest
// of it runs without level barriers.
//
// Label-correcting: a vertex's level only falls (atomicMin on the level array, read as unsigned so
// that unvisited, -1, is the largest), and every fall queues the vertex again, so the levels end
// exact in any order. A warp keeps up to kTailKeep of its finds in a ring in shared memory and
// expands them next: the chain from one level to the next (row offsets, indices, the atomic) stays
// in the warp. The surplus goes to one global queue, where idle warps take it (a warp takes up to
// 32 entries by a compare-and-swap on the head). `pending` counts the queued entries, ring or
// global; a warp adds what it queues globally before publishing it, so pending never reads below
// the entries left, and the search ends when an idle warp reads 0.
//
// Levels only: the visited bitmap is not kept here (the search ends in the tail), and parents are
// named afterwards by barrier_free_parents_kernel from the final levels. A frontier too wide for
// this (a global backlog above kTailMaxBacklog, or the queue full: `cap` entries, never reused, so
// re-queued vertices count too) abandons the tail (status kTailAbandoned): the warps leave as they
// next take from or push to the global queue (a warp living on its ring alone finishes its region
// first), the levels are unfinished, and the host searches again without it.
//
// A global entry is published with a release store by the lane whose atomic lowered the level,
// and read with an acquire load, so the level a consumer reads is at least that one.
#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

#include "cuda/product/common.cuh"

namespace gbcuda::detail::cuda::product {

inline constexpr int kTailAfterLevels = 64;   // narrow levels in a row before the tail starts
inline constexpr Index kTailMaxWidth = 4096;  // a level at most this wide counts as narrow
inline constexpr int kTailWarps = 4;          // warps of each block that work in the tail
inline constexpr int kTailKeep = 32;          // finds a warp keeps in its ring
inline constexpr int kTailRing = 64;          // ring entries (>= kTailKeep)
inline constexpr ull kTailMaxBacklog = 1u << 16;
inline constexpr int kTailMaxSleepNs = 256;  // an idle warp's back-off doubles up to this

enum TailStatus : int { kTailNotRun = 0, kTailDone = 1, kTailAbandoned = 2 };

// In device memory, zeroed once per search (the tail runs at most once); head, tail and pending
// on their own lines.
struct TailState {
  ull head, pad0[15];
  ull tail, pad1[15];
  long long pending, pad2[15];
  int status;
  int seed_level;  // the level of the frontier the tail started from
  ull t_begin_ns, t_end_ns;
};
static_assert(sizeof(TailState) % sizeof(ull) == 0, "init_kernel zeroes it in ull words");

#ifdef __CUDACC__

__device__ __forceinline__ ull volatile_load(const ull* p) { return *reinterpret_cast<const volatile ull*>(p); }

__device__ __forceinline__ Vid load_acquire(const Vid* p) {
  Vid v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release(Vid* p, Vid v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ bool tail_abandoned(const TailState* s) {
  return *reinterpret_cast<const volatile int*>(&s->status) == kTailAbandoned;
}

// Abandons the tail, and pushes the queue's tail past any capacity: a warp expanding from its ring
// then leaves at its next global push (whose reservation no longer fits), at no cost to the
// warps' usual path (a flag read every batch cost the grid 4%).
__device__ __forceinline__ void abandon_tail(TailState* s) {
  atomicExch(&s->status, int(kTailAbandoned));
  atomicAdd(&s->tail, ull(1) << 40);
}

// Called by every thread of the fused kernel (a grid barrier inside). `frontier` holds `size`
// vertices of level `seed_level`; `queue` (cap <= n entries, not the frontier's) becomes the
// global queue.
__device__ void barrier_free_tail(const Graph& g, std::int32_t* level, const Vid* frontier, Index size, int seed_level,
                                  Vid* queue, Index cap, TailState* s) {
  __shared__ Vid rings[kTailWarps][kTailRing];
  const bool fits = size <= cap;
  for (Index i = global_thread(); i < cap; i += grid_threads())
    queue[i] = fits && i < size ? load<true>(frontier + i) : -1;
  if (global_thread() == 0) {
    s->tail = ull(size);
    s->pending = size;
    s->seed_level = seed_level;
    s->t_begin_ns = globaltimer_ns();
    if (!fits) s->status = kTailAbandoned;
  }
  cooperative_groups::this_grid().sync();
  const int warp = int(threadIdx.x / 32), lane = int(threadIdx.x % 32);
  if (warp >= kTailWarps || !fits) return;
  Vid* ring = rings[warp];
  auto* levels = reinterpret_cast<unsigned*>(level);
  int ring_head = 0, ring_count = 0;  // warp-uniform
  for (;;) {
    // Take up to 32 entries: from the ring, else from the global queue.
    const bool from_ring = ring_count > 0;
    ull head = 0;
    int n = 0;
    if (from_ring) {
      n = min(ring_count, 32);
    } else {
      if (lane == 0) {
        for (int sleep = 32;;) {
          const ull t = volatile_load(&s->tail), h = volatile_load(&s->head);
          if (tail_abandoned(s) || t > ull(cap)) {  // past cap: a producer found the queue full
            n = -1;
            break;
          }
          if (t > h) {
            if (t - h > kTailMaxBacklog) {  // a wide frontier: the level-synchronous search does better
              abandon_tail(s);
              n = -1;
              break;
            }
            const ull take = min(t - h, ull(32));
            if (atomicCAS(&s->head, h, h + take) == h) {
              head = h;
              n = int(take);
              break;
            }
          } else {
            if (*reinterpret_cast<volatile long long*>(&s->pending) <= 0) {
              n = -1;
              break;
            }
            __nanosleep(sleep);
            sleep = min(2 * sleep, kTailMaxSleepNs);
          }
        }
      }
      n = __shfl_sync(kFullMask, n, 0);
      head = __shfl_sync(kFullMask, head, 0);
      if (n < 0) return;
    }
    Vid v = -1;
    if (lane < n) {
      if (from_ring) {
        v = ring[(ring_head + lane) % kTailRing];
      } else {
        // Every slot below a tail read at most cap belongs to a reservation that fit, whose
        // producer writes it: reserved, perhaps not yet written.
        while ((v = load_acquire(queue + head + lane)) < 0) {
        }
      }
    }
    if (from_ring) ring_head = (ring_head + n) % kTailRing, ring_count -= n;
    __syncwarp();
    // Expand: kChunk edges a lane a round, the round's finds appended together.
    constexpr int kChunk = 4;
    unsigned next = 0;
    Offset p = 0, end = 0;
    if (v >= 0) {
      next = *reinterpret_cast<volatile unsigned*>(levels + v) + 1;  // its level now, not when queued
      p = g.out_ptr[v];
      end = g.out_ptr[v + 1];
    }
    long long queued_here = 0;  // into the ring (global entries are counted when published)
    while (__any_sync(kFullMask, p < end)) {
      Vid w[kChunk];
      unsigned won = 0;  // bit k: w[k] got a lower level (no dynamically indexed array: registers)
#pragma unroll
      for (int k = 0; k < kChunk; ++k) w[k] = p + k < end ? g.out_idx[p + k] : -1;
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        if (w[k] >= 0 && atomicMin(levels + w[k], next) > next) won |= 1u << k;
      const int nf = __popc(won);
      p += kChunk;
      const int scan = warp_inclusive_sum(nf);
      const int total = __shfl_sync(kFullMask, scan, 31);
      if (total == 0) continue;
      const int to_ring = min(total, max(kTailKeep - ring_count, 0));
      const int to_queue = total - to_ring;
      ull base = 0;
      if (to_queue > 0) {
        if (lane == 0) {
          atomicAdd(reinterpret_cast<ull*>(&s->pending), ull(to_queue));
          __threadfence();  // counted before anyone can take them
          base = atomicAdd(&s->tail, ull(to_queue));
          if (base + ull(to_queue) > ull(cap)) abandon_tail(s);
        }
        base = __shfl_sync(kFullMask, base, 0);
        if (base + ull(to_queue) > ull(cap)) return;
      }
      int at = scan - nf;
#pragma unroll
      for (int k = 0; k < kChunk; ++k) {
        if (!(won >> k & 1)) continue;
        if (at < to_ring) ring[(ring_head + ring_count + at) % kTailRing] = w[k];
        else store_release(queue + base + ull(at - to_ring), w[k]);
        ++at;
      }
      ring_count += to_ring;
      queued_here += to_ring;
      __syncwarp();
    }
    if (lane == 0 && queued_here != n) atomicAdd(reinterpret_cast<ull*>(&s->pending), ull(queued_here - n));
  }
}

// Parents of the vertices the tail reached, for a search with parents (launched after the fused
// kernel; it does nothing unless the tail finished). The tail keeps levels only, so each vertex u
// of level >= seed_level names itself the parent of every out-neighbour exactly one level deeper.
// Any such u is a valid BFS parent (the library promises any valid parent), every vertex the tail
// reached has one (the vertex whose expansion gave it its final level), and vertices of earlier
// levels keep the parents the level-synchronous search wrote. Racing writers store valid parents
// whole (64-bit stores). A thread a vertex; a vertex with more than 32 out-edges is expanded by its
// whole warp, so one hub does not hold up its lane.
__global__ void barrier_free_parents_kernel(Graph g, const std::int32_t* level, std::int64_t* parent,
                                            const TailState* s) {
  if (s->status != kTailDone) return;
  const int seed = s->seed_level;
  const int lane = int(threadIdx.x % 32);
  for (Index base = global_thread() - lane; base < g.n; base += grid_threads()) {  // warp-uniform
    const Index u = base + lane;
    int lu = -1;
    Offset p = 0, end = 0;
    if (u < g.n && (lu = level[u]) >= seed) p = g.out_ptr[u], end = g.out_ptr[u + 1];
    const bool wide = end - p > 32;
    if (!wide)
      for (; p < end; ++p)
        if (level[g.out_idx[p]] == lu + 1) parent[g.out_idx[p]] = u;
    for (unsigned wides = __ballot_sync(kFullMask, wide); wides; wides &= wides - 1) {
      const int owner = __ffs(int(wides)) - 1;
      const int ol = __shfl_sync(kFullMask, lu, owner);
      const Offset oend = __shfl_sync(kFullMask, end, owner);
      for (Offset q = __shfl_sync(kFullMask, p, owner) + lane; q < oend; q += 32) {
        const Vid w = g.out_idx[q];
        if (level[w] == ol + 1) parent[w] = base + owner;
      }
    }
  }
}

#endif  // __CUDACC__

}  // namespace gbcuda::detail::cuda::product
