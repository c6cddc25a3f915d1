// A part of a partitioned graph: building it from the whole graph, and one BFS level on the host.
#include "partitioned/part.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "core/cuda_host.hpp"
#include "gbcuda/partitioned.hpp"

namespace gbcuda::detail::partitioned {

PartGraph part_frame(Index n, int parts, int p) {
  PartGraph g;
  g.n = n;
  g.begin = partition_begin(n, parts, p);
  g.end = partition_begin(n, parts, p + 1);
  g.slice_words = std::max<Index>(partition_block(n, parts) / 32, 1);
  return g;
}

template <class T>
PartGraph build_part(const Csr<T>& rows, const Csr<T>& in_rows, int parts, int p, Backend where) {
  const Index n = rows.nrows;
  PartGraph g = part_frame(n, parts, p);
  const Offset* rp = rows.row_ptr.data();
  const Vid* ci = rows.col_idx.data();
  const Offset* ip = in_rows.row_ptr.data();
  const Vid* ii = in_rows.col_idx.data();
  const Index own = g.own();

  // In-edges: the transpose's rows [begin, end), as they are.
  std::vector<Offset> in_ptr(static_cast<std::size_t>(own + 1));
  for (Index v = 0; v <= own; ++v) in_ptr[std::size_t(v)] = ip[g.begin + v] - ip[g.begin];
  const Offset in_nnz = in_ptr.back();
  std::vector<Index> degree(static_cast<std::size_t>(own));
  for (Index v = 0; v < own; ++v) degree[std::size_t(v)] = Index(rp[g.begin + v + 1] - rp[g.begin + v]);
  std::vector<std::uint32_t> unreachable(static_cast<std::size_t>(g.slice_words), 0);
  for (Index v = 0; v < own; ++v)
    if (in_ptr[std::size_t(v + 1)] == in_ptr[std::size_t(v)]) unreachable[std::size_t(v / 32)] |= 1u << (v & 31);

  // Out-edges into the part: the sorted run [begin, end) of every row, shifted to local ids.
  std::vector<Offset> lo(static_cast<std::size_t>(n)), out_ptr(static_cast<std::size_t>(n + 1), 0);
#pragma omp parallel for schedule(static)
  for (Index u = 0; u < n; ++u) {
    const Vid* b = ci + rp[u];
    const Vid* e = ci + rp[u + 1];
    const Vid* first = std::lower_bound(b, e, Vid(g.begin));
    const Vid* last = std::lower_bound(first, e, Vid(std::min<Index>(g.end, Index(INT32_MAX))));
    if (g.end > Index(INT32_MAX)) last = e;
    lo[std::size_t(u)] = first - ci;
    out_ptr[std::size_t(u + 1)] = last - first;
  }
  for (Index u = 0; u < n; ++u) out_ptr[std::size_t(u + 1)] += out_ptr[std::size_t(u)];
  std::vector<Vid> out_idx(static_cast<std::size_t>(out_ptr.back()));
#pragma omp parallel for schedule(dynamic, 4096)
  for (Index u = 0; u < n; ++u) {
    const Offset len = out_ptr[std::size_t(u + 1)] - out_ptr[std::size_t(u)];
    for (Offset k = 0; k < len; ++k)
      out_idx[std::size_t(out_ptr[std::size_t(u)] + k)] = Vid(ci[lo[std::size_t(u)] + k] - g.begin);
  }

  g.in_ptr = Array<Offset>(in_ptr, where);
  g.in_idx = Array<Vid>(static_cast<std::size_t>(in_nnz), where);
  copy_bytes(g.in_idx.data(), where, ii + ip[g.begin], Backend::Host, std::size_t(in_nnz) * sizeof(Vid));
  g.out_ptr = Array<Offset>(out_ptr, where);
  g.out_idx = Array<Vid>(out_idx, where);
  g.degree = Array<Index>(degree, where);
  g.unreachable = Array<std::uint32_t>(unreachable, where);
  return g;
}

LevelProgress first_progress(Index degree, Offset nnz) {
  LevelProgress at{};
  at.size = 1;
  at.edges = ull(degree);
  at.unexplored = double(nnz);
  return at;
}

PartState make_state(const PartGraph& g, int parts, Index source, Index source_degree, Offset nnz, bool parents,
                     Backend where) {
  PartState s;
  const auto words = static_cast<std::size_t>(g.slice_words);
  s.frontier = Array<std::uint32_t>(words * std::size_t(parts), where);
  s.next = Array<std::uint32_t>(2 * words, where);
  s.visited = Array<std::uint32_t>(words, where);
  s.level = Array<std::int32_t>(std::max<std::size_t>(std::size_t(g.own()), 1), where);
  LoopState first[2] = {};
  first[0].at = first_progress(source_degree, nnz);
  s.loop = Array<LoopState>(2, where);
  copy_bytes(s.loop.data(), where, first, Backend::Host, sizeof(first));
  fill_bytes(s.next.data(), where, 0, s.next.bytes());
  if (where == Backend::Cuda) s.big = Array<Vid>(std::size_t(g.out_idx.size() / std::size_t(kBigRow + 1)) + 1, where);
  fill_bytes(s.frontier.data(), where, 0, s.frontier.bytes());
  copy_bytes(s.visited.data(), where, g.unreachable.data(), where, s.visited.bytes());
  fill_bytes(s.level.data(), where, 0xff, s.level.bytes());  // -1
  if (parents) {
    s.parent = Array<Vid>(std::max<std::size_t>(std::size_t(g.own()), 1), where);
    fill_bytes(s.parent.data(), where, 0xff, s.parent.bytes());  // -1
  }
  // Every part knows the first frontier; its owner marks it visited at level 0. (Part p's slice
  // of the gathered frontier starts at word p * slice_words, vertex p * slice_words * 32: vertex u
  // is bit u % 32 of word u / 32 there.)
  const std::uint32_t word = std::uint32_t(1) << (source & 31);
  copy_bytes(s.frontier.data() + source / 32, where, &word, Backend::Host, sizeof(word));
  if (source >= g.begin && source < g.end) {
    const Index local = source - g.begin;
    std::uint32_t marked = 0;  // the word holds the unreachable vertices beside the source
    copy_bytes(&marked, Backend::Host, s.visited.data() + local / 32, where, sizeof(marked));
    marked |= std::uint32_t(1) << (local & 31);
    copy_bytes(s.visited.data() + local / 32, where, &marked, Backend::Host, sizeof(marked));
    const std::int32_t zero = 0;
    copy_bytes(s.level.data() + local, where, &zero, Backend::Host, sizeof(zero));
    if (parents) {
      const Vid self = Vid(source);
      copy_bytes(s.parent.data() + local, where, &self, Backend::Host, sizeof(self));
    }
  }
  return s;
}

void host_level(const PartGraph& g, PartState& s, int lvl, double alpha, double beta) {
  const Index own = g.own(), words = g.slice_words;
  std::uint32_t* next = next_of(s, lvl);
  std::uint32_t* visited = s.visited.data();
  const std::uint32_t* frontier = s.frontier.data();
  std::int32_t* level = s.level.data();
  Vid* parent = s.parent.size() ? s.parent.data() : nullptr;
  const Offset* in_ptr = g.in_ptr.data();
  const Vid* in_idx = g.in_idx.data();
  const Index* degree = g.degree.data();
  LoopState& loop = *loop_of(s, lvl);
  const LoopState& before = *loop_of(s, lvl - 1);
  loop.at = before.at;
  begin_level(loop.at, before.sums, lvl, alpha, beta, double(g.n));
  std::fill(std::begin(loop.counts), std::end(loop.counts), 0ull);
  std::fill(next, next + words, 0u);
  if (loop.at.stop) return;
  ull found = 0, edges = 0, examined = 0;
  auto in_frontier = [&](Vid u) { return (frontier[u >> 5] >> (u & 31)) & 1u; };
  if (loop.at.pull) {
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : found, edges, examined)
    for (Index w = 0; w < words; ++w) {
      std::uint32_t m = 0;
      for (int b = 0; b < 32; ++b) {
        const Index v = w * 32 + b;
        if (v >= own || ((visited[w] >> b) & 1u)) continue;
        for (Offset e = in_ptr[v]; e < in_ptr[v + 1]; ++e) {
          ++examined;
          if (in_frontier(in_idx[e])) {
            m |= std::uint32_t(1) << b;
            level[v] = lvl;
            if (parent) parent[v] = in_idx[e];
            ++found;
            edges += ull(degree[v]);
            break;
          }
        }
      }
      next[w] = m;
      visited[w] |= m;
    }
  } else {
    const Offset* out_ptr = g.out_ptr.data();
    const Vid* out_idx = g.out_idx.data();
    const Index all_words = (g.n + 31) / 32;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : found, edges, examined)
    for (Index w = 0; w < all_words; ++w) {
      for (std::uint32_t f = frontier[w]; f != 0; f &= f - 1) {
        const Index u = w * 32 + std::countr_zero(f);
        for (Offset e = out_ptr[u]; e < out_ptr[u + 1]; ++e) {
          ++examined;
          const Vid v = out_idx[e];
          const std::uint32_t bit = std::uint32_t(1) << (v & 31);
          std::atomic_ref<std::uint32_t> vis(visited[v >> 5]);
          if (vis.load(std::memory_order_relaxed) & bit) continue;
          if (vis.fetch_or(bit, std::memory_order_relaxed) & bit) continue;  // another thread's
          std::atomic_ref<std::uint32_t>(next[v >> 5]).fetch_or(bit, std::memory_order_relaxed);
          level[v] = lvl;
          if (parent) parent[v] = Vid(u);
          ++found;
          edges += ull(degree[v]);
        }
      }
    }
  }
  loop.counts[0] = found;
  loop.counts[1] = edges;
  loop.counts[2] = examined;
}

// ---- LevelReports --------------------------------------------------------------------------

namespace {
constexpr int kSlots = 4;  // a report stays readable until the copy of the level kSlots after it
using Clock = std::chrono::steady_clock;
}  // namespace

struct LevelReports::Impl {
  Backend where = Backend::Host;
  LoopState* slots = nullptr;  // kSlots; pinned host memory for a GPU part
  std::vector<LoopState> host_slots;
  std::vector<Clock::time_point> host_times;  // [0] the start, [lvl] the end of level lvl
#if GBCUDA_HAVE_CUDA
  std::vector<cudaEvent_t> events;  // likewise
#endif
};

LevelReports::LevelReports(Backend where) : impl_(std::make_unique<Impl>()) {
  impl_->where = where;
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    void* p = nullptr;
    if (cudaMallocHost(&p, kSlots * sizeof(LoopState)) != cudaSuccess) {
      cudaGetLastError();
      throw Error(Status::OutOfMemory, "the partitioned search's level reports: pinned host memory");
    }
    impl_->slots = static_cast<LoopState*>(p);
    return;
  }
#endif
  impl_->host_slots.resize(kSlots);
  impl_->slots = impl_->host_slots.data();
}

LevelReports::~LevelReports() {
#if GBCUDA_HAVE_CUDA
  if (impl_->where == Backend::Cuda) {
    for (cudaEvent_t e : impl_->events) cudaEventDestroy(e);
    cudaFreeHost(impl_->slots);
  }
#endif
}

#if GBCUDA_HAVE_CUDA
namespace {
using cuda_host::check;
using cuda_host::stream;

void record_event(std::vector<cudaEvent_t>& events, std::size_t i) {
  while (events.size() <= i) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    events.push_back(e);
  }
  check(cudaEventRecord(events[i], stream()), "cudaEventRecord");
}
}  // namespace
#endif

void LevelReports::start() {
#if GBCUDA_HAVE_CUDA
  if (impl_->where == Backend::Cuda) {
    record_event(impl_->events, 0);
    return;
  }
#endif
  impl_->host_times.assign(1, Clock::now());
}

void LevelReports::copy(const LoopState* state, int lvl) {
  LoopState* slot = impl_->slots + lvl % kSlots;
#if GBCUDA_HAVE_CUDA
  if (impl_->where == Backend::Cuda) {
    check(cudaMemcpyAsync(slot, state, sizeof(LoopState), cudaMemcpyDeviceToHost, stream()), "a level's report");
    record_event(impl_->events, std::size_t(lvl));
    return;
  }
#endif
  *slot = *state;
  impl_->host_times.resize(std::size_t(lvl) + 1);
  impl_->host_times[std::size_t(lvl)] = Clock::now();
}

const LoopState& LevelReports::wait(int lvl) {
#if GBCUDA_HAVE_CUDA
  if (impl_->where == Backend::Cuda) check(cudaEventSynchronize(impl_->events[std::size_t(lvl)]), "a level's end");
#endif
  return impl_->slots[lvl % kSlots];
}

double LevelReports::seconds(int lvl) {
#if GBCUDA_HAVE_CUDA
  if (impl_->where == Backend::Cuda) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, impl_->events[std::size_t(lvl - 1)], impl_->events[std::size_t(lvl)]),
          "cudaEventElapsedTime");
    return ms * 1e-3;
  }
#endif
  return std::chrono::duration<double>(impl_->host_times[std::size_t(lvl)] - impl_->host_times[std::size_t(lvl - 1)])
      .count();
}

#define GBCUDA_INSTANTIATE_BUILD_PART(T) \
  template PartGraph build_part<T>(const Csr<T>&, const Csr<T>&, int, int, Backend);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_BUILD_PART)
#undef GBCUDA_INSTANTIATE_BUILD_PART

}  // namespace gbcuda::detail::partitioned
