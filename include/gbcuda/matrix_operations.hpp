#pragma once
// Operations whose output is a matrix, GraphBLAS style, and the reduction of a matrix:
//   select(C, mask, accum, pred, A, thunk[, desc])    C<mask> = accum(C, the entries of A where pred
//                                                     holds) (GrB_select with a GrB_IndexUnaryOp:
//                                                     a SelectOp, or any callable
//                                                     (x, i, j, thunk) -> bool, run on the host)
//   mxm(C, mask, accum, semiring, A, B, desc)         C<mask> = accum(C, A * B) (GrB_mxm): dot
//                                                     products on a mask's positions, Gustavson's
//                                                     row-by-row products (or cuSPARSE) without one
//   reduce(monoid, A)                                 the monoid's sum of A's values
//                                                     (GrB_Matrix_reduce to a scalar)
//   reduce(s, accum, monoid or binary_op, A)          s = accum(s, that sum) into a Scalar
//                                                     (GrB_Matrix_reduce_{Monoid,BinaryOp}_Scalar)
//   reduce(w, mask, accum, monoid, A, desc)           w<mask> = accum(w, row sums of A) (T0: columns)
//   reduce(w, mask, accum, binary_op, A, desc)        the same with PLUS, TIMES, MIN, MAX, LOR or LAND
//                                                     (GrB_Matrix_reduce_BinaryOp)
//   apply(C, mask, accum, op, A[, desc])              C<mask> = accum(C, op(A)) (GrB_Matrix_apply)
//   apply(C, mask, accum, op, A, y[, desc])           ... op(A(i, j), i, j, y): an index-unary
//                                                     operator (GrB_Matrix_apply_IndexOp_<T>)
//   ewise_add(C, mask, accum, op, A, B, desc)         ... A (+) B, the union of the patterns
//                                                     (GrB_Matrix_eWiseAdd_BinaryOp)
//   ewise_mult(C, mask, accum, op, A, B, desc)        ... A (x) B, the intersection
//                                                     (GrB_Matrix_eWiseMult_BinaryOp)
//   transpose(C, mask, accum, A, desc)                ... A' (GrB_transpose)
//   extract(C, mask, accum, A, I, J, desc)            ... A(I, J) (GrB_Matrix_extract)
//   extract_col(w, mask, accum, A, I, j, desc)        w<mask> = accum(w, A(I, j)) (GrB_Col_extract)
//   assign_row(C, mask, accum, u, i, J, desc)         C<mask>(i, J) = accum(C(i, J), u') (GrB_Row_assign)
//   assign_col(C, mask, accum, u, I, j, desc)         C<mask>(I, j) = accum(C(I, j), u) (GrB_Col_assign)
//   assign(C, mask, accum, A or x, I, J, desc)        C<mask>(I, J) = accum(C(I, J), A or x)
//                                                     (GrB_Matrix_assign, GrB_Matrix_assign_<T>)
//   subassign(C, mask, accum, A or x, I, J, desc)     C(I, J)<mask> = accum(C(I, J), A or x), the
//                                                     mask of the region's shape (GxB_subassign)
//   subassign_row / subassign_col(C, mask, accum, u, ...)  the same on a row or a column
//                                                     (GxB_Row_subassign, GxB_Col_subassign)
//   kronecker(C, mask, accum, op, A, B[, desc])       ... kron(A, B) (GrB_Matrix_kronecker_BinaryOp)
//   diag(C, v, k)                                     C = v on diagonal k (GrB_Matrix_diag)
//   resize(A, nrows, ncols), resize(u, n)             new sizes, the entries outside dropped
//                                                     (GrB_Matrix_resize, GrB_Vector_resize)
//   extract_tuples(A, I, J, X)                        A's entries as coordinates (host memory)
// Index lists (I, J) are any IndexList (index_list.hpp): a range of any integer type, or `all`.
// The mask is no_mask or a Matrix of any value type; the accumulator no_accum or a binary
// operator; the descriptor's replace, mask_complement and mask_structural act as in GraphBLAS
// (detail::write_matrix). Without a mask or an accumulator C is replaced by the result (a 0 x 0
// C, default-constructed, is an empty matrix of the result's shape); with either, C's old entries
// are read, and the result is merged with them in `where` (on the GPU for the built-in
// accumulators: cuda::merge_csr). The operations run in the backend `where` (select, mxm, apply,
// transpose, ewise_add, ewise_mult and extract) or on host copies.
//
// Triangle counting (examples/tc) is the use: L = select(tril, A, -1); C<L> = L * L' over
// PLUS_PAIR; the count is reduce(plus, C).
#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "gbcuda/descriptor.hpp"
#include "gbcuda/detail/column_places.hpp"
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

// A CSR in host memory, row by row: count(i) entries of row i, then fill(i, col, val) writes them
// (columns ascending), both called in parallel over the rows. An exception from them is caught
// inside the parallel loops (none may leave an OpenMP region) and the first one thrown again after.
template <class T, class Count, class Fill>
Csr<T> host_rows(Index nrows, Index ncols, const Count& count, const Fill& fill) {
  Csr<T> c;
  c.nrows = nrows;
  c.ncols = ncols;
  std::vector<Offset> ptr(static_cast<std::size_t>(nrows) + 1, 0);
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  auto guarded = [&](auto&& body) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      body();
    } catch (...) {
#pragma omp critical(gbcuda_host_rows)
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < nrows; ++i) guarded([&] { ptr[std::size_t(i) + 1] = count(i); });
  if (error) std::rethrow_exception(error);
  for (Index i = 0; i < nrows; ++i) ptr[std::size_t(i) + 1] += ptr[std::size_t(i)];
  c.row_ptr = Array<Offset>(ptr, Backend::Host);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(ptr.back()), Backend::Host);
  c.values = Array<T>(static_cast<std::size_t>(ptr.back()), Backend::Host);
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < nrows; ++i)
    guarded([&] { fill(i, c.col_idx.data() + ptr[std::size_t(i)], c.values.data() + ptr[std::size_t(i)]); });
  if (error) std::rethrow_exception(error);
  return c;
}

// `result` (built on the host) as C, moved to `where`; a GPU result counts as a host fallback.
template <class T>
void place_result(Matrix<T>& C, Csr<T>&& result, Backend where) {
  if (where == Backend::Cuda) note_host_fallback();
  Matrix<T> m = Matrix<T>::from_valid_csr(std::move(result));
  if (where != Backend::Host) m.csr(where);
  C = std::move(m);
}

// The masks a matrix operation takes: none, or a matrix of any value type.
template <class M>
struct is_matrix_mask : std::false_type {};
template <>
struct is_matrix_mask<NoMask> : std::true_type {};
template <class T>
struct is_matrix_mask<Matrix<T>> : std::true_type {};
// A matrix mask's value type (bool for no_mask).
template <class M>
struct mask_value {
  using type = bool;
};
template <class T>
struct mask_value<Matrix<T>> {
  using type = T;
};
template <class M>
using mask_value_t = typename mask_value<M>::type;

// GraphBLAS's last step of an operation with a matrix output, C<M, accum, replace> = T, on host
// CSRs of one shape: Z = T without an accumulator, else the union of C and T with accum(c, t)
// where both have an entry; then C(i, j) = Z(i, j) where the mask allows (i, j), and elsewhere
// C's old entry, or none with d.replace. The mask `m` (null: none) allows where it has an entry
// (d.mask_structural) or a non-zero one, or the opposite with d.mask_complement; no mask allows
// every position, or none with d.mask_complement (GraphBLAS's complemented null mask).
template <class TC, class TM, class Accum>
Csr<TC> host_write_matrix(const Csr<TC>& c, const Csr<TM>* m, const Accum& accum, const Csr<TC>& t,
                          const Descriptor& d) {
  auto cv = [&](Offset p) { return c.is_iso() ? c.iso_value : c.values[p]; };
  auto tv = [&](Offset p) { return t.is_iso() ? t.iso_value : t.values[p]; };
  // One row's entries, emit(col, value) in column order: a merge of C's, T's and the mask's row.
  auto merge = [&](Index i, auto&& emit) {
    Offset pc = c.row_ptr[i], pt = t.row_ptr[i], pm = m ? m->row_ptr[i] : 0;
    const Offset ec = c.row_ptr[i + 1], et = t.row_ptr[i + 1], em = m ? m->row_ptr[i + 1] : 0;
    while (pc < ec || pt < et) {
      const Vid jc = pc < ec ? c.col_idx[pc] : std::numeric_limits<Vid>::max();
      const Vid jt = pt < et ? t.col_idx[pt] : std::numeric_limits<Vid>::max();
      const Vid j = std::min(jc, jt);
      const bool hc = jc == j, ht = jt == j;
      bool allowed = !d.mask_complement;  // no mask: every position, or none when complemented
      if (m) {
        while (pm < em && m->col_idx[pm] < j) ++pm;
        const bool present = pm < em && m->col_idx[pm] == j &&
                             (d.mask_structural || (m->is_iso() ? m->iso_value : m->values[pm]) != TM(0));
        allowed = present != d.mask_complement;
      }
      if (allowed) {
        if constexpr (host::util::has_accum_v<Accum>) {
          if (hc && ht) emit(j, host::util::accumulate<TC>(accum, cv(pc), tv(pt)));
          else if (hc) emit(j, cv(pc));
          else emit(j, tv(pt));
        } else if (ht) {
          emit(j, tv(pt));
        }
      } else if (hc && !d.replace) {
        emit(j, cv(pc));
      }
      pc += hc;
      pt += ht;
    }
  };
  return host_rows<TC>(
      t.nrows, t.ncols,
      [&](Index i) {
        Offset k = 0;
        merge(i, [&](Vid, const TC&) { ++k; });
        return k;
      },
      [&](Index i, Vid* col, TC* val) {
        merge(i, [&](Vid j, const TC& x) {
          *col++ = j;
          *val++ = x;
        });
      });
}

// C<mask, accum, d.replace> = T, the result of an operation named `name` (GraphBLAS's write):
// without a mask (not complemented) or an accumulator C becomes T; else C, the mask and T are
// merged: on the GPU when `where` is Cuda and the accumulator a built-in one over TC
// (cuda::merge_csr, a valued mask first reduced to its non-zero entries), else on the host
// (host_write_matrix) and the result moved to `where`. on_gpu: T was computed on the GPU, so a
// merge on the host counts as a host fallback (an operation that ran on host copies counted it).
// A 0 x 0 C (default-constructed or moved-from) counts as an empty matrix of T's shape.
template <class TC, class MaskArg, class Accum>
void write_matrix(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Descriptor& d, Matrix<TC>&& t,
                  Backend where, const char* name, bool on_gpu) {
  static_assert(is_matrix_mask<MaskArg>::value, "the mask of an operation into a matrix is a Matrix or no_mask");
  if constexpr (std::is_same_v<MaskArg, NoMask> && !host::util::has_accum_v<Accum>) {
    if (!d.mask_complement) {
      C = std::move(t);
      return;
    }
  }
  {
    const std::string what(name);
    if constexpr (!std::is_same_v<MaskArg, NoMask>) {
      if (mask.nrows() != t.nrows()) throw_dimension_mismatch((what + " mask rows").c_str(), t.nrows(), mask.nrows());
      if (mask.ncols() != t.ncols())
        throw_dimension_mismatch((what + " mask columns").c_str(), t.ncols(), mask.ncols());
    }
    const bool c_empty = C.nrows() == 0 && C.ncols() == 0;
    if (!c_empty && C.nrows() != t.nrows())
      throw_dimension_mismatch((what + " output rows").c_str(), t.nrows(), C.nrows());
    if (!c_empty && C.ncols() != t.ncols())
      throw_dimension_mismatch((what + " output columns").c_str(), t.ncols(), C.ncols());
    auto empty_c = [&](Backend in) {
      Csr<TC> none;
      none.nrows = t.nrows();
      none.ncols = t.ncols();
      none.row_ptr = Array<Offset>(std::vector<Offset>(static_cast<std::size_t>(t.nrows()) + 1, 0), in);
      return none;
    };
#if GBCUDA_HAVE_CUDA
    if constexpr (cuda_supports_accum<Accum, TC>()) {
      if (where == Backend::Cuda) {  // the merge on the device: the mask's allowing entries as a pattern
        cuda::MergeRule r;
        r.kind = cuda::MergeKind::Write;
        r.op = cuda::bin_code<Accum, TC>();
        r.mask_complement = d.mask_complement;
        r.replace = d.replace;
        Csr<mask_value_t<MaskArg>> nonzero;  // a valued mask's non-zero entries
        if constexpr (!std::is_same_v<MaskArg, NoMask>) {
          using TM = mask_value_t<MaskArg>;
          const Csr<TM>* pattern = &mask.csr(Backend::Cuda);
          if (!d.mask_structural) {
            nonzero = cuda::select_csr<TM>(*pattern, SelectKind::ValueNe, SelectThunk<TM>{});
            pattern = &nonzero;
          }
          r.mask_ptr = pattern->row_ptr.data();
          r.mask_idx = pattern->col_idx.data();
        }
        Csr<TC> none;
        if (c_empty) none = empty_c(Backend::Cuda);
        C = Matrix<TC>::from_valid_csr(
            cuda::merge_csr<TC>(c_empty ? none : C.csr(Backend::Cuda), t.csr(Backend::Cuda), r));
        return;
      }
    }
#endif
    Csr<TC> none;
    if (c_empty) none = empty_c(Backend::Host);
    const Csr<TC>& c = c_empty ? none : C.csr(Backend::Host);
    const auto* m = [&] {
      if constexpr (std::is_same_v<MaskArg, NoMask>) return static_cast<const Csr<bool>*>(nullptr);
      else return &mask.csr(Backend::Host);
    }();
    Matrix<TC> out = Matrix<TC>::from_valid_csr(host_write_matrix(c, m, accum, t.csr(Backend::Host), d));
    if (where == Backend::Cuda && on_gpu) note_host_fallback();
    if (where != Backend::Host) out.csr(where);
    C = std::move(out);
  }
}

}  // namespace detail

// C<mask, accum> = the entries of A where op(value, i, j, thunk) holds (GrB_Matrix_select): a
// SelectOp (on the GPU in `where`; the thunk of any arithmetic type, the value predicates
// comparing in T with the thunk cast to T) or any callable (on the host, the result moved to
// `where`; the thunk passed as a double).
template <class T, class MaskArg, class Accum, class Op, class S>
requires std::is_arithmetic_v<S>
void select(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<T>& A, S thunk,
            const Descriptor& d, Backend where = Backend::Host) try {
  constexpr bool builtin = detail::is_select_op_v<Op>;  // a SelectOp; else a user predicate
  Matrix<T> result;
#if GBCUDA_HAVE_CUDA
  if constexpr (builtin) {
    if (where == Backend::Cuda) {
      result = Matrix<T>::from_valid_csr(
          detail::cuda::select_csr<T>(A.csr(Backend::Cuda), Op::kind, select_thunk<T>(thunk)));
      detail::write_matrix(C, mask, accum, d, std::move(result), where, "select", true);
      return;
    }
  }
#endif
  const Csr<T>& a = A.csr(Backend::Host);
  const SelectThunk<T> exact = select_thunk<T>(thunk);
  auto keep = [&](Index i, Offset p) {
    const T x = a.is_iso() ? a.iso_value : a.values[p];
    if constexpr (builtin) return select_holds(Op::kind, x, i, Index(a.col_idx[p]), exact);
    else return bool(op(x, i, Index(a.col_idx[p]), double(thunk)));
  };
  auto value = [&](Index, Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  if constexpr (builtin) result = Matrix<T>::from_valid_csr(detail::host_compact<T>(a, keep, value));
  else detail::place_result(result, detail::host_compact<T>(a, keep, value), where);  // on the host, then to `where`
  detail::write_matrix(C, mask, accum, d, std::move(result), where, "select", false);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("select");
}
template <class T, class MaskArg, class Accum, class Op, class S>
requires std::is_arithmetic_v<S>
void select(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<T>& A, S thunk,
            Backend where = Backend::Host) {
  select(C, mask, accum, op, A, thunk, Descriptor{}, where);
}
// The thunk as a Scalar (GrB_Matrix_select_Scalar): an empty thunk is Error(InvalidValue).
template <class T, class MaskArg, class Accum, class Op, class X>
void select(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<T>& A,
            const Scalar<X>& thunk, const Descriptor& d = {}, Backend where = Backend::Host) {
  select(C, mask, accum, op, A, detail::thunk_value(thunk, "select"), d, where);
}

namespace detail {

// T = (A * B) on the positions of M's entries (Bt: B's transpose, B' itself when d.transpose_b), by
// one dot product per entry of M; T has an entry where M has one and the product has at least one
// term. Semirings: any; on the GPU the built-in ones (cuda_supports_semiring), user-defined ones
// on host copies.
template <class TC, class TM, class S, class TA, class TB>
Matrix<TC> mxm_on_mask(const Matrix<TM>& M, const S& s, const Matrix<TA>& A, const Matrix<TB>& Bt, Backend where,
                       bool& on_gpu) {
  on_gpu = false;
#if GBCUDA_HAVE_CUDA
  if constexpr (cuda_supports_semiring<S, TA, TB>() && is_value_type_v<TM>) {
    if (where == Backend::Cuda) {
      on_gpu = true;
      constexpr cuda::SemiringCode code = cuda::semiring_code<S>();
      return Matrix<TC>::from_valid_csr(cuda::mxm_dot<TC>(value_free(view(M.csr(Backend::Cuda))), code,
                                                          typed(view(A.csr(Backend::Cuda))),
                                                          typed(view(Bt.csr(Backend::Cuda)))));
    }
  } else if (where == Backend::Cuda) {
    note_host_fallback();
  }
#endif
  const Csr<TM>& m = M.csr(Backend::Host);
  const Csr<TA>& a = A.csr(Backend::Host);
  const Csr<TB>& bt = Bt.csr(Backend::Host);
  // An Array, not a std::vector: std::vector<bool> packs values into shared words, which the
  // threads below would race on.
  Array<TC> vals(static_cast<std::size_t>(m.nvals()), Backend::Host);
  std::vector<std::uint8_t> has(static_cast<std::size_t>(m.nvals()));
#pragma omp parallel for schedule(dynamic, 64)
  for (Index i = 0; i < m.nrows; ++i)
    for (Offset p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p) {
      TC acc{};
      has[std::size_t(p)] = host_dot(s, a, i, bt, Index(m.col_idx[p]), acc) ? 1 : 0;
      vals[std::size_t(p)] = acc;
    }
  Matrix<TC> t = Matrix<TC>::from_valid_csr(host_compact<TC>(
      m, [&](Index, Offset p) { return has[std::size_t(p)] != 0; },
      [&](Index, Offset p) { return vals[std::size_t(p)]; }));
  if (where != Backend::Host) t.csr(where);
  return t;
}

}  // namespace detail

// C = op(A) (GrB_Matrix_apply): A's structure, each value mapped by a unary operator or a bound
// binary one (bind_first / bind_second). In the backend `where`; on the GPU for the built-in
// operators over A's type (cuda_supports_unary_op), else on host copies.
template <class TC, class MaskArg, class Accum, class Op, class TA>
void apply(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
           const Descriptor& d, Backend where = Backend::Host) try {
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
  detail::write_matrix(C, mask, accum, d, std::move(result), where, "apply", b == Backend::Cuda);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("apply");
}
template <class TC, class MaskArg, class Accum, class Op, class TA>
void apply(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
           Backend where = Backend::Host) {
  apply(C, mask, accum, op, A, Descriptor{}, where);
}

// C<mask> = accum(C, op(A, y)) with an index-unary operator (GrB_Matrix_apply_IndexOp_<T>): A's
// structure, entry A(i, j) = x becoming op(x, i, j, y) cast to C's type; op is RowIndex,
// ColIndex, DiagIndex or any callable (x, i, j, y). In the backend `where` for the three
// positional operators (y taken as an integer, as they do); any other callable on the host, with
// `where` = Cuda on host copies, the result in GPU memory (host_fallbacks() counts it).
template <class TC, class MaskArg, class Accum, class Op, class TA>
requires std::is_invocable_v<const Op&, const TA&, Index, Index, double>
void apply(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A, double y,
           const Descriptor& d = {}, Backend where = Backend::Host) try {
  const Matrix<TA>& src = d.transpose_a ? A.transpose() : A;
#if GBCUDA_HAVE_CUDA
  constexpr bool positional =
      std::is_same_v<Op, RowIndex> || std::is_same_v<Op, ColIndex> || std::is_same_v<Op, DiagIndex>;
  if constexpr (positional) {
    if (where == Backend::Cuda) {
      constexpr auto kind = std::is_same_v<Op, RowIndex>   ? detail::cuda::PositionalKind::Row
                            : std::is_same_v<Op, ColIndex> ? detail::cuda::PositionalKind::Col
                                                           : detail::cuda::PositionalKind::Diag;
      const Csr<TA>& a = src.csr(Backend::Cuda);
      Csr<TC> c;
      c.nrows = a.nrows;
      c.ncols = a.ncols;
      c.row_ptr = a.row_ptr.clone(Backend::Cuda);
      c.col_idx = a.col_idx.clone(Backend::Cuda);
      c.values = detail::cuda::positional_values<TC>(a.row_ptr.data(), a.col_idx.data(), a.nrows, Offset(a.nvals()),
                                                     kind, std::int64_t(y));
      detail::write_matrix(C, mask, accum, d, Matrix<TC>::from_valid_csr(std::move(c)), where, "apply", true);
      return;
    }
  }
#endif
  const Csr<TA>& a = src.csr(Backend::Host);
  detail::Array<TC> values(static_cast<std::size_t>(a.nvals()), Backend::Host);
  TC* out = values.data();
#pragma omp parallel for schedule(dynamic, 256)
  for (Index i = 0; i < a.nrows; ++i)
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      out[p] = cast_to<TC>(op(a.is_iso() ? a.iso_value : a.values[p], i, Index(a.col_idx[p]), y));
  Csr<TC> c;
  c.nrows = a.nrows;
  c.ncols = a.ncols;
  c.row_ptr = a.row_ptr.clone(Backend::Host);
  c.col_idx = a.col_idx.clone(Backend::Host);
  c.values = std::move(values);
  Matrix<TC> t;
  detail::place_result(t, std::move(c), where);
  detail::write_matrix(C, mask, accum, d, std::move(t), where, "apply", false);
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
  return host_rows<TC>(
      n, a.ncols,
      [&](Index i) {
        Offset k = 0;
        merge_row(i, [&](Vid, auto&&) { ++k; });
        return k;
      },
      [&](Index i, Vid* col, TC* val) {
        merge_row(i, [&](Vid j, auto&& value) {
          *col++ = j;
          *val++ = value();
        });
      });
}

template <class TC, class MaskArg, class Accum, class Op, class TA, class TB>
void ewise_matrix(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
                  const Matrix<TB>& B, const Descriptor& d, Backend where, bool add, const char* name) {
  const Matrix<TA>& a = d.transpose_a ? A.transpose() : A;
  const Matrix<TB>& b = d.transpose_b ? B.transpose() : B;
  if (a.nrows() != b.nrows()) throw_dimension_mismatch((std::string(name) + " rows").c_str(), a.nrows(), b.nrows());
  if (a.ncols() != b.ncols()) throw_dimension_mismatch((std::string(name) + " columns").c_str(), a.ncols(), b.ncols());
#if GBCUDA_HAVE_CUDA
  if constexpr (std::is_same_v<TA, TC> && std::is_same_v<TB, TC> && cuda_supports_binary_op<Op, TC>()) {
    if (where == Backend::Cuda) {
      cuda::MergeRule r;
      r.kind = add ? cuda::MergeKind::Union : cuda::MergeKind::Intersection;
      r.op = cuda::bin_code<Op, TC>();
      Matrix<TC> t = Matrix<TC>::from_valid_csr(cuda::merge_csr<TC>(a.csr(Backend::Cuda), b.csr(Backend::Cuda), r));
      write_matrix(C, mask, accum, d, std::move(t), where, name, true);
      return;
    }
  }
#endif
  // Operators or mixed types the GPU merge does not take: on the host, the result then moved to
  // `where`.
  Matrix<TC> t;
  place_result(t, host_ewise_matrix<TC>(op, a.csr(Backend::Host), b.csr(Backend::Host), add), where);
  write_matrix(C, mask, accum, d, std::move(t), where, name, false);
}

}  // namespace detail

namespace detail {

// T = Am * Bm over semiring s, every entry (Am, Bm: A and B with the descriptor's transposes
// taken). `where` = Cuda: PlusTimes over float or double with operands of that type (and stored
// values, fewer than 2^31 entries each) is cuSPARSE's SpGEMM on the GPU; every other case runs on
// host copies, the result in GPU memory (host_fallbacks() counts it), as does a descriptor that
// forces a kernel. On the host: Gustavson's products, row i the sum over A(i, k) of
// A(i, k) * B(k, :), accumulated in a dense row per thread (B's column count of values and marks).
template <class TC, class S, class TA, class TB>
Matrix<TC> mxm_all(const S& s, const Matrix<TA>& Am, const Matrix<TB>& Bm, [[maybe_unused]] const Descriptor& d,
                   Backend where, bool& on_gpu) {
  using Z = typename S::value_type;
  on_gpu = false;
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cusparse_computes_v<S, TA, TB>) {
    constexpr Index int32_max = std::numeric_limits<std::int32_t>::max();
    detail::LibraryProductCase c;
    c.computes = !Am.is_iso() && !Bm.is_iso() && Am.nvals() <= int32_max && Bm.nvals() <= int32_max;
    const ProductPolicy p = policy_for_call({}, d.direction, d.kernel, d.alpha, d.beta);
    if (where == Backend::Cuda && by_cusparse(p, c)) {
      on_gpu = true;
      Csr<TC> out = cuda::library_spgemm<Z>(view(Am.csr(where)), device_row_offsets32(Am), view(Bm.csr(where)),
                                            device_row_offsets32(Bm));
      return Matrix<TC>::from_valid_csr(std::move(out));
    }
  }
#endif
  const Csr<TA>& a = Am.csr(Backend::Host);
  const Csr<TB>& b = Bm.csr(Backend::Host);
  const Index n = Bm.ncols();
  // One dense row per thread: values, and the row (2i: counting, 2i + 1: filling) that last
  // touched each column, so that nothing is cleared between rows.
  struct Row {
    std::vector<Z> value;
    std::vector<Index> mark;
    std::vector<Vid> cols;
  };
  host::util::PerThread<Row> rows;
  auto mine = [&]() -> Row& { return rows.mine(); };
  for (Row& r : rows.all) {
    r.value.resize(static_cast<std::size_t>(n));
    r.mark.assign(static_cast<std::size_t>(n), -1);
    r.cols.reserve(static_cast<std::size_t>(n));
  }
  auto av = [&](Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  auto bv = [&](Offset q) { return b.is_iso() ? b.iso_value : b.values[q]; };
  auto count = [&](Index i) {
    Row& r = mine();
    Offset k = 0;
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const Vid kk = a.col_idx[p];
      for (Offset q = b.row_ptr[kk]; q < b.row_ptr[kk + 1]; ++q) {
        Index& m = r.mark[std::size_t(b.col_idx[q])];
        if (m != 2 * i) m = 2 * i, ++k;
      }
    }
    return k;
  };
  auto fill = [&](Index i, Vid* col, TC* val) {
    Row& r = mine();
    r.cols.clear();
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const Vid kk = a.col_idx[p];
      const TA x = av(p);
      for (Offset q = b.row_ptr[kk]; q < b.row_ptr[kk + 1]; ++q) {
        const Vid j = b.col_idx[q];
        const Z t = s.multiply(x, bv(q), kk);
        Index& m = r.mark[std::size_t(j)];
        if (m != 2 * i + 1) {
          m = 2 * i + 1;
          r.value[std::size_t(j)] = t;
          r.cols.push_back(j);
        } else {
          r.value[std::size_t(j)] = Z(s.add(r.value[std::size_t(j)], t));
        }
      }
    }
    std::sort(r.cols.begin(), r.cols.end());
    for (const Vid j : r.cols) {
      *col++ = j;
      *val++ = r.value[std::size_t(j)];
    }
  };
  Matrix<TC> t;
  place_result(t, host_rows<TC>(Am.nrows(), n, count, fill), where);
  return t;
}

}  // namespace detail

// C<mask, accum> = A * B over semiring s (GrB_mxm); desc.transpose_a / transpose_b take A' / B'.
// Any semiring, positional ones too. A mask that is not complemented has the product computed on
// its entries' positions only (detail::mxm_on_mask, a dot product each); without one, or with a
// complemented one, every entry (detail::mxm_all). Masks, accumulators and desc.replace as
// GraphBLAS (detail::write_matrix).
template <class TC, class MaskArg, class Accum, class S, class TA, class TB>
void mxm(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const S& s, const Matrix<TA>& A, const Matrix<TB>& B,
         const Descriptor& d = {}, Backend where = Backend::Host) try {
  static_assert(std::is_same_v<TC, typename S::value_type>, "C must have the semiring's value type");
  const Matrix<TA>& Am = d.transpose_a ? A.transpose() : A;
  const Index inner_b = d.transpose_b ? B.ncols() : B.nrows();
  const Index cols_b = d.transpose_b ? B.nrows() : B.ncols();
  if (Am.ncols() != inner_b) detail::throw_dimension_mismatch("mxm inner dimension", Am.ncols(), inner_b);
  Matrix<TC> t;
  bool on_mask = false, on_gpu = false;
  if constexpr (!std::is_same_v<MaskArg, NoMask>) {
    if (mask.nrows() != Am.nrows()) detail::throw_dimension_mismatch("mxm mask rows", Am.nrows(), mask.nrows());
    if (mask.ncols() != cols_b) detail::throw_dimension_mismatch("mxm mask columns", cols_b, mask.ncols());
    on_mask = !d.mask_complement;
    if (on_mask) t = detail::mxm_on_mask<TC>(mask, s, Am, d.transpose_b ? B : B.transpose(), where, on_gpu);
    // T lies within a structural mask, so with nothing of C to keep or accumulate into, C = T (in
    // `where`, no merge on the host): triangle counting's C<L> = L * L'.
    const bool c_fits = (C.nrows() == 0 && C.ncols() == 0) || (C.nrows() == t.nrows() && C.ncols() == t.ncols());
    if (on_mask && d.mask_structural && !detail::host::util::has_accum_v<Accum> && c_fits &&
        (d.replace || C.nvals() == 0)) {
      C = std::move(t);
      return;
    }
  }
  if (!on_mask) t = detail::mxm_all<TC>(s, Am, d.transpose_b ? B.transpose() : B, d, where, on_gpu);
  detail::write_matrix(C, mask, accum, d, std::move(t), where, "mxm", on_gpu);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("mxm");
}

// C = A (+) B (GrB_Matrix_eWiseAdd_BinaryOp): the union of A's and B's patterns; op(a, b) where
// both have an entry, else the one value (cast to C's type). desc.transpose_a / transpose_b take
// A' / B'. In the backend `where`: on the GPU for a built-in operator over one type (A, B and C
// of TC: cuda::merge_csr), other operators and mixed types on host copies (host_fallbacks()
// counts them), the result then in GPU memory.
template <class TC, class MaskArg, class Accum, class Op, class TA, class TB>
void ewise_add(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
               const Matrix<TB>& B, const Descriptor& d = {}, Backend where = Backend::Host) try {
  detail::ewise_matrix<TC>(C, mask, accum, op, A, B, d, where, true, "ewise_add");
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_add");
}

// C = A (x) B (GrB_Matrix_eWiseMult_BinaryOp): the intersection of the patterns, op(a, b); as
// ewise_add otherwise.
template <class TC, class MaskArg, class Accum, class Op, class TA, class TB>
void ewise_mult(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
                const Matrix<TB>& B, const Descriptor& d = {}, Backend where = Backend::Host) try {
  detail::ewise_matrix<TC>(C, mask, accum, op, A, B, d, where, false, "ewise_mult");
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_mult");
}

// C = A' (GrB_transpose; desc.transpose_a: C = A), in the backend `where` (the GPU transposes
// there). A Matrix caches its transpose, so without a mask or an accumulator C shares that storage.
template <class T, class MaskArg, class Accum>
void transpose(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Matrix<T>& A, const Descriptor& d = {},
               Backend where = Backend::Host) try {
  if (!d.transpose_a) A.csr(where);  // the transpose is computed where A's copy is
  Matrix<T> result = d.transpose_a ? A : A.transpose();
  result.csr(where);
  detail::write_matrix(C, mask, accum, d, std::move(result), where, "transpose", where == Backend::Cuda);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("transpose");
}

// C = A(I, J) (GrB_Matrix_extract; desc.transpose_a: from A'): C(r, s) = A(I[r], J[s]) where that
// entry exists. I and J may repeat and be in any order (a repeated index repeats its row or
// column); an index outside A is Error(InvalidIndex). In the backend `where` (on the GPU:
// cuda::extract_csr).
template <class T, class MaskArg, class Accum>
void extract(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Matrix<T>& A, std::span<const Index> I,
             std::span<const Index> J, const Descriptor& d = {}, Backend where = Backend::Host) try {
  const Matrix<T>& src = d.transpose_a ? A.transpose() : A;
  detail::check_indices(I, src.nrows(), "extract: row index");
  detail::check_indices(J, src.ncols(), "extract: column index");
  const detail::ColumnPlaces places = detail::column_places(J, src.ncols());
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    Matrix<T> t = Matrix<T>::from_valid_csr(detail::cuda::extract_csr<T>(src.csr(Backend::Cuda), I, places));
    detail::write_matrix(C, mask, accum, d, std::move(t), where, "extract", true);
    return;
  }
#endif
  const Csr<T>& a = src.csr(Backend::Host);
  const std::vector<Offset>& at = places.at;
  const std::vector<Vid>& to = places.to;
  auto value = [&](Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  auto count = [&](Index r) {
    const Index i = I[std::size_t(r)];
    Offset k = 0;
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      k += at[std::size_t(a.col_idx[p]) + 1] - at[std::size_t(a.col_idx[p])];
    return k;
  };
  auto fill = [&](Index r, Vid* col, T* val) {
    const Index i = I[std::size_t(r)];
    std::vector<std::pair<Vid, T>> row;
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      for (Offset q = at[std::size_t(a.col_idx[p])]; q < at[std::size_t(a.col_idx[p]) + 1]; ++q)
        row.emplace_back(to[std::size_t(q)], value(p));
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      col[k] = row[k].first;
      val[k] = row[k].second;
    }
  };
  Matrix<T> t;
  detail::place_result(t, detail::host_rows<T>(Index(I.size()), Index(J.size()), count, fill), where);
  detail::write_matrix(C, mask, accum, d, std::move(t), where, "extract", false);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract");
}
// The same with I and J any IndexList (index_list.hpp): another integer type, or `all` (GrB_ALL).
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
requires(!(detail::is_index_span_v<RI> &&
           detail::is_index_span_v<RJ>)) void extract(Matrix<T>& C, const MaskArg& mask, const Accum& accum,
                                                      const Matrix<T>& A, const RI& I, const RJ& J,
                                                      const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, d.transpose_a ? A.ncols() : A.nrows(), "extract: row index");
  const detail::Indices cols(J, d.transpose_a ? A.nrows() : A.ncols(), "extract: column index");
  extract(C, mask, accum, A, rows.span(), cols.span(), d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract");
}

namespace detail {

// Where each of n indices sits in an assign's index list (-1: not listed); a listed index outside
// [0, n) or listed twice is Error(InvalidIndex), as GraphBLAS leaves duplicates undefined.
inline std::vector<Index> assign_positions(std::span<const Index> idx, Index n, const char* what) {
  check_indices(idx, n, what);
  std::vector<Index> at(static_cast<std::size_t>(n), -1);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    Index& p = at[std::size_t(idx[k])];
    if (p >= 0)
      throw Error(Status::InvalidIndex, std::string(what) + " " + std::to_string(idx[k]) + " is listed twice");
    p = Index(k);
  }
  return at;
}

// Z of GrB_Matrix_assign: C with its region (I, J) replaced by the region's source (accumulated
// into C's entries there with accum), in host memory. region(r, emit) emits (s, value) for row r
// of the source, in any order (s: a position in J).
template <class T, class Accum, class Region>
Csr<T> host_assign_z(const Csr<T>& c, std::span<const Index> I, std::span<const Index> J, const Accum& accum,
                     const Region& region) {
  const std::vector<Index> row_at = assign_positions(I, c.nrows, "assign: row index");
  const std::vector<Index> col_at = assign_positions(J, c.ncols, "assign: column index");
  auto cv = [&](Offset p) { return c.is_iso() ? c.iso_value : c.values[p]; };
  auto row = [&](Index i, std::vector<std::pair<Vid, T>>& out) {
    out.clear();
    const Index r = row_at[std::size_t(i)];
    if (r < 0) {
      for (Offset p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) out.emplace_back(c.col_idx[p], cv(p));
      return;
    }
    region(r, [&](Index s, const T& x) { out.emplace_back(Vid(J[std::size_t(s)]), x); });
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const std::size_t from_source = out.size();
    for (Offset p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) {
      const Vid j = c.col_idx[p];
      if (col_at[std::size_t(j)] < 0) {
        out.emplace_back(j, cv(p));  // outside the region: kept
      } else if constexpr (host::util::has_accum_v<Accum>) {
        auto it = std::lower_bound(out.begin(), out.begin() + std::ptrdiff_t(from_source), j,
                                   [](const auto& e, Vid k) { return e.first < k; });
        if (it != out.begin() + std::ptrdiff_t(from_source) && it->first == j)
          it->second = host::util::accumulate<T>(accum, cv(p), it->second);
        else out.emplace_back(j, cv(p));  // accumulated into nothing: kept
      }                                   // else the source replaces the region: C's entry there is gone
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  };
  host::util::PerThread<std::vector<std::pair<Vid, T>>> scratch;
  auto mine = [&]() -> std::vector<std::pair<Vid, T>>& { return scratch.mine(); };
  return host_rows<T>(
      c.nrows, c.ncols,
      [&](Index i) {
        row(i, mine());
        return Offset(mine().size());
      },
      [&](Index i, Vid* col, T* val) {
        row(i, mine());
        for (const auto& [j, x] : mine()) *col++ = j, *val++ = x;
      });
}

// Z as host_assign_z makes it, then C<mask, replace> = Z. The source is the matrix `source` or, when
// it is null, the value `x` everywhere; region(r, emit) lists its row r on the host. On the GPU Z
// is C merged with the source at C's coordinates (cuda::place_csr or place_value), the region
// (I, J) allowing (accum(c, s) there, or the source alone without an accumulator) and C's entries
// kept elsewhere.
template <class T, class MaskArg, class Accum, class Region>
void assign_matrix(Matrix<T>& C, const MaskArg& mask, const Accum& accum, std::span<const Index> I,
                   std::span<const Index> J, const Region& region, [[maybe_unused]] const Matrix<T>* source,
                   [[maybe_unused]] const T& x, const Descriptor& d, Backend where) {
  static_assert(is_matrix_mask<MaskArg>::value, "the mask of an assign into a matrix is a Matrix or no_mask");
#if GBCUDA_HAVE_CUDA
  if constexpr (cuda_supports_accum<Accum, T>()) {
    if (where == Backend::Cuda) {
      const std::vector<Index> row_at = assign_positions(I, C.nrows(), "assign: row index");
      const std::vector<Index> col_at = assign_positions(J, C.ncols(), "assign: column index");
      auto listed = [](const std::vector<Index>& at) {
        std::vector<std::uint8_t> flags(at.size());
        for (std::size_t k = 0; k < at.size(); ++k) flags[k] = at[k] >= 0;
        return Array<std::uint8_t>(flags, Backend::Cuda);
      };
      const Array<std::uint8_t> rows = listed(row_at), cols = listed(col_at);
      cuda::MergeRule r;
      r.kind = cuda::MergeKind::Write;
      r.op = cuda::bin_code<Accum, T>();
      r.region_rows = rows.data();
      r.region_cols = cols.data();
      const Csr<T> placed = source ? cuda::place_csr<T>(source->csr(Backend::Cuda), C.nrows(), C.ncols(), I, J)
                                   : cuda::place_value<T>(x, C.nrows(), C.ncols(), I, J);
      Matrix<T> z = Matrix<T>::from_valid_csr(cuda::merge_csr<T>(C.csr(Backend::Cuda), placed, r));
      write_matrix(C, mask, NoAccum{}, d, std::move(z), where, "assign", true);
      return;
    }
  }
#endif
  if (source) source->csr(Backend::Host);  // its host copy made here, before the threads read it
  Matrix<T> z;
  place_result(z, host_assign_z(C.csr(Backend::Host), I, J, accum, region), where);
  write_matrix(C, mask, NoAccum{}, d, std::move(z), where, "assign", false);
}

}  // namespace detail

// C<mask>(I, J) = accum(C(I, J), A) (GrB_Matrix_assign; desc.transpose_a: A' is assigned): A is
// |I| x |J|, its entry (r, s) goes to C(I[r], J[s]); without an accumulator C's entries in the
// region (I, J) that A does not have are deleted. The mask is C's shape and applies to all of C
// (GrB_assign, not GxB_subassign): where it does not allow, C keeps its entries (none with
// desc.replace). I and J list distinct indices of C, in any order (else Error(InvalidIndex)); pass
// every index for GrB_ALL. In the backend `where` (on the GPU for the built-in accumulators:
// cuda::place_csr, then cuda::merge_csr over the region).
template <class T, class MaskArg, class Accum>
void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Matrix<T>& A, std::span<const Index> I,
            std::span<const Index> J, const Descriptor& d = {}, Backend where = Backend::Host) try {
  const Matrix<T>& src = d.transpose_a ? A.transpose() : A;
  if (src.nrows() != Index(I.size())) detail::throw_dimension_mismatch("assign rows", Index(I.size()), src.nrows());
  if (src.ncols() != Index(J.size())) detail::throw_dimension_mismatch("assign columns", Index(J.size()), src.ncols());
  detail::assign_matrix(
      C, mask, accum, I, J,
      [&](Index r, auto&& emit) {
        const Csr<T>& a = src.csr(Backend::Host);
        for (Offset p = a.row_ptr[r]; p < a.row_ptr[r + 1]; ++p)
          emit(Index(a.col_idx[p]), a.is_iso() ? a.iso_value : a.values[p]);
      },
      &src, T{}, d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

// C<mask>(I, J) = accum(C(I, J), x) (GrB_Matrix_assign_<T>): every position of the region (I, J)
// gets x; otherwise as the assign of a matrix.
template <class T, class MaskArg, class Accum>
void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const T& x, std::span<const Index> I,
            std::span<const Index> J, const Descriptor& d = {}, Backend where = Backend::Host) try {
  detail::assign_matrix(
      C, mask, accum, I, J,
      [&](Index, auto&& emit) {
        for (std::size_t s = 0; s < J.size(); ++s) emit(Index(s), x);
      },
      static_cast<const Matrix<T>*>(nullptr), x, d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

// C<mask>(I, J) = accum(C(I, J), s) (GrB_Matrix_assign_Scalar): s's value everywhere in the
// region, or, for an empty s, the region's entries deleted where the mask allows (none with
// accum).
template <class T, class MaskArg, class Accum>
void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Scalar<T>& s, std::span<const Index> I,
            std::span<const Index> J, const Descriptor& d = {}, Backend where = Backend::Host) {
  if (s.empty()) {
    Descriptor region = d;
    region.transpose_a = false;
    assign(C, mask, accum, Matrix<T>(Index(I.size()), Index(J.size())), I, J, region, where);
  } else {
    assign(C, mask, accum, *s.value(), I, J, d, where);
  }
}

// The three assigns with I and J any IndexList (index_list.hpp): another integer type, or `all`
// (GrB_ALL).
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
requires(!(detail::is_index_span_v<RI> &&
           detail::is_index_span_v<RJ>)) void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum,
                                                     const Matrix<T>& A, const RI& I, const RJ& J,
                                                     const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "assign: row index"), cols(J, C.ncols(), "assign: column index");
  assign(C, mask, accum, A, rows.span(), cols.span(), d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
requires(!(detail::is_index_span_v<RI> &&
           detail::is_index_span_v<RJ>)) void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const T& x,
                                                     const RI& I, const RJ& J, const Descriptor& d = {},
                                                     Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "assign: row index"), cols(J, C.ncols(), "assign: column index");
  assign(C, mask, accum, x, rows.span(), cols.span(), d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
requires(!(detail::is_index_span_v<RI> &&
           detail::is_index_span_v<RJ>)) void assign(Matrix<T>& C, const MaskArg& mask, const Accum& accum,
                                                     const Scalar<T>& s, const RI& I, const RJ& J,
                                                     const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "assign: row index"), cols(J, C.ncols(), "assign: column index");
  assign(C, mask, accum, s, rows.span(), cols.span(), d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

namespace detail {

// v as a 1 x v.size() matrix in `where` (its entries, sorted, are the row's columns).
template <class T>
Matrix<T> row_matrix(const Vector<T>& v, Backend where) {
  Vector<T> s = v.to(where);
  s.to_form(VectorForm::Sparse);
  VectorStore<T>& st = s.store();
  if (st.jumbled) sort_indices(st);
  const Index nv = exact_nvals(st);
  Csr<T> c;
  c.nrows = 1;
  c.ncols = v.size();
  c.row_ptr = Array<Offset>(std::vector<Offset>{0, Offset(nv)}, where);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(nv), where);
  c.values = Array<T>(static_cast<std::size_t>(nv), where);
  if (nv > 0) {
    copy_bytes(c.col_idx.data(), where, st.indices.data(), where, sizeof(Vid) * std::size_t(nv));
    copy_bytes(c.values.data(), where, st.values.data(), where, sizeof(T) * std::size_t(nv));
  }
  return Matrix<T>::from_valid_csr(std::move(c));
}

// Row i of A (column i when `column`) as a vector in `where`: e_i' * A over (ANY, SECOND), a push
// from one entry along A's rows (A * e_i over (ANY, FIRST) for a column).
template <class T>
Vector<T> line_of(const Matrix<T>& A, Index i, bool column, Backend where) {
  const Index n = column ? A.ncols() : A.nrows();
  if (i < 0 || i >= n)
    throw Error(Status::InvalidIndex, std::string(column ? "column " : "row ") + std::to_string(i) +
                                          " is out of range [0, " + std::to_string(n) + ")");
  Vector<bool> e(n, where);
  e.set_element(i, true);
  Vector<T> line(column ? A.nrows() : A.ncols(), where);
  if (column) mxv(line, no_mask, no_accum, Semiring<AnyMonoid<T>, First<T>>{}, A, e);
  else vxm(line, no_mask, no_accum, Semiring<AnyMonoid<T>, Second<T>>{}, e, A);
  return line;
}

// C's row i (column i when `column`) replaced by `line`, a vector over C's columns (rows): the
// line as a 1 x n matrix assigned to ({i}, all) (to (all, {i}), transposed).
template <class T>
void write_line(Matrix<T>& C, const Vector<T>& line, Index i, bool column, Backend where) {
  const Index at[1] = {i};
  const std::span<const Index> one(at, 1);
  if (!column) {
    assign(C, no_mask, no_accum, row_matrix(line, where), one, all, {}, where);
  } else {
    Descriptor transposed;
    transposed.transpose_a = true;  // the 1 x nrows row, assigned as a column
    assign(C, no_mask, no_accum, row_matrix(line, where), all, one, transposed, where);
  }
}

}  // namespace detail

// w<mask> = accum(w, A(I, j)) (GrB_Col_extract; desc.transpose_a: A'(I, j), that is row j of A at
// the columns I): w(k) = A(I[k], j) where that entry exists. I may repeat and be in any order; an
// index outside A is Error(InvalidIndex); w.size() must be |I|. In w's backend: the column as a
// vector (one product from a single entry), then the vector extract.
template <class T, class MaskArg, class Accum>
void extract_col(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Matrix<T>& A, std::span<const Index> I,
                 Index j, const Descriptor& d = {}) try {
  if (w.size() != Index(I.size()))
    detail::throw_dimension_mismatch("extract_col (w against I)", Index(I.size()), w.size());
  detail::check_indices(I, d.transpose_a ? A.ncols() : A.nrows(), "extract_col: row index");
  const Vector<T> line = detail::line_of(A, j, /*column=*/!d.transpose_a, w.backend());
  Descriptor rest = d;
  rest.transpose_a = false;
  extract(w, mask, accum, line, I, rest);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract_col");
}

// C<mask>(i, J) = accum(C(i, J), u') (GrB_Row_assign): u has one slot per listed column and
// C(i, J[k]) takes u(k) (accumulated with accum; without one an absent u(k) deletes C(i, J[k])).
// The mask is a vector over C's columns and applies, with desc.replace, to row i alone: the other
// rows keep their entries. J lists distinct columns (else Error(InvalidIndex)). Runs as the vector
// assign on row i, which is then written back into C; costs O(nnz(C) + ncols) in `where`.
template <class T, class MaskArg, class Accum>
void assign_row(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Vector<T>& u, Index i,
                std::span<const Index> J, const Descriptor& d = {}, Backend where = Backend::Host) try {
  Vector<T> row = detail::line_of(C, i, /*column=*/false, where);
  assign(row, mask, accum, u, J, d);
  detail::write_line(C, row, i, /*column=*/false, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign_row");
}

// C<mask>(I, j) = accum(C(I, j), u) (GrB_Col_assign): as assign_row for column j, the mask a
// vector over C's rows applying to column j alone.
template <class T, class MaskArg, class Accum>
void assign_col(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Vector<T>& u, std::span<const Index> I,
                Index j, const Descriptor& d = {}, Backend where = Backend::Host) try {
  Vector<T> col = detail::line_of(C, j, /*column=*/true, where);
  assign(col, mask, accum, u, I, d);
  detail::write_line(C, col, j, /*column=*/true, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign_col");
}

// extract_col, assign_row and assign_col with the list any IndexList (index_list.hpp): another
// integer type, or `all` (GrB_ALL).
template <class T, class MaskArg, class Accum, IndexList RI>
requires(!detail::is_index_span_v<RI>) void extract_col(Vector<T>& w, const MaskArg& mask, const Accum& accum,
                                                        const Matrix<T>& A, const RI& I, Index j,
                                                        const Descriptor& d = {}) try {
  const detail::Indices rows(I, d.transpose_a ? A.ncols() : A.nrows(), "extract_col: row index");
  extract_col(w, mask, accum, A, rows.span(), j, d);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract_col");
}
template <class T, class MaskArg, class Accum, IndexList RJ>
requires(!detail::is_index_span_v<RJ>) void assign_row(Matrix<T>& C, const MaskArg& mask, const Accum& accum,
                                                       const Vector<T>& u, Index i, const RJ& J,
                                                       const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices cols(J, C.ncols(), "assign_row: column index");
  assign_row(C, mask, accum, u, i, cols.span(), d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign_row");
}
template <class T, class MaskArg, class Accum, IndexList RI>
requires(!detail::is_index_span_v<RI>) void assign_col(Matrix<T>& C, const MaskArg& mask, const Accum& accum,
                                                       const Vector<T>& u, const RI& I, Index j,
                                                       const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "assign_col: row index");
  assign_col(C, mask, accum, u, rows.span(), j, d, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign_col");
}

namespace detail {
// GxB_Matrix_subassign's three steps in `where`: S = C(I, J); step(S), which is S<mask> =
// accum(S, source); C(I, J) = S. C changes only in the last step (an assign: all or nothing).
template <class T, class Step>
void subassign_region(Matrix<T>& C, std::span<const Index> I, std::span<const Index> J, Backend where,
                      const Step& step) {
  assign_positions(I, C.nrows(), "subassign: row index");
  assign_positions(J, C.ncols(), "subassign: column index");
  Matrix<T> S;
  extract(S, no_mask, no_accum, C, I, J, {}, where);
  step(S);
  assign(C, no_mask, no_accum, S, I, J, {}, where);
}
}  // namespace detail

// C(I, J)<mask> = accum(C(I, J), A) (GxB_Matrix_subassign; desc.transpose_a: A' is assigned): as
// the assign, except that the mask is |I| x |J|, the region's shape, and with desc.replace acts on
// the region alone. C(I[r], J[s]) takes A(r, s) (accumulated with accum; without one, an entry A
// lacks deletes it) where mask(r, s) allows, keeps its entry where the mask does not (deleted with
// replace); C outside the region is unchanged. I and J: any IndexList (`all` included), distinct
// indices of C (else Error(InvalidIndex)). In `where` as an extract, a write of A into the region
// under the mask and an assign; costs O(nnz(C)) as the assign.
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
void subassign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Matrix<T>& A, const RI& I, const RJ& J,
               const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "subassign: row index"), cols(J, C.ncols(), "subassign: column index");
  const Matrix<T>& src = d.transpose_a ? A.transpose() : A;
  if (src.nrows() != rows.size()) detail::throw_dimension_mismatch("subassign rows", rows.size(), src.nrows());
  if (src.ncols() != cols.size()) detail::throw_dimension_mismatch("subassign columns", cols.size(), src.ncols());
  Descriptor region = d;
  region.transpose_a = false;
  detail::subassign_region(C, rows.span(), cols.span(), where, [&](Matrix<T>& S) {
    Matrix<T> t = src;
    detail::write_matrix(S, mask, accum, region, std::move(t), where, "subassign", where == Backend::Cuda);
  });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}
// C(I, J)<mask> = accum(C(I, J), x) (GxB_Matrix_subassign_<T>): every position of the region the
// mask allows takes x.
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
void subassign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const T& x, const RI& I, const RJ& J,
               const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "subassign: row index"), cols(J, C.ncols(), "subassign: column index");
  detail::subassign_region(C, rows.span(), cols.span(), where,
                           [&](Matrix<T>& S) { assign(S, mask, accum, x, all, all, d, where); });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}
// GxB_Matrix_subassign_Scalar: an empty s deletes the region's entries the mask allows (none with
// accum).
template <class T, class MaskArg, class Accum, IndexList RI, IndexList RJ>
void subassign(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Scalar<T>& s, const RI& I, const RJ& J,
               const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "subassign: row index"), cols(J, C.ncols(), "subassign: column index");
  Descriptor region = d;
  region.transpose_a = false;
  detail::subassign_region(C, rows.span(), cols.span(), where,
                           [&](Matrix<T>& S) { assign(S, mask, accum, s, all, all, region, where); });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}

// C(i, J)<mask> = accum(C(i, J), u') (GxB_Row_subassign): the mask has J's length (u's) and, with
// desc.replace, acts on the listed positions of row i alone. Runs as the vector subassign on row i,
// written back into C; O(nnz(C) + ncols) in `where`.
template <class T, class MaskArg, class Accum, IndexList RJ>
void subassign_row(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Vector<T>& u, Index i, const RJ& J,
                   const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices cols(J, C.ncols(), "subassign_row: column index");
  Vector<T> row = detail::line_of(C, i, /*column=*/false, where);
  subassign(row, mask, accum, u, cols.span(), d);
  detail::write_line(C, row, i, /*column=*/false, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign_row");
}
// C(I, j)<mask> = accum(C(I, j), u) (GxB_Col_subassign): as subassign_row for column j.
template <class T, class MaskArg, class Accum, IndexList RI>
void subassign_col(Matrix<T>& C, const MaskArg& mask, const Accum& accum, const Vector<T>& u, const RI& I, Index j,
                   const Descriptor& d = {}, Backend where = Backend::Host) try {
  const detail::Indices rows(I, C.nrows(), "subassign_col: row index");
  Vector<T> col = detail::line_of(C, j, /*column=*/true, where);
  subassign(col, mask, accum, u, rows.span(), d);
  detail::write_line(C, col, j, /*column=*/true, where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign_col");
}

// C = kron(A, B) (GrB_Matrix_kronecker_BinaryOp): C(i * mb + k, j * nb + l) = op(A(i, j), B(k, l))
// for every entry pair, B being mb x nb; cast to C's type; desc.transpose_a / transpose_b: of A' or
// B'. In the backend `where`: on the GPU for a built-in operator over one type (A, B and C of TC),
// others on host copies (host_fallbacks() counts them), the result then in GPU memory.
template <class TC, class MaskArg, class Accum, class Op, class TA, class TB>
void kronecker(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A_in,
               const Matrix<TB>& B_in, const Descriptor& d, Backend where = Backend::Host) try {
  const Matrix<TA>& A = d.transpose_a ? A_in.transpose() : A_in;
  const Matrix<TB>& B = d.transpose_b ? B_in.transpose() : B_in;
  const Index mb = B.nrows(), nb = B.ncols();
  const double rows = double(A.nrows()) * double(mb), cols = double(A.ncols()) * double(nb);
  if (rows > double(std::numeric_limits<Vid>::max()) || cols > double(std::numeric_limits<Vid>::max()))
    throw Error(Status::InvalidValue, "kronecker: the result would have more than 2^31-1 rows or columns");
#if GBCUDA_HAVE_CUDA
  if constexpr (std::is_same_v<TA, TC> && std::is_same_v<TB, TC> && detail::cuda_supports_binary_op<Op, TC>()) {
    if (where == Backend::Cuda) {
      Matrix<TC> t = Matrix<TC>::from_valid_csr(detail::cuda::kronecker_csr<TC>(
          A.csr(Backend::Cuda), B.csr(Backend::Cuda), detail::cuda::bin_code<Op, TC>()));
      detail::write_matrix(C, mask, accum, d, std::move(t), where, "kronecker", true);
      return;
    }
  }
#endif
  const Csr<TA>& a = A.csr(Backend::Host);
  const Csr<TB>& b = B.csr(Backend::Host);
  auto av = [&](Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  auto bv = [&](Offset p) { return b.is_iso() ? b.iso_value : b.values[p]; };
  auto count = [&](Index r) {
    const Index i = r / mb, k = r % mb;
    return (a.row_ptr[i + 1] - a.row_ptr[i]) * (b.row_ptr[k + 1] - b.row_ptr[k]);
  };
  auto fill = [&](Index r, Vid* col, TC* val) {
    const Index i = r / mb, k = r % mb;
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      for (Offset q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q) {
        *col++ = Vid(Index(a.col_idx[p]) * nb + b.col_idx[q]);
        *val++ = cast_to<TC>(op(av(p), bv(q)));
      }
  };
  Matrix<TC> t;
  if (mb == 0 || A.nrows() == 0)
    detail::place_result(t,
                         detail::host_rows<TC>(
                             Index(rows), Index(cols), [](Index) { return Offset(0); }, [](Index, Vid*, TC*) {}),
                         where);
  else detail::place_result(t, detail::host_rows<TC>(Index(rows), Index(cols), count, fill), where);
  detail::write_matrix(C, mask, accum, d, std::move(t), where, "kronecker", false);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("kronecker");
}
template <class TC, class MaskArg, class Accum, class Op, class TA, class TB>
void kronecker(Matrix<TC>& C, const MaskArg& mask, const Accum& accum, const Op& op, const Matrix<TA>& A,
               const Matrix<TB>& B, Backend where = Backend::Host) {
  kronecker(C, mask, accum, op, A, B, Descriptor{}, where);
}

// C = a square matrix with v's entries on diagonal k (GrB_Matrix_diag): C(i, i + k) = v(i) for
// k >= 0, C(i - k, i) = v(i) for k < 0; n + |k| rows and columns for v of length n. In `where`
// (on the GPU from v itself when it is a bitmap there, else from such a copy: cuda::diag_csr).
template <class T>
void diag(Matrix<T>& C, const Vector<T>& v, Index k = 0, Backend where = Backend::Host) try {
  const Index n = v.size() + (k < 0 ? -k : k);
  if (n > Index(std::numeric_limits<Vid>::max())) throw Error(Status::InvalidValue, "diag: more than 2^31-1 rows");
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    std::optional<Vector<T>> copy;  // only when v is not already a bitmap in GPU memory
    if (v.backend() != Backend::Cuda || v.form() != VectorForm::Bitmap) {
      copy.emplace(v.to(Backend::Cuda));
      copy->to_form(VectorForm::Bitmap);
    }
    const detail::VectorStore<T>& s = (copy ? *copy : v).store();
    C = Matrix<T>::from_valid_csr(detail::cuda::diag_csr<T>(s.values.data(), s.bitmap.data(), s.n, k));
    return;
  }
#endif
  std::vector<Index> idx;
  std::vector<T> vals;
  v.extract_tuples(idx, vals);
  std::vector<Index> rows(idx.size()), cols(idx.size());
  for (std::size_t e = 0; e < idx.size(); ++e) {
    rows[e] = k >= 0 ? idx[e] : idx[e] - k;
    cols[e] = k >= 0 ? idx[e] + k : idx[e];
  }
  detail::Array<T> x(vals.size(), Backend::Host);  // (a std::vector<bool> has no data())
  for (std::size_t e = 0; e < vals.size(); ++e) x[e] = vals[e];
  Matrix<T> m = Matrix<T>::from_coo(n, n, rows, cols, std::span<const T>(x.data(), x.size()));
  if (where != Backend::Host) m.csr(where);
  C = std::move(m);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("diag");
}

// A with nrows x ncols (GrB_Matrix_resize): the entries outside dropped, none added. A is
// replaced by a new matrix, built in `where` (on the GPU: cuda::resize_csr).
template <class T>
void resize(Matrix<T>& A, Index nrows, Index ncols, Backend where = Backend::Host) try {
  if (nrows < 0 || ncols < 0 || nrows > Index(std::numeric_limits<Vid>::max()) ||
      ncols > Index(std::numeric_limits<Vid>::max()))
    throw Error(Status::InvalidValue,
                "resize: " + std::to_string(nrows) + " x " + std::to_string(ncols) + " (each size 0 to 2^31-1)");
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    A = Matrix<T>::from_valid_csr(detail::cuda::resize_csr<T>(A.csr(Backend::Cuda), nrows, ncols));
    return;
  }
#endif
  const Csr<T>& a = A.csr(Backend::Host);
  const Index keep_rows = std::min(nrows, A.nrows());
  auto value = [&](Offset p) { return a.is_iso() ? a.iso_value : a.values[p]; };
  auto end_of = [&](Index i) {  // the row's first column past ncols
    return Offset(std::lower_bound(a.col_idx.data() + a.row_ptr[i], a.col_idx.data() + a.row_ptr[i + 1],
                                   Vid(std::min<Index>(ncols, std::numeric_limits<Vid>::max()))) -
                  a.col_idx.data());
  };
  auto count = [&](Index i) { return i < keep_rows ? end_of(i) - a.row_ptr[i] : Offset(0); };
  auto fill = [&](Index i, Vid* col, T* val) {
    if (i >= keep_rows) return;
    for (Offset p = a.row_ptr[i], e = end_of(i); p < e; ++p) {
      *col++ = a.col_idx[p];
      *val++ = value(p);
    }
  };
  detail::place_result(A, detail::host_rows<T>(nrows, ncols, count, fill), where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("resize");
}

// u with length n (GrB_Vector_resize): the entries at n and past dropped, in u's backend. On the
// GPU one kernel over the new length (the extract's gather through the identity); on the host a
// sparse u is filtered by its entries, a bitmap or full one the same way as on the GPU.
template <class T>
void resize(Vector<T>& u, Index n) try {
  if (n < 0) throw Error(Status::InvalidValue, "resize: a vector of length " + std::to_string(n));
  if (u.backend() == Backend::Cuda || u.form() != VectorForm::Sparse) {
    detail::VectorStore<T> t;
    if (u.backend() == Backend::Host) detail::host::extract_indexed(t, {}, nullptr, n, detail::view(u.store()));
#if GBCUDA_HAVE_CUDA
    else detail::cuda::extract_indexed(t, {}, nullptr, n, detail::view(u.store()));
#endif
    u.store() = std::move(t);
    u.conform();
    return;
  }
  std::vector<Index> idx;
  std::vector<T> vals;
  u.extract_tuples(idx, vals);
  std::vector<Index> keep_idx;
  std::vector<T> keep_vals;
  for (std::size_t e = 0; e < idx.size(); ++e)
    if (idx[e] < n) {
      keep_idx.push_back(idx[e]);
      keep_vals.push_back(vals[e]);
    }
  u = Vector<T>::from_tuples(n, keep_idx, keep_vals, u.backend());
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("resize");
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

// w<mask> = accum(w, each row of A reduced by a built-in binary operator) (GrB_Matrix_reduce_
// BinaryOp; desc.transpose_a: each column): PLUS, TIMES, MIN, MAX, LOR and LAND, as their monoids
// (another operator is a compile-time error: it has no identity to start a row from).
template <class TW, class MaskArg, class Accum, class Op, class TA>
requires(detail::monoid_of_op<Op>::exists) void reduce(Vector<TW>& w, const MaskArg& mask, const Accum& accum,
                                                       const Op&, const Matrix<TA>& A, const Descriptor& d = {}) {
  reduce(w, mask, accum, typename detail::monoid_of_op<Op>::type{}, A, d);
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

// s = accum(s, the monoid's sum of A's stored values) (GrB_Matrix_reduce_Monoid_Scalar); with no
// entry in A, s becomes empty (no accumulator) or stays as it is.
template <class Accum, class Monoid, class T>
void reduce(Scalar<typename Monoid::value_type>& s, const Accum& accum, const Monoid& mon, const Matrix<T>& A,
            Backend where = Backend::Host) {
  using Z = typename Monoid::value_type;
  detail::accumulate_scalar(s, accum, A.nvals() > 0 ? std::optional<Z>(reduce(mon, A, where)) : std::nullopt);
}

// The same with a built-in binary operator (GrB_Matrix_reduce_BinaryOp_Scalar): PLUS, TIMES, MIN,
// MAX, LOR and LAND, as their monoids.
template <class Accum, class Op, class T>
requires(detail::monoid_of_op<Op>::exists) void reduce(Scalar<typename Op::result_type>& s, const Accum& accum,
                                                       const Op&, const Matrix<T>& A, Backend where = Backend::Host) {
  reduce(s, accum, typename detail::monoid_of_op<Op>::type{}, A, where);
}

}  // namespace gbcuda
