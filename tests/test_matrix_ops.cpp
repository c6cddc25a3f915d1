// The operations with a matrix output or input (matrix_operations.hpp) against SuiteSparse:GraphBLAS
// on each backend: select with every index and value predicate, masked mxm by dot products over
// several semirings (B as given and transposed), and the reduction of a matrix to a scalar.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gbcuda/build.hpp"
#include "support/graphs.hpp"
#include "support/ops_ref.hpp"

namespace {

using namespace ops_ref;
using gbcuda::Matrix;

const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new GraphBlasEnvironment);

class MatrixOps : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
  Backend b() const { return GetParam(); }
};

template <class T>
using Entries = std::map<std::pair<Index, Index>, T>;

template <class T>
Entries<T> entries_of(const Matrix<T>& A) {
  const auto& a = A.csr(Backend::Host);
  Entries<T> e;
  for (Index i = 0; i < a.nrows; ++i)
    for (gbcuda::Offset p = a.row_ptr.data()[i]; p < a.row_ptr.data()[i + 1]; ++p)
      e[{i, a.col_idx.data()[p]}] = a.is_iso() ? a.iso_value : a.values.data()[p];
  return e;
}
template <class T>
Entries<T> entries_of(GrB_Matrix m) {
  GrB_Index nv = 0;
  OPS_GRB(GrB_Matrix_nvals(&nv, m));
  std::vector<GrB_Index> I(nv + 1), J(nv + 1);
  std::unique_ptr<T[]> X(new T[nv + 1]);
  OPS_GRB(Grb<T>::mextract(I.data(), J.data(), X.get(), &nv, m));
  Entries<T> e;
  for (GrB_Index k = 0; k < nv; ++k) e[{Index(I[k]), Index(J[k])}] = X[k];
  return e;
}
template <class T>
GMat grb_empty_matrix(Index r, Index c) {
  GMat g;
  OPS_GRB(GrB_Matrix_new(&g.m, Grb<T>::type(), GrB_Index(r), GrB_Index(c)));
  return g;
}

// GxB_Matrix_pack_CSC / pack_HyperCSR and their unpacks on random matrices (empty rows, duplicate
// coordinates, an empty shape): the matrix each form describes against GraphBLAS's build of the
// same coordinates, and the unpacked arrays against GrB_Matrix_export's CSC and CSR.
TEST(MatrixPack, CscAndHypersparseMatchGraphBLAS) {
  Rng rng(17);
  for (auto shape : {std::pair<Index, Index>{300, 300}, {120, 410}, {0, 5}, {6, 1}}) {
    // Named copies, not a structured binding: the lambdas below capture them (clang 14 refuses).
    const Index nr = shape.first, nc = shape.second;
    const Coo<double> coo = random_matrix<double>(rng, nr, nc, 4.0);
    const GMat gA = grb_matrix(coo);
    const Entries<double> want = entries_of<double>(gA.m);
    const std::string what = std::to_string(nr) + " x " + std::to_string(nc);
    // Each column's coordinates (rows and the order of duplicates as given), and each row's.
    auto compressed = [&](bool by_column) {
      const Index majors = by_column ? nc : nr;
      std::vector<gbcuda::Offset> ptr(static_cast<std::size_t>(majors) + 1, 0);
      for (std::size_t e = 0; e < coo.rows.size(); ++e) ++ptr[std::size_t(by_column ? coo.cols[e] : coo.rows[e]) + 1];
      for (Index k = 0; k < majors; ++k) ptr[k + 1] += ptr[k];
      std::vector<gbcuda::Vid> idx(coo.rows.size());
      std::vector<double> val(coo.rows.size());
      std::vector<gbcuda::Offset> at(ptr.begin(), ptr.end() - 1);
      for (std::size_t e = 0; e < coo.rows.size(); ++e) {
        const auto q = std::size_t(at[std::size_t(by_column ? coo.cols[e] : coo.rows[e])]++);
        idx[q] = gbcuda::Vid(by_column ? coo.rows[e] : coo.cols[e]);
        val[q] = coo.vals[e];
      }
      return std::tuple{ptr, idx, val};
    };
    auto [cp, ri, cv] = compressed(true);
    const Matrix<double> A = Matrix<double>::from_csc(nr, nc, cp, ri, cv);
    EXPECT_EQ(entries_of(A), want) << "from_csc " << what;
    Entries<double> want_t;
    for (const auto& [ij, x] : want) want_t[{ij.second, ij.first}] = x;
    EXPECT_EQ(entries_of(A.transpose()), want_t) << "from_csc's transpose " << what;

    auto [rp, ci, rv] = compressed(false);
    std::vector<Index> rows;
    std::vector<gbcuda::Offset> hp{0};
    for (Index i = 0; i < nr; ++i)
      if (rp[i + 1] > rp[i]) {
        rows.push_back(i);
        hp.push_back(rp[i + 1]);
      }
    const Matrix<double> H = Matrix<double>::from_hyper_csr(nr, nc, rows, hp, ci, rv);
    EXPECT_EQ(entries_of(H), want) << "from_hyper_csr " << what;

    // The arrays GraphBLAS exports, in CSC and CSR.
    auto exported = [&](GrB_Format format) {
      GrB_Index np = 0, ni = 0, nx = 0;
      OPS_GRB(GrB_Matrix_exportSize(&np, &ni, &nx, format, gA.m));
      std::vector<GrB_Index> p(np + 1), i(ni + 1);
      std::vector<double> x(nx + 1);
      OPS_GRB(GrB_Matrix_export_FP64(p.data(), i.data(), x.data(), &np, &ni, &nx, format, gA.m));
      return std::tuple{std::vector<gbcuda::Offset>(p.begin(), p.begin() + std::ptrdiff_t(np)),
                        std::vector<gbcuda::Vid>(i.begin(), i.begin() + std::ptrdiff_t(ni)),
                        std::vector<double>(x.begin(), x.begin() + std::ptrdiff_t(nx))};
    };
    const auto [gp, gi, gx] = exported(GrB_CSC_FORMAT);
    Matrix<double> U = A;  // a copy shares the storage: unpacking copies, A keeps its entries
    const gbcuda::CscVectors<double> u = U.unpack_csc();
    EXPECT_EQ(u.nrows, nr);
    EXPECT_EQ(u.ncols, nc);
    EXPECT_EQ(u.col_ptr, gp) << what;
    EXPECT_EQ(u.row_idx, gi) << what;
    EXPECT_EQ(u.values, gx) << what;
    EXPECT_EQ(U.nvals(), 0);
    EXPECT_EQ(U.nrows(), nr);
    EXPECT_EQ(A.nvals(), Index(want.size()));
    const auto [hp_g, hi_g, hx_g] = exported(GrB_CSR_FORMAT);
    Matrix<double> V = H;
    const gbcuda::HyperCsrVectors<double> h = V.unpack_hyper_csr();
    EXPECT_EQ(h.rows, rows) << what;
    EXPECT_EQ(h.col_idx, hi_g) << what;
    EXPECT_EQ(h.values, hx_g) << what;
    ASSERT_EQ(h.row_ptr.size(), h.rows.size() + 1);
    for (std::size_t k = 0; k < h.rows.size(); ++k) EXPECT_EQ(h.row_ptr[k + 1], hp_g[std::size_t(h.rows[k]) + 1]);
    EXPECT_EQ(V.nvals(), 0);
  }
}

// Packing moves the vectors in and unpacking moves them back out, without a copy: a CSC becomes
// the matrix's cached transpose. Bad arrays are refused with the form's own names.
TEST(MatrixPack, CscAndHypersparseWithoutCopiesAndTheirErrors) {
  std::vector<gbcuda::Offset> cp{0, 1, 3, 3};
  std::vector<gbcuda::Vid> ri{2, 0, 1};
  std::vector<double> cv{1.5, 2.5, 3.5};
  const gbcuda::Vid* ri0 = ri.data();
  const double* cv0 = cv.data();
  auto A = Matrix<double>::from_csc(3, 3, std::move(cp), std::move(ri), std::move(cv));
  EXPECT_EQ(A.transpose().csr().col_idx.data(), ri0);
  EXPECT_EQ(entries_of(A), (Entries<double>{{{2, 0}, 1.5}, {{0, 1}, 2.5}, {{1, 1}, 3.5}}));
  const gbcuda::CscVectors<double> back = A.unpack_csc();
  EXPECT_EQ(back.row_idx.data(), ri0);
  EXPECT_EQ(back.values.data(), cv0);
  EXPECT_EQ(back.col_ptr, (std::vector<gbcuda::Offset>{0, 1, 3, 3}));
  EXPECT_EQ(A.nvals(), 0);
  // A pattern: no values, its iso value; rows within a column in any order.
  auto P = Matrix<bool>::from_csc(2, 2, {0, 2, 2}, {1, 0});
  const gbcuda::CscVectors<bool> p = P.unpack_csc();
  EXPECT_TRUE(p.values.empty());
  EXPECT_TRUE(p.iso_value);
  EXPECT_EQ(p.row_idx, (std::vector<gbcuda::Vid>{0, 1}));

  std::vector<gbcuda::Vid> ci{4, 1, 3};
  const gbcuda::Vid* ci0 = ci.data();
  auto H = Matrix<double>::from_hyper_csr(1000, 5, {7, 900}, {0, 1, 3}, std::move(ci), {1.0, 2.0, 3.0});
  EXPECT_EQ(H.csr().col_idx.data(), ci0);
  EXPECT_EQ(H.csr().row_ptr.size(), 1001u);
  const gbcuda::HyperCsrVectors<double> h = H.unpack_hyper_csr();
  EXPECT_EQ(h.rows, (std::vector<Index>{7, 900}));
  EXPECT_EQ(h.row_ptr, (std::vector<gbcuda::Offset>{0, 1, 3}));
  EXPECT_EQ(h.col_idx.data(), ci0);
  EXPECT_EQ(h.col_idx, (std::vector<gbcuda::Vid>{4, 1, 3}));

  auto status = [](auto&& f) -> std::pair<std::optional<gbcuda::Status>, std::string> {
    try {
      f();
    } catch (const gbcuda::Error& e) {
      return {e.status(), e.what()};
    }
    return {std::nullopt, "no error"};
  };
  using gbcuda::Status;
  auto s = status([] { Matrix<double>::from_csc(3, 2, {0, 1}, {0}); });
  EXPECT_EQ(s.first, Status::InvalidValue);
  EXPECT_NE(s.second.find("from_csc: col_ptr has 2 entries, expected 3"), std::string::npos) << s.second;
  s = status([] { Matrix<double>::from_csc(3, 2, {0, 1, 1}, {3}); });
  EXPECT_EQ(s.first, Status::InvalidIndex);
  EXPECT_NE(s.second.find("from_csc: row index 3 out of range [0, 3)"), std::string::npos) << s.second;
  s = status([] { Matrix<double>::from_hyper_csr(10, 4, {5, 5}, {0, 1, 2}, {0, 1}); });
  EXPECT_EQ(s.first, Status::InvalidValue);
  EXPECT_NE(s.second.find("strictly ascending"), std::string::npos) << s.second;
  s = status([] { Matrix<double>::from_hyper_csr(10, 4, {10}, {0, 1}, {0}); });
  EXPECT_EQ(s.first, Status::InvalidIndex);
  s = status([] { Matrix<double>::from_hyper_csr(10, 4, {1}, {0, 2}, {0}); });
  EXPECT_EQ(s.first, Status::InvalidValue);
  EXPECT_NE(s.second.find("from_hyper_csr: row_ptr must start at 0 and end at the number of entries"),
            std::string::npos)
      << s.second;
}

TEST_P(MatrixOps, SelectMatchesGraphBLAS) {
  Rng rng(5);
  for (auto shape : {std::pair<Index, Index>{300, 300}, {200, 350}}) {
    const Coo<double> coo = random_matrix<double>(rng, shape.first, shape.second, 6.0);
    const Matrix<double> A = gb_matrix(coo);
    const GMat gA = grb_matrix(coo);
    for (double k : {-1.0, 0.0, 2.0}) {
      auto run = [&](auto op, GrB_IndexUnaryOp gop, const char* name) {
        Matrix<double> C;
        gbcuda::select(C, gbcuda::no_mask, gbcuda::no_accum, op, A, k, b());
        GMat gC = grb_empty_matrix<double>(shape.first, shape.second);
        OPS_GRB(GrB_Matrix_select_FP64(gC.m, GrB_NULL, GrB_NULL, gop, gA.m, k, GrB_NULL));
        EXPECT_EQ(entries_of(C), entries_of<double>(gC.m)) << name << " thunk " << k;
      };
      run(gbcuda::Tril{}, GrB_TRIL, "tril");
      run(gbcuda::Triu{}, GrB_TRIU, "triu");
      run(gbcuda::Diag{}, GrB_DIAG, "diag");
      run(gbcuda::Offdiag{}, GrB_OFFDIAG, "offdiag");
      run(gbcuda::ValueGt{}, GrB_VALUEGT_FP64, "valuegt");
      run(gbcuda::ValueLe{}, GrB_VALUELE_FP64, "valuele");
      run(gbcuda::ValueEq{}, GrB_VALUEEQ_FP64, "valueeq");
      run(gbcuda::ValueNe{}, GrB_VALUENE_FP64, "valuene");
    }
  }
  // An iso matrix keeps its iso value; an empty one stays empty.
  const Matrix<bool> P = gbtest::path_graph(50, false);
  Matrix<bool> L;
  gbcuda::select(L, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Tril{}, P, -1.0, b());
  EXPECT_EQ(L.nvals(), 49);
  Matrix<double> E = Matrix<double>::from_coo(10, 10, {}, {});
  Matrix<double> EC;
  gbcuda::select(EC, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Tril{}, E, 0.0, b());
  EXPECT_EQ(EC.nvals(), 0);
}

template <class T, class S>
void mxm_case(Backend b, const S& s, GrB_Semiring gs, bool transpose_b, std::uint64_t seed) {
  Rng rng(seed);
  const Index m = 180, k = 140, n = 160;
  const Coo<T> ca = random_matrix<T>(rng, m, k, 7.0);
  const Coo<T> cb = transpose_b ? random_matrix<T>(rng, n, k, 7.0) : random_matrix<T>(rng, k, n, 7.0);
  const Coo<double> cm = random_matrix<double>(rng, m, n, 30.0);
  const Matrix<T> A = gb_matrix(ca), B = gb_matrix(cb);
  const Matrix<double> M = gb_matrix(cm);
  const GMat gA = grb_matrix(ca), gB = grb_matrix(cb), gM = grb_matrix(cm);
  Matrix<T> C;
  gbcuda::mxm(C, M, gbcuda::no_accum, s, A, B, transpose_b ? gbcuda::desc::ST1 : gbcuda::desc::S, b);
  GMat gC = grb_empty_matrix<T>(m, n);
  OPS_GRB(GrB_mxm(gC.m, gM.m, GrB_NULL, gs, gA.m, gB.m, transpose_b ? GrB_DESC_ST1 : GrB_DESC_S));
  const auto got = entries_of(C), want = entries_of<T>(gC.m);
  ASSERT_EQ(got.size(), want.size()) << (transpose_b ? "A*B'" : "A*B");
  for (const auto& [ij, x] : want) {
    auto it = got.find(ij);
    ASSERT_NE(it, got.end()) << "missing (" << ij.first << ", " << ij.second << ")";
    if constexpr (std::is_floating_point_v<T>) EXPECT_NEAR(it->second, x, 1e-9 * std::max(1.0, std::abs(x)));
    else EXPECT_EQ(it->second, x);
  }
}

TEST_P(MatrixOps, MaskedMxmMatchesGraphBLAS) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (bool tb : {false, true}) {
    mxm_case<std::int64_t>(b(), gbcuda::PlusPair<std::int64_t>{}, GxB_PLUS_PAIR_INT64, tb, 11);
    mxm_case<double>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, tb, 12);
    mxm_case<std::int64_t>(b(), gbcuda::MinPlus<std::int64_t>{}, GrB_MIN_PLUS_SEMIRING_INT64, tb, 13);
    // bool results: the host's per-entry results once sat in a std::vector<bool>, whose shared
    // words the OpenMP threads raced on (wrong values now and then).
    mxm_case<bool>(b(), gbcuda::LorLand<bool>{}, GrB_LOR_LAND_SEMIRING_BOOL, tb, 14);
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in semiring's mxm ran on host copies";
}

TEST_P(MatrixOps, MxmChecksItsShapes) {
  Rng rng(3);
  const Matrix<double> A = gb_matrix(random_matrix<double>(rng, 20, 30, 3.0));
  Matrix<double> C;
  EXPECT_THROW(gbcuda::mxm(C, A, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, A, gbcuda::desc::ST1, b()),
               gbcuda::Error);  // the mask must be 20 x 20 for A * A'
  EXPECT_THROW(gbcuda::mxm(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, A, {}, b()),
               gbcuda::Error);                                          // 20 x 30 by 20 x 30
  Matrix<double> D = gb_matrix(random_matrix<double>(rng, 5, 5, 2.0));  // an output of another shape
  const Matrix<double> M = gb_matrix(random_matrix<double>(rng, 20, 20, 3.0));
  EXPECT_THROW(gbcuda::mxm(D, M, gbcuda::Plus<double>{}, gbcuda::PlusTimes<double>{}, A, A, gbcuda::desc::ST1, b()),
               gbcuda::Error);
}

// C<M, accum, replace> = T for every operation with a matrix output, against GraphBLAS: an output
// with entries of its own, a mask with zero and non-zero values (so value and structural masks
// differ), every combination of replace, structural and complement, without an accumulator and
// with PLUS and MIN.
TEST_P(MatrixOps, MasksAndAccumulatorsOnMatrixOutputsMatchGraphBLAS) {
  Rng rng(77);
  const Index n = 40, m = 50;
  const Coo<double> ca = random_matrix<double>(rng, n, m, 6.0), cb = random_matrix<double>(rng, n, m, 6.0);
  const Coo<double> cc = random_matrix<double>(rng, n, m, 5.0), cs = random_matrix<double>(rng, m, m, 4.0);
  const Coo<double> ct = random_matrix<double>(rng, m, n, 6.0);
  const Coo<double> ck1 = random_matrix<double>(rng, 5, 5, 2.0), ck2 = random_matrix<double>(rng, 8, 10, 3.0);
  Coo<double> cm = random_matrix<double>(rng, n, m, 20.0);
  std::uniform_int_distribution<int> pick(0, 2);
  for (double& x : cm.vals) x = pick(rng) == 0 ? 0.0 : pick(rng) == 1 ? 1.0 : -2.5;
  const Matrix<double> A = gb_matrix(ca), B = gb_matrix(cb), C0 = gb_matrix(cc), S = gb_matrix(cs), At = gb_matrix(ct);
  const Matrix<double> K1 = gb_matrix(ck1), K2 = gb_matrix(ck2), M = gb_matrix(cm);
  const GMat gA = grb_matrix(ca), gB = grb_matrix(cb), gC0 = grb_matrix(cc), gS = grb_matrix(cs), gAt = grb_matrix(ct);
  const GMat gK1 = grb_matrix(ck1), gK2 = grb_matrix(ck2), gM = grb_matrix(cm);
  std::vector<GrB_Index> I, J;
  std::vector<Index> Ii, Ji;
  for (Index r = 0; r < n; ++r) Ii.push_back((r * 7 + 3) % n), I.push_back(GrB_Index(Ii.back()));
  for (Index c = 0; c < m; ++c) Ji.push_back(c % 3 == 0 ? c / 3 : (c * 11) % m), J.push_back(GrB_Index(Ji.back()));

  auto each_accum = [&](auto&& body) {
    body(gbcuda::no_accum, GrB_BinaryOp(GrB_NULL), "no accum");
    body(gbcuda::Plus<double>{}, GrB_PLUS_FP64, "plus");
    body(gbcuda::Min<double>{}, GrB_MIN_FP64, "min");
  };
  for (int flags = 0; flags < 8; ++flags) {
    gbcuda::Descriptor d;
    d.replace = flags & 1;
    d.mask_structural = flags & 2;
    d.mask_complement = flags & 4;
    const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false);
    each_accum([&](const auto& acc, GrB_BinaryOp gacc, const char* acc_name) {
      auto check = [&](const char* op, auto&& ours, auto&& theirs) {
        SCOPED_TRACE(std::string(op) + ", " + acc_name + (d.replace ? ", replace" : "") +
                     (d.mask_structural ? ", structural" : "") + (d.mask_complement ? ", complement" : ""));
        Matrix<double> C = C0;
        ours(C);
        GMat gC;
        OPS_GRB(GrB_Matrix_dup(&gC.m, gC0.m));
        OPS_GRB(theirs(gC.m));
        EXPECT_EQ(entries_of(C), entries_of<double>(gC.m));
        EXPECT_EQ(C.nrows(), n);
        EXPECT_EQ(C.ncols(), m);
      };
      check(
          "mxm", [&](Matrix<double>& C) { gbcuda::mxm(C, M, acc, gbcuda::PlusTimes<double>{}, A, S, d, b()); },
          [&](GrB_Matrix g) { return GrB_mxm(g, gM.m, gacc, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gS.m, gd); });
      check(
          "mxm min-plus", [&](Matrix<double>& C) { gbcuda::mxm(C, M, acc, gbcuda::MinPlus<double>{}, A, S, d, b()); },
          [&](GrB_Matrix g) { return GrB_mxm(g, gM.m, gacc, GrB_MIN_PLUS_SEMIRING_FP64, gA.m, gS.m, gd); });
      check(
          "ewise_add", [&](Matrix<double>& C) { gbcuda::ewise_add(C, M, acc, gbcuda::Plus<double>{}, A, B, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_eWiseAdd_BinaryOp(g, gM.m, gacc, GrB_PLUS_FP64, gA.m, gB.m, gd); });
      check(
          "ewise_mult",
          [&](Matrix<double>& C) { gbcuda::ewise_mult(C, M, acc, gbcuda::Times<double>{}, A, B, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_eWiseMult_BinaryOp(g, gM.m, gacc, GrB_TIMES_FP64, gA.m, gB.m, gd); });
      check(
          "apply", [&](Matrix<double>& C) { gbcuda::apply(C, M, acc, gbcuda::AdditiveInverse<double>{}, A, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_apply(g, gM.m, gacc, GrB_AINV_FP64, gA.m, gd); });
      check(
          "select", [&](Matrix<double>& C) { gbcuda::select(C, M, acc, gbcuda::Triu{}, A, 1.0, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_select_FP64(g, gM.m, gacc, GrB_TRIU, gA.m, 1.0, gd); });
      check(
          "transpose", [&](Matrix<double>& C) { gbcuda::transpose(C, M, acc, At, d, b()); },
          [&](GrB_Matrix g) { return GrB_transpose(g, gM.m, gacc, gAt.m, gd); });
      check(
          "extract", [&](Matrix<double>& C) { gbcuda::extract(C, M, acc, A, Ii, Ji, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_extract(g, gM.m, gacc, gA.m, I.data(), n, J.data(), m, gd); });
      check(
          "kronecker",
          [&](Matrix<double>& C) { gbcuda::kronecker(C, M, acc, gbcuda::Times<double>{}, K1, K2, d, b()); },
          [&](GrB_Matrix g) { return GrB_Matrix_kronecker_BinaryOp(g, gM.m, gacc, GrB_TIMES_FP64, gK1.m, gK2.m, gd); });
    });
  }
  // No mask, an accumulator: C + T over the union; a 0 x 0 output is an empty one of T's shape.
  Matrix<double> C;
  gbcuda::ewise_add(C, gbcuda::no_mask, gbcuda::Plus<double>{}, gbcuda::Plus<double>{}, A, B, {}, b());
  Matrix<double> T;
  gbcuda::ewise_add(T, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Plus<double>{}, A, B, {}, b());
  EXPECT_EQ(entries_of(C), entries_of(T));
  // A structural mask, nothing to keep: the product on the mask's positions stays where it ran.
  const std::uint64_t before = gbcuda::host_fallbacks();
  Matrix<double> P;
  gbcuda::mxm(P, M, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, S, gbcuda::desc::S, b());
  EXPECT_EQ(gbcuda::host_fallbacks(), before);
  // Shapes: a mask or an output of another shape is refused.
  Matrix<double> W = gb_matrix(random_matrix<double>(rng, 3, 4, 1.0));
  EXPECT_THROW(gbcuda::ewise_add(W, M, gbcuda::no_accum, gbcuda::Plus<double>{}, A, B, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::ewise_add(C, W, gbcuda::no_accum, gbcuda::Plus<double>{}, A, B, {}, b()), gbcuda::Error);
}

// Element-wise add and multiply and the masked, accumulated write on skewed shapes, against
// GraphBLAS: rows of thousands of entries beside empty ones, a pattern (iso) operand, an operand
// without entries, a mask with zero values, every descriptor; on the GPU all of it stays there.
TEST_P(MatrixOps, MergesOfSkewedMatricesMatchGraphBLASInTheirBackend) {
  using T = std::int32_t;
  Rng rng(91);
  const Index n = 64, m = 6000;
  auto skewed = [&](double avg, bool pattern, Index step) {
    Coo<T> c = random_matrix<T>(rng, n, m, avg, pattern);
    for (Index i : {Index(3), Index(40)})  // two long rows, one of them every column
      for (Index j = i % 2; j < m; j += step + i % 2) {
        c.rows.push_back(i);
        c.cols.push_back(j);
        if (!pattern) c.vals.push_back(random_value<T>(rng));
      }
    return c;
  };
  const Coo<T> ca = skewed(4.0, false, 2), cb = skewed(6.0, true, 3), cc = skewed(3.0, false, 5);
  Coo<T> cm = skewed(40.0, false, 4);
  for (T& x : cm.vals) x = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 0 : x == 0 ? 7 : x;
  Coo<T> ce;
  ce.nrows = n;
  ce.ncols = m;
  const std::vector<std::pair<const Coo<T>*, const Coo<T>*>> pairs = {{&ca, &cb}, {&cb, &ca}, {&ca, &ce}, {&ce, &cb}};
  const Matrix<T> C0 = gb_matrix(cc), M = gb_matrix(cm);
  const GMat gC0 = grb_matrix(cc), gM = grb_matrix(cm);
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (const auto& [pa, pb] : pairs) {
    const Matrix<T> A = gb_matrix(*pa), B = gb_matrix(*pb);
    const GMat gA = grb_matrix(*pa), gB = grb_matrix(*pb);
    for (int flags = 0; flags < 16; ++flags) {
      gbcuda::Descriptor d;
      d.replace = flags & 1;
      d.mask_structural = flags & 2;
      d.mask_complement = flags & 4;
      const bool masked = flags & 8;
      const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false);
      SCOPED_TRACE(std::string("nnz ") + std::to_string(pa->rows.size()) + " and " + std::to_string(pb->rows.size()) +
                   (masked ? ", mask" : "") + (d.replace ? ", replace" : "") +
                   (d.mask_structural ? ", structural" : "") + (d.mask_complement ? ", complement" : ""));
      for (bool add : {true, false}) {
        Matrix<T> C = C0;
        GMat gC;
        OPS_GRB(GrB_Matrix_dup(&gC.m, gC0.m));
        const GrB_Matrix gmask = masked ? gM.m : GrB_Matrix(GrB_NULL);
        if (add) {
          if (masked) gbcuda::ewise_add(C, M, gbcuda::Max<T>{}, gbcuda::Plus<T>{}, A, B, d, b());
          else gbcuda::ewise_add(C, gbcuda::no_mask, gbcuda::Max<T>{}, gbcuda::Plus<T>{}, A, B, d, b());
          OPS_GRB(GrB_Matrix_eWiseAdd_BinaryOp(gC.m, gmask, GrB_MAX_INT32, GrB_PLUS_INT32, gA.m, gB.m, gd));
        } else {
          if (masked) gbcuda::ewise_mult(C, M, gbcuda::no_accum, gbcuda::Times<T>{}, A, B, d, b());
          else gbcuda::ewise_mult(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Times<T>{}, A, B, d, b());
          OPS_GRB(GrB_Matrix_eWiseMult_BinaryOp(gC.m, gmask, GrB_NULL, GrB_TIMES_INT32, gA.m, gB.m, gd));
        }
        EXPECT_EQ(entries_of(C), entries_of<T>(gC.m)) << (add ? "ewise_add, max" : "ewise_mult");
        const auto& c = C.csr(Backend::Host);
        ASSERT_EQ(c.row_ptr.size(), std::size_t(n) + 1);
        for (Index i = 0; i < n; ++i)
          for (gbcuda::Offset p = c.row_ptr.data()[i] + 1; p < c.row_ptr.data()[i + 1]; ++p)
            ASSERT_LT(c.col_idx.data()[p - 1], c.col_idx.data()[p]) << "row " << i << " not ascending";
      }
    }
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in operator's merge ran on host copies";
}

// C<mask>(i, J) = accum(C(i, J), u') and C<mask>(I, j) = accum(C(I, j), u) against GrB_Row_assign
// and GrB_Col_assign: a vector mask over the line alone (the other rows or columns untouched, with
// replace too), every combination of replace, structural and complement, lists out of order, an
// empty line and a full one, without an accumulator and with PLUS.
TEST_P(MatrixOps, RowAndColumnAssignMatchGraphBLAS) {
  Rng rng(97);
  const Index n = 45, m = 38, nj = 17, ni = 20;
  Coo<double> cc = random_matrix<double>(rng, n, m, 6.0);
  for (Index j = 0; j < m; ++j) {  // row 4 full
    cc.rows.push_back(4);
    cc.cols.push_back(j);
    cc.vals.push_back(0.5 + double(j));
  }
  const Matrix<double> C0 = gb_matrix(cc);
  const GMat gC0 = grb_matrix(cc);
  std::vector<Index> J, I;
  for (Index s = 0; s < nj; ++s) J.push_back((s * 11 + 2) % m);  // distinct: 11 and 38 are coprime
  for (Index r = 0; r < ni; ++r) I.push_back((r * 7 + 5) % n);   // distinct: 7 and 45 are coprime
  const std::vector<GrB_Index> gJ(J.begin(), J.end()), gI(I.begin(), I.end());
  const Tuples<double> ur = random_tuples<double>(rng, nj, 0.6), uc = random_tuples<double>(rng, ni, 0.6);
  const Tuples<double> mr = random_mask(rng, m, 0.5), mc = random_mask(rng, n, 0.5);
  const GVec gur = grb_vector(ur), guc = grb_vector(uc), gmr = grb_vector(mr), gmc = grb_vector(mc);
  const gbcuda::Vector<double> u_row = gb_vector(ur, b()), u_col = gb_vector(uc, b());
  const gbcuda::Vector<double> mask_row = gb_vector(mr, b()), mask_col = gb_vector(mc, b());
  for (int flags = 0; flags < 16; ++flags) {
    gbcuda::Descriptor d;
    d.replace = flags & 1;
    d.mask_structural = flags & 2;
    d.mask_complement = flags & 4;
    const bool masked = flags & 8;
    const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false);
    for (const bool plus : {false, true}) {
      for (const Index line : {Index(0), Index(4), Index(13), Index(37)}) {
        SCOPED_TRACE(testing::Message() << (plus ? "plus" : "no accum") << (masked ? ", masked" : ", no mask")
                                        << (d.replace ? ", replace" : "") << (d.mask_structural ? ", structural" : "")
                                        << (d.mask_complement ? ", complement" : "") << ", line " << line);
        const GrB_BinaryOp gacc = plus ? GrB_PLUS_FP64 : GrB_BinaryOp(GrB_NULL);
        for (const bool row : {true, false}) {
          Matrix<double> C = C0;
          auto run = [&](const auto& acc) {
            if (row) {
              if (masked) gbcuda::assign_row(C, mask_row, acc, u_row, line, J, d, b());
              else gbcuda::assign_row(C, gbcuda::no_mask, acc, u_row, line, J, d, b());
            } else {
              if (masked) gbcuda::assign_col(C, mask_col, acc, u_col, I, line, d, b());
              else gbcuda::assign_col(C, gbcuda::no_mask, acc, u_col, I, line, d, b());
            }
          };
          if (plus) run(gbcuda::Plus<double>{});
          else run(gbcuda::no_accum);
          GMat g;
          OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
          if (row)
            OPS_GRB(GrB_Row_assign(g.m, masked ? gmr.v : GrB_Vector(GrB_NULL), gacc, gur.v, GrB_Index(line), gJ.data(),
                                   GrB_Index(nj), gd));
          else
            OPS_GRB(GrB_Col_assign(g.m, masked ? gmc.v : GrB_Vector(GrB_NULL), gacc, guc.v, gI.data(), GrB_Index(ni),
                                   GrB_Index(line), gd));
          EXPECT_EQ(entries_of(C), entries_of<double>(g.m)) << (row ? "row assign" : "column assign");
          EXPECT_EQ(C.csr(b()).where(), b());
        }
      }
    }
  }
  Matrix<double> C = C0;
  EXPECT_THROW(gbcuda::assign_row(C, gbcuda::no_mask, gbcuda::no_accum, u_row, n, J, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::assign_col(C, gbcuda::no_mask, gbcuda::no_accum, u_col, I, m, {}, b()), gbcuda::Error);
  std::vector<Index> twice = J;
  twice[1] = twice[0];
  EXPECT_THROW(gbcuda::assign_row(C, gbcuda::no_mask, gbcuda::no_accum, u_row, 0, twice, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::assign_row(C, gbcuda::no_mask, gbcuda::no_accum, u_col, 0, J, {}, b()), gbcuda::Error);
  EXPECT_EQ(entries_of(C), entries_of(C0)) << "a refused assign changed C";
}

// C<M>(I, J) = accum(C(I, J), A or x) against GrB_Matrix_assign and GrB_Matrix_assign_FP64:
// index lists out of order, every combination of replace, structural, complement and A', without
// an accumulator and with PLUS.
TEST_P(MatrixOps, AssignMatchesGraphBLAS) {
  Rng rng(91);
  const Index n = 45, m = 38, ni = 20, nj = 17;
  const Coo<double> cc = random_matrix<double>(rng, n, m, 6.0), ca = random_matrix<double>(rng, ni, nj, 5.0);
  const Coo<double> cat = random_matrix<double>(rng, nj, ni, 5.0);
  Coo<double> cm = random_matrix<double>(rng, n, m, 18.0);
  std::uniform_int_distribution<int> pick(0, 2);
  for (double& x : cm.vals) x = pick(rng) == 0 ? 0.0 : 1.0;
  const Matrix<double> C0 = gb_matrix(cc), A = gb_matrix(ca), At = gb_matrix(cat), M = gb_matrix(cm);
  const GMat gC0 = grb_matrix(cc), gA = grb_matrix(ca), gAt = grb_matrix(cat), gM = grb_matrix(cm);
  std::vector<Index> I_any, J_any;
  for (Index r = 0; r < ni; ++r) I_any.push_back((r * 7 + 5) % n);   // distinct: 7 and 45 are coprime
  for (Index s = 0; s < nj; ++s) J_any.push_back((s * 11 + 2) % m);  // distinct: 11 and 38 are coprime
  std::vector<Index> sorted_I = I_any, sorted_J = J_any;
  std::sort(sorted_I.begin(), sorted_I.end());
  std::sort(sorted_J.begin(), sorted_J.end());
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (int flags = 0; flags < 32; ++flags) {
    gbcuda::Descriptor d;
    d.replace = flags & 1;
    d.mask_structural = flags & 2;
    d.mask_complement = flags & 4;
    d.transpose_a = flags & 8;
    const bool ascending = flags & 16;  // the lists in order (the GPU's rows need no sort)
    const std::vector<Index>& I = ascending ? sorted_I : I_any;
    const std::vector<Index>& J = ascending ? sorted_J : J_any;
    const std::vector<GrB_Index> gI(I.begin(), I.end()), gJ(J.begin(), J.end());
    const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, d.transpose_a, false);
    for (const bool plus : {false, true}) {
      for (const bool masked : {false, true}) {
        SCOPED_TRACE(std::string(plus ? "plus" : "no accum") + (masked ? ", masked" : ", no mask") +
                     (ascending ? ", lists ascending" : "") + (d.replace ? ", replace" : "") +
                     (d.mask_structural ? ", structural" : "") + (d.mask_complement ? ", complement" : "") +
                     (d.transpose_a ? ", A'" : ""));
        const Matrix<double>& src = d.transpose_a ? At : A;
        const GMat& gsrc = d.transpose_a ? gAt : gA;
        auto ours = [&](auto&& call) {
          Matrix<double> C = C0;
          if (plus) call(C, gbcuda::Plus<double>{});
          else call(C, gbcuda::no_accum);
          return entries_of(C);
        };
        auto theirs = [&](auto&& call) {
          GMat g;
          OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
          OPS_GRB(call(g.m, masked ? gM.m : GrB_Matrix(GrB_NULL), plus ? GrB_PLUS_FP64 : GrB_BinaryOp(GrB_NULL)));
          return entries_of<double>(g.m);
        };
        const auto got = ours([&](Matrix<double>& C, const auto& acc) {
          if (masked) gbcuda::assign(C, M, acc, src, I, J, d, b());
          else gbcuda::assign(C, gbcuda::no_mask, acc, src, I, J, d, b());
        });
        const auto want = theirs([&](GrB_Matrix g, GrB_Matrix gm, GrB_BinaryOp gacc) {
          return GrB_Matrix_assign(g, gm, gacc, gsrc.m, gI.data(), ni, gJ.data(), nj, gd);
        });
        EXPECT_EQ(got, want) << "matrix";
        if (d.transpose_a) continue;
        const auto got_x = ours([&](Matrix<double>& C, const auto& acc) {
          if (masked) gbcuda::assign(C, M, acc, 2.5, I, J, d, b());
          else gbcuda::assign(C, gbcuda::no_mask, acc, 2.5, I, J, d, b());
        });
        const auto want_x = theirs([&](GrB_Matrix g, GrB_Matrix gm, GrB_BinaryOp gacc) {
          return GrB_Matrix_assign_FP64(g, gm, gacc, 2.5, gI.data(), ni, gJ.data(), nj, gd);
        });
        EXPECT_EQ(got_x, want_x) << "scalar";
      }
    }
  }
  // A scalar over an empty row or column list, and over every row in reverse order.
  std::vector<Index> all_rows(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) all_rows[std::size_t(i)] = n - 1 - i;
  for (const auto& [rows, cols] :
       {std::pair{std::vector<Index>{}, J_any}, std::pair{I_any, std::vector<Index>{}}, std::pair{all_rows, J_any}}) {
    SCOPED_TRACE(testing::Message() << "scalar over " << rows.size() << " x " << cols.size());
    Matrix<double> C = C0;
    gbcuda::assign(C, gbcuda::no_mask, gbcuda::no_accum, 2.5, rows, cols, {}, b());
    GMat g;
    OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
    std::vector<GrB_Index> gI(rows.begin(), rows.end()), gJ(cols.begin(), cols.end());
    gI.reserve(1);  // GraphBLAS rejects null arrays even for empty lists
    gJ.reserve(1);
    OPS_GRB(GrB_Matrix_assign_FP64(g.m, GrB_NULL, GrB_NULL, 2.5, gI.data(), gI.size(), gJ.data(), gJ.size(), GrB_NULL));
    EXPECT_EQ(entries_of(C), entries_of<double>(g.m));
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in accumulator's assign ran on host copies";
  const std::vector<Index>& I = I_any;
  const std::vector<Index>& J = J_any;
  Matrix<double> C = C0;
  std::vector<Index> twice = I;
  twice[3] = twice[4];
  EXPECT_THROW(gbcuda::assign(C, gbcuda::no_mask, gbcuda::no_accum, A, twice, J, {}, b()), gbcuda::Error);
  std::vector<Index> outside = J;
  outside[0] = m;
  EXPECT_THROW(gbcuda::assign(C, gbcuda::no_mask, gbcuda::no_accum, A, I, outside, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::assign(C, gbcuda::no_mask, gbcuda::no_accum, At, I, J, {}, b()), gbcuda::Error);  // 17 x 20
  EXPECT_EQ(entries_of(C), entries_of(C0)) << "a refused assign changed C";
}

// C(I, J)<M> = accum(C(I, J), A, x or s) against GxB_Matrix_subassign, GxB_Matrix_subassign_FP64
// and GxB_Matrix_subassign_Scalar: M of the region's shape, every combination of replace,
// structural, complement and A', lists out of order, of another integer type, or `all`.
TEST_P(MatrixOps, SubassignMatchesGraphBLAS) {
  Rng rng(93);
  const Index n = 45, m = 38, ni = 20, nj = 17;
  const Coo<double> cc = random_matrix<double>(rng, n, m, 6.0);
  const Coo<double> ca = random_matrix<double>(rng, ni, nj, 5.0), cat = random_matrix<double>(rng, nj, ni, 5.0);
  const Coo<double> call_rows = random_matrix<double>(rng, n, nj, 5.0);
  Coo<double> cm = random_matrix<double>(rng, ni, nj, 9.0), cm_all = random_matrix<double>(rng, n, nj, 9.0);
  std::uniform_int_distribution<int> pick(0, 2);
  for (Coo<double>* mk : {&cm, &cm_all})
    for (double& x : mk->vals) x = pick(rng) == 0 ? 0.0 : 1.0;
  const Matrix<double> C0 = gb_matrix(cc), A = gb_matrix(ca), At = gb_matrix(cat), M = gb_matrix(cm);
  const Matrix<double> A_all = gb_matrix(call_rows), M_all = gb_matrix(cm_all);
  const GMat gC0 = grb_matrix(cc), gA = grb_matrix(ca), gAt = grb_matrix(cat), gM = grb_matrix(cm);
  const GMat gA_all = grb_matrix(call_rows), gM_all = grb_matrix(cm_all);
  std::vector<int> I;  // of int: converted
  std::vector<Index> J;
  for (Index r = 0; r < ni; ++r) I.push_back(int((r * 7 + 5) % n));  // distinct: 7 and 45 are coprime
  for (Index s = 0; s < nj; ++s) J.push_back((s * 11 + 2) % m);      // distinct: 11 and 38 are coprime
  const std::vector<GrB_Index> gI(I.begin(), I.end()), gJ(J.begin(), J.end());
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (int flags = 0; flags < 32; ++flags) {
    gbcuda::Descriptor d;
    d.replace = flags & 1;
    d.mask_structural = flags & 2;
    d.mask_complement = flags & 4;
    d.transpose_a = flags & 8;
    const bool every_row = flags & 16;  // I = all: the region is every row at the columns J
    const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, d.transpose_a, false);
    for (const bool plus : {false, true}) {
      for (const bool masked : {false, true}) {
        if (every_row && d.transpose_a) continue;
        SCOPED_TRACE(std::string(plus ? "plus" : "no accum") + (masked ? ", masked" : ", no mask") +
                     (every_row ? ", I all" : "") + (d.replace ? ", replace" : "") +
                     (d.mask_structural ? ", structural" : "") + (d.mask_complement ? ", complement" : "") +
                     (d.transpose_a ? ", A'" : ""));
        const Matrix<double>& src = every_row ? A_all : d.transpose_a ? At : A;
        const GMat& gsrc = every_row ? gA_all : d.transpose_a ? gAt : gA;
        const Matrix<double>& mask = every_row ? M_all : M;
        const GrB_Matrix gmask = masked ? (every_row ? gM_all.m : gM.m) : GrB_Matrix(GrB_NULL);
        const GrB_Index* pi = every_row ? GrB_ALL : gI.data();
        const GrB_Index gni = every_row ? GrB_Index(n) : GrB_Index(ni);
        const GrB_BinaryOp gacc = plus ? GrB_PLUS_FP64 : GrB_BinaryOp(GrB_NULL);
        auto ours = [&](auto&& call) {
          Matrix<double> C = C0;
          auto with_rows = [&](const auto& acc) {
            if (every_row) call(C, acc, gbcuda::all);
            else call(C, acc, I);
          };
          if (plus) with_rows(gbcuda::Plus<double>{});
          else with_rows(gbcuda::no_accum);
          EXPECT_EQ(C.csr(b()).where(), b());
          return entries_of(C);
        };
        auto theirs = [&](auto&& call) {
          GMat g;
          OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
          OPS_GRB(call(g.m));
          return entries_of<double>(g.m);
        };
        const auto got = ours([&](Matrix<double>& C, const auto& acc, const auto& rows) {
          if (masked) gbcuda::subassign(C, mask, acc, src, rows, J, d, b());
          else gbcuda::subassign(C, gbcuda::no_mask, acc, src, rows, J, d, b());
        });
        const auto want = theirs([&](GrB_Matrix g) {
          return GxB_Matrix_subassign(g, gmask, gacc, gsrc.m, pi, gni, gJ.data(), GrB_Index(nj), gd);
        });
        EXPECT_EQ(got, want) << "matrix";
        if (d.transpose_a) continue;
        const auto got_x = ours([&](Matrix<double>& C, const auto& acc, const auto& rows) {
          if (masked) gbcuda::subassign(C, mask, acc, 2.5, rows, J, d, b());
          else gbcuda::subassign(C, gbcuda::no_mask, acc, 2.5, rows, J, d, b());
        });
        const auto want_x = theirs([&](GrB_Matrix g) {
          return GxB_Matrix_subassign_FP64(g, gmask, gacc, 2.5, pi, gni, gJ.data(), GrB_Index(nj), gd);
        });
        EXPECT_EQ(got_x, want_x) << "value";
        for (const bool empty : {true, false}) {
          const gbcuda::Scalar<double> s = empty ? gbcuda::Scalar<double>{} : gbcuda::Scalar<double>(-1.5);
          const GScalar gs(s);
          const auto got_s = ours([&](Matrix<double>& C, const auto& acc, const auto& rows) {
            if (masked) gbcuda::subassign(C, mask, acc, s, rows, J, d, b());
            else gbcuda::subassign(C, gbcuda::no_mask, acc, s, rows, J, d, b());
          });
          const auto want_s = theirs([&](GrB_Matrix g) {
            return GxB_Matrix_subassign_Scalar(g, gmask, gacc, gs.s, pi, gni, gJ.data(), GrB_Index(nj), gd);
          });
          EXPECT_EQ(got_s, want_s) << (empty ? "empty scalar" : "scalar");
        }
      }
    }
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in accumulator's subassign ran on host copies";
  Matrix<double> C = C0;
  std::vector<int> twice = I;
  twice[3] = twice[4];
  EXPECT_THROW(gbcuda::subassign(C, gbcuda::no_mask, gbcuda::no_accum, A, twice, J, {}, b()), gbcuda::Error);
  std::vector<Index> outside = J;
  outside[0] = m;
  EXPECT_THROW(gbcuda::subassign(C, gbcuda::no_mask, gbcuda::no_accum, A, I, outside, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::subassign(C, gbcuda::no_mask, gbcuda::no_accum, At, I, J, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::subassign(C, M_all, gbcuda::no_accum, A, I, J, {}, b()), gbcuda::Error);  // mask n x nj
  EXPECT_THROW(gbcuda::subassign(C, gbcuda::no_mask, gbcuda::no_accum, 1.0, gbcuda::all, outside, {}, b()),
               gbcuda::Error);
  EXPECT_EQ(entries_of(C), entries_of(C0)) << "a refused subassign changed C";
}

// C(i, J)<m> = accum(C(i, J), u') and C(I, j)<m> = accum(C(I, j), u) against GxB_Row_subassign and
// GxB_Col_subassign: m of the list's length, every mask flag, with and without PLUS, and `all`.
TEST_P(MatrixOps, RowAndColumnSubassignMatchGraphBLAS) {
  Rng rng(99);
  const Index n = 45, m = 38, nj = 17, ni = 20;
  Coo<double> cc = random_matrix<double>(rng, n, m, 6.0);
  const Matrix<double> C0 = gb_matrix(cc);
  const GMat gC0 = grb_matrix(cc);
  std::vector<Index> J, I;
  for (Index s = 0; s < nj; ++s) J.push_back((s * 11 + 2) % m);
  for (Index r = 0; r < ni; ++r) I.push_back((r * 7 + 5) % n);
  const std::vector<GrB_Index> gJ(J.begin(), J.end()), gI(I.begin(), I.end());
  for (const bool every : {false, true}) {
    const Index lr = every ? m : nj, lc = every ? n : ni;  // the lengths of a row's and a column's list
    const Tuples<double> ur = random_tuples<double>(rng, lr, 0.6), uc = random_tuples<double>(rng, lc, 0.6);
    const Tuples<double> mr = random_mask(rng, lr, 0.5), mc = random_mask(rng, lc, 0.5);
    const GVec gur = grb_vector(ur), guc = grb_vector(uc), gmr = grb_vector(mr), gmc = grb_vector(mc);
    const gbcuda::Vector<double> u_row = gb_vector(ur, b()), u_col = gb_vector(uc, b());
    const gbcuda::Vector<double> mask_row = gb_vector(mr, b()), mask_col = gb_vector(mc, b());
    for (int flags = 0; flags < 16; ++flags) {
      gbcuda::Descriptor d;
      d.replace = flags & 1;
      d.mask_structural = flags & 2;
      d.mask_complement = flags & 4;
      const bool masked = flags & 8;
      const GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false);
      for (const bool plus : {false, true}) {
        for (const Index line : {Index(0), Index(13), Index(37)}) {
          SCOPED_TRACE(testing::Message()
                       << (plus ? "plus" : "no accum") << (masked ? ", masked" : ", no mask") << (every ? ", all" : "")
                       << (d.replace ? ", replace" : "") << (d.mask_structural ? ", structural" : "")
                       << (d.mask_complement ? ", complement" : "") << ", line " << line);
          const GrB_BinaryOp gacc = plus ? GrB_PLUS_FP64 : GrB_BinaryOp(GrB_NULL);
          for (const bool row : {true, false}) {
            Matrix<double> C = C0;
            auto run = [&](const auto& acc, const auto& list_j, const auto& list_i) {
              if (row) {
                if (masked) gbcuda::subassign_row(C, mask_row, acc, u_row, line, list_j, d, b());
                else gbcuda::subassign_row(C, gbcuda::no_mask, acc, u_row, line, list_j, d, b());
              } else {
                if (masked) gbcuda::subassign_col(C, mask_col, acc, u_col, list_i, line, d, b());
                else gbcuda::subassign_col(C, gbcuda::no_mask, acc, u_col, list_i, line, d, b());
              }
            };
            auto with_lists = [&](const auto& acc) {
              if (every) run(acc, gbcuda::all, gbcuda::all);
              else run(acc, J, I);
            };
            if (plus) with_lists(gbcuda::Plus<double>{});
            else with_lists(gbcuda::no_accum);
            GMat g;
            OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
            if (row)
              OPS_GRB(GxB_Row_subassign(g.m, masked ? gmr.v : GrB_Vector(GrB_NULL), gacc, gur.v, GrB_Index(line),
                                        every ? GrB_ALL : gJ.data(), GrB_Index(lr), gd));
            else
              OPS_GRB(GxB_Col_subassign(g.m, masked ? gmc.v : GrB_Vector(GrB_NULL), gacc, guc.v,
                                        every ? GrB_ALL : gI.data(), GrB_Index(lc), GrB_Index(line), gd));
            EXPECT_EQ(entries_of(C), entries_of<double>(g.m)) << (row ? "row subassign" : "column subassign");
            EXPECT_EQ(C.csr(b()).where(), b());
          }
        }
      }
    }
  }
  Matrix<double> C = C0;
  const gbcuda::Vector<double> u = gbcuda::Vector<double>::full(nj, 1.0, b());
  EXPECT_THROW(gbcuda::subassign_row(C, gbcuda::no_mask, gbcuda::no_accum, u, n, J, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::subassign_row(C, gbcuda::Vector<double>(nj + 1, b()), gbcuda::no_accum, u, 0, J, {}, b()),
               gbcuda::Error);
  EXPECT_THROW(gbcuda::subassign_col(C, gbcuda::no_mask, gbcuda::no_accum, u, I, 0, {}, b()), gbcuda::Error);
  EXPECT_EQ(entries_of(C), entries_of(C0)) << "a refused subassign changed C";
}

// GrB_ALL (`all`) for the index lists of the matrix extract and assign, extract_col, assign_row
// and assign_col, against GraphBLAS given GrB_ALL.
TEST_P(MatrixOps, AllIndicesMatchGraphBLAS) {
  Rng rng(101);
  const Index n = 30, m = 26;
  const Coo<double> cc = random_matrix<double>(rng, n, m, 5.0), ca = random_matrix<double>(rng, n, 9, 4.0);
  const Matrix<double> C0 = gb_matrix(cc), A = gb_matrix(ca);
  const GMat gC0 = grb_matrix(cc), gA = grb_matrix(ca);
  const std::vector<std::uint64_t> J{3, 25, 0, 7, 11, 2, 19, 8, 14};  // GrB_Index, 9 distinct columns
  auto grb_copy = [&] {
    GMat g;
    OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
    return g;
  };
  {  // extract C(all, J) and C(all, all) transposed
    Matrix<double> E, F;
    gbcuda::extract(E, gbcuda::no_mask, gbcuda::no_accum, C0, gbcuda::all, J, {}, b());
    gbcuda::extract(F, gbcuda::no_mask, gbcuda::no_accum, C0, gbcuda::all, gbcuda::all, gbcuda::desc::T0, b());
    GMat ge, gf;
    OPS_GRB(GrB_Matrix_new(&ge.m, GrB_FP64, n, 9));
    OPS_GRB(GrB_Matrix_new(&gf.m, GrB_FP64, m, n));
    OPS_GRB(GrB_Matrix_extract(ge.m, GrB_NULL, GrB_NULL, gC0.m, GrB_ALL, n, J.data(), 9, GrB_NULL));
    OPS_GRB(GrB_Matrix_extract(gf.m, GrB_NULL, GrB_NULL, gC0.m, GrB_ALL, m, GrB_ALL, n, GrB_DESC_T0));
    EXPECT_EQ(entries_of(E), entries_of<double>(ge.m)) << "extract(all, J)";
    EXPECT_EQ(entries_of(F), entries_of<double>(gf.m)) << "extract(all, all) of C'";
  }
  {  // assign C(all, J) += A, and C(all, all) = 4 under C's own structure
    Matrix<double> C = C0;
    gbcuda::assign(C, gbcuda::no_mask, gbcuda::Plus<double>{}, A, gbcuda::all, J, {}, b());
    GMat g = grb_copy();
    OPS_GRB(GrB_Matrix_assign(g.m, GrB_NULL, GrB_PLUS_FP64, gA.m, GrB_ALL, n, J.data(), 9, GrB_NULL));
    EXPECT_EQ(entries_of(C), entries_of<double>(g.m)) << "assign(all, J)";
    Matrix<double> D = C0;
    gbcuda::assign(D, C0, gbcuda::no_accum, 4.0, gbcuda::all, gbcuda::all, gbcuda::desc::S, b());
    GMat h = grb_copy();
    OPS_GRB(GrB_Matrix_assign_FP64(h.m, gC0.m, GrB_NULL, 4.0, GrB_ALL, n, GrB_ALL, m, GrB_DESC_S));
    EXPECT_EQ(entries_of(D), entries_of<double>(h.m)) << "assign(all, all) of a value";
  }
  {  // a column, and a row and a column assigned with all
    const Tuples<double> ur = random_tuples<double>(rng, m, 0.5), uc = random_tuples<double>(rng, n, 0.5);
    const GVec gur = grb_vector(ur), guc = grb_vector(uc);
    gbcuda::Vector<double> w(n, b());
    gbcuda::extract_col(w, gbcuda::no_mask, gbcuda::no_accum, C0, gbcuda::all, 5);
    GVec gw = grb_empty_vector<double>(n);
    OPS_GRB(GrB_Col_extract(gw.v, GrB_NULL, GrB_NULL, gC0.m, GrB_ALL, n, 5, GrB_NULL));
    EXPECT_EQ(tuples_of(w).idx, tuples_of<double>(gw.v).idx) << "extract_col(all)";
    EXPECT_EQ(tuples_of(w).vals, tuples_of<double>(gw.v).vals) << "extract_col(all)";
    Matrix<double> C = C0;
    gbcuda::assign_row(C, gbcuda::no_mask, gbcuda::no_accum, gb_vector(ur, b()), 4, gbcuda::all, {}, b());
    gbcuda::assign_col(C, gbcuda::no_mask, gbcuda::Plus<double>{}, gb_vector(uc, b()), gbcuda::all, 6, {}, b());
    GMat g = grb_copy();
    OPS_GRB(GrB_Row_assign(g.m, GrB_NULL, GrB_NULL, gur.v, 4, GrB_ALL, m, GrB_NULL));
    OPS_GRB(GrB_Col_assign(g.m, GrB_NULL, GrB_PLUS_FP64, guc.v, GrB_ALL, n, 6, GrB_NULL));
    EXPECT_EQ(entries_of(C), entries_of<double>(g.m)) << "assign_row(all), assign_col(all)";
  }
  Matrix<double> E;
  EXPECT_THROW(gbcuda::assign(E, gbcuda::no_mask, gbcuda::no_accum, A, gbcuda::all, gbcuda::all, {}, b()),
               gbcuda::Error);  // E is 0 x 0: `all` lists nothing, A is 30 x 9
}

// apply with an index-unary operator: RowIndex, ColIndex and DiagIndex against GraphBLAS's
// GrB_ROWINDEX/COLINDEX/DIAGINDEX_INT64 (into an int64 C of its own entries, through a mask, with
// and without an accumulator, A transposed or not), and a user callable.
TEST_P(MatrixOps, ApplyWithAnIndexUnaryOperatorMatchesGraphBLAS) {
  Rng rng(97);
  const Index n = 35, m = 42;
  const Coo<double> ca = random_matrix<double>(rng, n, m, 6.0), cat = random_matrix<double>(rng, m, n, 6.0);
  const Coo<std::int64_t> cc = random_matrix<std::int64_t>(rng, n, m, 4.0);
  Coo<double> cm = random_matrix<double>(rng, n, m, 15.0);
  for (double& x : cm.vals) x = x > 0 ? 1.0 : 0.0;
  const Matrix<double> A = gb_matrix(ca), At = gb_matrix(cat), M = gb_matrix(cm);
  const Matrix<std::int64_t> C0 = gb_matrix(cc);
  const GMat gA = grb_matrix(ca), gAt = grb_matrix(cat), gM = grb_matrix(cm), gC0 = grb_matrix(cc);
  auto run = [&](const auto& op, GrB_IndexUnaryOp gop, const char* name) {
    for (int flags = 0; flags < 8; ++flags) {
      gbcuda::Descriptor d;
      d.replace = flags & 1;
      d.mask_complement = flags & 2;
      d.transpose_a = flags & 4;
      const GrB_Descriptor gd = grb_desc(d.replace, false, d.mask_complement, d.transpose_a, false);
      for (const bool plus : {false, true}) {
        SCOPED_TRACE(std::string(name) + (plus ? ", plus" : "") + (d.replace ? ", replace" : "") +
                     (d.mask_complement ? ", complement" : "") + (d.transpose_a ? ", A'" : ""));
        const Matrix<double>& src = d.transpose_a ? At : A;
        Matrix<std::int64_t> C = C0;
        if (plus) gbcuda::apply(C, M, gbcuda::Plus<std::int64_t>{}, op, src, 3.0, d, b());
        else gbcuda::apply(C, M, gbcuda::no_accum, op, src, 3.0, d, b());
        GMat g;
        OPS_GRB(GrB_Matrix_dup(&g.m, gC0.m));
        OPS_GRB(GrB_Matrix_apply_IndexOp_INT64(g.m, gM.m, plus ? GrB_PLUS_INT64 : GrB_BinaryOp(GrB_NULL), gop,
                                               (d.transpose_a ? gAt : gA).m, 3, gd));
        EXPECT_EQ(entries_of(C), entries_of<std::int64_t>(g.m));
      }
    }
  };
  const std::uint64_t before = gbcuda::host_fallbacks();
  run(gbcuda::RowIndex{}, GrB_ROWINDEX_INT64, "rowindex");
  run(gbcuda::ColIndex{}, GrB_COLINDEX_INT64, "colindex");
  run(gbcuda::DiagIndex{}, GrB_DIAGINDEX_INT64, "diagindex");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a positional apply ran on host copies";
  // A user callable, no mask: A's structure, each value from its position and value.
  Matrix<double> U;
  gbcuda::apply(
      U, gbcuda::no_mask, gbcuda::no_accum,
      [](double x, gbcuda::Index i, gbcuda::Index j, double y) { return x * y + double(i) - double(j); }, A, 0.5, {},
      b());
  Entries<double> want;
  for (const auto& [ij, x] : entries_of(A)) want[ij] = x * 0.5 + double(ij.first) - double(ij.second);
  EXPECT_EQ(entries_of(U), want);
}

TEST_P(MatrixOps, ReduceMatchesGraphBLAS) {
  Rng rng(8);
  const Coo<double> coo = random_matrix<double>(rng, 400, 300, 5.0);
  const Matrix<double> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  double want = 0;
  OPS_GRB(GrB_Matrix_reduce_FP64(&want, GrB_NULL, GrB_PLUS_MONOID_FP64, gA.m, GrB_NULL));
  EXPECT_NEAR(gbcuda::reduce(gbcuda::PlusMonoid<double>{}, A, b()), want, 1e-9 * std::max(1.0, std::abs(want)));
  OPS_GRB(GrB_Matrix_reduce_FP64(&want, GrB_NULL, GrB_MIN_MONOID_FP64, gA.m, GrB_NULL));
  EXPECT_EQ(gbcuda::reduce(gbcuda::MinMonoid<double>{}, A, b()), want);
  // An iso matrix: its value folded once per entry.
  const Matrix<bool> P = gbtest::path_graph(77, true);
  EXPECT_EQ(gbcuda::reduce(gbcuda::PlusMonoid<std::int64_t>{}, P, b()), 76);
  EXPECT_EQ(gbcuda::reduce(gbcuda::PlusMonoid<double>{}, Matrix<double>::from_coo(5, 5, {}, {}), b()), 0.0);
}

// w = each row (or column) of A reduced by a binary operator, against GrB_Matrix_reduce_BinaryOp.
TEST_P(MatrixOps, ReduceToAVectorByABinaryOpMatchesGraphBLAS) {
  Rng rng(71);
  const Coo<std::int64_t> coo = random_matrix<std::int64_t>(rng, 50, 40, 4.0);
  const Matrix<std::int64_t> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  auto run = [&](auto op, GrB_BinaryOp gop, bool columns, const char* name) {
    const Index n = columns ? 40 : 50;
    gbcuda::Vector<std::int64_t> w(n, b());
    gbcuda::Descriptor d;
    d.transpose_a = columns;
    gbcuda::reduce(w, gbcuda::no_mask, gbcuda::no_accum, op, A, d);
    GVec want;
    OPS_GRB(GrB_Vector_new(&want.v, GrB_INT64, GrB_Index(n)));
    OPS_GRB(GrB_Matrix_reduce_BinaryOp(want.v, nullptr, nullptr, gop, gA.m, columns ? GrB_DESC_T0 : nullptr));
    GrB_Index nv = 0;
    OPS_GRB(GrB_Vector_nvals(&nv, want.v));
    std::vector<GrB_Index> gi(nv + 1);
    std::vector<std::int64_t> gx(nv + 1);
    OPS_GRB(GrB_Vector_extractTuples_INT64(gi.data(), gx.data(), &nv, want.v));
    std::vector<Index> wi;
    std::vector<std::int64_t> wx;
    w.extract_tuples(wi, wx);
    EXPECT_EQ(wi, std::vector<Index>(gi.begin(), gi.begin() + std::ptrdiff_t(nv))) << name;
    EXPECT_EQ(wx, std::vector<std::int64_t>(gx.begin(), gx.begin() + std::ptrdiff_t(nv))) << name;
  };
  for (bool columns : {false, true}) {
    run(gbcuda::Plus<std::int64_t>{}, GrB_PLUS_INT64, columns, "plus");
    run(gbcuda::Min<std::int64_t>{}, GrB_MIN_INT64, columns, "min");
    run(gbcuda::Max<std::int64_t>{}, GrB_MAX_INT64, columns, "max");
    run(gbcuda::Times<std::int64_t>{}, GrB_TIMES_INT64, columns, "times");
  }
}

TEST_P(MatrixOps, ApplyMatchesGraphBLAS) {
  Rng rng(21);
  const Coo<double> coo = random_matrix<double>(rng, 260, 310, 6.0);
  const Matrix<double> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  const std::uint64_t before = gbcuda::host_fallbacks();
  auto check = [&](const Matrix<double>& C, GrB_Info (*grb)(GrB_Matrix, GrB_Matrix), const char* name) {
    GMat gC = grb_empty_matrix<double>(coo.nrows, coo.ncols);
    OPS_GRB(grb(gC.m, gA.m));
    EXPECT_EQ(entries_of(C), entries_of<double>(gC.m)) << name;
  };
  Matrix<double> C;
  gbcuda::apply(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::AdditiveInverse<double>{}, A, b());
  check(
      C, [](GrB_Matrix c, GrB_Matrix a) { return GrB_Matrix_apply(c, GrB_NULL, GrB_NULL, GrB_AINV_FP64, a, GrB_NULL); },
      "ainv");
  gbcuda::apply(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_first(gbcuda::Minus<double>{}, 2.5), A, b());
  check(
      C,
      [](GrB_Matrix c, GrB_Matrix a) {
        return GrB_Matrix_apply_BinaryOp1st_FP64(c, GrB_NULL, GrB_NULL, GrB_MINUS_FP64, 2.5, a, GrB_NULL);
      },
      "bind-first minus");
  gbcuda::apply(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_second(gbcuda::Times<double>{}, -0.5), A, b());
  check(
      C,
      [](GrB_Matrix c, GrB_Matrix a) {
        return GrB_Matrix_apply_BinaryOp2nd_FP64(c, GrB_NULL, GrB_NULL, GrB_TIMES_FP64, a, -0.5, GrB_NULL);
      },
      "bind-second times");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in operator's matrix apply ran on host copies";
  // A user-defined operator (host copies on CUDA) and an iso matrix (its one value mapped).
  gbcuda::apply(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::make_unary_op<double>([](double x) { return 2 * x + 1; }),
                A, b());
  Entries<double> want = entries_of(A);
  for (auto& [ij, x] : want) x = 2 * x + 1;
  EXPECT_EQ(entries_of(C), want) << "user";
  const Matrix<bool> P = gbtest::path_graph(40, false);
  Matrix<bool> N;
  gbcuda::apply(N, gbcuda::no_mask, gbcuda::no_accum, gbcuda::LogicalNot<bool>{}, P, b());
  EXPECT_EQ(N.nvals(), P.nvals());
  EXPECT_TRUE(N.csr(Backend::Host).is_iso());
  EXPECT_FALSE(N.csr(Backend::Host).iso_value);
}

TEST_P(MatrixOps, ExtractTuplesMatchesGraphBLAS) {
  Rng rng(22);
  const Coo<std::int64_t> coo = random_matrix<std::int64_t>(rng, 120, 90, 5.0);
  Matrix<std::int64_t> A = gb_matrix(coo);
  A.csr(b());
  if (b() == Backend::Cuda) A.release(Backend::Host);  // only the GPU copy: the tuples come from it
  std::vector<Index> I, J;
  std::vector<std::int64_t> X;
  gbcuda::extract_tuples(A, I, J, X);
  ASSERT_EQ(I.size(), X.size());
  ASSERT_EQ(J.size(), X.size());
  Entries<std::int64_t> got;
  for (std::size_t k = 0; k < I.size(); ++k) {
    if (k > 0) {
      EXPECT_TRUE(I[k - 1] < I[k] || (I[k - 1] == I[k] && J[k - 1] < J[k])) << "not in row order at " << k;
    }
    got[{I[k], J[k]}] = X[k];
  }
  const GMat gA = grb_matrix(coo);
  EXPECT_EQ(got, entries_of<std::int64_t>(gA.m));
}

// C = A (+) B and A (x) B over several operators, with the inputs transposed or not, against
// GrB_Matrix_eWiseAdd / eWiseMult (the descriptor's GrB_INP0 / GrB_INP1 transposes); C lands in
// the backend asked for.
template <class T, class Op>
void check_ewise_matrix(Backend b, const Op& op, GrB_BinaryOp grb_op, const std::string& what) {
  Rng rng(41);
  const Index n = 60, m = 45;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    SCOPED_TRACE(what + (ta ? " A'" : " A") + (tb ? " B'" : " B"));
    const Coo<T> ca = random_matrix<T>(rng, ta ? m : n, ta ? n : m, 4.0, t == 3);  // one pattern input
    const Coo<T> cb = random_matrix<T>(rng, tb ? m : n, tb ? n : m, 4.0);
    const Matrix<T> A = gb_matrix(ca), B = gb_matrix(cb);
    gbcuda::Descriptor d;
    d.transpose_a = ta;
    d.transpose_b = tb;
    GrB_Descriptor gd = nullptr;
    OPS_GRB(GrB_Descriptor_new(&gd));
    if (ta) OPS_GRB(GrB_Descriptor_set(gd, GrB_INP0, GrB_TRAN));
    if (tb) OPS_GRB(GrB_Descriptor_set(gd, GrB_INP1, GrB_TRAN));
    const GMat ga = grb_matrix(ca), gbm = grb_matrix(cb);
    for (bool add : {true, false}) {
      Matrix<T> C;
      if (add) gbcuda::ewise_add(C, gbcuda::no_mask, gbcuda::no_accum, op, A, B, d, b);
      else gbcuda::ewise_mult(C, gbcuda::no_mask, gbcuda::no_accum, op, A, B, d, b);
      GMat want = grb_empty_matrix<T>(n, m);
      if (add) OPS_GRB(GrB_Matrix_eWiseAdd_BinaryOp(want.m, nullptr, nullptr, grb_op, ga.m, gbm.m, gd));
      else OPS_GRB(GrB_Matrix_eWiseMult_BinaryOp(want.m, nullptr, nullptr, grb_op, ga.m, gbm.m, gd));
      EXPECT_EQ(entries_of(C), entries_of<T>(want.m)) << (add ? "ewise_add" : "ewise_mult");
      EXPECT_EQ(C.nrows(), n);
      if (b == Backend::Cuda) {
        EXPECT_GT(C.device_bytes(), 0u) << "the result is in GPU memory";
      }
    }
    GrB_Descriptor_free(&gd);
  }
  Matrix<T> C;
  const Matrix<T> A = gb_matrix(random_matrix<T>(rng, n, m, 3.0)), W = gb_matrix(random_matrix<T>(rng, m, m, 3.0));
  EXPECT_THROW(gbcuda::ewise_add(C, gbcuda::no_mask, gbcuda::no_accum, op, A, W, {}, b), gbcuda::Error);
}

TEST_P(MatrixOps, EwiseMatchesGraphBLAS) {
  check_ewise_matrix<double>(b(), gbcuda::Plus<double>{}, GrB_PLUS_FP64, "plus double");
  check_ewise_matrix<double>(b(), gbcuda::Min<double>{}, GrB_MIN_FP64, "min double");
  check_ewise_matrix<std::int64_t>(b(), gbcuda::Times<std::int64_t>{}, GrB_TIMES_INT64, "times int64");
  check_ewise_matrix<std::int64_t>(b(), gbcuda::First<std::int64_t>{}, GrB_FIRST_INT64, "first int64");
  check_ewise_matrix<std::int32_t>(b(), gbcuda::Second<std::int32_t>{}, GrB_SECOND_INT32, "second int32");
  check_ewise_matrix<bool>(b(), gbcuda::Lor<bool>{}, GrB_LOR, "lor bool");
  check_ewise_matrix<float>(b(), gbcuda::Max<float>{}, GrB_MAX_FP32, "max float");
}

// C = A' against GrB_transpose, and desc.transpose_a: C = A.
TEST_P(MatrixOps, TransposeMatchesGraphBLAS) {
  Rng rng(43);
  const Coo<double> ca = random_matrix<double>(rng, 70, 40, 5.0);
  const Matrix<double> A = gb_matrix(ca);
  Matrix<double> C;
  gbcuda::transpose(C, gbcuda::no_mask, gbcuda::no_accum, A, {}, b());
  const GMat ga = grb_matrix(ca);
  GMat want = grb_empty_matrix<double>(40, 70);
  OPS_GRB(GrB_transpose(want.m, nullptr, nullptr, ga.m, nullptr));
  EXPECT_EQ(entries_of(C), entries_of<double>(want.m));
  gbcuda::Descriptor d;
  d.transpose_a = true;
  gbcuda::transpose(C, gbcuda::no_mask, gbcuda::no_accum, A, d, b());
  EXPECT_EQ(entries_of(C), entries_of(A));
  if (b() == Backend::Cuda) {
    EXPECT_GT(C.device_bytes(), 0u);
  }
}

// C = A * B without a mask against GrB_mxm with a null mask: several semirings, the inputs
// transposed or not, a pattern input, and a hub row (a long row of A meeting long rows of B).
template <class T, class S>
void check_unmasked_mxm(Backend b, const S& s, GrB_Semiring gs, const std::string& what) {
  Rng rng(61);
  const Index n = 40, k = 30, m = 35;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    SCOPED_TRACE(what + (ta ? " A'" : " A") + (tb ? " B'" : " B"));
    Coo<T> ca = random_matrix<T>(rng, ta ? k : n, ta ? n : k, 3.0, t == 2);
    const Coo<T> cb = random_matrix<T>(rng, tb ? m : k, tb ? k : m, 3.0);
    if (!ta)  // row 0 of A touches every k
      for (Index j = 0; j < k; ++j) {
        ca.rows.push_back(0);
        ca.cols.push_back(j);
        if (!ca.vals.empty()) ca.vals.push_back(random_value<T>(rng));
      }
    const Matrix<T> A = gb_matrix(ca), B = gb_matrix(cb);
    gbcuda::Descriptor d;
    d.transpose_a = ta;
    d.transpose_b = tb;
    Matrix<typename S::value_type> C;
    gbcuda::mxm(C, gbcuda::no_mask, gbcuda::no_accum, s, A, B, d, b);
    GrB_Descriptor gd = nullptr;
    OPS_GRB(GrB_Descriptor_new(&gd));
    if (ta) OPS_GRB(GrB_Descriptor_set(gd, GrB_INP0, GrB_TRAN));
    if (tb) OPS_GRB(GrB_Descriptor_set(gd, GrB_INP1, GrB_TRAN));
    const GMat ga = grb_matrix(ca), gbm = grb_matrix(cb);
    GMat want = grb_empty_matrix<typename S::value_type>(n, m);
    OPS_GRB(GrB_mxm(want.m, nullptr, nullptr, gs, ga.m, gbm.m, gd));
    GrB_Descriptor_free(&gd);
    EXPECT_EQ(entries_of(C), entries_of<typename S::value_type>(want.m));
    EXPECT_EQ(C.nrows(), n);
    EXPECT_EQ(C.ncols(), m);
  }
  Matrix<typename S::value_type> C;
  const Matrix<T> A = gb_matrix(random_matrix<T>(rng, n, k, 2.0)), W = gb_matrix(random_matrix<T>(rng, k + 1, m, 2.0));
  EXPECT_THROW(gbcuda::mxm(C, gbcuda::no_mask, gbcuda::no_accum, s, A, W, {}, b), gbcuda::Error);
}

TEST_P(MatrixOps, UnmaskedMxmMatchesGraphBLAS) {
  check_unmasked_mxm<double>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, "plus-times double");
  check_unmasked_mxm<float>(b(), gbcuda::PlusTimes<float>{}, GrB_PLUS_TIMES_SEMIRING_FP32, "plus-times float");
  check_unmasked_mxm<std::int64_t>(b(), gbcuda::MinPlus<std::int64_t>{}, GrB_MIN_PLUS_SEMIRING_INT64, "min-plus int64");
  check_unmasked_mxm<bool>(b(), gbcuda::LorLand<bool>{}, GrB_LOR_LAND_SEMIRING_BOOL, "lor-land bool");
  check_unmasked_mxm<std::int32_t>(b(), gbcuda::MaxFirst<std::int32_t>{}, GxB_MAX_FIRST_INT32, "max-first int32");
}

#if GBCUDA_HAVE_CUDA
// PlusTimes over float and double is cuSPARSE's SpGEMM on the GPU: no host copies, the same
// entries as GraphBLAS, each row's columns ascending (the library's CSR invariant); an operand
// with no entries and a pattern operand (no values for cuSPARSE: host copies) too.
template <class T>
void check_library_mxm(GrB_Semiring gs) {
  Rng rng(73);
  const Index n = 700, k = 650, m = 600;
  Coo<T> ca = random_matrix<T>(rng, n, k, 8.0);
  for (Index j = 0; j < k; ++j) {  // a hub row of A
    ca.rows.push_back(3);
    ca.cols.push_back(j);
    ca.vals.push_back(random_value<T>(rng));
  }
  const Coo<T> cb = random_matrix<T>(rng, k, m, 8.0);
  const Matrix<T> A = gb_matrix(ca), B = gb_matrix(cb);
  const GMat ga = grb_matrix(ca), gbm = grb_matrix(cb);
  GMat want = grb_empty_matrix<T>(n, m);
  OPS_GRB(GrB_mxm(want.m, nullptr, nullptr, gs, ga.m, gbm.m, nullptr));
  const std::uint64_t calls = gbcuda::detail::cuda::library_calls(), fallbacks = gbcuda::host_fallbacks();
  Matrix<T> C;
  gbcuda::mxm(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, B, {}, Backend::Cuda);
  EXPECT_EQ(gbcuda::detail::cuda::library_calls(), calls + 1);
  EXPECT_EQ(gbcuda::host_fallbacks(), fallbacks) << "the GPU mxm ran on host copies";
  EXPECT_EQ(entries_of(C), entries_of<T>(want.m));
  const auto& c = C.csr(Backend::Host);
  for (Index i = 0; i < c.nrows; ++i)
    for (gbcuda::Offset p = c.row_ptr.data()[i] + 1; p < c.row_ptr.data()[i + 1]; ++p)
      ASSERT_LT(c.col_idx.data()[p - 1], c.col_idx.data()[p]) << "row " << i << " not ascending";
  // An operand without entries: C has none, of the right shape.
  const Matrix<T> E = Matrix<T>::from_coo(k, m, std::vector<Index>{}, std::vector<Index>{}, std::span<const T>{});
  Matrix<T> Z;
  gbcuda::mxm(Z, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, E, {}, Backend::Cuda);
  EXPECT_EQ(Z.nrows(), n);
  EXPECT_EQ(Z.ncols(), m);
  EXPECT_EQ(Z.nvals(), 0);
  // A pattern operand: host copies, counted.
  Coo<T> pattern = cb;
  pattern.vals.clear();
  const std::uint64_t before = gbcuda::host_fallbacks();
  gbcuda::mxm(Z, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<T>{}, A, gb_matrix(pattern), {}, Backend::Cuda);
  EXPECT_EQ(gbcuda::host_fallbacks(), before + 1);
}

TEST(MatrixOpsGpu, ArithmeticMxmIsCusparseSpGEMM) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the check is about the GPU backend";
  check_library_mxm<double>(GrB_PLUS_TIMES_SEMIRING_FP64);
  check_library_mxm<float>(GrB_PLUS_TIMES_SEMIRING_FP32);
}
#endif

// select with a user-defined index-unary predicate (a lambda of value, i, j and thunk): the
// entries it keeps, for a matrix and for a vector (j = 0), computed here from the entries.
TEST_P(MatrixOps, SelectWithAUserPredicate) {
  Rng rng(67);
  const Matrix<double> A = gb_matrix(random_matrix<double>(rng, 80, 60, 5.0));
  auto pred = [](double x, Index i, Index j, double thunk) { return (i + j) % 3 == 0 || x > thunk; };
  Matrix<double> C;
  gbcuda::select(C, gbcuda::no_mask, gbcuda::no_accum, pred, A, 0.5, b());
  Entries<double> want;
  for (const auto& [ij, x] : entries_of(A))
    if (pred(x, ij.first, ij.second, 0.5)) want[ij] = x;
  EXPECT_EQ(entries_of(C), want);
  ASSERT_LT(want.size(), entries_of(A).size());  // some entries go
  if (b() == Backend::Cuda) {
    EXPECT_GT(C.device_bytes(), 0u);
  }

  const Tuples<double> t = random_tuples<double>(rng, 200, 0.4);
  const gbcuda::Vector<double> u = gb_vector(t, b());
  gbcuda::Vector<double> w(200, b());
  gbcuda::select(w, gbcuda::no_mask, gbcuda::no_accum, pred, u, 0.5);
  std::vector<Index> wi;
  std::vector<double> wx;
  w.extract_tuples(wi, wx);
  std::vector<Index> ei;
  std::vector<double> ex;
  for (std::size_t e = 0; e < t.idx.size(); ++e)
    if (pred(t.vals[e], t.idx[e], 0, 0.5)) {
      ei.push_back(t.idx[e]);
      ex.push_back(t.vals[e]);
    }
  EXPECT_EQ(wi, ei);
  EXPECT_EQ(wx, ex);
  EXPECT_EQ(w.backend(), b());
}

// resize against GrB_Matrix_resize and GrB_Vector_resize: smaller, larger, one size each way, to
// nothing; a pattern matrix and one with a row of thousands too. The matrix resize runs in its
// backend (no host fallback).
TEST_P(MatrixOps, ResizeMatchesGraphBLAS) {
  Rng rng(73);
  const Coo<double> coo = random_matrix<double>(rng, 30, 25, 4.0);
  Coo<double> wide = random_matrix<double>(rng, 40, 6000, 3.0);
  for (Index j = 0; j < 6000; j += 2) {  // row 7 holds every even column
    wide.rows.push_back(7);
    wide.cols.push_back(j);
    wide.vals.push_back(double(j));
  }
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (auto [r, c] : {std::pair<Index, Index>{20, 10}, {40, 30}, {12, 35}, {30, 25}, {0, 5}, {5, 0}}) {
    SCOPED_TRACE(std::to_string(r) + " x " + std::to_string(c));
    Matrix<double> A = gb_matrix(coo);
    gbcuda::resize(A, r, c, b());
    GMat g = grb_matrix(coo);
    OPS_GRB(GrB_Matrix_resize(g.m, GrB_Index(r), GrB_Index(c)));
    EXPECT_EQ(A.nrows(), r);
    EXPECT_EQ(A.ncols(), c);
    EXPECT_EQ(entries_of(A), entries_of<double>(g.m));
    Coo<double> pattern = coo;
    pattern.vals.clear();
    Matrix<double> P = gb_matrix(pattern);
    gbcuda::resize(P, r, c, b());
    GMat gp = grb_matrix(pattern);
    OPS_GRB(GrB_Matrix_resize(gp.m, GrB_Index(r), GrB_Index(c)));
    EXPECT_EQ(P.ncols(), c);
    EXPECT_EQ(entries_of(P), entries_of<double>(gp.m));
  }
  for (auto [r, c] : {std::pair<Index, Index>{8, 3001}, {50, 5999}, {7, 6000}}) {
    SCOPED_TRACE("wide " + std::to_string(r) + " x " + std::to_string(c));
    Matrix<double> A = gb_matrix(wide);
    gbcuda::resize(A, r, c, b());
    GMat g = grb_matrix(wide);
    OPS_GRB(GrB_Matrix_resize(g.m, GrB_Index(r), GrB_Index(c)));
    EXPECT_EQ(entries_of(A), entries_of<double>(g.m));
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "the matrix resize ran on host copies";
  for (double density : {0.02, 0.5, 1.0}) {  // sparse, bitmap and full vectors
    const Tuples<double> t = random_tuples<double>(rng, 500, density);
    for (Index n : {Index(0), Index(200), Index(499), Index(500), Index(800)}) {
      SCOPED_TRACE(testing::Message() << "vector of density " << density << " to " << n);
      gbcuda::Vector<double> u = gb_vector(t, b());
      gbcuda::resize(u, n);
      EXPECT_EQ(u.size(), n);
      EXPECT_EQ(u.backend(), b());
      GVec g = grb_vector(t);
      OPS_GRB(GrB_Vector_resize(g.v, GrB_Index(n)));
      const Tuples<double> got = tuples_of(u), want = tuples_of<double>(g.v);
      EXPECT_EQ(got.idx, want.idx);
      EXPECT_EQ(got.vals, want.vals);
      EXPECT_EQ(u.nvals(), Index(want.idx.size()));
    }
  }
  gbcuda::Vector<double> u(4, b());
  EXPECT_THROW(gbcuda::resize(u, -1), gbcuda::Error);
  Matrix<double> A = gb_matrix(coo);
  EXPECT_THROW(gbcuda::resize(A, -1, 3, b()), gbcuda::Error);
}

// A(i, j) against GrB_Matrix_extractElement everywhere in a small matrix; outside is an error.
TEST_P(MatrixOps, ElementMatchesGraphBLAS) {
  Rng rng(79);
  const Coo<std::int32_t> coo = random_matrix<std::int32_t>(rng, 15, 12, 4.0);
  Matrix<std::int32_t> A = gb_matrix(coo);
  A.csr(b());
  if (b() == Backend::Cuda) A.release(Backend::Host);  // read back from the GPU copy
  const GMat g = grb_matrix(coo);
  Index found = 0;
  for (Index i = 0; i < 15; ++i)
    for (Index j = 0; j < 12; ++j) {
      std::int32_t x = 0;
      const GrB_Info info = GrB_Matrix_extractElement_INT32(&x, g.m, GrB_Index(i), GrB_Index(j));
      const std::optional<std::int32_t> got = A.element(i, j);
      ASSERT_EQ(got.has_value(), info == GrB_SUCCESS) << i << ", " << j;
      if (got) {
        EXPECT_EQ(*got, x);
        ++found;
      }
    }
  EXPECT_EQ(found, A.nvals());
  EXPECT_THROW((void)A.element(15, 0), gbcuda::Error);
  EXPECT_THROW((void)A.element(0, -1), gbcuda::Error);
  EXPECT_EQ(gbtest::path_graph(4, true).element(1, 2), std::optional<bool>(true));  // iso
}

// C = A(I, J) against GrB_Matrix_extract: unsorted index lists with repeats, from A and from A'.
TEST_P(MatrixOps, ExtractMatchesGraphBLAS) {
  Rng rng(47);
  const Coo<std::int64_t> ca = random_matrix<std::int64_t>(rng, 50, 40, 6.0);
  const Matrix<std::int64_t> A = gb_matrix(ca);
  const GMat ga = grb_matrix(ca);
  std::uniform_int_distribution<Index> row(0, 49), col(0, 39);
  for (bool t : {false, true}) {
    SCOPED_TRACE(t ? "from A'" : "from A");
    std::vector<Index> I, J;  // from A': rows of A' are columns of A
    for (int k = 0; k < 30; ++k) I.push_back(t ? col(rng) : row(rng));
    for (int k = 0; k < 25; ++k) J.push_back(t ? row(rng) : col(rng));
    I.push_back(I[3]);  // repeats
    J.push_back(J[0]);
    gbcuda::Descriptor d;
    d.transpose_a = t;
    Matrix<std::int64_t> C;
    gbcuda::extract(C, gbcuda::no_mask, gbcuda::no_accum, A, I, J, d, b());
    EXPECT_EQ(C.nrows(), Index(I.size()));
    EXPECT_EQ(C.ncols(), Index(J.size()));
    GMat want = grb_empty_matrix<std::int64_t>(Index(I.size()), Index(J.size()));
    const std::vector<GrB_Index> gi(I.begin(), I.end()), gj(J.begin(), J.end());
    OPS_GRB(GrB_Matrix_extract(want.m, nullptr, nullptr, ga.m, gi.data(), gi.size(), gj.data(), gj.size(),
                               t ? GrB_DESC_T0 : nullptr));
    EXPECT_EQ(entries_of(C), entries_of<std::int64_t>(want.m));
  }
  Matrix<std::int64_t> C;
  const std::vector<Index> bad = {50}, ok = {0};
  EXPECT_THROW(gbcuda::extract(C, gbcuda::no_mask, gbcuda::no_accum, A, bad, ok, {}, b()), gbcuda::Error);
  EXPECT_THROW(gbcuda::extract(C, gbcuda::no_mask, gbcuda::no_accum, A, ok, std::vector<Index>{40}, {}, b()),
               gbcuda::Error);
}

// C = A(I, J) on a skewed matrix (a row of every third column beside empty rows) and a pattern
// one, against GraphBLAS: ascending lists (the columns come out in order), descending ones with
// repeats (each row sorted afterwards), a long row listed again and again, empty lists; on the
// GPU all of it stays there.
TEST_P(MatrixOps, ExtractOfSkewedAndPatternMatricesMatchesGraphBLAS) {
  using T = std::int64_t;
  Rng rng(59);
  const Index n = 70, m = 5000;
  for (bool pattern : {false, true}) {
    Coo<T> ca = random_matrix<T>(rng, n, m, 5.0, pattern);
    for (Index j = 1; j < m; j += 3) {
      ca.rows.push_back(11);
      ca.cols.push_back(j);
      if (!pattern) ca.vals.push_back(random_value<T>(rng));
    }
    const Matrix<T> A = gb_matrix(ca);
    const GMat ga = grb_matrix(ca);
    std::vector<Index> all_rows(static_cast<std::size_t>(n)), all_cols(static_cast<std::size_t>(m));
    for (Index i = 0; i < n; ++i) all_rows[std::size_t(i)] = i;
    for (Index j = 0; j < m; ++j) all_cols[std::size_t(j)] = j;
    std::vector<Index> down, repeats, hub_rows, some_cols;
    for (Index j = m - 1; j >= 0; j -= 2) down.push_back(j), down.push_back(j);
    for (Index j = 0; j < m; j += 7) repeats.insert(repeats.end(), {j, j, j});
    for (int k = 0; k < 20; ++k)
      hub_rows.push_back(k % 3 == 0 ? 11 : std::uniform_int_distribution<Index>(0, n - 1)(rng));
    for (int k = 0; k < 900; ++k) some_cols.push_back(std::uniform_int_distribution<Index>(0, m - 1)(rng));
    const std::vector<Index> none;
    const std::vector<std::tuple<const std::vector<Index>*, const std::vector<Index>*, const char*>> lists = {
        {&all_rows, &all_cols, "every row and column"},
        {&all_rows, &down, "columns descending, twice each"},
        {&hub_rows, &repeats, "columns ascending, thrice each"},
        {&hub_rows, &some_cols, "random columns"},
        {&none, &some_cols, "no rows"},
        {&hub_rows, &none, "no columns"}};
    const std::uint64_t before = gbcuda::host_fallbacks();
    for (const auto& [I, J, what] : lists) {
      SCOPED_TRACE(std::string(what) + (pattern ? ", pattern" : ""));
      Matrix<T> C;
      gbcuda::extract(C, gbcuda::no_mask, gbcuda::no_accum, A, *I, *J, {}, b());
      ASSERT_EQ(C.nrows(), Index(I->size()));
      ASSERT_EQ(C.ncols(), Index(J->size()));
      GMat want = grb_empty_matrix<T>(Index(I->size()), Index(J->size()));
      std::vector<GrB_Index> gi(I->begin(), I->end()), gj(J->begin(), J->end());
      gi.reserve(1);  // GraphBLAS rejects null arrays even for empty lists
      gj.reserve(1);
      OPS_GRB(GrB_Matrix_extract(want.m, nullptr, nullptr, ga.m, gi.data(), gi.size(), gj.data(), gj.size(), nullptr));
      EXPECT_EQ(entries_of(C), entries_of<T>(want.m));
      const auto& c = C.csr(Backend::Host);
      for (Index i = 0; i < c.nrows; ++i)
        for (gbcuda::Offset p = c.row_ptr.data()[i] + 1; p < c.row_ptr.data()[i + 1]; ++p)
          ASSERT_LT(c.col_idx.data()[p - 1], c.col_idx.data()[p]) << "row " << i << " not ascending";
    }
    EXPECT_EQ(gbcuda::host_fallbacks(), before) << "extract ran on host copies";
  }
}

// C = kron(A, B) against GrB_Matrix_kronecker_BinaryOp, a pattern input among them.
TEST_P(MatrixOps, KroneckerMatchesGraphBLAS) {
  Rng rng(53);
  const Coo<double> ca = random_matrix<double>(rng, 7, 5, 2.0), cb = random_matrix<double>(rng, 4, 6, 2.5);
  const Coo<double> cp = random_matrix<double>(rng, 3, 3, 1.5, true);
  Coo<double> ce;  // no entries
  ce.nrows = 2;
  ce.ncols = 3;
  const std::pair<const Coo<double>*, const Coo<double>*> pairs[] = {
      {&ca, &cb}, {&cb, &cp}, {&cp, &ca}, {&ce, &ca}, {&cb, &ce}};
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (const auto& [x, y] : pairs) {
    Matrix<double> C;
    gbcuda::kronecker(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Times<double>{}, gb_matrix(*x), gb_matrix(*y), b());
    GMat want = grb_empty_matrix<double>(x->nrows * y->nrows, x->ncols * y->ncols);
    const GMat gx = grb_matrix(*x), gy = grb_matrix(*y);
    OPS_GRB(GrB_Matrix_kronecker_BinaryOp(want.m, nullptr, nullptr, GrB_TIMES_FP64, gx.m, gy.m, nullptr));
    EXPECT_EQ(entries_of(C), entries_of<double>(want.m));
    EXPECT_EQ(C.nrows(), x->nrows * y->nrows);
    EXPECT_EQ(C.ncols(), x->ncols * y->ncols);
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in operator's kronecker ran on host copies";
}

// C = diag(v, k) against GrB_Matrix_diag, above, on and below the diagonal, for a vector in host
// memory and one in the backend's, sparse, bitmap or dense, with no entries or all; in the
// backend (no host fallback).
TEST_P(MatrixOps, DiagMatchesGraphBLAS) {
  Rng rng(59);
  const std::uint64_t before = gbcuda::host_fallbacks();
  for (double density : {0.5, 0.0, 1.0}) {
    const Tuples<double> t = random_tuples<double>(rng, 20, density);
    const GVec gv = grb_vector(t);
    for (Index k : {Index(0), Index(3), Index(-4)}) {
      for (gbcuda::VectorForm form :
           {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap, gbcuda::VectorForm::Dense}) {
        if (form == gbcuda::VectorForm::Dense && density < 1.0) continue;
        SCOPED_TRACE(testing::Message() << "density " << density << ", k " << k << ", form " << int(form));
        Matrix<double> C;
        gbcuda::Vector<double> v = gb_vector(t, form == gbcuda::VectorForm::Sparse ? Backend::Host : b());
        v.to_form(form);
        gbcuda::diag(C, v, k, b());
        const Index n = 20 + (k < 0 ? -k : k);
        EXPECT_EQ(C.nrows(), n);
        EXPECT_EQ(C.ncols(), n);
        GMat want;  // GrB_Matrix_diag makes the matrix
        OPS_GRB(GrB_Matrix_diag(&want.m, gv.v, k));
        EXPECT_EQ(entries_of(C), entries_of<double>(want.m));
      }
    }
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "diag ran on host copies";
}

// Building with each duplicate policy gives GrB_Matrix_build's result with the matching `dup`
// operator, the duplicates combined in input order (FIRST and SECOND tell). Many repeats of few
// coordinates, in both directions, every type; the build runs on the host, the matrix is then
// read back from the backend.
template <class T>
void check_build_duplicates(Backend b) {
  using gbcuda::DuplicatePolicy;
  Rng rng(31);
  Coo<T> coo;
  coo.nrows = 17;
  coo.ncols = 13;
  std::uniform_int_distribution<Index> row(0, 16), col(0, 12);
  for (int k = 0; k < 600; ++k) {  // about 2.7 entries a coordinate
    coo.rows.push_back(row(rng));
    coo.cols.push_back(col(rng));
    coo.vals.push_back(random_value<T>(rng));
  }
  const std::pair<DuplicatePolicy, GrB_BinaryOp> cases[] = {
      {DuplicatePolicy::Sum, std::is_same_v<T, bool> ? GrB_LOR : Grb<T>::plus()},
      {DuplicatePolicy::Last, Grb<T>::second()},
      {DuplicatePolicy::First, Grb<T>::first()},
      {DuplicatePolicy::Min, Grb<T>::min()},
      {DuplicatePolicy::Max, Grb<T>::max()},
      {DuplicatePolicy::Times, Grb<T>::times()}};
  for (const auto& [policy, op] : cases) {
    SCOPED_TRACE(int(policy));
    Matrix<T> A = Matrix<T>::from_coo(coo.nrows, coo.ncols, coo.rows, coo.cols,
                                      std::span<const T>(raw(coo.vals).get(), coo.vals.size()), policy);
    A.csr(b);
    if (b == Backend::Cuda) A.release(Backend::Host);
    GMat g;
    OPS_GRB(GrB_Matrix_new(&g.m, Grb<T>::type(), GrB_Index(coo.nrows), GrB_Index(coo.ncols)));
    std::vector<GrB_Index> i(coo.rows.begin(), coo.rows.end()), j(coo.cols.begin(), coo.cols.end());
    auto x = raw(coo.vals);
    OPS_GRB(Grb<T>::mbuild(g.m, i.data(), j.data(), x.get(), GrB_Index(i.size()), op));
    EXPECT_EQ(entries_of(A), entries_of<T>(g.m));
    // A vector from the rows as indices, against GrB_Vector_build.
    const gbcuda::Vector<T> u = gbcuda::Vector<T>::from_tuples(coo.nrows, coo.rows, coo.vals, b, policy);
    GVec gv;
    OPS_GRB(GrB_Vector_new(&gv.v, Grb<T>::type(), GrB_Index(coo.nrows)));
    OPS_GRB(Grb<T>::vbuild(gv.v, i.data(), x.get(), GrB_Index(i.size()), op));
    std::vector<Index> ui;
    std::vector<T> ux;
    u.extract_tuples(ui, ux);
    GrB_Index nv = 0;
    OPS_GRB(GrB_Vector_nvals(&nv, gv.v));
    std::vector<GrB_Index> gi(nv + 1);
    std::unique_ptr<T[]> gx(new T[nv + 1]);
    OPS_GRB(Grb<T>::vextract(gi.data(), gx.get(), &nv, gv.v));
    ASSERT_EQ(ui.size(), std::size_t(nv));
    for (std::size_t e = 0; e < ui.size(); ++e) {
      EXPECT_EQ(ui[e], Index(gi[e]));
      EXPECT_EQ(ux[e], gx[e]) << "vector entry " << ui[e];
    }
  }
  EXPECT_THROW(gbcuda::Vector<T>::from_tuples(coo.nrows, coo.rows, coo.vals, b, DuplicatePolicy::Error), gbcuda::Error);
  EXPECT_THROW(Matrix<T>::from_coo(coo.nrows, coo.ncols, coo.rows, coo.cols,
                                   std::span<const T>(raw(coo.vals).get(), coo.vals.size()), DuplicatePolicy::Error),
               gbcuda::Error);
}

// build_matrix / build_vector with a duplicate operator of the caller's: x - y, which depends on
// the order the duplicates are combined in, against GraphBLAS's build with MINUS; bool with a
// lambda of its own (x != y) against a count's parity; bad lengths, indices and a throwing dup.
template <class T>
void check_user_duplicates(Backend b) {
  Rng rng(37);
  Coo<T> coo;
  coo.nrows = 17;
  coo.ncols = 13;
  std::uniform_int_distribution<Index> row(0, 16), col(0, 12);
  for (int k = 0; k < 600; ++k) {
    coo.rows.push_back(row(rng));
    coo.cols.push_back(col(rng));
    coo.vals.push_back(random_value<T>(rng));
  }
  const auto minus = [](T x, T y) { return T(x - y); };
  const auto x = raw(coo.vals);
  const std::span<const T> vals(x.get(), coo.vals.size());
  const Matrix<T> A = gbcuda::build_matrix<T>(coo.nrows, coo.ncols, coo.rows, coo.cols, vals, minus, b);
  EXPECT_EQ(A.csr(b).where(), b);
  GMat g;
  OPS_GRB(GrB_Matrix_new(&g.m, Grb<T>::type(), GrB_Index(coo.nrows), GrB_Index(coo.ncols)));
  std::vector<GrB_Index> i(coo.rows.begin(), coo.rows.end()), j(coo.cols.begin(), coo.cols.end());
  const GrB_BinaryOp gminus = std::is_same_v<T, float> ? GrB_MINUS_FP32 : GrB_MINUS_FP64;
  OPS_GRB(Grb<T>::mbuild(g.m, i.data(), j.data(), x.get(), GrB_Index(i.size()), gminus));
  EXPECT_EQ(entries_of(A), entries_of<T>(g.m));
  const gbcuda::Vector<T> u = gbcuda::build_vector<T>(coo.nrows, coo.rows, vals, minus, b);
  EXPECT_EQ(u.backend(), b);
  GVec gv;
  OPS_GRB(GrB_Vector_new(&gv.v, Grb<T>::type(), GrB_Index(coo.nrows)));
  OPS_GRB(Grb<T>::vbuild(gv.v, i.data(), x.get(), GrB_Index(i.size()), gminus));
  EXPECT_TRUE(same_vector(tuples_of(u), tuples_of<T>(gv.v), Check::Exact));
  // Errors: lengths, an index outside, and what dup throws.
  const std::vector<Index> short_cols(coo.cols.begin(), coo.cols.end() - 1);
  EXPECT_THROW(gbcuda::build_matrix<T>(coo.nrows, coo.ncols, coo.rows, short_cols, vals, minus), gbcuda::Error);
  std::vector<Index> outside = coo.rows;
  outside[5] = coo.nrows;
  try {
    (void)gbcuda::build_matrix<T>(coo.nrows, coo.ncols, outside, coo.cols, vals, minus);
    ADD_FAILURE() << "an index outside the matrix was taken";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex);
    EXPECT_NE(std::string(e.what()).find("entry 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gbcuda::build_vector<T>(coo.nrows, outside, vals, minus), gbcuda::Error);
  const auto throws = [](T, T) -> T { throw std::runtime_error("dup refused"); };
  EXPECT_THROW(gbcuda::build_vector<T>(coo.nrows, coo.rows, vals, throws), std::runtime_error);
}

TEST_P(MatrixOps, BuildWithAUserDuplicateOperatorMatchesGraphBLAS) {
  check_user_duplicates<float>(b());
  check_user_duplicates<double>(b());
  // bool: x != y folds a group to the parity of its true values.
  const std::vector<Index> idx = {3, 1, 3, 3, 1, 7};
  const std::unique_ptr<bool[]> v(new bool[6]{true, true, true, false, true, true});
  const auto x_or = [](bool x, bool y) { return x != y; };
  const gbcuda::Vector<bool> u = gbcuda::build_vector<bool>(8, idx, std::span<const bool>(v.get(), 6), x_or, b());
  EXPECT_EQ(u.to_dense_vector(false), (std::vector<bool>{false, false, false, false, false, false, false, true}));
  const Matrix<bool> M = gbcuda::build_matrix<bool>(8, 8, idx, idx, std::span<const bool>(v.get(), 6), x_or, b());
  EXPECT_EQ(M.nvals(), 3);
  EXPECT_EQ(M.element(1, 1), std::optional<bool>(false));
  EXPECT_EQ(M.element(3, 3), std::optional<bool>(false));
  EXPECT_EQ(M.element(7, 7), std::optional<bool>(true));
}

TEST_P(MatrixOps, BuildWithEveryDuplicatePolicyMatchesGraphBLAS) {
  check_build_duplicates<bool>(b());
  check_build_duplicates<std::int32_t>(b());
  check_build_duplicates<std::int64_t>(b());
  check_build_duplicates<float>(b());
  check_build_duplicates<double>(b());
}

// set_element / remove_element against GrB_Matrix_setElement / removeElement: batches of changes
// (values replaced, entries added, entries removed, absent ones "removed") on a matrix that lives
// on the backend (on the GPU only, for Cuda), element() read between changes, then every entry,
// the transpose and a product on the backend checked after each batch; a copy made before the
// changes keeps the old entries (copy on write).
TEST_P(MatrixOps, SetAndRemoveElementsMatchGraphBLAS) {
  Rng rng(61);
  const Index nr = 120, nc = 90;
  const Coo<double> coo = random_matrix<double>(rng, nr, nc, 4.0);
  Matrix<double> A = gb_matrix(coo);
  if (b() == Backend::Cuda) {
    A.csr(Backend::Cuda);
    A.release(Backend::Host);  // on the GPU only: the changes start from a copy down
  }
  const Matrix<double> before = A;
  const auto original = entries_of(before);
  const GMat gA = grb_matrix(coo);
  auto want = original;
  std::uniform_int_distribution<Index> row(0, nr - 1), col(0, nc - 1), kind(0, 3);
  for (int batch = 0; batch < 4; ++batch) {
    for (int k = 0; k < 150; ++k) {
      Index i = row(rng), j = col(rng);
      const Index what = kind(rng);
      if (what <= 1 && !want.empty()) {  // an existing entry: replaced or removed
        auto it = want.begin();
        std::advance(it, std::uniform_int_distribution<std::size_t>(0, want.size() - 1)(rng));
        std::tie(i, j) = it->first;
      }
      if (what == 1 || what == 3) {
        A.remove_element(i, j);
        OPS_GRB(GrB_Matrix_removeElement(gA.m, GrB_Index(i), GrB_Index(j)));
        want.erase({i, j});
      } else {
        const double x = random_value<double>(rng);
        A.set_element(i, j, x);
        OPS_GRB(GrB_Matrix_setElement_FP64(gA.m, x, GrB_Index(i), GrB_Index(j)));
        want[{i, j}] = x;
      }
      if (k % 37 == 0) {  // read while changes are pending
        const auto at = want.find({i, j});
        EXPECT_EQ(A.element(i, j), at == want.end() ? std::nullopt : std::optional<double>(at->second));
      }
    }
    EXPECT_GT(A.pending_changes(), 0);
    EXPECT_EQ(A.nvals(), Index(want.size()));
    EXPECT_EQ(A.pending_changes(), 0);
    EXPECT_EQ(entries_of(A), entries_of<double>(gA.m)) << "batch " << batch;
    GMat gAt = grb_empty_matrix<double>(nc, nr);
    OPS_GRB(GrB_transpose(gAt.m, nullptr, nullptr, gA.m, nullptr));
    EXPECT_EQ(entries_of(A.transpose()), entries_of<double>(gAt.m)) << "batch " << batch;
    const Tuples<double> t = random_tuples<double>(rng, nc, 0.7);
    gbcuda::Vector<double> w(nr, b());
    gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, gb_vector(t, b()));
    const GVec gu = grb_vector(t);
    GVec gw = grb_empty_vector<double>(nr);
    OPS_GRB(GrB_mxv(gw.v, GrB_NULL, GrB_NULL, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gu.v, GrB_NULL));
    EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<double>(gw.v), Check::Near, 1e-12)) << "batch " << batch;
  }
  EXPECT_EQ(entries_of(before), original) << "a copy made before the changes";
  Matrix<double> later = A;
  later.set_element(0, 0, 1234.5);
  EXPECT_EQ(A.element(0, 0), want.count({0, 0}) ? std::optional<double>(want[{0, 0}]) : std::nullopt);
  EXPECT_EQ(later.element(0, 0), std::optional<double>(1234.5));
}

// A pattern stays iso while every value set is its value; another value stores them all. An
// empty matrix of a shape is filled by set_element; positions outside are errors.
TEST_P(MatrixOps, SetElementOnPatternAndEmptyMatrices) {
  std::vector<Index> r{0, 1, 2}, c{1, 2, 0};
  Matrix<double> P = Matrix<double>::from_coo(3, 3, r, c);
  P.set_element(2, 2, 1.0);
  EXPECT_TRUE(P.is_iso());
  EXPECT_EQ(P.nvals(), 4);
  P.set_element(0, 0, -2.0);
  P.remove_element(1, 2);
  P.remove_element(1, 1);  // absent: nothing happens
  EXPECT_FALSE(P.is_iso());
  EXPECT_EQ(entries_of(P), (Entries<double>{{{0, 0}, -2.0}, {{0, 1}, 1.0}, {{2, 0}, 1.0}, {{2, 2}, 1.0}}));
  Matrix<bool> E(4, 6);
  EXPECT_EQ(E.nrows(), 4);
  EXPECT_EQ(E.ncols(), 6);
  EXPECT_EQ(E.nvals(), 0);
  E.set_element(3, 5, true);
  E.set_element(0, 2, false);
  if (b() == Backend::Cuda) E.csr(Backend::Cuda);
  EXPECT_EQ(entries_of(E), (Entries<bool>{{{0, 2}, false}, {{3, 5}, true}}));
  for (auto [i, j] : {std::pair<Index, Index>{-1, 0}, {4, 0}, {0, 6}}) {
    try {
      E.set_element(i, j, true);
      ADD_FAILURE() << "set_element(" << i << ", " << j << ") did not throw";
    } catch (const gbcuda::Error& e) {
      EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex);
    }
    EXPECT_THROW(E.remove_element(i, j), gbcuda::Error);
  }
  EXPECT_THROW(Matrix<double>(-1, 2), gbcuda::Error);
}

// A matrix reduced into a Scalar (GrB_Matrix_reduce_Monoid_Scalar), a region assigned an empty
// Scalar (GrB_Matrix_assign_Scalar: its entries deleted where the mask allows) or a value, and a
// select's Scalar thunk, against GraphBLAS.
TEST_P(MatrixOps, ScalarsMatchGraphBLAS) {
  using gbcuda::Scalar;
  Rng rng(73);
  const Coo<double> coo = random_matrix<double>(rng, 40, 30, 5.0);
  const Matrix<double> A = gb_matrix(coo);
  for (bool accum : {false, true}) {
    for (const Matrix<double>& X : {A, Matrix<double>(40, 30)}) {
      Scalar<double> s(1.5);
      GScalar gs(s);
      if (accum) gbcuda::reduce(s, gbcuda::Max<double>{}, gbcuda::MaxMonoid<double>{}, X, b());
      else gbcuda::reduce(s, gbcuda::no_accum, gbcuda::MaxMonoid<double>{}, X, b());
      std::vector<Index> r, c;
      std::vector<double> x;
      gbcuda::extract_tuples(X, r, c, x);
      Coo<double> xc{40, 30, r, c, x};
      const GMat gX = grb_matrix(xc);
      OPS_GRB(
          GrB_Matrix_reduce_Monoid_Scalar(gs.s, accum ? GrB_MAX_FP64 : GrB_NULL, GrB_MAX_MONOID_FP64, gX.m, GrB_NULL));
      EXPECT_EQ(s, gs.value()) << "reduce, " << X.nvals() << " entries, accum " << accum;
      // By a binary operator (GrB_Matrix_reduce_BinaryOp_Scalar): PLUS, as PlusMonoid.
      Scalar<double> p(1.5);
      GScalar gp(p);
      if (accum) gbcuda::reduce(p, gbcuda::Times<double>{}, gbcuda::Plus<double>{}, X, b());
      else gbcuda::reduce(p, gbcuda::no_accum, gbcuda::Plus<double>{}, X, b());
      OPS_GRB(
          GrB_Matrix_reduce_BinaryOp_Scalar(gp.s, accum ? GrB_TIMES_FP64 : GrB_NULL, GrB_PLUS_FP64, gX.m, GrB_NULL));
      ASSERT_EQ(p.empty(), gp.value().empty());
      if (!p.empty()) {
        EXPECT_NEAR(*p.value(), *gp.value().value(), 1e-9) << "reduce by PLUS, " << X.nvals() << " entries";
      }
    }
  }
  const std::vector<Index> I{3, 0, 17, 39}, J{29, 4, 5};
  const std::vector<GrB_Index> gI(I.begin(), I.end()), gJ(J.begin(), J.end());
  for (const Scalar<double>& x : {Scalar<double>(), Scalar<double>(6.25)})
    for (bool accum : {false, true}) {
      Matrix<double> C = A;
      const GMat gC = grb_matrix(coo);
      GScalar gx(x);
      if (accum) gbcuda::assign(C, gbcuda::no_mask, gbcuda::Plus<double>{}, x, I, J, {}, b());
      else gbcuda::assign(C, gbcuda::no_mask, gbcuda::no_accum, x, I, J, {}, b());
      OPS_GRB(GrB_Matrix_assign_Scalar(gC.m, GrB_NULL, accum ? GrB_PLUS_FP64 : GrB_NULL, gx.s, gI.data(), gI.size(),
                                       gJ.data(), gJ.size(), GrB_NULL));
      EXPECT_EQ(entries_of(C), entries_of<double>(gC.m))
          << "assign " << (x.empty() ? "an empty scalar" : "6.25") << (accum ? " accum" : "");
    }
  Matrix<double> S, T;
  gbcuda::select(S, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, A, Scalar<double>(2.0), {}, b());
  gbcuda::select(T, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, A, 2.0, b());
  EXPECT_EQ(entries_of(S), entries_of(T));
  EXPECT_THROW(gbcuda::select(S, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, A, Scalar<double>(), {}, b()),
               gbcuda::Error);
  Matrix<double> M = A;
  M.set_element(1, 1, Scalar<double>(3.0));
  M.set_element(1, 1, Scalar<double>());
  EXPECT_FALSE(M.element(1, 1).has_value());
}

INSTANTIATE_TEST_SUITE_P(Backends, MatrixOps, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
