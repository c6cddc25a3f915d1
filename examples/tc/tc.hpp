#pragma once
// Triangle counting written with gbcuda's public calls only (the Sandia "L.L'" method): with L the
// strictly lower triangle of A, every triangle k < j < i is one common neighbour k of i and j, so
//
//   L = tril(A, -1)                           select
//   C<L, structural> = L * L'                 mxm over PLUS_PAIR: C(i,j) = |N_L(i) and N_L(j)|
//   triangles = sum(C)                        reduce
//
// A must be symmetric with no self loops mattering (the diagonal is dropped by tril(-1)).
#include <cstdint>

#include <gbcuda/gbcuda.hpp>

namespace example {

template <class T>
std::int64_t triangle_count(const gbcuda::Matrix<T>& A, gbcuda::Backend where) {
  using namespace gbcuda;
  Matrix<T> L;
  select(L, no_mask, no_accum, Tril{}, A, -1.0, where);
  Matrix<std::int64_t> C;
  mxm(C, L, no_accum, PlusPair<std::int64_t>{}, L, L, desc::ST1, where);
  return reduce(PlusMonoid<std::int64_t>{}, C, where);
}

}  // namespace example
