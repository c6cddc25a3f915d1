// CSR transpose on the device: expand each entry's row id, radix-sort (column, row) pairs by
// column with CUB (stable, so each output row lists its columns ascending), build the offsets by
// counting columns and an exclusive scan, and fetch values by a binary search in the source row.
// Offsets and entry counts are 64-bit throughout.
#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// The row owning entry p: the last i with row_ptr[i] <= p (binary search, balanced work).
__global__ void expand_rows_kernel(Vid* __restrict__ rows, const Offset* __restrict__ row_ptr, Index nrows,
                                   Offset nnz) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) {
    Index lo = 0, hi = nrows;  // row_ptr[lo] <= p < row_ptr[hi]
    while (hi - lo > 1) {
      const Index mid = lo + (hi - lo) / 2;
      if (row_ptr[mid] <= p) lo = mid;
      else hi = mid;
    }
    rows[p] = static_cast<Vid>(lo);
  }
}

__global__ void count_columns_kernel(unsigned long long* __restrict__ counts, const Vid* __restrict__ cols,
                                     Offset nnz) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) atomicAdd(&counts[cols[p]], 1ULL);
}

// out_values[q] = A(i, j) where j = sorted column of q and i = its row: binary search in row i.
template <class T>
__global__ void fetch_values_kernel(T* __restrict__ out, const std::uint32_t* __restrict__ sorted_cols,
                                    const Vid* __restrict__ out_cols, const Offset* __restrict__ row_ptr,
                                    const Vid* __restrict__ col_idx, const T* __restrict__ values, Offset nnz) {
  for (Offset q = global_thread(); q < nnz; q += grid_threads()) {
    const Vid j = static_cast<Vid>(sorted_cols[q]);
    const Vid i = out_cols[q];
    Offset lo = row_ptr[i], hi = row_ptr[i + 1];  // col_idx[lo, hi) ascending, contains j
    while (hi - lo > 1) {
      const Offset mid = lo + (hi - lo) / 2;
      if (col_idx[mid] <= j) lo = mid;
      else hi = mid;
    }
    out[q] = values[lo];
  }
}

int key_bits(Index n) {
  int bits = 1;
  while (bits < 32 && (Index(1) << bits) < n) ++bits;
  return bits;
}

}  // namespace

template <class T>
Csr<T> transpose_csr(const Csr<T>& a) {
  Csr<T> t;
  t.nrows = a.ncols;
  t.ncols = a.nrows;
  t.iso_value = a.iso_value;
  const Offset nnz = a.nvals();
  t.row_ptr = Array<Offset>(static_cast<std::size_t>(a.ncols) + 1, Backend::Cuda);
  t.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (!a.is_iso()) t.values = Array<T>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (nnz == 0) {
    t.row_ptr.fill_bytes_with(0);
    return t;
  }

  // Offsets: count each column, then an exclusive scan over ncols + 1 counts (the last is 0, so
  // the scan ends with nnz).
  {
    Array<unsigned long long> counts(static_cast<std::size_t>(a.ncols) + 1, Backend::Cuda);
    counts.fill_bytes_with(0);
    count_columns_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(counts.data(), a.col_idx.data(), nnz);
    CUDA_CHECK_LAUNCH();
    unsigned long long* in = counts.data();
    Offset* out = t.row_ptr.data();
    const Index items = a.ncols + 1;
    run_cub([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, items, stream());
    });
  }

  // Entries: sort (column, row) pairs by column. The sorted rows are the output column indices.
  Array<Vid> rows(static_cast<std::size_t>(nnz), Backend::Cuda);
  expand_rows_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(rows.data(), a.row_ptr.data(), a.nrows, nnz);
  CUDA_CHECK_LAUNCH();
  Array<Vid> sorted_cols(static_cast<std::size_t>(nnz), Backend::Cuda);
  {
    // Column indices are non-negative: sort their bits as unsigned keys, only as many as ncols needs.
    const auto* keys_in = reinterpret_cast<const std::uint32_t*>(a.col_idx.data());
    auto* keys_out = reinterpret_cast<std::uint32_t*>(sorted_cols.data());
    const Vid* vals_in = rows.data();
    Vid* vals_out = t.col_idx.data();
    const int bits = key_bits(a.ncols);
    run_cub([&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, vals_in, vals_out, nnz, 0, bits, stream());
    });
  }
  rows.reset();

  if (!a.is_iso()) {
    fetch_values_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(
        t.values.data(), reinterpret_cast<const std::uint32_t*>(sorted_cols.data()), t.col_idx.data(), a.row_ptr.data(),
        a.col_idx.data(), a.values.data(), nnz);
    CUDA_CHECK_LAUNCH();
  }
  return t;
}

#define GBCUDA_INST_TRANSPOSE(T) template Csr<T> transpose_csr<T>(const Csr<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_TRANSPOSE)

}  // namespace gbcuda::detail::cuda
