// Matrix outputs on the device: select (the entries of A a predicate keeps), resize (those inside
// the new shape), diag, the positional values of an index-unary apply, and the compaction of a
// CSR by per-entry flags that select, resize and the masked mxm share (a CUB exclusive sum of the
// flags gives each kept entry its place; the new row offsets are the sums at the old ones).
#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

__global__ void row_offsets_kernel(Offset* __restrict__ out, const Offset* __restrict__ row_ptr,
                                   const Offset* __restrict__ pos, Index n) {
  for (Index i = global_thread(); i <= n; i += grid_threads()) out[i] = pos[row_ptr[i]];
}

template <class T>
__global__ void select_flags_kernel(Offset* __restrict__ keep, const Offset* __restrict__ row_ptr,
                                    const Vid* __restrict__ col, const T* __restrict__ vals, T iso, Index n, Index nnz,
                                    SelectKind kind, SelectThunk<T> thunk) {
  for (Index p = global_thread(); p <= nnz; p += grid_threads()) {
    if (p == nnz) {
      keep[p] = 0;
      continue;
    }
    const Index i = row_of(row_ptr, n, p);
    const T x = vals ? vals[p] : iso;
    keep[p] = select_holds(kind, x, i, Index(col[p]), thunk) ? 1 : 0;
  }
}

template <class T>
__global__ void select_scatter_kernel(Vid* __restrict__ out_col, T* __restrict__ out_val,
                                      const Offset* __restrict__ pos, const Vid* __restrict__ col,
                                      const T* __restrict__ vals, Index nnz) {
  for (Index p = global_thread(); p < nnz; p += grid_threads())
    if (pos[p + 1] != pos[p]) {
      out_col[pos[p]] = col[p];
      if (out_val) out_val[pos[p]] = vals[p];
    }
}

template <class TC>
__global__ void positional_kernel(TC* __restrict__ out, const Offset* __restrict__ row_ptr, const Vid* __restrict__ col,
                                  Index n, Offset nnz, PositionalKind kind, std::int64_t y) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) {
    // A vector's entries (no row offsets): entry p at index col[p] (or p), in column 0.
    const std::int64_t i = row_ptr ? row_of(row_ptr, n, p) : col ? std::int64_t(col[p]) : std::int64_t(p);
    const std::int64_t j = row_ptr ? std::int64_t(col[p]) : 0;
    const std::int64_t z = kind == PositionalKind::Row ? i + y : kind == PositionalKind::Col ? j + y : j - (i + y);
    out[p] = cast_to<TC>(z);
  }
}

__global__ void iota_kernel(Offset* __restrict__ x, Offset n) {
  for (Offset p = global_thread(); p < n; p += grid_threads()) x[p] = p;
}

// keep[p] = 1 where entry p (row i, column j) lies inside rows x cols, keep[nnz] = 0.
__global__ void inside_flags_kernel(Offset* __restrict__ keep, const Offset* __restrict__ row_ptr,
                                    const Vid* __restrict__ col, Index n, Offset nnz, Index rows, Index cols) {
  for (Offset p = global_thread(); p <= nnz; p += grid_threads())
    keep[p] = p < nnz && row_of(row_ptr, n, p) < rows && Index(col[p]) < cols ? 1 : 0;
}

// out[i] = from[min(i, n)] for i <= rows: row offsets of n rows extended (or cut) to rows.
__global__ void extend_rows_kernel(Offset* __restrict__ out, const Offset* __restrict__ from, Index n, Index rows) {
  for (Index i = global_thread(); i <= rows; i += grid_threads()) out[i] = from[i < n ? i : n];
}

// Row r of diag(v, k) holds v(r - shift) at column r + k where v has it: len[r] = 1 there.
__global__ void diag_lengths_kernel(Offset* __restrict__ len, const std::uint8_t* __restrict__ bitmap, Index n_v,
                                    Index shift, Index rows) {
  for (Index r = global_thread(); r <= rows; r += grid_threads()) {
    const Index i = r - shift;
    len[r] = r < rows && i >= 0 && i < n_v && bitmap[i] ? 1 : 0;
  }
}

template <class T>
__global__ void diag_fill_kernel(Vid* __restrict__ col, T* __restrict__ val, const Offset* __restrict__ row_ptr,
                                 const T* __restrict__ values, Index n_v, Index shift, Index k, Index rows) {
  for (Index r = global_thread(); r < rows; r += grid_threads())
    if (row_ptr[r + 1] != row_ptr[r]) {
      col[row_ptr[r]] = Vid(r + k);
      val[row_ptr[r]] = values[r - shift];
    }
}

}  // namespace

void exclusive_sum_in_place(Offset* x, Offset count) {
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, x, x, count, stream());
  });
}

void sort_row_columns(const Vid* cols_in, Vid* cols_out, Offset nnz, const Offset* row_ptr, Index nrows,
                      const Offset* from_in, Offset* from_out) {
  if (nnz == 0) return;
  if (!from_out) {
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, cols_in, cols_out, nnz, nrows, row_ptr, row_ptr + 1,
                                                stream());
    });
    return;
  }
  Array<Offset> identity;
  if (!from_in) {
    identity = Array<Offset>(static_cast<std::size_t>(nnz), Backend::Cuda);
    iota_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(identity.data(), nnz);
    CUDA_CHECK_LAUNCH();
    from_in = identity.data();
  }
  run_cub([&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedSort::SortPairs(temp, bytes, cols_in, cols_out, from_in, from_out, nnz, nrows, row_ptr,
                                               row_ptr + 1, stream());
  });
}

Array<Offset> compact_rows(const Offset* row_ptr, Index n, Offset* keep, Index nnz, Offset& kept) {
  exclusive_sum_in_place(keep, nnz + 1);
  Array<Offset> out(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  row_offsets_kernel<<<grid_for(n + 1), kBlock, 0, stream()>>>(out.data(), row_ptr, keep, n);
  CUDA_CHECK_LAUNCH();
  kept = read_device(keep + nnz);
  return out;
}

namespace {
// The entries p of `a` with keep[p] = 1 (keep: nnz + 1 flags, the last 0; overwritten), as an
// nrows x ncols CSR: rows of `a` at nrows and past keep nothing, rows past a's are empty.
template <class T>
Csr<T> keep_flagged(const Csr<T>& a, Offset* keep, Index nrows, Index ncols) {
  const Index nnz = a.nvals();
  Csr<T> out;
  out.nrows = nrows;
  out.ncols = ncols;
  out.iso_value = a.iso_value;
  Offset kept = 0;
  out.row_ptr = compact_rows(a.row_ptr.data(), a.nrows, keep, nnz, kept);
  if (nrows != a.nrows) {
    Array<Offset> row_ptr(static_cast<std::size_t>(nrows) + 1, Backend::Cuda);
    extend_rows_kernel<<<grid_for(nrows + 1), kBlock, 0, stream()>>>(row_ptr.data(), out.row_ptr.data(), a.nrows,
                                                                     nrows);
    CUDA_CHECK_LAUNCH();
    out.row_ptr = std::move(row_ptr);
  }
  out.col_idx = Array<Vid>(static_cast<std::size_t>(kept), Backend::Cuda);
  if (!a.is_iso()) out.values = Array<T>(static_cast<std::size_t>(kept), Backend::Cuda);
  if (kept > 0) {
    select_scatter_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(out.col_idx.data(), out.values.data(), keep,
                                                                  a.col_idx.data(), a.values.data(), nnz);
    CUDA_CHECK_LAUNCH();
  }
  return out;
}
}  // namespace

template <class T>
Csr<T> select_csr(const Csr<T>& a, SelectKind kind, const SelectThunk<T>& thunk) {
  const Index nnz = a.nvals();
  Array<Offset> keep(static_cast<std::size_t>(nnz) + 1, Backend::Cuda);
  select_flags_kernel<<<grid_for(nnz + 1), kBlock, 0, stream()>>>(
      keep.data(), a.row_ptr.data(), a.col_idx.data(), a.values.data(), a.iso_value, a.nrows, nnz, kind, thunk);
  CUDA_CHECK_LAUNCH();
  return keep_flagged(a, keep.data(), a.nrows, a.ncols);
}

template <class T>
Csr<T> resize_csr(const Csr<T>& a, Index nrows, Index ncols) {
  const Index nnz = a.nvals();
  Array<Offset> keep(static_cast<std::size_t>(nnz) + 1, Backend::Cuda);
  inside_flags_kernel<<<grid_for(nnz + 1), kBlock, 0, stream()>>>(keep.data(), a.row_ptr.data(), a.col_idx.data(),
                                                                  a.nrows, nnz, nrows, ncols);
  CUDA_CHECK_LAUNCH();
  return keep_flagged(a, keep.data(), nrows, ncols);
}

template <class TC>
Array<TC> positional_values(const Offset* row_ptr, const Vid* col_idx, Index n, Offset nnz, PositionalKind kind,
                            std::int64_t y) {
  Array<TC> out(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (nnz > 0) {
    positional_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(out.data(), row_ptr, col_idx, n, nnz, kind, y);
    CUDA_CHECK_LAUNCH();
  }
  return out;
}

template <class T>
Csr<T> diag_csr(const T* values, const std::uint8_t* bitmap, Index n_v, Index k) {
  const Index shift = k < 0 ? -k : 0, rows = n_v + (k < 0 ? -k : k);
  Csr<T> out;
  out.nrows = out.ncols = rows;
  out.row_ptr = Array<Offset>(static_cast<std::size_t>(rows) + 1, Backend::Cuda);
  diag_lengths_kernel<<<grid_for(rows + 1), kBlock, 0, stream()>>>(out.row_ptr.data(), bitmap, n_v, shift, rows);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(out.row_ptr.data(), rows + 1);
  const Offset total = read_device(out.row_ptr.data() + rows);
  out.col_idx = Array<Vid>(static_cast<std::size_t>(total), Backend::Cuda);
  out.values = Array<T>(static_cast<std::size_t>(total), Backend::Cuda);
  if (total > 0) {
    diag_fill_kernel<<<grid_for(rows), kBlock, 0, stream()>>>(out.col_idx.data(), out.values.data(), out.row_ptr.data(),
                                                              values, n_v, shift, k, rows);
    CUDA_CHECK_LAUNCH();
  }
  return out;
}

#define GBCUDA_INST_SELECT(T)                                                                                     \
  template Csr<T> select_csr<T>(const Csr<T>&, SelectKind, const SelectThunk<T>&);                                \
  template Array<T> positional_values<T>(const Offset*, const Vid*, Index, Offset, PositionalKind, std::int64_t); \
  template Csr<T> resize_csr<T>(const Csr<T>&, Index, Index);                                                     \
  template Csr<T> diag_csr<T>(const T*, const std::uint8_t*, Index, Index);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_SELECT)
#undef GBCUDA_INST_SELECT

}  // namespace gbcuda::detail::cuda
