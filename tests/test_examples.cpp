// The examples' code (examples/), checked against SuiteSparse:GraphBLAS on each backend: the BFS
// of examples/bfs/bfs.hpp, written with public calls only, gives GraphBLAS's levels and valid
// parents on the sample matrices and on random graphs; Bellman-Ford (examples/sssp), PageRank
// (examples/pagerank) and connected components (examples/cc) give what the same algorithms
// written with GraphBLAS C calls give.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bfs/bfs.hpp"
#include "cc/cc.hpp"
#include "pagerank/pagerank.hpp"
#include "sssp/sssp.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"
#include "support/ops_ref.hpp"
#include "tc/tc.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;

class ExampleBfs : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: the example's GPU run needs one";
  }
  void check(const gbcuda::Matrix<bool>& A, Index source, const std::string& what) {
    SCOPED_TRACE(what + " from " + std::to_string(source));
    const auto expected = gbtest::graphblas_bfs_levels(A, source);
    const example::BfsOutput out = example::bfs(A, source, GetParam());
    ASSERT_EQ(out.level, expected);
    EXPECT_EQ(out.levels, int(gbtest::level_sizes(expected).size()));
    gbcuda::BfsResult r;
    r.level = out.level;
    r.parent = out.parent;
    EXPECT_EQ(gbcuda::validate_bfs(A, source, r), "");
  }
};

TEST_P(ExampleBfs, SampleMatrices) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GBCUDA_MATRICES_DIR)) {
    if (entry.path().filename() == "README.md") continue;
    const auto A = gbcuda::read_matrix<bool>(entry.path().string());
    if (A.nrows() != A.ncols() || A.nrows() == 0) continue;
    check(A, 0, entry.path().filename().string());
    check(A, A.nrows() / 3, entry.path().filename().string());
    ++count;
  }
  EXPECT_GE(count, 11);
}

TEST_P(ExampleBfs, RandomGraphs) {
  for (std::uint64_t seed : {1, 2}) {
    for (bool directed : {true, false}) {
      const gbtest::GraphSpec spec{20000, 6.0, directed, true, true, 0.05, seed};
      const auto A = gbtest::random_graph(spec);
      check(A, Index(seed) * 17, spec.name());
    }
  }
  check(gbtest::star_graph(30000), 5, "star");
  check(gbtest::path_graph(2000, true), 0, "directed path");
}

INSTANTIATE_TEST_SUITE_P(Backends, ExampleBfs, testing::Values(Backend::Host, Backend::Cuda),
                         [](const testing::TestParamInfo<Backend>& i) {
                           return std::string(gbcuda::to_string(i.param));
                         });

// ---- the value examples -------------------------------------------------------------------------
using ops_ref::Grb;
const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new ops_ref::GraphBlasEnvironment);

class ExampleAlgebra : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: the example's GPU run needs one";
  }
};

// A as a GraphBLAS matrix of its own type, values included.
template <class T>
ops_ref::GMat grb_copy(const gbcuda::Matrix<T>& A) {
  const auto& a = A.csr(Backend::Host);
  ops_ref::Coo<T> coo;
  coo.nrows = a.nrows;
  coo.ncols = a.ncols;
  for (Index i = 0; i < a.nrows; ++i)
    for (gbcuda::Offset p = a.row_ptr.data()[i]; p < a.row_ptr.data()[i + 1]; ++p) {
      coo.rows.push_back(i);
      coo.cols.push_back(a.col_idx.data()[p]);
      coo.vals.push_back(a.is_iso() ? a.iso_value : a.values.data()[p]);
    }
  return ops_ref::grb_matrix(coo);
}
// The dense contents of a GraphBLAS vector, `missing` where it has no entry.
template <class T>
std::vector<T> grb_dense(GrB_Vector v, Index n, T missing) {
  const ops_ref::Tuples<T> t = ops_ref::tuples_of<T>(v);
  std::vector<T> out(static_cast<std::size_t>(n), missing);
  for (std::size_t k = 0; k < t.idx.size(); ++k) out[std::size_t(t.idx[k])] = t.vals[k];
  return out;
}

// A random graph with weights 1..20 from the seed (or the pattern of a sample, weighted by its
// coordinates), as Matrix<T>.
template <class T>
gbcuda::Matrix<T> weighted(const gbcuda::Matrix<bool>& G, std::uint64_t seed) {
  const auto& g = G.csr(Backend::Host);
  std::vector<Index> I, J;
  std::vector<T> X;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> w(1, 20);
  for (Index i = 0; i < g.nrows; ++i)
    for (gbcuda::Offset p = g.row_ptr.data()[i]; p < g.row_ptr.data()[i + 1]; ++p) {
      I.push_back(i);
      J.push_back(g.col_idx.data()[p]);
      X.push_back(std::is_floating_point_v<T> ? T(w(rng)) / T(4) : T(w(rng)));
    }
  return gbcuda::Matrix<T>::from_coo(g.nrows, g.ncols, I, J, X);
}

// Bellman-Ford with GraphBLAS: d = min(d, d' min.+ A) until unchanged (GrB_Vector_isequal-like
// check by tuples).
template <class T>
std::vector<T> graphblas_sssp(const gbcuda::Matrix<T>& A, Index source) {
  const Index n = A.nrows();
  ops_ref::GMat g = grb_copy(A);
  ops_ref::GVec d = ops_ref::grb_empty_vector<T>(n);
  ops_ref::Tuples<T> one;
  one.n = n;
  one.idx = {source};
  one.vals = {T(0)};
  d = ops_ref::grb_vector(one);
  GrB_Semiring minplus = std::is_same_v<T, double> ? GrB_MIN_PLUS_SEMIRING_FP64 : GrB_MIN_PLUS_SEMIRING_INT64;
  for (Index round = 0; round < n; ++round) {
    const ops_ref::Tuples<T> before = ops_ref::tuples_of<T>(d.v);
    OPS_GRB(GrB_vxm(d.v, GrB_NULL, Grb<T>::min(), minplus, d.v, g.m, GrB_NULL));
    const ops_ref::Tuples<T> after = ops_ref::tuples_of<T>(d.v);
    if (after.idx == before.idx && after.vals == before.vals) break;
  }
  return grb_dense<T>(d.v, n, example::unreachable<T>());
}

template <class T>
void check_sssp(const gbcuda::Matrix<T>& A, Index source, Backend b, const std::string& what) {
  SCOPED_TRACE(what + " from " + std::to_string(source));
  const auto want = graphblas_sssp(A, source);
  const auto got = example::sssp(A, source, b);
  ASSERT_EQ(got.distance.size(), want.size());
  for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got.distance[v], want[v]) << "vertex " << v;
  EXPECT_GE(got.rounds, 1);
}

TEST_P(ExampleAlgebra, SsspMatchesGraphBLAS) {
  for (std::uint64_t seed : {1, 2}) {
    const gbtest::GraphSpec spec{5000, 5.0, seed == 1, false, false, 0.02, seed};
    const auto G = gbtest::random_graph(spec);
    check_sssp(weighted<double>(G, seed), Index(seed) * 11, GetParam(), spec.name() + " double");
    check_sssp(weighted<std::int64_t>(G, seed), Index(seed) * 11, GetParam(), spec.name() + " int64");
  }
  const auto hub = weighted<std::int64_t>(gbtest::star_graph(20000), 3);  // one row of 19999 entries
  check_sssp(hub, 7, GetParam(), "star");
  const auto karate = gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/karate.mtx");
  check_sssp(weighted<double>(karate, 5), 0, GetParam(), "karate");
}

// PageRank (GAP) with GraphBLAS, the same steps as examples/pagerank.
std::vector<double> graphblas_pagerank(const gbcuda::Matrix<bool>& A, int* iterations) {
  const Index n = A.nrows();
  gbtest::GrbMatrix g;
  gbtest::to_graphblas_pattern(A, g);
  const double damping = 0.85, teleport = (1 - damping) / double(n);
  ops_ref::Tuples<double> sc;
  sc.n = n;
  const auto& outdeg = A.out_degrees();
  for (Index v = 0; v < n; ++v)
    if (outdeg[std::size_t(v)] > 0) {
      sc.idx.push_back(v);
      sc.vals.push_back(damping / double(outdeg[std::size_t(v)]));
    }
  ops_ref::GVec scale = ops_ref::grb_vector(sc);
  ops_ref::GVec r = ops_ref::grb_empty_vector<double>(n), w = ops_ref::grb_empty_vector<double>(n),
                next = ops_ref::grb_empty_vector<double>(n), delta = ops_ref::grb_empty_vector<double>(n);
  OPS_GRB(GrB_Vector_assign_FP64(r.v, GrB_NULL, GrB_NULL, 1.0 / double(n), GrB_ALL, GrB_Index(n), GrB_NULL));
  *iterations = 0;
  while (*iterations < 20) {
    ++*iterations;
    OPS_GRB(GrB_Vector_eWiseMult_BinaryOp(w.v, GrB_NULL, GrB_NULL, GrB_TIMES_FP64, r.v, scale.v, GrB_NULL));
    OPS_GRB(GrB_Vector_assign_FP64(next.v, GrB_NULL, GrB_NULL, teleport, GrB_ALL, GrB_Index(n), GrB_NULL));
    OPS_GRB(GrB_vxm(next.v, GrB_NULL, GrB_PLUS_FP64, GxB_PLUS_FIRST_FP64, w.v, g.m, GrB_NULL));
    OPS_GRB(GrB_Vector_eWiseAdd_BinaryOp(delta.v, GrB_NULL, GrB_NULL, GrB_MINUS_FP64, next.v, r.v, GrB_NULL));
    OPS_GRB(GrB_Vector_apply(delta.v, GrB_NULL, GrB_NULL, GrB_ABS_FP64, delta.v, GrB_NULL));
    double change = 0;
    OPS_GRB(GrB_Vector_reduce_FP64(&change, GrB_NULL, GrB_PLUS_MONOID_FP64, delta.v, GrB_NULL));
    std::swap(r, next);
    if (change < 1e-4) break;
  }
  return grb_dense<double>(r.v, n, 0.0);
}

void check_pagerank(const gbcuda::Matrix<bool>& A, Backend b, const std::string& what) {
  SCOPED_TRACE(what);
  int iterations = 0;
  const auto want = graphblas_pagerank(A, &iterations);
  const auto got = example::pagerank<bool, double>(A, b);
  EXPECT_EQ(got.iterations, iterations);
  ASSERT_EQ(got.rank.size(), want.size());
  for (std::size_t v = 0; v < want.size(); ++v) ASSERT_NEAR(got.rank[v], want[v], 1e-12) << "vertex " << v;
  // float: the same ranks to float precision
  const auto got_f = example::pagerank<bool, float>(A, b);
  for (std::size_t v = 0; v < want.size(); ++v)
    ASSERT_NEAR(got_f.rank[v], want[v], 1e-5) << "vertex " << v << " (float)";
}

TEST_P(ExampleAlgebra, PageRankMatchesGraphBLAS) {
  for (std::uint64_t seed : {1, 2}) {
    const gbtest::GraphSpec spec{20000, 8.0, seed == 1, false, true, 0.05, seed};
    check_pagerank(gbtest::random_graph(spec), GetParam(), spec.name());
  }
  check_pagerank(gbtest::star_graph(30000), GetParam(), "star");
  check_pagerank(gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/karate.mtx"), GetParam(), "karate");
}

// Minimum-label propagation with GraphBLAS (GrB_vxm over MIN_FIRST, accumulated with MIN).
std::vector<std::int64_t> graphblas_components(const gbcuda::Matrix<bool>& A) {
  const Index n = A.nrows();
  gbtest::GrbMatrix g;
  gbtest::to_graphblas_pattern(A, g);
  ops_ref::Tuples<std::int64_t> ids;
  ids.n = n;
  for (Index v = 0; v < n; ++v) {
    ids.idx.push_back(v);
    ids.vals.push_back(v);
  }
  ops_ref::GVec f = ops_ref::grb_vector(ids);
  for (;;) {
    const auto before = ops_ref::tuples_of<std::int64_t>(f.v);
    OPS_GRB(GrB_vxm(f.v, GrB_NULL, GrB_MIN_INT64, GrB_MIN_FIRST_SEMIRING_INT64, f.v, g.m, GrB_NULL));
    if (ops_ref::tuples_of<std::int64_t>(f.v).vals == before.vals) break;
  }
  return grb_dense<std::int64_t>(f.v, n, -1);
}

void check_components(const gbcuda::Matrix<bool>& A, Backend b, const std::string& what) {
  SCOPED_TRACE(what);
  const auto want = graphblas_components(A);
  const auto got = example::connected_components(A, b);
  ASSERT_EQ(got.component, want);
  Index roots = 0;
  for (Index v = 0; v < A.nrows(); ++v) roots += want[std::size_t(v)] == v;
  EXPECT_EQ(got.count, roots);
}

TEST_P(ExampleAlgebra, ComponentsMatchGraphBLAS) {
  for (std::uint64_t seed : {1, 2, 3}) {  // sparse enough to fall apart into many components
    const gbtest::GraphSpec spec{20000, seed == 3 ? 3.0 : 1.2, false, false, false, 0.05, seed};
    check_components(gbtest::random_graph(spec), GetParam(), spec.name());
  }
  check_components(gbtest::path_graph(3000, false), GetParam(), "path");
  for (const char* name : {"karate.mtx", "netscience.mtx", "dolphins.mtx"}) {
    const auto M = gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/" + name);
    check_components(M.symmetrized(), GetParam(), name);
  }
}

// Triangles with GraphBLAS: L = tril(A, -1), C<L> = L * L' over PLUS_PAIR, sum(C).
std::int64_t graphblas_triangles(const gbcuda::Matrix<bool>& A) {
  gbtest::GrbMatrix g;
  gbtest::to_graphblas_pattern(A, g);
  const GrB_Index n = GrB_Index(A.nrows());
  ops_ref::GMat L, C;
  OPS_GRB(GrB_Matrix_new(&L.m, GrB_BOOL, n, n));
  OPS_GRB(GrB_Matrix_new(&C.m, GrB_INT64, n, n));
  OPS_GRB(GrB_Matrix_select_INT64(L.m, GrB_NULL, GrB_NULL, GrB_TRIL, g.m, -1, GrB_NULL));
  OPS_GRB(GrB_mxm(C.m, L.m, GrB_NULL, GxB_PLUS_PAIR_INT64, L.m, L.m, GrB_DESC_ST1));
  std::int64_t count = 0;
  OPS_GRB(GrB_Matrix_reduce_INT64(&count, GrB_NULL, GrB_PLUS_MONOID_INT64, C.m, GrB_NULL));
  return count;
}

TEST_P(ExampleAlgebra, TrianglesMatchGraphBLAS) {
  const std::uint64_t before = gbcuda::host_fallbacks();
  int nonzero = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GBCUDA_MATRICES_DIR)) {
    if (entry.path().filename() == "README.md") continue;
    const auto M = gbcuda::read_matrix<bool>(entry.path().string());
    if (M.nrows() != M.ncols() || M.nrows() == 0) continue;
    const auto A = M.is_symmetric_structure() ? M : M.symmetrized();
    const std::int64_t want = graphblas_triangles(A);
    EXPECT_EQ(example::triangle_count(A, GetParam()), want) << entry.path().filename();
    nonzero += want > 0;
  }
  EXPECT_GE(nonzero, 5);
  for (std::uint64_t seed : {1, 2}) {
    const gbtest::GraphSpec spec{20000, 12.0, false, true, true, 0.05, seed};
    const auto A = gbtest::random_graph(spec);
    EXPECT_EQ(example::triangle_count(A, GetParam()), graphblas_triangles(A)) << spec.name();
  }
  const auto karate = gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/karate.mtx");
  EXPECT_EQ(example::triangle_count(karate, GetParam()), 45);  // Zachary's karate club
  if (GetParam() == Backend::Cuda) {
    EXPECT_EQ(gbcuda::host_fallbacks(), before) << "triangle counting ran on host copies";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ExampleAlgebra, testing::Values(Backend::Host, Backend::Cuda),
                         [](const testing::TestParamInfo<Backend>& i) {
                           return std::string(gbcuda::to_string(i.param));
                         });

}  // namespace
