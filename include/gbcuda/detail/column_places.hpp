#pragma once
// Where each column of A goes in C = A(I, J) (GrB_Matrix_extract), shared by the host and the
// GPU extract: J read as a CSR by column, so that column j's places are to[at[j] .. at[j + 1]),
// the positions s with J[s] = j in ascending order.
#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

struct ColumnPlaces {
  std::vector<Offset> at;  // ncols + 1
  std::vector<Vid> to;     // |J|
  bool ascending = true;   // J ascending: each extracted row is in order as written
};

// J's indices in [0, ncols), checked by the caller.
inline ColumnPlaces column_places(std::span<const Index> J, Index ncols) {
  ColumnPlaces c;
  c.at.assign(static_cast<std::size_t>(ncols) + 1, 0);
  for (Index j : J) ++c.at[std::size_t(j) + 1];
  for (std::size_t j = 0; j + 1 < c.at.size(); ++j) c.at[j + 1] += c.at[j];
  c.to.resize(J.size());
  std::vector<Offset> next(c.at.begin(), c.at.end() - 1);
  for (std::size_t s = 0; s < J.size(); ++s) c.to[std::size_t(next[std::size_t(J[s])]++)] = Vid(s);
  c.ascending = std::is_sorted(J.begin(), J.end());
  return c;
}

}  // namespace gbcuda::detail
