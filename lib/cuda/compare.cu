// Byte-wise comparison of two device buffers (e.g. a CSR against its transpose, to learn whether
// a matrix that lives only on the GPU is structurally symmetric without downloading it).
#include "cuda/cuda_check.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda {
namespace {

__global__ void count_differences(const std::uint32_t* a, const std::uint32_t* b, Index words,
                                  unsigned long long* differences) {
  unsigned long long local = 0;
  for (Index i = global_thread(); i < words; i += grid_threads()) local += a[i] != b[i];
  block_count_add(local, differences);
}

}  // namespace

bool device_bytes_equal(const void* a, const void* b, std::size_t bytes) {
  if (bytes == 0) return true;
  if (bytes % 4 != 0) throw Error(Status::InvalidValue, "device_bytes_equal: size must be a multiple of 4");
  Array<unsigned long long> differences(1, Backend::Cuda);
  differences.fill_bytes_with(0);
  const Index words = static_cast<Index>(bytes / 4);
  count_differences<<<grid_for(words), kBlock>>>(static_cast<const std::uint32_t*>(a),
                                                 static_cast<const std::uint32_t*>(b), words, differences.data());
  CUDA_CHECK_LAUNCH();
  unsigned long long h = 0;
  copy_bytes(&h, Backend::Host, differences.data(), Backend::Cuda, sizeof(h));
  return h == 0;
}

}  // namespace gbcuda::detail::cuda
