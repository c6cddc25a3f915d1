#pragma once
// The semirings the differential cases draw, on gbcuda's side and GraphBLAS's.
#include "differential/differential.hpp"

namespace diff {

// x + 2y: not commutative, so swapped operands show. The same function on both sides.
inline double user_mul(double x, double y) { return x + 2.0 * y; }
inline void grb_user_mul(void* z, const void* x, const void* y) {
  *static_cast<double*>(z) = user_mul(*static_cast<const double*>(x), *static_cast<const double*>(y));
}
inline GrB_Semiring grb_user_semiring() {
  static GrB_Semiring s = [] {
    GrB_BinaryOp mul = nullptr;
    GrB_Semiring r = nullptr;
    OPS_GRB(GrB_BinaryOp_new(&mul, grb_user_mul, GrB_FP64, GrB_FP64, GrB_FP64));
    OPS_GRB(GrB_Semiring_new(&r, GrB_PLUS_MONOID_FP64, mul));
    return r;
  }();
  return s;
}

enum class Sr {
  PlusTimes,
  MinPlus,
  MaxPlus,
  MinFirst,
  MinSecond,
  MaxFirst,
  MaxSecond,
  PlusFirst,
  PlusSecond,
  PlusPair,
  LorLand,     // bool
  AnyPair,     // bool
  MinSecondI,  // int64
  User,        // double: PLUS and a user-defined multiply (host copies on the GPU)
};
inline const char* sr_name(Sr k) {
  static const char* const names[] = {"plus-times", "min-plus",   "max-plus",    "min-first",   "min-second",
                                      "max-first",  "max-second", "plus-first",  "plus-second", "plus-pair",
                                      "lor-land",   "any-pair",   "min-secondi", "user"};
  return names[int(k)];
}
// The monoid and multiply of the semirings GraphBLAS makes from parts.
inline std::pair<Mon, Bin> sr_parts(Sr k) {
  switch (k) {
    case Sr::PlusTimes: return {Mon::Plus, Bin::Times};
    case Sr::MinPlus: return {Mon::Min, Bin::Plus};
    case Sr::MaxPlus: return {Mon::Max, Bin::Plus};
    case Sr::MinFirst: return {Mon::Min, Bin::First};
    case Sr::MinSecond: return {Mon::Min, Bin::Second};
    case Sr::MaxFirst: return {Mon::Max, Bin::First};
    case Sr::MaxSecond: return {Mon::Max, Bin::Second};
    case Sr::PlusFirst: return {Mon::Plus, Bin::First};
    case Sr::PlusSecond: return {Mon::Plus, Bin::Second};
    case Sr::PlusPair: return {Mon::Plus, Bin::Pair};
    default: return {Mon::Plus, Bin::Plus};  // the others are GraphBLAS built-ins
  }
}
template <class T>
GrB_Semiring grb_sr(Sr k) {
  switch (k) {
    case Sr::LorLand: return GrB_LOR_LAND_SEMIRING_BOOL;
    case Sr::AnyPair: return GxB_ANY_PAIR_BOOL;
    case Sr::MinSecondI: return GxB_MIN_SECONDI_INT64;
    case Sr::User: return grb_user_semiring();
    default: {
      auto [add, mul] = sr_parts(k);
      return grb_semiring<T>(add, mul);
    }
  }
}
template <class T, class F>
void with_semiring(Sr k, F&& f) {
  namespace g = gbcuda;
  switch (k) {
    case Sr::PlusTimes: f(g::PlusTimes<T>{}); break;
    case Sr::MinPlus: f(g::MinPlus<T>{}); break;
    case Sr::MaxPlus: f(g::MaxPlus<T>{}); break;
    case Sr::MinFirst: f(g::MinFirst<T>{}); break;
    case Sr::MinSecond: f(g::MinSecond<T>{}); break;
    case Sr::MaxFirst: f(g::MaxFirst<T>{}); break;
    case Sr::MaxSecond: f(g::MaxSecond<T>{}); break;
    case Sr::PlusFirst: f(g::PlusFirst<T>{}); break;
    case Sr::PlusSecond: f(g::PlusSecond<T>{}); break;
    case Sr::PlusPair: f(g::PlusPair<T>{}); break;
    case Sr::LorLand:
      if constexpr (std::is_same_v<T, bool>) f(g::LorLand<bool>{});
      break;
    case Sr::AnyPair:
      if constexpr (std::is_same_v<T, bool>) f(g::AnyPair<bool>{});
      break;
    case Sr::MinSecondI:
      if constexpr (std::is_same_v<T, std::int64_t>) f(g::MinSecondI<std::int64_t>{});
      break;
    case Sr::User:
      if constexpr (std::is_same_v<T, double>)
        f(g::make_semiring(g::PlusMonoid<double>{}, g::make_binary_op<double>(user_mul)));
      break;
  }
}

// The semirings a case of value type T may draw.
template <class T>
std::vector<Sr> semirings_for() {
  std::vector<Sr> v = {Sr::PlusTimes, Sr::MinPlus,   Sr::MaxPlus,   Sr::MinFirst,   Sr::MinSecond,
                       Sr::MaxFirst,  Sr::MaxSecond, Sr::PlusFirst, Sr::PlusSecond, Sr::PlusPair};
  if constexpr (std::is_same_v<T, bool>) v.insert(v.end(), {Sr::LorLand, Sr::AnyPair, Sr::AnyPair});
  if constexpr (std::is_same_v<T, std::int64_t>) v.push_back(Sr::MinSecondI);
  if constexpr (std::is_same_v<T, double>) v.push_back(Sr::User);
  return v;
}

}  // namespace diff
