// Device discovery, backend selection and the names of things.
#include "gbcuda/context.hpp"

#include <omp.h>

#include <string>

#include "gbcuda/io.hpp"
#include "gbcuda/vector.hpp"
#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>

#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {

const char* to_string(Backend b) { return b == Backend::Host ? "host" : "cuda"; }

const char* to_string(Status s) {
  switch (s) {
    case Status::InvalidValue: return "invalid value";
    case Status::InvalidIndex: return "invalid index";
    case Status::DimensionMismatch: return "dimension mismatch";
    case Status::ParseError: return "parse error";
    case Status::IoError: return "I/O error";
    case Status::OutOfMemory: return "out of memory";
    case Status::NoDevice: return "no device";
    case Status::CudaError: return "CUDA error";
    case Status::NotImplemented: return "not implemented";
  }
  return "unknown";
}

const char* to_string(VectorForm f) {
  switch (f) {
    case VectorForm::Sparse: return "sparse";
    case VectorForm::Bitmap: return "bitmap";
    case VectorForm::Dense: return "dense";
  }
  return "unknown";
}

bool cuda_available() {
#if GBCUDA_HAVE_CUDA
  static const bool available = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return count > 0;
  }();
  return available;
#else
  return false;
#endif
}

Backend resolve_device(Device d) {
  switch (d) {
    case Device::Host: return Backend::Host;
    case Device::Auto: return cuda_available() ? Backend::Cuda : Backend::Host;
    case Device::Cuda:
      if (!cuda_available()) {
#if GBCUDA_HAVE_CUDA
        throw Error(Status::NoDevice, "--device cuda asked for, but no CUDA GPU is visible");
#else
        throw Error(Status::NoDevice, "--device cuda asked for, but this build has no CUDA backend (GBCUDA_CUDA=OFF)");
#endif
      }
      return Backend::Cuda;
  }
  throw Error(Status::InvalidValue, "unknown device");
}

std::string backend_description(Backend b) {
  if (b == Backend::Host) return "host (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads)";
#if GBCUDA_HAVE_CUDA
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    return std::string(prop.name);
  cudaGetLastError();
#endif
  return "cuda (no device)";
}

DeviceMemoryInfo device_memory_info() {
  DeviceMemoryInfo info;
#if GBCUDA_HAVE_CUDA
  if (cuda_available() && cudaMemGetInfo(&info.free_bytes, &info.total_bytes) != cudaSuccess) {
    cudaGetLastError();
    info = {};
  }
  // What the library's pool holds unused is free to its allocations (they reuse it first).
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  std::uint64_t reserved = 0, used = 0, peak = 0;
  if (info.total_bytes > 0 && cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess) {
    if (reserved > used) info.free_bytes += static_cast<std::size_t>(reserved - used);
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &peak) == cudaSuccess)
      info.peak_used_bytes = static_cast<std::size_t>(peak);
  }
  cudaGetLastError();
#endif
  return info;
}

void wait_for_device() {
  if (cuda_available()) detail::synchronize(Backend::Cuda);
}

void reset_device_memory_peak() {
#if GBCUDA_HAVE_CUDA
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  std::uint64_t zero = 0;  // the only value the attribute takes: it restarts from the current use
  if (cuda_available() && cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
  cudaGetLastError();
#endif
}

detail::ProductPolicy product_policy(Backend b) {
#if GBCUDA_HAVE_CUDA
  if (b == Backend::Cuda) return detail::cuda::calibrated_product_policy();
#endif
  (void)b;
  return detail::ProductPolicy{};
}

std::string product_policy_source(Backend b) {
#if GBCUDA_HAVE_CUDA
  if (b == Backend::Cuda) return detail::cuda::calibrated_policy_source();
#endif
  (void)b;
  return "defaults (host backend)";
}

Device parse_device(const std::string& name) {
  if (name == "auto") return Device::Auto;
  if (name == "host") return Device::Host;
  if (name == "cuda") return Device::Cuda;
  throw Error(Status::InvalidValue, "unknown device '" + name + "' (expected auto, host or cuda)");
}

namespace detail {
[[noreturn]] void throw_out_of_memory_in(const char* op) {
  throw Error(Status::OutOfMemory, std::string(op) + ": host out of memory");
}

[[noreturn]] void throw_dimension_mismatch(const char* op, Index expected, Index got) {
  throw Error(Status::DimensionMismatch,
              std::string(op) + ": expected length " + std::to_string(expected) + ", got " + std::to_string(got));
}
}  // namespace detail

}  // namespace gbcuda
