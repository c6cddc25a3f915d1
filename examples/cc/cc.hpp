#pragma once
// Connected components two ways, each labelling a component with its smallest vertex id:
//  - connected_components: the library's call (gbcuda/components.hpp: Afforest's union-find on
//    either backend), what a program should use;
//  - connected_components_by_propagation: the same answer in GraphBLAS algebra, with gbcuda's
//    public calls only: every vertex starts with its own id as its label and takes the smallest
//    label among itself and its neighbours, one min-first product a round, until no label
//    changes. Rounds: about the largest component's diameter.
//
//   f = [0, 1, ..., n-1]
//   repeat:  t = f;  t' min= f' * A   over MIN_FIRST (A's values are not read)
//            changed = select(f - t > 0) (labels only shrink)
//            f = t
//   while changed has entries         (a gbcuda::device_loop: on the GPU one CUDA graph)
// A must be symmetric (an undirected graph: use A.symmetrized() otherwise).
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

struct CcOutput {
  std::vector<std::int64_t> component;  // component[v]: the smallest vertex id of v's component
  gbcuda::Index count = 0;              // components (isolated vertices count, one each)
  int rounds = 0;                       // products run, the last one changing nothing (1: the library call)
  gbcuda::LoopResult loop;              // by propagation: how the rounds ran
};

template <class T>
CcOutput connected_components(const gbcuda::Matrix<T>& A, gbcuda::Backend where) {
  CcOutput out;
  out.component = gbcuda::connected_components(A, where).to_dense_vector(-1);
  for (gbcuda::Index v = 0; v < A.nrows(); ++v) out.count += out.component[std::size_t(v)] == v;
  out.rounds = 1;
  return out;
}

template <class T>
CcOutput connected_components_by_propagation(const gbcuda::Matrix<T>& A, gbcuda::Backend where) {
  using namespace gbcuda;
  const Index n = A.nrows();
  std::vector<Index> ids(static_cast<std::size_t>(n));
  std::iota(ids.begin(), ids.end(), Index(0));
  std::vector<std::int64_t> labels(ids.begin(), ids.end());
  Vector<std::int64_t> f = Vector<std::int64_t>::from_tuples(n, ids, labels, where);
  CcOutput out;
  Vector<std::int64_t> t(n, where), shrink(n, where), changed(n, where);
  const LoopResult run = device_loop(
      [&] {
        t = f;
        vxm(t, no_mask, Min<std::int64_t>{}, MinFirst<std::int64_t>{}, f, A);
        ewise_mult(shrink, no_mask, no_accum, Minus<std::int64_t>{}, f, t);
        select(changed, no_mask, no_accum, ValueGt{}, shrink, 0);
        std::swap(f, t);
      },
      changed);
  out.rounds = int(run.iterations);
  out.loop = run;
  out.component = f.to_dense_vector(-1);
  for (Index v = 0; v < n; ++v) out.count += out.component[std::size_t(v)] == v;
  return out;
}

}  // namespace example
