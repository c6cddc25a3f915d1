#pragma once
// Scalar<T>: a GraphBLAS scalar (GrB_Scalar), one value of type T or none. Operations take it
// where GraphBLAS takes a GrB_Scalar: reduce into it (an empty input leaves it empty, or
// unchanged under an accumulator), assign it (an empty scalar deletes what it is assigned to),
// a select's thunk, set_element (an empty scalar removes the entry). Held in host memory; a
// reduce on the GPU waits for its one value.
#include <optional>
#include <type_traits>

#include "gbcuda/types.hpp"

namespace gbcuda {

template <class T>
class Scalar {
  static_assert(detail::is_value_type_v<T>, "gbcuda::Scalar<T>: T must be one of " GBCUDA_VALUE_TYPE_NAMES);

 public:
  using value_type = T;
  Scalar() = default;  // no value (GrB_Scalar_new)
  explicit Scalar(T x) : value_(x) {}
  // A.element(i, j) or u.element(i) as a scalar: empty where no entry is stored
  // (GrB_Matrix_extractElement_Scalar).
  explicit Scalar(std::optional<T> x) : value_(x) {}

  Index nvals() const noexcept { return value_ ? 1 : 0; }  // GrB_Scalar_nvals
  bool empty() const noexcept { return !value_; }
  std::optional<T> value() const noexcept { return value_; }  // GrB_Scalar_extractElement
  T value_or(T fallback) const noexcept { return value_.value_or(fallback); }
  void set(T x) noexcept { value_ = x; }     // GrB_Scalar_setElement
  void clear() noexcept { value_.reset(); }  // GrB_Scalar_clear
  bool operator==(const Scalar&) const = default;

 private:
  std::optional<T> value_;
};

}  // namespace gbcuda
