#pragma once
// Operations whose output is a matrix, GraphBLAS style, and the reduction of a matrix:
//   select(C, no_mask, no_accum, pred, A, thunk)      C = the entries of A where pred holds
//                                                     (GrB_select with a GrB_IndexUnaryOp)
//   mxm(C, M, no_accum, semiring, A, B, desc)         C<M, structural> = A * B (or A * B' with
//                                                     desc.transpose_b): GrB_mxm by dot products
//   reduce(monoid, A)                                 the monoid's sum of A's values
//                                                     (GrB_Matrix_reduce to a scalar)
//   reduce(w, mask, accum, monoid, A, desc)           w<mask> = accum(w, row sums of A) (T0: columns)
//   apply(C, no_mask, no_accum, op, A)                C = op(A), A's structure (GrB_Matrix_apply)
//   ewise_add(C, no_mask, no_accum, op, A, B, desc)   C = A (+) B, the union of the patterns
//                                                     (GrB_Matrix_eWiseAdd_BinaryOp)
//   ewise_mult(C, no_mask, no_accum, op, A, B, desc)  C = A (x) B, the intersection
//                                                     (GrB_Matrix_eWiseMult_BinaryOp)
//   transpose(C, no_mask, no_accum, A, desc)          C = A' (GrB_transpose)
//   extract_tuples(A, I, J, X)                        A's entries as coordinates (host memory)
// A Matrix is immutable: C is replaced by the result. These take no mask but mxm's (which must be
// structural and not complemented) and no accumulator (both are compile-time errors otherwise),
// and run in the backend `where` (select, mxm) or where A's copy is (reduce: the host unless only
// a GPU copy exists), on host copies for user-defined operators.
//
// Triangle counting (examples/tc) is the use: L = select(tril, A, -1); C<L> = L * L' over
// PLUS_PAIR; the count is reduce(plus, C).
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "gbcuda/descriptor.hpp"
#include "gbcuda/detail/views.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/operations.hpp"
#include "gbcuda/semiring.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {

namespace detail {

// A CSR in host memory from per-row kept entries: keep(p) says whether entry p of `a` stays, and
// value(p) what it becomes.
template <class TZ, class TA, class Keep, class Value>
Csr<TZ> host_compact(const Csr<TA>& a, Keep&& keep, Value&& value) {
  const Index n = a.nrows;
  std::vector<Offset> counts(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < n; ++i) {
    Offset c = 0;
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) c += keep(i, p) ? 1 : 0;
    counts[std::size_t(i) + 1] = c;
  }
  for (Index i = 0; i < n; ++i) counts[std::size_t(i) + 1] += counts[std::size_t(i)];
  Csr<TZ> out;
  out.nrows = a.nrows;
  out.ncols = a.ncols;
  out.row_ptr = Array<Offset>(counts, Backend::Host);
  out.col_idx = Array<Vid>(static_cast<std::size_t>(counts.back()), Backend::Host);
  out.values = Array<TZ>(static_cast<std::size_t>(counts.back()), Backend::Host);
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < n; ++i) {
    Offset q = counts[std::size_t(i)];
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      if (keep(i, p)) {
        out.col_idx[std::size_t(q)] = a.col_idx[p];
        out.values[std::size_t(q)] = value(i, p);
        ++q;
      }
  }
  return out;
}

// Sorted-list intersection of row i of `a` and row j of `bt` under the semiring (the dot product
// A(i,:) . B(:,j) with B' given by rows): whether a term exists, and the sum.
template <class S, class TA, class TB>
bool host_dot(const S& s, const Csr<TA>& a, Index i, const Csr<TB>& bt, Index j, typename S::value_type& acc) {
  using Z = typename S::value_type;
  Offset p = a.row_ptr[i], pe = a.row_ptr[i + 1], q = bt.row_ptr[j], qe = bt.row_ptr[j + 1];
  bool has = false;
  while (p < pe && q < qe) {
    const Vid ka = a.col_idx[p], kb = bt.col_idx[q];
    if (ka < kb) ++p;
    else if (kb < ka) ++q;
    else {
      const TA x = a.is_iso() ? a.iso_value : a.values[p];
      const TB y = bt.is_iso() ? bt.iso_value : bt.values[q];
      const Z t = s.multiply(x, y, ka);
      acc = has ? Z(s.add(acc, t)) : t;
      has = true;
      ++p, ++q;
    }
  }
  return has;
}

}  // namespace detail

template <class T, class Op, class Accum>
void select(Matrix<T>& C, const NoMask&, const Accum&, const Op& op, const Matrix<T>& A, double thunk,
            Backend where = Backend::Host) try {
  static_assert(std::is_same_v<Accum, NoAccum>, "select into a matrix takes no accumulator");
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    C = Matrix<T>::from_valid_csr(detail::cuda::select_csr<T>(A.csr(Backend::Cuda), Op::kind, thunk));
    return;
  }
#endif
  (void)where;
  const Csr<T>& a = A.csr(Backend::Host);
  auto keep = [&](Index i, Offset p) {
    return op(a.is_iso() ? a.iso_value : a.values[p], i, Index(a.col_idx[p]), thunk);
  };
  auto value = [&](Index, Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  C = Matrix<T>::from_valid_csr(detail::host_compact<T>(a, keep, value));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("select");
}

// C<M, structural> = A * B (desc.transpose_b: A * B'), by one dot product per entry of M; C has
// an entry where M has one and the product has at least one term. Semirings: any; on the GPU the
// built-in ones (cuda_supports_semiring), user-defined ones on host copies.
template <class TC, class TM, class Accum, class S, class TA, class TB>
void mxm(Matrix<TC>& C, const Matrix<TM>& M, const Accum&, const S& s, const Matrix<TA>& A, const Matrix<TB>& B,
         const Descriptor& d = {}, Backend where = Backend::Host) try {
  static_assert(std::is_same_v<Accum, NoAccum>, "mxm into a matrix takes no accumulator");
  static_assert(std::is_same_v<TC, typename S::value_type>, "C must have the semiring's value type");
  if (!d.mask_structural || d.mask_complement)
    throw Error(Status::NotImplemented, "mxm: only a structural, not complemented mask is offered (desc::S)");
  if (d.transpose_a) throw Error(Status::NotImplemented, "mxm: transpose_a is not offered; transpose A yourself");
  const Index inner_b = d.transpose_b ? B.ncols() : B.nrows();
  const Index cols_b = d.transpose_b ? B.nrows() : B.ncols();
  if (A.ncols() != inner_b) detail::throw_dimension_mismatch("mxm inner dimension", A.ncols(), inner_b);
  if (M.nrows() != A.nrows()) detail::throw_dimension_mismatch("mxm mask rows", A.nrows(), M.nrows());
  if (M.ncols() != cols_b) detail::throw_dimension_mismatch("mxm mask columns", cols_b, M.ncols());
  const Matrix<TB>& Bt = d.transpose_b ? B : B.transpose();  // rows of B' = columns of B
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_semiring<S, TA, TB>() && detail::is_value_type_v<TM>) {
    if (where == Backend::Cuda) {
      constexpr detail::cuda::SemiringCode code = detail::cuda::semiring_code<S>();
      C = Matrix<TC>::from_valid_csr(detail::cuda::mxm_dot<TC>(detail::value_free(detail::view(M.csr(Backend::Cuda))),
                                                               code, detail::typed(detail::view(A.csr(Backend::Cuda))),
                                                               detail::typed(detail::view(Bt.csr(Backend::Cuda)))));
      return;
    }
  } else if (where == Backend::Cuda) {
    detail::note_host_fallback();
  }
#endif
  (void)where;
  const Csr<TM>& m = M.csr(Backend::Host);
  const Csr<TA>& a = A.csr(Backend::Host);
  const Csr<TB>& bt = Bt.csr(Backend::Host);
  // An Array, not a std::vector: std::vector<bool> packs values into shared words, which the
  // threads below would race on.
  detail::Array<TC> vals(static_cast<std::size_t>(m.nvals()), Backend::Host);
  std::vector<std::uint8_t> has(static_cast<std::size_t>(m.nvals()));
#pragma omp parallel for schedule(dynamic, 64)
  for (Index i = 0; i < m.nrows; ++i)
    for (Offset p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) {
      TC acc{};
      has[std::size_t(p)] = detail::host_dot(s, a, i, bt, Index(m.col_idx[p]), acc) ? 1 : 0;
      vals[std::size_t(p)] = acc;
    }
  C = Matrix<TC>::from_valid_csr(detail::host_compact<TC>(
      m, [&](Index, Offset p) { return has[std::size_t(p)] != 0; },
      [&](Index, Offset p) { return vals[std::size_t(p)]; }));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("mxm");
}

// C = op(A) (GrB_Matrix_apply): A's structure, each value mapped by a unary operator or a bound
// binary one (bind_first / bind_second). In the backend `where`; on the GPU for the built-in
// operators over A's type (cuda_supports_unary_op), else on host copies.
template <class TC, class Accum, class Op, class TA>
void apply(Matrix<TC>& C, const NoMask&, const Accum&, const Op& op, const Matrix<TA>& A,
           Backend where = Backend::Host) try {
  static_assert(std::is_same_v<Accum, NoAccum>, "apply into a matrix takes no accumulator");
  static_assert(std::is_same_v<TC, typename Op::result_type>, "C must have the operator's result type");
  Backend b = where;
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_unary_op<Op, TA>() && std::is_same_v<TC, TA>)) {
    if (b == Backend::Cuda) detail::note_host_fallback();
    b = Backend::Host;
  }
  const Csr<TA>& a = A.csr(b);
  Csr<TC> c;
  c.nrows = a.nrows;
  c.ncols = a.ncols;
  c.row_ptr = a.row_ptr.clone(b);
  c.col_idx = a.col_idx.clone(b);
  if (a.is_iso()) {
    c.iso_value = TC(op(a.iso_value));  // one value: mapped once
  } else if (b == Backend::Host) {
    c.values = detail::Array<TC>(static_cast<std::size_t>(a.nvals()), Backend::Host);
    TC* out = c.values.data();
    const TA* in = a.values.data();
    detail::host::util::for_each_index(a.nvals(), detail::host::util::kParallelMin,
                                       [&](Index p) { out[p] = TC(op(in[p])); });
  }
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_unary_op<Op, TA>() && std::is_same_v<TC, TA>) {
    detail::VecView<TA> v;  // the values as one dense vector
    v.n = a.nvals();
    v.form = VectorForm::Dense;
    v.nvals = a.nvals();
    v.values = a.values.data();
    detail::VectorStore<TC> t;
    detail::cuda::apply(t, detail::MaskView{}, detail::cuda::element_op<Op, TA>(op), v);
    c.values = std::move(t.values);
  }
#endif
  Matrix<TC> result = Matrix<TC>::from_valid_csr(std::move(c));
  if (where != b) result.csr(where);  // ran on host copies: the result is wanted in `where`
  C = std::move(result);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("apply");
}

namespace detail {

// C = A (+) B or A (x) B on the host, row by row: a merge of the two rows' sorted columns, counted
// first, then written. `add`: the union (op where both have an entry, else the one value cast to
// TC); else the intersection.
template <class TC, class Op, class TA, class TB>
Csr<TC> host_ewise_matrix(const Op& op, const Csr<TA>& a, const Csr<TB>& b, bool add) {
  const Index n = a.nrows;
  auto av = [&](Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  auto bv = [&](Offset p) { return b.is_iso() ? b.iso_value : b.values[p]; };
  // One row's merge: emit(col, value) for each output entry, in column order.
  auto merge_row = [&](Index i, auto&& emit) {
    Offset p = a.row_ptr[i], q = b.row_ptr[i];
    const Offset pe = a.row_ptr[i + 1], qe = b.row_ptr[i + 1];
    while (p < pe || q < qe) {
      const Vid ca = p < pe ? a.col_idx[p] : Vid(-1), cb = q < qe ? b.col_idx[q] : Vid(-1);
      if (p < pe && q < qe && ca == cb) {
        emit(ca, [&] { return cast_to<TC>(op(av(p), bv(q))); });
        ++p;
        ++q;
      } else if (q >= qe || (p < pe && ca < cb)) {
        if (add) emit(ca, [&] { return cast_to<TC>(av(p)); });
        ++p;
      } else {
        if (add) emit(cb, [&] { return cast_to<TC>(bv(q)); });
        ++q;
      }
    }
  };
  Csr<TC> c;
  c.nrows = n;
  c.ncols = a.ncols;
  std::vector<Offset> ptr(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < n; ++i) {
    Offset k = 0;
    merge_row(i, [&](Vid, auto&&) { ++k; });
    ptr[std::size_t(i) + 1] = k;
  }
  for (Index i = 0; i < n; ++i) ptr[std::size_t(i) + 1] += ptr[std::size_t(i)];
  c.row_ptr = Array<Offset>(ptr, Backend::Host);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(ptr.back()), Backend::Host);
  c.values = Array<TC>(static_cast<std::size_t>(ptr.back()), Backend::Host);
  Vid* col = c.col_idx.data();
  TC* val = c.values.data();
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < n; ++i) {
    Offset k = ptr[std::size_t(i)];
    merge_row(i, [&](Vid j, auto&& value) {
      col[k] = j;
      val[k] = value();
      ++k;
    });
  }
  return c;
}

template <class TC, class Accum, class Op, class TA, class TB>
void ewise_matrix(Matrix<TC>& C, const Op& op, const Matrix<TA>& A, const Matrix<TB>& B, const Descriptor& d,
                  Backend where, bool add, const char* name) {
  static_assert(std::is_same_v<Accum, NoAccum>, "an element-wise operation into a matrix takes no accumulator");
  const Matrix<TA>& a = d.transpose_a ? A.transpose() : A;
  const Matrix<TB>& b = d.transpose_b ? B.transpose() : B;
  if (a.nrows() != b.nrows()) throw_dimension_mismatch((std::string(name) + " rows").c_str(), a.nrows(), b.nrows());
  if (a.ncols() != b.ncols()) throw_dimension_mismatch((std::string(name) + " columns").c_str(), a.ncols(), b.ncols());
  if (where == Backend::Cuda) note_host_fallback();  // no GPU merge yet: host copies
  Matrix<TC> result =
      Matrix<TC>::from_valid_csr(host_ewise_matrix<TC>(op, a.csr(Backend::Host), b.csr(Backend::Host), add));
  if (where != Backend::Host) result.csr(where);
  C = std::move(result);
}

}  // namespace detail

// C = A (+) B (GrB_Matrix_eWiseAdd_BinaryOp): the union of A's and B's patterns; op(a, b) where
// both have an entry, else the one value (cast to C's type). desc.transpose_a / transpose_b take
// A' / B'. No mask or accumulator (compile-time errors). Computed on the host: with `where` =
// Cuda on host copies (host_fallbacks() counts it), the result then in GPU memory.
template <class TC, class Accum, class Op, class TA, class TB>
void ewise_add(Matrix<TC>& C, const NoMask&, const Accum&, const Op& op, const Matrix<TA>& A, const Matrix<TB>& B,
               const Descriptor& d = {}, Backend where = Backend::Host) try {
  detail::ewise_matrix<TC, Accum>(C, op, A, B, d, where, true, "ewise_add");
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_add");
}

// C = A (x) B (GrB_Matrix_eWiseMult_BinaryOp): the intersection of the patterns, op(a, b); as
// ewise_add otherwise.
template <class TC, class Accum, class Op, class TA, class TB>
void ewise_mult(Matrix<TC>& C, const NoMask&, const Accum&, const Op& op, const Matrix<TA>& A, const Matrix<TB>& B,
                const Descriptor& d = {}, Backend where = Backend::Host) try {
  detail::ewise_matrix<TC, Accum>(C, op, A, B, d, where, false, "ewise_mult");
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_mult");
}

// C = A' (GrB_transpose; desc.transpose_a: C = A), in the backend `where` (the GPU transposes
// there). A Matrix caches its transpose, so C shares that storage. No mask or accumulator.
template <class T, class Accum>
void transpose(Matrix<T>& C, const NoMask&, const Accum&, const Matrix<T>& A, const Descriptor& d = {},
               Backend where = Backend::Host) try {
  static_assert(std::is_same_v<Accum, NoAccum>, "transpose into a matrix takes no accumulator");
  if (!d.transpose_a) A.csr(where);  // the transpose is computed where A's copy is
  Matrix<T> result = d.transpose_a ? A : A.transpose();
  result.csr(where);
  C = std::move(result);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("transpose");
}

// w<mask> = accum(w, the monoid's sum of each row of A) (GrB_Matrix_reduce_Monoid to a vector;
// desc.transpose_a or desc::T0: of each column). Rows with no entries give no entry. Runs as
// w = A * 1 over the semiring (monoid, FIRST), so the product's load-balanced kernels do the work.
template <class TW, class MaskArg, class Accum, class Monoid, class TA>
void reduce(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Monoid& mon, const Matrix<TA>& A,
            const Descriptor& d = {}) try {
  using Z = typename Monoid::value_type;
  const Index in_n = d.transpose_a ? A.nrows() : A.ncols();
  const Vector<bool> ones = Vector<bool>::full(in_n, true, w.backend());  // FIRST never reads it
  mxv(w, mask, accum, Semiring<Monoid, First<Z>>{mon, {}}, A, ones, d);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("reduce");
}

// A's entries as coordinate lists in host memory, row by row, columns ascending in each row
// (GrB_Matrix_extractTuples). The vector version is Vector::extract_tuples.
template <class T>
void extract_tuples(const Matrix<T>& A, std::vector<Index>& rows, std::vector<Index>& cols, std::vector<T>& vals) try {
  const Csr<T>& a = A.csr(Backend::Host);
  const auto nnz = static_cast<std::size_t>(a.nvals());
  std::vector<Index> r(nnz), c(nnz);  // all three made, then handed over: a failure changes none
  std::vector<T> x(nnz);
  for (Index i = 0; i < a.nrows; ++i)
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      r[std::size_t(p)] = i;
      c[std::size_t(p)] = a.col_idx[p];
      x[std::size_t(p)] = a.is_iso() ? a.iso_value : a.values[p];
    }
  rows.swap(r);
  cols.swap(c);
  vals.swap(x);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract_tuples");
}
template <class T>
void extract_tuples(const Vector<T>& u, std::vector<Index>& idx, std::vector<T>& vals) try {
  u.extract_tuples(idx, vals);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract_tuples");
}

// The monoid's sum of A's stored values (its identity when A has none).
template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const Matrix<T>& A, Backend where = Backend::Host) try {
  using Z = typename Monoid::value_type;
  const Csr<T>& a = A.csr(where);
  if (a.is_iso()) {  // every value the same: fold it nnz times (a short loop by doubling)
    if (a.nvals() == 0) return mon.identity();
    // From the first term, not the identity (ANY(identity, x) may be the identity).
    Z acc = Z(a.iso_value), x = acc;
    for (Index k = a.nvals() - 1; k > 0; k >>= 1, x = mon(x, x))
      if (k & 1) acc = mon(acc, x);
    return acc;
  }
  detail::VecView<T> v;
  v.n = a.nvals();
  v.form = VectorForm::Dense;
  v.nvals = a.nvals();
  v.values = a.values.data();
  if (where == Backend::Host) return detail::host::reduce(mon, v);
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_monoid<Monoid, T>()) return detail::cuda::reduce(mon, v);
#endif
  return reduce(mon, A, Backend::Host);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("reduce");
}

}  // namespace gbcuda
