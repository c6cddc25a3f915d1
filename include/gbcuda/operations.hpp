#pragma once
// The operations, GraphBLAS style:
//   mxv(w, mask, accum, semiring, A, u, desc)      w<mask> = accum(w, A*u)
//   vxm(w, mask, accum, semiring, u, A, desc)      w'<mask> = accum(w', u'*A)
//   assign(w, mask, accum, scalar, desc)           w<mask> = accum(w, scalar) at every index
//   assign(w, mask, accum, u, desc)                w<mask> = accum(w, u) at every index
//   assign(w, mask, accum, u or scalar, indices, desc)  w<mask>(indices) = accum(w(indices), u)
//   extract(w, mask, accum, u, indices, desc)      w<mask> = accum(w, u(indices))
//   subassign(w, mask, accum, u or x, indices, desc)  w(indices)<mask> = accum(w(indices), u)
//   apply(w, mask, accum, unary_op, u, desc)       w<mask> = accum(w, op(u)); unary_op may be a
//                                                  bound binary op: bind_first(op, s) / bind_second
//   select(w, mask, accum, pred, u, thunk, desc)   w<mask> = accum(w, u's entries where pred holds)
//   ewise_add(w, mask, accum, op, u, v, desc)      union of the patterns of u and v
//   ewise_mult(w, mask, accum, op, u, v, desc)     intersection of the patterns
//   reduce(monoid, u)                              the sum of u's entries under the monoid
//   reduce(s, accum, monoid, u)                    s = accum(s, sum) into a Scalar (empty if none)
//   reduce(s, accum, op, u)                        the same with PLUS, TIMES, MIN, MAX, LOR or LAND
//   reduce(w, accum, monoid or op, u)              the same into w of size 1, on the device (no wait)
// A Scalar (scalar.hpp) may also be assigned (empty: deletes), be a select's thunk, or be set.
// Index lists are any IndexList (index_list.hpp): a range of any integer type, or `all` (GrB_ALL).
// `mask` is `no_mask` or a Vector of any type; `accum` is `no_accum` or a binary operator.
// Everything runs in w's backend; inputs living elsewhere are copied there first. Operators the
// CUDA backend does not instantiate (user-defined ones) run on host copies, transparently; those
// made with make_device_* (semiring.hpp, nvcc callers) run in the caller's own kernels instead.
// On the CUDA backend an operation is enqueued on the calling thread's stream and returns without
// waiting for the GPU; counts stay in device memory until the caller asks (Vector::nvals).
// Types: a product's A, u and w may be of any value types: A's and u's values are cast to the
// semiring's type as they are read, the result to w's (GraphBLAS typecasting, cast_to), on both
// backends. Element-wise operations on CUDA expect one type (other combinations run on the host).
// This header holds the public calls and their argument checks; which backend and kernel runs
// each is chosen in detail/dispatch.hpp.
#include <algorithm>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "gbcuda/detail/dispatch.hpp"
#include "gbcuda/index_list.hpp"
#include "gbcuda/scalar.hpp"

namespace gbcuda {

template <class TW, class MaskArg, class Accum, class S, class TA, class TU>
void mxv(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Matrix<TA>& A, const Vector<TU>& u,
         const Descriptor& d = {}) try {
  detail::product_op(w, mask, accum, s, A, u, d, false);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("mxv");
}

template <class TW, class MaskArg, class Accum, class S, class TU, class TA>
void vxm(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Vector<TU>& u, const Matrix<TA>& A,
         const Descriptor& d = {}) try {
  detail::product_op(w, mask, accum, s, A, u, d, true);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("vxm");
}

template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, T scalar, const Descriptor& d = {}) try {
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(w, [&](Vector<T>& wh) { assign(wh, detail::mask_to_host(mask), accum, scalar, d); });
      return;
    }
  }
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size(), /*list_ok=*/!d.replace);
  if (b == Backend::Host) detail::host::merge_scalar(w.store(), pm.view, accum, scalar, d.replace);
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_accum<Accum, T>())
    detail::cuda::merge_scalar(w.store(), pm.view, accum, scalar, d.replace);
#endif
  w.conform();
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

// w<mask> = accum(w, u) at every index (GrB_Vector_assign with GrB_ALL). `assign(pi, q, no_accum,
// q, desc::S)` is how a BFS records parents: with the mask being u itself (structural, not
// complemented) only u's entries are touched, whatever the vector's length.
template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Vector<T>& u, const Descriptor& d = {}) try {
  if (u.size() != w.size()) detail::throw_dimension_mismatch("assign", w.size(), u.size());
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(
          w, [&](Vector<T>& wh) { assign(wh, detail::mask_to_host(mask), accum, u.to(Backend::Host), d); });
      return;
    }
  }
  bool mask_is_u = false;
  if constexpr (std::is_same_v<MaskArg, Vector<T>>) mask_is_u = &mask == &u && d.mask_structural && !d.mask_complement;
  std::optional<Vector<T>> u_hold;
  const Vector<T>& ub = detail::in_backend(u, b, u_hold);
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_accum<Accum, T>()) {
    // A BFS's parent record (assign(pi, q, no_accum, q, desc::S)) on the GPU: u's entries laid
    // over w in one kernel, with no copy of u (its arrays are as long as w).
    if (b == Backend::Cuda && mask_is_u && !d.replace && &u != &w && ub.form() == VectorForm::Sparse) {
      detail::cuda::merge_entries(w.store(), detail::view(ub.store()), accum);
      w.conform();
      return;
    }
  }
#endif
  // u's entries the mask allows: all of them when the mask is u (or there is none).
  const bool all_allowed = mask_is_u || (std::is_same_v<MaskArg, NoMask> && !d.mask_complement);
  detail::PreparedMask pm =
      detail::prepare_mask(mask, d, b, w.size(), /*list_ok=*/mask_is_u && !d.replace && std::is_same_v<Accum, NoAccum>);
  detail::VectorStore<T> t;
  if (all_allowed) t = ub.store().clone(b);
  else if (b == Backend::Host) detail::host::apply(t, pm.view, Identity<T>{}, detail::view(ub.store()));
#if GBCUDA_HAVE_CUDA
  else detail::cuda::apply(t, pm.view, detail::cuda::element_op<Identity<T>, T>({}), detail::view(ub.store()));
#endif
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

namespace detail {
// Every listed index below n (Error InvalidIndex otherwise); repeats allowed.
inline void check_indices(std::span<const Index> idx, Index n, const char* what) {
  for (Index i : idx)
    if (i < 0 || i >= n)
      throw Error(Status::InvalidIndex,
                  std::string(what) + " " + std::to_string(i) + " is out of range [0, " + std::to_string(n) + ")");
}
// A host index list in GPU memory: one copy straight from the caller's memory (large lists go
// through the pinned ring, host_pages.hpp), no staging vector on the host.
inline Array<Index> indices_on_device(std::span<const Index> idx) {
  Array<Index> a(idx.size(), Backend::Cuda);
  if (!idx.empty()) copy_bytes(a.data(), Backend::Cuda, idx.data(), Backend::Host, idx.size_bytes());
  return a;
}
// An assign's index list: every index below n, none twice (GraphBLAS leaves duplicates
// undefined; here they are an error, so no result depends on which write wins).
inline void check_assign_indices(std::span<const Index> idx, Index n, const char* what = "assign") {
  std::vector<Index> sorted(idx.begin(), idx.end());
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && (sorted.front() < 0 || sorted.back() >= n))
    throw Error(Status::InvalidIndex, std::string(what) + ": index " +
                                          std::to_string(sorted.front() < 0 ? sorted.front() : sorted.back()) +
                                          " is outside a vector of length " + std::to_string(n));
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    throw Error(Status::InvalidIndex,
                std::string(what) + ": index " + std::to_string(*dup) + " appears twice in the index list");
}
}  // namespace detail

// w<mask>(indices) = accum(w(indices), u) (GrB_Vector_assign with an index list): u has one entry
// slot per listed index; w(indices[k]) takes u(k), accumulated when there is an accumulator, and
// with none an absent u(k) deletes w(indices[k]). The mask has w's length and applies to w as a
// whole: positions not listed keep their entries, unless replace deletes them outside the mask.
// Indices must be below w.size() and distinct (Error InvalidIndex otherwise). Costs O(w.size()).
template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Vector<T>& u, std::span<const Index> indices,
            const Descriptor& d = {}) try {
  const Index count = Index(indices.size());
  if (u.size() != count) detail::throw_dimension_mismatch("assign (u against the index list)", count, u.size());
  detail::check_assign_indices(indices, w.size());
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(
          w, [&](Vector<T>& wh) { assign(wh, detail::mask_to_host(mask), accum, u.to(Backend::Host), indices, d); });
      return;
    }
  }
  std::optional<Vector<T>> u_hold, u_form;
  const Vector<T>& ub = detail::in_backend(u, b, u_hold);
  const Vector<T>& up = ub.form() == VectorForm::Sparse ? detail::in_form(ub, VectorForm::Bitmap, u_form) : ub;
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size());
  // t = w with the listed positions assigned; then w<mask> = t.
  detail::VectorStore<T> t = w.store().clone(b);
  if (b == Backend::Host) detail::host::assign_indexed(t, indices.data(), count, detail::view(up.store()), accum);
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_accum<Accum, T>()) {
    const detail::Array<Index> idx = detail::indices_on_device(indices);
    detail::cuda::assign_indexed(t, idx.data(), count, detail::view(up.store()), detail::cuda::bin_code<Accum, T>());
  }
#endif
  if (pm.view.present()) {  // the merge takes only entries the mask allows (backend_ops.hpp)
    detail::VectorStore<T> allowed;
    if (b == Backend::Host) detail::host::apply(allowed, pm.view, Identity<T>{}, detail::view(t));
#if GBCUDA_HAVE_CUDA
    else detail::cuda::apply(allowed, pm.view, detail::cuda::element_op<Identity<T>, T>({}), detail::view(t));
#endif
    t = std::move(allowed);
  }
  detail::merge_into(w, pm.view, no_accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}
// The same with the indices in any integer type (std::vector<int>, GraphBLAS's GrB_Index, ...), or
// `all` (GrB_ALL): then it is the assign at every index above.
template <class T, class MaskArg, class Accum, IndexList R>
requires(!detail::is_index_span_v<R>) void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum,
                                                  const Vector<T>& u, const R& indices, const Descriptor& d = {}) try {
  if constexpr (std::is_same_v<R, AllIndices>) {
    assign(w, mask, accum, u, d);
  } else {
    const detail::Indices idx(indices, w.size(), "assign: index");
    assign(w, mask, accum, u, idx.span(), d);
  }
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}
// w<mask>(indices) = accum(w(indices), scalar): the listed positions take the scalar.
template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, T scalar, std::span<const Index> indices,
            const Descriptor& d = {}) try {
  assign(w, mask, accum, Vector<T>::full(Index(indices.size()), scalar, w.backend()), indices, d);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}
template <class T, class MaskArg, class Accum, IndexList R>
requires(!detail::is_index_span_v<R>) void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, T scalar,
                                                  const R& indices, const Descriptor& d = {}) try {
  if constexpr (std::is_same_v<R, AllIndices>) {
    assign(w, mask, accum, scalar, d);
  } else {
    const detail::Indices idx(indices, w.size(), "assign: index");
    assign(w, mask, accum, scalar, idx.span(), d);
  }
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("assign");
}

// w<mask> = accum(w, u(indices)) (GrB_Vector_extract): w has one position per listed index, and
// w(k) is u(indices[k]) where u has that entry. The indices may repeat and come in any order, each
// below u.size() (Error InvalidIndex otherwise); w.size() must be the list's length. u may be w.
// Costs O(|indices|), plus a bitmap of u when u is sparse.
template <class T, class MaskArg, class Accum>
void extract(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Vector<T>& u, std::span<const Index> indices,
             const Descriptor& d = {}) try {
  const Index count = Index(indices.size());
  if (w.size() != count) detail::throw_dimension_mismatch("extract (w against the index list)", count, w.size());
  detail::check_indices(indices, u.size(), "extract: index");
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(
          w, [&](Vector<T>& wh) { extract(wh, detail::mask_to_host(mask), accum, u.to(Backend::Host), indices, d); });
      return;
    }
  }
  std::optional<Vector<T>> u_hold, u_form;
  const Vector<T>& ub = detail::in_backend(u, b, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, count);
  detail::VectorStore<T> t;
  if (b == Backend::Host) {
    const Vector<T>& up = ub.form() == VectorForm::Sparse ? detail::in_form(ub, VectorForm::Bitmap, u_form) : ub;
    detail::host::extract_indexed(t, pm.view, indices.data(), count, detail::view(up.store()));
  }
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_accum<Accum, T>()) {
    const detail::Array<Index> idx = detail::indices_on_device(indices);
    detail::cuda::extract_indexed(t, pm.view, idx.data(), count, detail::view(ub.store()));
  }
#endif
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract");
}
// The same with the indices in any integer type (std::vector<int>, GraphBLAS's GrB_Index, ...), or
// `all` (GrB_ALL): w<mask> = accum(w, u), w of u's size (the assign at every index).
template <class T, class MaskArg, class Accum, IndexList R>
requires(!detail::is_index_span_v<R>) void extract(Vector<T>& w, const MaskArg& mask, const Accum& accum,
                                                   const Vector<T>& u, const R& indices, const Descriptor& d = {}) try {
  if constexpr (std::is_same_v<R, AllIndices>) {
    if (w.size() != u.size())
      detail::throw_dimension_mismatch("extract (w against the index list)", u.size(), w.size());
    assign(w, mask, accum, u, d);
  } else {
    const detail::Indices idx(indices, u.size(), "extract: index");
    extract(w, mask, accum, u, idx.span(), d);
  }
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract");
}

template <class TW, class MaskArg, class Accum, class Op, class TU>
void apply(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
           const Descriptor& d = {}) try {
  static_assert(std::is_same_v<TW, typename Op::result_type>, "w must have the operator's result type");
  if (w.size() != u.size()) detail::throw_dimension_mismatch("apply", w.size(), u.size());
  const Backend b = w.backend();
  constexpr bool builtin_on_cuda = detail::cuda_supports_unary_op<Op, TU>() && std::is_same_v<TW, TU>;
  if constexpr (!(GBCUDA_HAVE_CUDA && (builtin_on_cuda || detail::cuda_user_unary_op<Op, TU>()) &&
                  detail::cuda_supports_accum<Accum, TW>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(
          w, [&](Vector<TW>& wh) { apply(wh, detail::mask_to_host(mask), accum, op, u.to(Backend::Host), d); });
      return;
    }
  }
  std::optional<Vector<TU>> u_hold;
  const Vector<TU>& ub = detail::in_backend(u, b, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size());
#if GBCUDA_HAVE_CUDA
  if constexpr (builtin_on_cuda && detail::cuda_supports_accum<Accum, TW>()) {
    // Under an accumulator, or a mask that keeps w elsewhere, with w and u by position: one
    // kernel writes op(u) into w. (Without either, op(u) alone becomes w: one kernel as well.)
    constexpr bool accumulates = !std::is_same_v<Accum, NoAccum>;
    if (b == Backend::Cuda && (accumulates || (pm.view.present() && !d.replace)) &&
        detail::cuda::apply_merge_fits(w.store(), pm.view, detail::view(ub.store()))) {
      detail::cuda::apply_merge(w.store(), pm.view, accum, detail::cuda::element_op<Op, TU>(op),
                                detail::view(ub.store()), d.replace);
      w.conform();
      return;
    }
  }
#endif
  detail::VectorStore<TW> t;
  if (b == Backend::Host) detail::host::apply(t, pm.view, op, detail::view(ub.store()));
#if GBCUDA_HAVE_CUDA
  else if constexpr (builtin_on_cuda)
    detail::cuda::apply(t, pm.view, detail::cuda::element_op<Op, TU>(op), detail::view(ub.store()));
#endif
#if GBCUDA_USER_KERNELS
  else if constexpr (detail::cuda_user_unary_op<Op, TU>()) {
    std::optional<Vector<TU>> u_form;
    const Vector<TU>& up = ub.form() == VectorForm::Sparse ? detail::in_form(ub, VectorForm::Bitmap, u_form) : ub;
    detail::cuda_user::apply(t, pm.view, op, detail::view(up.store()));
  }
#endif
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("apply");
}

// w<mask> = accum(w, op(u, y)) with an index-unary operator (GrB_Vector_apply_IndexOp_<T>): u's
// structure, entry u(i) = x becoming op(x, i, 0, y) cast to w's type (a vector is one column, so
// RowIndex gives i + y, ColIndex y, DiagIndex -(i + y)); op is one of those or any callable
// (x, i, j, y). The three positional operators run on the GPU for a GPU w (one kernel writes the
// values of u's entries the mask lets through); any other callable on the host, a GPU w through
// host copies (host_fallbacks() counts them).
template <class TW, class MaskArg, class Accum, class Op, class TU>
requires std::is_invocable_v<const Op&, const TU&, Index, Index, double>
void apply(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u, double y,
           const Descriptor& d = {}) try {
  if (w.size() != u.size()) detail::throw_dimension_mismatch("apply", w.size(), u.size());
#if GBCUDA_HAVE_CUDA
  constexpr bool positional =
      std::is_same_v<Op, RowIndex> || std::is_same_v<Op, ColIndex> || std::is_same_v<Op, DiagIndex>;
  if constexpr (positional && detail::cuda_supports_accum<Accum, TW>()) {
    if (w.backend() == Backend::Cuda) {
      constexpr auto kind = std::is_same_v<Op, RowIndex>   ? detail::cuda::PositionalKind::Row
                            : std::is_same_v<Op, ColIndex> ? detail::cuda::PositionalKind::Col
                                                           : detail::cuda::PositionalKind::Diag;
      std::optional<Vector<TU>> u_hold;
      const Vector<TU>& ub = detail::in_backend(u, Backend::Cuda, u_hold);
      detail::PreparedMask pm = detail::prepare_mask(mask, d, Backend::Cuda, w.size());
      detail::VectorStore<TU> kept;
      detail::cuda::apply(kept, pm.view, detail::cuda::element_op<Identity<TU>, TU>({}), detail::view(ub.store()));
      const bool sparse = kept.form == VectorForm::Sparse;  // a sparse kept's count may be on the device
      const Offset slots = sparse ? Offset(kept.indices.size()) : Offset(kept.n);
      detail::Array<TW> values = detail::cuda::positional_values<TW>(nullptr, sparse ? kept.indices.data() : nullptr,
                                                                     kept.n, slots, kind, std::int64_t(y));
      detail::VectorStore<TW> t = detail::with_pattern_of<TW>(std::move(kept), std::move(values));
      detail::merge_into(w, pm.view, accum, t, d.replace);
      return;
    }
  }
#endif
  if (w.backend() == Backend::Cuda) {
    detail::on_host_copy(
        w, [&](Vector<TW>& wh) { apply(wh, detail::mask_to_host(mask), accum, op, u.to(Backend::Host), y, d); });
    return;
  }
  std::optional<Vector<TU>> u_hold;
  const Vector<TU>& uh = detail::in_backend(u, Backend::Host, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, Backend::Host, w.size());
  detail::VectorStore<TU> kept;  // u's entries the mask lets through, then their new values
  detail::host::apply(kept, pm.view, Identity<TU>{}, detail::view(uh.store()));
  const bool sparse = kept.form == VectorForm::Sparse;
  const Index slots = sparse ? kept.nvals : kept.n;
  detail::Array<TW> values(static_cast<std::size_t>(slots), Backend::Host);
  for (Index p = 0; p < slots; ++p) {
    const Index i = sparse ? Index(kept.indices[p]) : p;
    if (sparse || kept.form == VectorForm::Dense || kept.bitmap[p])
      values[p] = cast_to<TW>(op(kept.values[p], i, Index(0), y));
  }
  detail::VectorStore<TW> t = detail::with_pattern_of<TW>(std::move(kept), std::move(values));
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("apply");
}

// w<mask> = accum(w, the entries of u where op holds) (GrB_Vector_select with a GrB_IndexUnaryOp):
// op is one of the SelectOp predicates (Tril, ValueGt, ...), evaluated as op(u(i), i, 0, thunk),
// a vector being one column. The thunk is of any arithmetic type; the value predicates compare in
// T with the thunk cast to T (semiring.hpp).
template <class T, class MaskArg, class Accum, SelectKind K, class S>
requires std::is_arithmetic_v<S>
void select(Vector<T>& w, const MaskArg& mask, const Accum& accum, const SelectOp<K>& op, const Vector<T>& u, S thunk,
            const Descriptor& d = {}) try {
  (void)op;  // its kind K is all the backends need
  if (w.size() != u.size()) detail::throw_dimension_mismatch("select", w.size(), u.size());
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      detail::on_host_copy(
          w, [&](Vector<T>& wh) { select(wh, detail::mask_to_host(mask), accum, op, u.to(Backend::Host), thunk, d); });
      return;
    }
  }
  std::optional<Vector<T>> u_hold;
  const Vector<T>& ub = detail::in_backend(u, b, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size());
  detail::VectorStore<T> t;
  if (b == Backend::Host)
    detail::host::apply(t, pm.view, Identity<T>{}, detail::view(ub.store()),
                        detail::SelectKeep<K, T>{select_thunk<T>(thunk)});
#if GBCUDA_HAVE_CUDA
  else detail::cuda::apply(t, pm.view, detail::cuda::select_op<T>(K, select_thunk<T>(thunk)), detail::view(ub.store()));
#endif
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("select");
}

// The same with a user-defined index-unary predicate (GrB_IndexUnaryOp_new): any callable
// pred(u(i), i, j, thunk) -> bool, j = 0 for a vector. Runs on the host; a GPU w through host
// copies (host_fallbacks() counts them).
template <class T, class MaskArg, class Accum, class Pred>
requires(std::is_invocable_r_v<bool, const Pred&, T, Index, Index, double> &&
         !detail::is_select_op_v<Pred>) void select(Vector<T>& w, const MaskArg& mask, const Accum& accum,
                                                    const Pred& pred, const Vector<T>& u, double thunk,
                                                    const Descriptor& d = {}) try {
  if (w.size() != u.size()) detail::throw_dimension_mismatch("select", w.size(), u.size());
  if (w.backend() == Backend::Cuda) {
    detail::on_host_copy(
        w, [&](Vector<T>& wh) { select(wh, detail::mask_to_host(mask), accum, pred, u.to(Backend::Host), thunk, d); });
    return;
  }
  std::optional<Vector<T>> u_hold;
  const Vector<T>& uh = detail::in_backend(u, Backend::Host, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, Backend::Host, w.size());
  detail::VectorStore<T> t;
  detail::host::apply(t, pm.view, Identity<T>{}, detail::view(uh.store()), detail::UserSelectKeep<Pred>{pred, thunk});
  detail::merge_into(w, pm.view, accum, t, d.replace);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("select");
}

template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_add(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
               const Vector<TV>& v, const Descriptor& d = {}) try {
  detail::ewise_op(w, mask, accum, op, u, v, d, true);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_add");
}
template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_mult(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
                const Vector<TV>& v, const Descriptor& d = {}) try {
  detail::ewise_op(w, mask, accum, op, u, v, d, false);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("ewise_mult");
}

namespace detail {
// s = accum(s, t) for a Scalar (GraphBLAS's rule for an empty t: s becomes empty without an
// accumulator, stays as it is with one).
template <class T, class Accum>
void accumulate_scalar(Scalar<T>& s, const Accum& accum, const std::optional<T>& t) {
  if constexpr (std::is_same_v<Accum, NoAccum>) {
    s = Scalar<T>(t);
  } else if (t) {
    s.set(s.empty() ? *t : static_cast<T>(accum(*s.value(), *t)));
  }
}
// A thunk given as a Scalar: its value, or Error(InvalidValue) when it has none
// (GrB_EMPTY_OBJECT).
template <class X>
X thunk_value(const Scalar<X>& thunk, const char* what) {
  if (thunk.empty()) throw Error(Status::InvalidValue, std::string(what) + ": the thunk scalar has no value");
  return *thunk.value();
}
}  // namespace detail

// w<mask> = accum(w, s) at every index (GrB_Vector_assign_Scalar with GrB_ALL); an empty s
// assigns nothing, so the positions the mask allows lose their entries (none with accum).
template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Scalar<T>& s, const Descriptor& d = {}) {
  if (s.empty()) assign(w, mask, accum, Vector<T>(w.size(), w.backend()), d);
  else assign(w, mask, accum, *s.value(), d);
}

template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const Vector<T>& u) try {
  if (u.backend() == Backend::Host) return detail::host::reduce(mon, detail::view(u.store()));
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_monoid<Monoid, T>()) return detail::cuda::reduce(mon, detail::view(u.store()));
#endif
  detail::note_host_fallback();
  Vector<T> uh = u.to(Backend::Host);
  return detail::host::reduce(mon, detail::view(uh.store()));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("reduce");
}

// s = accum(s, the monoid's sum of u's entries) (GrB_Vector_reduce_Monoid_Scalar); with no entry
// in u, s becomes empty (no accumulator) or stays as it is.
template <class Accum, class Monoid, class T>
void reduce(Scalar<typename Monoid::value_type>& s, const Accum& accum, const Monoid& mon, const Vector<T>& u) {
  using Z = typename Monoid::value_type;
  detail::accumulate_scalar(s, accum, u.nvals() > 0 ? std::optional<Z>(reduce(mon, u)) : std::nullopt);
}

// The same with a built-in binary operator (GrB_Vector_reduce_BinaryOp_Scalar): PLUS, TIMES, MIN,
// MAX, LOR and LAND, as their monoids (another operator is a compile-time error: no identity).
template <class Accum, class Op, class T>
requires(detail::monoid_of_op<Op>::exists) void reduce(Scalar<typename Op::result_type>& s, const Accum& accum,
                                                       const Op&, const Vector<T>& u) {
  reduce(s, accum, typename detail::monoid_of_op<Op>::type{}, u);
}

// w(0) = accum(w(0), the monoid's sum of u's entries), w a vector of size 1: a scalar that lives
// where w does. On the GPU the sum is written in device memory by one kernel, with no host wait,
// so a loop on the device can test it (select on w, then device_loop's condition). With no entry
// in u, w loses its entry (no accumulator) or keeps it, as a Scalar would. A monoid or accumulator
// the CUDA backend does not instantiate, or u of another type than the monoid's, runs on the host
// (one wait, counted by host_fallbacks()).
template <class Accum, class Monoid, class T>
void reduce(Vector<typename Monoid::value_type>& w, const Accum& accum, const Monoid& mon, const Vector<T>& u) try {
  using Z = typename Monoid::value_type;
  if (w.size() != 1)
    throw Error(Status::DimensionMismatch,
                "reduce: a vector reduced into must have size 1 (a scalar), got size " + std::to_string(w.size()));
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_monoid<Monoid, T>() && detail::cuda_supports_accum<Accum, Z>()) {
    if (w.backend() == Backend::Cuda) {
      w.to_form(VectorForm::Bitmap);  // before u's view: u may be w
      std::optional<Vector<T>> u_hold;
      const Vector<T>& ub = detail::in_backend(u, Backend::Cuda, u_hold);
      detail::cuda::reduce_into(w.store(), detail::cuda::bin_code<Accum, Z>(), Monoid::kind, mon.identity(),
                                detail::view(ub.store()));
      return;
    }
  }
#endif
  if (w.backend() == Backend::Cuda) detail::note_host_fallback();
  Scalar<Z> s(w.element(0));
  reduce(s, accum, mon, u);
  w.set_element(0, s);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("reduce");
}

// The same with a built-in binary operator: PLUS, TIMES, MIN, MAX, LOR and LAND, as their monoids.
template <class Accum, class Op, class T>
requires(detail::monoid_of_op<Op>::exists) void reduce(Vector<typename Op::result_type>& w, const Accum& accum,
                                                       const Op&, const Vector<T>& u) {
  reduce(w, accum, typename detail::monoid_of_op<Op>::type{}, u);
}

// w<mask>(indices) = accum(w(indices), s) (GrB_Vector_assign_Scalar with an index list); an empty
// s deletes the listed positions the mask allows (none with accum).
template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Scalar<T>& s, std::span<const Index> indices,
            const Descriptor& d = {}) {
  if (s.empty()) assign(w, mask, accum, Vector<T>(Index(indices.size()), w.backend()), indices, d);
  else assign(w, mask, accum, *s.value(), indices, d);
}
template <class T, class MaskArg, class Accum, IndexList R>
requires(!detail::is_index_span_v<R>) void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum,
                                                  const Scalar<T>& s, const R& indices, const Descriptor& d = {}) {
  if constexpr (std::is_same_v<R, AllIndices>) {
    assign(w, mask, accum, s, d);
  } else {
    const detail::Indices idx(indices, w.size(), "assign: index");
    assign(w, mask, accum, s, idx.span(), d);
  }
}

namespace detail {
// GxB_Vector_subassign's three steps in w's backend: s = w(idx); step(s), which is s<mask> =
// accum(s, source); w(idx) = s. w changes only in the last step (an assign: all or nothing).
template <class T, class MaskArg, class Step>
void subassign_region(Vector<T>& w, const MaskArg& mask, std::span<const Index> idx, const Step& step) {
  if constexpr (!std::is_same_v<MaskArg, NoMask>)
    if (mask.size() != Index(idx.size()))
      throw_dimension_mismatch("subassign (the mask against the index list)", Index(idx.size()), mask.size());
  check_assign_indices(idx, w.size(), "subassign");
  Vector<T> s(Index(idx.size()), w.backend());
  extract(s, no_mask, no_accum, w, idx);
  step(s);
  assign(w, no_mask, no_accum, s, idx);
}
}  // namespace detail

// w(indices)<mask> = accum(w(indices), u) (GxB_Vector_subassign): as the assign with an index
// list, except that the mask has the list's length and, with desc.replace, acts on the listed
// positions alone. w(indices[k]) takes u(k) (accumulated with accum; without one an absent u(k)
// deletes it) where mask(k) allows, keeps its entry where the mask does not (deleted with
// replace); positions not listed keep theirs. indices: any IndexList (`all` included), distinct
// and below w.size() (else Error(InvalidIndex)). In w's backend as an extract, a whole-vector
// assign and an indexed assign; costs O(w.size()).
template <class T, class MaskArg, class Accum, IndexList R>
void subassign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Vector<T>& u, const R& indices,
               const Descriptor& d = {}) try {
  const detail::Indices idx(indices, w.size(), "subassign: index");
  if (u.size() != idx.size())
    detail::throw_dimension_mismatch("subassign (u against the index list)", idx.size(), u.size());
  detail::subassign_region(w, mask, idx.span(), [&](Vector<T>& s) { assign(s, mask, accum, u, d); });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}
// w(indices)<mask> = accum(w(indices), x) (GxB_Vector_subassign_<T>): every listed position the
// mask allows takes x.
template <class T, class MaskArg, class Accum, IndexList R>
void subassign(Vector<T>& w, const MaskArg& mask, const Accum& accum, T x, const R& indices,
               const Descriptor& d = {}) try {
  const detail::Indices idx(indices, w.size(), "subassign: index");
  detail::subassign_region(w, mask, idx.span(), [&](Vector<T>& s) { assign(s, mask, accum, x, d); });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}
// GxB_Vector_subassign_Scalar: an empty s deletes the listed positions the mask allows (none with
// accum).
template <class T, class MaskArg, class Accum, IndexList R>
void subassign(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Scalar<T>& x, const R& indices,
               const Descriptor& d = {}) try {
  const detail::Indices idx(indices, w.size(), "subassign: index");
  detail::subassign_region(w, mask, idx.span(), [&](Vector<T>& s) { assign(s, mask, accum, x, d); });
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("subassign");
}

// select with the thunk as a Scalar (GrB_Vector_select_Scalar): an empty thunk is
// Error(InvalidValue).
template <class T, class MaskArg, class Accum, class Op, class X>
void select(Vector<T>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<T>& u,
            const Scalar<X>& thunk, const Descriptor& d = {}) {
  select(w, mask, accum, op, u, detail::thunk_value(thunk, "select"), d);
}

}  // namespace gbcuda
