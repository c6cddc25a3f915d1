#pragma once
// The host backend's primitives (contract: detail/backend_ops.hpp). Header-only templates so
// that any operator, monoid or semiring works, user-defined ones included. Parallelised with
// OpenMP where the work is a loop over rows, indices or entries.
//
// Output forms chosen here:
//   gather        Bitmap (Sparse when the mask lists its allowed positions)
//   scatter       Sparse (jumbled) below 1/32 density, else Bitmap
//   apply         the input's form (Bitmap for a masked Dense input)
//   ewise         Sparse when both inputs are Sparse, or an intersection with one Sparse input;
//                 else Bitmap (Dense for two Dense inputs without a mask)
//   merge         Bitmap or Dense (or t itself on the fast path); the caller conforms w.
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

// ---- gather (pull): t(i) = ADD_k MUL over row i of `rows` where u(k) present -----------------
template <class S, class TA, class TU>
void gather(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& rows,
            const VecView<TU>& u, bool u_first) {
  using Z = typename S::value_type;
  const Index n = rows.nrows;
  util::reset(t, n);
  // One row's dot product; returns whether any term was present.
  auto row_dot = [&](Index i, Z& out) {
    bool found = false;
    Z acc{};
    for (Offset p = rows.row_ptr[i], e = rows.row_ptr[i + 1]; p < e; ++p) {
      const Index k = rows.col_idx[p];
      if (!u.present(k)) continue;
      const Z term = u_first ? s.multiply(u.value(k), rows.value(p), k) : s.multiply(rows.value(p), u.value(k), k);
      acc = found ? s.add(acc, term) : term;
      found = true;
      if constexpr (S::add_type::has_terminal) {
        if (s.add.is_terminal(acc)) break;
      }
    }
    if (found) out = acc;
    return found;
  };

  if (m.listed) {
    // Only the listed rows may be written: compute those, then keep the ones with a value.
    const Index L = m.list_size;
    Array<std::uint8_t> hit = util::host_array<std::uint8_t>(L);
    Array<Z> val = util::host_array<Z>(L);
    GBCUDA_HOST_OMP(omp parallel for schedule(dynamic, 64) if (L > 256))
    for (Index e = 0; e < L; ++e) hit[e] = row_dot(m.list[e], val[e]) ? 1 : 0;
    util::compact(
        L, [&](Index e) { return hit[e] != 0; },
        [&](Index count) {
          t.nvals = count;
          t.indices = util::host_array<Vid>(count);
          t.values = util::host_array<Z>(count);
        },
        [&](Index pos, Index e) {
          t.indices[pos] = m.list[e];
          t.values[pos] = val[e];
        });
    t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    return;
  }

  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(n);
  t.values = util::host_array<Z>(n);
  std::uint8_t* bm = t.bitmap.data();
  Z* vals = t.values.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(dynamic, 256) reduction(+ : count) if (n > 256))
  for (Index i = 0; i < n; ++i) {
    bm[i] = 0;
    if (!m.allows(i)) continue;
    if (row_dot(i, vals[i])) {
      bm[i] = 1;
      ++count;
    }
  }
  t.nvals = count;
}

// ---- scatter (push): for each entry k of u, t(j) = ADD(t(j), MUL) over row k of `cols` ------
// Which positions are claimed is kept in a byte map of n bytes that belongs to the calling
// thread and stays zeroed between calls (util::claim_map): a push that claims few positions
// clears only those again, so its cost follows the edges it walks, not n (a BFS level on a long
// path costs O(1), not O(n)). The result is Sparse (jumbled) below 1/32 density, else Bitmap.
namespace util {
inline Array<std::uint8_t>& claim_map_slot() {
  static thread_local Array<std::uint8_t> slot;
  return slot;
}
// The calling thread's zeroed byte map, at least n bytes (allocated and zeroed when too short).
inline std::uint8_t* claim_map(Index n) {
  Array<std::uint8_t>& slot = claim_map_slot();
  if (static_cast<Index>(slot.size()) < n) {
    slot = host_array<std::uint8_t>(std::max<Index>(n, 1));
    slot.fill_bytes_with(0);
  }
  return slot.data();
}
}  // namespace util

template <class S, class TA, class TU>
void scatter(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& cols,
             const VecView<TU>& u, bool u_first) {
  using Z = typename S::value_type;
  constexpr MonoidKind kind = S::add_type::kind;
  // ANY keeps whichever term claims t(j) first (its value is listed beside the claim); LOR over
  // bool keeps its value in the claim byte (bit 1: a true term). Both run in parallel without
  // a read-modify-write of values. Other monoids add into a length-n array, on one thread.
  constexpr bool any = kind == MonoidKind::Any;
  constexpr bool lor_bool = kind == MonoidKind::Lor && std::is_same_v<Z, bool>;
  const Index n = cols.ncols;
  util::reset(t, n);
  std::uint8_t* bm = util::claim_map(n);
  // The map must go back zeroed also when an allocation below fails half-way.
  struct ClaimMapReset {
    std::uint8_t* bm;
    Index n;
    bool armed = true;
    ~ClaimMapReset() {
      if (armed && n > 0) std::memset(bm, 0, static_cast<std::size_t>(n));
    }
  } reset_on_failure{bm, n};
  Array<Z> acc;  // other monoids: the sums, written only at claimed positions
  if constexpr (!any && !lor_bool) acc = util::host_array<Z>(n);
  auto term = [&](Index e, Index k, Offset p) -> Z {
    return u_first ? s.multiply(u.value(e), cols.value(p), k) : s.multiply(cols.value(p), u.value(e), k);
  };
  const int nthreads = (any || lor_bool) ? util::max_threads() : 1;
  std::vector<std::vector<Vid>> claimed(static_cast<std::size_t>(nthreads));
  std::vector<std::vector<Z>> claimed_value(any ? static_cast<std::size_t>(nthreads) : 0);
  if constexpr (any || lor_bool) {
    // Walks the row of u's e-th entry for thread `me`.
    auto visit = [&](Index e, std::size_t me) {
      const Index k = u.indices[e];
      for (Offset p = cols.row_ptr[k], pe = cols.row_ptr[k + 1]; p < pe; ++p) {
        const Index j = cols.col_idx[p];
        if (!m.allows(j)) continue;
        std::atomic_ref<std::uint8_t> claim(bm[j]);
        if constexpr (any) {
          if (claim.load(std::memory_order_relaxed) != 0) continue;
          if (claim.exchange(1, std::memory_order_relaxed) == 0) {
            claimed[me].push_back(static_cast<Vid>(j));
            claimed_value[me].push_back(term(e, k, p));
          }
        } else {
          const std::uint8_t bits = term(e, k, p) ? 3 : 1;
          const std::uint8_t old = claim.load(std::memory_order_relaxed);
          if ((old | bits) == old) continue;
          if (claim.fetch_or(bits, std::memory_order_relaxed) == 0) claimed[me].push_back(static_cast<Vid>(j));
        }
      }
    };
    // In parallel only when there is enough to walk (a narrow level runs on this thread).
    const bool parallel = u.nvals > 64 && util::sum_over(u.nvals, util::kParallelMin, [&](Index e) -> Index {
                                            const Index k = u.indices[e];
                                            return cols.row_ptr[k + 1] - cols.row_ptr[k];
                                          }) > util::kParallelMinEdges;
    if (parallel) {
      // An exception must not leave an OpenMP region: a thread whose list cannot grow notes it,
      // and the failure is thrown once the region has ended.
      std::atomic<bool> out_of_memory{false};
      GBCUDA_HOST_OMP(omp parallel) {
#if defined(_OPENMP)
        const auto me = static_cast<std::size_t>(omp_get_thread_num());
#else
        const std::size_t me = 0;
#endif
        GBCUDA_HOST_OMP(omp for schedule(dynamic, 64))
        for (Index e = 0; e < u.nvals; ++e) {
          if (out_of_memory.load(std::memory_order_relaxed)) continue;
          try {
            visit(e, me);
          } catch (...) {
            out_of_memory.store(true, std::memory_order_relaxed);
          }
        }
      }
      if (out_of_memory.load()) throw_out_of_memory_in("a push (scatter)");
    } else {
      for (Index e = 0; e < u.nvals; ++e) visit(e, 0);
    }
  } else {
    std::vector<Vid>& mine = claimed[0];
    Z* sums = acc.data();
    for (Index e = 0; e < u.nvals; ++e) {
      const Index k = u.indices[e];
      for (Offset p = cols.row_ptr[k], pe = cols.row_ptr[k + 1]; p < pe; ++p) {
        const Index j = cols.col_idx[p];
        if (!m.allows(j)) continue;
        const Z z = term(e, k, p);
        if (bm[j]) {
          sums[j] = s.add(sums[j], z);
        } else {
          bm[j] = 1;
          sums[j] = z;
          mine.push_back(static_cast<Vid>(j));
        }
      }
    }
  }
  // The value of the q-th claim of thread c (at position j).
  auto value_of = [&](std::size_t c, std::size_t q, Vid j) -> Z {
    if constexpr (any) return claimed_value[c][q];
    else if constexpr (lor_bool) return (bm[j] & 2) != 0;
    else return acc[j];
  };
  Index count = 0;
  for (const auto& c : claimed) count += static_cast<Index>(c.size());
  t.nvals = count;
  if (count * 32 < n) {  // sparse result: the claims in thread order (jumbled)
    t.indices = util::host_array<Vid>(count);
    t.values = util::host_array<Z>(count);
    Index pos = 0;
    for (std::size_t c = 0; c < claimed.size(); ++c)
      for (std::size_t q = 0; q < claimed[c].size(); ++q) {
        const Vid j = claimed[c][q];
        t.indices[pos] = j;
        t.values[pos] = value_of(c, q, j);
        ++pos;
      }
    for (const auto& c : claimed)
      for (Vid j : c) bm[j] = 0;  // the map goes back zeroed
    reset_on_failure.armed = false;
    t.jumbled = !util::strictly_sorted(t.indices.data(), count);
    return;
  }
  t.form = VectorForm::Bitmap;  // dense enough that O(n) is the result's own size
  t.bitmap = util::host_array<std::uint8_t>(n);
  t.values = util::host_array<Z>(n);
  std::uint8_t* tb = t.bitmap.data();
  GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) tb[i] = bm[i] != 0 ? 1 : 0;
  util::for_each_index(static_cast<Index>(claimed.size()), count > util::kParallelMin ? 0 : Index(claimed.size()),
                       [&](Index ci) {
                         const auto c = static_cast<std::size_t>(ci);
                         for (std::size_t q = 0; q < claimed[c].size(); ++q) {
                           const Vid j = claimed[c][q];
                           t.values[j] = value_of(c, q, j);
                         }
                       });
  if (n > 0) std::memset(bm, 0, static_cast<std::size_t>(n));
  reset_on_failure.armed = false;
}

// ---- merge: w<m> = accum(w, t) --------------------------------------------------------------
template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace) {
  constexpr bool has_accum = util::has_accum_v<Accum>;
  const Index n = w.n;
  if (!has_accum && (!m.present() || replace)) {
    // t holds entries only where the mask allows; everything else of w goes.
    w = std::move(t);
    w.n = n;
    w.where = Backend::Host;
    return;
  }
  // Positions where w(i) is deleted before t is laid over: outside the mask under replace, and
  // inside the mask without an accumulator (w(i) becomes t(i), present or not).
  const bool deletes = m.present() && (replace || !has_accum);
  if (w.form == VectorForm::Sparse || (deletes && w.form == VectorForm::Dense)) util::make_bitmap(w);
  const bool w_dense = w.form == VectorForm::Dense;
  std::uint8_t* wb = w.bitmap.data();
  T* wv = w.values.data();

  if (t.form == VectorForm::Sparse) {
    Index removed = 0, added = 0;
    if (deletes && !replace && m.listed) {
      // Without replace only allowed positions lose their entry, and the list names them all.
      for (Index p = 0; p < m.list_size; ++p) {
        const Index i = m.list[p];
        if (!w_dense && wb[i]) {
          wb[i] = 0;
          ++removed;
        }
      }
    } else if (deletes) {
      GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : removed) if (n > util::kParallelMin))
      for (Index i = 0; i < n; ++i) {
        const bool allowed = m.allows(i);
        if (wb[i] && ((!allowed && replace) || (allowed && !has_accum))) {
          wb[i] = 0;
          ++removed;
        }
      }
    }
    added = util::count_over(t.nvals, util::kParallelMin, [&](Index p) {
      const Index i = t.indices[p];
      if (w_dense || wb[i]) {
        if constexpr (has_accum) wv[i] = util::accumulate(accum, wv[i], t.values[p]);
        else wv[i] = t.values[p];
        return false;
      }
      wb[i] = 1;
      wv[i] = t.values[p];
      return true;
    });
    w.nvals += added - removed;
    return;
  }

  const std::uint8_t* tb = t.form == VectorForm::Bitmap ? t.bitmap.data() : nullptr;
  const T* tv = t.values.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    bool wp = w_dense || wb[i];
    const bool tp = tb == nullptr || tb[i];
    if (m.allows(i)) {
      if (tp) {
        if constexpr (has_accum) wv[i] = wp ? util::accumulate(accum, wv[i], tv[i]) : tv[i];
        else wv[i] = tv[i];
        wp = true;
      } else if (!has_accum) {
        wp = false;
      }
    } else if (replace) {
      wp = false;
    }
    if (!w_dense) wb[i] = wp ? 1 : 0;
    count += wp ? 1 : 0;
  }
  w.nvals = count;
}

// ---- merge_scalar: w<m> = accum(w, s) at every position --------------------------------------
template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& accum, T s, bool replace) {
  constexpr bool has_accum = util::has_accum_v<Accum>;
  const Index n = w.n;
  auto combine = [&](const T& old) -> T {
    if constexpr (has_accum) return util::accumulate(accum, old, s);
    else {
      (void)old;
      return s;
    }
  };

  if (m.listed) {
    // Sparse structural mask: touch only the listed positions (and, under replace, drop the rest).
    const Index L = m.list_size;
    if (w.form == VectorForm::Sparse) {
      // Walk w and the list in index order together; the result is sorted.
      const std::vector<Index> wo = util::sorted_order(w.indices.data(), w.nvals);
      const std::vector<Index> lo = util::sorted_order(m.list, L);
      std::vector<Vid> oi;
      std::vector<T> ov;
      oi.reserve(static_cast<std::size_t>(w.nvals + L));
      ov.reserve(static_cast<std::size_t>(w.nvals + L));
      std::size_t a = 0, b = 0;
      while (a < wo.size() || b < lo.size()) {
        const Index iw = a < wo.size() ? w.indices[wo[a]] : n;
        const Index il = b < lo.size() ? m.list[lo[b]] : n;
        if (iw == il) {
          oi.push_back(static_cast<Vid>(iw));
          ov.push_back(combine(w.values[wo[a]]));
          ++a, ++b;
        } else if (il < iw) {
          oi.push_back(static_cast<Vid>(il));
          ov.push_back(s);
          ++b;
        } else {
          if (!replace) {
            oi.push_back(static_cast<Vid>(iw));
            ov.push_back(w.values[wo[a]]);
          }
          ++a;
        }
      }
      Array<Vid> idx = util::to_array(oi);  // everything allocated before w changes
      Array<T> vals = util::to_array(ov);
      util::reset(w, n);
      w.nvals = static_cast<Index>(oi.size());
      w.indices = std::move(idx);
      w.values = std::move(vals);
      return;
    }
    const bool w_dense = w.form == VectorForm::Dense;
    if (replace) {
      // The result is exactly the listed positions.
      const std::vector<Index> lo = util::sorted_order(m.list, L);
      Array<Vid> idx = util::host_array<Vid>(L);
      Array<T> vals = util::host_array<T>(L);
      util::for_each_index(L, util::kParallelMin, [&](Index e) {
        const Index i = m.list[lo[static_cast<std::size_t>(e)]];
        idx[e] = static_cast<Vid>(i);
        vals[e] = (w_dense || w.bitmap[i]) ? combine(w.values[i]) : s;
      });
      util::reset(w, n);
      w.nvals = L;
      w.indices = std::move(idx);
      w.values = std::move(vals);
      return;
    }
    w.nvals += util::count_over(L, util::kParallelMin, [&](Index e) {
      const Index i = m.list[e];
      if (w_dense || w.bitmap[i]) {
        w.values[i] = combine(w.values[i]);
        return false;
      }
      w.bitmap[i] = 1;
      w.values[i] = s;
      return true;
    });
    return;
  }

  if (!m.present()) {
    // Every position is written: the result is full.
    if (w.form == VectorForm::Sparse) util::make_bitmap(w);
    const bool w_dense = w.form == VectorForm::Dense;
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) w.values[i] = (w_dense || w.bitmap[i]) ? combine(w.values[i]) : s;
    w.bitmap.reset();
    w.form = VectorForm::Dense;
    w.nvals = n;
    return;
  }

  util::make_bitmap(w);
  std::uint8_t* wb = w.bitmap.data();
  T* wv = w.values.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    if (m.allows(i)) {
      wv[i] = wb[i] ? combine(wv[i]) : s;
      wb[i] = 1;
    } else if (replace) {
      wb[i] = 0;
    }
    count += wb[i] ? 1 : 0;
  }
  w.nvals = count;
}

// ---- apply: t(i) = op(u(i)), where keep(u(i), i) ------------------------------------------
// KeepAll: every entry stays (apply); select passes its predicate.
struct KeepAll {
  template <class X>
  constexpr bool operator()(const X&, Index) const {
    return true;
  }
};
template <class Op, class TU, class Keep = KeepAll>
void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const Keep& keep = {}) {
  using Z = typename Op::result_type;
  constexpr bool keeps_all = std::is_same_v<Keep, KeepAll>;
  const Index n = u.n;
  util::reset(t, n);
  if (u.form == VectorForm::Sparse) {
    util::compact(
        u.nvals, [&](Index p) { return m.allows(u.indices[p]) && keep(u.value(p), Index(u.indices[p])); },
        [&](Index count) {
          t.nvals = count;
          t.indices = util::host_array<Vid>(count);
          t.values = util::host_array<Z>(count);
        },
        [&](Index pos, Index p) {
          t.indices[pos] = u.indices[p];
          t.values[pos] = static_cast<Z>(op(u.value(p)));
        });
    t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    return;
  }
  if (m.listed) {
    // A sparse structural mask lists every position that may be written: visit only those.
    util::compact(
        m.list_size, [&](Index p) { return u.present(m.list[p]) && keep(u.value(m.list[p]), Index(m.list[p])); },
        [&](Index count) {
          t.nvals = count;
          t.indices = util::host_array<Vid>(count);
          t.values = util::host_array<Z>(count);
        },
        [&](Index pos, Index p) {
          const Index i = m.list[p];
          t.indices[pos] = static_cast<Vid>(i);
          t.values[pos] = static_cast<Z>(op(u.value(i)));
        });
    t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    return;
  }
  t.values = util::host_array<Z>(n);
  Z* tv = t.values.data();
  if (keeps_all && u.form == VectorForm::Dense && !m.present()) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) tv[i] = static_cast<Z>(op(u.value(i)));
    t.form = VectorForm::Dense;
    t.nvals = n;
    return;
  }
  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(n);
  std::uint8_t* tb = t.bitmap.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    const bool stays = u.present(i) && m.allows(i) && keep(u.value(i), i);
    tb[i] = stays ? 1 : 0;
    if (stays) {
      tv[i] = static_cast<Z>(op(u.value(i)));
      ++count;
    }
  }
  t.nvals = count;
}

// ---- assign with an index list: t(idx[k]) = accum(t(idx[k]), u(k)) -------------------------
// t is w's copy; u is Bitmap or Dense, of length count; idx has no duplicates. With no
// accumulator an absent u(k) deletes t(idx[k]).
template <class T, class Accum>
void assign_indexed(VectorStore<T>& t, const Index* idx, Index count, const VecView<T>& u, const Accum& accum) {
  util::make_bitmap(t);
  std::uint8_t* tb = t.bitmap.data();
  T* tv = t.values.data();
  Index delta = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : delta) if (count > util::kParallelMin))
  for (Index k = 0; k < count; ++k) {
    const Index i = idx[k];
    const bool was = tb[i] != 0;
    if (u.present(k)) {
      if constexpr (util::has_accum_v<Accum>) tv[i] = was ? util::accumulate(accum, tv[i], u.value(k)) : u.value(k);
      else tv[i] = u.value(k);
      tb[i] = 1;
      delta += was ? 0 : 1;
    } else if (!util::has_accum_v<Accum> && was) {
      tb[i] = 0;
      --delta;
    }
  }
  t.nvals += delta;
}

// ---- ewise: t(i) = op(u(i), v(i)) on the intersection, or on the union ---------------------
template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union) {
  using Z = typename Op::result_type;
  const Index n = u.n;
  util::reset(t, n);
  const bool u_sparse = u.form == VectorForm::Sparse;
  const bool v_sparse = v.form == VectorForm::Sparse;

  if (u_sparse && v_sparse) {
    // Merge the two index lists in ascending order; the result is sorted.
    const std::vector<Index> uo = util::sorted_order(u.indices, u.nvals);
    const std::vector<Index> vo = util::sorted_order(v.indices, v.nvals);
    std::vector<Vid> oi;
    std::vector<Z> ov;
    const std::size_t cap = is_union ? uo.size() + vo.size() : std::min(uo.size(), vo.size());
    oi.reserve(cap);
    ov.reserve(cap);
    std::size_t a = 0, b = 0;
    while (a < uo.size() || b < vo.size()) {
      const Index iu = a < uo.size() ? u.indices[uo[a]] : n;
      const Index iv = b < vo.size() ? v.indices[vo[b]] : n;
      if (!is_union && (a == uo.size() || b == vo.size())) break;
      const Index i = std::min(iu, iv);
      const bool allowed = m.allows(i);
      if (iu == iv) {
        if (allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(op(u.value(uo[a]), v.value(vo[b]))));
        }
        ++a, ++b;
      } else if (iu < iv) {
        if (is_union && allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(u.value(uo[a])));
        }
        ++a;
      } else {
        if (is_union && allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(v.value(vo[b])));
        }
        ++b;
      }
    }
    t.nvals = static_cast<Index>(oi.size());
    t.indices = util::to_array(oi);
    t.values = util::to_array(ov);
    return;
  }

  if (!is_union && (u_sparse || v_sparse)) {
    // Intersection with one sparse side: filter its entries by the other's presence.
    auto filter = [&](const auto& sp, const auto& other, auto make) {
      util::compact(
          sp.nvals,
          [&](Index p) {
            const Index i = sp.indices[p];
            return other.present(i) && m.allows(i);
          },
          [&](Index count) {
            t.nvals = count;
            t.indices = util::host_array<Vid>(count);
            t.values = util::host_array<Z>(count);
          },
          [&](Index pos, Index p) {
            const Index i = sp.indices[p];
            t.indices[pos] = static_cast<Vid>(i);
            t.values[pos] = make(p, i);
          });
      t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    };
    if (u_sparse) filter(u, v, [&](Index p, Index i) { return static_cast<Z>(op(u.value(p), v.value(i))); });
    else filter(v, u, [&](Index p, Index i) { return static_cast<Z>(op(u.value(i), v.value(p))); });
    return;
  }

  // Bitmap output over all positions; a sparse side is spread into a bitmap first.
  Array<std::uint8_t> ub_hold, vb_hold;
  Array<TU> uv_hold;
  Array<TV> vv_hold;
  const VecView<TU> ub = u_sparse ? util::bitmap_of_sparse(u, ub_hold, uv_hold) : u;
  const VecView<TV> vb = v_sparse ? util::bitmap_of_sparse(v, vb_hold, vv_hold) : v;
  t.values = util::host_array<Z>(n);
  Z* tv = t.values.data();
  if (ub.form == VectorForm::Dense && vb.form == VectorForm::Dense && !m.present()) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) tv[i] = static_cast<Z>(op(ub.value(i), vb.value(i)));
    t.form = VectorForm::Dense;
    t.nvals = n;
    return;
  }
  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(n);
  std::uint8_t* tb = t.bitmap.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    tb[i] = 0;
    if (!m.allows(i)) continue;
    const bool up = ub.present(i), vp = vb.present(i);
    if (up && vp) tv[i] = static_cast<Z>(op(ub.value(i), vb.value(i)));
    else if (is_union && up) tv[i] = static_cast<Z>(ub.value(i));
    else if (is_union && vp) tv[i] = static_cast<Z>(vb.value(i));
    else continue;
    tb[i] = 1;
    ++count;
  }
  t.nvals = count;
}

// ---- reduce: the monoid's sum of u's entries ------------------------------------------------
template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u) {
  using Z = typename Monoid::value_type;
  const bool sparse = u.form == VectorForm::Sparse;
  const Index len = sparse ? u.nvals : u.n;
  // One partial sum per thread, combined in thread order (the same answer run to run for a
  // given thread count). A sum starts from its first term, not from the identity: ANY returns
  // either operand, so ANY(identity, x) may be the identity, and partials with no term are
  // skipped for the same reason.
  const int nthreads = len > util::kParallelMin ? util::max_threads() : 1;
  std::vector<Z> partial(static_cast<std::size_t>(nthreads), mon.identity());
  std::vector<std::uint8_t> has(static_cast<std::size_t>(nthreads), 0);
  GBCUDA_HOST_OMP(omp parallel num_threads(nthreads) if (nthreads > 1)) {
#if defined(_OPENMP)
    const int tid = omp_get_thread_num();
#else
    const int tid = 0;
#endif
    Z acc = mon.identity();
    bool any = false;
    GBCUDA_HOST_OMP(omp for schedule(static))
    for (Index p = 0; p < len; ++p) {
      if (!sparse && !u.present(p)) continue;
      const Z x = static_cast<Z>(u.value(p));
      acc = any ? mon(acc, x) : x;
      any = true;
    }
    partial[static_cast<std::size_t>(tid)] = acc;
    has[static_cast<std::size_t>(tid)] = any ? 1 : 0;
  }
  Z total = mon.identity();
  bool any = false;
  for (std::size_t k = 0; k < partial.size(); ++k)
    if (has[k]) {
      total = any ? mon(total, partial[k]) : partial[k];
      any = true;
    }
  return total;
}

}  // namespace gbcuda::detail::host
