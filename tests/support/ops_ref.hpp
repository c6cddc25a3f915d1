#pragma once
// Tests-only helpers for comparing gbcuda's operations with SuiteSparse:GraphBLAS: random
// inputs, typed wrappers over the GraphBLAS C API, RAII handles, result comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gbcuda/gbcuda.hpp"
#include "support/graphblas_ref.hpp"  // GraphBLAS.h (inside extern "C") and ensure_graphblas()

namespace ops_ref {

using gbcuda::Backend;
using gbcuda::Index;

// ---- GraphBLAS basics ------------------------------------------------------------------------
inline void grb_check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS)
    throw std::runtime_error(std::string("GraphBLAS call failed: ") + what + " (info " + std::to_string(int(info)) +
                             ")");
}
#define OPS_GRB(call) ::ops_ref::grb_check((call), #call)

// Initialises GraphBLAS once for the whole test program (a GoogleTest environment); shares
// the once-only GrB_init of the support library.
class GraphBlasEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { gbtest::ensure_graphblas(); }
};

using GVec = gbref::Vector;
using GMat = gbref::Matrix;

// Typed GraphBLAS entry points for the value types the tests use.
template <class T>
struct Grb;
#define OPS_GRB_TRAITS(CT, SUFFIX)                                                                                   \
  template <>                                                                                                        \
  struct Grb<CT> {                                                                                                   \
    static GrB_Type type() { return GrB_##SUFFIX; }                                                                  \
    static GrB_Info vbuild(GrB_Vector w, const GrB_Index* i, const CT* x, GrB_Index n, GrB_BinaryOp d) {             \
      return GrB_Vector_build_##SUFFIX(w, i, x, n, d);                                                               \
    }                                                                                                                \
    static GrB_Info vextract(GrB_Index* i, CT* x, GrB_Index* n, GrB_Vector v) {                                      \
      return GrB_Vector_extractTuples_##SUFFIX(i, x, n, v);                                                          \
    }                                                                                                                \
    static GrB_Info mbuild(GrB_Matrix a, const GrB_Index* i, const GrB_Index* j, const CT* x, GrB_Index n,           \
                           GrB_BinaryOp d) {                                                                         \
      return GrB_Matrix_build_##SUFFIX(a, i, j, x, n, d);                                                            \
    }                                                                                                                \
    static GrB_Info assign(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, CT x, GrB_Index n, GrB_Descriptor d) {      \
      return GrB_Vector_assign_##SUFFIX(w, m, acc, x, GrB_ALL, n, d);                                                \
    }                                                                                                                \
    static GrB_Info assign_indexed(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, CT x, const GrB_Index* i,           \
                                   GrB_Index ni, GrB_Descriptor d) {                                                 \
      return GrB_Vector_assign_##SUFFIX(w, m, acc, x, i, ni, d);                                                     \
    }                                                                                                                \
    static GrB_Info msubassign(GrB_Matrix c, GrB_Matrix m, GrB_BinaryOp acc, CT x, const GrB_Index* i, GrB_Index ni, \
                               const GrB_Index* j, GrB_Index nj, GrB_Descriptor d) {                                 \
      return GxB_Matrix_subassign_##SUFFIX(c, m, acc, x, i, ni, j, nj, d);                                           \
    }                                                                                                                \
    static GrB_Info subassign_indexed(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, CT x, const GrB_Index* i,        \
                                      GrB_Index ni, GrB_Descriptor d) {                                              \
      return GxB_Vector_subassign_##SUFFIX(w, m, acc, x, i, ni, d);                                                  \
    }                                                                                                                \
    static GrB_Info reduce(CT* s, GrB_Monoid mon, GrB_Vector u) {                                                    \
      return GrB_Vector_reduce_##SUFFIX(s, GrB_NULL, mon, u, GrB_NULL);                                              \
    }                                                                                                                \
    static GrB_Info mextract(GrB_Index* i, GrB_Index* j, CT* x, GrB_Index* n, GrB_Matrix a) {                        \
      return GrB_Matrix_extractTuples_##SUFFIX(i, j, x, n, a);                                                       \
    }                                                                                                                \
    static GrB_Info set_element(GrB_Vector w, CT x, GrB_Index i) { return GrB_Vector_setElement_##SUFFIX(w, x, i); } \
    static GrB_Info mset_element(GrB_Matrix a, CT x, GrB_Index i, GrB_Index j) {                                     \
      return GrB_Matrix_setElement_##SUFFIX(a, x, i, j);                                                             \
    }                                                                                                                \
    static GrB_Info extract_element(CT* x, GrB_Vector w, GrB_Index i) {                                              \
      return GrB_Vector_extractElement_##SUFFIX(x, w, i);                                                            \
    }                                                                                                                \
    static GrB_Info apply_first(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_BinaryOp op, CT x, GrB_Vector u,   \
                                GrB_Descriptor d) {                                                                  \
      return GrB_Vector_apply_BinaryOp1st_##SUFFIX(w, m, acc, op, x, u, d);                                          \
    }                                                                                                                \
    static GrB_Info apply_second(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_BinaryOp op, GrB_Vector u, CT y,  \
                                 GrB_Descriptor d) {                                                                 \
      return GrB_Vector_apply_BinaryOp2nd_##SUFFIX(w, m, acc, op, u, y, d);                                          \
    }                                                                                                                \
    static GrB_Info mapply_first(GrB_Matrix c, GrB_BinaryOp op, CT x, GrB_Matrix a) {                                \
      return GrB_Matrix_apply_BinaryOp1st_##SUFFIX(c, GrB_NULL, GrB_NULL, op, x, a, GrB_NULL);                       \
    }                                                                                                                \
    static GrB_Info mapply_second(GrB_Matrix c, GrB_BinaryOp op, GrB_Matrix a, CT y) {                               \
      return GrB_Matrix_apply_BinaryOp2nd_##SUFFIX(c, GrB_NULL, GrB_NULL, op, a, y, GrB_NULL);                       \
    }                                                                                                                \
    static GrB_Info select(GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_IndexUnaryOp op, GrB_Vector u, CT y,    \
                           GrB_Descriptor d) {                                                                       \
      return GrB_Vector_select_##SUFFIX(w, m, acc, op, u, y, d);                                                     \
    }                                                                                                                \
    static GrB_Info mselect(GrB_Matrix c, GrB_IndexUnaryOp op, GrB_Matrix a, CT y) {                                 \
      return GrB_Matrix_select_##SUFFIX(c, GrB_NULL, GrB_NULL, op, a, y, GrB_NULL);                                  \
    }                                                                                                                \
    static GrB_Info mreduce(CT* s, GrB_Monoid mon, GrB_Matrix a) {                                                   \
      return GrB_Matrix_reduce_##SUFFIX(s, GrB_NULL, mon, a, GrB_NULL);                                              \
    }                                                                                                                \
    static GrB_BinaryOp plus() { return GrB_PLUS_##SUFFIX; }                                                         \
    static GrB_BinaryOp times() { return GrB_TIMES_##SUFFIX; }                                                       \
    static GrB_BinaryOp min() { return GrB_MIN_##SUFFIX; }                                                           \
    static GrB_BinaryOp max() { return GrB_MAX_##SUFFIX; }                                                           \
    static GrB_BinaryOp first() { return GrB_FIRST_##SUFFIX; }                                                       \
    static GrB_BinaryOp second() { return GrB_SECOND_##SUFFIX; }                                                     \
  };
OPS_GRB_TRAITS(bool, BOOL)
OPS_GRB_TRAITS(std::int8_t, INT8)
OPS_GRB_TRAITS(std::int16_t, INT16)
OPS_GRB_TRAITS(std::int32_t, INT32)
OPS_GRB_TRAITS(std::int64_t, INT64)
OPS_GRB_TRAITS(std::uint8_t, UINT8)
OPS_GRB_TRAITS(std::uint16_t, UINT16)
OPS_GRB_TRAITS(std::uint32_t, UINT32)
OPS_GRB_TRAITS(std::uint64_t, UINT64)
OPS_GRB_TRAITS(float, FP32)
OPS_GRB_TRAITS(double, FP64)
#undef OPS_GRB_TRAITS

// A plain copy of a std::vector (std::vector<bool> has no data()).
template <class T>
std::unique_ptr<T[]> raw(const std::vector<T>& v) {
  std::unique_ptr<T[]> p(new T[std::max<std::size_t>(v.size(), 1)]);
  for (std::size_t k = 0; k < v.size(); ++k) p[k] = v[k];
  return p;
}

// A GrB_Scalar of the tests' own: made, set or left empty, freed.
struct GScalar {
  GrB_Scalar s = nullptr;
  explicit GScalar(const gbcuda::Scalar<double>& x) {
    OPS_GRB(GrB_Scalar_new(&s, GrB_FP64));
    if (!x.empty()) OPS_GRB(GrB_Scalar_setElement_FP64(s, *x.value()));
  }
  ~GScalar() { GrB_Scalar_free(&s); }
  GScalar(const GScalar&) = delete;
  GScalar& operator=(const GScalar&) = delete;
  gbcuda::Scalar<double> value() const {
    GrB_Index nv = 0;
    OPS_GRB(GrB_Scalar_nvals(&nv, s));
    if (nv == 0) return {};
    double x = 0;
    OPS_GRB(GrB_Scalar_extractElement_FP64(&x, s));
    return gbcuda::Scalar<double>(x);
  }
};

// The predefined descriptors: replace, structural, complement, transpose input 0 / input 1.
inline GrB_Descriptor grb_desc(bool r, bool s, bool c, bool t0, bool t1) {
  const GrB_Descriptor table[32] = {GrB_NULL,        GrB_DESC_T1,     GrB_DESC_T0,     GrB_DESC_T0T1,   GrB_DESC_C,
                                    GrB_DESC_CT1,    GrB_DESC_CT0,    GrB_DESC_CT0T1,  GrB_DESC_S,      GrB_DESC_ST1,
                                    GrB_DESC_ST0,    GrB_DESC_ST0T1,  GrB_DESC_SC,     GrB_DESC_SCT1,   GrB_DESC_SCT0,
                                    GrB_DESC_SCT0T1, GrB_DESC_R,      GrB_DESC_RT1,    GrB_DESC_RT0,    GrB_DESC_RT0T1,
                                    GrB_DESC_RC,     GrB_DESC_RCT1,   GrB_DESC_RCT0,   GrB_DESC_RCT0T1, GrB_DESC_RS,
                                    GrB_DESC_RST1,   GrB_DESC_RST0,   GrB_DESC_RST0T1, GrB_DESC_RSC,    GrB_DESC_RSCT1,
                                    GrB_DESC_RSCT0,  GrB_DESC_RSCT0T1};
  return table[(r ? 16 : 0) + (s ? 8 : 0) + (c ? 4 : 0) + (t0 ? 2 : 0) + (t1 ? 1 : 0)];
}

// ---- plain data -------------------------------------------------------------------------------
template <class T>
struct Tuples {
  Index n = 0;
  std::vector<Index> idx;  // ascending, unique
  std::vector<T> vals;
};

template <class T>
struct Coo {
  Index nrows = 0, ncols = 0;
  std::vector<Index> rows, cols;
  std::vector<T> vals;  // empty: a pattern matrix (all ones)
};

template <class T>
GVec grb_vector(const Tuples<T>& t) {
  GVec g;
  OPS_GRB(GrB_Vector_new(&g.v, Grb<T>::type(), GrB_Index(t.n)));
  std::vector<GrB_Index> i(t.idx.begin(), t.idx.end());
  i.reserve(1);  // GraphBLAS rejects null arrays even for zero tuples
  auto x = raw(t.vals);
  OPS_GRB(Grb<T>::vbuild(g.v, i.data(), x.get(), GrB_Index(i.size()), Grb<T>::second()));
  return g;
}
template <class T>
GVec grb_empty_vector(Index n) {
  GVec g;
  OPS_GRB(GrB_Vector_new(&g.v, Grb<T>::type(), GrB_Index(n)));
  return g;
}
template <class T>
Tuples<T> tuples_of(GrB_Vector v) {
  GrB_Index n = 0, nv = 0;
  OPS_GRB(GrB_Vector_size(&n, v));
  OPS_GRB(GrB_Vector_nvals(&nv, v));
  std::vector<GrB_Index> i(std::max<GrB_Index>(nv, 1));
  std::unique_ptr<T[]> x(new T[std::max<GrB_Index>(nv, 1)]);
  GrB_Index got = nv;
  OPS_GRB(Grb<T>::vextract(i.data(), x.get(), &got, v));
  // extractTuples gives ascending indices in SuiteSparse; sort anyway so the helper relies on nothing.
  std::vector<std::pair<Index, T>> e;
  for (GrB_Index k = 0; k < got; ++k) e.emplace_back(Index(i[k]), x[k]);
  std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Tuples<T> t;
  t.n = Index(n);
  for (auto& [a, b] : e) {
    t.idx.push_back(a);
    t.vals.push_back(b);
  }
  return t;
}
template <class T>
Tuples<T> tuples_of(const gbcuda::Vector<T>& v) {
  Tuples<T> t;
  t.n = v.size();
  v.extract_tuples(t.idx, t.vals);
  return t;
}
template <class T>
gbcuda::Vector<T> gb_vector(const Tuples<T>& t, Backend b) {
  return gbcuda::Vector<T>::from_tuples(t.n, t.idx, t.vals, b);
}

// GraphBLAS matrix with duplicates combined like gbcuda's DuplicatePolicy::Sum (PLUS; LOR for bool);
// a pattern Coo becomes all ones.
template <class T>
GMat grb_matrix(const Coo<T>& a) {
  GMat g;
  OPS_GRB(GrB_Matrix_new(&g.m, Grb<T>::type(), GrB_Index(a.nrows), GrB_Index(a.ncols)));
  std::vector<GrB_Index> i(a.rows.begin(), a.rows.end()), j(a.cols.begin(), a.cols.end());
  i.reserve(1);  // GraphBLAS rejects null arrays even for zero tuples
  j.reserve(1);
  std::vector<T> x = a.vals.empty() ? std::vector<T>(a.rows.size(), T(1)) : a.vals;
  auto xr = raw(x);
  GrB_BinaryOp dup = a.vals.empty() ? Grb<T>::second() : std::is_same_v<T, bool> ? GrB_LOR : Grb<T>::plus();
  OPS_GRB(Grb<T>::mbuild(g.m, i.data(), j.data(), xr.get(), GrB_Index(i.size()), dup));
  return g;
}
template <class T>
gbcuda::Matrix<T> gb_matrix(const Coo<T>& a) {
  return gbcuda::Matrix<T>::from_coo(a.nrows, a.ncols, a.rows, a.cols, std::span<const T>(a.vals.data(), a.vals.size()),
                                     gbcuda::DuplicatePolicy::Sum);
}
template <>
inline gbcuda::Matrix<bool> gb_matrix(const Coo<bool>& a) {
  auto x = raw(a.vals);
  return gbcuda::Matrix<bool>::from_coo(a.nrows, a.ncols, a.rows, a.cols, std::span<const bool>(x.get(), a.vals.size()),
                                        gbcuda::DuplicatePolicy::Sum);
}

// ---- random inputs ----------------------------------------------------------------------------
using Rng = std::mt19937_64;

// A value generator per type: small integers (so sums and products are exact), booleans with
// both values, and for floating point dyadic fractions (exact) or, when `rough`, arbitrary reals.
template <class T>
T random_value(Rng& rng, bool rough = false) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::uniform_int_distribution<int>(0, 3)(rng) != 0;  // mostly true, some false
  } else if constexpr (std::is_integral_v<T>) {
    return T(std::uniform_int_distribution<int>(-9, 20)(rng));
  } else {
    if (rough) return T(std::uniform_real_distribution<double>(-3.0, 5.0)(rng));
    return T(std::uniform_int_distribution<int>(-40, 80)(rng)) / T(8);
  }
}

// n-vector with each entry present with probability `density` (exactly full for density 1).
template <class T, class Gen>
Tuples<T> random_tuples(Rng& rng, Index n, double density, Gen gen) {
  Tuples<T> t;
  t.n = n;
  std::bernoulli_distribution keep(std::min(1.0, std::max(0.0, density)));
  for (Index i = 0; i < n; ++i)
    if (density >= 1.0 || keep(rng)) {
      t.idx.push_back(i);
      t.vals.push_back(gen(rng));
    }
  return t;
}
template <class T>
Tuples<T> random_tuples(Rng& rng, Index n, double density, bool rough = false) {
  return random_tuples<T>(rng, n, density, [rough](Rng& r) { return random_value<T>(r, rough); });
}

// A mask vector (double) whose values are sometimes zero, so value and structural masks differ.
inline Tuples<double> random_mask(Rng& rng, Index n, double density) {
  return random_tuples<double>(rng, n, density, [](Rng& r) {
    const int k = std::uniform_int_distribution<int>(0, 2)(r);
    return k == 0 ? 0.0 : k == 1 ? 1.0 : -2.5;
  });
}

// A random matrix: about `avg_per_row` entries in most rows, ~20% of rows empty, some exact
// duplicate coordinates (combined by the builders), values from random_value (or a pattern).
template <class T>
Coo<T> random_matrix(Rng& rng, Index nrows, Index ncols, double avg_per_row, bool pattern = false, bool rough = false) {
  Coo<T> a;
  a.nrows = nrows;
  a.ncols = ncols;
  std::uniform_int_distribution<Index> col(0, ncols - 1);
  std::poisson_distribution<int> count(avg_per_row);
  std::bernoulli_distribution empty_row(0.2), dup(0.1);
  for (Index i = 0; i < nrows; ++i) {
    if (empty_row(rng)) continue;
    const int c = count(rng);
    for (int e = 0; e < c; ++e) {
      const Index j = col(rng);
      const int copies = dup(rng) ? 2 : 1;
      for (int d = 0; d < copies; ++d) {
        a.rows.push_back(i);
        a.cols.push_back(j);
        if (!pattern) a.vals.push_back(random_value<T>(rng, rough));
      }
    }
  }
  return a;
}

// The stored coordinates of a Coo (duplicates merged), as rows -> set of columns.
template <class T>
std::vector<std::set<Index>> pattern_rows(const Coo<T>& a, bool transposed) {
  std::vector<std::set<Index>> p(std::size_t(transposed ? a.ncols : a.nrows));
  for (std::size_t e = 0; e < a.rows.size(); ++e) {
    if (transposed) p[std::size_t(a.cols[e])].insert(a.rows[e]);
    else p[std::size_t(a.rows[e])].insert(a.cols[e]);
  }
  return p;
}

// ---- comparison -------------------------------------------------------------------------------
enum class Check { Exact, Near, Pattern };

template <class T>
std::string value_string(const T& x) {
  std::ostringstream o;
  o.precision(17);
  if constexpr (std::is_same_v<T, bool>) o << (x ? "true" : "false");
  else o << +x;
  return o.str();
}

// Equal patterns, and values exact / within rel_tol (relative, absolute near zero) / not compared.
template <class T>
::testing::AssertionResult same_vector(const Tuples<T>& got, const Tuples<T>& want, Check check,
                                       double rel_tol = 1e-9) {
  if (got.n != want.n) return ::testing::AssertionFailure() << "length " << got.n << ", expected " << want.n;
  std::size_t a = 0, b = 0;
  while (a < got.idx.size() || b < want.idx.size()) {
    const Index ig = a < got.idx.size() ? got.idx[a] : got.n;
    const Index iw = b < want.idx.size() ? want.idx[b] : want.n;
    if (ig < iw)
      return ::testing::AssertionFailure() << "unexpected entry (" << ig << ", " << value_string(got.vals[a])
                                           << "); got " << got.idx.size() << " entries, expected " << want.idx.size();
    if (iw < ig)
      return ::testing::AssertionFailure() << "missing entry (" << iw << ", " << value_string(want.vals[b]) << "); got "
                                           << got.idx.size() << " entries, expected " << want.idx.size();
    bool ok = true;
    if (check == Check::Exact) {
      ok = got.vals[a] == want.vals[b];
    } else if (check == Check::Near) {
      if constexpr (std::is_floating_point_v<T>) {
        const double x = got.vals[a], y = want.vals[b];
        ok = (std::isinf(x) || std::isinf(y)) ? x == y : std::abs(x - y) <= rel_tol * std::max(1.0, std::abs(y));
      } else {
        ok = got.vals[a] == want.vals[b];
      }
    }
    if (!ok)
      return ::testing::AssertionFailure() << "at index " << ig << ": got " << value_string(got.vals[a])
                                           << ", expected " << value_string(want.vals[b]);
    ++a, ++b;
  }
  return ::testing::AssertionSuccess();
}

// ---- backend parameterisation -----------------------------------------------------------------
inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::Host ? "Host" : "Cuda";
}
// Call from SetUp(): skips CUDA instances when no GPU is usable.
#define OPS_SKIP_WITHOUT_CUDA(backend)                                                   \
  do {                                                                                   \
    if ((backend) == ::gbcuda::Backend::Cuda && !::gbcuda::cuda_available())             \
      GTEST_SKIP() << "no CUDA device: this build has no CUDA backend or no usable GPU"; \
  } while (0)

}  // namespace ops_ref
