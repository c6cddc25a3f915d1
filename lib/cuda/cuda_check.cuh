#pragma once
// Internal helpers shared by the CUDA backend's translation units: error checks, the library
// stream, launch geometry, block-wide counting and CUB temporary storage. Not installed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::detail::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file, int line) {
  throw Error(Status::CudaError,
              std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " + cudaGetErrorString(e));
}

}  // namespace gbcuda::detail::cuda

// Throws gbcuda::Error(CudaError) naming the call, file and line when a CUDA call fails.
#define CUDA_CHECK(expr)                                                                                              \
  do {                                                                                                                \
    cudaError_t gbcuda_err_ = (expr);                                                                                 \
    if (gbcuda_err_ != cudaSuccess) ::gbcuda::detail::cuda::throw_cuda_error(gbcuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: reports bad launch configurations right away.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace gbcuda::detail::cuda {

// The calling thread's stream: every kernel, copy, fill and CUB call of the CUDA backend goes there.
inline cudaStream_t stream() { return static_cast<cudaStream_t>(library_stream()); }

inline constexpr int kBlock = 256;
// Kernels use grid-stride loops, so the grid is capped; 8192 blocks of 256 threads keep every
// SM of an H100 busy several times over.
inline constexpr Index kMaxBlocks = 8192;
// Grid for a loop whose length is only known on the device (a count written by an earlier
// kernel): enough blocks for one full wave, each striding over the rest.
inline constexpr Index kDeviceCountBlocks = 1024;

// Blocks for `work` items, each handled by `per_item` threads (a grid-stride loop covers the rest).
inline unsigned grid_for(Index work, int per_item = 1, int block = kBlock) {
  const Index threads = std::max<Index>(work, 1) * per_item;
  const Index blocks = (threads + block - 1) / block;
  return static_cast<unsigned>(std::clamp<Index>(blocks, 1, kMaxBlocks));
}
// Blocks for a list whose length is `count` when `count_dev` is null, else *count_dev (on the
// device) and at most `capacity`.
inline unsigned grid_for_count(Index count, const Index* count_dev, Index capacity) {
  if (!count_dev) return grid_for(count);
  return static_cast<unsigned>(std::min<Index>(grid_for(capacity), kDeviceCountBlocks));
}

__device__ __forceinline__ Index global_thread() { return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ Index grid_threads() { return static_cast<Index>(gridDim.x) * blockDim.x; }
// A count given either by value or in device memory.
__device__ __forceinline__ Index count_of(Index count, const Index* count_dev) {
  return count_dev ? *count_dev : count;
}

// Adds each thread's `local` count (which may be negative) into *total, a 64-bit counter, with
// one global atomic per block. Every thread of the block must call it (it synchronizes the block),
// and the block is whole warps. The lanes of a warp are summed by shuffles first: one shared
// atomic from every thread on the same word serialises the block (it made a 4M-entry element-wise
// kernel ten times its memory time on the H100).
template <class C>
__device__ __forceinline__ void block_count_add(long long local, C* total) {
  static_assert(sizeof(C) == 8, "a 64-bit counter");
  __shared__ long long block_sum;
  if (threadIdx.x == 0) block_sum = 0;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) local += __shfl_down_sync(0xffffffffu, local, offset);
  __syncthreads();
  if (threadIdx.x % 32 == 0 && local)
    atomicAdd(reinterpret_cast<unsigned long long*>(&block_sum), static_cast<unsigned long long>(local));
  __syncthreads();
  if (threadIdx.x == 0 && block_sum)
    atomicAdd(reinterpret_cast<unsigned long long*>(total), static_cast<unsigned long long>(block_sum));
}

// Runs a CUB device algorithm with the usual two calls: `f(temp, bytes)` first sizes the
// temporary storage, then runs with it, on the thread's stream (f passes stream() to CUB). The
// temporary storage comes from the caller's Scratch scope.
template <class F>
void run_cub(Scratch& scratch, F&& f) {
  std::size_t bytes = 0;
  CUDA_CHECK(f(static_cast<void*>(nullptr), bytes));
  CUDA_CHECK(f(scratch.take(std::max<std::size_t>(bytes, 1)), bytes));
}

// The same for one-off large work (a transpose, a generator): the temporary storage comes from
// the memory pool and goes back to it (freed in stream order) instead of staying in the scratch.
template <class F>
void run_cub(F&& f) {
  std::size_t bytes = 0;
  CUDA_CHECK(f(static_cast<void*>(nullptr), bytes));
  Array<std::uint8_t> temp(std::max<std::size_t>(bytes, 1), Backend::Cuda);
  CUDA_CHECK(f(static_cast<void*>(temp.data()), bytes));
}

// Reads one element of device memory (a counted host wait).
template <class T>
T read_device(const T* p) {
  T v{};
  copy_bytes(&v, Backend::Host, p, Backend::Cuda, sizeof(T));
  return v;
}

}  // namespace gbcuda::detail::cuda
