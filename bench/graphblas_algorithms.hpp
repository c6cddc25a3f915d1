#pragma once
// SuiteSparse:GraphBLAS, the one wrapper the benchmarks and the tests share: RAII handles, typed
// calls, a matrix imported from a gbcuda CSR, and the algorithms written with GraphBLAS C calls
// step for step as examples/ writes them with gbcuda's (BFS levels, SpMV, SSSP, PageRank,
// components, triangles). algebra_bench and bfs_bench time them as the CPU baseline; the tests
// (tests/support, test_examples) take their answers as the reference. Every algorithm returns
// dense host vectors and the seconds its loop took (the import is not timed). GrB_init is the
// caller's.
//
// Debian's GraphBLAS.h (7.4) has no extern "C" guard: it is included inside one here.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gbcuda/gbcuda.hpp>

extern "C" {
#if __has_include(<suitesparse/GraphBLAS.h>)
#include <suitesparse/GraphBLAS.h>
#else
#include <GraphBLAS.h>
#endif
}

namespace gbref {

using gbcuda::Index;

inline void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw std::runtime_error(std::string("GraphBLAS call ") + what + " failed (GrB_Info " + std::to_string(int(info)) +
                             ")");
}
#define GBREF_CALL(call) ::gbref::check((call), #call)

// Handles that free themselves; moving one hands it over (a move assignment swaps, so the old
// handle is freed with the source).
struct Matrix {
  GrB_Matrix m = nullptr;
  Matrix() = default;
  explicit Matrix(GrB_Matrix x) : m(x) {}
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  Matrix(Matrix&& o) noexcept : m(std::exchange(o.m, nullptr)) {}
  Matrix& operator=(Matrix&& o) noexcept {
    std::swap(m, o.m);
    return *this;
  }
  ~Matrix() {
    if (m) GrB_Matrix_free(&m);
  }
};
struct Vector {
  GrB_Vector v = nullptr;
  Vector() = default;
  explicit Vector(GrB_Vector x) : v(x) {}
  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;
  Vector(Vector&& o) noexcept : v(std::exchange(o.v, nullptr)) {}
  Vector& operator=(Vector&& o) noexcept {
    std::swap(v, o.v);
    return *this;
  }
  ~Vector() {
    if (v) GrB_Vector_free(&v);
  }
};

// The GraphBLAS type and typed calls of T.
template <class T>
struct Typed;
#define GBREF_TYPED(CT, SUFFIX)                                                                              \
  template <>                                                                                                \
  struct Typed<CT> {                                                                                         \
    static GrB_Type type() { return GrB_##SUFFIX; }                                                          \
    static GrB_BinaryOp min() { return GrB_MIN_##SUFFIX; }                                                   \
    static GrB_BinaryOp plus() { return GrB_PLUS_##SUFFIX; }                                                 \
    static GrB_Info set(GrB_Vector v, CT x, GrB_Index i) { return GrB_Vector_setElement_##SUFFIX(v, x, i); } \
    static GrB_Info fill(GrB_Vector v, CT x, GrB_Index n) {                                                  \
      return GrB_Vector_assign_##SUFFIX(v, GrB_NULL, GrB_NULL, x, GrB_ALL, n, GrB_NULL);                     \
    }                                                                                                        \
    static GrB_Info tuples(GrB_Index* i, CT* x, GrB_Index* n, GrB_Vector v) {                                \
      return GrB_Vector_extractTuples_##SUFFIX(i, x, n, v);                                                  \
    }                                                                                                        \
  };
GBREF_TYPED(bool, BOOL)
GBREF_TYPED(std::int32_t, INT32)
GBREF_TYPED(std::int64_t, INT64)
GBREF_TYPED(float, FP32)
GBREF_TYPED(double, FP64)
#undef GBREF_TYPED

// A as a by-row GraphBLAS matrix of its own type (GraphBLAS takes over malloc'd copies).
template <class T>
void import(const gbcuda::Matrix<T>& A, Matrix& out) {
  const gbcuda::Csr<T>& a = A.csr(gbcuda::Backend::Host);
  const std::size_t nr = static_cast<std::size_t>(a.nrows), nnz = static_cast<std::size_t>(a.nvals());
  const std::size_t nx = a.is_iso() ? 1 : std::max<std::size_t>(nnz, 1);
  auto* ap = static_cast<GrB_Index*>(std::malloc((nr + 1) * sizeof(GrB_Index)));
  auto* aj = static_cast<GrB_Index*>(std::malloc(std::max<std::size_t>(nnz, 1) * sizeof(GrB_Index)));
  auto* ax = static_cast<T*>(std::malloc(nx * sizeof(T)));
  if (!ap || !aj || !ax) {
    std::free(ap);
    std::free(aj);
    std::free(ax);
    throw std::bad_alloc();
  }
  const gbcuda::Offset* rp = a.row_ptr.data();
  const gbcuda::Vid* ci = a.col_idx.data();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i <= nr; ++i) ap[i] = static_cast<GrB_Index>(rp[i]);
#pragma omp parallel for schedule(static)
  for (std::size_t p = 0; p < nnz; ++p) aj[p] = static_cast<GrB_Index>(ci[p]);
  if (a.is_iso()) ax[0] = a.iso_value;
  else std::copy(a.values.data(), a.values.data() + nnz, ax);
  void* axv = ax;
  const GrB_Info info = GxB_Matrix_import_CSR(
      &out.m, Typed<T>::type(), nr, static_cast<GrB_Index>(a.ncols), &ap, &aj, &axv, (nr + 1) * sizeof(GrB_Index),
      std::max<std::size_t>(nnz, 1) * sizeof(GrB_Index), nx * sizeof(T), a.is_iso(), /*jumbled=*/false, nullptr);
  if (info != GrB_SUCCESS) {  // on failure the arrays are still ours
    std::free(ap);
    std::free(aj);
    std::free(axv);
  }
  check(info, "GxB_Matrix_import_CSR");
  GBREF_CALL(GrB_Matrix_wait(out.m, GrB_MATERIALIZE));
}

template <class T>
Vector empty_vector(Index n) {
  Vector v;
  GBREF_CALL(GrB_Vector_new(&v.v, Typed<T>::type(), static_cast<GrB_Index>(n)));
  return v;
}
template <class T>
Vector from_dense(const std::vector<T>& x) {
  Vector v = empty_vector<T>(Index(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) GBREF_CALL(Typed<T>::set(v.v, x[i], GrB_Index(i)));
  GBREF_CALL(GrB_Vector_wait(v.v, GrB_MATERIALIZE));
  return v;
}
template <class T>
std::vector<T> to_dense(GrB_Vector v, Index n, T missing) {
  GrB_Index nv = 0;
  GBREF_CALL(GrB_Vector_nvals(&nv, v));
  std::vector<GrB_Index> idx(nv + 1);
  std::unique_ptr<T[]> val(new T[nv + 1]);
  GBREF_CALL(Typed<T>::tuples(idx.data(), val.get(), &nv, v));
  std::vector<T> out(static_cast<std::size_t>(n), missing);
  for (GrB_Index k = 0; k < nv; ++k) out[idx[k]] = val[k];
  return out;
}

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class T>
struct Result {
  std::vector<T> values;
  double seconds = 0;
  int rounds = 0;
};

// BFS levels as LAGraph's loop: q<!level, replace, structural> = q * A over ANY_PAIR, then
// level<q, structural> = depth. values: level[v] (-1: unreached), when `want_levels`; rounds: the
// levels. Only the level loop is timed.
inline Result<std::int32_t> bfs_levels(const Matrix& A, Index n, Index source, bool want_levels = true) {
  const GrB_Index nn = static_cast<GrB_Index>(n);
  Vector q = empty_vector<bool>(n), level = empty_vector<std::int32_t>(n);
  GBREF_CALL(GrB_Vector_setElement_BOOL(q.v, true, static_cast<GrB_Index>(source)));
  GBREF_CALL(GrB_Vector_setElement_INT32(level.v, 0, static_cast<GrB_Index>(source)));
  GBREF_CALL(GrB_Vector_wait(q.v, GrB_MATERIALIZE));
  GBREF_CALL(GrB_Vector_wait(level.v, GrB_MATERIALIZE));
  Result<std::int32_t> r;
  const auto t0 = Clock::now();
  for (std::int32_t depth = 1;; ++depth) {
    r.rounds = depth;
    GBREF_CALL(GrB_vxm(q.v, level.v, nullptr, GxB_ANY_PAIR_BOOL, q.v, A.m, GrB_DESC_RSC));
    GrB_Index nq = 0;
    GBREF_CALL(GrB_Vector_nvals(&nq, q.v));
    if (nq == 0) break;
    GBREF_CALL(GrB_Vector_assign_INT32(level.v, q.v, nullptr, depth, GrB_ALL, nn, GrB_DESC_S));
  }
  GBREF_CALL(GrB_Vector_wait(level.v, GrB_MATERIALIZE));
  r.seconds = since(t0);
  if (want_levels) r.values = to_dense<std::int32_t>(level.v, n, -1);
  return r;
}

// w = A * u over PLUS_TIMES (u dense).
template <class T>
Result<T> spmv(const Matrix& A, const Vector& u, Index n) {
  Vector w = empty_vector<T>(n);
  GrB_Semiring s = std::is_same_v<T, float> ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
  const auto t0 = Clock::now();
  GBREF_CALL(GrB_mxv(w.v, GrB_NULL, GrB_NULL, s, A.m, u.v, GrB_NULL));
  GBREF_CALL(GrB_Vector_wait(w.v, GrB_MATERIALIZE));
  Result<T> r;
  r.seconds = since(t0);
  r.values = to_dense<T>(w.v, n, T(0));
  r.rounds = 1;
  return r;
}

// A matrix result: values its row sums, entries its entry count.
struct MatrixResult : Result<double> {
  Index entries = 0;
};
// C (n x m, FP64) = compute(C), timed with C's completion; its entry count and row sums.
template <class Compute>
MatrixResult timed_row_sums(Index n, Index m, Compute&& compute) {
  Matrix C;
  MatrixResult r;
  GBREF_CALL(GrB_Matrix_new(&C.m, GrB_FP64, GrB_Index(n), GrB_Index(m)));
  const auto t0 = Clock::now();
  GBREF_CALL(compute(C.m));
  GBREF_CALL(GrB_Matrix_wait(C.m, GrB_MATERIALIZE));
  r.seconds = since(t0);
  GrB_Index nv = 0;
  GBREF_CALL(GrB_Matrix_nvals(&nv, C.m));
  r.entries = Index(nv);
  Vector s = empty_vector<double>(n);
  GBREF_CALL(GrB_Matrix_reduce_Monoid(s.v, GrB_NULL, GrB_NULL, GrB_PLUS_MONOID_FP64, C.m, GrB_NULL));
  r.values = to_dense<double>(s.v, n, 0.0);
  r.rounds = 1;
  return r;
}
// C = A * A over PLUS_TIMES_FP64, unmasked.
inline MatrixResult spgemm_row_sums(const Matrix& A, Index n) {
  return timed_row_sums(n, n, [&](GrB_Matrix C) {
    return GrB_mxm(C, GrB_NULL, GrB_NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A.m, A.m, GrB_NULL);
  });
}
// C = A + B (eWiseAdd, PLUS_FP64), A and B n x m.
inline MatrixResult ewise_add_row_sums(const Matrix& A, const Matrix& B, Index n, Index m) {
  return timed_row_sums(n, m, [&](GrB_Matrix C) {
    return GrB_Matrix_eWiseAdd_BinaryOp(C, GrB_NULL, GrB_NULL, GrB_PLUS_FP64, A.m, B.m, GrB_NULL);
  });
}

// Bellman-Ford as examples/sssp: d = min(d, d' min.+ A) until the distances stop shrinking.
template <class T>
Result<T> sssp(const Matrix& A, Index n, Index source, T unreachable) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>);
  GrB_Semiring minplus = std::is_same_v<T, float>    ? GrB_MIN_PLUS_SEMIRING_FP32
                         : std::is_same_v<T, double> ? GrB_MIN_PLUS_SEMIRING_FP64
                                                     : GrB_MIN_PLUS_SEMIRING_INT64;
  GrB_BinaryOp minus = std::is_same_v<T, float>    ? GrB_MINUS_FP32
                       : std::is_same_v<T, double> ? GrB_MINUS_FP64
                                                   : GrB_MINUS_INT64;
  GrB_Monoid plus = std::is_same_v<T, float>    ? GrB_PLUS_MONOID_FP32
                    : std::is_same_v<T, double> ? GrB_PLUS_MONOID_FP64
                                                : GrB_PLUS_MONOID_INT64;
  Result<T> r;
  Vector d = empty_vector<T>(n), t = empty_vector<T>(n), shrink = empty_vector<T>(n);
  GBREF_CALL(Typed<T>::set(d.v, T(0), GrB_Index(source)));
  const auto t0 = Clock::now();
  for (Index round = 0; round < n; ++round) {
    ++r.rounds;
    GBREF_CALL(GrB_Vector_free(&t.v));
    GBREF_CALL(GrB_Vector_dup(&t.v, d.v));
    GBREF_CALL(GrB_vxm(t.v, GrB_NULL, Typed<T>::min(), minplus, d.v, A.m, GrB_NULL));
    GrB_Index nt = 0, nd = 0;
    GBREF_CALL(GrB_Vector_nvals(&nt, t.v));
    GBREF_CALL(GrB_Vector_nvals(&nd, d.v));
    if (nt == nd) {
      GBREF_CALL(GrB_Vector_eWiseMult_BinaryOp(shrink.v, GrB_NULL, GrB_NULL, minus, d.v, t.v, GrB_NULL));
      T sum = 0;
      if constexpr (std::is_same_v<T, float>)
        GBREF_CALL(GrB_Vector_reduce_FP32(&sum, GrB_NULL, plus, shrink.v, GrB_NULL));
      else if constexpr (std::is_same_v<T, double>)
        GBREF_CALL(GrB_Vector_reduce_FP64(&sum, GrB_NULL, plus, shrink.v, GrB_NULL));
      else GBREF_CALL(GrB_Vector_reduce_INT64(&sum, GrB_NULL, plus, shrink.v, GrB_NULL));
      if (sum == T(0)) break;
    }
    std::swap(d.v, t.v);
  }
  r.seconds = since(t0);
  r.values = to_dense<T>(d.v, n, unreachable);
  return r;
}

// PageRank as examples/pagerank (GAP): r' = (1-d)/n + (r .* d/outdeg)' * A over PLUS_FIRST.
template <class T>
Result<T> pagerank(const Matrix& A, const std::vector<Index>& outdeg, T damping, T tolerance, int itermax) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr bool f32 = std::is_same_v<T, float>;
  const Index n = Index(outdeg.size());
  Result<T> r;
  Vector scale = empty_vector<T>(n);
  for (Index v = 0; v < n; ++v)
    if (outdeg[std::size_t(v)] > 0)
      GBREF_CALL(Typed<T>::set(scale.v, damping / T(outdeg[std::size_t(v)]), GrB_Index(v)));
  GBREF_CALL(GrB_Vector_wait(scale.v, GrB_MATERIALIZE));
  Vector rank = empty_vector<T>(n), w = empty_vector<T>(n), next = empty_vector<T>(n), delta = empty_vector<T>(n);
  const T teleport = (T(1) - damping) / T(n);
  const auto t0 = Clock::now();
  GBREF_CALL(Typed<T>::fill(rank.v, T(1) / T(n), GrB_Index(n)));
  while (r.rounds < itermax) {
    ++r.rounds;
    GBREF_CALL(GrB_Vector_eWiseMult_BinaryOp(w.v, GrB_NULL, GrB_NULL, f32 ? GrB_TIMES_FP32 : GrB_TIMES_FP64, rank.v,
                                             scale.v, GrB_NULL));
    GBREF_CALL(Typed<T>::fill(next.v, teleport, GrB_Index(n)));
    GBREF_CALL(GrB_vxm(next.v, GrB_NULL, Typed<T>::plus(), f32 ? GxB_PLUS_FIRST_FP32 : GxB_PLUS_FIRST_FP64, w.v, A.m,
                       GrB_NULL));
    GBREF_CALL(GrB_Vector_eWiseAdd_BinaryOp(delta.v, GrB_NULL, GrB_NULL, f32 ? GrB_MINUS_FP32 : GrB_MINUS_FP64, next.v,
                                            rank.v, GrB_NULL));
    GBREF_CALL(GrB_Vector_apply(delta.v, GrB_NULL, GrB_NULL, f32 ? GrB_ABS_FP32 : GrB_ABS_FP64, delta.v, GrB_NULL));
    T change = 0;
    if constexpr (f32) GBREF_CALL(GrB_Vector_reduce_FP32(&change, GrB_NULL, GrB_PLUS_MONOID_FP32, delta.v, GrB_NULL));
    else GBREF_CALL(GrB_Vector_reduce_FP64(&change, GrB_NULL, GrB_PLUS_MONOID_FP64, delta.v, GrB_NULL));
    std::swap(rank.v, next.v);
    if (change < tolerance) break;
  }
  GBREF_CALL(GrB_Vector_wait(rank.v, GrB_MATERIALIZE));
  r.seconds = since(t0);
  r.values = to_dense<T>(rank.v, n, T(0));
  return r;
}

// Connected components as examples/cc: minimum-label propagation over MIN_FIRST (A symmetric).
inline Result<std::int64_t> components(const Matrix& A, Index n) {
  Result<std::int64_t> r;
  Vector f = empty_vector<std::int64_t>(n), t = empty_vector<std::int64_t>(n), shrink = empty_vector<std::int64_t>(n);
  for (Index v = 0; v < n; ++v) GBREF_CALL(GrB_Vector_setElement_INT64(f.v, v, GrB_Index(v)));
  GBREF_CALL(GrB_Vector_wait(f.v, GrB_MATERIALIZE));
  const auto t0 = Clock::now();
  for (;;) {
    ++r.rounds;
    GBREF_CALL(GrB_Vector_free(&t.v));
    GBREF_CALL(GrB_Vector_dup(&t.v, f.v));
    GBREF_CALL(GrB_vxm(t.v, GrB_NULL, GrB_MIN_INT64, GrB_MIN_FIRST_SEMIRING_INT64, f.v, A.m, GrB_NULL));
    GBREF_CALL(GrB_Vector_eWiseMult_BinaryOp(shrink.v, GrB_NULL, GrB_NULL, GrB_MINUS_INT64, f.v, t.v, GrB_NULL));
    std::int64_t sum = 0;
    GBREF_CALL(GrB_Vector_reduce_INT64(&sum, GrB_NULL, GrB_PLUS_MONOID_INT64, shrink.v, GrB_NULL));
    if (sum == 0) break;
    std::swap(f.v, t.v);
  }
  r.seconds = since(t0);
  r.values = to_dense<std::int64_t>(f.v, n, -1);
  return r;
}

// Triangles as examples/tc: L = tril(A, -1), C<L, structural> = L * L' over PLUS_PAIR, sum(C)
// (A symmetric). The whole computation is timed.
inline Result<std::int64_t> triangles(const Matrix& A, Index n) {
  Result<std::int64_t> r;
  Matrix L, C;
  const auto t0 = Clock::now();
  GBREF_CALL(GrB_Matrix_new(&L.m, GrB_BOOL, GrB_Index(n), GrB_Index(n)));
  GBREF_CALL(GrB_Matrix_new(&C.m, GrB_INT64, GrB_Index(n), GrB_Index(n)));
  GBREF_CALL(GrB_Matrix_select_INT64(L.m, GrB_NULL, GrB_NULL, GrB_TRIL, A.m, -1, GrB_NULL));
  GBREF_CALL(GrB_mxm(C.m, L.m, GrB_NULL, GxB_PLUS_PAIR_INT64, L.m, L.m, GrB_DESC_ST1));
  std::int64_t count = 0;
  GBREF_CALL(GrB_Matrix_reduce_INT64(&count, GrB_NULL, GrB_PLUS_MONOID_INT64, C.m, GrB_NULL));
  r.seconds = since(t0);
  r.values = {count};
  r.rounds = 1;
  return r;
}

// The k-truss as examples/ktruss: E = offdiag(A); S<E, structural> = E * E' over PLUS_PAIR; then
// C = select(S >= k - 2) and S<C, structural> = C * C' until no edge goes (A symmetric). values:
// the truss's entries as (row, column, triangles), row by row; rounds: the selects. Timed whole.
struct TrussEntry {
  Index i, j;
  std::int64_t triangles;
  bool operator==(const TrussEntry&) const = default;
};
inline Result<TrussEntry> ktruss(const Matrix& A, Index n, int k) {
  Result<TrussEntry> r;
  Matrix E, S, C;
  const auto t0 = Clock::now();
  GBREF_CALL(GrB_Matrix_new(&E.m, GrB_BOOL, GrB_Index(n), GrB_Index(n)));
  GBREF_CALL(GrB_Matrix_new(&S.m, GrB_INT64, GrB_Index(n), GrB_Index(n)));
  GBREF_CALL(GrB_Matrix_new(&C.m, GrB_INT64, GrB_Index(n), GrB_Index(n)));
  GBREF_CALL(GrB_Matrix_select_INT64(E.m, GrB_NULL, GrB_NULL, GrB_OFFDIAG, A.m, 0, GrB_NULL));
  GBREF_CALL(GrB_mxm(S.m, E.m, GrB_NULL, GxB_PLUS_PAIR_INT64, E.m, E.m, GrB_DESC_ST1));
  GrB_Index before = 0, now = 0;
  GBREF_CALL(GrB_Matrix_nvals(&before, E.m));
  for (;;) {
    ++r.rounds;
    GBREF_CALL(GrB_Matrix_select_INT64(C.m, GrB_NULL, GrB_NULL, GrB_VALUEGE_INT64, S.m, k - 2, GrB_NULL));
    GBREF_CALL(GrB_Matrix_nvals(&now, C.m));
    if (now == before) break;
    before = now;
    GBREF_CALL(GrB_Matrix_clear(S.m));
    GBREF_CALL(GrB_mxm(S.m, C.m, GrB_NULL, GxB_PLUS_PAIR_INT64, C.m, C.m, GrB_DESC_ST1));
  }
  r.seconds = since(t0);
  std::vector<GrB_Index> I(now + 1), J(now + 1);
  std::vector<std::int64_t> X(now + 1);
  GrB_Index got = now;
  GBREF_CALL(GrB_Matrix_extractTuples_INT64(I.data(), J.data(), X.data(), &got, C.m));
  for (GrB_Index e = 0; e < got; ++e) r.values.push_back({Index(I[e]), Index(J[e]), X[e]});
  std::sort(r.values.begin(), r.values.end(),
            [](const TrussEntry& a, const TrussEntry& b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });
  return r;
}

}  // namespace gbref
