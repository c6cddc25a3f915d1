// Raw host and device memory: allocation, copies and fills (detail/array.hpp).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "gbcuda/config.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/detail/array.hpp"
#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gbcuda::detail {
namespace {

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

#if GBCUDA_HAVE_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(Status::CudaError, std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

#if !GBCUDA_HAVE_CUDA
[[noreturn]] void no_cuda() {
  throw Error(Status::NoDevice, "this copy of gbcuda was built without the CUDA backend (GBCUDA_CUDA=OFF)");
}
#endif

}  // namespace

void* allocate_bytes(std::size_t bytes, Backend where) {
  if (bytes == 0) return nullptr;
  if (where == Backend::Host) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw Error(Status::OutOfMemory, "host out of memory: could not allocate " + mib(bytes));
    return p;
  }
#if GBCUDA_HAVE_CUDA
  // Stream-ordered allocations from the device's pool: freeing does not synchronise, and freed
  // blocks are kept for reuse (a BFS level allocates a few small temporaries). Up to 1 GiB of
  // freed memory stays cached; beyond that the pool hands it back at the next synchronisation,
  // so a one-off large temporary (a transpose's sort buffers) does not stay reserved.
  static const bool pool_ready = [] {
    cudaMemPool_t pool;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
      std::uint64_t keep = std::uint64_t(1) << 30;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
    return true;
  }();
  (void)pool_ready;
  void* p = nullptr;
  cudaError_t e = cudaMallocAsync(&p, bytes, 0);
  if (e == cudaErrorMemoryAllocation) {  // give cached blocks back to the driver, then try once more
    cudaGetLastError();
    cudaDeviceSynchronize();
    cudaMemPool_t pool;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
      cudaMemPoolTrimTo(pool, 0);
    e = cudaMallocAsync(&p, bytes, 0);
  }
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error so later calls work
    DeviceMemoryInfo info = device_memory_info();
    throw Error(Status::OutOfMemory, "GPU out of memory: this step needs " + mib(bytes) + " more, " +
                                         mib(info.free_bytes) + " free of " + mib(info.total_bytes));
  }
  check(e, "cudaMallocAsync");
  return p;
#else
  no_cuda();
#endif
}

void free_bytes(void* p, Backend where) noexcept {
  if (!p) return;
  if (where == Backend::Host) {
    std::free(p);
    return;
  }
#if GBCUDA_HAVE_CUDA
  cudaFreeAsync(p, 0);
#endif
}

void copy_bytes(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_where == Backend::Host && src_where == Backend::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if GBCUDA_HAVE_CUDA
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
#else
  no_cuda();
#endif
}

void fill_bytes(void* dst, Backend where, int value, std::size_t bytes) {
  if (bytes == 0) return;
  if (where == Backend::Host) {
    std::memset(dst, value, bytes);
    return;
  }
#if GBCUDA_HAVE_CUDA
  check(cudaMemset(dst, value, bytes), "cudaMemset");
#else
  no_cuda();
#endif
}

void synchronize(Backend where) {
  if (where == Backend::Host) return;
#if GBCUDA_HAVE_CUDA
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#else
  no_cuda();
#endif
}

}  // namespace gbcuda::detail
