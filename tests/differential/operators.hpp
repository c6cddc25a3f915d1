#pragma once
// Unary operators, select predicates and user-defined operators the differential cases draw, on
// gbcuda's side and GraphBLAS's.
#include "differential/differential.hpp"

namespace diff {

// ---- unary operators --------------------------------------------------------------------------
enum class Un { Identity, Ainv, Abs, One, Lnot, Minv, User };
inline const char* un_name(Un k) {
  static const char* const names[] = {"identity", "ainv", "abs", "one", "lnot", "minv", "user"};
  return names[int(k)];
}

// 3x - 1 (double): a user-defined unary operator, the same function on both sides.
inline double user_unary(double x) { return 3.0 * x - 1.0; }
inline void grb_user_unary(void* z, const void* x) {
  *static_cast<double*>(z) = user_unary(*static_cast<const double*>(x));
}
inline GrB_UnaryOp grb_user_un() {
  static GrB_UnaryOp op = [] {
    GrB_UnaryOp r = nullptr;
    OPS_GRB(GrB_UnaryOp_new(&r, grb_user_unary, GrB_FP64, GrB_FP64));
    return r;
  }();
  return op;
}
// x - 2y (double): a user-defined binary operator, not commutative.
inline double user_sub2(double x, double y) { return x - 2.0 * y; }
inline void grb_user_sub2(void* z, const void* x, const void* y) {
  *static_cast<double*>(z) = user_sub2(*static_cast<const double*>(x), *static_cast<const double*>(y));
}
inline GrB_BinaryOp grb_user_bin() {
  static GrB_BinaryOp op = [] {
    GrB_BinaryOp r = nullptr;
    OPS_GRB(GrB_BinaryOp_new(&r, grb_user_sub2, GrB_FP64, GrB_FP64, GrB_FP64));
    return r;
  }();
  return op;
}

#define DIFF_GRB_UNARY(S)                           \
  switch (k) {                                      \
    case Un::Identity: return GrB_IDENTITY_##S;     \
    case Un::Ainv: return GrB_AINV_##S;             \
    case Un::Abs: return GrB_ABS_##S;               \
    case Un::One: return GxB_ONE_##S;               \
    case Un::Lnot: return GxB_LNOT_##S;             \
    case Un::Minv: return GrB_MINV_##S;             \
    case Un::User: return grb_user_un(); /* FP64 */ \
  }                                                 \
  return GrB_NULL;
template <class T>
GrB_UnaryOp grb_un(Un k) {
  DIFF_BY_GRB_TYPE(T, DIFF_GRB_UNARY)
}
#undef DIFF_GRB_UNARY

template <class T, class F>
void with_unary(Un k, F&& f) {
  namespace g = gbcuda;
  switch (k) {
    case Un::Identity: f(g::Identity<T>{}); break;
    case Un::Ainv: f(g::AdditiveInverse<T>{}); break;
    case Un::Abs: f(g::Abs<T>{}); break;
    case Un::One: f(g::One<T>{}); break;
    case Un::Lnot: f(g::LogicalNot<T>{}); break;
    case Un::Minv: f(g::MultiplicativeInverse<T>{}); break;
    case Un::User:
      if constexpr (std::is_same_v<T, double>) f(g::make_unary_op<double>(user_unary));
      break;
  }
}

// ---- select predicates ------------------------------------------------------------------------
enum class Pred { Tril, Triu, Diag, Offdiag, ValueEq, ValueNe, ValueGt, ValueGe, ValueLt, ValueLe };
inline const char* pred_name(Pred k) {
  static const char* const names[] = {"tril",    "triu",    "diag",    "offdiag", "valueeq",
                                      "valuene", "valuegt", "valuege", "valuelt", "valuele"};
  return names[int(k)];
}
inline bool positional(Pred k) { return int(k) <= int(Pred::Offdiag); }
// The type a case passes its select thunk in: a double holds every value of the types up to 32
// bits exactly; the 64-bit integers go as themselves (a positional thunk below 0 as a uint64_t
// wraps, and is cast back to the same offset).
template <class T>
using ThunkOf = std::conditional_t<std::is_integral_v<T> && sizeof(T) == 8, T, double>;

#define DIFF_GRB_PRED(S)                        \
  switch (k) {                                  \
    case Pred::Tril: return GrB_TRIL;           \
    case Pred::Triu: return GrB_TRIU;           \
    case Pred::Diag: return GrB_DIAG;           \
    case Pred::Offdiag: return GrB_OFFDIAG;     \
    case Pred::ValueEq: return GrB_VALUEEQ_##S; \
    case Pred::ValueNe: return GrB_VALUENE_##S; \
    case Pred::ValueGt: return GrB_VALUEGT_##S; \
    case Pred::ValueGe: return GrB_VALUEGE_##S; \
    case Pred::ValueLt: return GrB_VALUELT_##S; \
    case Pred::ValueLe: return GrB_VALUELE_##S; \
  }                                             \
  return GrB_NULL;
template <class T>
GrB_IndexUnaryOp grb_pred(Pred k) {
  DIFF_BY_GRB_TYPE(T, DIFF_GRB_PRED)
}
#undef DIFF_GRB_PRED

template <class F>
void with_pred(Pred k, F&& f) {
  namespace g = gbcuda;
  switch (k) {
    case Pred::Tril: f(g::Tril{}); break;
    case Pred::Triu: f(g::Triu{}); break;
    case Pred::Diag: f(g::Diag{}); break;
    case Pred::Offdiag: f(g::Offdiag{}); break;
    case Pred::ValueEq: f(g::ValueEq{}); break;
    case Pred::ValueNe: f(g::ValueNe{}); break;
    case Pred::ValueGt: f(g::ValueGt{}); break;
    case Pred::ValueGe: f(g::ValueGe{}); break;
    case Pred::ValueLt: f(g::ValueLt{}); break;
    case Pred::ValueLe: f(g::ValueLe{}); break;
  }
}

}  // namespace diff
