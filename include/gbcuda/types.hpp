#pragma once
// Basic vocabulary shared by every layer: index types, backends, and the error type.
#include <cstdint>
#include <ranges>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gbcuda/config.hpp"

// Functions that run on both host and device (semiring operators) carry this marker.
#if defined(__CUDACC__)
#define GBCUDA_HD __host__ __device__
#else
#define GBCUDA_HD
#endif

namespace gbcuda {

using Index = std::int64_t;   // sizes, counts and vertex ids in the public API
using Offset = std::int64_t;  // CSR row offsets (more than 2^31 entries are allowed)
using Vid = std::int32_t;     // stored column indices (vertices < 2^31)

// A value converted to another type the way GraphBLAS typecasts (GB_cast): to bool, x != 0;
// from a floating type to an integer one, NaN gives 0 and values past the range saturate (a C
// cast would be undefined there); otherwise the C conversion.
template <class To, class From>
GBCUDA_HD constexpr To cast_to(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (std::is_same_v<To, bool>) return x != From(0);
  else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // The range written out: std::numeric_limits is not callable from device code.
    constexpr To lo = std::is_signed_v<To> ? To(To(1) << (sizeof(To) * 8 - 1)) : To(0);
    constexpr To hi = To(~lo);
    if (x != x) return To(0);
    if (x <= From(lo)) return lo;
    if (x >= From(hi)) return hi;
    return To(x);
  } else return To(x);
}

// The value types of vectors and matrices: the library is compiled for these (host and CUDA),
// and Vector<T> / Matrix<T> of any other T stops at compile time.
// GraphBLAS's built-in types, GrB_BOOL, GrB_INT8 ... GrB_UINT64, GrB_FP32, GrB_FP64 (no user-defined ones).
// clang-format off
#define GBCUDA_FOR_EACH_TYPE(X) \
  X(bool) X(std::int8_t) X(std::int16_t) X(std::int32_t) X(std::int64_t) \
  X(std::uint8_t) X(std::uint16_t) X(std::uint32_t) X(std::uint64_t) X(float) X(double)
// clang-format on
#define GBCUDA_VALUE_TYPE_NAMES                                                                               \
  "bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t, std::uint32_t, " \
  "std::uint64_t, float or double"
namespace detail {
template <class T>
inline constexpr bool is_value_type_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;
// The value type's name as C++ spells it ("int8_t", "uint64_t", "double").
template <class T>
constexpr const char* value_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64_t";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else return "double";
}
// The type integer arithmetic on T is done in so that it wraps (modulo 2^bits) and never
// overflows a signed type: unsigned, at least as wide as unsigned int (a narrower unsigned
// type would be promoted to int, whose overflow is undefined).
template <class T>
using wrapping_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
}  // namespace detail

// Where data lives and operations run.
// How duplicate entries are combined when building from coordinates: GraphBLAS's `dup`
// operator of GrB_Matrix_build. In input order, a then b:
//   Sum   a + b     (GrB_PLUS; for bool, logical or)     Last   b   (GrB_SECOND)
//   First a         (GrB_FIRST)                           Min    min(a, b) (GrB_MIN; bool: and)
//   Max   max(a, b) (GrB_MAX; bool: or)                   Times  a * b (GrB_TIMES; bool: and)
//   Error           a duplicate is Error(InvalidValue)
// A pattern matrix (no values) keeps one entry whatever the policy but Error. Vector::from_tuples
// takes the same policies (default Last).
enum class DuplicatePolicy { Sum, Last, Error, First, Min, Max, Times };

enum class Backend { Host, Cuda };
// What the user asks for; Auto picks Cuda when a GPU is present.
enum class Device { Auto, Host, Cuda };

const char* to_string(Backend b);

// GrB_Info-style status codes carried by gbcuda::Error.
enum class Status {
  InvalidValue,  // bad argument (negative size, unknown option, ...)
  InvalidIndex,  // index out of range
  DimensionMismatch,
  ParseError,      // malformed input file
  IoError,         // cannot open/read/write a file
  OutOfMemory,     // host or device allocation failed
  NoDevice,        // CUDA asked for but no usable GPU / not built with CUDA
  CudaError,       // a CUDA runtime / library call failed
  NotImplemented,  // a combination the library does not offer
};

const char* to_string(Status s);

// The one exception type gbcuda throws. what() is a complete, user-facing message.
class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  Status status() const noexcept { return status_; }
  // True for errors caused by the caller's input (files, options, indices): CLIs exit with 2.
  bool is_input_error() const noexcept {
    return status_ == Status::InvalidValue || status_ == Status::InvalidIndex || status_ == Status::DimensionMismatch ||
           status_ == Status::ParseError || status_ == Status::IoError || status_ == Status::NoDevice;
  }

 private:
  Status status_;
};

namespace detail {
// Throws Error(OutOfMemory) for a host allocation inside operation `op` that failed with
// std::bad_alloc: the public operations turn one into the other (their large allocations name the
// bytes themselves).
[[noreturn]] void throw_out_of_memory_in(const char* op);

// An index or size given in any integer type, as an Index. Values an Index cannot hold (unsigned
// ones past 2^63 - 1) throw Error(InvalidIndex) naming `what` and the value; the caller checks
// the range it needs.
template <class I>
Index to_index(I i, const char* what) {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>, "an index must be of an integer type");
  if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(Index)) {
    if (i > static_cast<I>(INT64_MAX))
      throw Error(Status::InvalidIndex,
                  std::string(what) + " " + std::to_string(i) + " is past the largest index 2^63-1");
  }
  return static_cast<Index>(i);
}
}  // namespace detail

// A range of indices of any integer type: std::vector<int>, std::vector<std::uint64_t> (GraphBLAS's
// GrB_Index), std::span<const std::int64_t>, ...
template <class R>
concept IndexRange = std::ranges::sized_range<R> && std::ranges::forward_range<R> &&
    std::is_integral_v<std::ranges::range_value_t<R>> && !std::is_same_v<std::ranges::range_value_t<R>, bool>;

namespace detail {
// The elements of an IndexRange as Index values (each through to_index).
template <IndexRange R>
std::vector<Index> to_indices(const R& r, const char* what) {
  std::vector<Index> out;
  out.reserve(std::ranges::size(r));
  for (const auto& i : r) out.push_back(to_index(i, what));
  return out;
}
}  // namespace detail

}  // namespace gbcuda
