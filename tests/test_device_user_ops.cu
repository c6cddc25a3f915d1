// User-defined operators compiled by nvcc (make_device_unary_op, make_device_binary_op,
// make_device_monoid): on the CUDA backend apply, ewise_add/ewise_mult and mxv/vxm run them in
// kernels of this translation unit, with no host copy, and give what the host backend gives
// with the same operators (the host backend's user operators are checked against GraphBLAS in
// test_ops). A CUDA translation unit, built only when the library has its CUDA backend.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gbcuda/gbcuda.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using gbcuda::Vector;

// Device-callable functors (no --extended-lambda needed). Not commutative where it matters, so
// swapped operands show.
struct Affine {
  __host__ __device__ double operator()(double x) const { return 3.0 * x - 1.0; }
};
struct Weighted {
  __host__ __device__ double operator()(double x, double y) const { return x + 2.0 * y; }
};
struct AbsMax {
  __host__ __device__ double operator()(double a, double b) const { return fabs(a) < fabs(b) ? fabs(b) : fabs(a); }
};
struct IntHalf {  // int64 in, int32 out: the result type differs from the input's
  __host__ __device__ std::int32_t operator()(std::int64_t x) const { return std::int32_t(x / 2); }
};

Vector<double> random_vector(std::mt19937_64& rng, Index n, double density, Backend b) {
  std::vector<Index> idx;
  std::vector<double> vals;
  std::bernoulli_distribution keep(density);
  std::uniform_int_distribution<int> v(-40, 80);
  for (Index i = 0; i < n; ++i)
    if (keep(rng)) {
      idx.push_back(i);
      vals.push_back(v(rng) / 8.0);
    }
  return Vector<double>::from_tuples(n, idx, vals, b);
}

template <class T>
void expect_same(const Vector<T>& got, const Vector<T>& want, const char* what) {
  std::vector<Index> gi, wi;
  std::vector<T> gv, wv;
  got.extract_tuples(gi, gv);
  want.extract_tuples(wi, wv);
  ASSERT_EQ(gi, wi) << what;
  for (std::size_t k = 0; k < gv.size(); ++k)
    EXPECT_NEAR(double(gv[k]), double(wv[k]), 1e-12) << what << " at " << gi[k];
}

class DeviceUserOps : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: this build has no usable GPU";
  }
};

TEST_F(DeviceUserOps, RunOnTheGpuAndMatchTheHost) {
  std::mt19937_64 rng(7);
  const Index n = 3000;
  const auto unary = gbcuda::make_device_unary_op<double>(Affine{});
  const auto binary = gbcuda::make_device_binary_op<double>(Weighted{});
  const auto semiring = gbcuda::make_semiring(gbcuda::make_device_monoid<double>(AbsMax{}, 0.0),
                                              gbcuda::make_device_binary_op<double>(Weighted{}));
  // A matrix with short and long rows (row 0 reaches every column).
  std::vector<Index> r, c;
  std::vector<double> x;
  std::uniform_int_distribution<Index> col(0, n - 1);
  std::uniform_int_distribution<int> val(-20, 20);
  for (Index i = 0; i < n; ++i)
    for (int e = 0; e < (i % 7) * 3; ++e) r.push_back(i), c.push_back(col(rng)), x.push_back(val(rng) / 4.0);
  for (Index j = 0; j < n; ++j) r.push_back(0), c.push_back(j), x.push_back(0.5);
  const auto A = gbcuda::Matrix<double>::from_coo(n, n, r, c, x);

  const std::uint64_t before = gbcuda::host_fallbacks();
  for (double density : {0.01, 0.5, 1.0}) {
    const Vector<double> uh = random_vector(rng, n, density, Backend::Host);
    const Vector<double> vh = random_vector(rng, n, 0.4, Backend::Host);
    const Vector<double> mh = random_vector(rng, n, 0.5, Backend::Host);
    const Vector<double> u = uh.to(Backend::Cuda), v = vh.to(Backend::Cuda), m = mh.to(Backend::Cuda);
    auto both = [&](const char* what, auto&& op_on) {
      Vector<double> wg(n, Backend::Cuda), wh(n, Backend::Host);
      op_on(wg, u, v, m);
      op_on(wh, uh, vh, mh);
      EXPECT_EQ(wg.backend(), Backend::Cuda);
      expect_same(wg.to(Backend::Host), wh, what);
    };
    both("apply", [&](auto& w, const auto& a, const auto&, const auto& mask) {
      gbcuda::apply(w, mask, gbcuda::Plus<double>{}, unary, a, gbcuda::desc::S);
    });
    both("apply bound", [&](auto& w, const auto& a, const auto&, const auto&) {
      gbcuda::apply(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_second(binary, 1.5), a);
    });
    both("ewise_add", [&](auto& w, const auto& a, const auto& b2, const auto&) {
      gbcuda::ewise_add(w, gbcuda::no_mask, gbcuda::no_accum, binary, a, b2);
    });
    both("ewise_mult", [&](auto& w, const auto& a, const auto& b2, const auto& mask) {
      gbcuda::ewise_mult(w, mask, gbcuda::no_accum, binary, a, b2, gbcuda::desc::RC);
    });
    both("mxv", [&](auto& w, const auto& a, const auto&, const auto&) {
      gbcuda::mxv(w, gbcuda::no_mask, gbcuda::no_accum, semiring, A, a);
    });
    both("vxm masked", [&](auto& w, const auto& a, const auto&, const auto& mask) {
      gbcuda::vxm(w, mask, gbcuda::Max<double>{}, semiring, a, A, gbcuda::desc::SC);
    });
  }
  // A result type other than the input's.
  const Vector<std::int64_t> ui = Vector<std::int64_t>::from_tuples(10, {1, 4, 9}, {7, -9, 40}, Backend::Cuda);
  Vector<std::int32_t> half(10, Backend::Cuda);
  gbcuda::apply(half, gbcuda::no_mask, gbcuda::no_accum, gbcuda::make_device_unary_op<std::int32_t>(IntHalf{}), ui);
  std::vector<Index> hi;
  std::vector<std::int32_t> hv;
  half.extract_tuples(hi, hv);
  EXPECT_EQ(hi, (std::vector<Index>{1, 4, 9}));
  EXPECT_EQ(hv, (std::vector<std::int32_t>{3, -4, 20}));
  EXPECT_EQ(gbcuda::host_fallbacks(), before) << "a device operator ran on host copies";
}

}  // namespace
