// Matrices by index lists on the device. C = A(I, J) (GrB_Matrix_extract): the entries of the
// rows I lists, each column j of A at every position s with J[s] = j. The work is spread over the
// entries of the listed rows, so a listed row of a million entries costs what a million short ones
// do:
//  1. the listed rows' lengths, summed (CUB): entry v of their concatenation is entry
//     v - start[r] of row I[r];
//  2. each such entry's number of places (how often J lists its column), summed: its first place
//     in C; row r of C starts at its first entry's;
//  3. each entry written at its places (column s); where J is not ascending C's rows are then
//     sorted by column (CUB's segmented sort), else they already are.
// Its inverse, S(I, J) = A (the source of GrB_Matrix_assign at C's coordinates), moves each entry
// of A once: row r to row I[r], column s to J[s], rows sorted where J is not ascending; a scalar's
// placement writes J's sorted columns into every listed row. The extract reads two counts back
// (the sizes to allocate), the placements none.
#include <algorithm>
#include <vector>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// len[r] = the length of row rows[r] of A, len[count] = 0.
__global__ void listed_lengths_kernel(Offset* __restrict__ len, const Offset* __restrict__ a_ptr,
                                      const Index* __restrict__ rows, Index count) {
  for (Index r = global_thread(); r <= count; r += grid_threads())
    len[r] = r < count ? a_ptr[rows[r] + 1] - a_ptr[rows[r]] : 0;
}

// Entry v of the listed rows' concatenation: its position in A.
__device__ __forceinline__ Offset listed_entry(const Offset* a_ptr, const Index* rows, const Offset* start, Index count,
                                               Offset v, Index& r) {
  r = row_of(start, count, v);
  return a_ptr[rows[r]] + (v - start[r]);
}

// places[v] = how many positions of J list the column of entry v, places[total] = 0.
__global__ void places_kernel(Offset* __restrict__ places, const Offset* __restrict__ a_ptr,
                              const Vid* __restrict__ a_idx, const Index* __restrict__ rows,
                              const Offset* __restrict__ start, Index count, const Offset* __restrict__ at,
                              Offset total) {
  for (Offset v = global_thread(); v <= total; v += grid_threads()) {
    if (v == total) {
      places[v] = 0;
      continue;
    }
    Index r = 0;
    const Vid c = a_idx[listed_entry(a_ptr, rows, start, count, v, r)];
    places[v] = at[c + 1] - at[c];
  }
}

__global__ void extracted_rows_kernel(Offset* __restrict__ out, const Offset* __restrict__ start,
                                      const Offset* __restrict__ first_place, Index count) {
  for (Index r = global_thread(); r <= count; r += grid_threads()) out[r] = first_place[start[r]];
}

// Entry v at its places first_place[v] + k, column to[at[c] + k]; values null: C is iso.
template <class T>
__global__ void extract_scatter_kernel(Vid* __restrict__ out_col, T* __restrict__ out_val,
                                       const Offset* __restrict__ a_ptr, const Vid* __restrict__ a_idx,
                                       const T* __restrict__ a_val, const Index* __restrict__ rows,
                                       const Offset* __restrict__ start, Index count, const Offset* __restrict__ at,
                                       const Vid* __restrict__ to, const Offset* __restrict__ first_place,
                                       Offset total) {
  for (Offset v = global_thread(); v < total; v += grid_threads()) {
    Index r = 0;
    const Offset p = listed_entry(a_ptr, rows, start, count, v, r);
    const Vid c = a_idx[p];
    Offset q = first_place[v];
    for (Offset k = at[c]; k < at[c + 1]; ++k, ++q) {
      out_col[q] = to[k];
      if (out_val) out_val[q] = a_val[p];
    }
  }
}

// Each row of a device CSR sorted by column (rows hold distinct columns), values following.
template <class T>
void sort_rows(Csr<T>& c) {
  const Offset total = Offset(c.col_idx.size());
  if (total == 0) return;
  Array<Vid> col(static_cast<std::size_t>(total), Backend::Cuda);
  Array<Offset> from(c.is_iso() ? 0 : static_cast<std::size_t>(total), Backend::Cuda);
  sort_row_columns(c.col_idx.data(), col.data(), total, c.row_ptr.data(), c.nrows, nullptr,
                   c.is_iso() ? nullptr : from.data());
  c.col_idx = std::move(col);
  if (c.is_iso()) return;
  Array<T> val(static_cast<std::size_t>(total), Backend::Cuda);
  gather_values_kernel<<<grid_for(total), kBlock, 0, stream()>>>(val.data(), c.values.data(), from.data(), total);
  CUDA_CHECK_LAUNCH();
  c.values = std::move(val);
}

// ---- the inverse: S(I, J) = A --------------------------------------------------------------

// len[i] = the length of A's row source[i] (0 where source[i] < 0), len[n] = 0.
__global__ void placed_lengths_kernel(Offset* __restrict__ len, const Offset* __restrict__ a_ptr,
                                      const Index* __restrict__ source, Index n) {
  for (Index i = global_thread(); i <= n; i += grid_threads())
    len[i] = i < n && source[i] >= 0 ? a_ptr[source[i] + 1] - a_ptr[source[i]] : 0;
}

// A's entry p (row r, column s) at row I[r] of S, column J[s], in A's order within the row.
template <class T>
__global__ void place_scatter_kernel(Vid* __restrict__ s_col, T* __restrict__ s_val, const Offset* __restrict__ s_ptr,
                                     const Offset* __restrict__ a_ptr, const Vid* __restrict__ a_idx,
                                     const T* __restrict__ a_val, Index a_rows, const Index* __restrict__ I,
                                     const Index* __restrict__ J, Offset nnz) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) {
    const Index r = row_of(a_ptr, a_rows, p);
    const Offset q = s_ptr[I[r]] + (p - a_ptr[r]);
    s_col[q] = Vid(J[a_idx[p]]);
    if (s_val) s_val[q] = a_val[p];
  }
}

// len[i] = width where row i is listed (source[i] >= 0), else 0; len[n] = 0.
__global__ void listed_width_kernel(Offset* __restrict__ len, const Index* __restrict__ source, Index n, Index width) {
  for (Index i = global_thread(); i <= n; i += grid_threads()) len[i] = i < n && source[i] >= 0 ? width : 0;
}

// Row I[r] of S holds J's columns in ascending order (sorted_cols), for every listed row r.
__global__ void listed_columns_kernel(Vid* __restrict__ s_col, const Offset* __restrict__ s_ptr,
                                      const Index* __restrict__ I, Index count, const Vid* __restrict__ sorted_cols,
                                      Index width) {
  for (Offset p = global_thread(); p < Offset(count) * width; p += grid_threads())
    s_col[s_ptr[I[p / width]] + p % width] = sorted_cols[p % width];
}

// source[i] = the position r of row i in I (distinct indices of [0, nrows)), -1 where unlisted.
std::vector<Index> listed_positions(std::span<const Index> I, Index nrows) {
  std::vector<Index> source(static_cast<std::size_t>(nrows), -1);
  for (std::size_t r = 0; r < I.size(); ++r) source[std::size_t(I[r])] = Index(r);
  return source;
}

}  // namespace

template <class T>
Csr<T> extract_csr(const Csr<T>& a, std::span<const Index> I, const ColumnPlaces& J) {
  const Index count = Index(I.size()), width = Index(J.to.size());
  Csr<T> out;
  out.nrows = count;
  out.ncols = width;
  out.iso_value = a.iso_value;
  out.row_ptr = Array<Offset>(static_cast<std::size_t>(count) + 1, Backend::Cuda);
  if (count == 0 || a.nvals() == 0 || width == 0) {
    out.row_ptr.fill_bytes_with(0);
    return out;
  }
  const Array<Index> rows(std::vector<Index>(I.begin(), I.end()), Backend::Cuda);
  const Array<Offset> at_dev(J.at, Backend::Cuda);
  const Array<Vid> to_dev(J.to, Backend::Cuda);
  Array<Offset> start(static_cast<std::size_t>(count) + 1, Backend::Cuda);
  listed_lengths_kernel<<<grid_for(count + 1), kBlock, 0, stream()>>>(start.data(), a.row_ptr.data(), rows.data(),
                                                                      count);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(start.data(), count + 1);
  const Offset listed = read_device(start.data() + count);
  Array<Offset> first_place(static_cast<std::size_t>(listed) + 1, Backend::Cuda);
  places_kernel<<<grid_for(listed + 1), kBlock, 0, stream()>>>(first_place.data(), a.row_ptr.data(), a.col_idx.data(),
                                                               rows.data(), start.data(), count, at_dev.data(), listed);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(first_place.data(), listed + 1);
  const Offset total = read_device(first_place.data() + listed);
  extracted_rows_kernel<<<grid_for(count + 1), kBlock, 0, stream()>>>(out.row_ptr.data(), start.data(),
                                                                      first_place.data(), count);
  CUDA_CHECK_LAUNCH();
  out.col_idx = Array<Vid>(static_cast<std::size_t>(total), Backend::Cuda);
  if (!a.is_iso()) out.values = Array<T>(static_cast<std::size_t>(total), Backend::Cuda);
  if (total == 0) return out;
  extract_scatter_kernel<<<grid_for(listed), kBlock, 0, stream()>>>(
      out.col_idx.data(), out.values.data(), a.row_ptr.data(), a.col_idx.data(), a.values.data(), rows.data(),
      start.data(), count, at_dev.data(), to_dev.data(), first_place.data(), listed);
  CUDA_CHECK_LAUNCH();
  if (!J.ascending) sort_rows(out);
  return out;
}

template <class T>
Csr<T> place_csr(const Csr<T>& a, Index nrows, Index ncols, std::span<const Index> I, std::span<const Index> J) {
  const std::vector<Index> source = listed_positions(I, nrows);
  Csr<T> s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.iso_value = a.iso_value;
  const Offset nnz = Offset(a.nvals());
  s.row_ptr = Array<Offset>(static_cast<std::size_t>(nrows) + 1, Backend::Cuda);
  const Array<Index> source_dev(source, Backend::Cuda);
  placed_lengths_kernel<<<grid_for(nrows + 1), kBlock, 0, stream()>>>(s.row_ptr.data(), a.row_ptr.data(),
                                                                      source_dev.data(), nrows);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(s.row_ptr.data(), nrows + 1);
  s.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (!a.is_iso()) s.values = Array<T>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (nnz == 0) return s;
  const Array<Index> rows(std::vector<Index>(I.begin(), I.end()), Backend::Cuda);
  const Array<Index> cols(std::vector<Index>(J.begin(), J.end()), Backend::Cuda);
  place_scatter_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(s.col_idx.data(), s.values.data(), s.row_ptr.data(),
                                                               a.row_ptr.data(), a.col_idx.data(), a.values.data(),
                                                               a.nrows, rows.data(), cols.data(), nnz);
  CUDA_CHECK_LAUNCH();
  if (!std::is_sorted(J.begin(), J.end())) sort_rows(s);
  return s;
}

template <class T>
Csr<T> place_value(T x, Index nrows, Index ncols, std::span<const Index> I, std::span<const Index> J) {
  // Every listed row holds x at J's columns: the pattern is written directly, J sorted once on the
  // host, no |I| x |J| intermediate and no row sort.
  const std::vector<Index> source = listed_positions(I, nrows);
  std::vector<Vid> sorted_cols(J.begin(), J.end());
  std::sort(sorted_cols.begin(), sorted_cols.end());
  const Index count = Index(I.size()), width = Index(J.size());
  Csr<T> s;
  s.nrows = nrows;
  s.ncols = ncols;
  s.iso_value = x;
  s.row_ptr = Array<Offset>(static_cast<std::size_t>(nrows) + 1, Backend::Cuda);
  const Array<Index> source_dev(source, Backend::Cuda);
  listed_width_kernel<<<grid_for(nrows + 1), kBlock, 0, stream()>>>(s.row_ptr.data(), source_dev.data(), nrows, width);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(s.row_ptr.data(), nrows + 1);
  const Offset cells = Offset(count) * width;
  s.col_idx = Array<Vid>(static_cast<std::size_t>(cells), Backend::Cuda);
  if (cells == 0) return s;
  const Array<Index> rows(std::vector<Index>(I.begin(), I.end()), Backend::Cuda);
  const Array<Vid> cols(sorted_cols, Backend::Cuda);
  listed_columns_kernel<<<grid_for(cells), kBlock, 0, stream()>>>(s.col_idx.data(), s.row_ptr.data(), rows.data(),
                                                                  count, cols.data(), width);
  CUDA_CHECK_LAUNCH();
  return s;
}

#define GBCUDA_INST_EXTRACT(T)                                                                               \
  template Csr<T> extract_csr<T>(const Csr<T>&, std::span<const Index>, const ColumnPlaces&);                \
  template Csr<T> place_csr<T>(const Csr<T>&, Index, Index, std::span<const Index>, std::span<const Index>); \
  template Csr<T> place_value<T>(T, Index, Index, std::span<const Index>, std::span<const Index>);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_EXTRACT)
#undef GBCUDA_INST_EXTRACT

}  // namespace gbcuda::detail::cuda
