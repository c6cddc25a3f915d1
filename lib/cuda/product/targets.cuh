#pragma once
// The two targets of the kernel bodies (see common.cuh for what a body asks of a target).
//
//   FusedTarget    the fused BFS: the visited bitmap is both the mask (complemented) and where
//                  vertices are claimed; a win writes its level and parent in place; the output
//                  is the next frontier's queue (and, for a pull, its bitmap).
//   ProductTarget  vxm/mxv: the mask is only read (GraphBLAS semantics); duplicates are removed
//                  by the product's own claimed bits; the output is a sparse vector's index and
//                  value lists. Values: One (AnyPair: true), Term (LorLand: the term's truth,
//                  see product.cu) or Index (AnySecondI: the input entry that reached it).
#include "cuda/product/common.cuh"

#if defined(__CUDACC__)

namespace gbcuda::detail::cuda::product {

// Is input entry u in the frontier bitmap `fin`? 0: no; 2: yes, and the search may stop there.
// (1: present but keep looking for a better term: only ProductTarget<Term>.) A plain load: the
// frontier bitmaps are written before the grid barrier that starts a pull and only read during
// it (see load()), so probes may hit L1.
__device__ __forceinline__ int bit_hit(const std::uint32_t* fin, Vid u) {
  return ((fin[u >> 5] >> (u & 31)) & 1u) ? 2 : 0;
}

struct FusedTarget {
  static constexpr bool kPayload = false;
  static constexpr bool kTerms = false;
  Graph g;
  Capacities caps;
  std::int32_t* level = nullptr;     // n, -1 = unvisited
  std::int64_t* parent = nullptr;    // n or null
  std::uint32_t* visited = nullptr;  // ceil(n/32) words
  Vid* out = nullptr;                // the next frontier's queue
  std::uint32_t* fout = nullptr;     // pull: the next frontier's bitmap

  __device__ bool admits(Vid) const { return true; }
  __device__ bool unclaimed(Vid v) const { return bit_clear(visited, v); }
  __device__ bool claim_unclaimed(Vid v) const { return set_bit_first(visited, v); }
  __device__ bool claim(Vid v) const { return unclaimed(v) && claim_unclaimed(v); }
  __device__ void record(Vid v, Vid u, int lvl) const {
    level[v] = lvl;
    if (parent) parent[v] = u;
  }
  __device__ Offset counted_degree(Vid v) const { return row_degree(g, v); }
  __device__ void won(Vid v, Vid u, int lvl, ull& new_edges) const {
    record(v, u, lvl);
    new_edges += static_cast<ull>(sampled_row_degree(g, v));
  }
  __device__ Vid payload(Vid) const { return 0; }
  __device__ void write(ull pos, Vid v, Vid) const { out[pos] = v; }
  // Pull: the unvisited vertices of word w; each lane may ask for its own word (kLaneCandidates).
  static constexpr bool kLaneCandidates = true;
  __device__ std::uint32_t pull_candidates(Index w) const {
    std::uint32_t c = ~visited[w];  // set before the pull's barrier; this warp alone changes it now
    const Index left = g.n - w * 32;
    if (left < 32) c &= (1u << left) - 1u;
    return c;
  }
  __device__ int pull_hit(const std::uint32_t* fin, Vid u) const { return bit_hit(fin, u); }
  __device__ Vid pull_payload(Vid, bool) const { return 0; }
  // One lane for word w, after the warp's votes: the word of the next frontier, and the visited
  // word (no other warp touches word w during a pull level). Candidates without in-edges can never
  // be found: they are marked visited (their level stays -1) and later pulls pass them by, whole
  // words at a time (1.8 M of kron:22:16's 4.2 M vertices are never reached).
  __device__ void pull_commit(Index w, std::uint32_t found, std::uint32_t unreachable) const {
    fout[w] = found;
    if (found | unreachable) visited[w] = __ldcg(visited + w) | found | unreachable;
  }
  // A deferred row's find (pull_deferred_rows), claimed in `visited` after the commits above.
  __device__ void pull_commit_one(Vid v) const { atomicOr(fout + (v >> 5), 1u << (v & 31)); }
};

enum class OutValue { One, Term, Index };

template <class Z, OutValue K>
struct ProductTarget {
  static constexpr bool kPayload = K == OutValue::Index;
  static constexpr bool kTerms = K == OutValue::Term;
  Graph g;
  Capacities caps;
  MaskView mask;
  std::uint32_t* claimed = nullptr;      // ceil(n/32) words, zero on entry (push)
  Vid* out_idx = nullptr;                // the output's index list
  Z* out_val = nullptr;                  // and its values
  const std::uint32_t* ftrue = nullptr;  // Term, pull: the input entries whose value is true
  bool term = true;                      // Term, push: the value of every entry this pass writes
  bool count_edges = false;              // trace the output's out-edges (square products)

  __device__ bool admits(Vid v) const { return mask.allows(v); }
  __device__ bool unclaimed(Vid v) const { return admits(v) && bit_clear(claimed, v); }
  __device__ bool claim_unclaimed(Vid v) const { return set_bit_first(claimed, v); }
  __device__ bool claim(Vid v) const { return unclaimed(v) && claim_unclaimed(v); }
  __device__ void record(Vid, Vid, int) const {}
  __device__ Offset counted_degree(Vid v) const { return count_edges ? row_degree(g, v) : 0; }
  __device__ void won(Vid v, Vid u, int lvl, ull& new_edges) const {
    record(v, u, lvl);
    if (count_edges) new_edges += static_cast<ull>(sampled_row_degree(g, v));
  }
  __device__ Vid payload(Vid u) const { return kPayload ? u : 0; }
  __device__ void write(ull pos, Vid v, Vid p) const {
    out_idx[pos] = v;
    if constexpr (K == OutValue::One) out_val[pos] = Z(1);
    else if constexpr (K == OutValue::Term) out_val[pos] = Z(term || p != 0);
    else out_val[pos] = Z(p);
  }
  // Pull: the outputs of word w the mask allows (the same in every lane: a vote).
  static constexpr bool kLaneCandidates = false;
  __device__ std::uint32_t pull_candidates(Index w) const {
    const Index v = w * 32 + lane_id();
    return __ballot_sync(kFullMask, v < g.n && mask.allows(v));
  }
  __device__ int pull_hit(const std::uint32_t* fin, Vid u) const {
    const int h = bit_hit(fin, u);
    if constexpr (K == OutValue::Term) {  // a true term ends the search; a false one only counts
      if (h && ftrue && !((ftrue[u >> 5] >> (u & 31)) & 1u)) return 1;
    }
    return h;
  }
  // What the pull writes for an output found through `par`, with a true term or not.
  __device__ Vid pull_payload(Vid par, bool true_term) const {
    if constexpr (K == OutValue::Index) return par;
    else return true_term ? 1 : 0;
  }
  __device__ void pull_commit(Index, std::uint32_t, std::uint32_t) const {}
  __device__ void pull_commit_one(Vid) const {}
};

}  // namespace gbcuda::detail::cuda::product

#endif  // __CUDACC__
