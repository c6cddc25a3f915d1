// Multi-source BFS (multi_source.hpp): every search of a pass against its own single-source BFS,
// on the host and on the GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/multi_source.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using gbcuda::Matrix;

// Components of different depths, so that some searches end while others run: a star of 400
// (its hub's in-row long), undirected paths of 5 and of 600 vertices.
Matrix<bool> uneven_components() {
  std::vector<Index> rows, cols;
  auto edge = [&](Index a, Index b) {
    rows.push_back(a), cols.push_back(b);
    rows.push_back(b), cols.push_back(a);
  };
  for (Index v = 1; v < 400; ++v) edge(0, v);
  for (Index v = 400; v + 1 < 405; ++v) edge(v, v + 1);
  for (Index v = 405; v + 1 < 1005; ++v) edge(v, v + 1);
  return Matrix<bool>::from_coo(1005, 1005, rows, cols);
}

std::vector<std::pair<std::string, Matrix<bool>>> graphs() {
  std::vector<std::pair<std::string, Matrix<bool>>> g;
  g.emplace_back("uneven components", uneven_components());
  g.emplace_back("random 1000 directed", gbtest::random_graph({1000, 6.0, true, true, true, 0.05, 3}));
  g.emplace_back("random 777 undirected", gbtest::random_graph({777, 3.0, false, false, false, 0.1, 4}));
  g.emplace_back("path 300", gbtest::path_graph(300, true));
  g.emplace_back("star 3000", gbtest::star_graph(3000));  // the hub's in-row: pulled by a warp
  g.emplace_back("kron:10:8", gbcuda::generate_graph("kron:10:8", Backend::Host));
  g.emplace_back("grid:40:30", gbcuda::generate_graph("grid:40:30", Backend::Host));
  return g;
}

// `count` sources spread over the graph, with one repeated (searched twice).
std::vector<Index> sources_of(const Matrix<bool>& A, int count) {
  std::vector<Index> s;
  for (int i = 0; i < count; ++i) s.push_back(Index((std::uint64_t(i) * 2654435761u) % std::uint64_t(A.nrows())));
  if (count > 2) s[std::size_t(count - 1)] = s[1];
  return s;
}

void expect_each_search_as_alone(const Matrix<bool>& A, const std::vector<Index>& sources,
                                 const gbcuda::MultiSourceBfsOptions& o, const std::string& what) {
  const gbcuda::MultiSourceBfsResult r = gbcuda::bfs_multi_source(A, sources, o);
  const Index n = A.nrows();
  ASSERT_EQ(r.sources, sources) << what;
  ASSERT_EQ(r.level_sizes.size(), sources.size()) << what;
  EXPECT_EQ(r.passes, int((sources.size() + 63) / 64)) << what;
  if (o.keep_levels) ASSERT_EQ(r.level.size(), sources.size() * std::size_t(n)) << what;
  else EXPECT_TRUE(r.level.empty()) << what;
  gbcuda::BfsOptions one;
  one.device = gbcuda::Device::Host;
  Index edges = 0;
  int deepest = 0;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    const gbcuda::BfsResult want = gbcuda::bfs(A, sources[s], one);
    edges += want.edges_traversed;
    deepest = std::max(deepest, want.num_levels);
    EXPECT_EQ(r.vertices_reached[s], want.vertices_reached) << what << ", source " << sources[s];
    EXPECT_EQ(r.level_sizes[s], gbtest::level_sizes(want.level)) << what << ", source " << sources[s];
    if (!o.keep_levels) continue;
    Index wrong = 0;
    for (Index v = 0; v < n; ++v) wrong += r.level[s * std::size_t(n) + std::size_t(v)] != want.level[std::size_t(v)];
    EXPECT_EQ(wrong, 0) << what << ", source " << sources[s];
  }
  EXPECT_EQ(r.edges_traversed, edges) << what;
  EXPECT_EQ(r.num_levels, deepest) << what;
}

void check_every_graph(gbcuda::Device device) {
  for (const auto& [name, A] : graphs())
    for (int count : {1, 5, 64, 70})
      for (double alpha : {0.0, 1e9, 1e-9}) {  // by the rule, push always, pull always
        gbcuda::MultiSourceBfsOptions o;
        o.device = device;
        o.alpha = alpha;
        o.keep_levels = count != 5;
        expect_each_search_as_alone(A, sources_of(A, count), o,
                                    name + ", " + std::to_string(count) + " sources, alpha " + std::to_string(alpha));
      }
}

TEST(MultiSourceBfs, EverySearchAsAloneOnTheHost) { check_every_graph(gbcuda::Device::Host); }

TEST(MultiSourceBfs, EverySearchAsAloneCuda) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device";
  check_every_graph(gbcuda::Device::Cuda);
}

// Every in-row pulled by a warp (1), the long ones only (the default), none (a bound past every row).
TEST(MultiSourceBfs, WarpPulledRowsCuda) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const auto& [name, A] : graphs())
    for (Index long_in_row : {Index(1), Index(0), Index(1) << 40}) {
      gbcuda::MultiSourceBfsOptions o;
      o.device = gbcuda::Device::Cuda;
      o.alpha = 1e-9;  // pull every level
      o.long_in_row = long_in_row;
      expect_each_search_as_alone(A, sources_of(A, 64), o, name + ", long_in_row " + std::to_string(long_in_row));
    }
}

TEST(MultiSourceBfs, BadArgumentsAndNoSources) {
  const auto A = gbtest::random_graph({100, 4.0, true, false, false, 0.0, 1});
  gbcuda::MultiSourceBfsOptions o;
  o.device = gbcuda::Device::Host;
  EXPECT_THROW(gbcuda::bfs_multi_source(A, {0, 100}, o), gbcuda::Error);
  EXPECT_THROW(gbcuda::bfs_multi_source(A, {-1}, o), gbcuda::Error);
  o.long_in_row = -1;
  EXPECT_THROW(gbcuda::bfs_multi_source(A, {0}, o), gbcuda::Error);
  o.long_in_row = 0;
  const auto r = gbcuda::bfs_multi_source(A, {}, o);
  EXPECT_TRUE(r.level_sizes.empty());
  EXPECT_EQ(r.passes, 0);
  EXPECT_EQ(r.n, 100);
}

}  // namespace
