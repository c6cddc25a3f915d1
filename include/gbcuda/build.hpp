#pragma once
// Building a matrix or vector from coordinates with a duplicate operator of the caller's
// (GrB_Matrix_build / GrB_Vector_build with a user-defined BinaryOp): any callable T(T, T).
// Entries at the same coordinate are combined in input order, dup(dup(first, second), third),
// as GraphBLAS does; the built-in policies (DuplicatePolicy: Sum, Min, Max, ...) are the
// from_coo / from_tuples overloads. The build runs on the host (a stable sort of the
// coordinates, then the groups folded), the result then moved to `where`.
#include <algorithm>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gbcuda/matrix.hpp"
#include "gbcuda/types.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {

namespace detail {

// Sorts the positions 0..n-1 by key(p), input order kept among equal keys; for each group of
// equal keys, ascending: its first position into `firsts`, dup folded over its values in input
// order into `folded`.
template <class T, class Key, class Dup>
void fold_duplicates(std::size_t n, const Key& key, std::span<const T> values, const Dup& dup,
                     std::vector<std::size_t>& firsts, std::vector<T>& folded) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  firsts.clear();
  folded.clear();
  for (std::size_t q = 0; q < n; ++q) {
    const std::size_t p = order[q];
    if (q > 0 && key(order[q - 1]) == key(p)) {
      folded.back() = static_cast<T>(dup(folded.back(), values[p]));
    } else {
      firsts.push_back(p);
      folded.push_back(values[p]);
    }
  }
}

}  // namespace detail

// A (nrows x ncols) from (rows[p], cols[p], values[p]); duplicates combined by `dup`. Lengths
// that differ are Error(InvalidValue), a coordinate outside the matrix Error(InvalidIndex);
// whatever `dup` throws leaves the call.
template <class T, class Dup>
requires(std::is_invocable_r_v<T, const Dup&, T, T>) Matrix<T> build_matrix(Index nrows, Index ncols,
                                                                            std::span<const Index> rows,
                                                                            std::span<const Index> cols,
                                                                            std::span<const T> values, const Dup& dup,
                                                                            Backend where = Backend::Host) {
  if (rows.size() != cols.size() || values.size() != rows.size())
    throw Error(Status::InvalidValue, "build_matrix: " + std::to_string(rows.size()) + " rows, " +
                                          std::to_string(cols.size()) + " columns and " +
                                          std::to_string(values.size()) + " values differ in length");
  for (std::size_t p = 0; p < rows.size(); ++p)
    if (rows[p] < 0 || rows[p] >= nrows || cols[p] < 0 || cols[p] >= ncols)
      throw Error(Status::InvalidIndex, "build_matrix: entry " + std::to_string(p) + " (" + std::to_string(rows[p]) +
                                            ", " + std::to_string(cols[p]) + ") is outside a " + std::to_string(nrows) +
                                            " x " + std::to_string(ncols) + " matrix");
  std::vector<std::size_t> firsts;
  std::vector<T> folded;
  detail::fold_duplicates<T>(
      rows.size(), [&](std::size_t p) { return std::pair(rows[p], cols[p]); }, values, dup, firsts, folded);
  std::vector<Index> r(firsts.size()), c(firsts.size());
  const std::unique_ptr<T[]> v(new T[std::max<std::size_t>(firsts.size(), 1)]);  // std::vector<bool> has no data()
  for (std::size_t k = 0; k < firsts.size(); ++k) r[k] = rows[firsts[k]], c[k] = cols[firsts[k]], v[k] = folded[k];
  Matrix<T> A = Matrix<T>::from_coo(nrows, ncols, std::span<const Index>(r), std::span<const Index>(c),
                                    std::span<const T>(v.get(), firsts.size()), DuplicatePolicy::Error);
  if (where != Backend::Host) A.csr(where);
  return A;
}

// u (length n) from (indices[p], values[p]); duplicates combined by `dup`; errors as build_matrix.
template <class T, class Dup>
requires(std::is_invocable_r_v<T, const Dup&, T, T>) Vector<T> build_vector(Index n, std::span<const Index> indices,
                                                                            std::span<const T> values, const Dup& dup,
                                                                            Backend where = Backend::Host) {
  if (values.size() != indices.size())
    throw Error(Status::InvalidValue, "build_vector: " + std::to_string(indices.size()) + " indices and " +
                                          std::to_string(values.size()) + " values differ in length");
  for (std::size_t p = 0; p < indices.size(); ++p)
    if (indices[p] < 0 || indices[p] >= n)
      throw Error(Status::InvalidIndex, "build_vector: entry " + std::to_string(p) + " (index " +
                                            std::to_string(indices[p]) + ") is outside a vector of length " +
                                            std::to_string(n));
  std::vector<std::size_t> firsts;
  std::vector<T> folded;
  detail::fold_duplicates<T>(
      indices.size(), [&](std::size_t p) { return indices[p]; }, values, dup, firsts, folded);
  std::vector<Index> idx(firsts.size());
  for (std::size_t k = 0; k < firsts.size(); ++k) idx[k] = indices[firsts[k]];
  return Vector<T>::from_tuples(n, idx, folded, where, DuplicatePolicy::Error);
}

}  // namespace gbcuda
