// Relabelling on the device (reorder.hpp). The degree ordering: each vertex's out + in degree,
// CUB's stable radix sort of the ids by degree, descending (ties and the isolated vertices, last,
// keep id order, as on the host). P A P': row k of the result is row original[k] of A with every
// column j renamed new_id[j]. The rows' lengths give the offsets (a CUB exclusive sum); a warp
// copies each row's renamed columns and their source positions; CUB's segmented sort orders each
// row by its new columns, carrying the positions, through which the values are gathered.
#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

__global__ void relabelled_lengths_kernel(Offset* __restrict__ len, const Offset* __restrict__ row_ptr,
                                          const Index* __restrict__ original, Index n) {
  for (Index k = global_thread(); k <= n; k += grid_threads()) {
    if (k == n) {
      len[k] = 0;
      continue;
    }
    const Index v = original[k];
    len[k] = row_ptr[v + 1] - row_ptr[v];
  }
}

// A warp per new row k: its columns renamed, and where each came from in A.
__global__ void relabelled_rows_kernel(Vid* __restrict__ cols, Offset* __restrict__ from,
                                       const Offset* __restrict__ out_ptr, const Offset* __restrict__ row_ptr,
                                       const Vid* __restrict__ col_idx, const Index* __restrict__ original,
                                       const Index* __restrict__ new_id, Index n) {
  const unsigned lane = threadIdx.x % 32;
  for (Index k = global_thread() / 32; k < n; k += grid_threads() / 32) {
    const Index v = original[k];
    const Offset src = row_ptr[v], len = row_ptr[v + 1] - src, dst = out_ptr[k];
    for (Offset q = lane; q < len; q += 32) {
      cols[dst + q] = static_cast<Vid>(new_id[col_idx[src + q]]);
      from[dst + q] = src + q;
    }
  }
}

__global__ void degree_keys_kernel(unsigned long long* __restrict__ keys, Index* __restrict__ ids,
                                   const Offset* __restrict__ row_ptr, const Offset* __restrict__ in_ptr, Index n) {
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    const Offset out = row_ptr[v + 1] - row_ptr[v];
    keys[v] = static_cast<unsigned long long>(out + (in_ptr ? in_ptr[v + 1] - in_ptr[v] : out));
    ids[v] = v;
  }
}

__global__ void inverse_kernel(Index* __restrict__ new_id, const Index* __restrict__ original, Index n) {
  for (Index k = global_thread(); k < n; k += grid_threads()) new_id[original[k]] = k;
}

}  // namespace

template <class T>
Csr<T> relabel_csr(const Csr<T>& a, const Index* original, const Index* new_id) {
  const Index n = a.nrows;
  const Offset nnz = a.nvals();
  const auto n_sz = static_cast<std::size_t>(n);
  Csr<T> b;
  b.nrows = b.ncols = n;
  b.iso_value = a.iso_value;
  b.row_ptr = Array<Offset>(n_sz + 1, Backend::Cuda);
  b.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (!a.is_iso()) b.values = Array<T>(static_cast<std::size_t>(nnz), Backend::Cuda);
  {
    Array<Offset> len(n_sz + 1, Backend::Cuda);
    relabelled_lengths_kernel<<<grid_for(n + 1), kBlock, 0, stream()>>>(len.data(), a.row_ptr.data(), original, n);
    CUDA_CHECK_LAUNCH();
    Offset* in = len.data();
    Offset* out = b.row_ptr.data();
    run_cub([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n + 1, stream());
    });
  }
  if (nnz == 0) return b;
  Array<Vid> cols(static_cast<std::size_t>(nnz), Backend::Cuda);
  Array<Offset> from(static_cast<std::size_t>(nnz), Backend::Cuda),
      from_sorted(a.is_iso() ? 0 : static_cast<std::size_t>(nnz), Backend::Cuda);
  relabelled_rows_kernel<<<grid_for(n, 32), kBlock, 0, stream()>>>(
      cols.data(), from.data(), b.row_ptr.data(), a.row_ptr.data(), a.col_idx.data(), original, new_id, n);
  CUDA_CHECK_LAUNCH();
  sort_row_columns(cols.data(), b.col_idx.data(), nnz, b.row_ptr.data(), n, from.data(),
                   a.is_iso() ? nullptr : from_sorted.data());
  if (!a.is_iso()) {
    gather_values_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(b.values.data(), a.values.data(), from_sorted.data(),
                                                                 nnz);
    CUDA_CHECK_LAUNCH();
  }
  return b;
}

void degree_order(const Offset* row_ptr, const Offset* in_ptr, Index n, Index* original, Index* new_id) {
  if (n == 0) return;
  const auto n_sz = static_cast<std::size_t>(n);
  Array<unsigned long long> keys(n_sz, Backend::Cuda), sorted_keys(n_sz, Backend::Cuda);
  Array<Index> ids(n_sz, Backend::Cuda);
  degree_keys_kernel<<<grid_for(n), kBlock, 0, stream()>>>(keys.data(), ids.data(), row_ptr, in_ptr, n);
  CUDA_CHECK_LAUNCH();
  int bits = 1;  // a degree is at most 2n
  while (bits < 64 && (Index(1) << bits) <= 2 * n) ++bits;
  const unsigned long long* keys_in = keys.data();
  unsigned long long* keys_out = sorted_keys.data();
  const Index* ids_in = ids.data();
  run_cub([&](void* tmp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, keys_in, keys_out, ids_in, original, n, 0, bits,
                                                     stream());
  });
  inverse_kernel<<<grid_for(n), kBlock, 0, stream()>>>(new_id, original, n);
  CUDA_CHECK_LAUNCH();
}

#define GBCUDA_INST_RELABEL(T) template Csr<T> relabel_csr<T>(const Csr<T>&, const Index*, const Index*);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_RELABEL)
#undef GBCUDA_INST_RELABEL

}  // namespace gbcuda::detail::cuda
