// The boolean masked product's kernels (lib/cuda/product/) in both places they run, and the
// seed kernels (bench/baselines/): every kernel, forced for the whole search, gives the same levels
// as GraphBLAS on the sample matrices, random graphs, a star and a long path, in the fused BFS
// (one persistent kernel) and in the algebra loop (vxm, nvals, assign per level); parents are
// valid; the queue overflow paths run on purpose with tiny capacities; the device-side choice
// hands over between kernels; and the algebra's CUDA operations make no hidden host waits.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "baselines/baselines.hpp"
#include "cuda/product/product.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix_operations.hpp"
#include "gbcuda/operations.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::BfsKernel;
using gbcuda::Direction;
using gbcuda::Index;
using gbcuda::LevelLoop;
namespace pr = gbcuda::detail::cuda::product;

#define SKIP_WITHOUT_GPU() \
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the product's kernels run only on a GPU"

// What a test case runs on the GPU: a library kernel through gbcuda::bfs in one of the two level
// loops, or a seed kernel (`baseline`) through gbcuda::baselines::run.
struct KernelCase {
  const char* name;
  BfsKernel kernel;
  Direction direction;
  LevelLoop loop = LevelLoop::Fused;
  const char* baseline = nullptr;
};

const std::vector<KernelCase>& kernel_cases() {
  static const std::vector<KernelCase> cases = {
      {"auto", BfsKernel::Auto, Direction::Auto},
      {"auto_push", BfsKernel::Auto, Direction::Push},
      {"auto_pull", BfsKernel::Auto, Direction::Pull},
      {"queue_warp", BfsKernel::QueueWarp, Direction::Auto},
      {"queue_block", BfsKernel::QueueBlock, Direction::Auto},
      {"queue_global", BfsKernel::QueueGlobal, Direction::Auto},
      {"single_block", BfsKernel::SingleBlock, Direction::Auto},
      {"pull", BfsKernel::Pull, Direction::Auto},
      {"algebra_auto", BfsKernel::Auto, Direction::Auto, LevelLoop::Algebra},
      {"algebra_auto_push", BfsKernel::Auto, Direction::Push, LevelLoop::Algebra},
      {"algebra_queue_warp", BfsKernel::QueueWarp, Direction::Auto, LevelLoop::Algebra},
      {"algebra_queue_block", BfsKernel::QueueBlock, Direction::Auto, LevelLoop::Algebra},
      {"algebra_queue_global", BfsKernel::QueueGlobal, Direction::Auto, LevelLoop::Algebra},
      {"algebra_single_block", BfsKernel::SingleBlock, Direction::Auto, LevelLoop::Algebra},
      {"algebra_pull", BfsKernel::Pull, Direction::Auto, LevelLoop::Algebra},
      // the seed kernels (bench/baselines/), same result contract
      {"rodinia", BfsKernel::Auto, Direction::Auto, LevelLoop::Fused, "rodinia"},
      {"vertex_topdown", BfsKernel::Auto, Direction::Auto, LevelLoop::Fused, "vertex-topdown"},
      {"vertex_bottomup", BfsKernel::Auto, Direction::Auto, LevelLoop::Fused, "vertex-bottomup"},
      {"edge_coo", BfsKernel::Auto, Direction::Auto, LevelLoop::Fused, "edge-coo"},
      {"block_per_vertex", BfsKernel::Auto, Direction::Auto, LevelLoop::Fused, "block-per-vertex"},
  };
  return cases;
}

// Runs a case: gbcuda::bfs with its kernel and loop, or its baseline.
gbcuda::BfsResult run_case(const KernelCase& c, const gbcuda::Matrix<bool>& A, Index source, bool parents) {
  if (c.baseline) {
    const gbcuda::baselines::Baseline* b = gbcuda::baselines::find(c.baseline);
    if (!b) throw std::runtime_error(std::string("no baseline ") + c.baseline);
    return gbcuda::baselines::run(*b, A, source, parents, true);
  }
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Cuda;
  o.kernel = c.kernel;
  o.direction = c.direction;
  o.compute_parents = parents;
  o.level_loop = c.loop;
  return gbcuda::bfs(A, source, o);
}

// Levels identical to GraphBLAS, reached count, parents valid, stats consistent.
void check_result(const gbcuda::Matrix<bool>& A, Index source, const gbcuda::BfsResult& r,
                  const std::vector<std::int32_t>& expected, bool parents) {
  ASSERT_EQ(r.level.size(), expected.size());
  for (std::size_t v = 0; v < expected.size(); ++v) ASSERT_EQ(r.level[v], expected[v]) << "vertex " << v;
  Index reached = 0;
  for (auto l : expected) reached += l >= 0;
  EXPECT_EQ(r.vertices_reached, reached);
  EXPECT_EQ(r.parent.empty(), !parents);
  EXPECT_EQ(gbcuda::validate_bfs(A, source, r), "");
  if (!r.levels.empty()) {
    const auto sizes = gbtest::level_sizes(expected);
    ASSERT_EQ(r.levels.size(), sizes.size());
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      EXPECT_EQ(r.levels[d].level, int(d) + 1);
      EXPECT_EQ(r.levels[d].frontier_size, sizes[d]) << "level " << d + 1;
      EXPECT_GE(r.levels[d].seconds, 0.0);
    }
  }
}

class ProductKernel : public testing::TestWithParam<KernelCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }

  void check(const gbcuda::Matrix<bool>& A, Index source, const std::string& what, bool parents) {
    SCOPED_TRACE(what + " from " + std::to_string(source) + (parents ? " (parents)" : ""));
    const auto expected = gbtest::graphblas_bfs_levels(A, source);
    const gbcuda::BfsResult r = run_case(GetParam(), A, source, parents);
    check_result(A, source, r, expected, parents);
    if (GetParam().baseline) return;
    EXPECT_EQ(r.level_loop, GetParam().loop);
    const BfsKernel k = GetParam().kernel;
    if (k == BfsKernel::QueueWarp || k == BfsKernel::QueueBlock || k == BfsKernel::QueueGlobal ||
        k == BfsKernel::Pull) {
      for (const auto& s : r.levels) EXPECT_EQ(s.kernel, k) << "level " << s.level;
    }
    if (k == BfsKernel::SingleBlock) {  // single-block, handing over to queue-block only when full
      for (const auto& s : r.levels)
        EXPECT_TRUE(s.kernel == BfsKernel::SingleBlock || s.kernel == BfsKernel::QueueBlock) << "level " << s.level;
    }
    if (k == BfsKernel::Auto && GetParam().direction == Direction::Pull) {
      for (const auto& s : r.levels) {
        EXPECT_EQ(s.kernel, BfsKernel::Pull) << "level " << s.level;
        EXPECT_EQ(s.direction, Direction::Pull);
      }
    }
    if (k == BfsKernel::Auto && GetParam().direction == Direction::Push) {
      for (const auto& s : r.levels) EXPECT_EQ(s.direction, Direction::Push) << "level " << s.level;
    }
  }
};

TEST_P(ProductKernel, SampleMatrices) {
  const std::filesystem::path dir(GBCUDA_MATRICES_DIR);
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "README.md") continue;
    const auto A = gbcuda::read_matrix<bool>(entry.path().string());
    if (A.nrows() != A.ncols() || A.nrows() == 0) continue;
    check(A, 0, name, false);
    check(A, A.nrows() / 2, name, true);
    ++count;
  }
  EXPECT_GE(count, 11) << "sample matrices missing from " << dir;
}

TEST_P(ProductKernel, RandomGraphs) {
  std::vector<gbtest::GraphSpec> specs;
  for (std::uint64_t seed : {1, 2})
    for (bool directed : {true, false}) {
      specs.push_back({50, 3.0, directed, false, false, 0.0, seed});
      specs.push_back({1000, 6.0, directed, true, true, 0.1, seed});
      specs.push_back({5000, 2.0, directed, false, true, 0.3, seed});
      specs.push_back({20000, 40.0, directed, false, false, 0.0, seed});  // rows for the warp path
    }
  specs.push_back({100000, 8.0, true, true, true, 0.05, 7});
  specs.push_back({100000, 4.0, false, false, false, 0.0, 8});
  for (const auto& s : specs) {
    const auto A = gbtest::random_graph(s);
    check(A, 0, s.name(), false);
    check(A, (Index(s.seed) * 7919) % s.n, s.name(), true);
  }
}

TEST_P(ProductKernel, Star) {
  const auto A = gbtest::star_graph(100000);  // a centre of degree 99999: the block-wide path
  check(A, 0, "star centre", true);
  check(A, 99999, "star leaf", true);
  check(A, 12345, "star leaf", false);
}

// One frontier holding rows of every length class of expand_tile: block-wide rows (>= 1024 edges)
// beside short ones (<= 4: one step per thread) and, in the first graph, a row of 10 (the dealt-out
// path): once the block has taken the long rows, the rest must still take the right path.
TEST_P(ProductKernel, HubsBesideShorterRows) {
  for (const bool medium : {true, false}) {
    std::vector<Index> rows, cols;
    auto row = [&](Index u, Index first, Index count) {
      for (Index v = first; v < first + count; ++v) {
        rows.push_back(u);
        cols.push_back(v);
      }
    };
    row(0, 1, 4);                   // the source's row: the next frontier is 1..4
    row(1, 100, 2000);              // block-wide
    row(2, 3000, medium ? 10 : 3);  // dealt out, or one step
    row(3, 4000, 3);                // one step
    row(4, 5000, 1500);             // block-wide
    row(5000, 7000, 2);             // a third level
    const auto A = gbcuda::Matrix<bool>::from_coo(8000, 8000, rows, cols);
    check(A, 0, medium ? "hubs beside a row of 10" : "hubs beside rows of <= 4", true);
  }
}

// Hundreds of hubs (4095 to 20000 out-edges) in one frontier, too wide for the few-rows path: the
// blocks expand them a row at a time beside the short rows, and the hubs share targets, so their
// claims race.
TEST_P(ProductKernel, ManyHubsInOneFrontier) {
  for (const Index hubs : {Index(40), Index(1100)}) {
    const Index n = 300000, first = hubs + 1, span = n - first;
    std::vector<Index> rows, cols;
    for (Index h = 1; h <= hubs; ++h) {
      rows.push_back(0), cols.push_back(h);
      const Index deg = h % 7 == 0 ? 20000 : 4095 + h % 5;
      for (Index j = 0; j < deg; ++j) rows.push_back(h), cols.push_back(first + (h * 7919 + j * 31) % span);
    }
    rows.push_back(n - 1), cols.push_back(1);  // a vertex of the third level's frontier points back
    const auto A = gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
    check(A, 0, std::to_string(hubs) + " hubs", true);
    check(A, 0, std::to_string(hubs) + " hubs", false);
  }
}

// Long in-rows that meet the frontier late or never: hub k is joined (both directions) to its
// own run of L fillers, and the source to the fillers at positions P of those runs, so the pull
// that finds the hubs scans each hub's in-row up to its first frontier filler. Lanes read
// pr::pull_lane_steps() in-edges of a row (pr::kPullLaneSteps on this sparse frontier; with
// `dense`, the source's extra leaves make the frontier a third of the vertices and the budget
// pr::kPullLaneStepsMin) and defer the rest in chunks of pr::kPullChunk: finds just before, at and
// after both limits, several finds in one row, rows that never find.
TEST_P(ProductKernel, LongInRowsFoundLateOrNever) {
  struct Hub {
    Index length;
    std::vector<Index> found_at;
  };
  const Index L = pr::kPullLaneSteps, M = pr::kPullLaneStepsMin, C = pr::kPullChunk;
  const std::vector<Hub> hubs = {{L, {L - 1}},
                                 {L + 1, {L}},
                                 {L + 70, {L + 69}},
                                 {L + 2, {}},
                                 {L + C + 128, {L + C - 1, L + C}},
                                 {L + C + 129, {L + C}},
                                 {2 * C + 300, {}},
                                 {20000, {19999}},
                                 {20000, {}},
                                 {10000, {500, 2500, 9000}},
                                 {5000, {3000}},
                                 {M, {M - 1}},
                                 {M + 1, {M}},
                                 {M + 9, {M + 1}},
                                 {M + 1, {}}};
  for (const bool dense : {false, true}) {
    std::vector<Index> rows, cols;
    auto edge = [&](Index u, Index v) {
      rows.push_back(u), cols.push_back(v);
      rows.push_back(v), cols.push_back(u);
    };
    Index next = 1 + Index(hubs.size());
    for (std::size_t k = 0; k < hubs.size(); ++k) {
      for (Index i = 0; i < hubs[k].length; ++i) edge(Index(k) + 1, next + i);
      for (Index at : hubs[k].found_at) edge(0, next + at);
      next += hubs[k].length;
    }
    if (dense) {  // leaves of the source, half as many as the vertices before them
      const Index leaves = next / 2;
      for (Index i = 0; i < leaves; ++i) edge(0, next + i);
      next += leaves;
      ASSERT_EQ(pr::pull_lane_steps(next, leaves), M);
    } else {
      ASSERT_EQ(pr::pull_lane_steps(next, 20), L);
    }
    const auto A = gbcuda::Matrix<bool>::from_coo(next, next, rows, cols);
    const std::string what = dense ? "long in-rows, dense frontier" : "long in-rows";
    check(A, 0, what, true);
    check(A, 0, what, false);
  }
}

TEST(ProductPolicy, PullLaneStepsFollowTheFrontiersDensity) {
  EXPECT_EQ(pr::pull_lane_steps(1000000, 0), pr::kPullLaneSteps);
  EXPECT_EQ(pr::pull_lane_steps(1000000, 1), pr::kPullLaneSteps);
  EXPECT_EQ(pr::pull_lane_steps(1000000, 62500), pr::kPullLaneSteps);  // 4 n / f = 64
  EXPECT_EQ(pr::pull_lane_steps(1000000, 125000), 32);
  EXPECT_EQ(pr::pull_lane_steps(1000000, 250000), pr::kPullLaneStepsMin);  // 16
  EXPECT_EQ(pr::pull_lane_steps(1000000, 1000000), pr::kPullLaneStepsMin);
  EXPECT_EQ(pr::pull_lane_steps(4194304, 163103), 64);  // kron:22:16's first pull: 4 n / f = 103
  EXPECT_EQ(pr::pull_lane_steps(325000, 56624), 22);    // the web crawl's shape's first pull
}

// Vertices without in-edges beside reachable ones in every word: a binary tree over the multiples
// of 3, each 3i + 1 with one out-edge into the tree and no in-edges, each 3i + 2 isolated. A pull
// retires the first two kinds (marks them visited, level -1) and later pulls skip them.
TEST_P(ProductKernel, VerticesWithoutInEdges) {
  const Index n = 30000, tree = n / 3;
  std::vector<Index> rows, cols;
  for (Index i = 0; i < tree; ++i) {
    for (Index child : {2 * i + 1, 2 * i + 2})
      if (child < tree) rows.push_back(3 * i), cols.push_back(3 * child);
    rows.push_back(3 * i + 1), cols.push_back(3 * (i / 2));
  }
  const auto A = gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
  check(A, 0, "tree beside vertices without in-edges", false);
  check(A, 0, "tree beside vertices without in-edges", true);
}

TEST_P(ProductKernel, DirectedPath) {
  // 1e5 levels in the fused loop. A forced pull walks every vertex per level, and the algebra
  // loop pays a read-back per level: a shorter path there.
  const bool pulls = GetParam().direction == Direction::Pull || GetParam().kernel == BfsKernel::Pull ||
                     (GetParam().baseline && std::string(GetParam().baseline) == "vertex-bottomup");
  const bool slow = pulls || GetParam().loop == LevelLoop::Algebra || GetParam().baseline;
  const Index len = slow ? 3000 : 100000;
  const auto A = gbtest::path_graph(len, true);
  check(A, 0, "directed path", true);
  check(A, len / 2, "directed path from its middle", false);
}

std::string case_name(const testing::TestParamInfo<KernelCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Kernels, ProductKernel, testing::ValuesIn(kernel_cases()), case_name);

// ---- the fused BFS called directly: tiny capacities force every overflow path -------------

struct Fused {
  pr::Graph g;
  explicit Fused(const gbcuda::Matrix<bool>& A, bool with_in = true) {
    const auto& out = A.csr(gbcuda::Backend::Cuda);
    g.n = g.n_in = A.nrows();
    g.nnz = A.nvals();
    g.out_ptr = out.row_ptr.data();
    g.out_idx = out.col_idx.data();
    if (with_in) {
      const auto& in = A.transpose().csr(gbcuda::Backend::Cuda);
      g.in_ptr = in.row_ptr.data();
      g.in_idx = in.col_idx.data();
    }
  }
  gbcuda::BfsResult run(Index source, BfsKernel forced, const pr::Capacities& caps, bool parents,
                        gbcuda::detail::ProductPolicy policy = {}, bool stats = true, bool tail = false) const {
    policy.forced = forced;
    gbcuda::BfsResult r;
    pr::fused_bfs(g, source, parents, policy, caps, stats, tail, r);
    return r;
  }
};

// Queue capacities: a warp queue's, the block queue's, the single-block kernel's.
pr::Capacities queues(int warp, int block, int single_block) {
  pr::Capacities c;
  c.warp_queue = warp;
  c.block_queue = block;
  c.single_block_queue = single_block;
  return c;
}
pr::Capacities tiny() { return queues(2, 8, 16); }

// The product's capacities for the lifetime of a scope.
struct ProductCapacities {
  pr::Capacities saved = pr::product_capacities();
  explicit ProductCapacities(const pr::Capacities& c) { pr::set_product_capacities(c); }
  ~ProductCapacities() { pr::set_product_capacities(saved); }
};

// The library's kernels with the policy's direction (no baselines): what the tiny-capacity tests run.
std::vector<KernelCase> engine_cases() {
  std::vector<KernelCase> out;
  for (const KernelCase& c : kernel_cases())
    if (!c.baseline && c.direction == Direction::Auto) out.push_back(c);
  return out;
}

class TinyCapacities : public testing::TestWithParam<KernelCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }
};

TEST_P(TinyCapacities, OverflowPathsKeepEveryVertex) {
  const BfsKernel k = GetParam().kernel;
  std::vector<gbcuda::Matrix<bool>> graphs;
  graphs.push_back(gbtest::star_graph(5000));
  graphs.push_back(gbtest::random_graph({3000, 12.0, true, false, false, 0.0, 3}));
  graphs.push_back(gbtest::random_graph({3000, 5.0, false, false, false, 0.1, 4}));
  graphs.push_back(gbtest::path_graph(300, false));
  const ProductCapacities small(tiny());
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const auto& A = graphs[i];
    const Fused e(A);
    for (Index source : {Index(0), A.nrows() - 1}) {
      for (bool parents : {false, true}) {
        SCOPED_TRACE("graph " + std::to_string(i) + " from " + std::to_string(source));
        const auto expected = gbtest::graphblas_bfs_levels(A, source);
        const auto r = GetParam().loop == LevelLoop::Fused ? e.run(source, k, tiny(), parents)
                                                           : run_case(GetParam(), A, source, parents);
        check_result(A, source, r, expected, parents);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, TinyCapacities, testing::ValuesIn(engine_cases()), case_name);

// Small graphs run the product in one block (one_block_product); with the limits at 0 the same
// products run over the whole grid. Every algebra kernel, both ways, on graphs at and around the
// limits (4096 vertices, 32768 entries), with and without parents.
TEST(OneBlockProduct, OneBlockAndTheGridAgree) {
  pr::Capacities grid = pr::product_capacities();
  grid.one_block_vertices = 0;
  grid.one_block_entries = 0;
  EXPECT_TRUE(pr::one_block_product(pr::Capacities{}, 4096, 4096, 32768));
  EXPECT_FALSE(pr::one_block_product(pr::Capacities{}, 4097, 100, 10));
  EXPECT_FALSE(pr::one_block_product(pr::Capacities{}, 100, 100, 32769));
  EXPECT_FALSE(pr::one_block_product(grid, 1, 1, 0));
  SKIP_WITHOUT_GPU();
  std::vector<gbcuda::Matrix<bool>> graphs;
  graphs.push_back(gbtest::star_graph(4096));                                         // one row of 4095
  graphs.push_back(gbtest::random_graph({4096, 7.9, true, false, false, 0.05, 11}));  // about 32,000 entries
  graphs.push_back(gbtest::random_graph({1024, 4.0, false, false, false, 0.0, 12}));
  graphs.push_back(gbtest::path_graph(1000, false));  // a thousand levels
  for (const KernelCase& c : kernel_cases()) {
    if (c.loop != LevelLoop::Algebra || c.baseline) continue;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
      const auto& A = graphs[i];
      const auto expected = gbtest::graphblas_bfs_levels(A, 0);
      for (bool parents : {false, true}) {
        SCOPED_TRACE(std::string(c.name) + " graph " + std::to_string(i) + (parents ? " (parents)" : ""));
        check_result(A, 0, run_case(c, A, 0, parents), expected, parents);
        const ProductCapacities scoped(grid);
        check_result(A, 0, run_case(c, A, 0, parents), expected, parents);
      }
    }
  }
}

// A pull stages its finds per warp (WarpStageAppender in bodies.cuh): with tiny() every append
// is larger than the stage and goes straight out; the default stage of 256 seldom fills on graphs
// of a test's size. Stages of 40 queue slots a warp (block queue 1024 + 32 warps x 8, over 32
// warps) fill within one pair of words.
pr::Capacities stages_of_40() { return queues(8, 1024, 16); }

// Full stages are written out before the next finds are staged, in both loops, with and without
// parents (the algebra's pull with a payload stages two arrays).
TEST(PullStage, StagesThatFillKeepEveryVertex) {
  SKIP_WITHOUT_GPU();
  const pr::Capacities c = stages_of_40();
  const ProductCapacities scoped(c);
  for (const auto& spec : {gbtest::GraphSpec{20000, 24.0, false, false, false, 0.0, 5},
                           gbtest::GraphSpec{20000, 6.0, true, false, false, 0.0, 6}}) {
    const auto A = gbtest::random_graph(spec);
    const Fused e(A);
    const auto expected = gbtest::graphblas_bfs_levels(A, 0);
    for (bool parents : {false, true}) {
      SCOPED_TRACE(spec.name() + (parents ? " (parents)" : ""));
      check_result(A, 0, e.run(0, BfsKernel::Pull, c, parents), expected, parents);
      check_result(A, 0,
                   run_case({"algebra_pull", BfsKernel::Pull, Direction::Auto, LevelLoop::Algebra}, A, 0, parents),
                   expected, parents);
    }
  }
}

// LorLand pulls with terms (a find through a false entry of u keeps looking for a true one): the
// term found is each staged entry's payload. Same stages of 40 slots, which hold 20 such entries;
// u is sparse enough (1 vertex in 50) that a word's finds often fit a stage and pairs of them
// fill it. The CUDA product against the host backend's.
TEST(PullStage, TermsThroughStagesThatFill) {
  SKIP_WITHOUT_GPU();
  const ProductCapacities scoped(stages_of_40());
  const Index n = 20000;
  const auto A = gbtest::random_graph({n, 24.0, true, false, false, 0.0, 9});
  std::vector<Index> idx;
  std::vector<bool> vals;
  for (Index i = 0; i < n; i += 50) {
    idx.push_back(i);
    vals.push_back((i / 50) % 2 == 0);
  }
  const auto u = gbcuda::Vector<bool>::from_tuples(n, idx, vals, gbcuda::Backend::Host);
  gbcuda::Vector<bool> expected(n, gbcuda::Backend::Host);
  gbcuda::vxm(expected, gbcuda::no_mask, gbcuda::no_accum, gbcuda::LorLand<bool>{}, u, A);
  gbcuda::Vector<bool> w(n, gbcuda::Backend::Cuda);
  gbcuda::Descriptor d;
  d.kernel = gbcuda::ProductKernel::Pull;
  gbcuda::vxm(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::LorLand<bool>{}, u.to(gbcuda::Backend::Cuda), A, d);
  std::vector<Index> ei, wi;
  std::vector<bool> ev, wv;
  expected.extract_tuples(ei, ev);
  w.extract_tuples(wi, wv);
  ASSERT_EQ(wi, ei);
  EXPECT_EQ(wv, ev);
  EXPECT_GT(std::count(ev.begin(), ev.end(), false), 0);  // both kinds of term were found
  EXPECT_GT(std::count(ev.begin(), ev.end(), true), 0);
}

TEST(FusedBfs, SingleBlockHandsOverWhenItsQueueIsFull) {
  SKIP_WITHOUT_GPU();
  // A star from its centre: level 1 holds every leaf, far more than a 16-entry queue.
  const auto A = gbtest::star_graph(1000);
  const Fused e(A);
  const auto r = e.run(0, BfsKernel::SingleBlock, tiny(), true);
  check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), true);
  ASSERT_EQ(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0].kernel, BfsKernel::SingleBlock);
  EXPECT_EQ(r.levels[1].kernel, BfsKernel::QueueBlock);
}

TEST(FusedBfs, SingleBlockRunsANarrowSearchWithoutHandingOver) {
  SKIP_WITHOUT_GPU();
  // 10000 levels: more than one launch's worth of per-level records (4096), so with stats on the
  // search also resumes where a launch stopped.
  const auto A = gbtest::path_graph(20000, false);
  const Fused e(A, false);
  const auto r = e.run(10000, BfsKernel::Auto, pr::Capacities{}, false);
  check_result(A, 10000, r, gbtest::graphblas_bfs_levels(A, 10000), false);
  for (const auto& s : r.levels) EXPECT_EQ(s.kernel, BfsKernel::SingleBlock) << "level " << s.level;
}

TEST(FusedBfs, ResumesAcrossLaunchesInEveryKernel) {
  SKIP_WITHOUT_GPU();
  // A directed path of 6000 vertices: 6000 expansions (the last one finds nothing), more than
  // one launch's 4096 per-level records, so with stats on every forced kernel resumes the search
  // in a second launch (the frontier queue, and the pull's bitmap, must survive it).
  const auto path = gbtest::path_graph(6000, true);
  const Fused e(path);
  for (BfsKernel k :
       {BfsKernel::Auto, BfsKernel::QueueWarp, BfsKernel::QueueBlock, BfsKernel::QueueGlobal, BfsKernel::Pull}) {
    SCOPED_TRACE(gbcuda::to_string(k));
    const auto r = e.run(0, k, pr::Capacities{}, true);
    check_result(path, 0, r, gbtest::graphblas_bfs_levels(path, 0), true);
    ASSERT_EQ(r.levels.size(), 6000u);
  }
}

// A push over 2^20 or more edges counts the edges of the frontier it produces from one vertex
// in 16 (common.cuh, kSampleEdges): within a few per cent of the exact count, and not equal to
// it on a wide frontier (the sample ran); every other level's count exact. In both loops, on
// rows of 40 edges (dealt out evenly) and on rows of 4 (one step a thread). The early wide
// levels also claim without reading the visited bit first (wide_level()): each level's frontier
// holds each vertex of its depth once, and the parents are valid.
TEST(FusedBfs, WidePushesCountTheNextFrontiersEdgesBySample) {
  SKIP_WITHOUT_GPU();
  struct Case {
    const char* name;
    gbcuda::Matrix<bool> A;
  };
  // 2^18 vertices of 40 out-edges: depths of about 1, 40, 1600, 64000 (2.6 M out-edges: sampled)
  // and 196000 (7.8 M: sampled), then a few. randout: 2^20 vertices of 4 out-edges, depths
  // growing about 4x up to ~300,000 (1.2 M out-edges: sampled), then shrinking.
  Case cases[] = {{"rows of 40", gbtest::random_graph({Index(1) << 18, 40.0, true, false, false, 0.0, 21})},
                  {"rows of 4", gbcuda::generate_graph("randout:1048576:4", gbcuda::Backend::Host)}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto expected = gbtest::graphblas_bfs_levels(c.A, 0);
    const auto sizes = gbtest::level_sizes(expected);
    const auto ptr = c.A.csr(gbcuda::Backend::Host).row_ptr.to_vector();
    std::vector<double> exact;  // out-edges of each depth's vertices
    for (std::size_t v = 0; v < expected.size(); ++v) {
      if (expected[v] < 0) continue;
      if (exact.size() <= std::size_t(expected[v])) exact.resize(std::size_t(expected[v]) + 1, 0.0);
      exact[std::size_t(expected[v])] += double(ptr[v + 1] - ptr[v]);
    }
    for (LevelLoop loop : {LevelLoop::Fused, LevelLoop::Algebra}) {
      SCOPED_TRACE(gbcuda::to_string(loop));
      gbcuda::BfsOptions o;
      o.device = gbcuda::Device::Cuda;
      o.direction = Direction::Push;  // every level a push, so every level reports its input's edges
      o.level_loop = loop;
      o.compute_parents = true;
      const auto r = gbcuda::bfs(c.A, 0, o);
      check_result(c.A, 0, r, expected, true);
      int sampled = 0;
      for (std::size_t d = 0; d < r.levels.size(); ++d) {  // r.levels[d] expands depth d
        const double size = double(r.levels[d].frontier_size);
        EXPECT_EQ(r.levels[d].frontier_size, sizes[d]) << "depth " << d << ": a vertex claimed twice or not at all";
        const double got = double(r.levels[d].edges_examined), want = exact[d];
        if (d == 0 || exact[d - 1] < double(Index(1) << 20)) {
          EXPECT_EQ(got, want) << "depth " << d;
          continue;
        }
        EXPECT_NEAR(got, want, std::max(0.05, 5.0 * std::sqrt(16.0 / size)) * want) << "depth " << d;
        if (size >= 10000) {
          EXPECT_NE(got, want) << "depth " << d << ": counted exactly, not by sample";
          ++sampled;
        }
      }
      EXPECT_GE(sampled, 1);
    }
  }
}

// The policy pulls on a dense graph, in both loops: in the algebra loop from the history each
// product leaves on its output (its trace), with nothing read back but the count.
TEST(ProductPolicy, SwitchesDirectionOnADenseGraphInBothLoops) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({50000, 30.0, false, false, false, 0.0, 5});
  for (LevelLoop loop : {LevelLoop::Fused, LevelLoop::Algebra}) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    gbcuda::BfsOptions o;
    o.device = gbcuda::Device::Cuda;
    o.level_loop = loop;
    o.compute_parents = true;
    o.alpha = 15;  // Beamer's, whatever the calibration found
    o.beta = 18;
    const auto r = gbcuda::bfs(A, 0, o);
    check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), true);
    bool pulled = false;
    for (const auto& s : r.levels) {
      pulled |= s.kernel == BfsKernel::Pull;
      EXPECT_EQ(s.direction == Direction::Pull, s.kernel == BfsKernel::Pull);
    }
    EXPECT_TRUE(pulled);
    EXPECT_NE(r.levels.front().kernel, BfsKernel::Pull);
  }
}

// Queues that fit the opt-in limit alone but not beside the kernels' static shared memory (the
// bodies' scratch, ~18 KB) are refused with the library's error before any launch, in both
// kernels, rather than failing in the launch with a CUDA error.
TEST(FusedBfs, QueuesThatLeaveNoRoomBesideStaticSharedMemoryAreRefused) {
  SKIP_WITHOUT_GPU();
  int device = 0, optin = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), cudaSuccess);
  pr::Capacities caps;
  caps.warp_queue = 2;
  caps.single_block_queue = 16;
  caps.block_queue = (optin - 4096) / 4;  // 4-byte entries: fits the limit alone, by 4 KB
  const auto A = gbtest::random_graph({2000, 8.0, true, false, false, 0.0, 5});
  const Fused e(A);
  try {
    e.run(0, BfsKernel::QueueBlock, caps, false);
    FAIL() << "the fused BFS ran with queues that leave no room";
  } catch (const gbcuda::Error& err) {
    EXPECT_NE(std::string(err.what()).find("does not fit"), std::string::npos) << err.what();
  }
  const ProductCapacities room(caps);
  try {
    run_case({"algebra_queue_block", BfsKernel::QueueBlock, Direction::Auto, LevelLoop::Algebra}, A, 0, false);
    FAIL() << "the product ran with queues that leave no room";
  } catch (const gbcuda::Error& err) {
    EXPECT_NE(std::string(err.what()).find("do not fit"), std::string::npos) << err.what();
  }
}

TEST(FusedBfs, NoPullWithoutInEdges) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({20000, 20.0, true, false, false, 0.0, 6});
  const Fused e(A, false);
  const auto r = e.run(0, BfsKernel::Auto, pr::Capacities{}, false);
  check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), false);
  for (const auto& s : r.levels) EXPECT_NE(s.kernel, BfsKernel::Pull);
  EXPECT_THROW(e.run(0, BfsKernel::Pull, pr::Capacities{}, false), gbcuda::Error);
}

TEST(FusedBfs, StatsOffStillGivesLevels) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({10000, 6.0, false, false, false, 0.0, 9});
  const Fused e(A);
  const auto r = e.run(3, BfsKernel::Auto, pr::Capacities{}, true, {}, /*stats=*/false);
  EXPECT_TRUE(r.levels.empty());
  EXPECT_GT(r.seconds, 0.0);
  check_result(A, 3, r, gbtest::graphblas_bfs_levels(A, 3), true);
}

// ---- the barrier-free tail (barrier_free.cuh) ----------------------------------------------

// A directed path 0 -> 1 -> ... -> len - 1 whose last vertex leads into `rest`'s vertex 0 (rest
// shifted by len): 64 narrow levels and more before the rest is reached.
gbcuda::Matrix<bool> path_into(Index len, const gbcuda::Matrix<bool>& rest) {
  std::vector<Index> rows, cols;
  for (Index v = 0; v + 1 < len; ++v) rows.push_back(v), cols.push_back(v + 1);
  rows.push_back(len - 1), cols.push_back(len);
  std::vector<Index> r, c;
  std::vector<bool> x;
  gbcuda::extract_tuples(rest, r, c, x);
  for (std::size_t k = 0; k < r.size(); ++k) rows.push_back(r[k] + len), cols.push_back(c[k] + len);
  const Index n = len + rest.nrows();
  return gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
}

// Levels identical to GraphBLAS, and the tail ran (or not) as `tail_runs` says.
void check_tail(const gbcuda::Matrix<bool>& A, Index source, const gbcuda::BfsOptions& o, bool tail_runs) {
  const auto r = gbcuda::bfs(A, source, o);
  check_result(A, source, r, gbtest::graphblas_bfs_levels(A, source), o.compute_parents);
  EXPECT_EQ(r.level_loop, LevelLoop::Fused);
  EXPECT_FALSE(r.barrier_free_abandoned);
  if (!tail_runs) {
    EXPECT_EQ(r.barrier_free_from, 0);
    for (const auto& s : r.levels) EXPECT_FALSE(s.barrier_free) << "level " << s.level;
    return;
  }
  // The tail starts after at least 64 levels; with stats, its levels are marked from there on
  // and its first carries the tail's time.
  EXPECT_GT(r.barrier_free_from, 64);
  if (o.collect_stats) {
    ASSERT_GE(r.levels.size(), std::size_t(r.barrier_free_from));
    for (const auto& s : r.levels) EXPECT_EQ(s.barrier_free, s.level >= r.barrier_free_from) << "level " << s.level;
    EXPECT_GT(r.levels[std::size_t(r.barrier_free_from - 1)].seconds, 0.0);
  }
}

TEST(FusedBfs, BarrierFreeTailFinishesLongNarrowSearches) {
  SKIP_WITHOUT_GPU();
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Cuda;
  // A mesh from next to its corner (the levels are diagonals, up to 300 wide, 597 of them), with
  // and without stats; a path in both directions; a path into a sparse random graph, where the
  // tail's first levels for a vertex are often too high and fall later (label-correcting).
  const auto mesh = gbcuda::generate_graph("grid:300:300", gbcuda::Backend::Host);
  const auto path = gbtest::path_graph(5000, false);
  const auto tangle = path_into(200, gbtest::random_graph({20000, 3.0, false, false, false, 0.0, 5}));
  const auto hub = path_into(200, gbtest::star_graph(3000));  // a hub of 2,999 out-edges in the tail
  // With parents the tail's are named afterwards (barrier_free_parents_kernel); check_result
  // validates each against the graph and the levels.
  for (bool parents : {false, true}) {
    for (bool stats : {true, false}) {
      SCOPED_TRACE(std::string(stats ? "stats" : "no stats") + (parents ? ", parents" : ""));
      o.collect_stats = stats;
      o.compute_parents = parents;
      check_tail(mesh, 301, o, true);
      check_tail(path, 2500, o, true);
      check_tail(tangle, 0, o, true);
      check_tail(hub, 0, o, true);
    }
  }
  // Not with a forced kernel, a forced pull, or when turned off.
  o.collect_stats = true;
  o.compute_parents = false;
  o.kernel = BfsKernel::QueueWarp;
  check_tail(mesh, 301, o, false);
  o.kernel = BfsKernel::Auto;
  o.direction = Direction::Pull;
  check_tail(path, 0, o, false);
  o.direction = Direction::Auto;
  o.barrier_free_tail = false;
  check_tail(mesh, 301, o, false);
}

// Small enough for compute-sanitizer's racecheck, whose serialised warps make the larger
// searches above take minutes: the tail's rings in shared memory on a mesh of 117 levels, and the
// parents named after it.
TEST(FusedBfs, BarrierFreeTailOnASmallMesh) {
  SKIP_WITHOUT_GPU();
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Cuda;
  const auto mesh = gbcuda::generate_graph("grid:60:60", gbcuda::Backend::Host);
  check_tail(mesh, 61, o, true);
  o.compute_parents = true;
  check_tail(mesh, 61, o, true);
}

TEST(FusedBfs, BarrierFreeTailAbandonsAWideFrontierAndSearchesAgain) {
  SKIP_WITHOUT_GPU();
  // A path of 100 into a random graph of 500,000 vertices and ~8 out-edges each: the tail starts
  // on the path, then its queue backs up past 65,536 and the search runs again level-synchronously.
  const auto A = path_into(100, gbtest::random_graph({500000, 8.0, false, false, false, 0.0, 7}));
  const auto expected = gbtest::graphblas_bfs_levels(A, 0);
  for (auto [stats, parents] : {std::pair{true, false}, std::pair{false, false}, std::pair{true, true}}) {
    SCOPED_TRACE(std::string(stats ? "stats" : "no stats") + (parents ? ", parents" : ""));
    gbcuda::BfsOptions o;
    o.device = gbcuda::Device::Cuda;
    o.collect_stats = stats;
    o.compute_parents = parents;
    const auto r = gbcuda::bfs(A, 0, o);
    check_result(A, 0, r, expected, parents);
    EXPECT_TRUE(r.barrier_free_abandoned);
    EXPECT_EQ(r.barrier_free_from, 0);
    for (const auto& s : r.levels) EXPECT_FALSE(s.barrier_free) << "level " << s.level;
  }
}

TEST(FusedBfs, BarrierFreeTailAbandonsWhenItsQueueIsFull) {
  SKIP_WITHOUT_GPU();
  // A queue of 100 entries: the tangle's tail sends most finds of its random part through the
  // global queue (a warp keeps 32), so a producer finds it full, and every warp leaves. A queue of
  // 16 cannot hold the mesh's seed (its 53 vertices of level 64).
  const auto tangle = path_into(200, gbtest::random_graph({20000, 3.0, false, false, false, 0.0, 5}));
  const auto mesh = gbcuda::generate_graph("grid:60:60", gbcuda::Backend::Host);
  for (auto [A, source, cap] : {std::tuple{&tangle, Index(0), Index(100)}, std::tuple{&mesh, Index(61), Index(16)}}) {
    SCOPED_TRACE("queue of " + std::to_string(cap));
    pr::Capacities caps;
    caps.tail_queue = cap;
    const Fused e(*A);
    for (bool stats : {true, false}) {
      const auto r = e.run(source, BfsKernel::Auto, caps, false, {}, stats, /*tail=*/true);
      check_result(*A, source, r, gbtest::graphblas_bfs_levels(*A, source), false);
      EXPECT_TRUE(r.barrier_free_abandoned);
      EXPECT_EQ(r.barrier_free_from, 0);
    }
  }
}

TEST(ProductPolicy, CalibratedPolicyIsSaneAndCached) {
  SKIP_WITHOUT_GPU();
  const auto dir = std::filesystem::temp_directory_path() / ("gbcuda-calib-test-" + std::to_string(::getpid()));
  ::setenv("GBCUDA_CACHE_DIR", dir.c_str(), 1);
  const auto p = pr::calibrated_product_policy();
  EXPECT_EQ(p.forced, BfsKernel::Auto);
  EXPECT_GT(p.single_block_max, 0);
  EXPECT_GE(p.block_queue_max, p.single_block_max);
  EXPECT_GT(p.alpha, 0.0);
  EXPECT_GT(p.beta, 0.0);
  EXPECT_LE(p.beta, pr::kMaxBeta);
  // Same values the second time (computed once per process).
  const auto q = pr::calibrated_product_policy();
  EXPECT_EQ(q.single_block_max, p.single_block_max);
  EXPECT_EQ(q.alpha, p.alpha);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// The queue thresholds from the layered graphs' outcomes: single-block up to the widest graph it
// won, block queues up to the crossover (between that win and the first loss). No GPU needed.
TEST(ProductPolicy, QueueThresholdsFromLayeredGraphs) {
  const std::vector<Index> widths = {128, 512, 2048, 4096};
  auto thresholds = [&](std::vector<bool> wins) {
    gbcuda::detail::ProductPolicy p;
    pr::queue_thresholds(widths, wins, 4096, p);
    return std::pair{p.single_block_max, p.block_queue_max};
  };
  EXPECT_EQ(thresholds({true, true, false, false}), std::pair(Index(512), Index(1024)));
  EXPECT_EQ(thresholds({true, false, false, false}), std::pair(Index(128), Index(256)));
  EXPECT_EQ(thresholds({false, false, false, false}), std::pair(Index(64), Index(64)));
  EXPECT_EQ(thresholds({true, true, true, true}), std::pair(Index(4096), Index(4096)));  // capped by the queue
  EXPECT_EQ(thresholds({true, true, true, false}), std::pair(Index(2048), Index(2896)));
}

// A cached policy is read back as written, except a beta above kMaxBeta (caches written before
// the cap, e.g. 8,532 measured on an H100), which is capped. Host code only: runs without a GPU.
TEST(ProductPolicy, CachedBetaIsCapped) {
  const auto file = std::filesystem::temp_directory_path() / ("gbcuda-policy-" + std::to_string(::getpid()) + ".json");
  auto read = [&](double beta, gbcuda::detail::ProductPolicy& p, int format = 4) {
    std::ofstream(file) << "{\n  \"format\": " << format
                        << ",\n  \"device\": \"test\",\n  \"single_block_max\": 1024,\n"
                        << "  \"block_queue_max\": 1024,\n  \"alpha\": 11.3,\n  \"beta\": " << beta << "\n}\n";
    return pr::read_policy_cache(file.string(), p);
  };
  gbcuda::detail::ProductPolicy p;
  ASSERT_TRUE(read(40.5, p));
  EXPECT_EQ(p.single_block_max, 1024);
  EXPECT_DOUBLE_EQ(p.alpha, 11.3);
  EXPECT_DOUBLE_EQ(p.beta, 40.5);
  ASSERT_TRUE(read(8531.78, p));
  EXPECT_DOUBLE_EQ(p.beta, pr::kMaxBeta);
  EXPECT_FALSE(read(-1, p));
  EXPECT_FALSE(read(40.5, p, 3));  // format 3's single_block_max was the midpoint: measured anew
  std::filesystem::remove(file);
  EXPECT_FALSE(pr::read_policy_cache(file.string(), p));
}

// A GPU of the built-in table gets its kept policy (name and multiprocessor count both match);
// any other is measured. Host code only: runs without a GPU.
TEST(ProductPolicy, BuiltInPolicyOfAKnownGpu) {
  gbcuda::detail::ProductPolicy p;
  ASSERT_TRUE(pr::built_in_policy("NVIDIA H100 80GB HBM3", 132, p));
  EXPECT_GE(p.alpha, 1.0);
  EXPECT_LE(p.beta, pr::kMaxBeta);
  EXPECT_LE(p.single_block_max, p.block_queue_max);
  EXPECT_EQ(p.forced, gbcuda::ProductKernel::Auto);
  gbcuda::detail::ProductPolicy q;
  EXPECT_FALSE(pr::built_in_policy("NVIDIA H100 80GB HBM3", 114, q));  // a cut-down part of that name
  EXPECT_FALSE(pr::built_in_policy("NVIDIA H100 PCIe", 114, q));
  EXPECT_FALSE(pr::built_in_policy("", 0, q));
  EXPECT_DOUBLE_EQ(q.alpha, gbcuda::detail::ProductPolicy{}.alpha);  // untouched when unknown
  EXPECT_EQ(gbcuda::product_policy_source(gbcuda::Backend::Host), "defaults (host backend)");
}

// alpha and beta from the two searches' levels: where pull starts to win while the frontier
// grows, and where push wins again while it shrinks; a tie is push's; no crossover keeps the
// defaults. Host arithmetic: runs without a GPU.
TEST(ProductPolicy, DirectionThresholdsFromLevelTimes) {
  using L = pr::LevelTimes;
  const Index n = 1000000;
  const gbcuda::Offset nnz = 16000000;
  // Growing levels: push wins twice (unexplored/frontier edges 16e6/1e3 and (16e6-1e3)/1e5), pull
  // from the third (ratio (16e6-101e3)/4e6); shrinking: pull wins at n/frontier = 4, push at 40.
  const std::vector<L> levels = {{100, 1000, 1e-6, 9e-6},         {6000, 100000, 5e-6, 9e-6},
                                 {250000, 4000000, 60e-6, 30e-6}, {500000, 8000000, 90e-6, 20e-6},
                                 {250000, 3000000, 40e-6, 10e-6}, {25000, 800000, 6e-6, 9e-6},
                                 {100, 1600, 2e-6, 8e-6}};
  gbcuda::detail::ProductPolicy p;
  pr::direction_thresholds(levels, n, nnz, p);
  const double r2 = (16e6 - 1e3) / 1e5, r3 = (16e6 - 101e3) / 4e6;
  EXPECT_NEAR(p.alpha, std::sqrt(r2 * r3), 1e-9);
  EXPECT_NEAR(p.beta, std::sqrt(40.0 * 4.0), 1e-9);

  auto ties = levels;  // equal times are push's: pull never wins while growing (alpha kept)
  for (auto& l : ties) l.pull_seconds = l.push_seconds;
  gbcuda::detail::ProductPolicy q;
  pr::direction_thresholds(ties, n, nnz, q);
  EXPECT_DOUBLE_EQ(q.alpha, gbcuda::detail::ProductPolicy{}.alpha);
  EXPECT_NEAR(q.beta, 4.0 / 2, 1e-9);  // push wins at the first shrinking level: half its ratio

  gbcuda::detail::ProductPolicy few;
  pr::direction_thresholds({levels[0], levels[1]}, n, nnz, few);  // under 3 levels: no change
  EXPECT_DOUBLE_EQ(few.alpha, gbcuda::detail::ProductPolicy{}.alpha);
  EXPECT_DOUBLE_EQ(few.beta, gbcuda::detail::ProductPolicy{}.beta);

  auto late = levels;  // pull also wins at n/frontier = 5, push only at 10000: sqrt(5e4), capped
  late[5] = {200000, 2000000, 30e-6, 1e-6};
  gbcuda::detail::ProductPolicy c;
  pr::direction_thresholds(late, n, nnz, c);
  EXPECT_DOUBLE_EQ(c.beta, pr::kMaxBeta);
}

// ---- no hidden waits ------------------------------------------------------------------------

// One BFS level written with public calls on the GPU: vxm and assign make no host wait, nvals
// makes exactly one read.
TEST(HostWaits, OneAlgebraLevelWaitsOnlyForNvals) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({20000, 8.0, false, false, false, 0.0, 11});
  const gbcuda::Backend b = gbcuda::Backend::Cuda;
  const Index n = A.nrows();
  for (bool parents : {false, true}) {
    SCOPED_TRACE(parents ? "parents" : "levels");
    gbcuda::Vector<std::int32_t> level(n, b);
    gbcuda::Vector<std::int64_t> parent(n, b), qp(n, b);
    gbcuda::Vector<bool> q(n, b);
    level.set_element(0, 0);
    parent.set_element(0, 0);
    q.set_element(0, true);
    qp.set_element(0, 0);
    // Warm-up level: the graph's transpose, symmetry check and the policy's calibration happen
    // once, on first use.
    gbcuda::vxm(q, level, gbcuda::no_accum, gbcuda::AnyPair<bool>{}, q, A, gbcuda::desc::RSC);
    gbcuda::vxm(qp, parent, gbcuda::no_accum, gbcuda::AnySecondI<std::int64_t>{}, qp, A, gbcuda::desc::RSC);
    ASSERT_GT(q.nvals(), 0);
    for (int depth = 1; depth <= 3; ++depth) {
      const gbcuda::HostWaits before = gbcuda::host_waits();
      if (parents) {
        gbcuda::assign(parent, qp, gbcuda::no_accum, qp, gbcuda::desc::S);
        gbcuda::vxm(qp, parent, gbcuda::no_accum, gbcuda::AnySecondI<std::int64_t>{}, qp, A, gbcuda::desc::RSC);
      } else {
        gbcuda::assign(level, q, gbcuda::no_accum, std::int32_t(depth), gbcuda::desc::S);
        gbcuda::vxm(q, level, gbcuda::no_accum, gbcuda::AnyPair<bool>{}, q, A, gbcuda::desc::RSC);
      }
      const gbcuda::HostWaits after_ops = gbcuda::host_waits();
      EXPECT_EQ(after_ops.total(), before.total()) << "depth " << depth << ": vxm + assign waited for the GPU";
      const Index nq = parents ? qp.nvals() : q.nvals();
      const gbcuda::HostWaits after_nvals = gbcuda::host_waits();
      EXPECT_EQ(after_nvals.reads, after_ops.reads + 1) << "depth " << depth;
      EXPECT_EQ(after_nvals.syncs, after_ops.syncs) << "depth " << depth;
      (void)nq;
      // The count is cached on the host now: asking again costs nothing.
      (void)(parents ? qp.nvals() : q.nvals());
      EXPECT_EQ(gbcuda::host_waits().total(), after_nvals.total());
    }
  }
}

// The algebra loop itself: one read per level (the frontier's count) beside a few at the start
// and end (results copied to the host); the fused loop: a fixed handful, whatever the depth.
TEST(HostWaits, BfsLoopsWaitPerLevelOrNot) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::path_graph(2000, false);
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Cuda;
  o.collect_stats = false;
  for (LevelLoop loop : {LevelLoop::Fused, LevelLoop::Algebra}) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    o.level_loop = loop;
    gbcuda::bfs(A, 0, o);  // warm-up
    const gbcuda::HostWaits before = gbcuda::host_waits();
    const auto r = gbcuda::bfs(A, 0, o);
    const std::uint64_t waits = gbcuda::host_waits().total() - before.total();
    EXPECT_EQ(r.num_levels, 2000);
    if (loop == LevelLoop::Fused) {
      EXPECT_LE(waits, 5u);
    } else {
      EXPECT_GE(waits, 2000u);  // one nvals per level (2000 products, the last one empty)
      EXPECT_LE(waits, 2000u + 8u);
    }
  }
}

}  // namespace

namespace {

// A vector that is its own mask, fresh from a product (sparse, its count still on the device):
// assign(w, w, ...) touches exactly its entries, and w<w> = w changes nothing.
TEST(AlgebraOnBothBackends, AssignThroughItsOwnPattern) {
  const auto A = gbtest::random_graph({5000, 6.0, true, false, false, 0.0, 12});
  for (gbcuda::Backend b : {gbcuda::Backend::Host, gbcuda::Backend::Cuda}) {
    if (b == gbcuda::Backend::Cuda && !gbcuda::cuda_available()) continue;  // the host half still runs
    SCOPED_TRACE(gbcuda::to_string(b));
    gbcuda::Vector<std::int64_t> u(A.nrows(), b), w(A.nrows(), b);
    for (Index v : {Index(0), Index(7), Index(99)}) u.set_element(v, v);
    gbcuda::vxm(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::AnySecondI<std::int64_t>{}, u, A);
    gbcuda::Vector<std::int64_t> before = w;
    std::vector<Index> bi, wi;
    std::vector<std::int64_t> bv, wv;
    before.extract_tuples(bi, bv);
    gbcuda::assign(w, w, gbcuda::no_accum, w, gbcuda::desc::S);
    w.extract_tuples(wi, wv);
    EXPECT_EQ(wi, bi);
    EXPECT_EQ(wv, bv);
    gbcuda::assign(w, w, gbcuda::Plus<std::int64_t>{}, std::int64_t(1000), gbcuda::desc::S);
    w.extract_tuples(wi, wv);
    ASSERT_EQ(wi, bi);
    for (std::size_t p = 0; p < wv.size(); ++p) EXPECT_EQ(wv[p], bv[p] + 1000) << "entry " << wi[p];
    gbcuda::assign(w, w, gbcuda::no_accum, std::int64_t(-5), gbcuda::desc::S);
    w.extract_tuples(wi, wv);
    ASSERT_EQ(wi, bi);
    for (auto x : wv) EXPECT_EQ(x, -5);
  }
}

}  // namespace
