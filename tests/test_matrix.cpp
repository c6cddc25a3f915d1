// Matrix and Vector basics: building, duplicates, transpose, cached properties, forms, backends.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <sstream>

#include "gbcuda/context.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/operations.hpp"
#include "gbcuda/print.hpp"
#include "gbcuda/vector.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;

template <class T>
std::vector<T> host(const gbcuda::detail::Array<T>& a) {
  return a.to_vector();
}

TEST(Matrix, FromCooSortsAndMergesDuplicates) {
  std::vector<Index> r{2, 0, 0, 2, 0}, c{1, 2, 0, 1, 2};
  std::vector<double> v{1, 2, 3, 4, 5};
  const auto A = gbcuda::Matrix<double>::from_coo(3, 3, r, c, v);
  EXPECT_EQ(A.nvals(), 3);
  const auto& a = A.csr();
  EXPECT_EQ(host(a.row_ptr), (std::vector<gbcuda::Offset>{0, 2, 2, 3}));
  EXPECT_EQ(host(a.col_idx), (std::vector<gbcuda::Vid>{0, 2, 1}));
  EXPECT_EQ(host(a.values), (std::vector<double>{3, 7, 5}));  // duplicates summed
  const auto L = gbcuda::Matrix<double>::from_coo(3, 3, r, c, v, gbcuda::DuplicatePolicy::Last);
  EXPECT_EQ(host(L.csr().values), (std::vector<double>{3, 5, 4}));
  EXPECT_THROW(gbcuda::Matrix<double>::from_coo(3, 3, r, c, v, gbcuda::DuplicatePolicy::Error), gbcuda::Error);
}

TEST(Matrix, PatternIsIso) {
  std::vector<Index> r{0, 1}, c{1, 0};
  const auto A = gbcuda::Matrix<bool>::from_coo(2, 2, r, c);
  EXPECT_TRUE(A.is_iso());
  EXPECT_TRUE(A.csr().values.empty());
  EXPECT_TRUE(A.is_symmetric_structure());
}

TEST(Matrix, RejectsBadInput) {
  std::vector<Index> r{0, 3}, c{1, 0};
  try {
    gbcuda::Matrix<bool>::from_coo(3, 3, r, c);
    FAIL();
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex);
  }
  EXPECT_THROW(gbcuda::Matrix<bool>::from_coo(-1, 3, {}, {}), gbcuda::Error);
  EXPECT_THROW(gbcuda::Matrix<bool>::from_csr(2, 2, {0, 1}, {0}), gbcuda::Error);        // short row_ptr
  EXPECT_THROW(gbcuda::Matrix<bool>::from_csr(2, 2, {0, 2, 1}, {0, 1}), gbcuda::Error);  // decreasing
  EXPECT_THROW(gbcuda::Matrix<bool>::from_csr(2, 2, {0, 1, 2}, {0, 5}), gbcuda::Error);  // column range
}

TEST(Matrix, FromCsrSortsRows) {
  const auto A = gbcuda::Matrix<int>::from_csr(2, 4, {0, 3, 4}, {3, 1, 3, 0}, {1, 2, 3, 4});
  EXPECT_EQ(A.nvals(), 3);
  EXPECT_EQ(host(A.csr().col_idx), (std::vector<gbcuda::Vid>{1, 3, 0}));
  EXPECT_EQ(host(A.csr().values), (std::vector<int>{2, 4, 4}));
}

// Vectors moved into from_csr are taken over, and unpack_csr gives them back, without a copy
// (GxB pack / unpack); a shared matrix unpacks by a copy and its copy keeps the entries.
TEST(Matrix, PackAndUnpackWithoutCopies) {
  std::vector<gbcuda::Offset> rp{0, 2, 3, 3};
  std::vector<gbcuda::Vid> ci{0, 2, 1};
  std::vector<double> v{1.5, 2.5, 3.5};
  const gbcuda::Offset* rp0 = rp.data();
  const gbcuda::Vid* ci0 = ci.data();
  const double* v0 = v.data();
  auto A = gbcuda::Matrix<double>::from_csr(3, 3, std::move(rp), std::move(ci), std::move(v));
  EXPECT_EQ(A.csr().row_ptr.data(), rp0);
  EXPECT_EQ(A.csr().col_idx.data(), ci0);
  EXPECT_EQ(A.csr().values.data(), v0);
  gbcuda::Matrix<double> B = A;
  const gbcuda::CsrVectors<double> copied = A.unpack_csr();
  EXPECT_NE(copied.col_idx.data(), ci0);
  EXPECT_EQ(copied.col_idx, (std::vector<gbcuda::Vid>{0, 2, 1}));
  EXPECT_EQ(A.nrows(), 3);
  EXPECT_EQ(A.ncols(), 3);
  EXPECT_EQ(A.nvals(), 0);
  EXPECT_EQ(B.nvals(), 3);
  const gbcuda::CsrVectors<double> moved = B.unpack_csr();
  EXPECT_EQ(moved.row_ptr.data(), rp0);
  EXPECT_EQ(moved.col_idx.data(), ci0);
  EXPECT_EQ(moved.values.data(), v0);
  EXPECT_EQ(moved.row_ptr, (std::vector<gbcuda::Offset>{0, 2, 3, 3}));
  EXPECT_EQ(moved.values, (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(B.nvals(), 0);
  // A pattern unpacks with no values and its iso value; a bool matrix's values are copied.
  const std::vector<gbcuda::Index> r{0, 1}, c{1, 0};
  auto P = gbcuda::Matrix<bool>::from_coo(2, 2, r, c);
  const gbcuda::CsrVectors<bool> p = P.unpack_csr();
  EXPECT_TRUE(p.values.empty());
  EXPECT_TRUE(p.iso_value);
  EXPECT_EQ(p.col_idx, (std::vector<gbcuda::Vid>{1, 0}));
  auto Q = gbcuda::Matrix<double>::from_csr(2, 2, {0, 1, 2}, {1, 0}, {4.0, 5.0});
  Q.set_element(0, 0, 6.0);  // pending changes are applied before unpacking
  EXPECT_EQ(Q.unpack_csr().values, (std::vector<double>{6.0, 4.0, 5.0}));
}

TEST(Matrix, TransposeDegreesSymmetry) {
  const auto A = gbtest::random_graph({3000, 5.0, true, true, true, 0.1, 3});
  const auto& T = A.transpose();
  EXPECT_EQ(T.nvals(), A.nvals());
  // Every entry (i, j) of A is (j, i) of T, and T's rows are sorted.
  const auto& a = A.csr();
  const auto& t = T.csr();
  for (Index j = 0; j < T.nrows(); ++j)
    for (auto p = t.row_ptr[j]; p + 1 < t.row_ptr[j + 1]; ++p) ASSERT_LT(t.col_idx[p], t.col_idx[p + 1]);
  for (Index i = 0; i < A.nrows(); ++i)
    for (auto p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const Index j = a.col_idx[p];
      const auto* b = t.col_idx.data() + t.row_ptr[j];
      const auto* e = t.col_idx.data() + t.row_ptr[j + 1];
      ASSERT_TRUE(std::binary_search(b, e, static_cast<gbcuda::Vid>(i)));
    }
  const auto& out = A.out_degrees();
  const auto& in = A.in_degrees();
  Index so = 0, si = 0;
  for (auto d : out) so += d;
  for (auto d : in) si += d;
  EXPECT_EQ(so, A.nvals());
  EXPECT_EQ(si, A.nvals());
  EXPECT_FALSE(A.is_symmetric_structure());
  const auto S = A.symmetrized();
  EXPECT_EQ(S.known_symmetric_structure(), std::optional<bool>(true));  // known without a transpose
  const auto& sc = S.csr(Backend::Host);                                // and true: S is its own transpose
  const auto& st = S.transpose().csr(Backend::Host);
  EXPECT_EQ(sc.row_ptr.to_vector(), st.row_ptr.to_vector());
  EXPECT_EQ(sc.col_idx.to_vector(), st.col_idx.to_vector());
  EXPECT_GE(S.nvals(), A.nvals());
  EXPECT_TRUE(gbtest::random_graph({500, 4.0, false, false, false, 0.0, 2}).is_symmetric_structure());
}

class VectorBackends : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: vectors in GPU memory need one";
  }
};

TEST_P(VectorBackends, FormsRoundTrip) {
  std::mt19937 rng(5);
  for (Index n : {1, 17, 1000, 100000}) {
    for (double density : {0.0, 0.01, 0.3, 1.0}) {
      std::vector<Index> idx;
      std::vector<double> val;
      for (Index i = 0; i < n; ++i)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < density || density == 1.0) {
          idx.push_back(i);
          val.push_back(double(i) * 0.5 - 3);
        }
      auto v = gbcuda::Vector<double>::from_tuples(n, idx, val, GetParam());
      EXPECT_EQ(v.nvals(), Index(idx.size()));
      for (auto f : {gbcuda::VectorForm::Bitmap, gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap}) {
        v.to_form(f);
        EXPECT_EQ(v.form(), f);
        std::vector<Index> i2;
        std::vector<double> v2;
        v.extract_tuples(i2, v2);
        ASSERT_EQ(i2, idx);
        ASSERT_EQ(v2, val);
      }
      if (Index(idx.size()) == n) {
        v.to_form(gbcuda::VectorForm::Dense);
        EXPECT_EQ(v.to_dense_vector(-1)[n - 1], double(n - 1) * 0.5 - 3);
      } else {
        EXPECT_THROW(v.to_form(gbcuda::VectorForm::Dense), gbcuda::Error);
      }
    }
  }
}

// pack_full takes a std::vector over and unpack_full gives it back, without a copy in host
// memory; on the GPU the values make the round trip; a vector with a missing entry refuses.
TEST_P(VectorBackends, PackAndUnpackFull) {
  const Backend b = GetParam();
  std::vector<double> x{1.5, -2.0, 0.0, 7.25};
  const double* x0 = x.data();
  auto v = gbcuda::Vector<double>::pack_full(std::move(x), b);
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.nvals(), 4);
  EXPECT_EQ(v.element(3), 7.25);
  const std::vector<double> back = v.unpack_full();
  EXPECT_EQ(back, (std::vector<double>{1.5, -2.0, 0.0, 7.25}));
  if (b == Backend::Host) {
    EXPECT_EQ(back.data(), x0);  // the same buffer, given back
  }
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.nvals(), 0);
  auto flags = gbcuda::Vector<bool>::pack_full({true, false, true}, b);
  EXPECT_EQ(flags.unpack_full(), (std::vector<bool>{true, false, true}));
  gbcuda::Vector<double> partial(5, b);
  partial.set_element(1, 2.0);
  try {
    (void)partial.unpack_full();
    ADD_FAILURE() << "a vector with missing entries unpacked";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidValue);
  }
  EXPECT_EQ(partial.nvals(), 1);
}

TEST_P(VectorBackends, Elements) {
  gbcuda::Vector<std::int32_t> v(10, GetParam());
  EXPECT_EQ(v.nvals(), 0);
  v.set_element(3, 7);
  v.set_element(3, 8);
  v.set_element(9, -1);
  EXPECT_EQ(v.nvals(), 2);
  EXPECT_EQ(v.element(3), 8);
  EXPECT_FALSE(v.element(4).has_value());
  v.remove_element(3);
  EXPECT_EQ(v.nvals(), 1);
  EXPECT_THROW(v.set_element(10, 1), gbcuda::Error);
  auto h = v.to(Backend::Host);
  EXPECT_EQ(h.to_dense_vector(0), (std::vector<std::int32_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, -1}));
  const auto full = gbcuda::Vector<float>::full(5, 2.5f, GetParam());
  EXPECT_EQ(full.form(), gbcuda::VectorForm::Dense);
  EXPECT_EQ(full.nvals(), 5);
}

// FormControl::Bitmap keeps a vector a bitmap through conform() (Dense when full), and copies keep
// the control; Auto goes back to choosing by density.
TEST_P(VectorBackends, FormControlBitmapSticks) {
  const Index n = 1000;
  gbcuda::Vector<std::int32_t> v(n, GetParam());
  EXPECT_EQ(v.form_control(), gbcuda::FormControl::Auto);
  v.set_form_control(gbcuda::FormControl::Bitmap);
  EXPECT_EQ(v.form(), gbcuda::VectorForm::Bitmap);
  v.set_element(5, 1);
  gbcuda::Vector<bool> m(n, GetParam());
  m.set_element(7, true);
  m.to_form(gbcuda::VectorForm::Sparse);
  gbcuda::assign(v, m, gbcuda::no_accum, std::int32_t(2), gbcuda::desc::S);
  EXPECT_EQ(v.nvals(), 2);  // on CUDA the count comes back here; conform() decides only then
  v.conform();
  EXPECT_EQ(v.form(), gbcuda::VectorForm::Bitmap) << "1/500 dense: Auto would make it Sparse";
  EXPECT_EQ(v.element(7), 2);
  const gbcuda::Vector<std::int32_t> copy = v;
  EXPECT_EQ(copy.form_control(), gbcuda::FormControl::Bitmap);
  EXPECT_EQ(v.to(Backend::Host).form_control(), gbcuda::FormControl::Bitmap);
  v.clear();
  EXPECT_EQ(v.form(), gbcuda::VectorForm::Bitmap);
  gbcuda::assign(v, gbcuda::no_mask, gbcuda::no_accum, std::int32_t(3));
  EXPECT_EQ(v.nvals(), n);
  v.conform();
  EXPECT_EQ(v.form(), gbcuda::VectorForm::Dense);  // full
  v.set_form_control(gbcuda::FormControl::Auto);
  v.remove_element(0);
  v.clear();
  v.set_element(1, 1);
  EXPECT_EQ(v.nvals(), 1);
  v.conform();
  EXPECT_EQ(v.form(), gbcuda::VectorForm::Sparse);
}

INSTANTIATE_TEST_SUITE_P(Backends, VectorBackends, testing::Values(Backend::Host, Backend::Cuda),
                         [](const auto& info) { return std::string(gbcuda::to_string(info.param)); });

}  // namespace

namespace {

// Allocations that cannot be satisfied are reported as Error(OutOfMemory), saying how much was
// asked for (and, on the GPU, how much is free), never as a crash.
TEST(Memory, HostAllocationTooLargeIsReported) {
  try {
    gbcuda::detail::Array<char> a(std::size_t(1) << 62, Backend::Host);
    FAIL() << "expected Error(OutOfMemory)";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
  }
}

// shrink() keeps a prefix of the elements; the copies and the size see only those.
TEST(Memory, ShrinkKeepsAPrefix) {
  gbcuda::detail::Array<int> a(std::vector<int>{1, 2, 3, 4, 5}, Backend::Host);
  a.shrink(9);
  EXPECT_EQ(a.size(), 5u);
  a.shrink(3);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.bytes(), 3 * sizeof(int));
  EXPECT_EQ(a.to_vector(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(a.clone(Backend::Host).to_vector(), (std::vector<int>{1, 2, 3}));
  a.shrink(0);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.data(), nullptr);
}

TEST(Memory, DeviceAllocationTooLargeSaysNeededAndFree) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: nothing to exhaust";
  try {
    gbcuda::detail::Array<char> a(std::size_t(1) << 50, Backend::Cuda);  // 1 PiB
    FAIL() << "expected Error(OutOfMemory)";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::OutOfMemory);
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("free of"), std::string::npos) << m;
  }
  // The device is still usable afterwards.
  gbcuda::detail::Array<int> small(16, Backend::Cuda);
  small.fill_bytes_with(0);
  EXPECT_EQ(small.to_vector(), std::vector<int>(16, 0));
}

}  // namespace

// Printing: the summary line, the first entries in row order, "..." when there are more.
TEST(Print, MatrixAndVector) {
  std::vector<Index> r{2, 0, 1}, c{3, 1, 0};
  std::vector<double> v{1.5, -2, 4};
  const auto A = gbcuda::Matrix<double>::from_coo(3, 4, r, c, v);
  std::ostringstream all, two, none;
  all << A;
  EXPECT_EQ(all.str(), "gbcuda::Matrix<double> 3 x 4, 3 entries, host memory\n  (0, 1) -2\n  (1, 0) 4\n  (2, 3) 1.5\n");
  gbcuda::print(two, A, 2);
  EXPECT_EQ(two.str(), "gbcuda::Matrix<double> 3 x 4, 3 entries, host memory\n  (0, 1) -2\n  (1, 0) 4\n  ...\n");
  const auto P = gbcuda::Matrix<bool>::from_coo(2, 2, std::vector<Index>{1}, std::vector<Index>{0});
  gbcuda::print(none, P, 0);
  EXPECT_EQ(none.str(), "gbcuda::Matrix<bool> 2 x 2, 1 entry (all one value), host memory\n");
  const auto u = gbcuda::Vector<std::int64_t>::from_tuples(5, {4, 1}, {7, -3});
  std::ostringstream vs;
  vs << u;
  EXPECT_EQ(vs.str(), "gbcuda::Vector<int64_t> of length 5, 2 entries, host memory\n  (1) -3\n  (4) 7\n");
  std::ostringstream bs;
  bs << gbcuda::Vector<bool>::from_tuples(3, {2}, {false});
  EXPECT_EQ(bs.str(), "gbcuda::Vector<bool> of length 3, 1 entry, host memory\n  (2) false\n");
  std::ostringstream i8, u8;  // one-byte integers print as numbers, not characters
  i8 << gbcuda::Vector<std::int8_t>::from_tuples(3, {0, 2}, {65, -1});
  EXPECT_EQ(i8.str(), "gbcuda::Vector<int8_t> of length 3, 2 entries, host memory\n  (0) 65\n  (2) -1\n");
  u8 << gbcuda::Scalar<std::uint8_t>(std::uint8_t(200));
  EXPECT_EQ(u8.str(), "gbcuda::Scalar<uint8_t> 200");
}
