// GPU work per operation: each operation below is captured alone as the body of a device_loop
// (device_loop.hpp), and the captured graph's nodes are counted (LoopResult::kernels, copies).
// Each operation is held to its kernel count by the form of its inputs, short (one-block
// kernels) and long; the table is docs/api.md's "What the GPU runs per operation". Each case also
// checks the loop's answer against the same operation run three times on the host backend.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gbcuda/gbcuda.hpp"
#include "support/graphs.hpp"

namespace {

using namespace gbcuda;

#define REQUIRE_CUDA() \
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: kernels can only be counted on one"

// A vector of n with every `stride`-th position present (values 1 - i % 7, zeros among them),
// in the form asked for (Dense: stride 1).
Vector<double> spaced(Index n, Index stride, VectorForm form, Backend where) {
  std::vector<Index> idx;
  std::vector<double> val;
  for (Index i = 0; i < n; i += stride) {
    idx.push_back(i);
    val.push_back(double(1 - i % 7));
  }
  Vector<double> v = Vector<double>::from_tuples(n, idx, val, where);
  v.to_form(form);
  return v;
}

struct Count {
  int kernels = -1;
  int copies = 0;
  std::string note;
};

// The operation `op(w, u, v)` as a device loop's body of three runs (one before the capture, two
// by the graph), on CUDA vectors; w starts empty. Checks w against the host's and returns the
// counts of one run in the graph.
Count count_of(const std::function<void(Vector<double>&, const Vector<double>&, const Vector<double>&)>& op,
               VectorForm form, Index n = 1000) {
  const bool full = form == VectorForm::Dense;
  const Vector<double> uh = spaced(n, full ? 1 : 3, form, Backend::Host),
                       vh = spaced(n, full ? 1 : 5, form, Backend::Host);
  const Vector<double> u = uh.to(Backend::Cuda), v = vh.to(Backend::Cuda);
  Vector<double> w(n, Backend::Cuda), wh(n, Backend::Host);
  LoopOptions o;
  o.max_iterations = 3;
  o.require_device = true;
  const LoopResult r = device_loop([&] { op(w, u, v); }, u, o);
  EXPECT_TRUE(r.on_device) << r.note;
  EXPECT_EQ(r.iterations, 3);
  for (int i = 0; i < 3; ++i) op(wh, uh, vh);
  std::vector<Index> gi, hi;
  std::vector<double> gv, hv;
  w.extract_tuples(gi, gv);
  wh.extract_tuples(hi, hv);
  EXPECT_EQ(gi, hi) << "the loop's pattern differs from the host's";
  EXPECT_EQ(gv, hv) << "the loop's values differ from the host's";
  return {r.kernels, r.copies, r.note};
}

// Kernels of one run, by the inputs' form (Sparse, Bitmap, Dense), on short vectors (n = 1000)
// and long ones (n = 2^17, where the one-block kernels give way to grid-wide ones).
struct Case {
  const char* name;
  std::function<void(Vector<double>&, const Vector<double>&, const Vector<double>&)> op;
  int short_kernels[3];
  int long_kernels[3];
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"apply",
       [](auto& w, const auto& u, const auto&) { apply(w, no_mask, no_accum, Abs<double>{}, u); },
       {1, 1, 1},
       {1, 1, 1}},
      {"apply, masked, accumulated",
       [](auto& w, const auto& u, const auto& v) { apply(w, v, Plus<double>{}, Abs<double>{}, u); },
       {3, 2, 2},
       {3, 2, 2}},
      {"apply, structural mask, accumulated",
       [](auto& w, const auto& u, const auto& v) { apply(w, v, Plus<double>{}, Abs<double>{}, u, desc::S); },
       {3, 1, 1},
       {3, 1, 1}},
      {"ewise_add",
       [](auto& w, const auto& u, const auto& v) { ewise_add(w, no_mask, no_accum, Plus<double>{}, u, v); },
       {1, 1, 1},
       {3, 1, 1}},
      {"ewise_mult",
       [](auto& w, const auto& u, const auto& v) { ewise_mult(w, no_mask, no_accum, Times<double>{}, u, v); },
       {1, 1, 1},
       {3, 1, 1}},
      {"assign, structural mask",
       [](auto& w, const auto& u, const auto&) { assign(w, u, no_accum, u, desc::S); },
       {1, 1, 0},
       {1, 1, 0}},
      {"assign of a scalar, masked",
       [](auto& w, const auto& u, const auto&) { assign(w, u, no_accum, 2.0, desc::S); },
       {1, 1, 1},
       {1, 1, 1}},
      {"select",
       [](auto& w, const auto& u, const auto&) { select(w, no_mask, no_accum, ValueGt{}, u, 0.0); },
       {1, 1, 1},
       {1, 1, 1}},
  };
  return c;
}

int form_slot(VectorForm f) { return f == VectorForm::Sparse ? 0 : f == VectorForm::Bitmap ? 1 : 2; }

class CudaKernelCounts : public ::testing::TestWithParam<VectorForm> {};

TEST_P(CudaKernelCounts, ElementWiseOperations) {
  REQUIRE_CUDA();
  for (const Case& c : cases()) {
    for (const Index n : {Index(1000), Index(1) << 17}) {
      const Count k = count_of(c.op, GetParam(), n);
      const int want = n <= 4096 ? c.short_kernels[form_slot(GetParam())] : c.long_kernels[form_slot(GetParam())];
      const std::string what = std::string(c.name) + " on " + to_string(GetParam()) + " inputs of " +
                               std::to_string(n) + ": " + std::to_string(k.kernels) + " kernels, " +
                               std::to_string(k.copies) + " copies";
      std::printf("%s\n", what.c_str());
      EXPECT_EQ(k.kernels, want) << what << " (" << k.note << ")";
      EXPECT_LE(k.copies, 4) << what;
    }
  }
}
INSTANTIATE_TEST_SUITE_P(Forms, CudaKernelCounts,
                         ::testing::Values(VectorForm::Sparse, VectorForm::Bitmap, VectorForm::Dense),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// A reduce into a vector of size 1 (a scalar left on the device): one kernel whatever u's form
// and length (and a fill of the blocks' arrival count when it takes more than one block), the
// value the host's.
TEST_P(CudaKernelCounts, ReduceIntoAVectorIsOneKernel) {
  REQUIRE_CUDA();
  for (const Index n : {Index(200), Index(1000), Index(1) << 20}) {
    const bool full = GetParam() == VectorForm::Dense;
    const Vector<double> uh = spaced(n, full ? 1 : 3, GetParam(), Backend::Host);
    const Vector<double> u = uh.to(Backend::Cuda);
    Vector<double> s(1, Backend::Cuda);
    LoopOptions o;
    o.max_iterations = 3;
    o.require_device = true;
    const LoopResult r = device_loop([&] { reduce(s, no_accum, PlusMonoid<double>{}, u); }, u, o);
    const std::string what = "reduce of " + std::string(to_string(GetParam())) + " " + std::to_string(n) + ": " +
                             std::to_string(r.kernels) + " kernels, " + std::to_string(r.copies) + " copies";
    std::printf("%s\n", what.c_str());
    ASSERT_TRUE(r.on_device) << r.note;
    EXPECT_EQ(r.kernels, 1) << what;
    EXPECT_LE(r.copies, n <= 256 ? 0 : 1) << what;
    EXPECT_EQ(s.element(0), std::optional<double>(reduce(PlusMonoid<double>{}, uh))) << what;
  }
}

// A value product pulled over rows none of which is long (grid:32:32, at most 4 entries a row) is
// the pull's one kernel: the pass for long rows is skipped, the matrix's longest row being known.
// A star's hub row (2,000 entries) takes that pass (its kernels and a scan): more than one.
TEST(CudaKernelCountsProduct, PullWithoutLongRowsIsOneKernel) {
  REQUIRE_CUDA();
  auto kernels_of = [](const Matrix<bool>& A) {
    const Vector<double> u = Vector<double>::full(A.nrows(), 1.0, Backend::Cuda);
    Vector<double> w(A.ncols(), Backend::Cuda);
    LoopOptions o;
    o.max_iterations = 3;
    o.require_device = true;
    const LoopResult r = device_loop(
        [&] { vxm(w, no_mask, no_accum, PlusFirst<double>{}, u, A, desc::none.with_direction(Direction::Pull)); }, u,
        o);
    EXPECT_TRUE(r.on_device) << r.note;
    // In-degrees: every product's answer the same.
    const std::vector<Index> in = A.in_degrees();
    std::vector<double> want(in.begin(), in.end());
    EXPECT_EQ(w.to_dense_vector(0.0), want);
    return r.kernels;
  };
  EXPECT_EQ(kernels_of(generate_graph("grid:32:32", Backend::Cuda)), 1);
  EXPECT_GT(kernels_of(gbtest::star_graph(2001)), 1);
}

// One level of a BFS on a small graph (the frontier a few vertices): the product is one kernel.
TEST(CudaKernelCountsProduct, NarrowLevelIsOneKernel) {
  REQUIRE_CUDA();
  const Matrix<bool> A = generate_graph("grid:32:32", Backend::Cuda);
  const Index n = A.nrows();
  Vector<std::int64_t> pi(n, Backend::Cuda), q(n, Backend::Cuda), q0(n, Backend::Cuda);
  pi.set_form_control(FormControl::Bitmap);
  pi.set_element(0, 0);
  q0.set_element(0, 0);
  // The same frontier each run: q = q0' A over ANY_SECONDI, masked by the visited (pi) only.
  LoopOptions o;
  o.max_iterations = 3;
  o.require_device = true;
  const LoopResult r = device_loop([&] { vxm(q, pi, no_accum, AnySecondI<std::int64_t>{}, q0, A, desc::RSC); }, q0, o);
  ASSERT_TRUE(r.on_device) << r.note;
  EXPECT_EQ(r.kernels, 1) << r.kernels << " kernels, " << r.copies << " copies";
  EXPECT_EQ(r.copies, 0) << r.kernels << " kernels, " << r.copies << " copies";
  EXPECT_EQ(q.nvals(), 2);  // vertex 0's two neighbours in the grid
}

}  // namespace
