// The examples' code (examples/), checked against SuiteSparse:GraphBLAS on each backend: the BFS
// of examples/bfs/bfs.hpp, written with public calls only, gives GraphBLAS's levels and valid
// parents on the sample matrices and on random graphs (and its device loop the same levels); Bellman-Ford
// (examples/sssp), PageRank (examples/pagerank), connected components (examples/cc) and triangles (examples/tc) give
// what the same algorithms written with GraphBLAS C calls give (bench/graphblas_algorithms.hpp, the CPU baselines of
// algebra_bench), and so does the k-truss (examples/ktruss); the centralities of examples/centrality (one multi-source
// BFS) are those of GraphBLAS's single-source levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bfs/bfs.hpp"
#include "cc/cc.hpp"
#include "centrality/centrality.hpp"
#include "ktruss/ktruss.hpp"
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
    EXPECT_EQ(example::bfs_levels(A, source, GetParam()), expected);  // the device loop's
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
const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new ops_ref::GraphBlasEnvironment);

class ExampleAlgebra : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: the example's GPU run needs one";
  }
};

// A as a GraphBLAS matrix of its own type (bench/graphblas_algorithms.hpp: the algorithms below are
// that file's, the same the CPU baselines of algebra_bench run).
template <class T>
gbref::Matrix grb_import(const gbcuda::Matrix<T>& A) {
  gbref::Matrix g;
  gbref::import(A, g);
  return g;
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

// On the GPU an example's device loop repeats its body as one CUDA graph (unless it ended after
// its first iteration).
void expect_loop_on_device(const gbcuda::LoopResult& r, Backend b) {
  if (b == Backend::Cuda && r.iterations > 1) {
    EXPECT_TRUE(r.on_device) << r.note;
  }
}

// Bellman-Ford with GraphBLAS: d = min(d, d' min.+ A) until no distance shrinks.
template <class T>
std::vector<T> graphblas_sssp(const gbcuda::Matrix<T>& A, Index source) {
  return gbref::sssp<T>(grb_import(A), A.nrows(), source, example::unreachable<T>()).values;
}

template <class T>
void check_sssp(const gbcuda::Matrix<T>& A, Index source, Backend b, const std::string& what) {
  SCOPED_TRACE(what + " from " + std::to_string(source));
  const auto want = graphblas_sssp(A, source);
  const auto got = example::sssp(A, source, b);
  ASSERT_EQ(got.distance.size(), want.size());
  for (std::size_t v = 0; v < want.size(); ++v) ASSERT_EQ(got.distance[v], want[v]) << "vertex " << v;
  EXPECT_GE(got.rounds, 1);
  expect_loop_on_device(got.loop, b);
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
  const gbref::Result<double> r = gbref::pagerank<double>(grb_import(A), A.out_degrees(), 0.85, 1e-4, 20);
  *iterations = r.rounds;
  return r.values;
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
  return gbref::components(grb_import(A), A.nrows()).values;
}

void check_components(const gbcuda::Matrix<bool>& A, Backend b, const std::string& what) {
  SCOPED_TRACE(what);
  const auto want = graphblas_components(A);
  Index roots = 0;
  for (Index v = 0; v < A.nrows(); ++v) roots += want[std::size_t(v)] == v;
  const auto got = example::connected_components(A, b);
  ASSERT_EQ(got.component, want);
  EXPECT_EQ(got.count, roots);
  const auto by_propagation = example::connected_components_by_propagation(A, b);
  ASSERT_EQ(by_propagation.component, want);
  EXPECT_EQ(by_propagation.count, roots);
  expect_loop_on_device(by_propagation.loop, b);
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
  return gbref::triangles(grb_import(A), A.nrows()).values.at(0);
}

// Harmonic and closeness centrality of a sample from GraphBLAS's BFS levels, one source at a time.
void check_centrality(const gbcuda::Matrix<bool>& A, Index k, Backend b, const std::string& what) {
  SCOPED_TRACE(what);
  const auto sample = example::spaced_sample(A, k);
  ASSERT_FALSE(sample.empty());
  const example::Centrality got = example::centrality(A, sample, b);
  EXPECT_EQ(got.passes, int((sample.size() + 63) / 64));
  const double n = double(A.nrows());
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const auto level = gbtest::graphblas_bfs_levels(A, sample[i]);
    double harmonic = 0, dist = 0, reached = 0;
    for (auto l : level) {
      if (l < 0) continue;
      ++reached;
      if (l > 0) harmonic += 1.0 / l;
      dist += l;
    }
    const double closeness = dist > 0 ? (reached - 1) * (reached - 1) / ((n - 1) * dist) : 0.0;
    ASSERT_NEAR(got.harmonic[i], harmonic, 1e-9 * std::max(1.0, harmonic)) << "vertex " << sample[i];
    ASSERT_NEAR(got.closeness[i], closeness, 1e-12) << "vertex " << sample[i];
  }
}

TEST_P(ExampleAlgebra, CentralityMatchesGraphBLAS) {
  const gbtest::GraphSpec spec{3000, 4.0, true, false, false, 0.05, 7};
  check_centrality(gbtest::random_graph(spec), 100, GetParam(), spec.name() + ", 100 sources (2 passes)");
  check_centrality(gbtest::path_graph(500, true), 64, GetParam(), "directed path, 64 sources");
  check_centrality(gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/karate.mtx"), 10, GetParam(),
                   "karate, 10 sources");
}

// The k-truss as the same loop written with GraphBLAS C calls: every remaining edge and its
// triangle count, on the samples and random graphs, for several k.
void check_ktruss(const gbcuda::Matrix<bool>& A, int k, Backend b, const std::string& what) {
  SCOPED_TRACE(what + ", k = " + std::to_string(k));
  const auto want = gbref::ktruss(grb_import(A), A.nrows(), k);
  const example::KTruss got = example::ktruss(A, k, b);
  std::vector<Index> I, J;
  std::vector<std::int64_t> X;
  gbcuda::extract_tuples(got.truss, I, J, X);
  std::vector<gbref::TrussEntry> entries;
  for (std::size_t e = 0; e < I.size(); ++e) entries.push_back({I[e], J[e], X[e]});
  EXPECT_EQ(entries, want.values);
  EXPECT_EQ(got.rounds, want.rounds);
}

TEST_P(ExampleAlgebra, KTrussMatchesGraphBLAS) {
  for (const char* name : {"karate.mtx", "dolphins.mtx", "netscience.mtx"}) {
    const auto M = gbcuda::read_matrix<bool>(std::string(GBCUDA_MATRICES_DIR) + "/" + name);
    const auto A = M.is_symmetric_structure() ? M : M.symmetrized();
    for (int k : {3, 4, 5}) check_ktruss(A, k, GetParam(), name);
  }
  const gbtest::GraphSpec spec{2000, 12.0, false, true, false, 0.05, 9};  // self loops: ignored
  for (int k : {3, 5}) check_ktruss(gbtest::random_graph(spec), k, GetParam(), spec.name());
  EXPECT_THROW(example::ktruss(gbtest::path_graph(5, false), 2, GetParam()), gbcuda::Error);
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
  // A skewed graph takes the presort by degree, a mesh does not.
  const auto kron = gbcuda::generate_graph("kron:12:16", Backend::Host);
  const auto grid = gbcuda::generate_graph("grid:40:40", Backend::Host);
  EXPECT_TRUE(example::worth_relabelling(kron));
  EXPECT_FALSE(example::worth_relabelling(grid));
  EXPECT_EQ(example::triangle_count(kron, GetParam()), graphblas_triangles(kron)) << "kron:12:16";
  EXPECT_EQ(example::triangle_count(grid, GetParam()), graphblas_triangles(grid)) << "grid:40:40";
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
