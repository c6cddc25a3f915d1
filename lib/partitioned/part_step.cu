// One BFS level on a part's GPU (part.hpp): a warp per 32-vertex word, the pull over the part's
// own words (each warp owns its word: no atomics but the counts) and the push over the whole
// frontier's words (a warp expands each frontier vertex of its word, the lanes over its edges;
// rows longer than kBigRow are spread over the whole grid).
#include <bit>

#include "cuda/cuda_check.cuh"
#include "partitioned/part.hpp"

namespace gbcuda::detail::partitioned {
namespace {

using cuda::global_thread;
using cuda::grid_threads;
constexpr unsigned kFull = 0xffffffffu;

struct LevelArgs {
  const Offset* in_ptr;
  const Vid* in_idx;
  const Offset* out_ptr;
  const Vid* out_idx;
  const Index* degree;
  const std::uint32_t* frontier;
  std::uint32_t* next;
  std::uint32_t* visited;
  std::int32_t* level;
  ull* counts;  // kCounts, then the number of big rows
  Vid* big;
  Index own, own_words, all_words;
  int lvl;
};

__device__ void add_counts(ull found, ull edges, ull examined, ull* counts) {
  for (int o = 16; o > 0; o /= 2) {
    found += __shfl_down_sync(kFull, found, o);
    edges += __shfl_down_sync(kFull, edges, o);
    examined += __shfl_down_sync(kFull, examined, o);
  }
  if ((threadIdx.x & 31) == 0 && (found | edges | examined) != 0) {
    atomicAdd(counts, found);
    atomicAdd(counts + 1, edges);
    atomicAdd(counts + 2, examined);
  }
}

__global__ void pull_kernel(LevelArgs a) {
  const unsigned lane = threadIdx.x & 31;
  ull found = 0, edges = 0, examined = 0;
  for (Index w = global_thread() / 32; w < a.own_words; w += grid_threads() / 32) {  // warp-uniform
    const Index v = w * 32 + lane;
    const std::uint32_t vis = a.visited[w];
    bool hit = false;
    if (v < a.own && !((vis >> lane) & 1u)) {
      for (Offset e = a.in_ptr[v], end = a.in_ptr[v + 1]; e < end; ++e) {
        ++examined;
        const Vid u = a.in_idx[e];
        if ((__ldg(a.frontier + (u >> 5)) >> (u & 31)) & 1u) {
          hit = true;
          break;
        }
      }
    }
    const std::uint32_t m = __ballot_sync(kFull, hit);
    if (hit) {
      a.level[v] = a.lvl;
      ++found;
      edges += ull(a.degree[v]);
    }
    if (lane == 0) {
      a.next[w] = m;
      a.visited[w] = vis | m;
    }
  }
  add_counts(found, edges, examined, a.counts);
}

// One out-edge of frontier vertex u into the part: claims v when no other did.
__device__ __forceinline__ void push_edge(const LevelArgs& a, Offset e, ull& found, ull& edges) {
  const Vid v = a.out_idx[e];
  const std::uint32_t bit = 1u << (v & 31);
  if (a.visited[v >> 5] & bit) return;
  if (atomicOr(a.visited + (v >> 5), bit) & bit) return;  // another lane's or warp's
  atomicOr(a.next + (v >> 5), bit);
  a.level[v] = a.lvl;
  ++found;
  edges += ull(a.degree[v]);
}

// A warp per frontier word, the lanes over each of its vertices' edges; rows of more than
// kBigRow go to a.big for big_push_kernel.
__global__ void push_kernel(LevelArgs a) {
  const unsigned lane = threadIdx.x & 31;
  ull found = 0, edges = 0, examined = 0;
  for (Index w = global_thread() / 32; w < a.all_words; w += grid_threads() / 32) {  // warp-uniform
    for (std::uint32_t f = __ldg(a.frontier + w); f != 0; f &= f - 1) {
      const Index u = w * 32 + __ffs(int(f)) - 1;
      const Offset b = a.out_ptr[u], end = a.out_ptr[u + 1];
      if (end - b > kBigRow) {
        if (lane == 0) a.big[atomicAdd(a.counts + kCounts, 1ull)] = Vid(u);
        continue;
      }
      if (lane == 0) examined += ull(end - b);
      for (Offset e = b + lane; e < end; e += 32) push_edge(a, e, found, edges);
    }
  }
  add_counts(found, edges, examined, a.counts);
}

// The big rows: every thread of the grid takes its share of each.
__global__ void big_push_kernel(LevelArgs a) {
  ull found = 0, edges = 0, examined = 0;
  const ull rows = __ldcg(a.counts + kCounts);
  for (ull i = 0; i < rows; ++i) {
    const Vid u = __ldcg(a.big + i);
    const Offset b = a.out_ptr[u], end = a.out_ptr[u + 1];
    if (global_thread() == 0) examined += ull(end - b);
    for (Offset e = b + global_thread(); e < end; e += grid_threads()) push_edge(a, e, found, edges);
  }
  add_counts(found, edges, examined, a.counts);
}

}  // namespace

void cuda_level(const PartGraph& g, PartState& s, bool pull, int lvl, ull counts[kCounts]) {
  const cudaStream_t st = cuda::stream();
  LevelArgs a{};
  a.in_ptr = g.in_ptr.data();
  a.in_idx = g.in_idx.data();
  a.out_ptr = g.out_ptr.data();
  a.out_idx = g.out_idx.data();
  a.degree = g.degree.data();
  a.frontier = s.frontier.data();
  a.next = s.next.data();
  a.visited = s.visited.data();
  a.level = s.level.data();
  a.counts = s.counts.data();
  a.big = s.big.data();
  a.own = g.own();
  a.own_words = g.slice_words;
  a.all_words = (g.n + 31) / 32;
  a.lvl = lvl;
  CUDA_CHECK(cudaMemsetAsync(s.next.data(), 0, s.next.bytes(), st));
  CUDA_CHECK(cudaMemsetAsync(s.counts.data(), 0, s.counts.bytes(), st));
  const Index words = pull ? a.own_words : a.all_words;
  const unsigned blocks = cuda::grid_for(words, 32);
  if (pull) {
    pull_kernel<<<blocks, cuda::kBlock, 0, st>>>(a);
  } else {
    push_kernel<<<blocks, cuda::kBlock, 0, st>>>(a);
    CUDA_CHECK_LAUNCH();
    big_push_kernel<<<cuda::grid_for(Index(g.out_idx.size()) / 64), cuda::kBlock, 0, st>>>(a);
  }
  CUDA_CHECK_LAUNCH();
  copy_bytes(counts, Backend::Host, s.counts.data(), Backend::Cuda, kCounts * sizeof(ull));  // waits
}

}  // namespace gbcuda::detail::partitioned
