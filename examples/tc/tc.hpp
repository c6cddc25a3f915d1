#pragma once
// Triangle counting written with gbcuda's public calls only (the Sandia "L.L'" method): with L the
// strictly lower triangle of A, every triangle k < j < i is one common neighbour k of i and j, so
//
//   L = tril(A, -1)                           select
//   C<L, structural> = L * L'                 mxm over PLUS_PAIR: C(i,j) = |N_L(i) and N_L(j)|
//   triangles = sum(C)                        reduce
//
// On a skewed graph the vertices are first relabelled by degree, highest first (LAGraph's and
// GAP's presort): row i of L then holds only neighbours of higher degree, so no row is longer
// than about sqrt(2 x entries) and each product C(i,j) intersects two short lists. The presort
// is taken, as in GAP's benchmark, when the mean degree is over 1.3 x the median; on the GPU the
// ordering and the relabelling run there.
//
// A must be symmetric with no self loops mattering (the diagonal is dropped by tril(-1)).
#include <algorithm>
#include <cstdint>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

// True when A's degrees are skewed enough for the presort to pay: the mean degree over 1.3 x the
// median of up to 1000 evenly spaced vertices (GAP's test, on a sample as GAP takes it).
template <class T>
bool worth_relabelling(const gbcuda::Matrix<T>& A) {
  const std::vector<gbcuda::Index>& degree = A.out_degrees();
  const std::size_t n = degree.size();
  if (n < 2) return false;
  std::vector<gbcuda::Index> sample;
  const std::size_t step = std::max<std::size_t>(1, n / 1000);
  for (std::size_t v = 0; v < n; v += step) sample.push_back(degree[v]);
  auto mid = sample.begin() + std::ptrdiff_t(sample.size() / 2);
  std::nth_element(sample.begin(), mid, sample.end());
  return double(A.nvals()) / double(n) > 1.3 * double(*mid);
}

template <class T>
std::int64_t triangle_count(const gbcuda::Matrix<T>& A, gbcuda::Backend where) {
  using namespace gbcuda;
  const Matrix<T> B = worth_relabelling(A) ? relabel(A, Ordering::Degree, where).matrix : A;  // A: shared, not copied
  Matrix<T> L;
  select(L, no_mask, no_accum, Tril{}, B, -1.0, where);
  Matrix<std::int64_t> C;
  mxm(C, L, no_accum, PlusPair<std::int64_t>{}, L, L, desc::ST1, where);
  return reduce(PlusMonoid<std::int64_t>{}, C, where);
}

}  // namespace example
