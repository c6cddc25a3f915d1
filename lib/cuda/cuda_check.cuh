#pragma once
// Internal helpers shared by the CUDA backend's translation units: error checks, launch
// geometry, device-side counters and CUB temporary storage. Not installed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::detail::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file, int line) {
  throw Error(Status::CudaError, std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                                     cudaGetErrorString(e));
}

}  // namespace gbcuda::detail::cuda

// Throws gbcuda::Error(CudaError) naming the call, file and line when a CUDA call fails.
#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t gbcuda_err_ = (expr);                                                    \
    if (gbcuda_err_ != cudaSuccess)                                                      \
      ::gbcuda::detail::cuda::throw_cuda_error(gbcuda_err_, #expr, __FILE__, __LINE__);  \
  } while (0)

// After every kernel launch: reports bad launch configurations right away.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace gbcuda::detail::cuda {

inline constexpr int kBlock = 256;
// Kernels use grid-stride loops, so the grid is capped; 8192 blocks of 256 threads keep every
// SM of an H100 busy several times over.
inline constexpr Index kMaxBlocks = 8192;

// Blocks for `work` items, each handled by `per_item` threads (a grid-stride loop covers the rest).
inline unsigned grid_for(Index work, int per_item = 1, int block = kBlock) {
  const Index threads = std::max<Index>(work, 1) * per_item;
  const Index blocks = (threads + block - 1) / block;
  return static_cast<unsigned>(std::clamp<Index>(blocks, 1, kMaxBlocks));
}

__device__ __forceinline__ Index global_thread() {
  return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ Index grid_threads() { return static_cast<Index>(gridDim.x) * blockDim.x; }

// Adds each thread's `local` count into *total, one global atomic per block. Every thread of
// the block must call it (it synchronizes the block).
__device__ __forceinline__ void block_count_add(unsigned long long local, unsigned long long* total) {
  __shared__ unsigned long long block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  if (local) atomicAdd(&block_sum, local);
  __syncthreads();
  if (threadIdx.x == 0 && block_sum) atomicAdd(total, block_sum);
}

// A counter in device memory, zeroed at construction; read() copies it back (synchronizing).
class DeviceCounter {
 public:
  DeviceCounter() : a_(1, Backend::Cuda) { a_.fill_bytes_with(0); }
  unsigned long long* get() { return a_.data(); }
  Index read() const {
    unsigned long long v = 0;
    copy_bytes(&v, Backend::Host, a_.data(), Backend::Cuda, sizeof(v));
    return static_cast<Index>(v);
  }

 private:
  Array<unsigned long long> a_;
};

// Runs a CUB device algorithm with the usual two calls: `f(temp, bytes)` first sizes the
// temporary storage, then runs with it.
template <class F>
void run_cub(F&& f) {
  std::size_t bytes = 0;
  CUDA_CHECK(f(static_cast<void*>(nullptr), bytes));
  Array<std::uint8_t> temp(std::max<std::size_t>(bytes, 1), Backend::Cuda);
  CUDA_CHECK(f(static_cast<void*>(temp.data()), bytes));
}

// Reads one element of device memory.
template <class T>
T read_device(const T* p) {
  T v{};
  copy_bytes(&v, Backend::Host, p, Backend::Cuda, sizeof(T));
  return v;
}

}  // namespace gbcuda::detail::cuda
