// The CUDA backend against the host backend: every primitive on random inputs (vectors in each
// form, jumbled sparse lists, masks of each kind, several semirings, operators and types), plus
// the device CSR transpose and form conversions. Outputs are checked for exact agreement
// (values are small integers, so sums are exact even in floating point) and for a consistent
// store (exact nvals, array sizes, unique in-range indices).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gbcuda/gbcuda.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace {

using gbcuda::Backend;
using gbcuda::Descriptor;
using gbcuda::Direction;
using gbcuda::Index;
using gbcuda::Matrix;
using gbcuda::Vector;
using gbcuda::VectorForm;
using gbcuda::Vid;

#define REQUIRE_CUDA() \
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the CUDA backend cannot be tested here"

using Rng = std::mt19937_64;

const VectorForm kForms[] = {VectorForm::Sparse, VectorForm::Bitmap, VectorForm::Dense};

std::string form_name(VectorForm f) { return gbcuda::to_string(f); }

// Small integer values (zeros included, so value masks differ from structural ones).
template <class T>
T random_value(Rng& rng) {
  if constexpr (std::is_same_v<T, bool>) return (rng() % 3) != 0;
  else return static_cast<T>(static_cast<int>(rng() % 10) - 4);
}

// A random vector in the given form (Dense forces every entry), optionally jumbled (Sparse).
template <class T>
Vector<T> random_vector(Rng& rng, Index n, double density, VectorForm form, bool jumbled = false) {
  std::vector<Index> idx;
  std::vector<T> vals;
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (Index i = 0; i < n; ++i) {
    if (form == VectorForm::Dense || uni(rng) < density) {
      idx.push_back(i);
      vals.push_back(random_value<T>(rng));
    }
  }
  Vector<T> v = Vector<T>::from_tuples(n, idx, vals, Backend::Host);
  v.to_form(form);
  if (jumbled && form == VectorForm::Sparse && v.nvals() > 1) {
    auto& s = v.store();
    std::vector<Index> perm(static_cast<std::size_t>(s.nvals));
    for (std::size_t p = 0; p < perm.size(); ++p) perm[p] = static_cast<Index>(p);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Vid> si(s.indices.begin(), s.indices.end());
    std::vector<T> sv(s.values.begin(), s.values.end());
    for (std::size_t p = 0; p < perm.size(); ++p) {
      s.indices[p] = si[static_cast<std::size_t>(perm[p])];
      s.values[p] = sv[static_cast<std::size_t>(perm[p])];
    }
    s.jumbled = true;
  }
  return v;
}

struct Coo {
  Index nrows = 0, ncols = 0;
  std::vector<Index> rows, cols;
  std::set<std::pair<Index, Index>> pattern;
};

// A random matrix with about avg entries per row; a few rows are hubs (long rows) so that the
// short-row, medium-row and warp-per-row kernels and the edge-balanced push all get work.
template <class T>
Matrix<T> random_matrix(Rng& rng, Index nrows, Index ncols, double avg, bool iso, Coo* coo_out = nullptr) {
  Coo coo;
  coo.nrows = nrows;
  coo.ncols = ncols;
  std::vector<T> vals;
  std::uniform_int_distribution<Index> col(0, ncols - 1);
  for (Index i = 0; i < nrows; ++i) {
    Index len = static_cast<Index>(avg);
    if (i % 97 == 3) len = std::min<Index>(ncols, static_cast<Index>(avg * 20) + 10);
    if (i % 13 == 5) len = 0;
    for (Index e = 0; e < len; ++e) {
      const Index j = col(rng);
      if (!coo.pattern.insert({i, j}).second) continue;
      coo.rows.push_back(i);
      coo.cols.push_back(j);
      T v = random_value<T>(rng);
      if constexpr (!std::is_same_v<T, bool>)
        if (v == T(0)) v = T(1);
      vals.push_back(v);
    }
  }
  // A plain buffer for the values (std::vector<bool> has no contiguous storage).
  std::unique_ptr<T[]> buf(new T[vals.size() + 1]);
  for (std::size_t p = 0; p < vals.size(); ++p) buf[p] = vals[p];
  Matrix<T> a = iso ? Matrix<T>::from_coo(nrows, ncols, coo.rows, coo.cols)
                    : Matrix<T>::from_coo(nrows, ncols, coo.rows, coo.cols, std::span<const T>(buf.get(), vals.size()));
  if (coo_out) *coo_out = std::move(coo);
  return a;
}

// The entries of a vector (sorted by index), after checking that its store is consistent.
template <class T>
struct Entries {
  std::vector<Index> idx;
  std::vector<T> val;
};

template <class T>
Entries<T> checked_entries(const Vector<T>& v, const std::string& what) {
  Entries<T> e;
  const auto h = v.store().clone(Backend::Host);
  EXPECT_EQ(h.n, v.size()) << what;
  std::vector<std::pair<Index, T>> list;
  if (h.form == VectorForm::Sparse) {
    EXPECT_EQ(static_cast<Index>(h.indices.size()), h.nvals) << what << ": sparse index array size";
    EXPECT_EQ(static_cast<Index>(h.values.size()), h.nvals) << what << ": sparse value array size";
    const Index m = std::min<Index>(h.nvals, static_cast<Index>(std::min(h.indices.size(), h.values.size())));
    for (Index p = 0; p < m; ++p) list.emplace_back(h.indices[p], h.values[p]);
    if (!h.jumbled) {
      for (Index p = 1; p < m; ++p) EXPECT_LT(h.indices[p - 1], h.indices[p]) << what << ": not sorted";
    }
  } else {
    EXPECT_EQ(static_cast<Index>(h.values.size()), h.n) << what << ": value array size";
    if (h.form == VectorForm::Bitmap) {
      EXPECT_EQ(static_cast<Index>(h.bitmap.size()), h.n) << what << ": bitmap size";
    }
    Index count = 0;
    for (Index i = 0; i < h.n; ++i) {
      const bool present = h.form == VectorForm::Dense || (i < static_cast<Index>(h.bitmap.size()) && h.bitmap[i]);
      if (present) {
        ++count;
        if (i < static_cast<Index>(h.values.size())) list.emplace_back(i, h.values[i]);
      }
    }
    EXPECT_EQ(count, h.nvals) << what << ": nvals does not match the " << form_name(h.form) << " contents";
  }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t p = 0; p < list.size(); ++p) {
    EXPECT_TRUE(list[p].first >= 0 && list[p].first < h.n) << what << ": index out of range";
    if (p > 0) {
      EXPECT_NE(list[p - 1].first, list[p].first) << what << ": duplicate index";
    }
    e.idx.push_back(list[p].first);
    e.val.push_back(list[p].second);
  }
  return e;
}

// Floating point results may be summed in another order; infinities must match exactly.
template <class T>
bool near(T got, T want) {
  if constexpr (std::is_floating_point_v<T>)
    return got == want || std::abs(double(got) - double(want)) <= 1e-5 * (1.0 + std::abs(double(want)));
  else return got == want;
}

template <class T>
void expect_same(const Vector<T>& got, const Vector<T>& want, const std::string& what) {
  EXPECT_EQ(got.backend(), Backend::Cuda) << what;
  EXPECT_EQ(got.nvals(), want.nvals()) << what;
  const Entries<T> g = checked_entries(got, what + " [cuda]");
  const Entries<T> w = checked_entries(want, what + " [host]");
  ASSERT_EQ(g.idx, w.idx) << what << ": patterns differ";
  for (std::size_t p = 0; p < g.val.size(); ++p) {
    EXPECT_TRUE(near(g.val[p], w.val[p])) << what << " at index " << g.idx[p] << ": " << g.val[p] << " vs " << w.val[p];
  }
}

// ---- mask variants --------------------------------------------------------------------------
struct MaskCase {
  bool has, complement, structural, replace;
  VectorForm form;  // the mask vector's form
  std::string str() const {
    std::string s = has ? (structural ? "struct-mask" : "value-mask") : "no-mask";
    if (has) {
      s += '(';
      s += form_name(form);
      s += ')';
    }
    if (complement) s += " comp";
    if (replace) s += " replace";
    return s;
  }
  Descriptor desc() const {
    Descriptor d;
    d.replace = replace;
    d.mask_complement = complement;
    d.mask_structural = structural;
    return d;
  }
};

std::vector<MaskCase> mask_cases() {
  std::vector<MaskCase> v;
  for (bool replace : {false, true}) {
    v.push_back({false, false, false, replace, VectorForm::Sparse});
    v.push_back({false, true, false, replace, VectorForm::Sparse});  // complemented empty mask
    for (VectorForm f : kForms) {
      for (bool structural : {false, true})
        for (bool comp : {false, true}) v.push_back({true, comp, structural, replace, f});
    }
  }
  return v;
}

// Runs f(w, mask, desc, backend) on host and CUDA copies of w and compares the results.
template <class TW, class M, class F>
void compare_op(const std::string& what, const Vector<TW>& w0, const MaskCase& mc, const Vector<M>& mask, F&& f) {
  Vector<TW> wh = w0;
  Vector<TW> wc = w0.to(Backend::Cuda);
  const Descriptor d = mc.desc();
  if (mc.has) {
    const Vector<M> mask_c = mask.to(Backend::Cuda);
    f(wh, mask, d, Backend::Host);
    f(wc, mask_c, d, Backend::Cuda);
  } else {
    f(wh, gbcuda::no_mask, d, Backend::Host);
    f(wc, gbcuda::no_mask, d, Backend::Cuda);
  }
  expect_same(wc, wh, what + " " + mc.str());
}

// A copy of v in backend b (vectors kept in both backends for the inputs).
template <class T>
struct Both {
  Vector<T> host, cuda;
  explicit Both(Vector<T> v) : host(std::move(v)), cuda(host.to(Backend::Cuda)) {}
  const Vector<T>& on(Backend b) const { return b == Backend::Host ? host : cuda; }
};

// ---- products -------------------------------------------------------------------------------
template <class T, class S>
void check_products(const std::string& name, const S& s, std::uint64_t seed) {
  Rng rng(seed);
  const Index nr = 300, nc = 257;
  for (double avg : {2.0, 10.0, 40.0}) {
    const Matrix<T> a = random_matrix<T>(rng, nr, nc, avg, /*iso=*/false);
    for (VectorForm uf : kForms) {
      for (double density : {0.02, 0.3}) {
        const bool jumbled = uf == VectorForm::Sparse;
        const Both<T> u_mxv(random_vector<T>(rng, nc, density, uf, jumbled));
        const Both<T> u_vxm(random_vector<T>(rng, nr, density, uf, jumbled));
        const Vector<std::int32_t> mask_out = random_vector<std::int32_t>(rng, nr, 0.5, VectorForm::Bitmap);
        for (const MaskCase& mc : mask_cases()) {
          Vector<std::int32_t> mask = mask_out;
          if (mc.form == VectorForm::Dense) mask = random_vector<std::int32_t>(rng, nr, 1.0, VectorForm::Dense);
          else mask.to_form(mc.form);
          const Vector<T> w0 = random_vector<T>(rng, nr, 0.4, VectorForm::Bitmap);
          for (Direction dir : {Direction::Auto, Direction::Push, Direction::Pull}) {
            const std::string what = name + " mxv avg=" + std::to_string(avg) + " u=" + form_name(uf) +
                                     " dens=" + std::to_string(density) + " dir=" + std::to_string(int(dir));
            compare_op(what, w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
              gbcuda::mxv(w, m, gbcuda::no_accum, s, a, u_mxv.on(b), d.with_direction(dir));
            });
            compare_op(what + " accum", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
              gbcuda::mxv(w, m, gbcuda::Plus<T>{}, s, a, u_mxv.on(b), d.with_direction(dir));
            });
          }
        }
        // vxm (walks the transpose) and mxv with T0, a few mask cases.
        const Vector<T> w1 = random_vector<T>(rng, nc, 0.4, VectorForm::Sparse);
        const Vector<bool> mask_in = random_vector<bool>(rng, nc, 0.5, VectorForm::Sparse);
        for (const MaskCase& mc : mask_cases()) {
          if (mc.form != VectorForm::Sparse) continue;
          for (Direction dir : {Direction::Push, Direction::Pull}) {
            const std::string what =
                name + " vxm avg=" + std::to_string(avg) + " u=" + form_name(uf) + " dir=" + std::to_string(int(dir));
            compare_op(what, w1, mc, mask_in, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
              gbcuda::vxm(w, m, gbcuda::no_accum, s, u_vxm.on(b), a, d.with_direction(dir));
            });
            compare_op(what + " T0", w1, mc, mask_in, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
              gbcuda::mxv(w, m, gbcuda::Min<T>{}, s, a, u_vxm.on(b), d.with_direction(dir).with_transpose());
            });
          }
        }
      }
    }
  }
}

TEST(CudaBackend, ProductsPlusTimes) {
  REQUIRE_CUDA();
  check_products<double>("plus-times<double>", gbcuda::PlusTimes<double>{}, 11);
  check_products<std::int32_t>("plus-times<int32>", gbcuda::PlusTimes<std::int32_t>{}, 12);
}

TEST(CudaBackend, ProductsMinMaxPlus) {
  REQUIRE_CUDA();
  check_products<std::int64_t>("min-plus<int64>", gbcuda::MinPlus<std::int64_t>{}, 13);
  check_products<float>("max-plus<float>", gbcuda::MaxPlus<float>{}, 14);
}

TEST(CudaBackend, ProductsBoolean) {
  REQUIRE_CUDA();
  check_products<bool>("lor-land", gbcuda::LorLand<bool>{}, 15);
  check_products<bool>("any-pair", gbcuda::AnyPair<bool>{}, 16);
}

// ANY picks any term, so CUDA and host may differ in values: check the pattern against the host
// and each value against the definition (a k with A(i,k) stored and u(k) present).
template <class I>
void check_any_secondi(std::uint64_t seed) {
  Rng rng(seed);
  const Index n = 400;
  for (double avg : {2.0, 12.0, 50.0}) {
    Coo coo;
    const Matrix<bool> a = random_matrix<bool>(rng, n, n, avg, /*iso=*/true, &coo);
    for (VectorForm uf : kForms) {
      for (double density : {0.01, 0.2}) {
        const Vector<bool> u = random_vector<bool>(rng, n, density, uf, uf == VectorForm::Sparse);
        const Vector<bool> uc = u.to(Backend::Cuda);
        const Vector<bool> visited = random_vector<bool>(rng, n, 0.3, VectorForm::Bitmap);
        const Vector<bool> visited_c = visited.to(Backend::Cuda);
        std::vector<bool> in_u(static_cast<std::size_t>(n), false);
        {
          std::vector<Index> ui;
          std::vector<bool> uv;
          u.extract_tuples(ui, uv);
          for (Index k : ui) in_u[static_cast<std::size_t>(k)] = true;
        }
        for (bool vxm : {false, true}) {
          for (Direction dir : {Direction::Push, Direction::Pull, Direction::Auto}) {
            const std::string what = std::string("any-secondi ") + (vxm ? "vxm" : "mxv") +
                                     " avg=" + std::to_string(avg) + " u=" + form_name(uf) +
                                     " dir=" + std::to_string(int(dir));
            Vector<I> wh(n, Backend::Host), wc(n, Backend::Cuda);
            const Descriptor d = gbcuda::desc::RSC.with_direction(dir);  // BFS-style: not yet visited
            gbcuda::AnySecondI<I> s;
            if (vxm) {
              gbcuda::vxm(wh, visited, gbcuda::no_accum, s, u, a, d);
              gbcuda::vxm(wc, visited_c, gbcuda::no_accum, s, uc, a, d);
            } else {
              gbcuda::mxv(wh, visited, gbcuda::no_accum, s, a, u, d);
              gbcuda::mxv(wc, visited_c, gbcuda::no_accum, s, a, uc, d);
            }
            const Entries<I> h = checked_entries(wh, what + " [host]");
            const Entries<I> c = checked_entries(wc, what + " [cuda]");
            ASSERT_EQ(c.idx, h.idx) << what;
            for (std::size_t p = 0; p < c.idx.size(); ++p) {
              const Index i = c.idx[p];
              const Index k = static_cast<Index>(c.val[p]);
              ASSERT_TRUE(k >= 0 && k < n) << what;
              EXPECT_TRUE(in_u[static_cast<std::size_t>(k)]) << what << ": u(" << k << ") absent";
              const auto edge = vxm ? std::make_pair(k, i) : std::make_pair(i, k);
              EXPECT_TRUE(coo.pattern.count(edge)) << what << ": no edge for entry " << i << " -> " << k;
            }
          }
        }
      }
    }
  }
}

TEST(CudaBackend, ProductsAnySecondI) {
  REQUIRE_CUDA();
  check_any_secondi<std::int32_t>(21);
  check_any_secondi<std::int64_t>(22);
}

// ---- assign (merge_scalar), apply, ewise, reduce ---------------------------------------------
template <class T>
void check_assign(std::uint64_t seed) {
  Rng rng(seed);
  const Index n = 1000;
  for (VectorForm wf : kForms) {
    const Vector<T> w0 = random_vector<T>(rng, n, 0.3, wf);
    const Vector<bool> mask_sparse = random_vector<bool>(rng, n, 0.02, VectorForm::Sparse, /*jumbled=*/true);
    for (const MaskCase& mc : mask_cases()) {
      Vector<bool> mask = mask_sparse;
      if (mc.form == VectorForm::Dense) mask = random_vector<bool>(rng, n, 1.0, VectorForm::Dense);
      else if (mc.form == VectorForm::Bitmap) mask = random_vector<bool>(rng, n, 0.5, VectorForm::Bitmap);
      const T s = random_value<T>(rng);
      const std::string what = "assign w=" + form_name(wf);
      compare_op(what, w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend) {
        gbcuda::assign(w, m, gbcuda::no_accum, s, d);
      });
      compare_op(what + " accum-times", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend) {
        // Times<bool> trips -Wint-in-bool-context in semiring.hpp; Land is the same operator on bool.
        if constexpr (std::is_same_v<T, bool>) gbcuda::assign(w, m, gbcuda::Land<T>{}, s, d);
        else gbcuda::assign(w, m, gbcuda::Times<T>{}, s, d);
      });
      compare_op(what + " accum-second", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend) {
        gbcuda::assign(w, m, gbcuda::Second<T>{}, s, d);
      });
    }
    // An empty w with no mask takes the dense fast path.
    compare_op(
        "assign empty w", Vector<T>(n, Backend::Host), MaskCase{false, false, false, false, wf}, mask_sparse,
        [&](Vector<T>& w, const auto& m, Descriptor d, Backend) { gbcuda::assign(w, m, gbcuda::Plus<T>{}, T(1), d); });
  }
}

TEST(CudaBackend, Assign) {
  REQUIRE_CUDA();
  check_assign<bool>(31);
  check_assign<std::int32_t>(32);
  check_assign<std::int64_t>(33);
  check_assign<float>(34);
  check_assign<double>(35);
}

template <class T>
void check_apply(std::uint64_t seed) {
  Rng rng(seed);
  const Index n = 777;
  for (VectorForm uf : kForms) {
    const Both<T> u(random_vector<T>(rng, n, 0.1, uf, uf == VectorForm::Sparse));
    const Vector<T> w0 = random_vector<T>(rng, n, 0.2, VectorForm::Sparse);
    const Vector<double> mask_b = random_vector<double>(rng, n, 0.5, VectorForm::Bitmap);
    for (const MaskCase& mc : mask_cases()) {
      Vector<double> mask = mask_b;
      if (mc.form == VectorForm::Dense) mask = random_vector<double>(rng, n, 1.0, VectorForm::Dense);
      else mask.to_form(mc.form);
      const std::string what = "apply u=" + form_name(uf);
      compare_op(what + " identity", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
        gbcuda::apply(w, m, gbcuda::no_accum, gbcuda::Identity<T>{}, u.on(b), d);
      });
      compare_op(what + " ainv+plus", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
        gbcuda::apply(w, m, gbcuda::Plus<T>{}, gbcuda::AdditiveInverse<T>{}, u.on(b), d);
      });
      compare_op(what + " abs", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
        gbcuda::apply(w, m, gbcuda::Max<T>{}, gbcuda::Abs<T>{}, u.on(b), d);
      });
      compare_op(what + " one", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
        gbcuda::apply(w, m, gbcuda::no_accum, gbcuda::One<T>{}, u.on(b), d);
      });
      compare_op(what + " lnot", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
        gbcuda::apply(w, m, gbcuda::Minus<T>{}, gbcuda::LogicalNot<T>{}, u.on(b), d);
      });
    }
  }
}

TEST(CudaBackend, Apply) {
  REQUIRE_CUDA();
  check_apply<bool>(41);
  check_apply<std::int32_t>(42);
  check_apply<double>(43);
}

template <class T, class Op>
void check_ewise_op(Rng& rng, const std::string& name, const Op& op) {
  const Index n = 600;
  for (VectorForm uf : kForms) {
    for (VectorForm vf : kForms) {
      const Both<T> u(random_vector<T>(rng, n, 0.3, uf, true));
      const Both<T> v(random_vector<T>(rng, n, 0.3, vf, true));
      const Vector<bool> mask_b = random_vector<bool>(rng, n, 0.5, VectorForm::Bitmap);
      const Vector<T> w0 = random_vector<T>(rng, n, 0.3, VectorForm::Bitmap);
      for (const MaskCase& mc : mask_cases()) {
        if (mc.form == VectorForm::Dense) continue;  // covered by the other tests
        Vector<bool> mask = mask_b;
        mask.to_form(mc.form);
        const std::string what = name + " u=" + form_name(uf) + " v=" + form_name(vf);
        compare_op(what + " add", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
          gbcuda::ewise_add(w, m, gbcuda::no_accum, op, u.on(b), v.on(b), d);
        });
        compare_op(what + " mult", w0, mc, mask, [&](Vector<T>& w, const auto& m, Descriptor d, Backend b) {
          gbcuda::ewise_mult(w, m, gbcuda::Plus<T>{}, op, u.on(b), v.on(b), d);
        });
      }
    }
  }
}

TEST(CudaBackend, Ewise) {
  REQUIRE_CUDA();
  Rng rng(51);
  check_ewise_op<double>(rng, "minus<double>", gbcuda::Minus<double>{});
  check_ewise_op<std::int32_t>(rng, "first<int32>", gbcuda::First<std::int32_t>{});
  check_ewise_op<std::int64_t>(rng, "min<int64>", gbcuda::Min<std::int64_t>{});
  check_ewise_op<float>(rng, "times<float>", gbcuda::Times<float>{});
  check_ewise_op<bool>(rng, "land<bool>", gbcuda::Land<bool>{});
  check_ewise_op<bool>(rng, "pair<bool>", gbcuda::Pair<bool>{});
}

template <class T, class Mon>
void check_reduce_monoid(Rng& rng, const std::string& name, const Mon& mon) {
  for (Index n : {Index(0), Index(1), Index(37), Index(5000)}) {
    for (VectorForm f : kForms) {
      for (double density : {0.0, 0.05, 0.6}) {
        if (f == VectorForm::Dense && n == 0) continue;
        Vector<T> u = random_vector<T>(rng, n, density, f, true);
        // Keep products small: Times over many values would overflow or round.
        if constexpr (!std::is_same_v<T, bool>)
          if (mon.kind == gbcuda::MonoidKind::Times && n > 40) continue;
        const Vector<T> uc = u.to(Backend::Cuda);
        const T want = gbcuda::reduce(mon, u);
        const T got = gbcuda::reduce(mon, uc);
        const std::string what =
            name + " n=" + std::to_string(n) + " " + form_name(f) + " dens=" + std::to_string(density);
        if constexpr (Mon::kind == gbcuda::MonoidKind::Any) {
          std::vector<Index> idx;
          std::vector<T> vals;
          u.extract_tuples(idx, vals);
          if (vals.empty()) EXPECT_EQ(got, mon.identity()) << what;
          else EXPECT_NE(std::find(vals.begin(), vals.end(), got), vals.end()) << what << ": not an entry";
        } else {
          EXPECT_TRUE(near(got, want)) << what << ": " << got << " vs " << want;
        }
      }
    }
  }
}

template <class T>
void check_reduce(std::uint64_t seed) {
  Rng rng(seed);
  check_reduce_monoid<T>(rng, "plus", gbcuda::PlusMonoid<T>{});
  if constexpr (!std::is_same_v<T, bool>) check_reduce_monoid<T>(rng, "times", gbcuda::TimesMonoid<T>{});
  check_reduce_monoid<T>(rng, "min", gbcuda::MinMonoid<T>{});
  check_reduce_monoid<T>(rng, "max", gbcuda::MaxMonoid<T>{});
  check_reduce_monoid<T>(rng, "lor", gbcuda::LorMonoid<T>{});
  check_reduce_monoid<T>(rng, "land", gbcuda::LandMonoid<T>{});
  check_reduce_monoid<T>(rng, "any", gbcuda::AnyMonoid<T>{});
}

TEST(CudaBackend, Reduce) {
  REQUIRE_CUDA();
  check_reduce<bool>(61);
  check_reduce<std::int32_t>(62);
  check_reduce<std::int64_t>(63);
  check_reduce<float>(64);
  check_reduce<double>(65);
}

// ---- forms, sorting, masks and transpose (backend-level) ------------------------------------
template <class T>
void check_forms(std::uint64_t seed) {
  Rng rng(seed);
  for (Index n : {Index(0), Index(1), Index(100), Index(4099)}) {
    for (VectorForm from : kForms) {
      for (double density : {0.0, 0.1, 0.7, 1.0}) {
        if (from == VectorForm::Dense && density < 1.0) continue;
        const Vector<T> h = random_vector<T>(rng, n, density, from, true);
        for (VectorForm to : kForms) {
          if (to == VectorForm::Dense && h.nvals() != n) continue;
          Vector<T> c = h.to(Backend::Cuda);
          c.to_form(to);
          Vector<T> hh = h;
          hh.to_form(to);
          EXPECT_EQ(c.form(), to);
          expect_same(c, hh, "convert " + form_name(from) + " -> " + form_name(to) + " n=" + std::to_string(n));
        }
        // Sorting a jumbled device list gives the sorted host list, arrays and all.
        if (from == VectorForm::Sparse) {
          Vector<T> c = h.to(Backend::Cuda);
          gbcuda::detail::sort_indices(c.store());
          EXPECT_FALSE(c.store().jumbled);
          Vector<T> hh = h;
          gbcuda::detail::sort_indices(hh.store());
          const auto ch = c.store().clone(Backend::Host);
          EXPECT_EQ(std::vector<Vid>(ch.indices.begin(), ch.indices.end()),
                    std::vector<Vid>(hh.store().indices.begin(), hh.store().indices.end()));
          EXPECT_EQ(std::vector<T>(ch.values.begin(), ch.values.end()),
                    std::vector<T>(hh.store().values.begin(), hh.store().values.end()));
        }
      }
    }
  }
}

TEST(CudaBackend, FormsAndSort) {
  REQUIRE_CUDA();
  check_forms<bool>(71);
  check_forms<std::int32_t>(72);
  check_forms<std::int64_t>(73);
  check_forms<float>(74);
  check_forms<double>(75);
}

#if GBCUDA_HAVE_CUDA
template <class M>
void check_mask_bitmap(std::uint64_t seed) {
  Rng rng(seed);
  const Index n = 3001;
  for (VectorForm f : kForms) {
    for (bool structural : {false, true}) {
      const Vector<M> mh = random_vector<M>(rng, n, f == VectorForm::Dense ? 1.0 : 0.3, f, true);
      const Vector<M> mc = mh.to(Backend::Cuda);
      std::vector<std::uint8_t> want(static_cast<std::size_t>(n));
      gbcuda::detail::host::mask_bitmap(want.data(), gbcuda::detail::view(mh.store()), structural);
      gbcuda::detail::Array<std::uint8_t> out(static_cast<std::size_t>(n), Backend::Cuda);
      out.fill_bytes_with(0xff);  // poison: every byte must be written
      gbcuda::detail::cuda::mask_bitmap(out.data(), gbcuda::detail::view(mc.store()), structural);
      const std::vector<std::uint8_t> got = out.to_vector();
      for (Index i = 0; i < n; ++i)
        ASSERT_EQ(got[i] != 0, want[i] != 0) << form_name(f) << (structural ? " structural" : " value") << " at " << i;
      for (Index i = 0; i < n; ++i) ASSERT_LE(got[i], 1) << "mask byte not written at " << i;
    }
  }
}

TEST(CudaBackend, MaskBitmap) {
  REQUIRE_CUDA();
  check_mask_bitmap<bool>(81);
  check_mask_bitmap<std::int32_t>(82);
  check_mask_bitmap<std::int64_t>(83);
  check_mask_bitmap<float>(84);
  check_mask_bitmap<double>(85);
}

template <class T>
void expect_same_csr(const gbcuda::Csr<T>& got_dev, const gbcuda::Csr<T>& want, const std::string& what) {
  const gbcuda::Csr<T> got = got_dev.clone(Backend::Host);
  EXPECT_EQ(got_dev.where(), Backend::Cuda) << what;
  EXPECT_EQ(got.nrows, want.nrows) << what;
  EXPECT_EQ(got.ncols, want.ncols) << what;
  EXPECT_EQ(got.is_iso(), want.is_iso()) << what;
  EXPECT_EQ(got.row_ptr.to_vector(), want.row_ptr.to_vector()) << what << ": row_ptr";
  EXPECT_EQ(got.col_idx.to_vector(), want.col_idx.to_vector()) << what << ": col_idx";
  EXPECT_EQ(got.values.to_vector(), want.values.to_vector()) << what << ": values";
  if (got.is_iso()) {
    EXPECT_EQ(got.iso_value, want.iso_value) << what;
  }
}

template <class T>
void check_transpose(std::uint64_t seed) {
  Rng rng(seed);
  struct Shape {
    Index nrows, ncols;
    double avg;
  };
  for (Shape sh : {Shape{1, 1, 1}, Shape{50, 3000, 5}, Shape{3000, 50, 5}, Shape{2000, 2000, 30}, Shape{70000, 9, 1}}) {
    for (bool iso : {true, false}) {
      const Matrix<T> a = random_matrix<T>(rng, sh.nrows, sh.ncols, sh.avg, iso);
      const gbcuda::Csr<T>& host = a.csr(Backend::Host);
      const gbcuda::Csr<T> want = gbcuda::detail::transpose_csr(host);
      const gbcuda::Csr<T> dev = host.clone(Backend::Cuda);
      const gbcuda::Csr<T> got = gbcuda::detail::cuda::transpose_csr(dev);
      const std::string what =
          "transpose " + std::to_string(sh.nrows) + "x" + std::to_string(sh.ncols) + (iso ? " iso" : " valued");
      expect_same_csr(got, want, what);
      // The dispatcher picks the CUDA transpose for device matrices.
      expect_same_csr(gbcuda::detail::transpose_csr(dev), want, what + " (dispatch)");
    }
  }
  // No entries at all, and an empty 0 x 0 matrix.
  for (Index nr : {Index(0), Index(5)}) {
    gbcuda::Csr<T> empty;
    empty.nrows = nr;
    empty.ncols = 7;
    empty.row_ptr = gbcuda::detail::Array<gbcuda::Offset>(
        std::vector<gbcuda::Offset>(static_cast<std::size_t>(nr) + 1, 0), Backend::Cuda);
    const gbcuda::Csr<T> got = gbcuda::detail::cuda::transpose_csr(empty);
    EXPECT_EQ(got.nrows, 7);
    EXPECT_EQ(got.ncols, nr);
    EXPECT_EQ(got.nvals(), 0);
    EXPECT_EQ(got.row_ptr.to_vector(), std::vector<gbcuda::Offset>(8, 0));
  }
}

TEST(CudaBackend, Transpose) {
  REQUIRE_CUDA();
  check_transpose<bool>(91);
  check_transpose<std::int32_t>(92);
  check_transpose<std::int64_t>(93);
  check_transpose<float>(94);
  check_transpose<double>(95);
}

// Direct calls: outputs are complete stores in device memory, whatever t held before.
TEST(CudaBackend, PrimitivesOverwriteOutput) {
  REQUIRE_CUDA();
  using namespace gbcuda::detail;
  Rng rng(101);
  const Index n = 500;
  const Matrix<double> a = random_matrix<double>(rng, n, n, 6, false);
  const Vector<double> u = random_vector<double>(rng, n, 0.2, VectorForm::Bitmap).to(Backend::Cuda);
  const Vector<double> uh = u.to(Backend::Host);
  MaskView none;
  // t starts as a poisoned, wrongly sized Bitmap store: the primitive must replace all of it.
  VectorStore<double> t =
      random_vector<double>(rng, 3 * n, 0.5, VectorForm::Bitmap).to(Backend::Cuda).store().clone(Backend::Cuda);
  t.values.fill_bytes_with(0xff);
  t.bitmap.fill_bytes_with(0xff);
  cuda::value_pull<double>(t, none, cuda::semiring_code<gbcuda::PlusTimes<double>>(), typed(view(a.csr(Backend::Cuda))),
                           typed(view(u.store())), false);
  VectorStore<double> th;
  host::gather(th, none, gbcuda::PlusTimes<double>{}, view(a.csr(Backend::Host)), view(uh.store()), false);
  EXPECT_EQ(t.where, Backend::Cuda);
  expect_same(Vector<double>(std::move(t)), Vector<double>(std::move(th)), "gather overwrite");

  VectorStore<double> t2 =
      random_vector<double>(rng, 3 * n, 0.5, VectorForm::Sparse).to(Backend::Cuda).store().clone(Backend::Cuda);
  cuda::apply(t2, none, cuda::element_op<gbcuda::Abs<double>, double>({}), view(u.store()));
  VectorStore<double> t2h;
  host::apply(t2h, none, gbcuda::Abs<double>{}, view(uh.store()));
  expect_same(Vector<double>(std::move(t2)), Vector<double>(std::move(t2h)), "apply overwrite");
}

// A copy of a CUDA vector carries its tally (count and product trace) whether the count is in
// device memory or was already read back to the host (Vector::nvals()): the trace a copy names
// with trace_of must be the one it holds, for a copy into a new store and into one in place.
TEST(CudaBackend, CopiesKeepTheTrace) {
  REQUIRE_CUDA();
  using namespace gbcuda::detail;
  Rng rng(103);
  for (VectorForm f : kForms) {
    for (bool count_read : {false, true}) {
      const Vector<double> src = random_vector<double>(rng, 700, 0.3, f).to(Backend::Cuda);
      VectorStore<double> u = src.store().clone(Backend::Cuda);
      DeviceTally want{};
      want.nvals = u.nvals;
      want.trace = ProductTrace{123, 456, 7, 89, 3, 1, 2.5};
      copy_bytes(tally_of(u), Backend::Cuda, &want, Backend::Host, sizeof(want));
      u.count_on_device = true;
      static const int rows = 0;
      u.trace_of = &rows;
      VectorStore<double> in_place = cuda::clone_store(u);
      const DeviceTally stale{};
      copy_bytes(tally_of(in_place), Backend::Cuda, &stale, Backend::Host, sizeof(stale));
      if (count_read) (void)exact_nvals(u);  // the count moves to the host, the trace stays on the device
      ASSERT_TRUE(cuda::copy_store_into(in_place, u));
      const VectorStore<double> fresh = cuda::clone_store(u);
      for (const VectorStore<double>* c : std::vector<const VectorStore<double>*>{&in_place, &fresh}) {
        const std::string what = form_name(f) + (count_read ? ", count read" : ", count on device") +
                                 (c == &fresh ? ", clone" : ", in place");
        EXPECT_EQ(c->trace_of, u.trace_of) << what;
        EXPECT_EQ(exact_nvals(*c), want.nvals) << what;
        DeviceTally got{};
        copy_bytes(&got, Backend::Host, c->tally.data(), Backend::Cuda, sizeof(got));
        EXPECT_EQ(got.trace.edges, want.trace.edges) << what;
        EXPECT_EQ(got.trace.unexplored, want.trace.unexplored) << what;
        EXPECT_EQ(got.trace.examined, want.trace.examined) << what;
        EXPECT_EQ(got.trace.pull_penalty, want.trace.pull_penalty) << what;
      }
      expect_same(Vector<double>(cuda::clone_store(in_place)), src, "in-place copy entries");
    }
  }
}
// Copies of 4 MiB or more between pageable host memory and the GPU go through the thread's pinned
// ring in 4 MiB chunks (lib/core/host_pages.hpp): sizes around the threshold and the chunk, odd
// lengths, copies back to back (a chunk still moving from a slot the next copy fills), a second
// thread with its own ring, and a large vector read back whole with its missing entries.
TEST(CudaBackend, LargeCopiesArriveWhole) {
  REQUIRE_CUDA();
  using gbcuda::detail::Array;
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  auto pattern = [](std::size_t n, std::uint32_t seed) {
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::uint32_t(i * 2654435761u) ^ seed;
    return v;
  };
  auto round_trip = [&](std::size_t bytes, std::uint32_t seed) {
    const std::size_t n = bytes / sizeof(std::uint32_t);
    const std::vector<std::uint32_t> want = pattern(n, seed), other = pattern(n, seed + 1);
    Array<std::uint32_t> a(want, Backend::Cuda), b(other, Backend::Cuda);  // b fills a slot a's last chunk left
    EXPECT_EQ(a.to_vector(), want) << bytes << " bytes";
    EXPECT_EQ(b.clone(Backend::Host).to_vector(), other) << bytes << " bytes, through a host array";
  };
  for (std::size_t bytes : {4 * kMiB - 4, 4 * kMiB, 4 * kMiB + 4, 8 * kMiB, 13 * kMiB + 12}) round_trip(bytes, 7);
  std::thread other([&] { round_trip(9 * kMiB + 4, 11); });
  other.join();

  Rng rng(211);
  const Index n = Index(3) << 20;  // 12 MiB of floats
  const Vector<float> h = random_vector<float>(rng, n, 0.4, VectorForm::Bitmap);
  const Vector<float> d = h.to(Backend::Cuda);
  EXPECT_EQ(d.to_dense_vector(-1.5f), h.to_dense_vector(-1.5f));
}
#endif  // GBCUDA_HAVE_CUDA

}  // namespace
