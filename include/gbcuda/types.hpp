#pragma once
// Basic vocabulary shared by every layer: index types, backends, and the error type.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

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

// Where data lives and operations run.
enum class Backend { Host, Cuda };
// What the user asks for; Auto picks Cuda when a GPU is present.
enum class Device { Auto, Host, Cuda };

const char* to_string(Backend b);

// GrB_Info-style status codes carried by gbcuda::Error.
enum class Status {
  InvalidValue,    // bad argument (negative size, unknown option, ...)
  InvalidIndex,    // index out of range
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
    return status_ == Status::InvalidValue || status_ == Status::InvalidIndex ||
           status_ == Status::DimensionMismatch || status_ == Status::ParseError ||
           status_ == Status::IoError || status_ == Status::NoDevice;
  }

 private:
  Status status_;
};

}  // namespace gbcuda
