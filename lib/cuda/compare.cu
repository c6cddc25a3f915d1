// Byte-wise comparison of two device buffers (e.g. a CSR against its transpose, to learn whether
// a matrix that lives only on the GPU is structurally symmetric without downloading it).
#include "cuda/cuda_check.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda {
namespace {

__global__ void count_differences(const std::uint32_t* a, const std::uint32_t* b, Index words,
                                  unsigned long long* differences) {
  long long local = 0;
  for (Index i = global_thread(); i < words; i += grid_threads()) local += a[i] != b[i];
  block_count_add(local, differences);
}

}  // namespace

bool device_bytes_equal(const void* a, const void* b, std::size_t bytes) {
  if (bytes == 0) return true;
  if (bytes % 4 != 0) throw Error(Status::InvalidValue, "device_bytes_equal: size must be a multiple of 4");
  Scratch scratch;
  auto* differences = scratch.take<unsigned long long>(1);
  fill_bytes(differences, Backend::Cuda, 0, sizeof(*differences));
  const Index words = static_cast<Index>(bytes / 4);
  count_differences<<<grid_for(words), kBlock, 0, stream()>>>(static_cast<const std::uint32_t*>(a),
                                                              static_cast<const std::uint32_t*>(b), words, differences);
  CUDA_CHECK_LAUNCH();
  return read_device(differences) == 0;
}

}  // namespace gbcuda::detail::cuda
