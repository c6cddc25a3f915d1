// Vector storage on the device: form conversions (Sparse / Bitmap / Dense), index sorting,
// copies, single elements, and the stable compaction helper the other CUDA translation units
// share. Counts stay where they are: a count in device memory is read by the kernels that need
// it, never by the host (except sort_indices, which only host reads call).
#include <thrust/iterator/counting_iterator.h>

#include <cub/cub.cuh>

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
                                      const Vid* __restrict__ idx, const T* __restrict__ vals, Index nvals,
                                      const Index* nvals_dev) {
  const Index count = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < count; p += grid_threads()) {
    const Vid i = idx[p];
    if (bitmap) bitmap[i] = 1;
    out[i] = vals[p];
  }
}

template <class T>
__global__ void gather_positions_kernel(T* __restrict__ out, const T* __restrict__ vals, const Vid* __restrict__ pos,
                                        Index count, const Index* count_dev) {
  const Index c = count_of(count, count_dev);
  for (Index p = global_thread(); p < c; p += grid_threads()) out[p] = vals[pos[p]];
}

__global__ void iota_kernel(Vid* __restrict__ out, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads()) out[i] = static_cast<Vid>(i);
}

template <class T>
__global__ void copy_prefix_kernel(T* __restrict__ dst, const T* __restrict__ src, Index count,
                                   const Index* count_dev) {
  const Index c = count_of(count, count_dev);
  for (Index p = global_thread(); p < c; p += grid_threads()) dst[p] = src[p];
}

// w(i) = value, counting a new entry (Bitmap) in the device count.
template <class T>
__global__ void set_element_kernel(std::uint8_t* bitmap, T* values, Index i, T value, Index* count) {
  if (bitmap && !bitmap[i]) {
    bitmap[i] = 1;
    ++*count;
  }
  values[i] = value;
}

// out(i) = v(i), or `missing` where v has no entry (Bitmap: by its bitmap; Dense: every i; no
// values: none).
template <class T>
__global__ void dense_values_kernel(T* __restrict__ out, const std::uint8_t* __restrict__ bitmap,
                                    const T* __restrict__ vals, Index n, T missing) {
  for (Index i = global_thread(); i < n; i += grid_threads())
    out[i] = vals && (!bitmap || bitmap[i]) ? vals[i] : missing;
}

__global__ void remove_element_kernel(std::uint8_t* bitmap, Index i, Index* count) {
  if (bitmap[i]) {
    bitmap[i] = 0;
    --*count;
  }
}

}  // namespace

void select_flagged(Scratch& scratch, const std::uint8_t* flags, Index n, Vid* out, Index* count_out) {
  if (n == 0) {
    fill_bytes(count_out, Backend::Cuda, 0, sizeof(Index));
    return;
  }
  thrust::counting_iterator<Vid> first(0);
  run_cub(scratch, [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceSelect::Flagged(tmp, bytes, first, flags, out, count_out, n, stream());
  });
}

template <class T>
void copy_prefix(T* dst, const T* src, Index count, const Index* count_dev, Index capacity) {
  if (!count_dev) {
    copy_bytes(dst, Backend::Cuda, src, Backend::Cuda, static_cast<std::size_t>(count) * sizeof(T));
    return;
  }
  if (capacity == 0) return;
  copy_prefix_kernel<<<grid_for_count(count, count_dev, capacity), kBlock, 0, stream()>>>(dst, src, count, count_dev);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void convert_form(VectorStore<T>& v, VectorForm to) {
  if (v.form == to) return;
  if (to == VectorForm::Dense && exact_nvals(v) != v.n)
    throw Error(Status::InvalidValue, "a vector with missing entries cannot take the dense form");
  const auto n = static_cast<std::size_t>(v.n);
  const Index* count_dev = device_nvals(v);
  if (v.form == VectorForm::Sparse) {  // -> Bitmap or Dense
    Array<T> values(n, Backend::Cuda);
    Array<std::uint8_t> bitmap;
    if (to == VectorForm::Bitmap) {
      bitmap = Array<std::uint8_t>(n, Backend::Cuda);
      bitmap.fill_bytes_with(0);
    }
    if (!v.indices.empty() && (count_dev || v.nvals > 0)) {
      scatter_sparse_kernel<<<grid_for_count(v.nvals, count_dev, Index(v.indices.size())), kBlock, 0, stream()>>>(
          bitmap.data(), values.data(), v.indices.data(), v.values.data(), v.nvals, count_dev);
      CUDA_CHECK_LAUNCH();
    }
    v.values = std::move(values);
    v.bitmap = std::move(bitmap);
    v.indices.reset();
  } else if (to == VectorForm::Sparse) {  // Bitmap or Dense -> Sparse
    if (v.form == VectorForm::Bitmap) {
      Scratch scratch;
      Array<Vid> idx(n, Backend::Cuda);
      // The selection writes the count it found; where the count was on the device it lands
      // there (the same value), else in scratch (the host already knows it).
      Index* found = count_dev ? &tally_of(v)->nvals : scratch.take<Index>(1);
      select_flagged(scratch, v.bitmap.data(), v.n, idx.data(), found);
      Array<T> values(n, Backend::Cuda);
      if (n > 0) {
        gather_positions_kernel<<<grid_for_count(v.nvals, count_dev, v.n), kBlock, 0, stream()>>>(
            values.data(), v.values.data(), idx.data(), v.nvals, count_dev);
        CUDA_CHECK_LAUNCH();
      }
      v.indices = std::move(idx);
      v.values = std::move(values);
    } else {  // Dense: every position, values already in index order
      Array<Vid> idx(n, Backend::Cuda);
      if (n > 0) {
        iota_kernel<<<grid_for(v.n), kBlock, 0, stream()>>>(idx.data(), v.n);
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
  const Index count = exact_nvals(v);  // CUB's sort takes its length on the host
  if (count > 1) {
    const auto nv = static_cast<std::size_t>(count);
    Array<Vid> idx(nv, Backend::Cuda);
    Array<T> vals(nv, Backend::Cuda);
    // Indices are non-negative: sorting their bit patterns as unsigned keys is exact.
    const auto* keys_in = reinterpret_cast<const std::uint32_t*>(v.indices.data());
    auto* keys_out = reinterpret_cast<std::uint32_t*>(idx.data());
    const int bits = key_bits(v.n);
    Scratch scratch;
    run_cub(scratch, [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, v.values.data(), vals.data(), count, 0,
                                             bits, stream());
    });
    v.indices = std::move(idx);
    v.values = std::move(vals);
  }
  v.jumbled = false;
}

// Copies v's tally (count and trace) and entries into c, whose arrays are already sized like v's;
// a Sparse copy moves at most `capacity` slots, only the counted ones when the count is on the device.
template <class T>
void copy_contents(VectorStore<T>& c, const VectorStore<T>& v, Index capacity) {
  if (!v.tally.empty()) copy_bytes(tally_of(c), Backend::Cuda, v.tally.data(), Backend::Cuda, sizeof(DeviceTally));
  if (v.form == VectorForm::Sparse) {  // the entries only
    const Index* count_dev = device_nvals(v);
    copy_prefix(c.indices.data(), v.indices.data(), v.nvals, count_dev, capacity);
    if (!c.values.empty()) copy_prefix(c.values.data(), v.values.data(), v.nvals, count_dev, capacity);
  } else {
    if (!v.values.empty()) copy_bytes(c.values.data(), Backend::Cuda, v.values.data(), Backend::Cuda, v.values.bytes());
    if (!v.bitmap.empty()) copy_bytes(c.bitmap.data(), Backend::Cuda, v.bitmap.data(), Backend::Cuda, v.bitmap.bytes());
  }
  c.nvals = v.nvals;
  c.count_on_device = device_nvals(v) != nullptr;
  c.trace_of = v.trace_of;
  c.jumbled = v.jumbled;
}

template <class T>
VectorStore<T> clone_store(const VectorStore<T>& v) {
  VectorStore<T> c;
  c.n = v.n;
  c.where = Backend::Cuda;
  c.form = v.form;
  Index capacity = 0;
  if (v.form == VectorForm::Sparse) {
    capacity = device_nvals(v) ? Index(v.indices.size()) : v.nvals;
    c.indices = Array<Vid>(static_cast<std::size_t>(capacity), Backend::Cuda);
    c.values = Array<T>(v.values.empty() ? 0 : static_cast<std::size_t>(capacity), Backend::Cuda);
  } else {
    c.values = Array<T>(v.values.size(), Backend::Cuda);
    c.bitmap = Array<std::uint8_t>(v.bitmap.size(), Backend::Cuda);
  }
  copy_contents(c, v, capacity);
  return c;
}

template <class T>
bool copy_store_into(VectorStore<T>& c, const VectorStore<T>& v) {
  if (c.where != Backend::Cuda || v.where != Backend::Cuda || c.n != v.n || c.form != v.form ||
      c.indices.size() != v.indices.size() || c.values.size() != v.values.size() || c.bitmap.size() != v.bitmap.size())
    return false;
  copy_contents(c, v, Index(v.indices.size()));
  return true;
}

template <class T>
void to_dense_host(const VectorStore<T>& v, T missing, T* out) {
  if (v.n == 0) return;
  const auto n = static_cast<std::size_t>(v.n);
  Array<T> dense(n, Backend::Cuda);
  if (v.form == VectorForm::Sparse) {
    dense_values_kernel<<<grid_for(v.n), kBlock, 0, stream()>>>(dense.data(), nullptr, static_cast<const T*>(nullptr),
                                                                v.n, missing);
    CUDA_CHECK_LAUNCH();
    const Index* count_dev = device_nvals(v);
    if (!v.indices.empty() && (count_dev || v.nvals > 0)) {
      scatter_sparse_kernel<<<grid_for_count(v.nvals, count_dev, Index(v.indices.size())), kBlock, 0, stream()>>>(
          nullptr, dense.data(), v.indices.data(), v.values.data(), v.nvals, count_dev);
      CUDA_CHECK_LAUNCH();
    }
  } else {
    dense_values_kernel<<<grid_for(v.n), kBlock, 0, stream()>>>(dense.data(), v.bitmap.data(), v.values.data(), v.n,
                                                                missing);
    CUDA_CHECK_LAUNCH();
  }
  copy_bytes(out, Backend::Host, dense.data(), Backend::Cuda, n * sizeof(T));  // waits
}

template <class T>
void set_element(VectorStore<T>& v, Index i, T value) {
  Index* count = count_for_update(v);
  set_element_kernel<<<1, 1, 0, stream()>>>(v.bitmap.data(), v.values.data(), i, value, count);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void remove_element(VectorStore<T>& v, Index i) {
  Index* count = count_for_update(v);
  remove_element_kernel<<<1, 1, 0, stream()>>>(v.bitmap.data(), i, count);
  CUDA_CHECK_LAUNCH();
}

#define GBCUDA_CUDA_FORMS(T)                                                \
  template void convert_form<T>(VectorStore<T>&, VectorForm);               \
  template void sort_indices<T>(VectorStore<T>&);                           \
  template VectorStore<T> clone_store<T>(const VectorStore<T>&);            \
  template bool copy_store_into<T>(VectorStore<T>&, const VectorStore<T>&); \
  template void set_element<T>(VectorStore<T>&, Index, T);                  \
  template void remove_element<T>(VectorStore<T>&, Index);                  \
  template void to_dense_host<T>(const VectorStore<T>&, T, T*);             \
  template void copy_prefix<T>(T*, const T*, Index, const Index*, Index);
GBCUDA_FOR_EACH_TYPE(GBCUDA_CUDA_FORMS)
#undef GBCUDA_CUDA_FORMS

}  // namespace gbcuda::detail::cuda
