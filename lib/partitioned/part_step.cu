// One BFS level on a part's GPU (part.hpp), enqueued without a host wait: one kernel starts the
// level (each block applies begin_level to the level before's state: the direction, and whether to
// stop, from the summed counts on the device), clears the next level's buffers and runs the
// direction chosen, in grid-stride loops over one wave of blocks. The pull goes over the part's
// own words (a warp owns each word it takes: no atomics but the counts), the push over the whole
// frontier's words (a lane a word, a row of more than 32 edges expanded by the whole warp); a
// second kernel spreads the push's rows of more than kBigRow edges over the whole grid. Also
// the build of a part on its GPU from a graph already in GPU memory (build_part_on_device).
#include <bit>
#include <vector>

#include <cub/cub.cuh>

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
  Vid* parent;                // null unless the search names parents
  LoopState* loop;            // this level's state; its counts: kCounts, then the number of big rows
  LoopState* prev;            // the level before's, and the next level's to be (part.hpp)
  std::uint32_t* next_after;  // the next level's next, cleared here
  Vid* big;
  Index own, own_words, all_words;
  int lvl;
  double alpha, beta, n;  // the direction rule's, and the whole graph's vertices
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

// A warp reads 32 visited words at once, a lane a word, and then takes the words with an
// unvisited own vertex one at a time, a lane a vertex scanning its in-edges until one is in the
// frontier. (Late pulls find nearly every word full: read one at a time, a part's 2M words of
// kron:27 cost 0.4 ms.) next_of(lvl) is already clear: only found vertices are written.
__device__ void pull(const LevelArgs& a) {
  const unsigned lane = threadIdx.x & 31;
  ull found = 0, edges = 0, examined = 0;
  const Index warps = grid_threads() / 32;
  for (Index base = global_thread() / 32 * 32; base < a.own_words; base += warps * 32) {  // warp-uniform
    const Index mine = base + lane;
    std::uint32_t open = 0;  // word mine's own vertices not yet visited
    std::uint32_t vis = kFull;
    if (mine < a.own_words) {
      vis = a.visited[mine];
      const Index left = a.own - mine * 32;  // own vertices from the word's first on
      const std::uint32_t own_bits = left >= 32 ? kFull : left <= 0 ? 0u : (1u << left) - 1u;
      open = ~vis & own_bits;
    }
    for (std::uint32_t todo = __ballot_sync(kFull, open != 0); todo != 0; todo &= todo - 1) {
      const int src = __ffs(int(todo)) - 1;
      const Index w = base + src;
      const std::uint32_t word_open = __shfl_sync(kFull, open, src);
      const std::uint32_t word_vis = __shfl_sync(kFull, vis, src);
      const Index v = w * 32 + lane;
      bool hit = false;
      Vid from = 0;
      if ((word_open >> lane) & 1u) {
        for (Offset e = a.in_ptr[v], end = a.in_ptr[v + 1]; e < end; ++e) {
          ++examined;
          const Vid u = a.in_idx[e];
          if ((__ldg(a.frontier + (u >> 5)) >> (u & 31)) & 1u) {
            hit = true;
            from = u;
            break;
          }
        }
      }
      const std::uint32_t m = __ballot_sync(kFull, hit);
      if (hit) {
        a.level[v] = a.lvl;
        if (a.parent) a.parent[v] = from;
        ++found;
        edges += ull(a.degree[v]);
      }
      if (lane == 0 && m != 0) {
        a.next[w] = m;
        a.visited[w] = word_vis | m;
      }
    }
  }
  add_counts(found, edges, examined, a.loop->counts);
}

// One out-edge of frontier vertex u into the part: claims v when no other did.
__device__ __forceinline__ void push_edge(const LevelArgs& a, Index u, Offset e, ull& found, ull& edges) {
  const Vid v = a.out_idx[e];
  const std::uint32_t bit = 1u << (v & 31);
  if (a.visited[v >> 5] & bit) return;
  if (atomicOr(a.visited + (v >> 5), bit) & bit) return;  // another lane's or warp's
  atomicOr(a.next + (v >> 5), bit);
  a.level[v] = a.lvl;
  if (a.parent) a.parent[v] = Vid(u);
  ++found;
  edges += ull(a.degree[v]);
}

// A warp reads 32 frontier words at once, a lane a word (most words of a sparse frontier are
// empty: a warp that read them one at a time made a level of 13 vertices cost 35 us on kron:24).
// Each lane takes its word's vertices one by one: a row of up to 32 edges the lane expands alone,
// a longer one the whole warp expands together, and a row of more than kBigRow goes to a.big for
// big_push_kernel.
__device__ void push(const LevelArgs& a) {
  const unsigned lane = threadIdx.x & 31;
  ull found = 0, edges = 0, examined = 0;
  const Index warps = grid_threads() / 32;
  for (Index base = global_thread() / 32 * 32; base < a.all_words; base += warps * 32) {  // warp-uniform
    const Index w = base + lane;
    std::uint32_t f = w < a.all_words ? __ldg(a.frontier + w) : 0u;
    while (__any_sync(kFull, f != 0)) {
      Index u = 0;
      Offset b = 0, end = 0;
      if (f != 0) {
        u = w * 32 + __ffs(int(f)) - 1;
        f &= f - 1;
        b = a.out_ptr[u];
        end = a.out_ptr[u + 1];
        if (end - b > kBigRow) {
          a.big[atomicAdd(a.loop->counts + kCounts, 1ull)] = Vid(u);
          end = b;
        }
        examined += ull(end - b);
      }
      for (std::uint32_t wide = __ballot_sync(kFull, end - b > 32); wide != 0; wide &= wide - 1) {
        const int src = __ffs(int(wide)) - 1;
        const Offset rb = __shfl_sync(kFull, b, src), re = __shfl_sync(kFull, end, src);
        const Index ru = __shfl_sync(kFull, u, src);
        for (Offset e = rb + lane; e < re; e += 32) push_edge(a, ru, e, found, edges);
      }
      if (end - b <= 32)
        for (Offset e = b; e < end; ++e) push_edge(a, u, e, found, edges);
    }
  }
  add_counts(found, edges, examined, a.loop->counts);
}

// Starts the level (every block computes begin_level from the level before's state, block 0
// stores it), prepares the next level's buffers (part.hpp: they alternate), then runs the
// direction begin_level chose.
__global__ void level_kernel(LevelArgs a) {
  __shared__ LevelProgress cur;
  if (threadIdx.x == 0) {
    cur = a.prev->at;
    begin_level(cur, a.prev->sums, a.lvl, a.alpha, a.beta, a.n);
  }
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.loop->at = cur;                     // not its counts: other blocks may be adding to them already
    for (ull& c : a.prev->counts) c = 0;  // the next level's counts (begin_level read only the sums)
  }
  for (Index i = global_thread(); i < a.own_words; i += grid_threads()) a.next_after[i] = 0;
  if (cur.stop) return;
  if (cur.pull) pull(a);
  else push(a);
}

// The big rows of a push: every thread of the grid takes its share of each.
__global__ void big_push_kernel(LevelArgs a) {
  ull found = 0, edges = 0, examined = 0;
  const ull rows = __ldcg(a.loop->counts + kCounts);  // 0 unless this level pushes (and has big rows)
  for (ull i = 0; i < rows; ++i) {
    const Vid u = __ldcg(a.big + i);
    const Offset b = a.out_ptr[u], end = a.out_ptr[u + 1];
    if (global_thread() == 0) examined += ull(end - b);
    for (Offset e = b + global_thread(); e < end; e += grid_threads()) push_edge(a, u, e, found, edges);
  }
  add_counts(found, edges, examined, a.loop->counts);
}

// ---- Building a part on its GPU (build_part_on_device) ----

__global__ void shift_kernel(Offset* ptr, Index count, Offset by) {
  for (Index i = global_thread(); i < count; i += grid_threads()) ptr[i] -= by;
}

// counts[u] = the slice's entries from source u (counts cleared before).
__global__ void count_sources_kernel(const Vid* idx, Offset nnz, Offset* counts) {
  for (Offset e = global_thread(); e < nnz; e += grid_threads())
    atomicAdd(reinterpret_cast<ull*>(counts + idx[e]), 1ull);
}

// Each own vertex v (a warp a row, its lanes over the in-edges) appends itself to the out-row of
// each of its sources u at cursor[u]: a counting sort by source (rows come out unsorted: nothing
// reads them in order).
__global__ void scatter_kernel(const Offset* in_ptr, const Vid* in_idx, Index own, Offset* cursor, Vid* out_idx) {
  const unsigned lane = threadIdx.x & 31;
  for (Index v = global_thread() / 32; v < own; v += grid_threads() / 32)
    for (Offset e = in_ptr[v] + lane, end = in_ptr[v + 1]; e < end; e += 32)
      out_idx[atomicAdd(reinterpret_cast<ull*>(cursor + in_idx[e]), 1ull)] = Vid(v);
}

__global__ void unreachable_kernel(const Offset* in_ptr, Index own, std::uint32_t* bits) {
  for (Index v = global_thread(); v < own; v += grid_threads())
    if (in_ptr[v + 1] == in_ptr[v]) atomicOr(bits + (v >> 5), 1u << (v & 31));
}

}  // namespace

std::size_t device_build_bytes(Index n, Offset slice_entries) {
  // in_idx and out_idx; in_ptr (at most n + 1), out_ptr and the cursors; CUB's scan and a margin.
  return std::size_t(slice_entries) * 2 * sizeof(Vid) + std::size_t(n + 1) * 3 * sizeof(Offset) +
         (std::size_t(64) << 20);
}

PartGraph build_part_on_device(const Offset* in_ptr, const Vid* in_idx, Index n, const std::vector<Index>& out_degree,
                               int parts, int p) {
  PartGraph g = part_frame(n, parts, p);
  const Index own = g.own();
  const cudaStream_t st = cuda::stream();
  Offset range[2] = {0, 0};  // the slice's first and last entry
  copy_bytes(range, Backend::Host, in_ptr + g.begin, Backend::Cuda, sizeof(Offset));
  copy_bytes(range + 1, Backend::Host, in_ptr + g.end, Backend::Cuda, sizeof(Offset));
  const Offset nnz = range[1] - range[0];

  // In-edges: the slice, copied from wherever it lies (another GPU's memory: a peer copy).
  g.in_ptr = Array<Offset>(std::size_t(own + 1), Backend::Cuda);
  copy_bytes(g.in_ptr.data(), Backend::Cuda, in_ptr + g.begin, Backend::Cuda, g.in_ptr.bytes());
  shift_kernel<<<cuda::grid_for(own + 1), cuda::kBlock, 0, st>>>(g.in_ptr.data(), own + 1, range[0]);
  CUDA_CHECK_LAUNCH();
  g.in_idx = Array<Vid>(std::size_t(nnz), Backend::Cuda);
  copy_bytes(g.in_idx.data(), Backend::Cuda, in_idx + range[0], Backend::Cuda, g.in_idx.bytes());

  // Out-edges into the part: the slice's transpose, by a counting sort on the source.
  Array<Offset> cursor(std::size_t(n + 1), Backend::Cuda);
  fill_bytes(cursor.data(), Backend::Cuda, 0, cursor.bytes());
  count_sources_kernel<<<cuda::grid_for(nnz), cuda::kBlock, 0, st>>>(g.in_idx.data(), nnz, cursor.data());
  CUDA_CHECK_LAUNCH();
  g.out_ptr = Array<Offset>(std::size_t(n + 1), Backend::Cuda);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, cursor.data(), g.out_ptr.data(), n + 1, st));
  {
    Array<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1), Backend::Cuda);
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, cursor.data(), g.out_ptr.data(), n + 1, st));
  }
  copy_bytes(cursor.data(), Backend::Cuda, g.out_ptr.data(), Backend::Cuda, cursor.bytes());
  g.out_idx = Array<Vid>(std::size_t(nnz), Backend::Cuda);
  scatter_kernel<<<cuda::grid_for(own, 32), cuda::kBlock, 0, st>>>(g.in_ptr.data(), g.in_idx.data(), own, cursor.data(),
                                                                   g.out_idx.data());
  CUDA_CHECK_LAUNCH();

  const auto first = out_degree.begin() + std::ptrdiff_t(g.begin);
  g.degree = Array<Index>(std::vector<Index>(first, first + std::ptrdiff_t(own)), Backend::Cuda);
  g.unreachable = Array<std::uint32_t>(std::size_t(g.slice_words), Backend::Cuda);
  fill_bytes(g.unreachable.data(), Backend::Cuda, 0, g.unreachable.bytes());
  unreachable_kernel<<<cuda::grid_for(own), cuda::kBlock, 0, st>>>(g.in_ptr.data(), own, g.unreachable.data());
  CUDA_CHECK_LAUNCH();
  return g;
}

// Blocks of kBlock threads that the GPU runs at once: the level's kernels stride over the rest.
// A grid of more blocks costs a wave a few microseconds even when every block has nothing to do,
// and most levels of a search have little to do.
unsigned wave_blocks() {
  thread_local int device = -1;
  thread_local unsigned blocks = 0;
  int d = 0;
  CUDA_CHECK(cudaGetDevice(&d));
  if (d != device) {
    int sms = 0, per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, level_kernel, cuda::kBlock, 0));
    blocks = unsigned(std::max(1, sms * std::max(per_sm, 1)));
    device = d;
  }
  return blocks;
}

void cuda_level(const PartGraph& g, PartState& s, int lvl, double alpha, double beta) {
  const cudaStream_t st = cuda::stream();
  LevelArgs a{};
  a.in_ptr = g.in_ptr.data();
  a.in_idx = g.in_idx.data();
  a.out_ptr = g.out_ptr.data();
  a.out_idx = g.out_idx.data();
  a.degree = g.degree.data();
  a.frontier = s.frontier.data();
  a.next = next_of(s, lvl);
  a.next_after = next_of(s, lvl + 1);
  a.visited = s.visited.data();
  a.level = s.level.data();
  a.parent = s.parent.size() ? s.parent.data() : nullptr;
  a.loop = loop_of(s, lvl);
  a.prev = loop_of(s, lvl - 1);
  a.big = s.big.data();
  a.own = g.own();
  a.own_words = g.slice_words;
  a.all_words = (g.n + 31) / 32;
  a.lvl = lvl;
  a.alpha = alpha;
  a.beta = beta;
  a.n = double(g.n);
  const unsigned wave = wave_blocks();
  level_kernel<<<std::min(cuda::grid_for(std::max(a.own_words, a.all_words), 32), wave), cuda::kBlock, 0, st>>>(a);
  CUDA_CHECK_LAUNCH();
  big_push_kernel<<<std::min(cuda::grid_for(Index(g.out_idx.size()) / 64), wave), cuda::kBlock, 0, st>>>(a);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::partitioned
