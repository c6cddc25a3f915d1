#pragma once
// The operations, GraphBLAS style:
//   mxv(w, mask, accum, semiring, A, u, desc)      w<mask> = accum(w, A*u)
//   vxm(w, mask, accum, semiring, u, A, desc)      w'<mask> = accum(w', u'*A)
//   assign(w, mask, accum, scalar, desc)           w<mask> = accum(w, scalar) at every index
//   apply(w, mask, accum, unary_op, u, desc)       w<mask> = accum(w, op(u))
//   ewise_add(w, mask, accum, op, u, v, desc)      union of the patterns of u and v
//   ewise_mult(w, mask, accum, op, u, v, desc)     intersection of the patterns
//   reduce(monoid, u)                              the sum of u's entries under the monoid
// `mask` is `no_mask` or a Vector of any type; `accum` is `no_accum` or a binary operator.
// Everything runs in w's backend; inputs living elsewhere are copied there first. Operators the
// CUDA backend does not instantiate (user-defined ones) run on host copies, transparently.
// Types: w's type is the semiring's (or operator's) result type; value semirings on CUDA expect
// A, u and w of one type (other combinations run on the host).
#include <memory>
#include <optional>
#include <type_traits>

#include "gbcuda/descriptor.hpp"
#include "gbcuda/detail/backend_ops.hpp"
#include "gbcuda/detail/host_ops.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/semiring.hpp"
#include "gbcuda/vector.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {

struct NoMask {};
inline constexpr NoMask no_mask{};

namespace detail {

[[noreturn]] void throw_dimension_mismatch(const char* op, Index expected, Index got);

// A mask made ready for one backend: the view plus whatever it had to build.
struct PreparedMask {
  MaskView view;
  Array<std::uint8_t> scratch;
  std::shared_ptr<void> keep_alive;  // a copy of the mask in this backend, when one was made
};

template <class MaskArg>
PreparedMask prepare_mask(const MaskArg& mask, const Descriptor& d, Backend b, Index n) {
  PreparedMask pm;
  pm.view.complement = d.mask_complement;
  if constexpr (std::is_same_v<MaskArg, NoMask>) {
    (void)mask;
    (void)b;
    (void)n;
    return pm;
  } else {
    if (mask.size() != n) throw_dimension_mismatch("mask", n, mask.size());
    const auto& ms = mask.store();
    if (ms.where != b) {  // bring the mask over once; the prepared view points into the copy
      auto moved = std::make_shared<std::remove_cvref_t<MaskArg>>(mask.to(b));
      PreparedMask out = prepare_mask(*moved, d, b, n);
      out.keep_alive = moved;
      return out;
    }
    if (d.mask_structural && ms.form == VectorForm::Dense) return pm;  // every entry present
    if (d.mask_structural && ms.form == VectorForm::Bitmap) {
      pm.view.bitmap = ms.bitmap.data();
      return pm;
    }
    pm.scratch = Array<std::uint8_t>(n, b);
    auto mv = view(ms);
    if (b == Backend::Host) host::mask_bitmap(pm.scratch.data(), mv, d.mask_structural);
#if GBCUDA_HAVE_CUDA
    else cuda::mask_bitmap(pm.scratch.data(), mv, d.mask_structural);
#endif
    pm.view.bitmap = pm.scratch.data();
    if (d.mask_structural && ms.form == VectorForm::Sparse && !d.mask_complement) {
      pm.view.list = ms.indices.data();
      pm.view.list_size = ms.nvals;
    }
    return pm;
  }
}

// Returns `v` itself when it already lives in `b`, else a copy held in `holder`.
template <class T>
const Vector<T>& in_backend(const Vector<T>& v, Backend b, std::optional<Vector<T>>& holder) {
  if (v.backend() == b) return v;
  holder.emplace(v.to(b));
  return *holder;
}
// Returns `v` in the requested form (a converted copy held in `holder` when it is not).
template <class T>
const Vector<T>& in_form(const Vector<T>& v, VectorForm f, std::optional<Vector<T>>& holder) {
  if (v.form() == f) return v;
  holder.emplace(v);
  holder->to_form(f);
  return *holder;
}
template <class MaskArg>
auto mask_to_host(const MaskArg& m) {
  if constexpr (std::is_same_v<MaskArg, NoMask>) return NoMask{};
  else return m.to(Backend::Host);
}

template <class T, class Accum>
void merge_into(Vector<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace) {
  if (w.backend() == Backend::Host) host::merge(w.store(), m, accum, t, replace);
#if GBCUDA_HAVE_CUDA
  else if constexpr (cuda_supports_accum<Accum, T>()) cuda::merge(w.store(), m, accum, t, replace);
#endif
  w.conform();
}

// Structural semirings read neither operand's values: hand the backends value-free views.
template <class S>
inline constexpr bool is_structural_v = !S::mul_type::uses_x && !S::mul_type::uses_y;

template <class S, class TA, class TU, class TW>
void product(Vector<TW>& w, const PreparedMask& pm, const S& s, const Matrix<TA>& A, bool transposed,
             const Vector<TU>& u, bool u_first, Direction dir) {
  static_assert(std::is_same_v<TW, typename S::value_type>, "w must have the semiring's value type");
  const Backend b = w.backend();
  bool can_push = b == Backend::Host;
#if GBCUDA_HAVE_CUDA
  if (b == Backend::Cuda) can_push = cuda_can_scatter<S>();
#endif
  bool push = false;
  if (dir == Direction::Push) push = can_push;
  else if (dir == Direction::Auto) push = can_push && u.nvals() * 32 < u.size();
  VectorStore<TW> t;
  std::optional<Vector<TU>> u_hold;
  if (push) {
    const Matrix<TA>& cols_m = transposed ? A : A.transpose();  // rows of op(A)'
    const Vector<TU>& us = in_form(u, VectorForm::Sparse, u_hold);
    auto a = view(cols_m.csr(b));
    auto x = view(us.store());
    if (b == Backend::Host) host::scatter(t, pm.view, s, a, x, u_first);
#if GBCUDA_HAVE_CUDA
    else if constexpr (cuda_supports_semiring<S, TA, TU>() && cuda_can_scatter<S>()) {
      if constexpr (is_structural_v<S>) cuda::scatter(t, pm.view, s, value_free(a), value_free(x), u_first);
      else cuda::scatter(t, pm.view, s, a, x, u_first);
    }
#endif
  } else {
    const Matrix<TA>& rows_m = transposed ? A.transpose() : A;  // rows of op(A)
    const Vector<TU>& ug = u.form() == VectorForm::Sparse ? in_form(u, VectorForm::Bitmap, u_hold) : u;
    auto a = view(rows_m.csr(b));
    auto x = view(ug.store());
    if (b == Backend::Host) host::gather(t, pm.view, s, a, x, u_first);
#if GBCUDA_HAVE_CUDA
    else if constexpr (cuda_supports_semiring<S, TA, TU>()) {
      if constexpr (is_structural_v<S>) cuda::gather(t, pm.view, s, value_free(a), value_free(x), u_first);
      else cuda::gather(t, pm.view, s, a, x, u_first);
    }
#endif
  }
  w.store() = std::move(t);
}

template <class TW, class MaskArg, class Accum, class S, class TA, class TU>
void product_op(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Matrix<TA>& A,
                const Vector<TU>& u, const Descriptor& d, bool is_vxm) {
  const bool transposed = is_vxm != d.transpose_a;  // walk the rows of op(A)
  const Index out_n = transposed ? A.ncols() : A.nrows();
  const Index in_n = transposed ? A.nrows() : A.ncols();
  if (w.size() != out_n) throw_dimension_mismatch(is_vxm ? "vxm output" : "mxv output", out_n, w.size());
  if (u.size() != in_n) throw_dimension_mismatch(is_vxm ? "vxm input" : "mxv input", in_n, u.size());
  const Backend b = w.backend();
  bool on_cuda_ok = true;
  if constexpr (!(GBCUDA_HAVE_CUDA && cuda_supports_semiring<S, TA, TU>() && cuda_supports_accum<Accum, TW>()))
    on_cuda_ok = false;
  if (b == Backend::Cuda && !on_cuda_ok) {  // run on host copies
    Vector<TW> wh = w.to(Backend::Host);
    product_op(wh, mask_to_host(mask), accum, s, A, u.to(Backend::Host), d, is_vxm);
    w = wh.to(Backend::Cuda);
    return;
  }
  std::optional<Vector<TU>> u_hold;
  const Vector<TU>& ub = in_backend(u, b, u_hold);
  PreparedMask pm = prepare_mask(mask, d, b, out_n);
  Vector<TW> t(out_n, b);
  product(t, pm, s, A, transposed, ub, is_vxm, d.direction);
  merge_into(w, pm.view, accum, t.store(), d.replace);
}

}  // namespace detail

template <class TW, class MaskArg, class Accum, class S, class TA, class TU>
void mxv(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Matrix<TA>& A,
         const Vector<TU>& u, const Descriptor& d = {}) {
  detail::product_op(w, mask, accum, s, A, u, d, false);
}

template <class TW, class MaskArg, class Accum, class S, class TU, class TA>
void vxm(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const S& s, const Vector<TU>& u,
         const Matrix<TA>& A, const Descriptor& d = {}) {
  detail::product_op(w, mask, accum, s, A, u, d, true);
}

template <class T, class MaskArg, class Accum>
void assign(Vector<T>& w, const MaskArg& mask, const Accum& accum, T scalar, const Descriptor& d = {}) {
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_accum<Accum, T>())) {
    if (b == Backend::Cuda) {
      Vector<T> wh = w.to(Backend::Host);
      assign(wh, detail::mask_to_host(mask), accum, scalar, d);
      w = wh.to(Backend::Cuda);
      return;
    }
  }
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size());
  if (b == Backend::Host) detail::host::merge_scalar(w.store(), pm.view, accum, scalar, d.replace);
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_accum<Accum, T>())
    detail::cuda::merge_scalar(w.store(), pm.view, accum, scalar, d.replace);
#endif
  w.conform();
}

template <class TW, class MaskArg, class Accum, class Op, class TU>
void apply(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
           const Descriptor& d = {}) {
  static_assert(std::is_same_v<TW, typename Op::result_type>, "w must have the operator's result type");
  if (w.size() != u.size()) detail::throw_dimension_mismatch("apply", w.size(), u.size());
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && detail::cuda_supports_unary_op<Op, TU>() && std::is_same_v<TW, TU> &&
                  detail::cuda_supports_accum<Accum, TW>())) {
    if (b == Backend::Cuda) {
      Vector<TW> wh = w.to(Backend::Host);
      apply(wh, detail::mask_to_host(mask), accum, op, u.to(Backend::Host), d);
      w = wh.to(Backend::Cuda);
      return;
    }
  }
  std::optional<Vector<TU>> u_hold;
  const Vector<TU>& ub = detail::in_backend(u, b, u_hold);
  detail::PreparedMask pm = detail::prepare_mask(mask, d, b, w.size());
  detail::VectorStore<TW> t;
  if (b == Backend::Host) detail::host::apply(t, pm.view, op, detail::view(ub.store()));
#if GBCUDA_HAVE_CUDA
  else if constexpr (detail::cuda_supports_unary_op<Op, TU>() && std::is_same_v<TW, TU>)
    detail::cuda::apply(t, pm.view, op, detail::view(ub.store()));
#endif
  detail::merge_into(w, pm.view, accum, t, d.replace);
}

namespace detail {
template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_op(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
              const Vector<TV>& v, const Descriptor& d, bool is_union) {
  static_assert(std::is_same_v<TW, typename Op::result_type>, "w must have the operator's result type");
  if (u.size() != w.size()) throw_dimension_mismatch("ewise u", w.size(), u.size());
  if (v.size() != w.size()) throw_dimension_mismatch("ewise v", w.size(), v.size());
  const Backend b = w.backend();
  if constexpr (!(GBCUDA_HAVE_CUDA && cuda_supports_binary_op<Op, TW>() && std::is_same_v<TW, TU> &&
                  std::is_same_v<TW, TV> && cuda_supports_accum<Accum, TW>())) {
    if (b == Backend::Cuda) {
      Vector<TW> wh = w.to(Backend::Host);
      ewise_op(wh, mask_to_host(mask), accum, op, u.to(Backend::Host), v.to(Backend::Host), d, is_union);
      w = wh.to(Backend::Cuda);
      return;
    }
  }
  std::optional<Vector<TU>> u_hold;
  std::optional<Vector<TV>> v_hold;
  const Vector<TU>& ub = in_backend(u, b, u_hold);
  const Vector<TV>& vb = in_backend(v, b, v_hold);
  PreparedMask pm = prepare_mask(mask, d, b, w.size());
  VectorStore<TW> t;
  if (b == Backend::Host) host::ewise(t, pm.view, op, view(ub.store()), view(vb.store()), is_union);
#if GBCUDA_HAVE_CUDA
  else if constexpr (cuda_supports_binary_op<Op, TW>() && std::is_same_v<TW, TU> && std::is_same_v<TW, TV>)
    cuda::ewise(t, pm.view, op, view(ub.store()), view(vb.store()), is_union);
#endif
  merge_into(w, pm.view, accum, t, d.replace);
}
}  // namespace detail

template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_add(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
               const Vector<TV>& v, const Descriptor& d = {}) {
  detail::ewise_op(w, mask, accum, op, u, v, d, true);
}
template <class TW, class MaskArg, class Accum, class Op, class TU, class TV>
void ewise_mult(Vector<TW>& w, const MaskArg& mask, const Accum& accum, const Op& op, const Vector<TU>& u,
                const Vector<TV>& v, const Descriptor& d = {}) {
  detail::ewise_op(w, mask, accum, op, u, v, d, false);
}

template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const Vector<T>& u) {
  if (u.backend() == Backend::Host) return detail::host::reduce(mon, detail::view(u.store()));
#if GBCUDA_HAVE_CUDA
  if constexpr (detail::cuda_supports_monoid<Monoid, T>()) return detail::cuda::reduce(mon, detail::view(u.store()));
#endif
  Vector<T> uh = u.to(Backend::Host);
  return detail::host::reduce(mon, detail::view(uh.store()));
}

}  // namespace gbcuda
