// One level of a multi-source BFS pass on the GPU (cuda_ops.hpp, multi_source_level.hpp).
//   pull: a thread per vertex not yet seen by every search ORs its in-neighbours' frontier words
//         and stops once every search has seen it (a warp per 32 consecutive vertices);
//   push: a warp takes 32 consecutive vertices and expands the out-edges of those in the
//         frontier, the lanes over each one's edges (atomic OR into next), then a pass over every
//         vertex keeps the searches that had not seen it.
// Both end in level_kernel's per-vertex step (settle): seen |= next, levels, counts. The per-search
// counts are warp ballots, one a bit, kept by lane b for bits b and b + 32.
#include "cuda/cuda_check.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda {
namespace {

using u64 = std::uint64_t;
using ull = unsigned long long;
constexpr unsigned kFull = 0xffffffffu;

struct Counters {              // a warp's share of kMultiSourceCounts
  ull per_search[2] = {0, 0};  // lane l: searches l and l + 32
  ull active = 0, active_edges = 0, edges = 0;
};

// The searches that reached v at this level: recorded, counted. Every lane of the warp calls it.
__device__ void settle(const MultiSourceLevel& s, const Offset* deg_ptr, Index v, u64 nxt, Counters& c) {
  const unsigned lane = threadIdx.x & 31;
  if (nxt != 0) {
    const ull deg = ull(deg_ptr[v + 1] - deg_ptr[v]);
    ++c.active;
    c.active_edges += deg;
    c.edges += deg * ull(__popcll(nxt));
  }
  if (!__any_sync(kFull, nxt != 0)) return;
  for (int b = 0; b < 64; ++b) {  // search by search: the warp's level writes go to consecutive vertices
    const bool bit = (nxt >> b) & 1u;
    const int k = __popc(__ballot_sync(kFull, bit));
    if (k == 0) continue;
    if ((b & 31) == int(lane)) c.per_search[b >> 5] += ull(k);
    if (bit && s.level) s.level[Index(b) * s.n + v] = s.lvl;
  }
}

// The OR of every lane's word.
__device__ u64 warp_or(u64 x) {
  const unsigned lo = __reduce_or_sync(kFull, unsigned(x)), hi = __reduce_or_sync(kFull, unsigned(x >> 32));
  return u64(lo) | (u64(hi) << 32);
}

__device__ void flush(const Counters& c, ull* counts) {
  const unsigned lane = threadIdx.x & 31;
  for (int h = 0; h < 2; ++h)
    if (c.per_search[h] != 0) atomicAdd(counts + lane + 32 * h, c.per_search[h]);
  ull a = c.active, ae = c.active_edges, e = c.edges;
  for (int o = 16; o > 0; o /= 2) {
    a += __shfl_down_sync(kFull, a, o);
    ae += __shfl_down_sync(kFull, ae, o);
    e += __shfl_down_sync(kFull, e, o);
  }
  if (lane == 0 && a != 0) {
    atomicAdd(counts + 64, a);
    atomicAdd(counts + 65, ae);
    atomicAdd(counts + 66, e);
  }
}

// Pull (push false: every vertex not seen by all searches ORs its in-neighbours' frontier words)
// or the end of a push (next holds what the push ORed in); then settle().
__global__ void level_kernel(MultiSourceLevel s, CsrView<bool> in, const Offset* deg_ptr, bool pushed, ull* counts) {
  Counters c;
  const Index stride = grid_threads();
  for (Index base = global_thread() - (threadIdx.x & 31); base < s.n; base += stride) {  // warp-uniform
    const Index v = base + (threadIdx.x & 31);
    u64 nxt = 0;
    bool v_is_long = false;
    if (v < s.n) {
      const u64 vis = s.seen[v];
      if (pushed) {
        nxt = s.next[v] & ~vis;
      } else if (in.row_ptr[v + 1] - in.row_ptr[v] > s.long_in_row) {
        nxt = s.next[v];  // long_rows_kernel's (it wrote next and seen; settled here)
        v_is_long = true;
      } else if (vis != s.full) {
        u64 acc = 0;
        for (Offset e = in.row_ptr[v], end = in.row_ptr[v + 1]; e < end; ++e) {
          acc |= __ldg(s.frontier + in.col_idx[e]);
          if ((acc | vis) == s.full) break;
        }
        nxt = acc & ~vis;
      }
      if (!v_is_long) {
        s.next[v] = nxt;
        if (nxt) s.seen[v] = vis | nxt;
      }
    }
    settle(s, deg_ptr, v, nxt, c);
  }
  flush(c, counts);
}

// The pull of the in-rows longer than s.long_in_row (s.long_rows): a warp a row, the lanes over its
// in-edges, stopping once every search has seen the vertex. One thread a row would make a level
// as long as its longest row (a Kronecker hub's in-row of 10^5 entries: 64 sources ran at half
// the speed of 64 single searches). It writes next and seen; level_kernel, launched after it,
// settles these vertices with the others, so that their level writes stay coalesced (64 searches'
// levels of one vertex lie n apart).
__global__ void long_rows_kernel(MultiSourceLevel s, CsrView<bool> in) {
  const unsigned lane = threadIdx.x & 31;
  for (Index i = global_thread() / 32; i < s.long_count; i += grid_threads() / 32) {  // warp-uniform
    const Vid v = s.long_rows[i];
    const u64 vis = s.seen[v];
    u64 acc = 0;
    if (vis != s.full) {
      for (Offset base = in.row_ptr[v], end = in.row_ptr[v + 1]; base < end; base += 32) {
        if (base + lane < end) acc |= __ldg(s.frontier + in.col_idx[base + lane]);
        if ((warp_or(acc) | vis) == s.full) break;
      }
    }
    const u64 nxt = warp_or(acc) & ~vis;
    if (lane == 0) {
      s.next[v] = nxt;
      if (nxt) s.seen[v] = vis | nxt;
    }
  }
}

__global__ void push_kernel(MultiSourceLevel s, CsrView<bool> out) {
  const unsigned lane = threadIdx.x & 31;
  const Index stride = grid_threads();
  for (Index base = global_thread() - lane; base < s.n; base += stride) {  // warp-uniform
    const Index mine = base + lane;
    const u64 f = mine < s.n ? s.frontier[mine] : 0;
    for (unsigned todo = __ballot_sync(kFull, f != 0); todo != 0; todo &= todo - 1) {
      const int l = __ffs(int(todo)) - 1;
      const Index u = base + l;
      const u64 fu = __shfl_sync(kFull, f, l);
      for (Offset e = out.row_ptr[u] + lane, end = out.row_ptr[u + 1]; e < end; e += 32) {
        const Vid v = out.col_idx[e];
        const u64 m = fu & ~s.seen[v];
        if (m != 0 && (s.next[v] & m) != m) atomicOr(reinterpret_cast<ull*>(s.next + v), ull(m));
      }
    }
  }
}

__global__ void start_kernel(MultiSourceLevel s, const Index* src, int k) {
  const int i = int(threadIdx.x);
  if (i >= k) return;
  atomicOr(reinterpret_cast<ull*>(const_cast<u64*>(s.frontier) + src[i]), ull(1) << i);
  atomicOr(reinterpret_cast<ull*>(s.seen + src[i]), ull(1) << i);
  if (s.level) s.level[Index(i) * s.n + src[i]] = 0;
}

}  // namespace

void multi_source_start(const MultiSourceLevel& s, const Index* src, int k) {
  Scratch scratch;
  Index* d_src = scratch.take<Index>(std::size_t(k));
  copy_bytes(d_src, Backend::Cuda, src, Backend::Host, std::size_t(k) * sizeof(Index));
  start_kernel<<<1, 64, 0, stream()>>>(s, d_src, k);
  CUDA_CHECK_LAUNCH();
}

void multi_source_level(const CsrView<bool>& out, const CsrView<bool>& in, const MultiSourceLevel& s, bool push,
                        std::uint64_t* counts) {
  Scratch scratch;
  ull* d_counts = scratch.take<ull>(kMultiSourceCounts);
  CUDA_CHECK(cudaMemsetAsync(d_counts, 0, kMultiSourceCounts * sizeof(ull), stream()));
  const unsigned blocks = grid_for(s.n);
  if (push) {
    push_kernel<<<blocks, kBlock, 0, stream()>>>(s, out);
    CUDA_CHECK_LAUNCH();
  } else if (s.long_count > 0) {
    long_rows_kernel<<<grid_for(s.long_count, 32), kBlock, 0, stream()>>>(s, in);
    CUDA_CHECK_LAUNCH();
  }
  level_kernel<<<blocks, kBlock, 0, stream()>>>(s, in, out.row_ptr, push, d_counts);
  CUDA_CHECK_LAUNCH();
  copy_bytes(counts, Backend::Host, d_counts, Backend::Cuda, kMultiSourceCounts * sizeof(ull));  // waits
}

}  // namespace gbcuda::detail::cuda
