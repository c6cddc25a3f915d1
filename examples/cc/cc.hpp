#pragma once
// Connected components by minimum-label propagation, written with gbcuda's public calls only:
// every vertex starts with its own id as its label and takes the smallest label among itself
// and its neighbours, one min-first product a round, until no label changes. Each component
// ends labelled with its smallest vertex id. A must be symmetric (an undirected graph: use
// A.symmetrized() otherwise). Rounds: about the largest component's diameter.
//
//   f = [0, 1, ..., n-1]
//   repeat:  t = f;  t' min= f' * A   over MIN_FIRST (A's values are not read)
//            stop when sum(f - t) == 0 (labels only shrink)
//            f = t
#include <cstdint>
#include <numeric>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

struct CcOutput {
  std::vector<std::int64_t> component;  // component[v]: the smallest vertex id of v's component
  gbcuda::Index count = 0;              // components (isolated vertices count, one each)
  int rounds = 0;                       // products run, the last one changing nothing
};

template <class T>
CcOutput connected_components(const gbcuda::Matrix<T>& A, gbcuda::Backend where) {
  using namespace gbcuda;
  const Index n = A.nrows();
  std::vector<Index> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), Index(0));
  std::vector<std::int64_t> labels(ids.begin(), ids.end());
  Vector<std::int64_t> f = Vector<std::int64_t>::from_tuples(n, ids, labels, where);
  CcOutput out;
  for (;;) {
    ++out.rounds;
    Vector<std::int64_t> t = f;
    vxm(t, no_mask, Min<std::int64_t>{}, MinFirst<std::int64_t>{}, f, A);
    Vector<std::int64_t> shrink(n, where);
    ewise_mult(shrink, no_mask, no_accum, Minus<std::int64_t>{}, f, t);
    if (reduce(PlusMonoid<std::int64_t>{}, shrink) == 0) break;
    f = std::move(t);
  }
  out.component = f.to_dense_vector(-1);
  for (Index v = 0; v < n; ++v) out.count += out.component[std::size_t(v)] == v;
  return out;
}

}  // namespace example
