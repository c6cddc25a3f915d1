#pragma once
// Internal pieces shared by the CUDA backend's translation units: run-time codes for the
// built-in operators (one kernel per value type switches on them instead of one kernel per
// operator, which keeps nvcc's work small), and helpers defined once in vector_forms.cu.
#include <type_traits>

#include "cuda_check.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda {

// z = op(x, y) through the same operator structs the host backend uses. BinCode::None is never
// passed here.
template <class T>
__device__ __forceinline__ T bin_apply(BinCode c, T x, T y) {
  switch (c) {
#define GBCUDA_BIN_APPLY_CASE(NAME, ...) \
  case BinCode::NAME: return NAME<T>{}(x, y);
    GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_BIN_APPLY_CASE)
#undef GBCUDA_BIN_APPLY_CASE
    case BinCode::None: break;
  }
  return y;
}

// ---- unary operators (apply) ----------------------------------------------------------------
template <class T>
__device__ __forceinline__ T un_apply(UnCode c, T x) {
  switch (c) {
    case UnCode::Identity: return Identity<T>{}(x);
    case UnCode::AdditiveInverse: return AdditiveInverse<T>{}(x);
    case UnCode::Abs: return Abs<T>{}(x);
    case UnCode::One: return One<T>{}(x);
    case UnCode::LogicalNot: return LogicalNot<T>{}(x);
    case UnCode::MultiplicativeInverse: return MultiplicativeInverse<T>{}(x);
  }
  return x;
}

// ---- element operators (apply, select) -------------------------------------------------------
// The value an entry x at position i takes, and whether it stays (select's predicate).
template <class T>
__device__ __forceinline__ T element_value(const ElementOp<T>& op, T x) {
  switch (op.kind) {
    case ElementKind::Unary: return un_apply(op.unary, x);
    case ElementKind::BindFirst: return bin_apply(op.binary, op.scalar, x);
    case ElementKind::BindSecond: return bin_apply(op.binary, x, op.scalar);
    case ElementKind::Select: break;
  }
  return x;
}
template <class T>
__device__ __forceinline__ bool element_keeps(const ElementOp<T>& op, T x, Index i) {
  return op.kind != ElementKind::Select || select_holds(op.select, x, i, 0, op.thunk);
}

// A product's output: Bitmap, n values and n flags, contents undefined.
template <class Z>
VectorStore<Z> bitmap_output(Index n) {
  VectorStore<Z> out = VectorStore<Z>::empty(n, Backend::Cuda);
  out.form = VectorForm::Bitmap;
  out.values = Array<Z>(static_cast<std::size_t>(n), Backend::Cuda);
  out.bitmap = Array<std::uint8_t>(static_cast<std::size_t>(n), Backend::Cuda);
  return out;
}

// ---- helpers defined in vector_forms.cu -----------------------------------------------------
// The positions i < n with flags[i] != 0, ascending, into out (room for n); their number is
// written to *count_out in device memory (stable compaction with CUB, no host wait).
void select_flagged(Scratch& scratch, const std::uint8_t* flags, Index n, Vid* out, Index* count_out);
// dst[0, count) = src[0, count), count given by value or (count_dev) in device memory, at most
// `capacity`. T: the value types and Vid.
template <class T>
void copy_prefix(T* dst, const T* src, Index count, const Index* count_dev, Index capacity);

// ---- defined in matrix_ops.cu ---------------------------------------------------------------
// Keeps the entries p of a CSR (n rows, row_ptr in device memory, nnz entries) whose keep[p] is
// 1. `keep` holds nnz + 1 Offsets (the last 0); it is overwritten with its exclusive prefix sum,
// each kept entry's new position. Returns the new row offsets (n + 1, device) and sets `kept`
// (read back: one host wait, the caller needs the size to allocate).
Array<Offset> compact_rows(const Offset* row_ptr, Index n, Offset* keep, Index nnz, Offset& kept);
// x[0, count) replaced by its exclusive prefix sum (CUB; temporary storage from the pool).
void exclusive_sum_in_place(Offset* x, Offset count);
// Each row's columns ascending (rows hold distinct columns): cols_in (nnz, device) sorted row by
// row into cols_out. `from` (nnz, device, or null for none) travels with them: from_in[p] (or p
// itself where from_in is null) lands beside column p's new place, so that values of any type
// follow by one gather_values_kernel and the sort is instantiated once for every value type.
void sort_row_columns(const Vid* cols_in, Vid* cols_out, Offset nnz, const Offset* row_ptr, Index nrows,
                      const Offset* from_in, Offset* from_out);
// out[q] = in[from[q]] for q < n.
template <class T>
__global__ void gather_values_kernel(T* __restrict__ out, const T* __restrict__ in, const Offset* __restrict__ from,
                                     Offset n) {
  for (Offset q = global_thread(); q < n; q += grid_threads()) out[q] = in[from[q]];
}
// The row of entry p: the last i with row_ptr[i] <= p (row_ptr has n + 1 entries).
__device__ __forceinline__ Index row_of(const Offset* row_ptr, Index n, Offset p) {
  Index lo = 0, hi = n;
  while (hi - lo > 1) {
    const Index mid = (lo + hi) / 2;
    if (row_ptr[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

}  // namespace gbcuda::detail::cuda
