// Every operation of operations.hpp against SuiteSparse:GraphBLAS, on each backend: products
// (mxv/vxm) over several semirings with all mask / replace / accumulator / transpose / direction
// variants, scalar assign, apply, eWiseAdd / eWiseMult, reduce, and user-defined operators.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gbcuda/print.hpp"
#include "support/ops_ref.hpp"

namespace {

using namespace ops_ref;
using gbcuda::Descriptor;
using gbcuda::Direction;
using gbcuda::Vector;

const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new GraphBlasEnvironment);

// ---- user-defined operators, the same functions on both sides -------------------------------
double user_max(double a, double b) { return a < b ? b : a; }
double user_mul(double x, double y) { return x + 2.0 * y; }   // not commutative: catches swapped operands
double user_sub2(double x, double y) { return x - 2.0 * y; }  // for ewise
double user_unary(double x) { return 3.0 * x - 1.0; }
std::int64_t user_unary_i(std::int64_t x) { return 3 * x - 1; }

void grb_user_max(void* z, const void* x, const void* y) {
  *static_cast<double*>(z) = user_max(*static_cast<const double*>(x), *static_cast<const double*>(y));
}
void grb_user_mul(void* z, const void* x, const void* y) {
  *static_cast<double*>(z) = user_mul(*static_cast<const double*>(x), *static_cast<const double*>(y));
}
void grb_user_sub2(void* z, const void* x, const void* y) {
  *static_cast<double*>(z) = user_sub2(*static_cast<const double*>(x), *static_cast<const double*>(y));
}
void grb_user_unary(void* z, const void* x) { *static_cast<double*>(z) = user_unary(*static_cast<const double*>(x)); }
void grb_user_unary_i(void* z, const void* x) {
  *static_cast<std::int64_t*>(z) = user_unary_i(*static_cast<const std::int64_t*>(x));
}

// GraphBLAS objects for the user operators (created once, after GrB_init).
struct GrbUserOps {
  GrB_BinaryOp max = nullptr, mul = nullptr, sub2 = nullptr;
  GrB_UnaryOp unary = nullptr, unary_i = nullptr;
  GrB_Monoid max_monoid = nullptr;
  GrB_Semiring semiring = nullptr;
  GrbUserOps() {
    OPS_GRB(GrB_BinaryOp_new(&max, grb_user_max, GrB_FP64, GrB_FP64, GrB_FP64));
    OPS_GRB(GrB_BinaryOp_new(&mul, grb_user_mul, GrB_FP64, GrB_FP64, GrB_FP64));
    OPS_GRB(GrB_BinaryOp_new(&sub2, grb_user_sub2, GrB_FP64, GrB_FP64, GrB_FP64));
    OPS_GRB(GrB_UnaryOp_new(&unary, grb_user_unary, GrB_FP64, GrB_FP64));
    OPS_GRB(GrB_UnaryOp_new(&unary_i, grb_user_unary_i, GrB_INT64, GrB_INT64));
    OPS_GRB(GrB_Monoid_new_FP64(&max_monoid, max, -std::numeric_limits<double>::infinity()));
    OPS_GRB(GrB_Semiring_new(&semiring, max_monoid, mul));
  }
};
const GrbUserOps& grb_user_ops() {
  static GrbUserOps ops;
  return ops;
}

// ---- mask / accumulator / descriptor variants -----------------------------------------------
struct MaskCase {
  bool has = false, complement = false, structural = false, replace = false;
  std::string str() const {
    std::string s = has ? (structural ? "struct-mask" : "value-mask") : "no-mask";
    if (complement) s += " complemented";
    if (replace) s += " replace";
    return s;
  }
};
std::vector<MaskCase> all_mask_cases() {
  std::vector<MaskCase> v;
  for (bool replace : {false, true}) {
    for (bool comp : {false, true}) v.push_back({false, comp, false, replace});
    for (bool structural : {false, true})
      for (bool comp : {false, true}) v.push_back({true, comp, structural, replace});
  }
  return v;
}
const char* accum_name(int a) { return a == 0 ? "no-accum" : a == 1 ? "accum-plus" : "accum-min"; }
const char* dir_name(Direction d) { return d == Direction::Auto ? "auto" : d == Direction::Push ? "push" : "pull"; }

// Does the (normalised) mask allow writing w(i)? The reference for checks GraphBLAS cannot do.
bool mask_allows(const MaskCase& mc, const Tuples<double>& mask, Index i) {
  if (!mc.has) return !mc.complement;
  auto it = std::lower_bound(mask.idx.begin(), mask.idx.end(), i);
  bool on = it != mask.idx.end() && *it == i && (mc.structural || mask.vals[std::size_t(it - mask.idx.begin())] != 0.0);
  return on != mc.complement;
}

// Runs one masked operation on gbcuda and on GraphBLAS from the same starting w, returns both.
// gb_run(w, mask_or_no_mask, accum_or_no_accum, descriptor); grb_run(w, mask, accum, desc).
template <class Z, class GbRun, class GrbRun>
std::pair<Tuples<Z>, Tuples<Z>> run_both(Backend b, const Tuples<Z>& w0, const Tuples<double>& mask, const MaskCase& mc,
                                         int accum, Descriptor d, bool t0, bool t1, const GbRun& gb_run,
                                         const GrbRun& grb_run) {
  d.replace = mc.replace;
  d.mask_complement = mc.complement;
  d.mask_structural = mc.structural;
  Vector<Z> w = gb_vector(w0, b);
  auto with_accum = [&](const auto& m) {
    if (accum == 0) gb_run(w, m, gbcuda::no_accum, d);
    else if (accum == 1) gb_run(w, m, gbcuda::Plus<Z>{}, d);
    else gb_run(w, m, gbcuda::Min<Z>{}, d);
  };
  if (mc.has) with_accum(gb_vector(mask, b));
  else with_accum(gbcuda::no_mask);
  EXPECT_EQ(w.backend(), b);

  GVec gw = grb_vector(w0);
  GVec gm;
  if (mc.has) gm = grb_vector(mask);
  GrB_BinaryOp acc = accum == 0 ? GrB_NULL : accum == 1 ? Grb<Z>::plus() : Grb<Z>::min();
  OPS_GRB(grb_run(gw.v, gm.v, acc, grb_desc(mc.replace, mc.structural, mc.complement, t0, t1)));
  return {tuples_of(w), tuples_of<Z>(gw.v)};
}

// Stops a long sweep after a few failures instead of reporting thousands.
struct FailureBudget {
  int left = 5;
  bool spent() const { return left <= 0; }
  void charge(bool ok) {
    if (!ok) --left;
  }
};

class OpsTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
  Backend b() const { return GetParam(); }
};

// ---- products --------------------------------------------------------------------------------
enum class Special { None, SecondI };

struct ProductOptions {
  Check check = Check::Exact;
  std::vector<int> accums{0, 1, 2};
  Special special = Special::None;
  bool rough_seed = false;  // one seed with arbitrary reals (floating point only)
  bool pattern = false;     // the matrix is a pattern (iso, every value one)
  // Kernels forced through the descriptor (the test hook of the boolean product). Auto runs
  // every direction; a forced kernel runs with Direction::Auto.
  std::vector<gbcuda::ProductKernel> kernels{gbcuda::ProductKernel::Auto};
};

const std::vector<gbcuda::ProductKernel> kAllKernels = {
    gbcuda::ProductKernel::Auto,       gbcuda::ProductKernel::Pull,        gbcuda::ProductKernel::QueueWarp,
    gbcuda::ProductKernel::QueueBlock, gbcuda::ProductKernel::QueueGlobal, gbcuda::ProductKernel::SingleBlock};

template <class Z, class S>
void product_suite(Backend b, const S& s, GrB_Semiring gs, const ProductOptions& opt) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  struct Shape {
    Index nrows, ncols;
  };
  for (int seed = 1; seed <= 3; ++seed) {
    for (Shape shape : {Shape{150, 150}, Shape{97, 211}}) {
      Rng rng(std::uint64_t(seed) * 7919 + std::uint64_t(shape.ncols));
      const bool rough = opt.rough_seed && seed == 3;
      Coo<Z> coo = random_matrix<Z>(rng, shape.nrows, shape.ncols, 4.0, opt.pattern, rough);
      gbcuda::Matrix<Z> A = gb_matrix(coo);
      GMat gA = grb_matrix(coo);
      const double densities[] = {0.02, 0.3, 1.0};
      for (int ui = 0; ui < 3; ++ui) {
        for (bool is_vxm : {false, true}) {
          for (bool tr : {false, true}) {
            const bool rows_transposed = is_vxm != tr;  // the product walks rows of A' then
            const Index out_n = rows_transposed ? shape.ncols : shape.nrows;
            const Index in_n = rows_transposed ? shape.nrows : shape.ncols;
            Tuples<Z> u0 = random_tuples<Z>(rng, in_n, densities[ui], rough);
            Tuples<Z> w0 = random_tuples<Z>(rng, out_n, 0.3, rough);
            Tuples<double> mask = random_mask(rng, out_n, densities[(seed + ui) % 3]);
            Vector<Z> u = gb_vector(u0, b);
            GVec gu = grb_vector(u0);
            const auto op_rows =
                opt.special == Special::SecondI ? pattern_rows(coo, rows_transposed) : std::vector<std::set<Index>>{};
            for (const gbcuda::ProductKernel kernel : opt.kernels)
              for (Direction dir : {Direction::Auto, Direction::Push, Direction::Pull}) {
                if (kernel != gbcuda::ProductKernel::Auto && dir != Direction::Auto) continue;
                for (const MaskCase& mc : masks) {
                  for (int accum : opt.accums) {
                    Descriptor d;
                    d.transpose_a = tr;
                    d.direction = dir;
                    d.kernel = kernel;
                    auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
                      if (is_vxm) gbcuda::vxm(w, m, acc, s, u, A, dd);
                      else gbcuda::mxv(w, m, acc, s, A, u, dd);
                    };
                    auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
                      return is_vxm ? GrB_vxm(w, m, acc, gs, gu.v, gA.m, gd) : GrB_mxv(w, m, acc, gs, gA.m, gu.v, gd);
                    };
                    auto [got, want] =
                        run_both<Z>(b, w0, mask, mc, accum, d, !is_vxm && tr, is_vxm && tr, gb_run, grb_run);
                    auto ctx = [&] {
                      std::ostringstream o;
                      o << (is_vxm ? "vxm" : "mxv") << " seed " << seed << " A " << shape.nrows << "x" << shape.ncols
                        << (tr ? " transpose_a" : "") << " u-density " << densities[ui] << " " << mc.str() << " "
                        << accum_name(accum) << " " << dir_name(dir) << " kernel " << gbcuda::to_string(kernel);
                      return o.str();
                    };
                    auto r = same_vector(got, want, opt.special == Special::SecondI ? Check::Pattern : opt.check);
                    if (r && opt.special == Special::SecondI) {
                      // ANY makes the chosen k arbitrary: each written value must be a valid k
                      // (op(A)(i,k) stored and u(k) present); untouched entries keep w's value.
                      for (std::size_t p = 0; p < got.idx.size() && r; ++p) {
                        const Index i = got.idx[p];
                        const Z k = got.vals[p];
                        if (mask_allows(mc, mask, i)) {
                          const bool in_u = std::binary_search(u0.idx.begin(), u0.idx.end(), Index(k));
                          if (!in_u || !op_rows[std::size_t(i)].count(Index(k)))
                            r = ::testing::AssertionFailure() << "w(" << i << ") = " << k << " is not a valid k";
                        } else {
                          auto it = std::lower_bound(w0.idx.begin(), w0.idx.end(), i);
                          if (it == w0.idx.end() || *it != i || w0.vals[std::size_t(it - w0.idx.begin())] != k)
                            r = ::testing::AssertionFailure() << "w(" << i << ") outside the mask changed to " << k;
                        }
                      }
                    }
                    EXPECT_TRUE(r) << ctx();
                    budget.charge(bool(r));
                    if (budget.spent()) return;
                  }
                }
              }
          }
        }
      }
    }
  }
}

TEST_P(OpsTest, ProductPlusTimesDouble) {
  ProductOptions o;
  o.check = Check::Near;
  o.rough_seed = true;
  product_suite<double>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, o);
}
TEST_P(OpsTest, ProductMinPlusInt64) {
  product_suite<std::int64_t>(b(), gbcuda::MinPlus<std::int64_t>{}, GrB_MIN_PLUS_SEMIRING_INT64, {});
}
TEST_P(OpsTest, ProductMinPlusDouble) {
  ProductOptions o;
  o.check = Check::Near;
  o.rough_seed = true;
  product_suite<double>(b(), gbcuda::MinPlus<double>{}, GrB_MIN_PLUS_SEMIRING_FP64, o);
}
TEST_P(OpsTest, ProductLorLandBool) {
  product_suite<bool>(b(), gbcuda::LorLand<bool>{}, GrB_LOR_LAND_SEMIRING_BOOL, {});
}
TEST_P(OpsTest, ProductAnyPairBoolPattern) {
  ProductOptions o;
  o.check = Check::Pattern;
  product_suite<bool>(b(), gbcuda::AnyPair<bool>{}, GxB_ANY_PAIR_BOOL, o);
}
TEST_P(OpsTest, ProductAnySecondIInt64) {
  ProductOptions o;
  o.accums = {0};
  o.special = Special::SecondI;
  product_suite<std::int64_t>(b(), gbcuda::AnySecondI<std::int64_t>{}, GxB_ANY_SECONDI_INT64, o);
}
// The boolean product with each of its kernels forced (the CUDA backend's frontier kernels; the
// host maps pull to its gather and every push kernel to its scatter).
TEST_P(OpsTest, ProductAnyPairEveryKernel) {
  ProductOptions o;
  o.check = Check::Pattern;
  o.accums = {0};
  o.kernels = kAllKernels;
  product_suite<bool>(b(), gbcuda::AnyPair<bool>{}, GxB_ANY_PAIR_BOOL, o);
}
TEST_P(OpsTest, ProductAnySecondIEveryKernel) {
  ProductOptions o;
  o.accums = {0};
  o.special = Special::SecondI;
  o.kernels = kAllKernels;
  product_suite<std::int64_t>(b(), gbcuda::AnySecondI<std::int64_t>{}, GxB_ANY_SECONDI_INT64, o);
}
// LorLand over a pattern matrix runs on the frontier kernels on CUDA, its terms being u's values
// (some false): the true entries' push first, then the false ones'; the pull looks past false terms.
TEST_P(OpsTest, ProductLorLandPatternEveryKernel) {
  ProductOptions o;
  o.pattern = true;
  o.accums = {0, 1};
  o.kernels = kAllKernels;
  product_suite<bool>(b(), gbcuda::LorLand<bool>{}, GrB_LOR_LAND_SEMIRING_BOOL, o);
}
// The other built-in semirings: on CUDA the value product (pull and push, run-time coded).
TEST_P(OpsTest, ProductPlusTimesFloat) {
  ProductOptions o;
  o.check = Check::Near;
  product_suite<float>(b(), gbcuda::PlusTimes<float>{}, GrB_PLUS_TIMES_SEMIRING_FP32, o);
}
TEST_P(OpsTest, ProductMaxPlusInt32) {
  product_suite<std::int32_t>(b(), gbcuda::MaxPlus<std::int32_t>{}, GrB_MAX_PLUS_SEMIRING_INT32, {});
}
TEST_P(OpsTest, ProductMinFirstInt64) {
  product_suite<std::int64_t>(b(), gbcuda::MinFirst<std::int64_t>{}, GrB_MIN_FIRST_SEMIRING_INT64, {});
}
TEST_P(OpsTest, ProductMinSecondDouble) {
  product_suite<double>(b(), gbcuda::MinSecond<double>{}, GrB_MIN_SECOND_SEMIRING_FP64, {});
}
TEST_P(OpsTest, ProductMaxSecondFloat) {
  product_suite<float>(b(), gbcuda::MaxSecond<float>{}, GrB_MAX_SECOND_SEMIRING_FP32, {});
}
TEST_P(OpsTest, ProductPlusSecondInt32) {
  product_suite<std::int32_t>(b(), gbcuda::PlusSecond<std::int32_t>{}, GxB_PLUS_SECOND_INT32, {});
}
TEST_P(OpsTest, ProductPlusPairInt64) {
  product_suite<std::int64_t>(b(), gbcuda::PlusPair<std::int64_t>{}, GxB_PLUS_PAIR_INT64, {});
}
TEST_P(OpsTest, ProductMinSecondIInt64) {
  product_suite<std::int64_t>(b(), gbcuda::MinSecondI<std::int64_t>{}, GxB_MIN_SECONDI_INT64, {});
}
TEST_P(OpsTest, ProductUserSemiring) {
  auto s = gbcuda::make_semiring(gbcuda::make_monoid<double>(user_max, -std::numeric_limits<double>::infinity()),
                                 gbcuda::make_binary_op<double>(user_mul));
  ProductOptions o;
  o.check = Check::Near;
  product_suite<double>(b(), s, grb_user_ops().semiring, o);
}

// A pattern (iso) matrix: the views carry no values.
TEST_P(OpsTest, ProductIsoMatrix) {
  FailureBudget budget;
  for (int seed = 1; seed <= 3; ++seed) {
    Rng rng(std::uint64_t(seed) * 31);
    Coo<double> coo = random_matrix<double>(rng, 120, 90, 5.0, /*pattern=*/true);
    gbcuda::Matrix<double> A = gb_matrix(coo);
    ASSERT_TRUE(A.is_iso());
    GMat gA = grb_matrix(coo);
    for (double density : {0.02, 0.5, 1.0}) {
      Tuples<double> u0 = random_tuples<double>(rng, 90, density);
      Vector<double> u = gb_vector(u0, b());
      GVec gu = grb_vector(u0);
      for (Direction dir : {Direction::Push, Direction::Pull}) {
        Vector<double> w(120, b());
        gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, u,
                    Descriptor{}.with_direction(dir));
        GVec gw = grb_empty_vector<double>(120);
        OPS_GRB(GrB_mxv(gw.v, GrB_NULL, GrB_NULL, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gu.v, GrB_NULL));
        auto r = same_vector(tuples_of(w), tuples_of<double>(gw.v), Check::Near);
        EXPECT_TRUE(r) << "seed " << seed << " density " << density << " " << dir_name(dir);
        budget.charge(bool(r));
        if (budget.spent()) return;
      }
    }
  }
}

// Inputs and mask in host memory while w lives in the backend (copied over by the operation).
TEST_P(OpsTest, ProductInputsFromHost) {
  Rng rng(5);
  Coo<double> coo = random_matrix<double>(rng, 80, 80, 4.0);
  gbcuda::Matrix<double> A = gb_matrix(coo);
  GMat gA = grb_matrix(coo);
  Tuples<double> u0 = random_tuples<double>(rng, 80, 0.4), w0 = random_tuples<double>(rng, 80, 0.3);
  Tuples<double> mask = random_mask(rng, 80, 0.5);
  Vector<double> w = gb_vector(w0, b());
  gbcuda::vxm(w, gb_vector(mask, Backend::Host), gbcuda::Plus<double>{}, gbcuda::MinPlus<double>{},
              gb_vector(u0, Backend::Host), A, gbcuda::desc::R);
  EXPECT_EQ(w.backend(), b());
  GVec gw = grb_vector(w0), gm = grb_vector(mask), gu = grb_vector(u0);
  OPS_GRB(GrB_vxm(gw.v, gm.v, GrB_PLUS_FP64, GrB_MIN_PLUS_SEMIRING_FP64, gu.v, gA.m, GrB_DESC_R));
  EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<double>(gw.v), Check::Near));
}

TEST_P(OpsTest, ProductDimensionMismatchThrows) {
  gbcuda::Matrix<double> A = gb_matrix(Coo<double>{3, 4, {0, 2}, {1, 3}, {1.0, 2.0}});
  Vector<double> u(3, b()), w(3, b());
  EXPECT_THROW(gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, u), gbcuda::Error);
  Vector<double> u4(4, b()), w4(4, b());
  EXPECT_THROW(gbcuda::vxm(w4, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, u4, A), gbcuda::Error);
}

// Large inputs, so that the host backend's parallel paths run (threshold loops, blocked
// compaction, atomic claims in push); fewer variants than the sweeps above.
TEST_P(OpsTest, LargeVectors) {
  Rng rng(99);
  const Index n = 150000;
  Coo<double> coo = random_matrix<double>(rng, n, n, 3.0);
  gbcuda::Matrix<double> A = gb_matrix(coo);
  GMat gA = grb_matrix(coo);
  Coo<bool> coob = random_matrix<bool>(rng, n, n, 3.0);
  gbcuda::Matrix<bool> B = gb_matrix(coob);
  GMat gB = grb_matrix(coob);
  // 0.03 < 1/32: sparse vectors with more entries than one compaction block.
  Tuples<double> sparse_u = random_tuples<double>(rng, n, 0.03), dense_u = random_tuples<double>(rng, n, 0.6);
  Tuples<double> w0 = random_tuples<double>(rng, n, 0.3);
  Tuples<bool> ub0 = random_tuples<bool>(rng, n, 0.03), wb0 = random_tuples<bool>(rng, n, 0.1);
  const MaskCase value_comp_replace{true, true, false, true}, struct_mask{true, false, true, false};
  for (double md : {0.03, 0.5}) {
    Tuples<double> mask = random_mask(rng, n, md);
    for (const MaskCase& mc : {MaskCase{}, value_comp_replace, struct_mask}) {
      for (Direction dir : {Direction::Push, Direction::Pull}) {
        for (const Tuples<double>* u0 : {&sparse_u, &dense_u}) {
          Descriptor d;
          d.direction = dir;
          Vector<double> u = gb_vector(*u0, b());
          GVec gu = grb_vector(*u0);
          auto [got, want] = run_both<double>(
              b(), w0, mask, mc, 1, d, false, false,
              [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
                gbcuda::mxv(w, m, acc, gbcuda::PlusTimes<double>{}, A, u, dd);
              },
              [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
                return GrB_mxv(w, m, acc, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gu.v, gd);
              });
          EXPECT_TRUE(same_vector(got, want, Check::Near)) << "mxv " << mc.str() << " " << dir_name(dir);
          if (dir == Direction::Pull) continue;  // the rest does not depend on the direction
          auto [got2, want2] = run_both<double>(
              b(), w0, mask, mc, 0, {}, false, false,
              [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
                gbcuda::ewise_mult(w, m, acc, gbcuda::Times<double>{}, u, gb_vector(w0, b()), dd);
              },
              [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
                GVec gw0 = grb_vector(w0);
                return GrB_Vector_eWiseMult_BinaryOp(w, m, acc, GrB_TIMES_FP64, gu.v, gw0.v, gd);
              });
          EXPECT_TRUE(same_vector(got2, want2, Check::Exact)) << "ewise_mult " << mc.str();
          auto [got3, want3] = run_both<double>(
              b(), w0, mask, mc, 2, {}, false, false,
              [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
                gbcuda::apply(w, m, acc, gbcuda::AdditiveInverse<double>{}, u, dd);
              },
              [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
                return GrB_Vector_apply(w, m, acc, GrB_AINV_FP64, gu.v, gd);
              });
          EXPECT_TRUE(same_vector(got3, want3, Check::Exact)) << "apply " << mc.str();
        }
        // Push with ANY / LOR claims entries atomically.
        Vector<bool> ub = gb_vector(ub0, b());
        GVec gub = grb_vector(ub0);
        for (int which = 0; which < 2; ++which) {
          Descriptor d;
          d.direction = dir;
          auto [got, want] = run_both<bool>(
              b(), wb0, mask, mc, 0, d, false, false,
              [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
                if (which == 0) gbcuda::vxm(w, m, acc, gbcuda::LorLand<bool>{}, ub, B, dd);
                else gbcuda::vxm(w, m, acc, gbcuda::AnyPair<bool>{}, ub, B, dd);
              },
              [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
                return GrB_vxm(w, m, acc, which == 0 ? GrB_LOR_LAND_SEMIRING_BOOL : GxB_ANY_PAIR_BOOL, gub.v, gB.m, gd);
              });
          EXPECT_TRUE(same_vector(got, want, which == 0 ? Check::Exact : Check::Pattern))
              << (which == 0 ? "vxm lor-land " : "vxm any-pair ") << mc.str() << " " << dir_name(dir);
        }
      }
      auto [got, want] = run_both<double>(
          b(), w0, mask, mc, 1, {}, false, false,
          [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) { gbcuda::assign(w, m, acc, 4.0, dd); },
          [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
            return GrB_Vector_assign_FP64(w, m, acc, 4.0, GrB_ALL, GrB_Index(n), gd);
          });
      EXPECT_TRUE(same_vector(got, want, Check::Exact)) << "assign " << mc.str();
    }
  }
}

// ---- assign (scalar, GrB_ALL) -----------------------------------------------------------------
template <class Z>
void assign_suite(Backend b, Z scalar) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 3; ++seed) {
    Rng rng(std::uint64_t(seed) * 101);
    const Index n = 300;
    for (double wd : {0.0, 0.02, 0.4, 1.0}) {
      for (double md : {0.02, 0.4, 1.0}) {
        Tuples<Z> w0 = random_tuples<Z>(rng, n, wd);
        Tuples<double> mask = random_mask(rng, n, md);
        for (const MaskCase& mc : masks) {
          for (int accum : {0, 1, 2}) {
            auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
              gbcuda::assign(w, m, acc, scalar, d);
            };
            auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
              return Grb<Z>::assign(w, m, acc, scalar, GrB_Index(n), d);
            };
            auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
            auto r = same_vector(got, want, Check::Exact);
            EXPECT_TRUE(r) << "assign seed " << seed << " w-density " << wd << " mask-density " << md << " " << mc.str()
                           << " " << accum_name(accum);
            budget.charge(bool(r));
            if (budget.spent()) return;
          }
        }
      }
    }
  }
}
TEST_P(OpsTest, AssignScalarDouble) { assign_suite<double>(b(), 2.5); }
TEST_P(OpsTest, AssignScalarInt64) { assign_suite<std::int64_t>(b(), -3); }
TEST_P(OpsTest, AssignScalarBool) { assign_suite<bool>(b(), true); }

// ---- an empty mask is still a mask ----------------------------------------------------------------
// A sparse mask whose index array was never allocated (a fresh vector, or one a product left
// empty) selects nothing; complemented, it selects everything. LAGraph's parent BFS assigns
// through the frontier right after a vxm that may have found nothing.
TEST_P(OpsTest, EmptyStructuralMaskSelectsNothing) {
  const Index n = 40;
  Rng rng(5);
  Tuples<double> w0 = random_tuples<double>(rng, n, 0.5);
  for (bool from_product : {false, true}) {
    Vector<double> q(n, b());  // never written: no index array
    if (from_product) {        // an empty frontier produced by a product
      auto A = gb_matrix(random_matrix<double>(rng, n, n, 3.0));
      Vector<double> none(n, b());
      gbcuda::vxm(q, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, none, A);
    }
    ASSERT_EQ(q.nvals(), 0);
    const std::string where = from_product ? " (mask from a product)" : " (fresh mask)";
    for (const Descriptor& d : {gbcuda::desc::S, gbcuda::desc::RS, Descriptor{}, gbcuda::desc::R}) {
      const std::string ds = std::string(d.replace ? "replace " : "") + (d.mask_structural ? "structural" : "value");
      Vector<double> w = gb_vector(w0, b());
      gbcuda::assign(w, q, gbcuda::no_accum, 3.0, d);
      EXPECT_TRUE(same_vector(tuples_of(w), d.replace ? Tuples<double>{n, {}, {}} : w0, Check::Exact))
          << "scalar assign " << ds << where;
      Vector<double> pi = gb_vector(w0, b());
      gbcuda::assign(pi, q, gbcuda::no_accum, q, d);
      EXPECT_TRUE(same_vector(tuples_of(pi), d.replace ? Tuples<double>{n, {}, {}} : w0, Check::Exact))
          << "assign w<q> = q " << ds << where;
      Vector<double> a = gb_vector(w0, b());
      gbcuda::apply(a, q, gbcuda::no_accum, gbcuda::AdditiveInverse<double>{}, gb_vector(w0, b()), d);
      EXPECT_TRUE(same_vector(tuples_of(a), d.replace ? Tuples<double>{n, {}, {}} : w0, Check::Exact))
          << "apply " << ds << where;
    }
    // Complemented, the empty mask allows every position.
    Vector<double> w = gb_vector(w0, b());
    gbcuda::assign(w, q, gbcuda::no_accum, 3.0, gbcuda::desc::SC);
    EXPECT_EQ(w.nvals(), n) << "complemented empty mask" << where;
    EXPECT_EQ(w.to_dense_vector(0.0), std::vector<double>(std::size_t(n), 3.0)) << where;
  }
}

// ---- apply ------------------------------------------------------------------------------------
// grb(w, mask, accum, u, desc) runs GraphBLAS's counterpart of op.
// accums: which accumulators run (0 none, 1 Plus, 2 Min); an operator whose results reach the
// type's limits (integer MINV: 1/0 is the largest value) leaves Plus out, as its sum overflows.
template <class Z, class Op, class GrbApply>
void apply_suite(Backend b, const Op& op, const GrbApply& grb, const char* name,
                 std::initializer_list<int> accums = {0, 1, 2}) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 211);
    const Index n = 250;
    for (double ud : {0.02, 0.4, 1.0}) {
      Tuples<Z> u0 = random_tuples<Z>(rng, n, ud);
      Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.3);
      Tuples<double> mask = random_mask(rng, n, seed == 1 ? 0.02 : 0.5);
      Vector<Z> u = gb_vector(u0, b);
      GVec gu = grb_vector(u0);
      for (const MaskCase& mc : masks) {
        for (int accum : accums) {
          auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
            gbcuda::apply(w, m, acc, op, u, d);
          };
          auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
            return grb(w, m, acc, gu.v, d);
          };
          auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
          auto r = same_vector(got, want, Check::Exact);
          EXPECT_TRUE(r) << "apply " << name << " seed " << seed << " u-density " << ud << " " << mc.str() << " "
                         << accum_name(accum);
          budget.charge(bool(r));
          if (budget.spent()) return;
        }
      }
    }
  }
}
template <class Z, class Op>
void apply_suite(Backend b, const Op& op, GrB_UnaryOp gop, const char* name,
                 std::initializer_list<int> accums = {0, 1, 2}) {
  apply_suite<Z>(
      b, op,
      [gop](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply(w, m, acc, gop, u, d);
      },
      name, accums);
}
TEST_P(OpsTest, ApplyIdentity) { apply_suite<double>(b(), gbcuda::Identity<double>{}, GrB_IDENTITY_FP64, "identity"); }
TEST_P(OpsTest, ApplyAdditiveInverse) {
  apply_suite<double>(b(), gbcuda::AdditiveInverse<double>{}, GrB_AINV_FP64, "ainv");
  apply_suite<std::int64_t>(b(), gbcuda::AdditiveInverse<std::int64_t>{}, GrB_AINV_INT64, "ainv-int64");
}
TEST_P(OpsTest, ApplyAbs) {
  apply_suite<double>(b(), gbcuda::Abs<double>{}, GrB_ABS_FP64, "abs");
  apply_suite<std::int64_t>(b(), gbcuda::Abs<std::int64_t>{}, GrB_ABS_INT64, "abs-int64");
}
TEST_P(OpsTest, ApplyMultiplicativeInverse) {  // integers: 1/0 is the largest value, else 1, -1 or 0
  apply_suite<double>(b(), gbcuda::MultiplicativeInverse<double>{}, GrB_MINV_FP64, "minv");
  // No Plus accumulator for int64: the largest value plus w overflows (undefined behaviour in C++).
  apply_suite<std::int64_t>(b(), gbcuda::MultiplicativeInverse<std::int64_t>{}, GrB_MINV_INT64, "minv-int64", {0, 2});
  apply_suite<bool>(b(), gbcuda::MultiplicativeInverse<bool>{}, GrB_MINV_BOOL, "minv-bool");
}
TEST_P(OpsTest, ApplyUserLambda) {
  apply_suite<double>(b(), gbcuda::make_unary_op<double>([](double x) { return user_unary(x); }), grb_user_ops().unary,
                      "user");
  apply_suite<std::int64_t>(b(), gbcuda::make_unary_op<std::int64_t>([](std::int64_t x) { return user_unary_i(x); }),
                            grb_user_ops().unary_i, "user-int64");
}

// A binary operator with a bound scalar (GrB_apply with BinaryOp1st / BinaryOp2nd). MINUS is not
// commutative, so a swapped operand fails; built-in ones run on the GPU without host copies.
TEST_P(OpsTest, ApplyBoundScalar) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  apply_suite<double>(
      b(), gbcuda::bind_first(gbcuda::Minus<double>{}, 2.5),
      [](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply_BinaryOp1st_FP64(w, m, acc, GrB_MINUS_FP64, 2.5, u, d);
      },
      "bind-first minus");
  apply_suite<double>(
      b(), gbcuda::bind_second(gbcuda::Minus<double>{}, 2.5),
      [](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply_BinaryOp2nd_FP64(w, m, acc, GrB_MINUS_FP64, u, 2.5, d);
      },
      "bind-second minus");
  apply_suite<std::int64_t>(
      b(), gbcuda::bind_second(gbcuda::Max<std::int64_t>{}, std::int64_t(4)),
      [](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply_BinaryOp2nd_INT64(w, m, acc, GrB_MAX_INT64, u, 4, d);
      },
      "bind-second max-int64");
  apply_suite<std::int32_t>(
      b(), gbcuda::bind_first(gbcuda::Times<std::int32_t>{}, std::int32_t(-3)),
      [](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply_BinaryOp1st_INT32(w, m, acc, GrB_TIMES_INT32, -3, u, d);
      },
      "bind-first times-int32");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in bound operator ran on host copies";
  // A user-defined operator can be bound too (on host copies on the CUDA backend).
  apply_suite<double>(
      b(), gbcuda::bind_second(gbcuda::make_binary_op<double>(user_sub2), 1.5),
      [](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Vector u, GrB_Descriptor d) {
        return GrB_Vector_apply_BinaryOp2nd_FP64(w, m, acc, grb_user_ops().sub2, u, 1.5, d);
      },
      "bind-second user");
}

// ---- select (vector) ----------------------------------------------------------------------------
template <class Z, class Op>
void select_suite(Backend b, const Op& op, GrB_IndexUnaryOp gop, double thunk, const char* name) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 307);
    const Index n = 260;
    for (double ud : {0.02, 0.4, 1.0}) {
      Tuples<Z> u0 = random_tuples<Z>(rng, n, ud);
      Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.3);
      Tuples<double> mask = random_mask(rng, n, seed == 1 ? 0.02 : 0.5);
      Vector<Z> u = gb_vector(u0, b);
      GVec gu = grb_vector(u0);
      for (const MaskCase& mc : masks) {
        for (int accum : {0, 1}) {
          auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
            gbcuda::select(w, m, acc, op, u, thunk, d);
          };
          auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
            return GrB_Vector_select_FP64(w, m, acc, gop, gu.v, thunk, d);
          };
          auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
          auto r = same_vector(got, want, Check::Exact);
          EXPECT_TRUE(r) << "select " << name << " thunk " << thunk << " seed " << seed << " u-density " << ud << " "
                         << mc.str() << " " << accum_name(accum);
          budget.charge(bool(r));
          if (budget.spent()) return;
        }
      }
    }
  }
}
TEST_P(OpsTest, SelectVector) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  select_suite<double>(b(), gbcuda::ValueGt{}, GrB_VALUEGT_FP64, 1.0, "valuegt");
  select_suite<double>(b(), gbcuda::ValueLe{}, GrB_VALUELE_FP64, 0.5, "valuele");
  select_suite<double>(b(), gbcuda::ValueNe{}, GrB_VALUENE_FP64, 0.0, "valuene");
  select_suite<std::int64_t>(b(), gbcuda::ValueEq{}, GrB_VALUEEQ_INT64, 3.0, "valueeq-int64");
  select_suite<std::int32_t>(b(), gbcuda::ValueGe{}, GrB_VALUEGE_INT32, 5.0, "valuege-int32");
  // A vector is one column (j = 0): TRIL with thunk k keeps i >= -k, TRIU keeps i <= -k.
  select_suite<double>(b(), gbcuda::Tril{}, GrB_TRIL, -100.0, "tril");
  select_suite<double>(b(), gbcuda::Triu{}, GrB_TRIU, -50.0, "triu");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "select ran on host copies";
}

// The value predicates compare in the vector's type with the thunk cast to it: a uint64_t thunk
// past 2^53 is exact (a double could not tell these values apart), a double thunk over integers
// is cast first (2.5 is 2), and a matrix select does the same.
TEST_P(OpsTest, SelectComparesInTheValueType) {
  const std::uint64_t top = ~std::uint64_t(0);
  const auto u =
      Vector<std::uint64_t>::from_tuples(4, {0, 1, 2, 3}, {top, top - 1, top - 2, std::uint64_t(1) << 63}, b());
  Vector<std::uint64_t> w(4, b());
  gbcuda::select(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, u, top - 2);
  std::vector<Index> I;
  std::vector<std::uint64_t> X;
  w.extract_tuples(I, X);
  EXPECT_EQ(I, (std::vector<Index>{0, 1}));
  EXPECT_EQ(X, (std::vector<std::uint64_t>{top, top - 1}));
  gbcuda::select(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueEq{}, u, top - 1);
  EXPECT_EQ(w.nvals(), 1);

  const auto v = Vector<std::int32_t>::from_tuples(3, {0, 1, 2}, {1, 2, 3}, b());
  Vector<std::int32_t> e(3, b());
  gbcuda::select(e, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueEq{}, v, 2.5);
  EXPECT_EQ(e.nvals(), 1);
  EXPECT_EQ(e.element(1), 2);

  const auto A = gbcuda::Matrix<std::uint64_t>::from_coo(2, 2, std::vector<Index>{0, 1}, std::vector<Index>{1, 0},
                                                         std::vector<std::uint64_t>{top, top - 1});
  gbcuda::Matrix<std::uint64_t> C(2, 2);
  gbcuda::select(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGe{}, A, top, b());
  EXPECT_EQ(C.nvals(), 1);
  EXPECT_EQ(C.element(0, 1), top);
}

// ---- assign with an index list ------------------------------------------------------------------
template <class Z>
void assign_indexed_suite(Backend b, Z scalar) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 509);
    const Index n = 240;
    for (Index ni : {Index(0), Index(17), Index(120), n}) {
      std::vector<Index> all(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) all[std::size_t(i)] = i;
      std::shuffle(all.begin(), all.end(), rng);  // distinct, in no order
      const std::vector<Index> idx(all.begin(), all.begin() + ni);
      std::vector<GrB_Index> gidx(idx.begin(), idx.end());
      gidx.reserve(1);
      for (double ud : {0.3, 1.0}) {
        Tuples<Z> u0 = random_tuples<Z>(rng, ni, ud);
        Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.4);
        Tuples<double> mask = random_mask(rng, n, 0.5);
        Vector<Z> u = gb_vector(u0, b);
        GVec gu = grb_vector(u0);
        for (const MaskCase& mc : masks) {
          for (int accum : {0, 1, 2}) {
            for (bool with_scalar : {false, true}) {
              auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
                if (with_scalar) gbcuda::assign(w, m, acc, scalar, idx, d);
                else gbcuda::assign(w, m, acc, u, idx, d);
              };
              auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
                if (with_scalar) return Grb<Z>::assign_indexed(w, m, acc, scalar, gidx.data(), GrB_Index(ni), d);
                return GrB_Vector_assign(w, m, acc, gu.v, gidx.data(), GrB_Index(ni), d);
              };
              auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
              auto r = same_vector(got, want, Check::Exact);
              EXPECT_TRUE(r) << "assign(indices) " << (with_scalar ? "scalar" : "vector") << " seed " << seed
                             << " indices " << ni << " u-density " << ud << " " << mc.str() << " " << accum_name(accum);
              budget.charge(bool(r));
              if (budget.spent()) return;
            }
          }
        }
      }
    }
  }
}
TEST_P(OpsTest, AssignIndexedDouble) { assign_indexed_suite<double>(b(), 2.5); }
TEST_P(OpsTest, AssignIndexedInt32) { assign_indexed_suite<std::int32_t>(b(), -3); }
TEST_P(OpsTest, AssignIndexedBool) { assign_indexed_suite<bool>(b(), false); }
TEST_P(OpsTest, AssignIndexedRefusesBadIndices) {
  Vector<double> w(10, b());
  const Vector<double> u = Vector<double>::full(3, 1.0, b());
  const std::vector<Index> twice{1, 4, 1}, outside{1, 4, 10}, negative{-1, 2, 3}, short_list{1, 2};
  for (const auto* idx : {&twice, &outside, &negative}) {
    try {
      gbcuda::assign(w, gbcuda::no_mask, gbcuda::no_accum, u, *idx);
      ADD_FAILURE() << "bad index list accepted";
    } catch (const gbcuda::Error& e) {
      EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex) << e.what();
    }
  }
  EXPECT_THROW(gbcuda::assign(w, gbcuda::no_mask, gbcuda::no_accum, u, short_list), gbcuda::Error);
  EXPECT_EQ(w.nvals(), 0) << "a refused assign changed w";
}

// ---- subassign ----------------------------------------------------------------------------------
// w(I)<mask> = accum(w(I), u, x or s) against GxB_Vector_subassign, GxB_Vector_subassign_<T> and
// GxB_Vector_subassign_Scalar: the mask of I's length, every mask case and accumulator, I distinct
// in no order (as unsigned), or `all`.
template <class Z>
void subassign_suite(Backend b, Z scalar) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 521);
    const Index n = 240;
    for (Index ni : {Index(0), Index(17), Index(120), n}) {
      const bool every = ni == n && seed == 2;  // `all` (GrB_ALL) in place of the list
      std::vector<Index> shuffled(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) shuffled[std::size_t(i)] = i;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      const std::vector<std::uint32_t> idx(shuffled.begin(), shuffled.begin() + ni);
      std::vector<GrB_Index> gidx(idx.begin(), idx.end());
      gidx.reserve(1);
      const GrB_Index* pidx = every ? GrB_ALL : gidx.data();
      for (double ud : {0.3, 1.0}) {
        Tuples<Z> u0 = random_tuples<Z>(rng, ni, ud);
        Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.4);
        Tuples<double> mask = random_mask(rng, ni, 0.5);
        Vector<Z> u = gb_vector(u0, b);
        GVec gu = grb_vector(u0);
        for (const MaskCase& mc : masks) {
          for (int accum : {0, 1, 2}) {
            for (int source : {0, 1, 2}) {  // u, a value, an empty Scalar
              GrB_Scalar empty = nullptr;
              OPS_GRB(GrB_Scalar_new(&empty, Grb<Z>::type()));
              auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
                auto with_list = [&](const auto& list) {
                  if (source == 0) gbcuda::subassign(w, m, acc, u, list, d);
                  else if (source == 1) gbcuda::subassign(w, m, acc, scalar, list, d);
                  else gbcuda::subassign(w, m, acc, gbcuda::Scalar<Z>{}, list, d);
                };
                if (every) with_list(gbcuda::all);
                else with_list(idx);
              };
              auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
                if (source == 1) return Grb<Z>::subassign_indexed(w, m, acc, scalar, pidx, GrB_Index(ni), d);
                if (source == 2) return GxB_Vector_subassign_Scalar(w, m, acc, empty, pidx, GrB_Index(ni), d);
                return GxB_Vector_subassign(w, m, acc, gu.v, pidx, GrB_Index(ni), d);
              };
              auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
              GrB_Scalar_free(&empty);
              auto r = same_vector(got, want, Check::Exact);
              EXPECT_TRUE(r) << "subassign "
                             << (source == 0   ? "vector"
                                 : source == 1 ? "value"
                                               : "empty scalar")
                             << " seed " << seed << " indices " << ni << (every ? " (all)" : "") << " u-density " << ud
                             << " " << mc.str() << " " << accum_name(accum);
              budget.charge(bool(r));
              if (budget.spent()) return;
            }
          }
        }
      }
    }
  }
}
TEST_P(OpsTest, SubassignDouble) { subassign_suite<double>(b(), 2.5); }
TEST_P(OpsTest, SubassignInt32) { subassign_suite<std::int32_t>(b(), -3); }
TEST_P(OpsTest, SubassignBool) { subassign_suite<bool>(b(), false); }
TEST_P(OpsTest, SubassignRefusesBadInput) {
  Vector<double> w = Vector<double>::from_tuples(10, {1, 5}, {1.0, 2.0}, b());
  const Vector<double> u = Vector<double>::full(3, 1.0, b());
  const std::vector<Index> twice{1, 4, 1}, outside{1, 4, 10}, fine{1, 4, 7};
  for (const auto* idx : {&twice, &outside}) {
    try {
      gbcuda::subassign(w, gbcuda::no_mask, gbcuda::no_accum, u, *idx);
      ADD_FAILURE() << "bad index list accepted";
    } catch (const gbcuda::Error& e) {
      EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex) << e.what();
    }
  }
  EXPECT_THROW(gbcuda::subassign(w, gbcuda::no_mask, gbcuda::no_accum, u, gbcuda::all), gbcuda::Error);  // |u| 3
  EXPECT_THROW(gbcuda::subassign(w, Vector<bool>(10, b()), gbcuda::no_accum, u, fine), gbcuda::Error);   // mask 10
  EXPECT_EQ(tuples_of(w).idx, (std::vector<Index>{1, 5})) << "a refused subassign changed w";
}

// GrB_ALL (`all`) for the vector assign (of a vector, a value and a Scalar) and extract, against
// GraphBLAS given GrB_ALL; u may be w.
TEST_P(OpsTest, AllIndicesMatchGraphBLAS) {
  Rng rng(613);
  const Index n = 200;
  const Tuples<double> u0 = random_tuples<double>(rng, n, 0.3), w0 = random_tuples<double>(rng, n, 0.4);
  const Tuples<double> m0 = random_mask(rng, n, 0.5);
  const Vector<double> u = gb_vector(u0, b()), mask = gb_vector(m0, b());
  const GVec gu = grb_vector(u0), gm = grb_vector(m0);
  auto check = [&](const char* what, auto&& ours, auto&& theirs) {
    Vector<double> w = gb_vector(w0, b());
    ours(w);
    GVec gw = grb_vector(w0);
    OPS_GRB(theirs(gw.v));
    EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<double>(gw.v), Check::Exact)) << what;
    EXPECT_EQ(w.backend(), b());
  };
  check(
      "assign u", [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::Plus<double>{}, u, gbcuda::all); },
      [&](GrB_Vector w) { return GrB_Vector_assign(w, gm.v, GrB_PLUS_FP64, gu.v, GrB_ALL, n, GrB_NULL); });
  check(
      "assign value",
      [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::no_accum, 3.5, gbcuda::all, gbcuda::desc::RC); },
      [&](GrB_Vector w) { return GrB_Vector_assign_FP64(w, gm.v, GrB_NULL, 3.5, GrB_ALL, n, GrB_DESC_RC); });
  check(
      "assign an empty Scalar",
      [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::no_accum, gbcuda::Scalar<double>{}, gbcuda::all); },
      [&](GrB_Vector w) {
        const GScalar s{gbcuda::Scalar<double>{}};
        return GrB_Vector_assign_Scalar(w, gm.v, GrB_NULL, s.s, GrB_ALL, n, GrB_NULL);
      });
  check(
      "extract", [&](Vector<double>& w) { gbcuda::extract(w, mask, gbcuda::Min<double>{}, u, gbcuda::all); },
      [&](GrB_Vector w) { return GrB_Vector_extract(w, gm.v, GrB_MIN_FP64, gu.v, GrB_ALL, n, GrB_NULL); });
  check(
      "extract from w itself", [&](Vector<double>& w) { gbcuda::extract(w, w, gbcuda::no_accum, w, gbcuda::all); },
      [&](GrB_Vector w) { return GrB_Vector_extract(w, w, GrB_NULL, w, GrB_ALL, n, GrB_NULL); });
  Vector<double> shorter(n - 1, b());
  EXPECT_THROW(gbcuda::extract(shorter, gbcuda::no_mask, gbcuda::no_accum, u, gbcuda::all), gbcuda::Error);
}

// ---- extract with an index list -----------------------------------------------------------------
// w<mask> = accum(w, u(I)) against GrB_Vector_extract: I with repeats and in no order, u sparse,
// bitmap and full, every mask case and accumulator.
template <class Z>
void extract_indexed_suite(Backend b) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 733);
    const Index n = 240;
    std::uniform_int_distribution<Index> pick(0, n - 1);
    for (Index ni : {Index(0), Index(17), Index(300)}) {
      std::vector<Index> idx;
      for (Index k = 0; k < ni; ++k) idx.push_back(pick(rng));
      std::vector<GrB_Index> gidx(idx.begin(), idx.end());
      gidx.reserve(1);
      for (double ud : {0.02, 0.3, 1.0}) {
        Tuples<Z> u0 = random_tuples<Z>(rng, n, ud);
        Tuples<Z> w0 = random_tuples<Z>(rng, ni, 0.4);
        Tuples<double> mask = random_mask(rng, ni, 0.5);
        Vector<Z> u = gb_vector(u0, b);
        GVec gu = grb_vector(u0);
        for (const MaskCase& mc : masks) {
          for (int accum : {0, 1, 2}) {
            auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
              gbcuda::extract(w, m, acc, u, idx, d);
            };
            auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
              return GrB_Vector_extract(w, m, acc, gu.v, gidx.data(), GrB_Index(ni), d);
            };
            auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
            auto r = same_vector(got, want, Check::Exact);
            EXPECT_TRUE(r) << "extract seed " << seed << " indices " << ni << " u-density " << ud << " " << mc.str()
                           << " " << accum_name(accum);
            budget.charge(bool(r));
            if (budget.spent()) return;
          }
        }
      }
    }
  }
}
TEST_P(OpsTest, ExtractIndexedDouble) { extract_indexed_suite<double>(b()); }
TEST_P(OpsTest, ExtractIndexedInt64) { extract_indexed_suite<std::int64_t>(b()); }
TEST_P(OpsTest, ExtractIndexedBool) { extract_indexed_suite<bool>(b()); }

// Extract from u into w where u is w, with indices of another integer type; bad lists refused
// with w unchanged.
TEST_P(OpsTest, ExtractIndexedAliasAndBadIndices) {
  Vector<double> w = Vector<double>::from_tuples(5, {0, 2, 4}, {1.0, 3.0, 5.0}, b());
  gbcuda::extract(w, gbcuda::no_mask, gbcuda::no_accum, w, std::vector<int>{4, 3, 2, 1, 0});
  std::vector<Index> idx;
  std::vector<double> vals;
  w.extract_tuples(idx, vals);
  EXPECT_EQ(idx, (std::vector<Index>{0, 2, 4}));
  EXPECT_EQ(vals, (std::vector<double>{5.0, 3.0, 1.0}));
  EXPECT_EQ(w.backend(), b());
  const std::vector<Index> outside{1, 5, 2}, negative{0, -1, 2}, short_list{1, 2};
  Vector<double> w3(3, b());
  for (const auto* list : {&outside, &negative}) {
    try {
      gbcuda::extract(w3, gbcuda::no_mask, gbcuda::no_accum, Vector<double>::full(5, 1.0, b()), *list);
      ADD_FAILURE() << "bad index list accepted";
    } catch (const gbcuda::Error& e) {
      EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex) << e.what();
    }
  }
  try {
    gbcuda::extract(w, gbcuda::no_mask, gbcuda::no_accum, w, short_list);
    ADD_FAILURE() << "a list of the wrong length accepted";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::DimensionMismatch) << e.what();
  }
  EXPECT_EQ(w3.nvals(), 0) << "a refused extract changed w";
  w.extract_tuples(idx, vals);
  EXPECT_EQ(vals, (std::vector<double>{5.0, 3.0, 1.0})) << "a refused extract changed w";
}

// w<mask> = accum(w, A(I, j)) against GrB_Col_extract, from A and from A' (a row of A): columns
// with entries and an empty one, I with repeats, every mask case, with and without PLUS.
TEST_P(OpsTest, ExtractColumnMatchesGraphBLAS) {
  Rng rng(811);
  const Index nr = 70, nc = 55;
  const Coo<double> full = random_matrix<double>(rng, nr, nc, 6.0);
  Coo<double> coo{nr, nc, {}, {}, {}};
  for (std::size_t e = 0; e < full.cols.size(); ++e)  // column 7 and row 9 left empty
    if (full.cols[e] != 7 && full.rows[e] != 9) {
      coo.rows.push_back(full.rows[e]);
      coo.cols.push_back(full.cols[e]);
      coo.vals.push_back(full.vals[e]);
    }
  const gbcuda::Matrix<double> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (bool t : {false, true}) {
    std::uniform_int_distribution<Index> pick(0, (t ? nc : nr) - 1);
    std::vector<Index> I;
    for (int k = 0; k < 40; ++k) I.push_back(pick(rng));
    I.push_back(I[2]);
    const std::vector<GrB_Index> gI(I.begin(), I.end());
    const Index ni = Index(I.size());
    for (Index j : t ? std::vector<Index>{0, 9, 33, nr - 1} : std::vector<Index>{0, 7, 21, nc - 1}) {
      Tuples<double> w0 = random_tuples<double>(rng, ni, 0.4);
      Tuples<double> mask = random_mask(rng, ni, 0.5);
      for (const MaskCase& mc : masks) {
        for (int accum : {0, 1}) {
          Descriptor d;
          d.transpose_a = t;
          auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
            gbcuda::extract_col(w, m, acc, A, I, j, dd);
          };
          auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
            return GrB_Col_extract(w, m, acc, gA.m, gI.data(), GrB_Index(ni), GrB_Index(j), gd);
          };
          auto [got, want] = run_both<double>(b(), w0, mask, mc, accum, d, t, false, gb_run, grb_run);
          auto r = same_vector(got, want, Check::Exact);
          EXPECT_TRUE(r) << "extract_col " << (t ? "of A' " : "") << "j " << j << " " << mc.str() << " "
                         << accum_name(accum);
          budget.charge(bool(r));
          if (budget.spent()) return;
        }
      }
    }
  }
  Vector<double> w(3, b());
  EXPECT_THROW(gbcuda::extract_col(w, gbcuda::no_mask, gbcuda::no_accum, A, std::vector<Index>{0, 1, 2}, nc),
               gbcuda::Error);
  EXPECT_THROW(gbcuda::extract_col(w, gbcuda::no_mask, gbcuda::no_accum, A, std::vector<Index>{0, 1, nr}, 0),
               gbcuda::Error);
}

// ---- reduce a matrix to a vector ----------------------------------------------------------------
template <class Z, class Mon>
void reduce_rows_suite(Backend b, const Mon& mon, GrB_Monoid gmon, const char* name) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 613);
    const Coo<Z> coo = random_matrix<Z>(rng, 190, 230, seed == 1 ? 3.0 : 40.0);
    const gbcuda::Matrix<Z> A = gb_matrix(coo);
    const GMat gA = grb_matrix(coo);
    for (bool columns : {false, true}) {
      const Index n = columns ? coo.ncols : coo.nrows;
      Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.3);
      Tuples<double> mask = random_mask(rng, n, 0.5);
      for (const MaskCase& mc : masks) {
        for (int accum : {0, 1, 2}) {
          Descriptor d;
          d.transpose_a = columns;
          auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& dd) {
            gbcuda::reduce(w, m, acc, mon, A, dd);
          };
          auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor gd) {
            return GrB_Matrix_reduce_Monoid(w, m, acc, gmon, gA.m, gd);
          };
          auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, d, columns, false, gb_run, grb_run);
          auto r = same_vector(got, want, Check::Near);
          EXPECT_TRUE(r) << "reduce to a vector " << name << (columns ? " columns" : " rows") << " seed " << seed << " "
                         << mc.str() << " " << accum_name(accum);
          budget.charge(bool(r));
          if (budget.spent()) return;
        }
      }
    }
  }
}
TEST_P(OpsTest, ReduceMatrixToVector) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  reduce_rows_suite<double>(b(), gbcuda::PlusMonoid<double>{}, GrB_PLUS_MONOID_FP64, "plus");
  reduce_rows_suite<std::int64_t>(b(), gbcuda::MinMonoid<std::int64_t>{}, GrB_MIN_MONOID_INT64, "min-int64");
  reduce_rows_suite<float>(b(), gbcuda::MaxMonoid<float>{}, GrB_MAX_MONOID_FP32, "max-float");
  reduce_rows_suite<bool>(b(), gbcuda::LorMonoid<bool>{}, GrB_LOR_MONOID_BOOL, "lor");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a built-in monoid's reduce ran on host copies";
}

// ---- eWiseAdd / eWiseMult ---------------------------------------------------------------------
template <class Z, class Op>
void ewise_suite(Backend b, const Op& op, GrB_BinaryOp gop, const char* name) {
  const auto masks = all_mask_cases();
  FailureBudget budget;
  const double densities[] = {0.02, 0.4, 1.0};
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(std::uint64_t(seed) * 401);
    const Index n = 200;
    for (double ud : densities) {
      for (double vd : densities) {
        Tuples<Z> u0 = random_tuples<Z>(rng, n, ud), v0 = random_tuples<Z>(rng, n, vd);
        Tuples<Z> w0 = random_tuples<Z>(rng, n, 0.3);
        Tuples<double> mask = random_mask(rng, n, seed == 1 ? 0.02 : 0.5);
        Vector<Z> u = gb_vector(u0, b), v = gb_vector(v0, b);
        GVec gu = grb_vector(u0), gv = grb_vector(v0);
        for (bool is_union : {true, false}) {
          for (const MaskCase& mc : masks) {
            for (int accum : {0, 1}) {
              auto gb_run = [&](auto& w, const auto& m, const auto& acc, const Descriptor& d) {
                if (is_union) gbcuda::ewise_add(w, m, acc, op, u, v, d);
                else gbcuda::ewise_mult(w, m, acc, op, u, v, d);
              };
              auto grb_run = [&](GrB_Vector w, GrB_Vector m, GrB_BinaryOp acc, GrB_Descriptor d) {
                return is_union ? GrB_Vector_eWiseAdd_BinaryOp(w, m, acc, gop, gu.v, gv.v, d)
                                : GrB_Vector_eWiseMult_BinaryOp(w, m, acc, gop, gu.v, gv.v, d);
              };
              auto [got, want] = run_both<Z>(b, w0, mask, mc, accum, Descriptor{}, false, false, gb_run, grb_run);
              auto r = same_vector(got, want, Check::Exact);
              EXPECT_TRUE(r) << (is_union ? "ewise_add " : "ewise_mult ") << name << " seed " << seed << " u-density "
                             << ud << " v-density " << vd << " " << mc.str() << " " << accum_name(accum);
              budget.charge(bool(r));
              if (budget.spent()) return;
            }
          }
        }
      }
    }
  }
}
TEST_P(OpsTest, EwisePlus) {
  ewise_suite<double>(b(), gbcuda::Plus<double>{}, GrB_PLUS_FP64, "plus");
  ewise_suite<std::int64_t>(b(), gbcuda::Plus<std::int64_t>{}, GrB_PLUS_INT64, "plus-int64");
}
TEST_P(OpsTest, EwiseTimes) { ewise_suite<double>(b(), gbcuda::Times<double>{}, GrB_TIMES_FP64, "times"); }
TEST_P(OpsTest, EwiseMin) { ewise_suite<std::int64_t>(b(), gbcuda::Min<std::int64_t>{}, GrB_MIN_INT64, "min"); }
TEST_P(OpsTest, EwiseMax) { ewise_suite<double>(b(), gbcuda::Max<double>{}, GrB_MAX_FP64, "max"); }
TEST_P(OpsTest, EwiseFirst) { ewise_suite<double>(b(), gbcuda::First<double>{}, GrB_FIRST_FP64, "first"); }
TEST_P(OpsTest, EwiseSecond) { ewise_suite<double>(b(), gbcuda::Second<double>{}, GrB_SECOND_FP64, "second"); }
TEST_P(OpsTest, EwiseLorBool) { ewise_suite<bool>(b(), gbcuda::Lor<bool>{}, GrB_LOR, "lor"); }
TEST_P(OpsTest, EwiseUserOp) {
  ewise_suite<double>(b(), gbcuda::make_binary_op<double>(user_sub2), grb_user_ops().sub2, "user");
}

// ---- reduce -----------------------------------------------------------------------------------
template <class Z, class Mon>
void reduce_suite(Backend b, const Mon& mon, GrB_Monoid gmon, const char* name, bool rough) {
  for (int seed = 1; seed <= 3; ++seed) {
    Rng rng(std::uint64_t(seed) * 977);
    for (Index n : {Index(1), Index(100), Index(20000)}) {
      for (double density : {0.0, 0.02, 0.4, 1.0}) {
        Tuples<Z> u0 = random_tuples<Z>(rng, n, density, rough);
        Z got = gbcuda::reduce(mon, gb_vector(u0, b));
        GVec gu = grb_vector(u0);
        Z want{};
        OPS_GRB(Grb<Z>::reduce(&want, gmon, gu.v));
        std::ostringstream ctx;
        ctx << "reduce " << name << " seed " << seed << " n " << n << " density " << density << " (" << u0.idx.size()
            << " entries)";
        if constexpr (std::is_floating_point_v<Z>) {
          if (std::isinf(want)) EXPECT_EQ(got, want) << ctx.str();
          else EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::abs(double(want)))) << ctx.str();
        } else {
          EXPECT_EQ(got, want) << ctx.str();
        }
      }
    }
  }
}
TEST_P(OpsTest, ReducePlus) {
  reduce_suite<double>(b(), gbcuda::PlusMonoid<double>{}, GrB_PLUS_MONOID_FP64, "plus", true);
  reduce_suite<std::int64_t>(b(), gbcuda::PlusMonoid<std::int64_t>{}, GrB_PLUS_MONOID_INT64, "plus-int64", false);
}
TEST_P(OpsTest, ReduceMin) {
  reduce_suite<double>(b(), gbcuda::MinMonoid<double>{}, GrB_MIN_MONOID_FP64, "min", true);
  reduce_suite<std::int64_t>(b(), gbcuda::MinMonoid<std::int64_t>{}, GrB_MIN_MONOID_INT64, "min-int64", false);
}
TEST_P(OpsTest, ReduceMax) {
  reduce_suite<double>(b(), gbcuda::MaxMonoid<double>{}, GrB_MAX_MONOID_FP64, "max", true);
  reduce_suite<std::int32_t>(b(), gbcuda::MaxMonoid<std::int32_t>{}, GrB_MAX_MONOID_INT32, "max-int32", false);
}
TEST_P(OpsTest, ReduceLor) {
  reduce_suite<bool>(b(), gbcuda::LorMonoid<bool>{}, GrB_LOR_MONOID_BOOL, "lor", false);
  // All-false entries: LOR must be false even though entries are present.
  Tuples<bool> u0{50, {3, 7, 40}, {false, false, false}};
  EXPECT_FALSE(gbcuda::reduce(gbcuda::LorMonoid<bool>{}, gb_vector(u0, b())));
}
TEST_P(OpsTest, ReduceUserMonoid) {
  auto mon = gbcuda::make_monoid<double>(user_max, -std::numeric_limits<double>::infinity());
  reduce_suite<double>(b(), mon, grb_user_ops().max_monoid, "user-max", true);
}
TEST_P(OpsTest, ReduceAny) {
  // ANY returns one of the entries (which one is unspecified), so check membership.
  for (int seed = 1; seed <= 3; ++seed) {
    Rng rng(std::uint64_t(seed) * 13);
    for (double density : {0.02, 0.4, 1.0}) {
      // Values from 1: the identity (0) must not pass for an entry.
      Tuples<std::int64_t> u0 =
          random_tuples<std::int64_t>(rng, 5000, density, [](Rng& r) { return std::int64_t(r() % 20 + 1); });
      ASSERT_FALSE(u0.idx.empty());
      const std::int64_t got = gbcuda::reduce(gbcuda::AnyMonoid<std::int64_t>{}, gb_vector(u0, b()));
      EXPECT_NE(std::find(u0.vals.begin(), u0.vals.end(), got), u0.vals.end())
          << "ANY returned " << got << ", not an entry (density " << density << ")";
    }
  }
}

// The sum of one entry is that entry, under every monoid (GraphBLAS: no operator is applied).
// LOR and LAND over a non-bool type are where it shows: LOR(identity 0, -4) would be 1. One entry
// in each form, the count on the device or not, and two entries (then the operator does apply).
TEST_P(OpsTest, ReduceOfOneEntryIsTheEntry) {
  for (gbcuda::VectorForm f : {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
    Vector<std::int32_t> u(7, b());
    u.set_element(3, -4);
    u.to_form(f);
    EXPECT_EQ(gbcuda::reduce(gbcuda::LorMonoid<std::int32_t>{}, u), -4) << gbcuda::to_string(f);
    EXPECT_EQ(gbcuda::reduce(gbcuda::LandMonoid<std::int32_t>{}, u), -4) << gbcuda::to_string(f);
    EXPECT_EQ(gbcuda::reduce(gbcuda::PlusMonoid<std::int32_t>{}, u), -4) << gbcuda::to_string(f);
    Vector<double> x(5, b());
    x.set_element(0, 2.5);
    x.to_form(f);
    EXPECT_EQ(gbcuda::reduce(gbcuda::LorMonoid<double>{}, x), 2.5) << gbcuda::to_string(f);
    // A count still in device memory (the output of an operation) takes the same path.
    Vector<double> y(5, b());
    gbcuda::apply(y, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Identity<double>{}, x);
    EXPECT_EQ(gbcuda::reduce(gbcuda::LandMonoid<double>{}, y), 2.5) << gbcuda::to_string(f);
    u.set_element(5, 3);
    EXPECT_EQ(gbcuda::reduce(gbcuda::LorMonoid<std::int32_t>{}, u), 1) << gbcuda::to_string(f);
  }
  const Vector<std::int64_t> d = Vector<std::int64_t>::full(1, -9, b());
  EXPECT_EQ(gbcuda::reduce(gbcuda::LorMonoid<std::int64_t>{}, d), -9);
}

// reduce into a vector of size 1 (a scalar that stays in the vector's backend): the same value,
// presence and accumulation as reduce into a Scalar (checked against GraphBLAS above), for u
// empty or not in each form, w empty or holding a value, without and with an accumulator, u = w,
// and large inputs (many blocks' partial sums on the GPU).
TEST_P(OpsTest, ReduceIntoAVectorOfSizeOneIsReduceIntoAScalar) {
  Rng rng(87);
  auto check = [&](const Vector<double>& u, std::optional<double> w0, const std::string& what) {
    for (int accum = 0; accum < 2; ++accum) {
      Vector<double> w(1, b());
      if (w0) w.set_element(0, *w0);
      gbcuda::Scalar<double> s(w0);
      if (accum) {
        gbcuda::reduce(w, gbcuda::Plus<double>{}, gbcuda::PlusMonoid<double>{}, u);
        gbcuda::reduce(s, gbcuda::Plus<double>{}, gbcuda::PlusMonoid<double>{}, u);
      } else {
        gbcuda::reduce(w, gbcuda::no_accum, gbcuda::Max<double>{}, u);
        gbcuda::reduce(s, gbcuda::no_accum, gbcuda::Max<double>{}, u);
      }
      const std::string ctx = what + (accum ? ", plus into" : ", max into") + (w0 ? " a value" : " nothing");
      EXPECT_EQ(w.nvals(), s.nvals()) << ctx;
      if (s.empty()) continue;
      ASSERT_TRUE(w.element(0).has_value()) << ctx;
      EXPECT_NEAR(*w.element(0), *s.value(), 1e-9 * std::max(1.0, std::abs(*s.value()))) << ctx;
    }
  };
  for (Index n : {Index(1), Index(300), Index(700000)}) {
    for (double density : {0.0, 0.01, 1.0}) {
      for (gbcuda::VectorForm f : {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
        Vector<double> u = gb_vector(random_tuples<double>(rng, n, density, true), b());
        if (density < 1.0) u.to_form(f);
        const std::string what =
            "n " + std::to_string(n) + " density " + std::to_string(density) + " " + gbcuda::to_string(u.form());
        check(u, std::nullopt, what);
        check(u, -2.5, what);
        // The same input as the output of an operation (its count in device memory on the GPU).
        Vector<double> t(n, b());
        gbcuda::apply(t, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Identity<double>{}, u);
        check(t, 4.0, what + " (an operation's output)");
      }
    }
  }
  // u = w: w(0) = w(0) + w(0).
  Vector<std::int64_t> w(1, b());
  w.set_element(0, 21);
  gbcuda::reduce(w, gbcuda::Plus<std::int64_t>{}, gbcuda::PlusMonoid<std::int64_t>{}, w);
  EXPECT_EQ(w.element(0), std::optional<std::int64_t>(42));
  // LOR over an int32 of one entry is the entry; a second entry applies the operator.
  Vector<std::int32_t> u(9, b()), z(1, b());
  u.set_element(4, -4);
  gbcuda::reduce(z, gbcuda::no_accum, gbcuda::LorMonoid<std::int32_t>{}, u);
  EXPECT_EQ(z.element(0), std::optional<std::int32_t>(-4));
  u.set_element(7, 3);
  gbcuda::reduce(z, gbcuda::no_accum, gbcuda::LorMonoid<std::int32_t>{}, u);
  EXPECT_EQ(z.element(0), std::optional<std::int32_t>(1));
  // A user-defined monoid runs on the host, the answer the same.
  Vector<double> um = gb_vector(random_tuples<double>(rng, 500, 0.3, true), b()), wm(1, b());
  auto mon = gbcuda::make_monoid<double>(user_max, -std::numeric_limits<double>::infinity());
  gbcuda::reduce(wm, gbcuda::no_accum, mon, um);
  EXPECT_EQ(wm.element(0), std::optional<double>(gbcuda::reduce(gbcuda::MaxMonoid<double>{}, um)));
  Vector<double> two(2, b());
  EXPECT_THROW(gbcuda::reduce(two, gbcuda::no_accum, gbcuda::PlusMonoid<double>{}, um), gbcuda::Error);
}

// apply with an index-unary operator into a vector (GrB_Vector_apply_IndexOp_INT64): RowIndex,
// ColIndex and DiagIndex with every mask flag, with and without an accumulator, u sparse and as
// a bitmap, against GraphBLAS (on the GPU, no host copies); a user callable without a mask.
TEST_P(OpsTest, ApplyWithAnIndexUnaryOperatorMatchesGraphBLAS) {
  Rng rng(41);
  const Index n = 300;
  const Tuples<double> u0 = random_tuples<double>(rng, n, 0.3);
  const Tuples<std::int64_t> w0 = random_tuples<std::int64_t>(rng, n, 0.4);
  const Tuples<double> mask = random_mask(rng, n, 0.5);
  const GVec gu = grb_vector(u0), gm = grb_vector(mask);
  auto run = [&](const auto& op, GrB_IndexUnaryOp gop, const char* name) {
    for (int flags = 0; flags < 16; ++flags) {
      gbcuda::Descriptor d;
      d.replace = flags & 1;
      d.mask_complement = flags & 2;
      d.mask_structural = flags & 4;
      const bool plus = flags & 8;
      SCOPED_TRACE(std::string(name) + (plus ? ", plus" : "") + (d.replace ? ", replace" : "") +
                   (d.mask_complement ? ", complement" : "") + (d.mask_structural ? ", structural" : ""));
      for (gbcuda::VectorForm f : {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
        Vector<double> u = gb_vector(u0, b());
        u.to_form(f);
        Vector<std::int64_t> w = gb_vector(w0, b());
        if (plus) gbcuda::apply(w, gb_vector(mask, b()), gbcuda::Plus<std::int64_t>{}, op, u, 3.0, d);
        else gbcuda::apply(w, gb_vector(mask, b()), gbcuda::no_accum, op, u, 3.0, d);
        EXPECT_EQ(w.backend(), b());
        GVec gw = grb_vector(w0);
        OPS_GRB(
            GrB_Vector_apply_IndexOp_INT64(gw.v, gm.v, plus ? GrB_PLUS_INT64 : GrB_BinaryOp(GrB_NULL), gop, gu.v, 3,
                                           grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false)));
        EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<std::int64_t>(gw.v), Check::Exact)) << gbcuda::to_string(f);
      }
    }
  };
  const std::uint64_t before = gbcuda::host_fallbacks();
  run(gbcuda::RowIndex{}, GrB_ROWINDEX_INT64, "rowindex");
  run(gbcuda::ColIndex{}, GrB_COLINDEX_INT64, "colindex");
  run(gbcuda::DiagIndex{}, GrB_DIAGINDEX_INT64, "diagindex");
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a positional apply ran on host copies";
  Vector<double> v(n, b());
  gbcuda::apply(
      v, gbcuda::no_mask, gbcuda::no_accum,
      [](double x, Index i, Index j, double y) { return x * y + double(i) + double(j); }, gb_vector(u0, b()), 0.5);
  Tuples<double> want = u0;
  for (std::size_t k = 0; k < want.idx.size(); ++k) want.vals[k] = u0.vals[k] * 0.5 + double(u0.idx[k]);
  EXPECT_TRUE(same_vector(tuples_of(v), want, Check::Exact));
  Vector<std::int64_t> short_w(n - 1, b());
  EXPECT_THROW(gbcuda::apply(short_w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::RowIndex{}, gb_vector(u0, b()), 0.0),
               gbcuda::Error);
}

// to_dense_vector: every form, the count on the device or not, `missing` where there is no entry.
// Scalars against GraphBLAS's GrB_Scalar: reduce into one (empty input or not, empty scalar or
// not, with and without an accumulator), assign one (an empty one deletes where the mask allows),
// by every index and by a list, a select's thunk, set_element, and printing.
TEST_P(OpsTest, ScalarsMatchGraphBLAS) {
  using gbcuda::Scalar;
  Rng rng(71);
  const Index n = 300;
  for (double density : {0.0, 0.3})
    for (bool start_empty : {true, false})
      for (bool accum : {false, true}) {
        const Tuples<double> u0 = random_tuples<double>(rng, n, density);
        Scalar<double> s = start_empty ? Scalar<double>() : Scalar<double>(4.5);
        GScalar gs(s);
        const GVec gu = grb_vector(u0);
        if (accum) gbcuda::reduce(s, gbcuda::Plus<double>{}, gbcuda::PlusMonoid<double>{}, gb_vector(u0, b()));
        else gbcuda::reduce(s, gbcuda::no_accum, gbcuda::PlusMonoid<double>{}, gb_vector(u0, b()));
        OPS_GRB(GrB_Vector_reduce_Monoid_Scalar(gs.s, accum ? GrB_PLUS_FP64 : GrB_NULL, GrB_PLUS_MONOID_FP64, gu.v,
                                                GrB_NULL));
        const Scalar<double> want = gs.value();
        ASSERT_EQ(s.empty(), want.empty()) << "reduce: density " << density << " accum " << accum;
        if (!s.empty()) {
          EXPECT_NEAR(*s.value(), *want.value(), 1e-9);
        }
        // The same by a binary operator (GrB_Vector_reduce_BinaryOp_Scalar): MIN, as MinMonoid.
        Scalar<double> m = start_empty ? Scalar<double>() : Scalar<double>(4.5);
        GScalar gm(m);
        if (accum) gbcuda::reduce(m, gbcuda::Plus<double>{}, gbcuda::Min<double>{}, gb_vector(u0, b()));
        else gbcuda::reduce(m, gbcuda::no_accum, gbcuda::Min<double>{}, gb_vector(u0, b()));
        OPS_GRB(
            GrB_Vector_reduce_BinaryOp_Scalar(gm.s, accum ? GrB_PLUS_FP64 : GrB_NULL, GrB_MIN_FP64, gu.v, GrB_NULL));
        EXPECT_EQ(m, gm.value()) << "reduce by MIN: density " << density << " accum " << accum;
      }
  const Tuples<double> w0 = random_tuples<double>(rng, n, 0.5);
  const Tuples<double> mask = random_mask(rng, n, 0.4);
  std::vector<Index> list{5, 17, 200, 3, 299};
  const std::vector<GrB_Index> glist(list.begin(), list.end());
  for (const Scalar<double>& x : {Scalar<double>(), Scalar<double>(-2.0)})
    for (bool masked : {false, true})
      for (bool accum : {false, true})
        for (bool indexed : {false, true}) {
          Vector<double> w = gb_vector(w0, b());
          const Vector<double> m = gb_vector(mask, b());
          GVec gw = grb_vector(w0);
          const GVec gm = grb_vector(mask);
          GScalar gx(x);
          auto run = [&](const auto& acc) {
            if (indexed) {
              if (masked) gbcuda::assign(w, m, acc, x, std::span<const Index>(list));
              else gbcuda::assign(w, gbcuda::no_mask, acc, x, std::span<const Index>(list));
            } else {
              if (masked) gbcuda::assign(w, m, acc, x);
              else gbcuda::assign(w, gbcuda::no_mask, acc, x);
            }
          };
          if (accum) run(gbcuda::Plus<double>{});
          else run(gbcuda::no_accum);
          OPS_GRB(GrB_Vector_assign_Scalar(gw.v, masked ? gm.v : GrB_NULL, accum ? GrB_PLUS_FP64 : GrB_NULL, gx.s,
                                           indexed ? glist.data() : GrB_ALL, indexed ? glist.size() : GrB_Index(n),
                                           GrB_NULL));
          EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<double>(gw.v), Check::Exact))
              << "assign " << (x.empty() ? "an empty scalar" : "-2") << (masked ? " masked" : "")
              << (accum ? " accum" : "") << (indexed ? " by a list" : "");
        }
  // A select's thunk.
  const Tuples<double> u0 = random_tuples<double>(rng, n, 0.6);
  Vector<double> got(n, b()), want(n, b());
  gbcuda::select(got, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, gb_vector(u0, b()), Scalar<double>(1.0));
  gbcuda::select(want, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, gb_vector(u0, b()), 1.0);
  EXPECT_TRUE(same_vector(tuples_of(got), tuples_of(want), Check::Exact));
  try {
    gbcuda::select(got, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, gb_vector(u0, b()), Scalar<double>());
    ADD_FAILURE() << "an empty thunk was taken";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidValue);
  }
  // set_element: an empty scalar removes the entry; element() as a scalar.
  Vector<double> v(10, b());
  v.set_element(3, Scalar<double>(7.0));
  v.set_element(4, Scalar<double>(8.0));
  v.set_element(4, Scalar<double>());
  EXPECT_EQ(Scalar<double>(v.element(3)), Scalar<double>(7.0));
  EXPECT_TRUE(Scalar<double>(v.element(4)).empty());
  EXPECT_EQ(v.nvals(), 1);
  std::ostringstream os;
  os << Scalar<double>(2.5) << "; " << Scalar<std::int32_t>() << "; " << Scalar<bool>(true);
  EXPECT_EQ(os.str(), "gbcuda::Scalar<double> 2.5; gbcuda::Scalar<int32_t> (no value); gbcuda::Scalar<bool> true");
}

TEST_P(OpsTest, ToDenseVectorInEveryForm) {
  const Index n = 1000;
  std::vector<double> want(std::size_t(n), -1.5);
  Vector<double> u(n, b());
  for (Index i = 3; i < n; i += 7) {
    u.set_element(i, double(i) * 0.5);
    want[std::size_t(i)] = double(i) * 0.5;
  }
  for (gbcuda::VectorForm f : {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
    u.to_form(f);
    EXPECT_EQ(u.to_dense_vector(-1.5), want) << gbcuda::to_string(f);
    Vector<double> y(n, b());  // an operation's output: its count still in device memory on the GPU
    gbcuda::apply(y, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Identity<double>{}, u);
    EXPECT_EQ(y.to_dense_vector(-1.5), want) << gbcuda::to_string(f) << " (an apply's output)";
  }
  EXPECT_EQ(Vector<std::int32_t>::full(5, 7, b()).to_dense_vector(0), std::vector<std::int32_t>(5, 7));
  EXPECT_EQ(Vector<float>(4, b()).to_dense_vector(2.f), std::vector<float>(4, 2.f));
  EXPECT_TRUE(Vector<double>(0, b()).to_dense_vector(1.0).empty());
  Vector<bool> p(6, b());
  p.set_element(2, true);
  EXPECT_EQ(p.to_dense_vector(false), std::vector<bool>({false, false, true, false, false, false}));
}

// Vectors of length 0 (an empty graph's): every operation with a structural mask, which has no
// arrays at all, gives an empty result instead of an internal error (the GPU once took such a
// mask for a list without a bitmap).
TEST_P(OpsTest, LengthZeroVectors) {
  const Vector<double> u(0, b()), mask(0, b());
  const gbcuda::Matrix<bool> A0 = gbcuda::Matrix<bool>::from_coo(0, 3, std::vector<Index>{}, std::vector<Index>{});
  const Vector<bool> x3 = Vector<bool>::full(3, true, b());
  for (const Descriptor& d : {gbcuda::desc::S, gbcuda::desc::RS, gbcuda::desc::RSC}) {
    Vector<double> w(0, b());
    gbcuda::assign(w, mask, gbcuda::Plus<double>{}, 1.5, d);
    gbcuda::assign(w, mask, gbcuda::no_accum, u, d);
    gbcuda::apply(w, mask, gbcuda::Min<double>{}, gbcuda::Abs<double>{}, u, d);
    gbcuda::ewise_mult(w, mask, gbcuda::no_accum, gbcuda::Max<double>{}, u, u, d);
    gbcuda::select(w, mask, gbcuda::no_accum, gbcuda::ValueGt{}, u, 0.0, d);
    EXPECT_EQ(w.nvals(), 0);
    Vector<bool> y(0, b());  // A0 * x3 (0 rows): over the boolean product's kernels
    gbcuda::mxv(y, mask, gbcuda::no_accum, gbcuda::LorLand<bool>{}, A0, x3, d);
    gbcuda::mxv(y, mask, gbcuda::Second<bool>{}, gbcuda::AnyPair<bool>{}, A0, x3, d);
    EXPECT_EQ(y.nvals(), 0);
    Vector<bool> z(3, b());  // A0' * (length 0): no terms
    gbcuda::mxv(z, gbcuda::no_mask, gbcuda::no_accum, gbcuda::LorLand<bool>{}, A0, Vector<bool>(0, b()),
                d.with_transpose());
    EXPECT_EQ(z.nvals(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, OpsTest, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
