#pragma once
// Printing a Matrix or a Vector (GxB_print's summary and first entries): its type, size, entry
// count and where it lives, then up to `max_entries` entries "(i, j) value" in row order, and
// "..." when there are more. `os << A` prints with 20 entries at most.
//
//   gbcuda::Matrix<double> 3 x 4, 5 entries, host memory
//     (0, 1) 2.5
//     ...
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "gbcuda/matrix.hpp"
#include "gbcuda/matrix_operations.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {

namespace detail {
template <class T>
void print_value(std::ostream& os, T x) {
  if constexpr (std::is_same_v<T, bool>) os << (x ? "true" : "false");
  else if constexpr (sizeof(T) == 1) os << int(x);  // int8_t / uint8_t as numbers, not characters
  else os << x;
}
}  // namespace detail

// The summary line and the first max_entries entries (0: the summary only).
template <class T>
std::ostream& print(std::ostream& os, const Matrix<T>& A, Index max_entries = 20) {
  const std::size_t gpu = A.device_bytes();
  os << "gbcuda::Matrix<" << detail::value_type_name<T>() << "> " << A.nrows() << " x " << A.ncols() << ", "
     << A.nvals() << (A.nvals() == 1 ? " entry" : " entries") << (A.is_iso() ? " (all one value)" : "") << ", "
     << (gpu > 0 ? "GPU memory" : "host memory") << '\n';
  if (max_entries <= 0 || A.nvals() == 0) return os;
  std::vector<Index> I, J;
  std::vector<T> X;
  extract_tuples(A, I, J, X);
  const std::size_t shown = std::min<std::size_t>(I.size(), std::size_t(max_entries));
  for (std::size_t k = 0; k < shown; ++k) {
    os << "  (" << I[k] << ", " << J[k] << ") ";
    detail::print_value(os, T(X[k]));
    os << '\n';
  }
  if (shown < I.size()) os << "  ...\n";
  return os;
}

template <class T>
std::ostream& print(std::ostream& os, const Vector<T>& u, Index max_entries = 20) {
  os << "gbcuda::Vector<" << detail::value_type_name<T>() << "> of length " << u.size() << ", " << u.nvals()
     << (u.nvals() == 1 ? " entry" : " entries") << ", " << (u.backend() == Backend::Cuda ? "GPU" : "host")
     << " memory\n";
  if (max_entries <= 0 || u.nvals() == 0) return os;
  std::vector<Index> I;
  std::vector<T> X;
  u.extract_tuples(I, X);
  const std::size_t shown = std::min<std::size_t>(I.size(), std::size_t(max_entries));
  for (std::size_t k = 0; k < shown; ++k) {
    os << "  (" << I[k] << ") ";
    detail::print_value(os, T(X[k]));
    os << '\n';
  }
  if (shown < I.size()) os << "  ...\n";
  return os;
}

// "gbcuda::Scalar<double> 2.5", or "gbcuda::Scalar<double> (no value)".
template <class T>
std::ostream& operator<<(std::ostream& os, const Scalar<T>& s) {
  os << "gbcuda::Scalar<" << detail::value_type_name<T>() << "> ";
  if (s.empty()) return os << "(no value)";
  detail::print_value(os, *s.value());
  return os;
}

template <class T>
std::ostream& operator<<(std::ostream& os, const Matrix<T>& A) {
  return print(os, A);
}
template <class T>
std::ostream& operator<<(std::ostream& os, const Vector<T>& u) {
  return print(os, u);
}

}  // namespace gbcuda
