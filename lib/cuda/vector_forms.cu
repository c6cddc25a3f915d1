// Vector form conversions (Sparse / Bitmap / Dense) and index sorting on the device, plus the
// stable compaction helper the other CUDA translation units share.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// Bits needed to hold every value in [0, n): the radix sorts look at no more.
int key_bits(Index n) {
  int bits = 1;
  while (bits < 32 && (Index(1) << bits) < n) ++bits;
  return bits;
}

template <class T>
__global__ void scatter_sparse_kernel(std::uint8_t* __restrict__ bitmap, T* __restrict__ out,
                                      const Vid* __restrict__ idx, const T* __restrict__ vals, Index nvals) {
  for (Index p = global_thread(); p < nvals; p += grid_threads()) {
    const Vid i = idx[p];
    if (bitmap) bitmap[i] = 1;
    out[i] = vals[p];
  }
}

template <class T>
__global__ void gather_positions_kernel(T* __restrict__ out, const T* __restrict__ vals, const Vid* __restrict__ pos,
                                        Index count) {
  for (Index p = global_thread(); p < count; p += grid_threads()) out[p] = vals[pos[p]];
}

__global__ void iota_kernel(Vid* __restrict__ out, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads()) out[i] = static_cast<Vid>(i);
}

}  // namespace

Array<Vid> select_flagged(const std::uint8_t* flags, Index n, Index& count) {
  count = 0;
  if (n == 0) return {};
  Array<Vid> out(static_cast<std::size_t>(n), Backend::Cuda);
  Array<Index> num(1, Backend::Cuda);
  thrust::counting_iterator<Vid> first(0);
  run_cub([&](void* tmp, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(tmp, bytes, first, flags, out.data(), num.data(), n);
  });
  count = read_device(num.data());
  if (count == n) return out;
  // Shrink to the exact size so that a Sparse store's arrays hold nvals entries.
  Array<Vid> exact(static_cast<std::size_t>(count), Backend::Cuda);
  if (count > 0) copy_bytes(exact.data(), Backend::Cuda, out.data(), Backend::Cuda, exact.bytes());
  return exact;
}

template <class T>
void convert_form(VectorStore<T>& v, VectorForm to) {
  if (v.form == to) return;
  if (to == VectorForm::Dense && v.nvals != v.n)
    throw Error(Status::InvalidValue, "a vector with missing entries cannot take the dense form");
  const auto n = static_cast<std::size_t>(v.n);
  if (v.form == VectorForm::Sparse) {  // -> Bitmap or Dense
    Array<T> values(n, Backend::Cuda);
    Array<std::uint8_t> bitmap;
    if (to == VectorForm::Bitmap) {
      bitmap = Array<std::uint8_t>(n, Backend::Cuda);
      bitmap.fill_bytes_with(0);
    }
    if (v.nvals > 0) {
      scatter_sparse_kernel<<<grid_for(v.nvals), kBlock>>>(bitmap.data(), values.data(), v.indices.data(),
                                                           v.values.data(), v.nvals);
      CUDA_CHECK_LAUNCH();
    }
    v.values = std::move(values);
    v.bitmap = std::move(bitmap);
    v.indices.reset();
  } else if (to == VectorForm::Sparse) {  // Bitmap or Dense -> Sparse
    if (v.form == VectorForm::Bitmap) {
      Index count = 0;
      Array<Vid> idx = select_flagged(v.bitmap.data(), v.n, count);
      if (count != v.nvals)
        throw Error(Status::CudaError, "internal: bitmap vector holds " + std::to_string(count) +
                                           " entries, expected " + std::to_string(v.nvals));
      Array<T> values(static_cast<std::size_t>(count), Backend::Cuda);
      if (count > 0) {
        gather_positions_kernel<<<grid_for(count), kBlock>>>(values.data(), v.values.data(), idx.data(), count);
        CUDA_CHECK_LAUNCH();
      }
      v.indices = std::move(idx);
      v.values = std::move(values);
    } else {  // Dense: every position, values already in index order
      Array<Vid> idx(n, Backend::Cuda);
      if (n > 0) {
        iota_kernel<<<grid_for(v.n), kBlock>>>(idx.data(), v.n);
        CUDA_CHECK_LAUNCH();
      }
      v.indices = std::move(idx);
    }
    v.bitmap.reset();
  } else if (to == VectorForm::Dense) {  // Bitmap -> Dense (full)
    v.bitmap.reset();
  } else {  // Dense -> Bitmap
    Array<std::uint8_t> bitmap(n, Backend::Cuda);
    bitmap.fill_bytes_with(1);
    v.bitmap = std::move(bitmap);
  }
  v.form = to;
  v.jumbled = false;
}

template <class T>
void sort_indices(VectorStore<T>& v) {
  if (v.form != VectorForm::Sparse || !v.jumbled) return;
  if (v.nvals > 1) {
    const auto nv = static_cast<std::size_t>(v.nvals);
    Array<Vid> idx(nv, Backend::Cuda);
    Array<T> vals(nv, Backend::Cuda);
    // Indices are non-negative: sorting their bit patterns as unsigned keys is exact.
    const auto* keys_in = reinterpret_cast<const std::uint32_t*>(v.indices.data());
    auto* keys_out = reinterpret_cast<std::uint32_t*>(idx.data());
    const int bits = key_bits(v.n);
    run_cub([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, v.values.data(), vals.data(), v.nvals, 0,
                                             bits);
    });
    v.indices = std::move(idx);
    v.values = std::move(vals);
  }
  v.jumbled = false;
}

#define GBCUDA_CUDA_FORMS(T)                                \
  template void convert_form<T>(VectorStore<T>&, VectorForm); \
  template void sort_indices<T>(VectorStore<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_CUDA_FORMS)
#undef GBCUDA_CUDA_FORMS

}  // namespace gbcuda::detail::cuda
