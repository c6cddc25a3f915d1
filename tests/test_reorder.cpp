// Vertex orderings and relabelled graphs: the relabelling's maps, the degree and RCM orderings'
// defining properties, P A P' entry by entry, BFS over a relabelled graph reported in the
// original ids (both backends), and relabelled graphs saved in and read from .gbc files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix_operations.hpp"
#include "gbcuda/reorder.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using gbcuda::Matrix;
using gbcuda::Ordering;
using gbcuda::Relabelling;

// The entries of A as (row, col) -> value.
template <class T>
std::map<std::pair<Index, Index>, T> entries(const Matrix<T>& A) {
  std::vector<Index> I, J;
  std::vector<T> X;
  gbcuda::extract_tuples(A, I, J, X);
  std::map<std::pair<Index, Index>, T> m;
  for (std::size_t k = 0; k < I.size(); ++k) m[{I[k], J[k]}] = X[k];
  return m;
}

// The largest |new(i) - new(j)| over the entries of A: the bandwidth an ordering reduces.
Index bandwidth(const Matrix<bool>& A) {
  const auto& c = A.csr(Backend::Host);
  Index b = 0;
  for (Index i = 0; i < A.nrows(); ++i)
    for (auto p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) b = std::max(b, std::abs(Index(c.col_idx[p]) - i));
  return b;
}

// A random permutation of 0..n-1 as a relabelling (the "worst" order a file might come in).
Relabelling shuffled(Index n, std::uint64_t seed) {
  std::vector<Index> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), Index(0));
  std::mt19937_64 rng(seed);
  std::shuffle(p.begin(), p.end(), rng);
  return Relabelling::from_original_ids(std::move(p), Ordering::None);
}

// A directed n x n matrix of `entries` random coordinates with values (the last of duplicates kept).
Matrix<double> random_valued_matrix(Index n, int entries, std::uint64_t seed) {
  std::vector<Index> I, J;
  std::vector<double> X;
  std::mt19937_64 rng(seed);
  for (int k = 0; k < entries; ++k) {
    I.push_back(Index(rng() % n));
    J.push_back(Index(rng() % n));
    X.push_back(double(1 + rng() % 1000) / 8);
  }
  return Matrix<double>::from_coo(n, n, I, J, X, gbcuda::DuplicatePolicy::Last);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gbcuda_test_reorder_" + name)).string();
}

TEST(Relabelling, MapsBothWays) {
  const Relabelling r = Relabelling::from_original_ids({2, 0, 3, 1}, Ordering::Degree);
  EXPECT_EQ(r.size(), 4);
  EXPECT_EQ(r.ordering(), Ordering::Degree);
  EXPECT_FALSE(r.is_identity());
  for (Index k = 0; k < 4; ++k) EXPECT_EQ(r.new_id(r.original_id(k)), k);
  EXPECT_EQ(r.new_id(2), 0);
  EXPECT_EQ(r.original_id(3), 1);
  // Values by relabelled id (vertex k holds 10 * original id) land at their original ids.
  const std::vector<int> by_new = {20, 0, 30, 10};
  EXPECT_EQ(r.to_original_order(by_new), (std::vector<int>{0, 10, 20, 30}));
  EXPECT_TRUE(Relabelling::identity(5).is_identity());
  EXPECT_THROW((void)r.new_id(4), gbcuda::Error);
  EXPECT_THROW((void)r.original_id(-1), gbcuda::Error);
  EXPECT_THROW((void)r.to_original_order(std::vector<int>(3)), gbcuda::Error);
}

TEST(Relabelling, RefusesWhatIsNotAPermutation) {
  EXPECT_THROW(Relabelling::from_original_ids({0, 0, 1}, Ordering::Rcm), gbcuda::Error);
  EXPECT_THROW(Relabelling::from_original_ids({0, 3, 1}, Ordering::Rcm), gbcuda::Error);
  EXPECT_THROW(Relabelling::from_original_ids({-1, 0}, Ordering::Rcm), gbcuda::Error);
  EXPECT_THROW(Relabelling::identity(-1), gbcuda::Error);
}

TEST(Relabelling, ComposesInOrder) {
  const Relabelling a = shuffled(50, 1), b = shuffled(50, 2);
  const Relabelling ab = a.then(b);
  for (Index v = 0; v < 50; ++v) EXPECT_EQ(ab.new_id(v), b.new_id(a.new_id(v)));
  EXPECT_EQ(a.then(Relabelling::identity(50)).original_ids(), a.original_ids());
  EXPECT_TRUE(a.then(a.inverse()).is_identity());
  for (Index v = 0; v < 50; ++v) EXPECT_EQ(a.inverse().new_id(a.new_id(v)), v);
  EXPECT_THROW((void)a.then(Relabelling::identity(49)), gbcuda::Error);
}

TEST(Ordering, ParsesNames) {
  for (Ordering o : {Ordering::None, Ordering::Degree, Ordering::Rcm})
    EXPECT_EQ(gbcuda::parse_ordering(gbcuda::to_string(o)), o);
  try {
    (void)gbcuda::parse_ordering("gorder");
    FAIL() << "an unknown ordering was accepted";
  } catch (const gbcuda::Error& e) {
    EXPECT_NE(std::string(e.what()).find("none, degree or rcm"), std::string::npos) << e.what();
  }
}

TEST(Ordering, DegreePutsHubsFirstAndIsolatedLast) {
  gbtest::GraphSpec spec;
  spec.n = 400;
  spec.avg_degree = 6;
  spec.isolated = 0.1;
  spec.seed = 3;
  const Matrix<bool> A = gbtest::random_graph(spec);
  const Relabelling r = gbcuda::compute_ordering(A, Ordering::Degree);
  ASSERT_EQ(r.size(), A.nrows());
  EXPECT_EQ(r.ordering(), Ordering::Degree);
  auto degree = [&](Index v) { return A.out_degrees()[v] + A.in_degrees()[v]; };
  for (Index k = 1; k < r.size(); ++k) {
    const Index prev = r.original_id(k - 1), cur = r.original_id(k);
    ASSERT_GE(degree(prev), degree(cur)) << "position " << k;
    if (degree(prev) == degree(cur)) {
      ASSERT_LT(prev, cur) << "ties are broken by the original id, position " << k;
    }
  }
  EXPECT_EQ(degree(r.original_id(r.size() - 1)), 0) << "the isolated vertices come last";
}

TEST(Ordering, RcmRecoversABandOfAShuffledMesh) {
  // A 30 x 20 grid in a random order: RCM brings its bandwidth back near the grid's width.
  const Matrix<bool> grid = gbcuda::generate_graph("grid:30:20", Backend::Host);
  const Matrix<bool> scrambled = gbcuda::relabel(grid, shuffled(grid.nrows(), 7));
  ASSERT_GT(bandwidth(scrambled), 300);
  const auto g = gbcuda::relabel(scrambled, Ordering::Rcm);
  EXPECT_EQ(g.relabelling.ordering(), Ordering::Rcm);
  EXPECT_LE(bandwidth(g.matrix), 2 * 20 + 2);
  // A shuffled path: bandwidth 1 after RCM (it starts at an end).
  const Matrix<bool> path = gbcuda::relabel(gbtest::path_graph(200, false), shuffled(200, 9));
  EXPECT_EQ(bandwidth(gbcuda::relabel(path, Ordering::Rcm).matrix), 1);
}

TEST(Ordering, RcmCoversEveryComponentAndDirectedGraphs) {
  gbtest::GraphSpec spec;
  spec.n = 500;
  spec.avg_degree = 1.2;  // many small components
  spec.directed = true;
  spec.isolated = 0.05;
  spec.seed = 11;
  const Matrix<bool> A = gbtest::random_graph(spec);
  ASSERT_FALSE(A.is_symmetric_structure());
  const Relabelling r = gbcuda::compute_ordering(A, Ordering::Rcm);
  ASSERT_EQ(r.size(), A.nrows());  // a permutation: from_original_ids checked it
  auto degree = [&](Index v) { return A.out_degrees()[v] + A.in_degrees()[v]; };
  EXPECT_EQ(degree(r.original_id(r.size() - 1)), 0);
  // Cuthill-McKee is a breadth-first order of A + A': reversed, every vertex but a component's
  // start has a neighbour placed after it.
  const Matrix<bool> S = A.symmetrized();
  const auto& c = S.csr(Backend::Host);
  for (Index k = 0; k < r.size(); ++k) {
    const Index v = r.original_id(k);
    if (degree(v) == 0) continue;
    Index latest = -1;
    for (auto p = c.row_ptr[v]; p < c.row_ptr[v + 1]; ++p) latest = std::max(latest, r.new_id(c.col_idx[p]));
    // The component's start is last among its vertices; everyone else was discovered by a later one.
    if (latest < k) {
      for (auto p = c.row_ptr[v]; p < c.row_ptr[v + 1]; ++p) ASSERT_LT(r.new_id(c.col_idx[p]), k);
    }
  }
}

TEST(Relabel, MovesEveryEntryWithItsValue) {
  // A directed matrix with values; each entry A(i,j) = x must be B(new(i), new(j)) = x.
  const Index n = 120;
  const Matrix<double> A = random_valued_matrix(n, 900, 5);
  for (Ordering o : {Ordering::Degree, Ordering::Rcm}) {
    const auto g = gbcuda::relabel(A, o);
    const auto a = entries(A), b = entries(g.matrix);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [ij, x] : a) {
      const auto it = b.find({g.relabelling.new_id(ij.first), g.relabelling.new_id(ij.second)});
      ASSERT_NE(it, b.end());
      EXPECT_EQ(it->second, x);
    }
    EXPECT_EQ(g.matrix.known_symmetric_structure(), A.known_symmetric_structure());
    EXPECT_EQ(g.matrix.is_symmetric_structure(), A.is_symmetric_structure());
  }
  EXPECT_THROW((void)gbcuda::relabel(A, Relabelling::identity(n - 1)), gbcuda::Error);
  const Matrix<double> rect = Matrix<double>::from_coo(3, 4, std::vector<Index>{0}, std::vector<Index>{3});
  EXPECT_THROW((void)gbcuda::compute_ordering(rect, Ordering::Rcm), gbcuda::Error);
}

// relabel on the GPU: the same matrix as on the host, for values, a pattern (iso), rows of
// thousands (a star's hub), empty rows and a directed matrix; the result in GPU memory. And a
// matrix only on the GPU gives its degrees without a host copy of its entries.
TEST(Relabel, OnTheGpuAsOnTheHost) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: relabel in GPU memory needs one";
  const Matrix<double> A = random_valued_matrix(1500, 20000, 8);
  const Matrix<bool> star = gbtest::star_graph(5000);
  const Matrix<bool> directed = gbtest::random_graph({4000, 6.0, true, false, false, 0.05, 4});
  for (Ordering o : {Ordering::Degree, Ordering::Rcm}) {
    const Relabelling r = gbcuda::compute_ordering(A, o);
    const Matrix<double> got = gbcuda::relabel(A, r, Backend::Cuda);
    EXPECT_GT(got.device_bytes(), 0u);
    EXPECT_EQ(entries(got), entries(gbcuda::relabel(A, r))) << gbcuda::to_string(o);
    for (const Matrix<bool>* B : {&star, &directed}) {
      const auto g = gbcuda::relabel(*B, o, Backend::Cuda);  // Degree: ordered on the GPU too
      const Relabelling want = gbcuda::compute_ordering(*B, o);
      EXPECT_EQ(g.relabelling.original_ids(), want.original_ids()) << gbcuda::to_string(o);
      EXPECT_EQ(g.relabelling.new_ids(), want.new_ids()) << gbcuda::to_string(o);
      EXPECT_EQ(g.relabelling.ordering(), o);
      EXPECT_EQ(entries(g.matrix), entries(gbcuda::relabel(*B, want))) << gbcuda::to_string(o);
      EXPECT_EQ(g.matrix.known_symmetric_structure(), B->known_symmetric_structure());
    }
    const auto gA = gbcuda::relabel(A, o, Backend::Cuda);  // directed, with values
    EXPECT_EQ(gA.relabelling.original_ids(), gbcuda::compute_ordering(A, o).original_ids());
    EXPECT_EQ(entries(gA.matrix), entries(gbcuda::relabel(A, gA.relabelling)));
  }
  const Matrix<double> empty = Matrix<double>::from_coo(3, 3, std::vector<Index>{}, std::vector<Index>{});
  EXPECT_EQ(gbcuda::relabel(empty, Relabelling::identity(3), Backend::Cuda).nvals(), 0);
  EXPECT_EQ(gbcuda::relabel(empty, Ordering::Degree, Backend::Cuda).relabelling.original_ids(),
            (std::vector<Index>{0, 1, 2}));
  // Degrees of a matrix whose entries live only on the GPU (a product's result).
  Matrix<double> C;
  gbcuda::select(C, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, A, 0.5, Backend::Cuda);
  const std::vector<Index> got = C.out_degrees();  // first: entries() below makes a host copy
  std::vector<Index> want(std::size_t(C.nrows()), 0);
  for (const auto& [ij, x] : entries(C)) ++want[std::size_t(ij.first)];
  EXPECT_EQ(got, want);
}

class RelabelledBfs : public testing::TestWithParam<std::tuple<Backend, Ordering, bool>> {};

TEST_P(RelabelledBfs, ReportsTheOriginalIds) {
  const auto [backend, ordering, directed] = GetParam();
  if (backend == Backend::Cuda && !gbcuda::cuda_available())
    GTEST_SKIP() << "no CUDA device: the CUDA backend's BFS runs only on a GPU";
  gbtest::GraphSpec spec;
  spec.n = 3000;
  spec.avg_degree = 5;
  spec.directed = directed;
  spec.isolated = 0.02;
  spec.seed = 21;
  const Matrix<bool> A = gbtest::random_graph(spec);
  const auto g = gbcuda::relabel(A, ordering);
  gbcuda::BfsOptions opt;
  opt.device = backend == Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  opt.compute_parents = true;
  for (Index source : {Index(0), Index(1234), Index(2999)}) {
    const gbcuda::BfsResult want = gbcuda::bfs(A, source, opt);
    const gbcuda::BfsResult got = gbcuda::bfs(g, source, opt);
    EXPECT_EQ(got.source, source);
    EXPECT_EQ(got.level, want.level) << "source " << source;
    EXPECT_EQ(got.vertices_reached, want.vertices_reached);
    EXPECT_EQ(got.edges_traversed, want.edges_traversed);
    // Parents may differ (any parent one level up is right): check them against A.
    EXPECT_EQ(gbcuda::validate_bfs(A, source, got), "") << "source " << source;
  }
  EXPECT_THROW((void)gbcuda::bfs(g, A.nrows(), opt), gbcuda::Error);
}

INSTANTIATE_TEST_SUITE_P(All, RelabelledBfs,
                         testing::Combine(testing::Values(Backend::Host, Backend::Cuda),
                                          testing::Values(Ordering::Degree, Ordering::Rcm), testing::Bool()),
                         [](const auto& info) {
                           return std::string(gbcuda::to_string(std::get<0>(info.param))) + "_" +
                                  gbcuda::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_directed" : "_undirected");
                         });

TEST(RelabelledGbc, KeepsTheOrderingAndRestoresTheOriginalIds) {
  gbtest::GraphSpec spec;
  spec.n = 700;
  spec.avg_degree = 4;
  spec.seed = 8;
  const Matrix<bool> A = gbtest::random_graph(spec);
  const auto g = gbcuda::relabel(A, Ordering::Rcm);
  const std::string path = temp_path("rcm.gbc");
  gbcuda::write_binary_graph(path, g);

  const auto back = gbcuda::read_relabelled_graph<bool>(path);
  EXPECT_EQ(back.relabelling.ordering(), Ordering::Rcm);
  EXPECT_EQ(back.relabelling.original_ids(), g.relabelling.original_ids());
  EXPECT_EQ(entries(back.matrix), entries(g.matrix));
  // The plain readers give the graph in the user's ids.
  EXPECT_EQ(entries(gbcuda::read_binary_graph<bool>(path)), entries(A));
  gbcuda::ReadReport report;
  gbcuda::ReadOptions ro;
  ro.report = &report;
  EXPECT_EQ(entries(gbcuda::read_matrix<bool>(path, ro)), entries(A));
  EXPECT_NE(report.header.find("relabelled (rcm)"), std::string::npos) << report.header;

  // A version 1 file read as a relabelled graph: the identity.
  const std::string plain = temp_path("plain.gbc");
  gbcuda::write_binary_graph(plain, A);
  const auto ident = gbcuda::read_relabelled_graph<bool>(plain);
  EXPECT_TRUE(ident.relabelling.is_identity());
  EXPECT_EQ(ident.relabelling.ordering(), Ordering::None);
  EXPECT_EQ(entries(ident.matrix), entries(A));
  std::filesystem::remove(plain);

  // A damaged relabelling section (two vertices with one original id) is refused by name.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-2 * static_cast<std::streamoff>(sizeof(Index)), std::ios::end);
    const Index dup = g.relabelling.original_id(0);
    f.write(reinterpret_cast<const char*>(&dup), sizeof dup);
  }
  try {
    (void)gbcuda::read_relabelled_graph<bool>(path);
    FAIL() << "a damaged relabelling was accepted";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::ParseError);
    EXPECT_NE(std::string(e.what()).find("not a permutation"), std::string::npos) << e.what();
  }
  // Truncated inside the relabelling.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
  EXPECT_THROW((void)gbcuda::read_binary_graph<bool>(path), gbcuda::Error);
  std::filesystem::remove(path);
}

TEST(RelabelledGbc, DroppedValuesDoNotHideTheOriginalIds) {
  // A relabelled matrix with values read as bool (structure only): the values section is skipped
  // and the original ids after it are still found.
  const Matrix<double> A = random_valued_matrix(300, 1500, 17);
  const auto g = gbcuda::relabel(A, Ordering::Degree);
  const std::string path = temp_path("values.gbc");
  gbcuda::write_binary_graph(path, g);
  const auto as_bool = gbcuda::read_relabelled_graph<bool>(path);
  EXPECT_EQ(as_bool.relabelling.original_ids(), g.relabelling.original_ids());
  std::map<std::pair<Index, Index>, bool> pattern;
  for (const auto& [ij, x] : entries(g.matrix)) pattern[ij] = true;
  EXPECT_EQ(entries(as_bool.matrix), pattern);
  std::map<std::pair<Index, Index>, bool> original;
  for (const auto& [ij, x] : entries(A)) original[ij] = true;
  EXPECT_EQ(entries(gbcuda::read_binary_graph<bool>(path)), original);
  EXPECT_EQ(entries(gbcuda::read_binary_graph<double>(path)), entries(A));
  // Restoring the original ids costs no transpose (the symmetry is left unknown).
  EXPECT_FALSE(gbcuda::read_binary_graph<double>(path).known_symmetric_structure().has_value());
  EXPECT_TRUE(gbcuda::is_binary_graph_file(path));
  EXPECT_FALSE(gbcuda::is_binary_graph_file(std::string(GBCUDA_MATRICES_DIR) + "/karate.mtx"));
  EXPECT_FALSE(gbcuda::is_binary_graph_file(temp_path("no-such-file.gbc")));
  std::filesystem::remove(path);
}

}  // namespace
