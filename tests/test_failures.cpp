// Failed operations leave their outputs as they were (the strong guarantee), and misuse fails
// safely: an allocation failure injected at the Nth allocation of an operation (host memory,
// device memory, and operator new in the library's own containers) must throw
// gbcuda::Error(OutOfMemory), never a bare std::bad_alloc, leave the output and the inputs
// unchanged, and leave every object usable: the same operation then gives GraphBLAS's answer.
// Also: moved-from objects, sizes past memory, index arguments of any integer type.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "support/ops_ref.hpp"

// operator new counts against the library's injected-failure budget (set_allocation_failure), so
// that the std::vector and std::string allocations inside operations fail too. (Its memory comes
// from malloc, so its deletes free it: GCC cannot see that they pair.) The nothrow forms are
// replaced as well: std::stable_sort's buffer comes from new(nothrow) and goes back through the
// plain delete, so under AddressSanitizer an unreplaced nothrow new would pair with our free().
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t bytes) {
  if (gbcuda::detail::injected_allocation_failure()) throw std::bad_alloc();
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  if (gbcuda::detail::injected_allocation_failure()) return nullptr;
  return std::malloc(bytes == 0 ? 1 : bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t& tag) noexcept { return ::operator new(bytes, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace ops_ref;
using gbcuda::Descriptor;
using gbcuda::Error;
using gbcuda::Matrix;
using gbcuda::Status;
using gbcuda::Vector;
namespace desc = gbcuda::desc;

const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new GraphBlasEnvironment);

class FailureTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
  Backend b() const { return GetParam(); }
};

// Everything an operation may change or read, as host tuples.
template <class T>
struct Snapshot {
  Tuples<T> t;
  Index size = 0;
  Backend where = Backend::Host;
};
template <class T>
Snapshot<T> snapshot(const Vector<T>& v) {
  return {tuples_of(v), v.size(), v.backend()};
}
template <class T>
::testing::AssertionResult unchanged(const Vector<T>& v, const Snapshot<T>& s) {
  if (v.size() != s.size) return ::testing::AssertionFailure() << "length " << v.size() << ", was " << s.size;
  if (v.backend() != s.where) return ::testing::AssertionFailure() << "moved to another backend";
  return same_vector(tuples_of(v), s.t, Check::Exact);
}

// Failures injected so far (each test checks that its operations did allocate, so that a failure
// was really tried).
int g_injected = 0;

// Runs op(w) with the k-th allocation failing, for k = 0, 1, ... until op runs through. Each
// failure must be Error(OutOfMemory) and leave w (and the inputs, checked by `inputs_ok`)
// as they were; the run that goes through must give `want`.
template <class T, class Op, class Inputs>
void fail_each_allocation(const std::string& what, const Vector<T>& w0, const Op& op, const Tuples<T>& want,
                          const Inputs& inputs_ok, Check check = Check::Exact) {
  const Snapshot<T> before = snapshot(w0);
  if (std::getenv("GBCUDA_TEST_VERBOSE")) std::fprintf(stderr, "%s\n", what.c_str());
  for (int k = 0; k < 400; ++k) {
    Vector<T> w = w0;
    bool failed = false;
    gbcuda::detail::set_allocation_failure(k);
    try {
      op(w);
      gbcuda::detail::set_allocation_failure(-1);
    } catch (const Error& e) {
      gbcuda::detail::set_allocation_failure(-1);
      failed = true;
      EXPECT_EQ(e.status(), Status::OutOfMemory) << what << ", allocation " << k << ": " << e.what();
    } catch (const std::bad_alloc&) {
      gbcuda::detail::set_allocation_failure(-1);
      ADD_FAILURE() << what << ", allocation " << k << ": a bare std::bad_alloc escaped";
      failed = true;
    }
    if (!failed) {
      EXPECT_TRUE(same_vector(tuples_of(w), want, check)) << what << " (after " << k << " allocations)";
      return;
    }
    ++g_injected;
    ASSERT_TRUE(unchanged(w, before)) << what << ": output changed by a failure at allocation " << k;
    ASSERT_TRUE(inputs_ok()) << what << ": an input changed by a failure at allocation " << k;
    op(w);  // usable afterwards: the same operation, no failure
    ASSERT_TRUE(same_vector(tuples_of(w), want, check)) << what << ": wrong answer after a failure at allocation " << k;
  }
  ADD_FAILURE() << what << ": still failing after 400 allocations";
}

// A GraphBLAS answer for op from w0 (grb_op(w) runs GraphBLAS's counterpart on a GrB_Vector).
template <class T, class GrbOp>
Tuples<T> graphblas_answer(const Tuples<T>& w0, const GrbOp& grb_op) {
  GVec gw = grb_vector(w0);
  OPS_GRB(grb_op(gw.v));
  return tuples_of<T>(gw.v);
}

struct Inputs {
  Index n = 0;
  Tuples<double> w0, u0, v0, mask0;
  Coo<double> a0;
};
Inputs make_inputs(std::uint64_t seed, Index n, double w_density, double mask_density) {
  Rng rng(seed);
  Inputs in;
  in.n = n;
  in.w0 = random_tuples<double>(rng, n, w_density);
  in.u0 = random_tuples<double>(rng, n, 0.3);
  in.v0 = random_tuples<double>(rng, n, 0.6);
  in.mask0 = random_mask(rng, n, mask_density);
  in.a0 = random_matrix<double>(rng, n, n, 3.0);
  return in;
}

// Every vector operation with every kind of mask, its k-th allocation failing.
TEST_P(FailureTest, VectorOperationsKeepTheirOutputOnFailure) {
  const Index n = 200;
  g_injected = 0;
  for (double wd : {0.0, 0.01, 0.5, 1.0}) {
    for (double md : {0.0, 0.02, 0.5}) {
      Inputs in = make_inputs(std::uint64_t(1000 * wd + 10 * md + 1), n, wd, md);
      const Vector<double> w0 = gb_vector(in.w0, b());
      const Vector<double> u = gb_vector(in.u0, b());
      const Vector<double> v = gb_vector(in.v0, b());
      const Vector<double> mask = gb_vector(in.mask0, b());
      const Matrix<double> A = gb_matrix(in.a0);
      GVec gu = grb_vector(in.u0), gv = grb_vector(in.v0), gm = grb_vector(in.mask0);
      GMat gA = grb_matrix(in.a0);
      const Snapshot<double> su = snapshot(u), sv = snapshot(v), sm = snapshot(mask);
      auto inputs_ok = [&] { return unchanged(u, su) && unchanged(v, sv) && unchanged(mask, sm); };
      for (const Descriptor& d : {Descriptor{}, desc::S, desc::RS, desc::SC, desc::RC}) {
        const std::string tag = " w-density " + std::to_string(wd) + " mask-density " + std::to_string(md) +
                                (d.replace ? " replace" : "") + (d.mask_structural ? " structural" : "") +
                                (d.mask_complement ? " complement" : "");
        GrB_Descriptor gd = grb_desc(d.replace, d.mask_structural, d.mask_complement, false, false);
        fail_each_allocation(
            "mxv" + tag, w0,
            [&](Vector<double>& w) {
              gbcuda::mxv(w, mask, gbcuda::Plus<double>{}, gbcuda::PlusTimes<double>{}, A, u, d);
            },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_mxv(w, gm.v, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, gA.m, gu.v, gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "vxm" + tag, w0,
            [&](Vector<double>& w) { gbcuda::vxm(w, mask, gbcuda::no_accum, gbcuda::MinPlus<double>{}, u, A, d); },
            graphblas_answer(
                in.w0,
                [&](GrB_Vector w) { return GrB_vxm(w, gm.v, GrB_NULL, GrB_MIN_PLUS_SEMIRING_FP64, gu.v, gA.m, gd); }),
            inputs_ok);
        fail_each_allocation(
            "assign scalar" + tag, w0, [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::no_accum, 2.5, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_assign_FP64(w, gm.v, GrB_NULL, 2.5, GrB_ALL, GrB_Index(n), gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "assign vector" + tag, w0,
            [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::Plus<double>{}, u, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_assign(w, gm.v, GrB_PLUS_FP64, gu.v, GrB_ALL, GrB_Index(n), gd);
                             }),
            inputs_ok);
        const std::vector<Index> idx = {3, 17, 40, 41, 199, 0};
        const std::vector<GrB_Index> gidx(idx.begin(), idx.end());
        Rng small_rng(7);
        Tuples<double> small = random_tuples<double>(small_rng, Index(idx.size()), 0.7);
        const Vector<double> us = gb_vector(small, b());
        GVec gus = grb_vector(small);
        fail_each_allocation(
            "assign indexed" + tag, w0,
            [&](Vector<double>& w) { gbcuda::assign(w, mask, gbcuda::no_accum, us, idx, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_assign(w, gm.v, GrB_NULL, gus.v, gidx.data(), gidx.size(), gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "apply" + tag, w0,
            [&](Vector<double>& w) {
              gbcuda::apply(w, mask, gbcuda::Min<double>{}, gbcuda::AdditiveInverse<double>{}, u, d);
            },
            graphblas_answer(
                in.w0, [&](GrB_Vector w) { return GrB_Vector_apply(w, gm.v, GrB_MIN_FP64, GrB_AINV_FP64, gu.v, gd); }),
            inputs_ok);
        fail_each_allocation(
            "select" + tag, w0,
            [&](Vector<double>& w) { gbcuda::select(w, mask, gbcuda::no_accum, gbcuda::ValueGt{}, u, 1.0, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_select_FP64(w, gm.v, GrB_NULL, GrB_VALUEGT_FP64, gu.v, 1.0, gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "ewise_add" + tag, w0,
            [&](Vector<double>& w) { gbcuda::ewise_add(w, mask, gbcuda::no_accum, gbcuda::Max<double>{}, u, v, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_eWiseAdd_BinaryOp(w, gm.v, GrB_NULL, GrB_MAX_FP64, gu.v, gv.v, gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "ewise_mult" + tag, w0,
            [&](Vector<double>& w) {
              gbcuda::ewise_mult(w, mask, gbcuda::Plus<double>{}, gbcuda::Times<double>{}, u, v, d);
            },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Vector_eWiseMult_BinaryOp(w, gm.v, GrB_PLUS_FP64, GrB_TIMES_FP64, gu.v, gv.v,
                                                                    gd);
                             }),
            inputs_ok);
        fail_each_allocation(
            "reduce rows" + tag, w0,
            [&](Vector<double>& w) { gbcuda::reduce(w, mask, gbcuda::no_accum, gbcuda::PlusMonoid<double>{}, A, d); },
            graphblas_answer(in.w0,
                             [&](GrB_Vector w) {
                               return GrB_Matrix_reduce_Monoid(w, gm.v, GrB_NULL, GrB_PLUS_MONOID_FP64, gA.m, gd);
                             }),
            inputs_ok);
      }
      // The BFS idioms with the mask being w itself or the input: assign(w, w, ...) and
      // assign(pi, q, no_accum, q, S).
      fail_each_allocation(
          "assign w<w> = 7", w0, [&](Vector<double>& w) { gbcuda::assign(w, w, gbcuda::no_accum, 7.0, desc::S); },
          graphblas_answer(in.w0,
                           [&](GrB_Vector w) {
                             return GrB_Vector_assign_FP64(w, w, GrB_NULL, 7.0, GrB_ALL, GrB_Index(n), GrB_DESC_S);
                           }),
          inputs_ok);
      fail_each_allocation(
          "assign w<u> = u", w0, [&](Vector<double>& w) { gbcuda::assign(w, u, gbcuda::no_accum, u, desc::S); },
          graphblas_answer(in.w0,
                           [&](GrB_Vector w) {
                             return GrB_Vector_assign(w, gu.v, GrB_NULL, gu.v, GrB_ALL, GrB_Index(n), GrB_DESC_S);
                           }),
          inputs_ok);
      // The boolean product on the frontier kernels (structural semiring, pattern matrix).
      Matrix<bool> P = gb_matrix(Coo<bool>{in.a0.nrows, in.a0.ncols, in.a0.rows, in.a0.cols, {}});
      const Vector<bool> frontier =
          gb_vector(Tuples<bool>{n, in.u0.idx, std::vector<bool>(in.u0.idx.size(), true)}, b());
      const Tuples<bool> visited0{n, in.mask0.idx, std::vector<bool>(in.mask0.idx.size(), true)};
      GMat gP = grb_matrix(Coo<bool>{in.a0.nrows, in.a0.ncols, in.a0.rows, in.a0.cols, {}});
      GVec gf = grb_vector(Tuples<bool>{n, in.u0.idx, std::vector<bool>(in.u0.idx.size(), true)});
      for (auto kernel : {gbcuda::ProductKernel::Auto, gbcuda::ProductKernel::Pull, gbcuda::ProductKernel::QueueWarp}) {
        const Vector<bool> visited = gb_vector(visited0, b());
        GVec gvis = grb_vector(visited0);
        fail_each_allocation(
            std::string("vxm any-pair ") + gbcuda::to_string(kernel), gb_vector(Tuples<bool>{n, {}, {}}, b()),
            [&](Vector<bool>& w) {
              gbcuda::vxm(w, visited, gbcuda::no_accum, gbcuda::AnyPair<bool>{}, frontier, P,
                          desc::RSC.with_kernel(kernel));
            },
            graphblas_answer(Tuples<bool>{n, {}, {}},
                             [&](GrB_Vector w) {
                               return GrB_vxm(w, gvis.v, GrB_NULL, GxB_ANY_PAIR_BOOL, gf.v, gP.m, GrB_DESC_RSC);
                             }),
            inputs_ok, Check::Pattern);
      }
    }
  }
  EXPECT_GT(g_injected, 500) << "the operations made fewer allocations than expected";
}

// Vector methods: set_element, remove_element, to_form, copies and moves under failure.
TEST_P(FailureTest, VectorMethodsKeepTheirVectorOnFailure) {
  const Index n = 300;
  g_injected = 0;
  for (double wd : {0.0, 0.01, 0.5, 1.0}) {
    Rng rng(std::uint64_t(wd * 100) + 3);
    Tuples<double> t0 = random_tuples<double>(rng, n, wd);
    const Vector<double> w0 = gb_vector(t0, b());
    auto no_inputs = [] { return ::testing::AssertionSuccess(); };
    Tuples<double> set_want = t0;
    {
      Vector<double> h = gb_vector(t0, Backend::Host);
      h.set_element(150, -4.5);
      set_want = tuples_of(h);
    }
    fail_each_allocation(
        "set_element", w0, [](Vector<double>& w) { w.set_element(150, -4.5); }, set_want, no_inputs);
    Tuples<double> rm_want;
    {
      Vector<double> h = gb_vector(t0, Backend::Host);
      h.remove_element(150);
      rm_want = tuples_of(h);
    }
    fail_each_allocation(
        "remove_element", w0, [](Vector<double>& w) { w.remove_element(150); }, rm_want, no_inputs);
    for (auto f : {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
      fail_each_allocation(
          std::string("to_form ") + gbcuda::to_string(f), w0, [f](Vector<double>& w) { w.to_form(f); }, t0, no_inputs);
    }
    fail_each_allocation(
        "copy assignment", gb_vector(Tuples<double>{n, {1}, {1.0}}, b()), [&](Vector<double>& w) { w = w0; }, t0,
        no_inputs);
    fail_each_allocation(
        "to another backend and back", w0,
        [&](Vector<double>& w) {
          Vector<double> other =
              w.to(b() == Backend::Host ? (gbcuda::cuda_available() ? Backend::Cuda : Backend::Host) : Backend::Host);
          w = other.to(b());
        },
        t0, no_inputs);
  }
  EXPECT_GT(g_injected, 10);
}

// Matrix-output operations leave C as it was when they fail.
TEST_P(FailureTest, MatrixOperationsKeepTheirOutputOnFailure) {
  Rng rng(11);
  const Index n = 120;
  const Coo<double> a0 = random_matrix<double>(rng, n, n, 4.0);
  const Matrix<double> A = gb_matrix(a0);
  const Coo<double> c0 = random_matrix<double>(rng, n, n, 1.0);
  auto matrix_tuples = [](const Matrix<double>& M) {
    std::vector<Index> r, c;
    std::vector<double> x;
    gbcuda::extract_tuples(M, r, c, x);
    return std::make_tuple(M.nrows(), M.ncols(), r, c, x);
  };
  auto run = [&](const std::string& what, const std::function<void(Matrix<double>&)>& op) {
    Matrix<double> ref = gb_matrix(c0);
    op(ref);
    const auto want = matrix_tuples(ref);
    for (int k = 0; k < 400; ++k) {
      Matrix<double> C = gb_matrix(c0);
      const auto before = matrix_tuples(C);
      gbcuda::detail::set_allocation_failure(k);
      try {
        op(C);
        gbcuda::detail::set_allocation_failure(-1);
        EXPECT_EQ(matrix_tuples(C), want) << what;
        return;
      } catch (const Error& e) {
        gbcuda::detail::set_allocation_failure(-1);
        EXPECT_EQ(e.status(), Status::OutOfMemory) << what << ": " << e.what();
      } catch (const std::bad_alloc&) {
        gbcuda::detail::set_allocation_failure(-1);
        ADD_FAILURE() << what << ", allocation " << k << ": a bare std::bad_alloc escaped";
      }
      ASSERT_EQ(matrix_tuples(C), before) << what << ": C changed by a failure at allocation " << k;
      op(C);
      ASSERT_EQ(matrix_tuples(C), want) << what << ": wrong answer after a failure at allocation " << k;
    }
    ADD_FAILURE() << what << ": still failing after 400 allocations";
  };
  run("select tril",
      [&](Matrix<double>& C) { gbcuda::select(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Tril{}, A, -1.0, b()); });
  run("apply ainv", [&](Matrix<double>& C) {
    gbcuda::apply(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::AdditiveInverse<double>{}, A, b());
  });
  run("mxm masked",
      [&](Matrix<double>& C) { gbcuda::mxm(C, A, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, A, desc::S, b()); });
}

// extract_tuples fills the caller's lists whole or not at all.
TEST_P(FailureTest, ExtractTuplesKeepsItsListsOnFailure) {
  Rng rng(13);
  const Coo<double> a0 = random_matrix<double>(rng, 150, 150, 4.0);
  const Matrix<double> A = gb_matrix(a0);
  if (b() == Backend::Cuda) A.csr(Backend::Cuda);
  const Vector<double> u = gb_vector(random_tuples<double>(rng, 500, 0.3), b());
  const std::vector<Index> old_idx = {7, 8, 9};
  const std::vector<double> old_vals = {1.0, 2.0, 3.0};
  int injected = 0;
  for (int which = 0; which < 2; ++which) {
    for (int k = 0; k < 200; ++k) {
      std::vector<Index> rows = old_idx, cols = old_idx;
      std::vector<double> vals = old_vals;
      gbcuda::detail::set_allocation_failure(k);
      try {
        if (which == 0) gbcuda::extract_tuples(A, rows, cols, vals);
        else u.extract_tuples(rows, vals);
        gbcuda::detail::set_allocation_failure(-1);
        EXPECT_EQ(vals.size(), which == 0 ? std::size_t(A.nvals()) : std::size_t(u.nvals()));
        break;
      } catch (const Error& e) {
        gbcuda::detail::set_allocation_failure(-1);
        ++injected;
        EXPECT_EQ(e.status(), Status::OutOfMemory);
      } catch (const std::bad_alloc&) {
        gbcuda::detail::set_allocation_failure(-1);
        ADD_FAILURE() << "a bare std::bad_alloc escaped";
      }
      ASSERT_EQ(rows, old_idx) << (which == 0 ? "matrix" : "vector") << ", failure at allocation " << k;
      ASSERT_EQ(cols, old_idx);
      ASSERT_EQ(vals, old_vals);
    }
  }
  EXPECT_GT(injected, 2);
}

// ---- misuse ------------------------------------------------------------------------------------

// A moved-from Vector is valid and empty: length 0, no entries, usable as an output again.
TEST_P(FailureTest, MovedFromObjectsAreEmpty) {
  Vector<double> v = gb_vector(Tuples<double>{5, {1, 3}, {2.0, 7.0}}, b());
  Vector<double> w = std::move(v);
  EXPECT_EQ(w.nvals(), 2);
  EXPECT_EQ(v.size(), 0);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(v.nvals(), 0);
  EXPECT_EQ(v.backend(), b());
  EXPECT_TRUE(v.to_dense_vector(0.0).empty());
  EXPECT_THROW(v.set_element(0, 1.0), Error);
  std::vector<Index> idx;
  std::vector<double> vals;
  v.extract_tuples(idx, vals);
  EXPECT_TRUE(idx.empty());
  // As an input of matching length (0): a product with a 3 x 0 matrix gives nothing.
  Matrix<double> Z = Matrix<double>::from_coo(3, 0, std::vector<Index>{}, std::vector<Index>{});
  Vector<double> y(3, b());
  gbcuda::mxv(y, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, Z, v);
  EXPECT_EQ(y.nvals(), 0);
  // Moved-into is usable, and move-assigning over a vector replaces it.
  v = Vector<double>::full(4, 2.0, b());
  EXPECT_EQ(v.to_dense_vector(0.0), std::vector<double>(4, 2.0));
  Vector<double> u = gb_vector(Tuples<double>{3, {0}, {1.0}}, b());
  u = std::move(w);
  EXPECT_EQ(u.size(), 5);
  EXPECT_EQ(w.size(), 0);  // NOLINT(bugprone-use-after-move)

  Matrix<double> A =
      Matrix<double>::from_coo(3, 3, std::vector<Index>{0, 1}, std::vector<Index>{1, 2}, std::vector<double>{1.0, 2.0});
  Matrix<double> B = std::move(A);
  EXPECT_EQ(B.nvals(), 2);
  EXPECT_EQ(A.nrows(), 0);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(A.ncols(), 0);
  EXPECT_EQ(A.nvals(), 0);
  EXPECT_EQ(A.csr(b()).nrows, 0);
  EXPECT_EQ(A.transpose().nrows(), 0);
  Matrix<double> C;
  C = std::move(B);
  EXPECT_EQ(C.nvals(), 2);
  EXPECT_EQ(B.nvals(), 0);  // NOLINT(bugprone-use-after-move)
}

// Index arguments of any integer type, checked.
TEST_P(FailureTest, IndicesOfAnyIntegerType) {
  const std::vector<int> ri = {0, 1, 2};
  const std::vector<std::uint64_t> cu = {1, 2, 0};
  Matrix<double> A = Matrix<double>::from_coo(3, 3, ri, cu, std::vector<double>{1.0, 2.0, 3.0});
  EXPECT_EQ(A.nvals(), 3);
  const std::vector<GrB_Index> too_big = {0, 1, std::numeric_limits<std::uint64_t>::max()};
  try {
    (void)Matrix<double>::from_coo(3, 3, ri, too_big, std::vector<double>{1.0, 2.0, 3.0});
    ADD_FAILURE() << "an index past 2^63 was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidIndex);
    EXPECT_NE(std::string(e.what()).find("18446744073709551615"), std::string::npos) << e.what();
  }
  const std::vector<short> neg = {0, -1, 2};
  EXPECT_THROW((void)Matrix<double>::from_coo(3, 3, neg, ri, std::vector<double>{1.0, 2.0, 3.0}), Error);

  Vector<float> v(10, b());
  v.set_element(3u, 1.5f);
  v.set_element(std::uint64_t(4), 2.5f);
  v.set_element(short(5), 3.5f);
  EXPECT_EQ(v.nvals(), 3);
  EXPECT_EQ(v.element(4u), 2.5f);
  EXPECT_THROW(v.set_element(std::uint64_t(10), 1.0f), Error);
  EXPECT_THROW(v.set_element(std::numeric_limits<std::uint64_t>::max(), 1.0f), Error);
  EXPECT_THROW(v.set_element(-1, 1.0f), Error);
  v.remove_element(3u);
  EXPECT_EQ(v.nvals(), 2);

  Vector<float> t = Vector<float>::from_tuples(10, std::vector<std::uint32_t>{1, 9}, std::vector<float>{1, 2}, b());
  EXPECT_EQ(t.nvals(), 2);
  EXPECT_THROW((void)Vector<float>::from_tuples(10, std::vector<std::uint32_t>{10}, std::vector<float>{1}, b()), Error);

  Vector<float> w(10, b());
  gbcuda::assign(w, gbcuda::no_mask, gbcuda::no_accum, 4.0f, std::vector<int>{2, 7});
  EXPECT_EQ(w.nvals(), 2);
  EXPECT_THROW(gbcuda::assign(w, gbcuda::no_mask, gbcuda::no_accum, 4.0f, std::vector<std::int64_t>{2, 10}), Error);
}

// Sizes past what memory allows give Error(OutOfMemory) with the bytes needed, never a bare
// std::bad_alloc. Run in a child process whose address space is capped, so the allocation
// fails at once instead of taking the machine's memory.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GBCUDA_CAN_CAP_ADDRESS_SPACE 0  // the sanitizers reserve terabytes of address space
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GBCUDA_CAN_CAP_ADDRESS_SPACE 0
#endif
#endif
#ifndef GBCUDA_CAN_CAP_ADDRESS_SPACE
#define GBCUDA_CAN_CAP_ADDRESS_SPACE 1
#endif

int out_of_memory_status(const std::function<void()>& f) {
  rlimit cap{};
  getrlimit(RLIMIT_AS, &cap);
  cap.rlim_cur = rlim_t(4) << 30;  // 4 GiB: far below the allocations below
  setrlimit(RLIMIT_AS, &cap);
  try {
    f();
  } catch (const Error& e) {
    const std::string m = e.what();
    if (e.status() == Status::OutOfMemory && m.find("MiB") != std::string::npos) std::_Exit(0);
    std::_Exit(2);
  } catch (const std::bad_alloc&) {
    std::_Exit(3);
  } catch (...) {
    std::_Exit(4);
  }
  std::_Exit(5);  // it fitted after all
}

TEST(OutOfMemory, HugeSizesGiveAnError) {
  if (!GBCUDA_CAN_CAP_ADDRESS_SPACE) GTEST_SKIP() << "a sanitizer build cannot cap its address space";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Index huge = (Index(1) << 31) - 1;
  EXPECT_EXIT(out_of_memory_status([&] {
                (void)Matrix<double>::from_coo(huge, huge, std::vector<Index>{0, 5}, std::vector<Index>{7, huge - 1},
                                               std::vector<double>{1.0, 2.0});
              }),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(out_of_memory_status([&] { (void)Vector<double>::full(huge, 1.0); }), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(out_of_memory_status([&] {
                Vector<std::int64_t> v(huge);
                v.set_element(huge - 1, 3);
              }),
              ::testing::ExitedWithCode(0), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, FailureTest, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
