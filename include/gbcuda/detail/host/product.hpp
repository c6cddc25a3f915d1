#pragma once
// The host backend's product: gather (pull, one output per row of op(A)) and scatter (push, from
// the input's entries along the rows of op(A)'), any semiring. Output forms: gather Bitmap (Sparse
// when the mask lists its allowed positions); scatter Sparse (jumbled) below 1/32 density, else
// Bitmap.
#include "gbcuda/detail/host/util.hpp"

namespace gbcuda::detail::host {

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

}  // namespace gbcuda::detail::host
