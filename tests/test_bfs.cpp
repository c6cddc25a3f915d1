// BFS against SuiteSparse:GraphBLAS on the sample matrices and random graphs, for every
// backend, level loop (CUDA: fused and algebra), direction and with/without parents;
// validate_bfs on good and corrupted results.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>

#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/detail/product_policy.hpp"
#include "gbcuda/io.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Direction;
using gbcuda::Index;

struct Mode {
  Backend backend;
  gbcuda::LevelLoop loop;
  Direction direction;
  bool parents;
};

std::string mode_name(const testing::TestParamInfo<Mode>& info) {
  const Mode& m = info.param;
  std::string d = m.direction == Direction::Auto ? "auto" : m.direction == Direction::Push ? "push" : "pull";
  return std::string(gbcuda::to_string(m.backend)) + "_" + gbcuda::to_string(m.loop) + "_" + d +
         (m.parents ? "_parents" : "_levels");
}

std::vector<Mode> all_modes() {
  std::vector<Mode> modes;
  for (Direction d : {Direction::Auto, Direction::Push, Direction::Pull})
    for (bool p : {false, true}) {
      modes.push_back({Backend::Host, gbcuda::LevelLoop::Algebra, d, p});
      modes.push_back({Backend::Cuda, gbcuda::LevelLoop::Fused, d, p});
      modes.push_back({Backend::Cuda, gbcuda::LevelLoop::Algebra, d, p});
    }
  return modes;
}

class BfsTest : public testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    if (GetParam().backend == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: the CUDA backend's BFS runs only on a GPU";
  }
  gbcuda::BfsOptions options() const {
    gbcuda::BfsOptions o;
    o.device = GetParam().backend == Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
    o.direction = GetParam().direction;
    o.compute_parents = GetParam().parents;
    o.level_loop = GetParam().loop;
    return o;
  }
  // Runs gbcuda's BFS and checks it against GraphBLAS and validate_bfs.
  void check(const gbcuda::Matrix<bool>& A, Index source, const std::string& what) {
    SCOPED_TRACE(what + " from " + std::to_string(source));
    const auto expected = gbtest::graphblas_bfs_levels(A, source);
    const gbcuda::BfsResult r = gbcuda::bfs(A, source, options());
    ASSERT_EQ(r.level.size(), expected.size());
    for (std::size_t v = 0; v < expected.size(); ++v) ASSERT_EQ(r.level[v], expected[v]) << "vertex " << v;
    Index reached = 0;
    for (auto l : expected) reached += l >= 0;
    EXPECT_EQ(r.vertices_reached, reached);
    EXPECT_EQ(r.num_levels, Index(gbtest::level_sizes(expected).size()));
    EXPECT_EQ(r.parent.empty(), !GetParam().parents);
    EXPECT_EQ(gbcuda::validate_bfs(A, source, r), "");
    EXPECT_EQ(r.backend, GetParam().backend);
    EXPECT_EQ(r.level_loop, GetParam().loop);
    if (!r.levels.empty()) {  // per-level statistics: one per expansion, frontier sizes match
      const auto sizes = gbtest::level_sizes(expected);
      ASSERT_EQ(r.levels.size(), sizes.size());
      for (std::size_t d = 0; d < sizes.size(); ++d) EXPECT_EQ(r.levels[d].frontier_size, sizes[d]);
      if (GetParam().direction != Direction::Auto) {
        for (const auto& s : r.levels) EXPECT_EQ(s.direction, GetParam().direction);
      }
    }
  }
};

TEST_P(BfsTest, SampleMatrices) {
  const std::filesystem::path dir(GBCUDA_MATRICES_DIR);
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    const auto A = gbcuda::read_matrix<bool>(entry.path().string());
    if (A.nrows() != A.ncols() || A.nrows() == 0) continue;
    check(A, 0, name);
    check(A, A.nrows() / 2, name);
    ++count;
  }
  EXPECT_GE(count, 11) << "sample matrices missing from " << dir;
}

TEST_P(BfsTest, RandomGraphs) {
  std::vector<gbtest::GraphSpec> specs;
  for (std::uint64_t seed : {1, 2, 3})
    for (bool directed : {true, false}) {
      specs.push_back({50, 3.0, directed, false, false, 0.0, seed});
      specs.push_back({1000, 6.0, directed, true, true, 0.1, seed});
      specs.push_back({5000, 2.0, directed, false, true, 0.3, seed});
    }
  specs.push_back({100000, 8.0, true, true, true, 0.05, 7});
  specs.push_back({100000, 4.0, false, false, false, 0.0, 8});
  for (const auto& s : specs) {
    const auto A = gbtest::random_graph(s);
    check(A, 0, s.name());
    check(A, (Index(s.seed) * 7919) % s.n, s.name());
  }
}

TEST_P(BfsTest, StarAndPath) {
  check(gbtest::star_graph(100000), 0, "star centre");
  check(gbtest::star_graph(100000), 99999, "star leaf");
  // Forced pull re-walks every unvisited vertex each level, and the CUDA algebra loop pays a
  // read-back per level: keep the path shorter there.
  const Index len = GetParam().direction == Direction::Pull ? 3000
                    : GetParam().backend == Backend::Cuda   ? 5000
                                                            : 100000;
  check(gbtest::path_graph(len, true), 0, "directed path");
  check(gbtest::path_graph(len, false), len / 2, "undirected path");
  check(gbtest::path_graph(len, true), len - 1, "directed path from its end");
}

// A host BFS level costs its frontier's work, not O(n): a path of a million vertices (a million
// levels of one vertex) takes about a second. At O(n) a level it took O(n^2): hours.
TEST(BfsHost, LongPathCostsItsFrontierPerLevel) {
  const Index n = 1000000;
  const auto A = gbtest::path_graph(n, true);
  for (bool parents : {false, true}) {
    gbcuda::BfsOptions o;
    o.device = gbcuda::Device::Host;
    o.compute_parents = parents;
    const auto t0 = std::chrono::steady_clock::now();
    const gbcuda::BfsResult r = gbcuda::bfs(A, 0, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.vertices_reached, n);
    EXPECT_EQ(r.level[n - 1], n - 1);
    if (parents) {
      EXPECT_EQ(r.parent[n - 1], n - 2);
    }
    EXPECT_LT(s, 30.0) << (parents ? "parents" : "levels") << ": " << s << " s for " << n << " levels";
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, BfsTest, testing::ValuesIn(all_modes()), mode_name);

TEST(BfsErrors, BadArguments) {
  const auto A = gbtest::path_graph(10, true);
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Host;
  try {
    gbcuda::bfs(A, 10, o);
    FAIL() << "expected an error";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidIndex);
    EXPECT_NE(std::string(e.what()).find("[0, 9]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gbcuda::bfs(A, -1, o), gbcuda::Error);
  std::vector<Index> r{0}, c{1};
  const auto rect = gbcuda::Matrix<bool>::from_coo(2, 3, r, c);
  try {
    gbcuda::bfs(rect, 0, o);
    FAIL() << "expected an error";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::InvalidValue);
  }
  const gbcuda::Matrix<bool> empty;
  EXPECT_THROW(gbcuda::bfs(empty, 0, o), gbcuda::Error);
}

TEST(BfsErrors, CudaWithoutGpu) {
  if (gbcuda::cuda_available()) GTEST_SKIP() << "a GPU is present: nothing to refuse";
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Cuda;
  try {
    gbcuda::bfs(gbtest::path_graph(4, true), 0, o);
    FAIL() << "expected Error(NoDevice)";
  } catch (const gbcuda::Error& e) {
    EXPECT_EQ(e.status(), gbcuda::Status::NoDevice);
  }
}

TEST(ValidateBfs, CatchesCorruptedResults) {
  const auto A = gbtest::random_graph({2000, 5.0, false, false, false, 0.0, 11});
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Host;
  o.compute_parents = true;
  const auto good = gbcuda::bfs(A, 0, o);
  ASSERT_EQ(gbcuda::validate_bfs(A, 0, good), "");
  ASSERT_GT(good.num_levels, 3);
  // find a vertex at level 2 and one at level 3
  Index v2 = -1, v3 = -1;
  for (Index v = 0; v < A.nrows(); ++v) {
    if (good.level[v] == 2 && v2 < 0) v2 = v;
    if (good.level[v] == 3 && v3 < 0) v3 = v;
  }
  ASSERT_GE(v2, 0);
  ASSERT_GE(v3, 0);
  auto bad = good;
  bad.level[v2] = 5;  // an edge now spans several levels
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  bad = good;
  bad.level[0] = 1;
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  bad = good;
  bad.parent[v3] = v3;  // parent not one level up
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  bad = good;
  bad.parent[0] = 1;
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  bad = good;
  bad.level[v3] = -1;  // reached vertex marked unreachable
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  bad = good;
  bad.level.pop_back();
  EXPECT_NE(gbcuda::validate_bfs(A, 0, bad), "");
  // The vertices are checked in parallel; the message names the lowest one with a problem.
  bad = good;
  Index last3 = -1;
  for (Index v = 0; v < A.nrows(); ++v)
    if (good.level[v] == 3) last3 = v;
  ASSERT_GT(last3, v3);
  bad.parent[last3] = last3;
  bad.parent[v3] = v3;
  EXPECT_EQ(gbcuda::validate_bfs(A, 0, bad),
            "parent " + std::to_string(v3) + " of vertex " + std::to_string(v3) + " is at level 3, expected 2");
}

// A structure known to be symmetric is its own transpose: the check that each reached vertex has
// an in-neighbour one level up reads the rows themselves.
TEST(ValidateBfs, InNeighbourCheckOnAKnownSymmetricGraph) {
  const auto A = gbtest::path_graph(6, false).symmetrized();
  ASSERT_EQ(A.known_symmetric_structure(), std::optional<bool>(true));
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Host;
  auto r = gbcuda::bfs(A, 0, o);
  ASSERT_EQ(gbcuda::validate_bfs(A, 0, r), "");
  r.level[5] = 4;  // 4 - 5 now spans no level, but 5 has no neighbour at level 3
  EXPECT_EQ(gbcuda::validate_bfs(A, 0, r), "vertex 5 at level 4 has no in-neighbour one level up");
}

TEST(BfsResultFacts, EdgesTraversedCountsRowsOfReachedVertices) {
  // 0 -> 1 -> 2, and 3 -> 0 (3 unreachable from 0): reached rows hold 2 entries.
  std::vector<Index> r{0, 1, 3}, c{1, 2, 0};
  const auto A = gbcuda::Matrix<bool>::from_coo(4, 4, r, c);
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Host;
  const auto res = gbcuda::bfs(A, 0, o);
  EXPECT_EQ(res.edges_traversed, 2);
  EXPECT_EQ(res.vertices_reached, 3);
  EXPECT_EQ(res.num_levels, 3);
  EXPECT_EQ(res.level, (std::vector<std::int32_t>{0, 1, 2, -1}));
}

}  // namespace

// The direction rule with a pull penalty: a pull that read about what Beamer's rule assumes
// (unexplored / alpha) leaves the choices as they were; one that read more makes the next levels
// push until the frontier outweighs the penalized pull, even while the frontier still grows. A
// pull's fixed cost is paid to start one, not to go on.
TEST(ProductPolicyRule, PullPenaltyAfterAPullThatReadTooMuch) {
  namespace d = gbcuda::detail;
  d::ProductPolicy p;
  p.alpha = 10;
  EXPECT_EQ(d::pull_penalty_after(p, 100, 1000), 1.0);  // read 100 of 1000: as assumed
  EXPECT_EQ(d::pull_penalty_after(p, 50, 1000), 1.0);   // less: still 1
  p.pull_edge_cost = 1;
  EXPECT_DOUBLE_EQ(d::pull_penalty_after(p, 800, 1000), 8.0);
  p.pull_edge_cost = 0.5;
  EXPECT_DOUBLE_EQ(d::pull_penalty_after(p, 800, 1000), 4.0);
  p.pull_edge_cost = 0;  // no penalty
  EXPECT_EQ(d::pull_penalty_after(p, 800, 1000), 1.0);
  p.pull_edge_cost = 1;
  EXPECT_EQ(d::pull_penalty_after(p, 800, 0), 1.0);
  p.alpha = 0;  // never pull: no penalty either
  EXPECT_EQ(d::pull_penalty_after(p, 800, 1000), 1.0);

  p.alpha = 10;
  p.pull_fixed_edges = 0;
  d::FrontierInfo l;
  l.n = 100000;
  l.frontier_size = 5000;
  l.previous_frontier_size = 4000;  // growing
  l.frontier_edges = 300;
  l.unexplored_edges = 1000;  // 300 > 1000 / 10: pull
  l.pulling = true;
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  l.pull_penalty = 4;  // 300 <= 1000 * 4 / 10: push, although the last level pulled and it grows
  EXPECT_NE(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  l.frontier_edges = 500;  // outweighs the penalized pull again
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  l.pulling = false;
  l.frontier_edges = 300;
  EXPECT_NE(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  l.pull_penalty = 1;
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  p.pull_fixed_edges = 250;  // starting a pull costs 250 pushed edges: 300 <= 100 + 250
  EXPECT_NE(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
  l.pulling = true;  // a pull under way has paid it
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::Pull);
}

// A push's queue kernel by width: one block for the narrowest, block queues while the frontier is
// at most block_queue_max wide or its out-edges at most block_queue_max_edges, warp queues beyond
// both (a push that finds many entries per tile).
TEST(ProductPolicyRule, QueueKernelByWidthAndEdges) {
  namespace d = gbcuda::detail;
  d::ProductPolicy p;
  p.alpha = 0;  // push only
  p.single_block_max = 512;
  p.block_queue_max = 1024;
  p.block_queue_max_edges = 1 << 20;
  d::FrontierInfo l;
  l.n = 1 << 24;
  l.unexplored_edges = 1 << 28;
  l.frontier_size = 300;
  l.frontier_edges = 1200;
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::SingleBlock);
  l.frontier_edges = 5000;  // too many edges for one block
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::QueueBlock);
  l.frontier_size = 20000;  // wider than block_queue_max, but few edges
  l.frontier_edges = 100000;
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::QueueBlock);
  l.frontier_edges = 1 << 20;
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::QueueBlock);
  l.frontier_edges = (1 << 20) + 1;  // beyond both
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::QueueWarp);
  l.frontier_size = 1000;  // narrow again: block queues whatever the edges
  EXPECT_EQ(d::choose_product_kernel(p, l), gbcuda::ProductKernel::QueueBlock);
}
