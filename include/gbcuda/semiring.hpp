#pragma once
// Operators, monoids and semirings. Built-in ones are small structs usable on host and device;
// user-defined ones are any callables (run on the host backend; see docs/api.md).
#include <cmath>
#include <limits>
#include <type_traits>

#include "gbcuda/types.hpp"

namespace gbcuda {

// x * y, with bool meaning logical and (avoids int-in-bool arithmetic); integers wrap modulo
// 2^bits (uint16_t * uint16_t would otherwise overflow the int it is promoted to).
template <class T>
GBCUDA_HD T multiply_values(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) return x && y;
  else if constexpr (std::is_integral_v<T>) return T(detail::wrapping_t<T>(x) * detail::wrapping_t<T>(y));
  else return x * y;
}

// ---- binary operators: z = op(x, y) ------------------------------------------------------
// `uses_x` / `uses_y` say whether the operator reads its operands' values; an operator that
// reads neither (PAIR) or only positions (SECONDI) lets backends skip loading values.
#define GBCUDA_BINARY_OP(NAME, EXPR, USES_X, USES_Y) \
  template <class T>                                 \
  struct NAME {                                      \
    using result_type = T;                           \
    static constexpr bool builtin = true;            \
    static constexpr bool positional = false;        \
    static constexpr bool uses_x = USES_X;           \
    static constexpr bool uses_y = USES_Y;           \
    template <class X, class Y>                      \
    GBCUDA_HD T operator()(X x, Y y) const {         \
      (void)x;                                       \
      (void)y;                                       \
      return EXPR;                                   \
    }                                                \
  };
GBCUDA_BINARY_OP(Plus, cast_to<T>(x) + cast_to<T>(y), true, true)
GBCUDA_BINARY_OP(Minus, cast_to<T>(x) - cast_to<T>(y), true, true)
GBCUDA_BINARY_OP(Times, multiply_values(cast_to<T>(x), cast_to<T>(y)), true, true)
GBCUDA_BINARY_OP(Min, cast_to<T>(y) < cast_to<T>(x) ? cast_to<T>(y) : cast_to<T>(x), true, true)
GBCUDA_BINARY_OP(Max, cast_to<T>(x) < cast_to<T>(y) ? cast_to<T>(y) : cast_to<T>(x), true, true)
GBCUDA_BINARY_OP(First, cast_to<T>(x), true, false)
GBCUDA_BINARY_OP(Second, cast_to<T>(y), false, true)
GBCUDA_BINARY_OP(Pair, T(1), false, false)
GBCUDA_BINARY_OP(Lor, T((x != X(0)) || (y != Y(0))), true, true)
GBCUDA_BINARY_OP(Land, T((x != X(0)) && (y != Y(0))), true, true)
#undef GBCUDA_BINARY_OP

// The built-in binary operators above, listed once: every table of them (the CUDA backend's codes
// and support checks in detail/, its dispatch switches and instantiations in lib/cuda/) is
// generated from this list. X(NAME, ...) is called with each operator's name and the extra
// arguments.
// clang-format off
#define GBCUDA_FOR_EACH_BINARY_OP(X, ...) \
  X(Plus, __VA_ARGS__) X(Minus, __VA_ARGS__) X(Times, __VA_ARGS__) X(Min, __VA_ARGS__) X(Max, __VA_ARGS__) \
  X(First, __VA_ARGS__) X(Second, __VA_ARGS__) X(Pair, __VA_ARGS__) X(Lor, __VA_ARGS__) X(Land, __VA_ARGS__)
// clang-format on

// SECONDI: in a product w = A*u or w' = u'*A the result of one multiply A(i,k)*u(k) (or
// u(k)*A(k,j)) is k, the index shared by the two operands. BFS parents come from this.
template <class T>
struct SecondI {
  using result_type = T;
  static constexpr bool builtin = true;
  static constexpr bool positional = true;
  static constexpr bool uses_x = false;
  static constexpr bool uses_y = false;
  template <class X, class Y>
  GBCUDA_HD T operator()(X, Y, Index k) const {
    return T(k);
  }
};

// 1/x as GraphBLAS's GrB_MINV defines it: for integers 1/0 is the type's largest value and
// otherwise integer division (1, -1 or 0); for bool, true.
template <class T>
GBCUDA_HD T multiplicative_inverse(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    (void)x;
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return x == T(0) ? std::numeric_limits<T>::max() : T(T(1) / x);
  } else {
    return T(1) / x;
  }
}

// |x|; an unsigned value is its own.
template <class T>
GBCUDA_HD T abs_value(T x) {
  if constexpr (std::is_unsigned_v<T>) return x;
  else return x < T(0) ? T(-x) : x;
}

// ---- unary operators: z = op(x) -----------------------------------------------------------
#define GBCUDA_UNARY_OP(NAME, EXPR)       \
  template <class T>                      \
  struct NAME {                           \
    using result_type = T;                \
    static constexpr bool builtin = true; \
    template <class X>                    \
    GBCUDA_HD T operator()(X x) const {   \
      (void)x;                            \
      return EXPR;                        \
    }                                     \
  };
GBCUDA_UNARY_OP(Identity, cast_to<T>(x))
GBCUDA_UNARY_OP(AdditiveInverse, T(-cast_to<T>(x)))
GBCUDA_UNARY_OP(Abs, abs_value(cast_to<T>(x)))
GBCUDA_UNARY_OP(One, T(1))
GBCUDA_UNARY_OP(LogicalNot, T(!(x != X(0))))
GBCUDA_UNARY_OP(MultiplicativeInverse, multiplicative_inverse(cast_to<T>(x)))
#undef GBCUDA_UNARY_OP

// A binary operator with one operand bound to a scalar: a unary operator for apply
// (GrB_apply with GrB_BinaryOp and a scalar, "bind first" / "bind second"). bind_first(op, s)
// maps x to op(s, x); bind_second(op, s) maps x to op(x, s).
template <class Op, class S, bool ScalarFirst>
struct BoundOp {
  using op_type = Op;
  using result_type = typename Op::result_type;
  static constexpr bool builtin = Op::builtin;
  static constexpr bool scalar_first = ScalarFirst;
  Op op;
  S scalar;
  template <class X>
  GBCUDA_HD result_type operator()(X x) const {
    if constexpr (ScalarFirst) return result_type(op(scalar, x));
    else return result_type(op(x, scalar));
  }
};
template <class Op, class S>
using BindFirst = BoundOp<Op, S, true>;
template <class Op, class S>
using BindSecond = BoundOp<Op, S, false>;
template <class Op, class S>
BindFirst<Op, S> bind_first(Op op, S scalar) {
  return BindFirst<Op, S>{op, scalar};
}
template <class Op, class S>
BindSecond<Op, S> bind_second(Op op, S scalar) {
  return BindSecond<Op, S>{op, scalar};
}

// ---- monoids: associative, commutative op with an identity (and maybe a terminal) ----------
enum class MonoidKind { Plus, Times, Min, Max, Lor, Land, Any, User };

template <class T, MonoidKind K>
struct BuiltinMonoid {
  using value_type = T;
  static constexpr bool builtin = true;
  static constexpr MonoidKind kind = K;
  // A monoid has a terminal z when op(z, x) == z for all x: a gather may stop at it.
  static constexpr bool has_terminal = K == MonoidKind::Lor || K == MonoidKind::Land || K == MonoidKind::Any ||
                                       (K == MonoidKind::Min && std::is_integral_v<T>) ||
                                       (K == MonoidKind::Max && std::is_integral_v<T>);
  GBCUDA_HD T identity() const {
    if constexpr (K == MonoidKind::Plus || K == MonoidKind::Lor || K == MonoidKind::Any) return T(0);
    else if constexpr (K == MonoidKind::Times || K == MonoidKind::Land) return T(1);
    else if constexpr (K == MonoidKind::Min)
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    else
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
  }
  GBCUDA_HD bool is_terminal(T x) const {
    if constexpr (K == MonoidKind::Lor) return x != T(0);
    else if constexpr (K == MonoidKind::Land) return x == T(0);
    else if constexpr (K == MonoidKind::Any) return true;  // any value will do
    else if constexpr (K == MonoidKind::Min && std::is_integral_v<T>) return x == std::numeric_limits<T>::lowest();
    else if constexpr (K == MonoidKind::Max && std::is_integral_v<T>) return x == std::numeric_limits<T>::max();
    else {
      (void)x;
      return false;
    }
  }
  GBCUDA_HD T operator()(T a, T b) const {
    if constexpr (K == MonoidKind::Plus) return a + b;
    else if constexpr (K == MonoidKind::Times) return multiply_values(a, b);
    else if constexpr (K == MonoidKind::Min) return b < a ? b : a;
    else if constexpr (K == MonoidKind::Max) return a < b ? b : a;
    else if constexpr (K == MonoidKind::Lor) return T((a != T(0)) || (b != T(0)));
    else if constexpr (K == MonoidKind::Land) return T((a != T(0)) && (b != T(0)));
    else {
      (void)b;
      return a;
    }  // Any
  }
};
template <class T>
using PlusMonoid = BuiltinMonoid<T, MonoidKind::Plus>;
template <class T>
using TimesMonoid = BuiltinMonoid<T, MonoidKind::Times>;
template <class T>
using MinMonoid = BuiltinMonoid<T, MonoidKind::Min>;
template <class T>
using MaxMonoid = BuiltinMonoid<T, MonoidKind::Max>;
template <class T = bool>
using LorMonoid = BuiltinMonoid<T, MonoidKind::Lor>;
template <class T = bool>
using LandMonoid = BuiltinMonoid<T, MonoidKind::Land>;
template <class T>
using AnyMonoid = BuiltinMonoid<T, MonoidKind::Any>;

namespace detail {
// The monoid of a built-in binary operator that has one (the reduce_BinaryOp forms' operators).
template <class Op>
struct monoid_of_op {
  static constexpr bool exists = false;
};
#define GBCUDA_MONOID_OF_OP(OP, MONOID)  \
  template <class T>                     \
  struct monoid_of_op<OP<T>> {           \
    static constexpr bool exists = true; \
    using type = MONOID<T>;              \
  };
GBCUDA_MONOID_OF_OP(Plus, PlusMonoid)
GBCUDA_MONOID_OF_OP(Times, TimesMonoid)
GBCUDA_MONOID_OF_OP(Min, MinMonoid)
GBCUDA_MONOID_OF_OP(Max, MaxMonoid)
GBCUDA_MONOID_OF_OP(Lor, LorMonoid)
GBCUDA_MONOID_OF_OP(Land, LandMonoid)
#undef GBCUDA_MONOID_OF_OP
}  // namespace detail

// A user-defined monoid: `op` is any callable T(T, T), associative and commutative.
template <class T, class Op>
struct UserMonoid {
  using value_type = T;
  static constexpr bool builtin = false;
  static constexpr MonoidKind kind = MonoidKind::User;
  static constexpr bool has_terminal = false;
  Op op;
  T id;
  T identity() const { return id; }
  bool is_terminal(T) const { return false; }
  T operator()(T a, T b) const { return op(a, b); }
};
template <class T, class Op>
UserMonoid<T, Op> make_monoid(Op op, T identity) {
  return UserMonoid<T, Op>{op, identity};
}

// A user-defined binary operator from any callable Z(X, Y).
template <class Z, class Op>
struct UserBinaryOp {
  using result_type = Z;
  static constexpr bool builtin = false;
  static constexpr bool positional = false;
  static constexpr bool uses_x = true;
  static constexpr bool uses_y = true;
  Op op;
  template <class X, class Y>
  Z operator()(X x, Y y) const {
    return Z(op(x, y));
  }
};
template <class Z, class Op>
UserBinaryOp<Z, Op> make_binary_op(Op op) {
  return UserBinaryOp<Z, Op>{op};
}
// A user-defined unary operator from any callable Z(X).
template <class Z, class Op>
struct UserUnaryOp {
  using result_type = Z;
  static constexpr bool builtin = false;
  Op op;
  template <class X>
  Z operator()(X x) const {
    return Z(op(x));
  }
};
template <class Z, class Op>
UserUnaryOp<Z, Op> make_unary_op(Op op) {
  return UserUnaryOp<Z, Op>{op};
}

#if defined(__CUDACC__)
// ---- user-defined operators for CUDA translation units ---------------------------------------
// Compiled by nvcc, a caller can hand operations a callable that runs on the device as well: a
// struct with a __host__ __device__ operator(), or a __host__ __device__ lambda (nvcc's
// --extended-lambda). On the CUDA backend apply, ewise_add/ewise_mult and mxv/vxm then compile it
// into kernels of the caller's own code (detail/cuda_user_ops.cuh) instead of running on host
// copies. Only nvcc sees these, so no C++ translation unit instantiates the same operation
// differently.
template <class Z, class Op>
struct DeviceUnaryOp {
  using result_type = Z;
  static constexpr bool builtin = false;
  static constexpr bool device = true;
  Op op;
  template <class X>
  __host__ __device__ Z operator()(X x) const {
    return Z(op(x));
  }
};
template <class Z, class Op>
DeviceUnaryOp<Z, Op> make_device_unary_op(Op op) {
  return DeviceUnaryOp<Z, Op>{op};
}
template <class Z, class Op>
struct DeviceBinaryOp {
  using result_type = Z;
  static constexpr bool builtin = false;
  static constexpr bool device = true;
  static constexpr bool positional = false;
  static constexpr bool uses_x = true;
  static constexpr bool uses_y = true;
  Op op;
  template <class X, class Y>
  __host__ __device__ Z operator()(X x, Y y) const {
    return Z(op(x, y));
  }
};
template <class Z, class Op>
DeviceBinaryOp<Z, Op> make_device_binary_op(Op op) {
  return DeviceBinaryOp<Z, Op>{op};
}
// A monoid from a device callable T(T, T), associative and commutative, and its identity.
template <class T, class Op>
struct DeviceMonoid {
  using value_type = T;
  static constexpr bool builtin = false;
  static constexpr bool device = true;
  static constexpr MonoidKind kind = MonoidKind::User;
  static constexpr bool has_terminal = false;
  Op op;
  T id;
  __host__ __device__ T identity() const { return id; }
  __host__ __device__ bool is_terminal(T) const { return false; }
  __host__ __device__ T operator()(T a, T b) const { return op(a, b); }
};
template <class T, class Op>
DeviceMonoid<T, Op> make_device_monoid(Op op, T identity) {
  return DeviceMonoid<T, Op>{op, identity};
}
#endif

// ---- semirings ------------------------------------------------------------------------------
template <class AddMonoid, class MulOp>
struct Semiring {
  using value_type = typename AddMonoid::value_type;
  using add_type = AddMonoid;
  using mul_type = MulOp;
  static constexpr bool builtin = AddMonoid::builtin && MulOp::builtin;
  AddMonoid add{};
  MulOp mul{};
  // One product term: x is the first operand (A(i,k) in A*u, u(k) in u'*A), y the second,
  // k the index they share.
  template <class X, class Y>
  GBCUDA_HD value_type multiply(X x, Y y, Index k) const {
    if constexpr (MulOp::positional) return mul(x, y, k);
    else {
      (void)k;
      return value_type(mul(x, y));
    }
  }
};
template <class AddMonoid, class MulOp>
Semiring<AddMonoid, MulOp> make_semiring(AddMonoid add, MulOp mul) {
  return Semiring<AddMonoid, MulOp>{add, mul};
}

template <class T>
using PlusTimes = Semiring<PlusMonoid<T>, Times<T>>;
template <class T>
using MinPlus = Semiring<MinMonoid<T>, Plus<T>>;
template <class T>
using MaxPlus = Semiring<MaxMonoid<T>, Plus<T>>;
template <class T = bool>
using LorLand = Semiring<LorMonoid<T>, Land<T>>;
template <class T = bool>
using AnyPair = Semiring<AnyMonoid<T>, Pair<T>>;
template <class T = Index>
using AnySecondI = Semiring<AnyMonoid<T>, SecondI<T>>;
template <class T>
using MinSecondI = Semiring<MinMonoid<T>, SecondI<T>>;
template <class T>
using PlusPair = Semiring<PlusMonoid<T>, Pair<T>>;  // counts terms (triangles)
template <class T>
using MinFirst = Semiring<MinMonoid<T>, First<T>>;
template <class T>
using MinSecond = Semiring<MinMonoid<T>, Second<T>>;
template <class T>
using MaxFirst = Semiring<MaxMonoid<T>, First<T>>;
template <class T>
using MaxSecond = Semiring<MaxMonoid<T>, Second<T>>;
template <class T>
using PlusFirst = Semiring<PlusMonoid<T>, First<T>>;
template <class T>
using PlusSecond = Semiring<PlusMonoid<T>, Second<T>>;

// ---- index-unary predicates (select): whether entry A(i,j) = x stays -------------------------
// Tril: j <= i + k; Triu: j >= i + k; Diag: j == i + k; Offdiag: j != i + k (k = the thunk), as
// GrB_TRIL, GrB_TRIU, GrB_DIAG, GrB_OFFDIAG; the value ones compare x with the thunk (GrB_VALUEEQ..).
// The value predicates compare in the entries' type T with the thunk cast to T, as GraphBLAS's
// GrB_VALUEGT_T does with a thunk of type T: exact for every type (a uint64_t thunk and values
// past 2^53 included, when the thunk is given as a uint64_t).
enum class SelectKind { Tril, Triu, Diag, Offdiag, ValueEq, ValueNe, ValueGt, ValueGe, ValueLt, ValueLe };
// A select's thunk as the predicates use it: k, the diagonal's offset, for the positional ones,
// and the value cast to T for the value ones.
template <class T>
struct SelectThunk {
  Index k = 0;
  T value{};
};
template <class T, class S>
GBCUDA_HD SelectThunk<T> select_thunk(S thunk) {
  return {cast_to<Index>(thunk), cast_to<T>(thunk)};
}
template <class T>
GBCUDA_HD bool select_holds(SelectKind kind, T x, Index i, Index j, const SelectThunk<T>& thunk) {
  const Index k = thunk.k;
  const T y = thunk.value;
  switch (kind) {
    case SelectKind::Tril: return j <= i + k;
    case SelectKind::Triu: return j >= i + k;
    case SelectKind::Diag: return j == i + k;
    case SelectKind::Offdiag: return j != i + k;
    case SelectKind::ValueEq: return x == y;
    case SelectKind::ValueNe: return x != y;
    case SelectKind::ValueGt: return x > y;
    case SelectKind::ValueGe: return x >= y;
    case SelectKind::ValueLt: return x < y;
    case SelectKind::ValueLe: break;
  }
  return x <= y;
}

// The predicates as operators for select: keep A(i,j) = x (or u(i) = x, with j = 0) when
// op(x, i, j, thunk) holds; the thunk of any arithmetic type.
template <SelectKind K>
struct SelectOp {
  static constexpr SelectKind kind = K;
  template <class T, class S>
  requires std::is_arithmetic_v<S> GBCUDA_HD bool operator()(T x, Index i, Index j, S thunk) const {
    return select_holds(K, x, i, j, select_thunk<T>(thunk));
  }
  template <class T>
  GBCUDA_HD bool operator()(T x, Index i, Index j, const SelectThunk<T>& thunk) const {
    return select_holds(K, x, i, j, thunk);
  }
};
namespace detail {
template <class Op>
inline constexpr bool is_select_op_v = requires {
  Op::kind;
};
}  // namespace detail
using Tril = SelectOp<SelectKind::Tril>;
using Triu = SelectOp<SelectKind::Triu>;
using Diag = SelectOp<SelectKind::Diag>;
using Offdiag = SelectOp<SelectKind::Offdiag>;
using ValueEq = SelectOp<SelectKind::ValueEq>;
using ValueNe = SelectOp<SelectKind::ValueNe>;
using ValueGt = SelectOp<SelectKind::ValueGt>;
using ValueGe = SelectOp<SelectKind::ValueGe>;
using ValueLt = SelectOp<SelectKind::ValueLt>;
using ValueLe = SelectOp<SelectKind::ValueLe>;

// Positional index-unary operators for apply(C, mask, accum, op, A, y, ...) and apply(w, mask,
// accum, op, u, y, ...) (GrB_apply with GrB_ROWINDEX_INT64, GrB_COLINDEX_INT64,
// GrB_DIAGINDEX_INT64): of entry A(i, j), i + y, j + y and j - (i + y), a vector's entry u(i)
// being at j = 0; y is taken as an integer.
struct RowIndex {
  template <class T>
  GBCUDA_HD std::int64_t operator()(const T&, Index i, Index, double y) const {
    return std::int64_t(i) + std::int64_t(y);
  }
};
struct ColIndex {
  template <class T>
  GBCUDA_HD std::int64_t operator()(const T&, Index, Index j, double y) const {
    return std::int64_t(j) + std::int64_t(y);
  }
};
struct DiagIndex {
  template <class T>
  GBCUDA_HD std::int64_t operator()(const T&, Index i, Index j, double y) const {
    return std::int64_t(j) - (std::int64_t(i) + std::int64_t(y));
  }
};

// Accumulator placeholder: "no accumulator" (GrB_NULL).
struct NoAccum {};
inline constexpr NoAccum no_accum{};

}  // namespace gbcuda
