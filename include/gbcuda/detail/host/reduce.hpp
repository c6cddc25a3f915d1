#pragma once
// The host backend's reduce: the monoid's sum of a vector's entries.
#include "gbcuda/detail/host/util.hpp"

namespace gbcuda::detail::host {

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
