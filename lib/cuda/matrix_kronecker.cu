// C = kron(A, B) on the device (GrB_Matrix_kronecker_BinaryOp): row i * mb + k of C holds
// op(A(i, j), B(k, l)) at column j * nb + l for every entry pair of A's row i and B's row k, in
// that order, which is C's column order since both rows are sorted. Spread over C's entries: a
// CUB sum of the rows' lengths (len_a(i) * len_b(k)) gives each row its start, and entry e of
// row r is the pair (t / len_b(k), t % len_b(k)) for t = e - start(r). One count is read back.
#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

__global__ void kron_lengths_kernel(Offset* __restrict__ len, const Offset* __restrict__ a_ptr,
                                    const Offset* __restrict__ b_ptr, Index mb, Index rows) {
  for (Index r = global_thread(); r <= rows; r += grid_threads()) {
    if (r == rows) {
      len[r] = 0;
      continue;
    }
    const Index i = r / mb, k = r % mb;
    len[r] = (a_ptr[i + 1] - a_ptr[i]) * (b_ptr[k + 1] - b_ptr[k]);
  }
}

template <class T>
__global__ void kron_scatter_kernel(Vid* __restrict__ out_col, T* __restrict__ out_val,
                                    const Offset* __restrict__ out_ptr, Index rows, Offset total, BinCode op,
                                    CsrView<T> a, CsrView<T> b, Index mb, Index nb) {
  for (Offset e = global_thread(); e < total; e += grid_threads()) {
    const Index r = row_of(out_ptr, rows, e);
    const Index i = r / mb, k = r % mb;
    const Offset t = e - out_ptr[r], lb = b.row_ptr[k + 1] - b.row_ptr[k];
    const Offset p = a.row_ptr[i] + t / lb, q = b.row_ptr[k] + t % lb;
    out_col[e] = Vid(Index(a.col_idx[p]) * nb + b.col_idx[q]);
    out_val[e] = bin_apply(op, a.value(p), b.value(q));
  }
}

}  // namespace

template <class T>
Csr<T> kronecker_csr(const Csr<T>& a, const Csr<T>& b, BinCode op) {
  const Index mb = b.nrows, nb = b.ncols, rows = a.nrows * mb;
  Csr<T> out;
  out.nrows = rows;
  out.ncols = a.ncols * nb;
  out.row_ptr = Array<Offset>(static_cast<std::size_t>(rows) + 1, Backend::Cuda);
  if (rows == 0 || a.nvals() == 0 || b.nvals() == 0) {
    out.row_ptr.fill_bytes_with(0);
    return out;
  }
  kron_lengths_kernel<<<grid_for(rows + 1), kBlock, 0, stream()>>>(out.row_ptr.data(), a.row_ptr.data(),
                                                                   b.row_ptr.data(), mb, rows);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(out.row_ptr.data(), rows + 1);
  const Offset total = read_device(out.row_ptr.data() + rows);
  out.col_idx = Array<Vid>(static_cast<std::size_t>(total), Backend::Cuda);
  out.values = Array<T>(static_cast<std::size_t>(total), Backend::Cuda);
  kron_scatter_kernel<<<grid_for(total), kBlock, 0, stream()>>>(
      out.col_idx.data(), out.values.data(), out.row_ptr.data(), rows, total, op, view(a), view(b), mb, nb);
  CUDA_CHECK_LAUNCH();
  return out;
}

#define GBCUDA_INST_KRONECKER(T) template Csr<T> kronecker_csr<T>(const Csr<T>&, const Csr<T>&, BinCode);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_KRONECKER)
#undef GBCUDA_INST_KRONECKER

}  // namespace gbcuda::detail::cuda
