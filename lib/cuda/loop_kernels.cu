// The device loop's kernels (lib/core/device_loop.cpp): the test between iterations, which
// counts the iteration and sets the graph's conditional handles from the condition vector's
// count, and a small host-to-device copy as a kernel whose parameters carry the bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/loop_memory.hpp"
#include "cuda/cuda_check.cuh"
#include "gbcuda/types.hpp"

namespace gbcuda::detail::cuda {
namespace {

// After the first of the two bodies (`second` false): run the second if the loop goes on, and
// end the loop if it does not. After the second: go round again or end.
__global__ void loop_condition_kernel(const Index* count_dev, Index count_known, Index* iterations,
                                      Index max_iterations, cudaGraphConditionalHandle next,
                                      cudaGraphConditionalHandle loop, bool second) {
  const Index done = ++*iterations;
  const Index count = count_dev ? *count_dev : count_known;
  const unsigned go = count > 0 && done < max_iterations ? 1u : 0u;
  if (second) {
    cudaGraphSetConditional(loop, go);
  } else {
    cudaGraphSetConditional(next, go);
    if (!go) cudaGraphSetConditional(loop, 0);
  }
}

struct Bytes {
  unsigned char b[kLoopStoreMaxBytes];
};
__global__ void loop_store_kernel(unsigned char* dst, Bytes src, unsigned bytes) {
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src.b[i];
}

}  // namespace

void launch_loop_store(void* dst, const void* src, std::size_t bytes) {
  Bytes b;
  std::memcpy(b.b, src, bytes);
  loop_store_kernel<<<1, 64, 0, stream()>>>(static_cast<unsigned char*>(dst), b, unsigned(bytes));
  CUDA_CHECK_LAUNCH();
}

void launch_loop_condition(const Index* count_dev, Index count_known, Index* iterations, Index max_iterations,
                           std::uint64_t next, std::uint64_t loop, bool second) {
  loop_condition_kernel<<<1, 1, 0, stream()>>>(count_dev, count_known, iterations, max_iterations,
                                               cudaGraphConditionalHandle(next), cudaGraphConditionalHandle(loop),
                                               second);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda
