#pragma once
// How a build combines a duplicate entry with the one before it (DuplicatePolicy, types.hpp):
// Matrix::from_coo / from_csr (matrix.cpp) and Vector::from_tuples (vector.cpp).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// a then b, in input order (DuplicatePolicy). NaN under Min/Max: GraphBLAS's rule, a NaN loses
// to a number (fmin/fmax).
template <class T>
T combine(DuplicatePolicy dup, T a, T b) {
  switch (dup) {
    case DuplicatePolicy::Last: return b;
    case DuplicatePolicy::First: return a;
    case DuplicatePolicy::Min:
      if constexpr (std::is_same_v<T, bool>) return a && b;
      else if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
      else return std::min(a, b);
    case DuplicatePolicy::Max:
      if constexpr (std::is_same_v<T, bool>) return a || b;
      else if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
      else return std::max(a, b);
    case DuplicatePolicy::Times:
      if constexpr (std::is_same_v<T, bool>) return a && b;
      else if constexpr (std::is_integral_v<T>) return T(wrapping_t<T>(a) * wrapping_t<T>(b));
      else return a * b;
    case DuplicatePolicy::Sum:
    case DuplicatePolicy::Error: break;
  }
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>) return T(wrapping_t<T>(a) + wrapping_t<T>(b));  // wraps
  else return a + b;
}

}  // namespace gbcuda::detail
