// Two whole algorithms written with the gbcuda API, each checked against the same algorithm
// written with GraphBLAS C calls: Bellman-Ford single-source shortest paths (MinPlus) and
// PageRank (PlusTimes, damping 0.85, dangling vertices' rank spread evenly, fixed iterations).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>
#include <vector>

#include "support/graphs.hpp"
#include "support/ops_ref.hpp"

namespace {

using namespace ops_ref;
using gbcuda::Vector;

const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new GraphBlasEnvironment);

// ---- Bellman-Ford --------------------------------------------------------------------------
struct SsspResult {
  Tuples<std::int64_t> dist;  // reached vertices only
  int rounds = 0;
};

// d = min(d, d'A) until d stops changing (at most n rounds: no negative weights here).
SsspResult sssp_gbcuda(const gbcuda::Matrix<std::int64_t>& A, Index source, Backend b) {
  const Index n = A.nrows();
  Vector<std::int64_t> d(n, b);
  d.set_element(source, 0);
  SsspResult res;
  for (Index round = 0; round < n; ++round) {
    ++res.rounds;
    Vector<std::int64_t> prev = d;
    gbcuda::vxm(d, gbcuda::no_mask, gbcuda::Min<std::int64_t>{}, gbcuda::MinPlus<std::int64_t>{}, d, A);
    // Distances only shrink and entries only appear: unchanged means same count and no decrease.
    if (d.nvals() != prev.nvals()) continue;
    Vector<std::int64_t> decrease(n, b);
    gbcuda::ewise_mult(decrease, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Minus<std::int64_t>{}, prev, d);
    if (gbcuda::reduce(gbcuda::PlusMonoid<std::int64_t>{}, decrease) == 0) break;
  }
  res.dist = tuples_of(d);
  return res;
}

SsspResult sssp_graphblas(GrB_Matrix A, Index n, Index source) {
  GVec d = grb_empty_vector<std::int64_t>(n);
  OPS_GRB(GrB_Vector_setElement_INT64(d.v, 0, GrB_Index(source)));
  SsspResult res;
  for (Index round = 0; round < n; ++round) {
    ++res.rounds;
    GVec prev;
    OPS_GRB(GrB_Vector_dup(&prev.v, d.v));
    OPS_GRB(GrB_vxm(d.v, GrB_NULL, GrB_MIN_INT64, GrB_MIN_PLUS_SEMIRING_INT64, d.v, A, GrB_NULL));
    GrB_Index nd = 0, np = 0;
    OPS_GRB(GrB_Vector_nvals(&nd, d.v));
    OPS_GRB(GrB_Vector_nvals(&np, prev.v));
    if (nd != np) continue;
    GVec decrease = grb_empty_vector<std::int64_t>(n);
    OPS_GRB(GrB_Vector_eWiseMult_BinaryOp(decrease.v, GrB_NULL, GrB_NULL, GrB_MINUS_INT64, prev.v, d.v, GrB_NULL));
    std::int64_t total = 0;
    OPS_GRB(GrB_Vector_reduce_INT64(&total, GrB_NULL, GrB_PLUS_MONOID_INT64, decrease.v, GrB_NULL));
    if (total == 0) break;
  }
  res.dist = tuples_of<std::int64_t>(d.v);
  return res;
}

// A random weighted digraph: weights 0..20, some empty rows, duplicate edges (weights summed).
Coo<std::int64_t> weighted_graph(Rng& rng, Index n, double avg_degree) {
  Coo<std::int64_t> a = random_matrix<std::int64_t>(rng, n, n, avg_degree);
  for (auto& w : a.vals) w = std::abs(w);
  return a;
}

// ---- PageRank ----------------------------------------------------------------------------------
constexpr double kDamping = 0.85;

// r = (1-d)/n + d * (sum over in-edges of r(i)/outdeg(i) + dangling rank / n).
std::vector<double> pagerank_gbcuda(const gbcuda::Matrix<double>& A, int iterations, Backend b) {
  const Index n = A.nrows();
  // dinv(i) = d / outdeg(i) where i has out-edges; absent for dangling vertices.
  std::vector<Index> di;
  std::vector<double> dv;
  for (Index i = 0; i < n; ++i)
    if (Index deg = A.out_degrees()[std::size_t(i)]; deg > 0) {
      di.push_back(i);
      dv.push_back(kDamping / double(deg));
    }
  const Vector<double> dinv = Vector<double>::from_tuples(n, di, dv, b);
  Vector<double> r = Vector<double>::full(n, 1.0 / double(n), b);
  for (int it = 0; it < iterations; ++it) {
    Vector<double> t(n, b), dangling(n, b), next(n, b);
    gbcuda::ewise_mult(t, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Times<double>{}, r, dinv);
    gbcuda::apply(dangling, dinv, gbcuda::no_accum, gbcuda::Identity<double>{}, r, gbcuda::desc::SC);
    const double dangling_rank = gbcuda::reduce(gbcuda::PlusMonoid<double>{}, dangling);
    gbcuda::assign(next, gbcuda::no_mask, gbcuda::no_accum, (1.0 - kDamping + kDamping * dangling_rank) / double(n));
    gbcuda::vxm(next, gbcuda::no_mask, gbcuda::Plus<double>{}, gbcuda::PlusTimes<double>{}, t, A);
    r = std::move(next);
  }
  EXPECT_EQ(r.backend(), b);
  return r.to_dense_vector(0.0);
}

std::vector<double> pagerank_graphblas(GrB_Matrix A, Index n, int iterations) {
  GVec deg = grb_empty_vector<double>(n), dinv = grb_empty_vector<double>(n), r = grb_empty_vector<double>(n);
  OPS_GRB(GrB_Matrix_reduce_Monoid(deg.v, GrB_NULL, GrB_NULL, GrB_PLUS_MONOID_FP64, A, GrB_NULL));
  OPS_GRB(GrB_Vector_apply_BinaryOp1st_FP64(dinv.v, GrB_NULL, GrB_NULL, GrB_DIV_FP64, kDamping, deg.v, GrB_NULL));
  OPS_GRB(GrB_Vector_assign_FP64(r.v, GrB_NULL, GrB_NULL, 1.0 / double(n), GrB_ALL, GrB_Index(n), GrB_NULL));
  for (int it = 0; it < iterations; ++it) {
    GVec t = grb_empty_vector<double>(n), dangling = grb_empty_vector<double>(n), next = grb_empty_vector<double>(n);
    OPS_GRB(GrB_Vector_eWiseMult_BinaryOp(t.v, GrB_NULL, GrB_NULL, GrB_TIMES_FP64, r.v, dinv.v, GrB_NULL));
    OPS_GRB(GrB_Vector_apply(dangling.v, dinv.v, GrB_NULL, GrB_IDENTITY_FP64, r.v, GrB_DESC_SC));
    double dangling_rank = 0.0;
    OPS_GRB(GrB_Vector_reduce_FP64(&dangling_rank, GrB_NULL, GrB_PLUS_MONOID_FP64, dangling.v, GrB_NULL));
    OPS_GRB(GrB_Vector_assign_FP64(next.v, GrB_NULL, GrB_NULL, (1.0 - kDamping + kDamping * dangling_rank) / double(n),
                                   GrB_ALL, GrB_Index(n), GrB_NULL));
    OPS_GRB(GrB_vxm(next.v, GrB_NULL, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, t.v, A, GrB_NULL));
    std::swap(r.v, next.v);
  }
  Tuples<double> t = tuples_of<double>(r.v);
  std::vector<double> out(std::size_t(n), 0.0);
  for (std::size_t p = 0; p < t.idx.size(); ++p) out[std::size_t(t.idx[p])] = t.vals[p];
  return out;
}

class AlgorithmsTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
  Backend b() const { return GetParam(); }
};

TEST_P(AlgorithmsTest, BellmanFordMatchesGraphBlas) {
  struct Case {
    Index n;
    double avg_degree;
  };
  for (Case c : {Case{1, 0.5}, Case{40, 1.5}, Case{400, 3.0}, Case{3000, 4.0}, Case{3000, 1.1}}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      Rng rng(seed * 1000 + std::uint64_t(c.n));
      Coo<std::int64_t> coo = weighted_graph(rng, c.n, c.avg_degree);
      gbcuda::Matrix<std::int64_t> A = gb_matrix(coo);
      GMat gA = grb_matrix(coo);
      for (Index source : {Index(0), c.n / 2, c.n - 1}) {
        std::ostringstream ctx;
        ctx << "n " << c.n << " avg degree " << c.avg_degree << " seed " << seed << " source " << source;
        SsspResult got = sssp_gbcuda(A, source, b());
        SsspResult want = sssp_graphblas(gA.m, c.n, source);
        EXPECT_TRUE(same_vector(got.dist, want.dist, Check::Exact)) << ctx.str();
        EXPECT_EQ(got.rounds, want.rounds) << ctx.str();
        ASSERT_FALSE(got.dist.idx.empty()) << ctx.str();
        EXPECT_EQ(got.dist.vals[std::size_t(std::lower_bound(got.dist.idx.begin(), got.dist.idx.end(), source) -
                                            got.dist.idx.begin())],
                  0)
            << ctx.str();
      }
    }
  }
}

// A path 0 -> 1 -> ... -> n-1 with weight 1 plus a shortcut 0 -> n-1 of weight n: the shortcut
// is found first and must then be improved over n-1 rounds.
TEST_P(AlgorithmsTest, BellmanFordLongPath) {
  const Index n = 200;
  Coo<std::int64_t> coo;
  coo.nrows = coo.ncols = n;
  for (Index i = 0; i + 1 < n; ++i) {
    coo.rows.push_back(i);
    coo.cols.push_back(i + 1);
    coo.vals.push_back(1);
  }
  coo.rows.push_back(0);
  coo.cols.push_back(n - 1);
  coo.vals.push_back(n);
  SsspResult got = sssp_gbcuda(gb_matrix(coo), 0, b());
  GMat gA = grb_matrix(coo);
  SsspResult want = sssp_graphblas(gA.m, n, 0);
  EXPECT_TRUE(same_vector(got.dist, want.dist, Check::Exact));
  ASSERT_EQ(got.dist.vals.size(), std::size_t(n));
  for (Index i = 0; i < n; ++i) EXPECT_EQ(got.dist.vals[std::size_t(i)], i) << "vertex " << i;
}

TEST_P(AlgorithmsTest, PageRankMatchesGraphBlas) {
  const int iterations = 30;
  for (Index n : {Index(1), Index(12), Index(300), Index(5000)}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      Rng rng(seed * 77 + std::uint64_t(n));
      // Pattern graph: ~20% of vertices dangling, self-loops and duplicate edges possible.
      Coo<double> coo = random_matrix<double>(rng, n, n, 5.0, /*pattern=*/true);
      gbcuda::Matrix<double> A = gb_matrix(coo);
      GMat gA = grb_matrix(coo);
      const std::vector<double> got = pagerank_gbcuda(A, iterations, b());
      const std::vector<double> want = pagerank_graphblas(gA.m, n, iterations);
      ASSERT_EQ(got.size(), want.size());
      std::ostringstream ctx;
      ctx << "n " << n << " seed " << seed << " edges " << A.nvals();
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-9 * std::abs(want[i])) << ctx.str() << " vertex " << i;
      // Dangling rank is redistributed, so the ranks stay a probability distribution.
      EXPECT_NEAR(std::accumulate(got.begin(), got.end(), 0.0), 1.0, 1e-9) << ctx.str();
    }
  }
}

// ---- connected components --------------------------------------------------------------------
// The reference: a breadth-first search over the entries taken both ways, each component
// labelled with its smallest vertex id (the first one the scan in id order meets).
std::vector<std::int64_t> components_by_search(const gbcuda::Matrix<bool>& A) {
  const auto& a = A.csr(Backend::Host);
  const Index n = a.nrows;
  std::vector<std::vector<Index>> adj(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    for (gbcuda::Offset p = a.row_ptr.data()[i]; p < a.row_ptr.data()[i + 1]; ++p) {
      adj[std::size_t(i)].push_back(a.col_idx.data()[p]);
      adj[std::size_t(a.col_idx.data()[p])].push_back(i);
    }
  std::vector<std::int64_t> label(static_cast<std::size_t>(n), -1);
  for (Index s = 0; s < n; ++s) {
    if (label[std::size_t(s)] >= 0) continue;
    std::vector<Index> queue{s};
    label[std::size_t(s)] = s;
    for (std::size_t q = 0; q < queue.size(); ++q)
      for (Index v : adj[std::size_t(queue[q])])
        if (label[std::size_t(v)] < 0) label[std::size_t(v)] = s, queue.push_back(v);
  }
  return label;
}

void check_components(const gbcuda::Matrix<bool>& A, Backend b, const std::string& what) {
  SCOPED_TRACE(what);
  const Vector<std::int64_t> c = gbcuda::connected_components(A, b);
  EXPECT_EQ(c.backend(), b);
  EXPECT_EQ(c.nvals(), A.nrows()) << "every vertex has a component";
  EXPECT_EQ(c.to_dense_vector(-1), components_by_search(A));
}

TEST_P(AlgorithmsTest, ConnectedComponentsMatchASearch) {
  for (std::uint64_t seed : {1, 2, 3}) {
    // Undirected: many small components (avg degree 1.2), or a giant one beside isolated vertices
    // (avg degree 3: Afforest's sampling finds it and skips its edges).
    for (double degree : {1.2, 3.0}) {
      const gbtest::GraphSpec spec{20000, degree, false, false, false, 0.05, seed};
      check_components(gbtest::random_graph(spec), b(), spec.name());
    }
    // Directed, not symmetric: weakly connected components, every entry linked.
    const gbtest::GraphSpec directed{20000, 1.5, true, false, false, 0.05, seed};
    check_components(gbtest::random_graph(directed), b(), directed.name());
  }
  check_components(gbtest::path_graph(5000, false), b(), "undirected path");
  check_components(gbtest::path_graph(5000, true), b(), "directed path");
  check_components(gbtest::star_graph(3000), b(), "star");
  // A hub row longer than a warp's stride, self loops, a vertex whose only entry points at it.
  std::vector<Index> r, c;
  for (Index j = 0; j < 700; j += 2) r.push_back(999), c.push_back(j);
  r.insert(r.end(), {5, 7, 998}), c.insert(c.end(), {5, 7, 1});
  check_components(gbcuda::Matrix<bool>::from_coo(1000, 1000, r, c), b(), "hub, self loops");
  check_components(gbcuda::Matrix<bool>::from_coo(100, 100, std::vector<Index>{}, std::vector<Index>{}), b(),
                   "no entries");
  check_components(gbcuda::Matrix<bool>(), b(), "0 x 0");
  EXPECT_THROW(gbcuda::connected_components(
                   gbcuda::Matrix<bool>::from_coo(3, 4, std::vector<Index>{0}, std::vector<Index>{3}), b()),
               gbcuda::Error);
}

// The algorithms read a matrix's structure whatever its value type (an explicit zero is an
// edge): BFS, connected components and P A P' over each of the eleven value types give what they
// give over the bool graph, and the relabelling keeps the values.
template <class T>
void same_as_the_structure(const gbcuda::Matrix<bool>& G, Backend b) {
  SCOPED_TRACE(gbcuda::detail::value_type_name<T>());
  std::vector<Index> I, J;
  std::vector<bool> unused;
  gbcuda::extract_tuples(G, I, J, unused);
  std::unique_ptr<T[]> vals(new T[I.size()]);                     // not a std::vector: std::vector<bool> has no span
  for (std::size_t k = 0; k < I.size(); ++k) vals[k] = T(k % 3);  // zeros among them
  const auto A = gbcuda::Matrix<T>::from_coo(G.nrows(), G.ncols(), I, J, std::span<const T>(vals.get(), I.size()));
  gbcuda::BfsOptions o;
  o.device = b == Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  const Index source = G.nrows() / 3;
  EXPECT_EQ(gbcuda::bfs(A, source, o).level, gbcuda::bfs(G, source, o).level);
  std::vector<std::int64_t> got = gbcuda::connected_components(A, b).to_dense_vector(-1);
  EXPECT_EQ(got, gbcuda::connected_components(G, b).to_dense_vector(-1));
  const gbcuda::RelabelledGraph<T> R = gbcuda::relabel(A, gbcuda::Ordering::Degree, b);
  const gbcuda::Matrix<T> back = gbcuda::relabel(R.matrix, R.relabelling.inverse(), Backend::Host);
  std::vector<Index> I2, J2;
  std::vector<T> vals2;
  gbcuda::extract_tuples(back, I2, J2, vals2);
  std::vector<Index> I1, J1;
  std::vector<T> vals1;
  gbcuda::extract_tuples(A, I1, J1, vals1);
  EXPECT_EQ(I2, I1);
  EXPECT_EQ(J2, J1);
  EXPECT_EQ(vals2, vals1);
}
TEST_P(AlgorithmsTest, EveryValueTypeActsAsItsStructure) {
  const gbcuda::Matrix<bool> G = gbtest::random_graph({3000, 4.0, false, false, false, 0.05, 5});
#define GBTEST_SAME_AS_STRUCTURE(T) same_as_the_structure<T>(G, b());
  GBCUDA_FOR_EACH_TYPE(GBTEST_SAME_AS_STRUCTURE)
#undef GBTEST_SAME_AS_STRUCTURE
}

INSTANTIATE_TEST_SUITE_P(Backends, AlgorithmsTest, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
