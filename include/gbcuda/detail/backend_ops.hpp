#pragma once
// The primitives each backend provides. The public operations (operations.hpp) normalise their
// arguments (mask, descriptor, forms, memory) and call these; each backend implements the same
// signatures in its own namespace:
//   detail::host  -- templates in detail/host/*.hpp, all included by detail/host_ops.hpp (OpenMP;
//                    any operator, user-defined too)
//   detail::cuda  -- lib/cuda/*.cu, explicitly instantiated for the built-in operators and the
//                    types of GBCUDA_FOR_EACH_TYPE; cuda_supports_* below say which.
//
// Contract shared by every primitive that produces a vector t:
//   * t is overwritten (any previous content discarded), length = the output length;
//   * t(i) is computed only where mask.allows(i); entries elsewhere are absent;
//   * t is left in the backend's memory, in whatever form suits the primitive; on the CUDA
//     backend its count may stay in device memory (VectorStore::count_on_device) and a Sparse
//     t's arrays may be longer than its count.
// CUDA primitives enqueue their work on the calling thread's stream and return without waiting; a view's
// count may be in device memory (VecView::count()), which only kernels read.
#include <type_traits>

#include "gbcuda/detail/views.hpp"
#include "gbcuda/semiring.hpp"

namespace gbcuda::detail {

// Signatures (documentation; the definitions live in each backend's namespace):
//
// gather (host; the CUDA backend's pulls are cuda::bool_product and cuda::value_pull):
//         t(i) = ADD_k MUL(x, y, k) over the stored entries (i,k) of `rows`, where u(k) present;
//         x = rows(i,k), y = u(k) when !u_first, else x = u(k), y = rows(i,k).
//         u is Bitmap or Dense. Monoids with a terminal value stop a row early.
//   template <class S, class TA, class TU>
//   void gather(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s,
//               const CsrView<TA>& rows, const VecView<TU>& u, bool u_first);
//
// scatter (host; the CUDA backend's pushes are cuda::bool_product and cuda::value_push): same
//         result as gather over the transpose: for each entry k of u (Sparse), for each
//         stored (k, j) of `cols`, t(j) = ADD(t(j), MUL(...)). u is Sparse.
//   template <class S, class TA, class TU>
//   void scatter(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s,
//                const CsrView<TA>& cols, const VecView<TU>& u, bool u_first);
//
// merge: w<m> = accum(w, t) with GraphBLAS semantics (replace deletes entries outside m).
//         Accum is NoAccum or a binary op T(T,T). t obeys the contract above (it may be consumed).
//   template <class T, class Accum>
//   void merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace);
//
// merge_scalar: w<m> = accum(w, s) for every position (GrB_assign of a scalar with GrB_ALL).
//   template <class T, class Accum>
//   void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& accum, T s, bool replace);
//
// apply: t(i) = op(u(i)) where u(i) present (and allowed), and keep(u(i), i) holds (select; the
//         host takes any predicate, CUDA an ElementOp that carries the operator and predicate).
//   template <class Op, class TU, class Keep>
//   void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
//              const Keep& keep);
//
// ewise: t(i) = op(u(i), v(i)) where both present; when is_union, also u(i) or v(i) alone
//         where only one is present (GrB_eWiseAdd vs GrB_eWiseMult).
//   template <class Op, class TU, class TV>
//   void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op,
//              const VecView<TU>& u, const VecView<TV>& v, bool is_union);
//
// reduce: ADD over the entries of u (identity when empty).
//   template <class Monoid, class T>
//   typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u);
//
// mask_bitmap: out[i] = 1 where the mask vector's entry i is present (structural) or present
//         and nonzero (value), else 0. `out` has n bytes in the backend's memory.
//   template <class M>
//   void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural);

// ---- which combinations the CUDA backend instantiates --------------------------------------
template <class T>
inline constexpr bool is_arith_type_v = is_value_type_v<T> && !std::is_same_v<T, bool>;

// The boolean semirings whose CUDA products run on the frontier kernels (cuda::bool_product):
// AnyPair<bool> and AnySecondI<int32/int64> read no values; LorLand<bool> reads u's (its matrix
// must be a pattern of true values, else it takes the value product like any other semiring).
template <class S>
inline constexpr bool is_bool_product_v =
    std::is_same_v<S, AnyPair<bool>> || std::is_same_v<S, LorLand<bool>> ||
    std::is_same_v<S, AnySecondI<std::int32_t>> || std::is_same_v<S, AnySecondI<std::int64_t>>;

// Binary ops instantiated for merge (accumulators) and ewise, each with T in and out: the
// built-in ones (GBCUDA_FOR_EACH_BINARY_OP, semiring.hpp).
template <class Op, class T>
constexpr bool cuda_supports_binary_op() {
  if constexpr (!is_value_type_v<T>) return false;
  else {
#define GBCUDA_IS_BINARY_OP(NAME, ...) std::is_same_v<Op, NAME<T>> ||
    return GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_IS_BINARY_OP) false;
#undef GBCUDA_IS_BINARY_OP
  }
}
template <class Accum, class T>
constexpr bool cuda_supports_accum() {
  if constexpr (std::is_same_v<Accum, NoAccum>) return is_value_type_v<T>;
  else return cuda_supports_binary_op<Accum, T>();
}
// Unary ops for apply, T in and out: Identity AdditiveInverse Abs One LogicalNot
// MultiplicativeInverse, and any of
// the binary ops above over T with a T operand bound (BindFirst / BindSecond).
template <class Op>
inline constexpr bool is_bind_v = false;
template <class Op, class S, bool F>
inline constexpr bool is_bind_v<BoundOp<Op, S, F>> = true;
template <class Op, class T>
constexpr bool cuda_supports_unary_op() {
  if constexpr (!is_value_type_v<T>) return false;
  else if constexpr (is_bind_v<Op>)
    return cuda_supports_binary_op<typename Op::op_type, T>() && std::is_same_v<decltype(Op::scalar), T>;
  else
    return std::is_same_v<Op, Identity<T>> || std::is_same_v<Op, AdditiveInverse<T>> || std::is_same_v<Op, Abs<T>> ||
           std::is_same_v<Op, One<T>> || std::is_same_v<Op, LogicalNot<T>> ||
           std::is_same_v<Op, MultiplicativeInverse<T>>;
}
// Semirings: every one made of a built-in monoid over Z (a value type) and a built-in multiply
// over Z (one of the binary operators above, or SecondI<Z>), with A and u of any value types:
// the CUDA value product (value_product.cu) typecasts them to Z as it reads them, and the
// operation casts its result to w's type. The boolean semirings (is_bool_product_v) run on the
// frontier kernels when their matrix is a pattern, else on the value product too.
template <class M>
struct is_builtin_monoid : std::false_type {};
template <class T, MonoidKind K>
struct is_builtin_monoid<BuiltinMonoid<T, K>> : std::true_type {};
template <class S, class TA, class TU>
constexpr bool cuda_supports_semiring() {
  using Z = typename S::value_type;
  if constexpr (!S::builtin || !is_value_type_v<TA> || !is_value_type_v<TU> || !is_value_type_v<Z>) return false;
  else if constexpr (!is_builtin_monoid<typename S::add_type>::value) return false;
  else return cuda_supports_binary_op<typename S::mul_type, Z>() || std::is_same_v<typename S::mul_type, SecondI<Z>>;
}

// ---- user-defined operators compiled into the caller's kernels (cuda_user_ops.cuh) ------------
// When nvcc compiles the caller, operators made with make_device_* (semiring.hpp) run in kernels
// instantiated there; in a C++ translation unit (or a host-only build) they cannot be named.
#if defined(__CUDACC__) && GBCUDA_HAVE_CUDA
#define GBCUDA_USER_KERNELS 1
#else
#define GBCUDA_USER_KERNELS 0
#endif
template <class Op>
inline constexpr bool is_device_op_v = requires {
  requires Op::device;
};
template <class Op, class S, bool F>
inline constexpr bool is_device_op_v<BoundOp<Op, S, F>> = is_device_op_v<Op>;
// Runs on the device: a built-in operator or monoid (their calls are __host__ __device__), or a
// device one.
template <class Op>
inline constexpr bool device_callable_v = Op::builtin || is_device_op_v<Op>;
template <class Op, class TU>
constexpr bool cuda_user_unary_op() {
  return GBCUDA_USER_KERNELS && is_device_op_v<Op> && is_value_type_v<TU> && is_value_type_v<typename Op::result_type>;
}
template <class Op, class T>
constexpr bool cuda_user_binary_op() {
  return GBCUDA_USER_KERNELS && is_device_op_v<Op> && is_value_type_v<T>;
}
template <class S, class TA, class TU>
constexpr bool cuda_user_semiring() {
  return GBCUDA_USER_KERNELS && !S::builtin && device_callable_v<typename S::add_type> &&
         device_callable_v<typename S::mul_type> && is_value_type_v<TA> && is_value_type_v<TU> &&
         is_value_type_v<typename S::value_type>;
}

// Monoids for reduce: the built-in ones over T.
template <class Mon, class T>
constexpr bool cuda_supports_monoid() {
  if constexpr (!is_value_type_v<T> || !Mon::builtin) return false;
  else return std::is_same_v<typename Mon::value_type, T>;
}

}  // namespace gbcuda::detail
