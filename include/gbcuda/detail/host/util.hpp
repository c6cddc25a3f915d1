#pragma once
// The host backend's shared machinery: OpenMP loops with a serial cut-off, compaction, bitmap
// helpers, accumulation, and the mask as a bitmap. The primitives are in the headers beside this
// one (product, merge, elementwise, reduce); detail/host_ops.hpp includes them all.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "gbcuda/detail/backend_ops.hpp"

// OpenMP pragmas through a macro so that translation units compiled without OpenMP (e.g. CUDA
// sources including operations.hpp) see no unknown pragmas.
#if defined(_OPENMP)
#define GBCUDA_HOST_OMP(x) _Pragma(#x)
#else
#define GBCUDA_HOST_OMP(x)
#endif

namespace gbcuda::detail::host {

namespace util {

// Below this many iterations a loop runs on one thread: fork/join would cost more, and far more
// when the cores are shared (ctest -j, a loaded machine: every barrier then waits for a thread
// that is not running). A simple loop of this length takes ~10 us.
inline constexpr Index kParallelMin = Index(1) << 15;
// The same for loops whose iterations walk matrix rows: edges to walk.
inline constexpr Index kParallelMinEdges = Index(1) << 15;

inline int max_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}
inline int thread_num() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// One T for each OpenMP thread, the scratch of a parallel loop; mine() is the calling thread's.
template <class T>
struct PerThread {
  std::vector<T> all = std::vector<T>(static_cast<std::size_t>(max_threads()));
  T& mine() { return all[static_cast<std::size_t>(thread_num())]; }
};

// f(i) for i in [0, n) on OpenMP threads when n > parallel_min, else on this thread; sum_over
// returns the sum of f(i), count_over how many f(i) are true. The serial branch is spelt out: a region whose if()
// clause is false still sets up a team (about a microsecond, with futex traffic), which a BFS level that touches one
// vertex would pay several times over.
template <class F>
void for_each_index(Index n, Index parallel_min, const F& f) {
  if (n > parallel_min) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static))
    for (Index i = 0; i < n; ++i) f(i);
  } else {
    for (Index i = 0; i < n; ++i) f(i);
  }
}
template <class F>
Index sum_over(Index n, Index parallel_min, const F& f) {
  Index c = 0;
  if (n > parallel_min) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : c))
    for (Index i = 0; i < n; ++i) c += f(i);
  } else {
    for (Index i = 0; i < n; ++i) c += f(i);
  }
  return c;
}
template <class F>
Index count_over(Index n, Index parallel_min, const F& f) {
  return sum_over(n, parallel_min, [&](Index i) -> Index { return f(i) ? 1 : 0; });
}

template <class T>
Array<T> host_array(Index n) {
  return Array<T>(static_cast<std::size_t>(n), Backend::Host);
}

// Resets t to an empty store of length n on the host.
template <class T>
void reset(VectorStore<T>& t, Index n) {
  t = VectorStore<T>::empty(n, Backend::Host);
}

inline bool strictly_sorted(const Vid* idx, Index n) {
  for (Index p = 1; p < n; ++p)
    if (idx[p - 1] >= idx[p]) return false;
  return true;
}

// Positions 0..n-1 of a sparse index list in ascending index order (identity when sorted).
inline std::vector<Index> sorted_order(const Vid* idx, Index n) {
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index{0});
  if (!strictly_sorted(idx, n))
    std::sort(order.begin(), order.end(), [idx](Index a, Index b) { return idx[a] < idx[b]; });
  return order;
}

// Stream compaction over 0..n_in-1: keep(i) picks the survivors, alloc(count) is called once
// with their number, then write(out_pos, i) for each survivor, in input order. Blocks of the
// input are counted and written in parallel; keep() must be cheap (it is evaluated twice).
template <class Keep, class Alloc, class Write>
void compact(Index n_in, const Keep& keep, const Alloc& alloc, const Write& write) {
  const Index block = 4096;
  const Index nblocks = n_in == 0 ? 0 : (n_in + block - 1) / block;
  std::vector<Index> offs(static_cast<std::size_t>(nblocks) + 1, 0);
  GBCUDA_HOST_OMP(omp parallel for schedule(static) if (nblocks > 1))
  for (Index b = 0; b < nblocks; ++b) {
    Index c = 0;
    for (Index i = b * block, e = std::min(n_in, (b + 1) * block); i < e; ++i) c += keep(i) ? 1 : 0;
    offs[static_cast<std::size_t>(b) + 1] = c;
  }
  for (Index b = 0; b < nblocks; ++b) offs[static_cast<std::size_t>(b) + 1] += offs[static_cast<std::size_t>(b)];
  alloc(offs[static_cast<std::size_t>(nblocks)]);
  GBCUDA_HOST_OMP(omp parallel for schedule(static) if (nblocks > 1))
  for (Index b = 0; b < nblocks; ++b) {
    Index pos = offs[static_cast<std::size_t>(b)];
    for (Index i = b * block, e = std::min(n_in, (b + 1) * block); i < e; ++i)
      if (keep(i)) write(pos++, i);
  }
}

// A Bitmap copy of a Sparse view (arrays held by the caller). Value-free views stay value-free.
template <class T>
VecView<T> bitmap_of_sparse(const VecView<T>& u, Array<std::uint8_t>& bm, Array<T>& vals) {
  bm = host_array<std::uint8_t>(u.n);
  bm.fill_bytes_with(0);
  const bool with_values = u.values != nullptr;
  if (with_values) vals = host_array<T>(u.n);
  for_each_index(u.nvals, kParallelMin, [&](Index p) {
    const Index i = u.indices[p];
    bm[i] = 1;
    if (with_values) vals[i] = u.values[p];
  });
  VecView<T> b = u;
  b.form = VectorForm::Bitmap;
  b.indices = nullptr;
  b.bitmap = bm.data();
  b.values = with_values ? vals.data() : nullptr;
  return b;
}

// Puts a host store in Bitmap form (from Sparse or Dense).
template <class T>
void make_bitmap(VectorStore<T>& w) {
  if (w.form == VectorForm::Bitmap) return;
  Array<std::uint8_t> bm = host_array<std::uint8_t>(w.n);
  if (w.form == VectorForm::Dense) {
    bm.fill_bytes_with(1);
  } else {
    bm.fill_bytes_with(0);
    Array<T> vals = host_array<T>(w.n);
    for_each_index(w.nvals, kParallelMin, [&](Index p) {
      bm[w.indices[p]] = 1;
      vals[w.indices[p]] = w.values[p];
    });
    w.values = std::move(vals);
    w.indices.reset();
  }
  w.bitmap = std::move(bm);
  w.form = VectorForm::Bitmap;
  w.jumbled = false;
}

// An Array copy of a std::vector, element by element (std::vector<bool> has no data()).
template <class T>
Array<T> to_array(const std::vector<T>& v) {
  Array<T> a = host_array<T>(static_cast<Index>(v.size()));
  for (std::size_t p = 0; p < v.size(); ++p) a[p] = v[p];
  return a;
}

template <class Accum>
inline constexpr bool has_accum_v = !std::is_same_v<Accum, NoAccum>;

// accum(a, b) as T; only instantiated when there is an accumulator.
template <class T, class Accum>
T accumulate(const Accum& accum, const T& a, const T& b) {
  return static_cast<T>(accum(a, b));
}

}  // namespace util

// ---- mask_bitmap --------------------------------------------------------------------------
template <class M>
void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural) {
  const Index n = mask.n;
  if (mask.form == VectorForm::Sparse) {
    if (n > 0) std::memset(out, 0, static_cast<std::size_t>(n));
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (mask.nvals > util::kParallelMin))
    for (Index p = 0; p < mask.nvals; ++p) out[mask.indices[p]] = (structural || mask.value(p) != M(0)) ? 1 : 0;
    return;
  }
  GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) out[i] = (mask.present(i) && (structural || mask.value(i) != M(0))) ? 1 : 0;
}

}  // namespace gbcuda::detail::host
