// bfs_multi_source (multi_source.hpp): passes of up to 64 searches, one bit each in every vertex's
// words (frontier, next, seen); a level pushes or pulls (multi_source_level.hpp) on either backend.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <string>
#include <utility>

#include "gbcuda/bfs.hpp"
#include "gbcuda/detail/array.hpp"
#include "gbcuda/detail/multi_source_level.hpp"
#include "gbcuda/detail/views.hpp"
#include "gbcuda/multi_source.hpp"

#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {
namespace {

using u64 = std::uint64_t;
using detail::Array;
using detail::MultiSourceLevel;

// MultiSourceBfsOptions::long_in_row's default: a thread-a-row pull makes its warp wait for the
// longest of its 32 rows, a warp-a-row pull pays two warp reductions each 32 entries.
constexpr Offset kDefaultLongInRow = 32;

// The host's level: the GPU's (lib/cuda/multi_source.cu) in OpenMP loops.
void host_level(const detail::CsrView<bool>& out, const detail::CsrView<bool>& in, const MultiSourceLevel& s, bool push,
                u64* counts) {
  const Index n = s.n;
  if (push) {
#pragma omp parallel for schedule(dynamic, 256)
    for (Index u = 0; u < n; ++u) {
      const u64 f = s.frontier[u];
      if (f == 0) continue;
      for (Offset e = out.row_ptr[u]; e < out.row_ptr[u + 1]; ++e) {
        const Vid v = out.col_idx[e];
        const u64 m = f & ~s.seen[v];
        if (m != 0) std::atomic_ref<u64>(s.next[v]).fetch_or(m, std::memory_order_relaxed);
      }
    }
  }
  std::fill(counts, counts + detail::kMultiSourceCounts, 0);
#pragma omp parallel
  {
    u64 local[detail::kMultiSourceCounts] = {};
#pragma omp for schedule(dynamic, 1024)
    for (Index v = 0; v < n; ++v) {
      const u64 vis = s.seen[v];
      u64 nxt = 0;
      if (push) {
        nxt = s.next[v] & ~vis;
      } else if (vis != s.full) {
        u64 acc = 0;
        for (Offset e = in.row_ptr[v]; e < in.row_ptr[v + 1]; ++e) {
          acc |= s.frontier[in.col_idx[e]];
          if ((acc | vis) == s.full) break;
        }
        nxt = acc & ~vis;
      }
      s.next[v] = nxt;
      if (nxt == 0) continue;
      s.seen[v] = vis | nxt;
      const u64 deg = u64(out.row_ptr[v + 1] - out.row_ptr[v]);
      ++local[64];
      local[65] += deg;
      local[66] += deg * u64(std::popcount(nxt));
      for (u64 m = nxt; m != 0; m &= m - 1) {
        const int b = std::countr_zero(m);
        ++local[b];
        if (s.level) s.level[Index(b) * n + v] = s.lvl;
      }
    }
#pragma omp critical
    for (int i = 0; i < detail::kMultiSourceCounts; ++i) counts[i] += local[i];
  }
}

// Bit i of the pass's first frontier (and seen words) at src[i]; level 0 there.
void host_start(const MultiSourceLevel& s, const Index* src, int k) {
  for (int i = 0; i < k; ++i) {
    const_cast<u64*>(s.frontier)[src[i]] |= u64(1) << i;
    s.seen[src[i]] |= u64(1) << i;
    if (s.level) s.level[Index(i) * s.n + src[i]] = 0;
  }
}

}  // namespace

template <class T>
MultiSourceBfsResult bfs_multi_source(const Matrix<T>& A, const std::vector<Index>& sources,
                                      const MultiSourceBfsOptions& o) {
  for (Index s : sources) detail::check_bfs_arguments(A, s);
  if (o.long_in_row < 0)
    throw Error(Status::InvalidValue, "long_in_row " + std::to_string(o.long_in_row) + " is negative (0: the default)");
  if (sources.empty()) detail::check_bfs_arguments(A, 0);
  MultiSourceBfsResult r;
  r.sources = sources;
  r.n = A.nrows();
  r.backend = resolve_device(o.device);
  const Backend b = r.backend;
  const Index n = r.n;
  const std::size_t k_all = sources.size();
  r.level_sizes.assign(k_all, {});
  r.vertices_reached.assign(k_all, 0);
  if (o.keep_levels) r.level.assign(k_all * std::size_t(n), -1);
  if (k_all == 0) return r;
  const double alpha = o.alpha > 0 ? o.alpha : 15.0;
  const Offset long_in_row = o.long_in_row > 0 ? Offset(o.long_in_row) : kDefaultLongInRow;

  // The graph's rows (push) and the rows a pull searches (A' unless A is symmetric) on the backend.
  const detail::CsrView<bool> out = detail::value_free(detail::view(A.csr(b)));
  const detail::CsrView<bool> in =
      detail::value_free(detail::view(A.is_symmetric_structure() ? A.csr(b) : A.transpose().csr(b)));
  const Offset nnz = A.nvals();
  const std::vector<Index>& degree = A.out_degrees();

  Array<u64> frontier(std::size_t(n), b), next(std::size_t(n), b), seen(std::size_t(n), b);
  Array<Vid> long_rows;  // the GPU pull's rows for a warp each (multi_source_level.hpp)
  if (b == Backend::Cuda) {
    std::vector<Vid> rows;
    const std::vector<Index>& in_degree = A.in_degrees();
    for (Index v = 0; v < n; ++v)
      if (in_degree[std::size_t(v)] > long_in_row) rows.push_back(Vid(v));
    long_rows = Array<Vid>(rows, b);
  }
  const std::size_t pass_k = std::min<std::size_t>(k_all, kSourcesPerPass);
  Array<std::int32_t> level(o.keep_levels ? pass_k * std::size_t(n) : 0, b);
  detail::synchronize(b);
  double seconds = 0;  // the passes' searches, not the copies of their levels to the host
  for (std::size_t first = 0; first < k_all; first += kSourcesPerPass, ++r.passes) {
    const auto t0 = std::chrono::steady_clock::now();
    const int k = int(std::min<std::size_t>(kSourcesPerPass, k_all - first));
    const Index* src = sources.data() + first;
    MultiSourceLevel s;
    s.n = n;
    s.full = k == 64 ? ~u64(0) : (u64(1) << k) - 1;
    s.level = o.keep_levels ? level.data() : nullptr;
    s.frontier = frontier.data();
    s.seen = seen.data();
    s.long_in_row = long_in_row;
    s.long_rows = long_rows.data();
    s.long_count = Index(long_rows.size());
    // The pass's first frontier: bit i at its source (several bits where sources repeat).
    detail::fill_bytes(frontier.data(), b, 0, frontier.bytes());
    detail::fill_bytes(seen.data(), b, 0, seen.bytes());
    if (o.keep_levels)
      detail::fill_bytes(level.data(), b, 0xff, std::size_t(k) * std::size_t(n) * sizeof(std::int32_t));
#if GBCUDA_HAVE_CUDA
    if (b == Backend::Cuda) detail::cuda::multi_source_start(s, src, k);
    else host_start(s, src, k);
#else
    host_start(s, src, k);
#endif
    Index frontier_edges = 0;
    for (int i = 0; i < k; ++i)
      if (std::find(src, src + i, src[i]) == src + i) frontier_edges += degree[std::size_t(src[i])];
    for (int i = 0; i < k; ++i) {
      r.level_sizes[first + std::size_t(i)].push_back(1);
      r.edges_traversed += degree[std::size_t(sources[first + std::size_t(i)])];
    }
    for (int lvl = 1;; ++lvl) {
      s.frontier = frontier.data();
      s.next = next.data();
      s.seen = seen.data();
      s.lvl = lvl;
      const bool push = double(frontier_edges) < double(nnz) / alpha;
      if (push) detail::fill_bytes(next.data(), b, 0, next.bytes());
      u64 counts[detail::kMultiSourceCounts];
#if GBCUDA_HAVE_CUDA
      if (b == Backend::Cuda) detail::cuda::multi_source_level(out, in, s, push, counts);
      else host_level(out, in, s, push, counts);
#else
      host_level(out, in, s, push, counts);
#endif
      if (counts[64] == 0) break;
      for (int i = 0; i < k; ++i)
        if (counts[i] != 0) {
          auto& sizes = r.level_sizes[first + std::size_t(i)];
          sizes.resize(std::size_t(lvl) + 1, 0);
          sizes[std::size_t(lvl)] = Index(counts[i]);
        }
      frontier_edges = Index(counts[65]);
      r.edges_traversed += Index(counts[66]);
      std::swap(frontier, next);
    }
    detail::synchronize(b);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (o.keep_levels)
      detail::copy_bytes(r.level.data() + first * std::size_t(n), Backend::Host, level.data(), b,
                         std::size_t(k) * std::size_t(n) * sizeof(std::int32_t));
  }
  r.seconds = seconds;
  for (std::size_t i = 0; i < k_all; ++i) {
    for (Index c : r.level_sizes[i]) r.vertices_reached[i] += c;
    r.num_levels = std::max(r.num_levels, int(r.level_sizes[i].size()));
  }
  return r;
}

#define GBCUDA_INSTANTIATE_MULTI_SOURCE(T)                                                       \
  template MultiSourceBfsResult bfs_multi_source<T>(const Matrix<T>&, const std::vector<Index>&, \
                                                    const MultiSourceBfsOptions&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_MULTI_SOURCE)
#undef GBCUDA_INSTANTIATE_MULTI_SOURCE

}  // namespace gbcuda
