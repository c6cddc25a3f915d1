// The value product (mxv/vxm over every built-in semiring other than the boolean frontier ones)
// where test_ops's small random matrices do not reach: rows long enough to be cut into chunks on
// the GPU, pushes of wide inputs, operands of mixed types with GraphBLAS's typecasting, and the
// promise that no built-in semiring runs on host copies. Each result is checked against
// SuiteSparse:GraphBLAS on both backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "support/ops_ref.hpp"

namespace {

using namespace ops_ref;
using gbcuda::Descriptor;
using gbcuda::Direction;
using gbcuda::Vector;

const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new GraphBlasEnvironment);

class ValueProduct : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
  Backend b() const { return GetParam(); }
};

// Rows of every length the GPU pull treats differently: a full row and hubs of several 4096-entry
// chunks, rows at the 1024-entry threshold and just under it, then short random rows. Columns of
// a long row are spread over the whole range; a second copy of some coordinates tests duplicates.
template <class T>
Coo<T> skewed_matrix(Rng& rng, Index n) {
  Coo<T> a;
  a.nrows = n;
  a.ncols = n;
  auto add = [&](Index i, Index j) {
    a.rows.push_back(i);
    a.cols.push_back(j);
    a.vals.push_back(random_value<T>(rng));
  };
  const Index hub_lengths[] = {n, 9000, 4097, 4096, 1024, 1023, 32, 31};
  for (Index h = 0; h < Index(std::size(hub_lengths)); ++h)
    for (Index t = 0; t < hub_lengths[h]; ++t)
      add(h * 977 % n, (t * 7919 + h) % n);  // 7919 is prime, n is not a multiple
  std::uniform_int_distribution<Index> col(0, n - 1);
  std::poisson_distribution<int> len(3.0);
  for (Index i = 0; i < n; ++i)
    for (int e = len(rng); e > 0; --e) add(i, col(rng));
  return a;
}

template <class Z, class S>
void skewed_suite(Backend b, const S& s, GrB_Semiring gs, Check check, double tol = 1e-9) {
  Rng rng(4242);
  const Index n = 20011;
  const Coo<Z> coo = skewed_matrix<Z>(rng, n);
  const gbcuda::Matrix<Z> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  int failures = 0;
  for (double density : {0.0005, 0.05, 1.0}) {
    const Tuples<Z> u0 = random_tuples<Z>(rng, n, density);
    const Vector<Z> u = gb_vector(u0, b);
    const GVec gu = grb_vector(u0);
    const Tuples<double> mask = random_mask(rng, n, 0.5);
    const Vector<double> m = gb_vector(mask, b);
    const GVec gm = grb_vector(mask);
    for (bool is_vxm : {false, true})
      for (Direction dir : {Direction::Auto, Direction::Push, Direction::Pull})
        for (bool masked : {false, true}) {
          Descriptor d;
          d.direction = dir;
          d.mask_complement = masked;
          d.mask_structural = masked;
          Vector<Z> w(n, b);
          if (masked) {
            if (is_vxm) gbcuda::vxm(w, m, gbcuda::no_accum, s, u, A, d);
            else gbcuda::mxv(w, m, gbcuda::no_accum, s, A, u, d);
          } else {
            if (is_vxm) gbcuda::vxm(w, gbcuda::no_mask, gbcuda::no_accum, s, u, A, d);
            else gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, s, A, u, d);
          }
          GVec gw = grb_empty_vector<Z>(n);
          GrB_Descriptor gd = grb_desc(false, masked, masked, false, false);
          if (is_vxm) OPS_GRB(GrB_vxm(gw.v, masked ? gm.v : GrB_NULL, GrB_NULL, gs, gu.v, gA.m, gd));
          else OPS_GRB(GrB_mxv(gw.v, masked ? gm.v : GrB_NULL, GrB_NULL, gs, gA.m, gu.v, gd));
          const auto r = same_vector(tuples_of(w), tuples_of<Z>(gw.v), check, tol);
          EXPECT_TRUE(r) << (is_vxm ? "vxm" : "mxv") << " u-density " << density << " direction " << int(dir)
                         << (masked ? " complemented structural mask" : " no mask");
          if (!r && ++failures >= 3) return;
        }
  }
}

TEST_P(ValueProduct, LongRowsPlusTimesDouble) {
  skewed_suite<double>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, Check::Near);
}
TEST_P(ValueProduct, LongRowsPlusTimesFloat) {
  // 20000 float terms summed in another order: a relative error of a few 1e-6.
  skewed_suite<float>(b(), gbcuda::PlusTimes<float>{}, GrB_PLUS_TIMES_SEMIRING_FP32, Check::Near, 1e-4);
}
TEST_P(ValueProduct, LongRowsMinPlusInt64) {
  skewed_suite<std::int64_t>(b(), gbcuda::MinPlus<std::int64_t>{}, GrB_MIN_PLUS_SEMIRING_INT64, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMaxPlusFloat) {
  skewed_suite<float>(b(), gbcuda::MaxPlus<float>{}, GrB_MAX_PLUS_SEMIRING_FP32, Check::Exact);
}
TEST_P(ValueProduct, LongRowsPlusPairInt32) {
  skewed_suite<std::int32_t>(b(), gbcuda::PlusPair<std::int32_t>{}, GxB_PLUS_PAIR_INT32, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMinSecondIInt32) {
  skewed_suite<std::int32_t>(b(), gbcuda::MinSecondI<std::int32_t>{}, GxB_MIN_SECONDI_INT32, Check::Exact);
}
TEST_P(ValueProduct, LongRowsLorLandBool) {  // bool values: atomics on single bytes
  skewed_suite<bool>(b(), gbcuda::LorLand<bool>{}, GrB_LOR_LAND_SEMIRING_BOOL, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMaxTimesDouble) {  // a double max: a compare-and-swap loop on the GPU
  auto s = gbcuda::make_semiring(gbcuda::MaxMonoid<double>{}, gbcuda::Times<double>{});
  skewed_suite<double>(b(), s, GrB_MAX_TIMES_SEMIRING_FP64, Check::Exact);
}

// The narrow and unsigned types: sums that wrap, and on the GPU a monoid's atomic on 1- and
// 2-byte values (a compare-and-swap on the word around the value, whose neighbours other threads
// update at the same time), unsigned min and max, 64-bit unsigned sums.
TEST_P(ValueProduct, LongRowsPlusTimesInt8) {
  skewed_suite<std::int8_t>(b(), gbcuda::PlusTimes<std::int8_t>{}, GrB_PLUS_TIMES_SEMIRING_INT8, Check::Exact);
}
TEST_P(ValueProduct, LongRowsPlusPairUInt8) {  // counts modulo 256
  skewed_suite<std::uint8_t>(b(), gbcuda::PlusPair<std::uint8_t>{}, GxB_PLUS_PAIR_UINT8, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMinPlusUInt16) {
  skewed_suite<std::uint16_t>(b(), gbcuda::MinPlus<std::uint16_t>{}, GrB_MIN_PLUS_SEMIRING_UINT16, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMaxTimesInt16) {
  auto s = gbcuda::make_semiring(gbcuda::MaxMonoid<std::int16_t>{}, gbcuda::Times<std::int16_t>{});
  skewed_suite<std::int16_t>(b(), s, GrB_MAX_TIMES_SEMIRING_INT16, Check::Exact);
}
TEST_P(ValueProduct, LongRowsTimesSecondUInt16) {  // uint16_t products, which C computes in an int
  auto s = gbcuda::make_semiring(gbcuda::TimesMonoid<std::uint16_t>{}, gbcuda::Second<std::uint16_t>{});
  skewed_suite<std::uint16_t>(b(), s, GxB_TIMES_SECOND_UINT16, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMaxSecondUInt32) {
  skewed_suite<std::uint32_t>(b(), gbcuda::MaxSecond<std::uint32_t>{}, GxB_MAX_SECOND_UINT32, Check::Exact);
}
TEST_P(ValueProduct, LongRowsPlusTimesUInt64) {
  skewed_suite<std::uint64_t>(b(), gbcuda::PlusTimes<std::uint64_t>{}, GrB_PLUS_TIMES_SEMIRING_UINT64, Check::Exact);
}
TEST_P(ValueProduct, LongRowsMinFirstInt64) {
  skewed_suite<std::int64_t>(b(), gbcuda::MinFirst<std::int64_t>{}, GxB_MIN_FIRST_INT64, Check::Exact);
}

// A, u and w of three types and a semiring of a fourth: GraphBLAS casts A and u to the
// semiring's type, and the result to w's (NaN to 0, saturating at the integer range).
// Accumulated into w with Plus, or with Max where the results saturate (a Plus there would overflow
// int32: undefined behaviour, which the sanitizer build rejects).
template <class TW, class TA, class TU, class S>
void mixed_case(Backend b, const S& s, GrB_Semiring gs, bool is_vxm, double u_scale, bool max_accum = false) {
  Rng rng(99);
  const Index n = 3001;
  Coo<TA> coo = random_matrix<TA>(rng, n, n, 5.0);
  const gbcuda::Matrix<TA> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  for (double density : {0.01, 0.6}) {
    Tuples<TU> u0 = random_tuples<TU>(rng, n, density);
    for (auto& x : u0.vals) x = TU(double(x) * u_scale);
    const Vector<TU> u = gb_vector(u0, b);
    const GVec gu = grb_vector(u0);
    const Tuples<TW> w0 = random_tuples<TW>(rng, n, 0.3);
    Vector<TW> w = gb_vector(w0, b);
    GVec gw = grb_vector(w0);
    auto run = [&](const auto& accum) {
      if (is_vxm) gbcuda::vxm(w, gbcuda::no_mask, accum, s, u, A);
      else gbcuda::mxv(w, gbcuda::no_mask, accum, s, A, u);
    };
    if (max_accum) run(gbcuda::Max<TW>{});
    else run(gbcuda::Plus<TW>{});
    GrB_BinaryOp acc = max_accum ? Grb<TW>::max() : Grb<TW>::plus();
    if (is_vxm) OPS_GRB(GrB_vxm(gw.v, GrB_NULL, acc, gs, gu.v, gA.m, GrB_NULL));
    else OPS_GRB(GrB_mxv(gw.v, GrB_NULL, acc, gs, gA.m, gu.v, GrB_NULL));
    EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<TW>(gw.v), Check::Near, 1e-6))
        << (is_vxm ? "vxm" : "mxv") << " u-density " << density;
  }
}

TEST_P(ValueProduct, MixedTypesAreCastLikeGraphBLAS) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  // int32 matrix, float vector, double semiring, int64 result.
  mixed_case<std::int64_t, std::int32_t, float>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, false,
                                                1.0);
  mixed_case<std::int64_t, std::int32_t, float>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, true,
                                                1.0);
  // bool matrix (its values as 0/1) with a min-plus over doubles into float.
  mixed_case<float, bool, double>(b(), gbcuda::MinPlus<double>{}, GrB_MIN_PLUS_SEMIRING_FP64, true, 1.0);
  // Sums far past the int32 range saturate when w is int32; fractions are truncated.
  mixed_case<std::int32_t, double, double>(b(), gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, false, 3e8,
                                           /*max_accum=*/true);
  mixed_case<std::int32_t, float, float>(b(), gbcuda::PlusTimes<float>{}, GrB_PLUS_TIMES_SEMIRING_FP32, true, 0.37);
  if (b() == Backend::Cuda) {
    EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a mixed-type product ran on host copies";
  }
}

// Every built-in semiring over every value type runs on the GPU: the count of operations that
// fell back to host copies does not move. A user-defined operator does move it (so the check can
// fail).
template <class S, class TA = typename S::value_type, class TU = typename S::value_type>
void expect_on_gpu(const gbcuda::Matrix<TA>& A, const Vector<TU>& sparse_u, const Vector<TU>& dense_u,
                   const char* name) {
  using Z = typename S::value_type;
  const std::uint64_t before = gbcuda::host_fallbacks();
  Vector<Z> w(A.nrows(), Backend::Cuda);
  for (const Vector<TU>* u : {&sparse_u, &dense_u}) {
    gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, S{}, A, *u);
    gbcuda::vxm(w, w, gbcuda::no_accum, S{}, *u, A, gbcuda::desc::RSC);
  }
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << name << " ran on host copies";
  EXPECT_EQ(w.backend(), Backend::Cuda);
}

template <class T>
void every_semiring_of(Rng& rng, const char* type) {
  const Index n = 2000;
  const Coo<T> coo = random_matrix<T>(rng, n, n, 6.0);
  const gbcuda::Matrix<T> A = gb_matrix(coo);
  const Vector<T> sparse_u = gb_vector(random_tuples<T>(rng, n, 0.01), Backend::Cuda);
  const Vector<T> dense_u = gb_vector(random_tuples<T>(rng, n, 1.0), Backend::Cuda);
  SCOPED_TRACE(type);
  expect_on_gpu<gbcuda::PlusTimes<T>>(A, sparse_u, dense_u, "PlusTimes");
  expect_on_gpu<gbcuda::MinPlus<T>>(A, sparse_u, dense_u, "MinPlus");
  expect_on_gpu<gbcuda::MaxPlus<T>>(A, sparse_u, dense_u, "MaxPlus");
  expect_on_gpu<gbcuda::MinFirst<T>>(A, sparse_u, dense_u, "MinFirst");
  expect_on_gpu<gbcuda::MinSecond<T>>(A, sparse_u, dense_u, "MinSecond");
  expect_on_gpu<gbcuda::MaxFirst<T>>(A, sparse_u, dense_u, "MaxFirst");
  expect_on_gpu<gbcuda::MaxSecond<T>>(A, sparse_u, dense_u, "MaxSecond");
  expect_on_gpu<gbcuda::PlusFirst<T>>(A, sparse_u, dense_u, "PlusFirst");
  expect_on_gpu<gbcuda::PlusSecond<T>>(A, sparse_u, dense_u, "PlusSecond");
  expect_on_gpu<gbcuda::PlusPair<T>>(A, sparse_u, dense_u, "PlusPair");
  expect_on_gpu<gbcuda::LorLand<T>>(A, sparse_u, dense_u, "LorLand");
  expect_on_gpu<gbcuda::AnyPair<T>>(A, sparse_u, dense_u, "AnyPair");
  if constexpr (std::is_integral_v<T>) {
    expect_on_gpu<gbcuda::MinSecondI<T>>(A, sparse_u, dense_u, "MinSecondI");
    expect_on_gpu<gbcuda::AnySecondI<T>>(A, sparse_u, dense_u, "AnySecondI");
  }
}

TEST(ValueProductGpu, EveryBuiltinSemiringRunsOnTheGpu) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the check is about the GPU backend";
  Rng rng(7);
  every_semiring_of<std::int8_t>(rng, "int8");
  every_semiring_of<std::int16_t>(rng, "int16");
  every_semiring_of<std::int32_t>(rng, "int32");
  every_semiring_of<std::int64_t>(rng, "int64");
  every_semiring_of<std::uint8_t>(rng, "uint8");
  every_semiring_of<std::uint16_t>(rng, "uint16");
  every_semiring_of<std::uint32_t>(rng, "uint32");
  every_semiring_of<std::uint64_t>(rng, "uint64");
  every_semiring_of<float>(rng, "float");
  every_semiring_of<double>(rng, "double");
  every_semiring_of<bool>(rng, "bool");

  const std::uint64_t before = gbcuda::host_fallbacks();
  const gbcuda::Matrix<double> A = gb_matrix(random_matrix<double>(rng, 100, 100, 3.0));
  const Vector<double> u = gb_vector(random_tuples<double>(rng, 100, 0.5), Backend::Cuda);
  Vector<double> w(100, Backend::Cuda);
  auto user = gbcuda::make_semiring(gbcuda::PlusMonoid<double>{},
                                    gbcuda::make_binary_op<double>([](double x, double y) { return x - y; }));
  gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, user, A, u);
  EXPECT_EQ(gbcuda::host_fallbacks(), before + 1) << "a user-defined operator runs on host copies, counted";
}

#if GBCUDA_HAVE_CUDA
// The policy hands an unmasked PlusTimes pull of a full float or double input to cuSPARSE's SpMV,
// and nothing else: a mask, an input with absent entries, a pattern matrix, another type or a
// forced kernel keep the library's own kernels. Every answer is checked against GraphBLAS.
template <class Z>
void library_spmv_cases(Rng& rng, GrB_Semiring gs) {
  const Index n = 4099;
  Coo<Z> coo = random_matrix<Z>(rng, n, n, 6.0);
  for (Index t = 0; t < 3000; ++t) {  // a hub row and a hub column, and empty rows elsewhere
    coo.rows.push_back(7);
    coo.cols.push_back((t * 31) % n);
    coo.vals.push_back(random_value<Z>(rng));
    coo.rows.push_back((t * 37) % n);
    coo.cols.push_back(11);
    coo.vals.push_back(random_value<Z>(rng));
  }
  const gbcuda::Matrix<Z> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  const Tuples<Z> full = random_tuples<Z>(rng, n, 1.0), part = random_tuples<Z>(rng, n, 0.5);
  const Tuples<double> mask = random_mask(rng, n, 0.5);
  const Vector<double> m = gb_vector(mask, Backend::Cuda);
  const GVec gm = grb_vector(mask);
  auto check = [&](const Tuples<Z>& u0, bool is_vxm, bool masked, Descriptor d, bool want_library) {
    const Vector<Z> u = gb_vector(u0, Backend::Cuda);
    const GVec gu = grb_vector(u0);
    Vector<Z> w(n, Backend::Cuda);
    const std::uint64_t before = gbcuda::detail::cuda::library_calls();
    const gbcuda::PlusTimes<Z> s;
    if (is_vxm) {
      if (masked) gbcuda::vxm(w, m, gbcuda::no_accum, s, u, A, d);
      else gbcuda::vxm(w, gbcuda::no_mask, gbcuda::no_accum, s, u, A, d);
    } else {
      if (masked) gbcuda::mxv(w, m, gbcuda::no_accum, s, A, u, d);
      else gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, s, A, u, d);
    }
    const bool by_library = gbcuda::detail::cuda::library_calls() > before;
    GVec gw = grb_empty_vector<Z>(n);
    if (is_vxm) OPS_GRB(GrB_vxm(gw.v, masked ? gm.v : GrB_NULL, GrB_NULL, gs, gu.v, gA.m, GrB_NULL));
    else OPS_GRB(GrB_mxv(gw.v, masked ? gm.v : GrB_NULL, GrB_NULL, gs, gA.m, gu.v, GrB_NULL));
    const std::string what = std::string(is_vxm ? "vxm" : "mxv") + (masked ? " masked" : "") +
                             (u0.idx.size() == std::size_t(n) ? " full u" : " partial u") +
                             (d.kernel == gbcuda::ProductKernel::Pull ? " forced pull" : "");
    EXPECT_EQ(by_library, want_library) << what;
    EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<Z>(gw.v), Check::Near, 1e-5)) << what;
  };
  for (bool is_vxm : {false, true}) {
    check(full, is_vxm, false, {}, true);
    check(full, is_vxm, true, {}, false);
    check(part, is_vxm, false, {}, false);
    check(full, is_vxm, false, Descriptor{}.with_kernel(gbcuda::ProductKernel::Pull), false);
  }
  // The output's positions are the rows holding an entry: found by the matrix's first product,
  // then known on the host (no wait to count them). Every row holding one: a Dense output.
  Coo<Z> every_row = coo;
  std::vector<bool> has_entry(static_cast<std::size_t>(n), false);
  for (Index r : coo.rows) has_entry[std::size_t(r)] = true;
  for (Index i = 0; i < n; ++i) {
    if (has_entry[std::size_t(i)]) continue;
    every_row.rows.push_back(i);
    every_row.cols.push_back((i * 13) % n);
    every_row.vals.push_back(random_value<Z>(rng));
  }
  ASSERT_GT(every_row.rows.size(), coo.rows.size()) << "the random matrix should have empty rows";
  for (const Coo<Z>* c : {&coo, &every_row}) {
    const bool dense = c == &every_row;
    const gbcuda::Matrix<Z> M = gb_matrix(*c);
    const GMat gM = grb_matrix(*c);
    const Vector<Z> u = gb_vector(full, Backend::Cuda);
    const GVec gu = grb_vector(full);
    GVec gw = grb_empty_vector<Z>(n);
    OPS_GRB(GrB_mxv(gw.v, GrB_NULL, GrB_NULL, gs, gM.m, gu.v, GrB_NULL));
    for (int call = 0; call < 2; ++call) {
      Vector<Z> w(n, Backend::Cuda);
      const std::uint64_t before = gbcuda::detail::cuda::library_calls();
      gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<Z>{}, M, u);
      const gbcuda::HostWaits waits = gbcuda::host_waits();
      const Index count = w.nvals();
      EXPECT_EQ(gbcuda::detail::cuda::library_calls(), before + 1);
      EXPECT_EQ(gbcuda::host_waits().total(), waits.total()) << "the count is known on the host";
      EXPECT_EQ(count, dense ? n : Index(std::count(has_entry.begin(), has_entry.end(), true)));
      EXPECT_EQ(w.form(), dense ? gbcuda::VectorForm::Dense : gbcuda::VectorForm::Bitmap);
      EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<Z>(gw.v), Check::Near, 1e-5)) << (dense ? "dense" : "bitmap");
    }
  }
  // A pattern matrix has no values for cuSPARSE to read.
  Coo<Z> pattern = coo;
  pattern.vals.clear();
  const gbcuda::Matrix<Z> P = gb_matrix(pattern);
  Vector<Z> w(n, Backend::Cuda);
  const std::uint64_t before = gbcuda::detail::cuda::library_calls();
  gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<Z>{}, P, gb_vector(full, Backend::Cuda));
  EXPECT_EQ(gbcuda::detail::cuda::library_calls(), before) << "a pattern matrix";
}

// u'*A where u is a Bitmap whose count is still on the GPU (an apply's output) and A holds over a
// million entries: the GPU chooses between the pull and the push (value_product_on_device). A few
// entries and 2% of them (pushes), half of them (a pull), masked or not; the terms include
// negative values (float and double min/max atomics order them by their bits). Against GraphBLAS.
template <class Z, class S>
void device_chosen_case(const S& s, GrB_Semiring gs, Check check, double tol) {
  Rng rng(777);
  const Index n = 70001;
  const Coo<Z> coo = random_matrix<Z>(rng, n, n, 20.0);
  ASSERT_GE(Index(coo.vals.size()), Index(1) << 20) << "the GPU chooses only over a million entries";
  const gbcuda::Matrix<Z> A = gb_matrix(coo);
  const GMat gA = grb_matrix(coo);
  Vector<Z> x = Vector<Z>::full(n, Z(0), Backend::Cuda);
  gbcuda::assign(x, gbcuda::no_mask, gbcuda::Plus<Z>{}, gb_vector(random_tuples<Z>(rng, n, 1.0), Backend::Cuda));
  const Tuples<double> mask = random_mask(rng, n, 0.5);
  const Vector<double> m = gb_vector(mask, Backend::Cuda);
  const GVec gm = grb_vector(mask);
  for (double density : {0.0003, 0.02, 0.5})
    for (bool masked : {false, true}) {
      const Vector<double> pick = gb_vector(random_mask(rng, n, density), Backend::Cuda);
      Vector<Z> u(n, Backend::Cuda);
      gbcuda::apply(u, pick, gbcuda::no_accum, gbcuda::Identity<Z>{}, x, gbcuda::desc::S);
      ASSERT_EQ(u.store().form, gbcuda::VectorForm::Bitmap);
      ASSERT_TRUE(u.store().count_on_device);
      Descriptor d;
      d.mask_complement = masked;
      d.mask_structural = masked;
      Vector<Z> w(n, Backend::Cuda);
      if (masked) gbcuda::vxm(w, m, gbcuda::no_accum, s, u, A, d);
      else gbcuda::vxm(w, gbcuda::no_mask, gbcuda::no_accum, s, u, A, d);
      const GVec gu = grb_vector(tuples_of(u));
      GVec gw = grb_empty_vector<Z>(n);
      GrB_Descriptor gd = grb_desc(false, masked, masked, false, false);
      OPS_GRB(GrB_vxm(gw.v, masked ? gm.v : GrB_NULL, GrB_NULL, gs, gu.v, gA.m, gd));
      EXPECT_TRUE(same_vector(tuples_of(w), tuples_of<Z>(gw.v), check, tol))
          << "u-density " << density << (masked ? " complemented structural mask" : " no mask");
    }
}

TEST(ValueProductGpu, DirectionChosenOnTheGpuMatchesGraphBLAS) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the choice is made on the GPU";
  device_chosen_case<float>(gbcuda::MinPlus<float>{}, GrB_MIN_PLUS_SEMIRING_FP32, Check::Exact, 0);
  device_chosen_case<double>(gbcuda::MaxPlus<double>{}, GrB_MAX_PLUS_SEMIRING_FP64, Check::Exact, 0);
  device_chosen_case<double>(gbcuda::PlusTimes<double>{}, GrB_PLUS_TIMES_SEMIRING_FP64, Check::Near, 1e-9);
  device_chosen_case<std::int32_t>(gbcuda::MinPlus<std::int32_t>{}, GrB_MIN_PLUS_SEMIRING_INT32, Check::Exact, 0);
}

TEST(ValueProductGpu, FullArithmeticPullsGoToCusparse) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the check is about the GPU backend";
  Rng rng(31);
  library_spmv_cases<float>(rng, GrB_PLUS_TIMES_SEMIRING_FP32);
  library_spmv_cases<double>(rng, GrB_PLUS_TIMES_SEMIRING_FP64);
  // Another type of the same semiring stays with the library's kernels.
  const gbcuda::Matrix<std::int32_t> A = gb_matrix(random_matrix<std::int32_t>(rng, 500, 500, 4.0));
  Vector<std::int32_t> w(500, Backend::Cuda);
  const std::uint64_t before = gbcuda::detail::cuda::library_calls();
  gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<std::int32_t>{}, A,
              gb_vector(random_tuples<std::int32_t>(rng, 500, 1.0), Backend::Cuda));
  EXPECT_EQ(gbcuda::detail::cuda::library_calls(), before) << "int32";
}

// Two threads multiplying by one matrix at once: each thread's stream keeps its own cuSPARSE
// descriptor and work space in the matrix's state, and both get GraphBLAS's answer every time.
TEST(ValueProductGpu, CusparseFromTwoThreadsAtOnce) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the check is about the GPU backend";
  Rng rng(41);
  const Index n = 3001;
  const Coo<double> coo = random_matrix<double>(rng, n, n, 6.0);
  const gbcuda::Matrix<double> A = gb_matrix(coo);
  const Tuples<double> u0 = random_tuples<double>(rng, n, 1.0);
  const GMat gA = grb_matrix(coo);
  const GVec gu = grb_vector(u0);
  GVec gw = grb_empty_vector<double>(n);
  OPS_GRB(GrB_mxv(gw.v, GrB_NULL, GrB_NULL, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gu.v, GrB_NULL));
  const Tuples<double> want = tuples_of<double>(gw.v);
  const std::uint64_t before = gbcuda::detail::cuda::library_calls();
  std::atomic<int> wrong{0};
  auto work = [&] {
    try {
      const Vector<double> u = gb_vector(u0, Backend::Cuda);
      for (int k = 0; k < 20; ++k) {
        Vector<double> w(n, Backend::Cuda);
        gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, u);
        if (!same_vector(tuples_of(w), want, Check::Near, 1e-9)) ++wrong;
      }
    } catch (...) {
      wrong += 100;
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(gbcuda::detail::cuda::library_calls(), before + 40);
}
#endif

INSTANTIATE_TEST_SUITE_P(Backends, ValueProduct, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
