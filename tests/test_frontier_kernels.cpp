// The CUDA frontier engine (lib/cuda/frontier/) and the baselines (lib/baselines/): every kernel,
// forced for the whole search,
// gives the same levels as GraphBLAS on the sample matrices, random graphs, a star and a long
// path; parents are valid; the queue overflow paths run on purpose with tiny capacities
// (run_bfs called directly); the device-side choice hands over between kernels. The engine's
// kernels run in both level loops: the persistent kernel (LevelLoop::Device) and one launch per
// level (LevelLoop::Host).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cuda/frontier/frontier_bfs.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/io.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::BfsKernel;
using gbcuda::Direction;
using gbcuda::Index;
using gbcuda::LevelLoop;
namespace fr = gbcuda::detail::cuda::frontier;

#define SKIP_WITHOUT_GPU() \
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the frontier kernels run only on a GPU"

// What a test case runs: a kernel through gbcuda::bfs (device Cuda). "frontier-pull" is the
// engine's own pull kernel (kernel auto, direction pull => every level pull-spmv in the engine);
// "pull-spmv" forced through BfsOptions::kernel is the algebra's pull.
struct KernelCase {
  const char* name;
  BfsKernel kernel;
  Direction direction;
  LevelLoop loop = LevelLoop::Device;
};

const std::vector<KernelCase>& kernel_cases() {
  static const std::vector<KernelCase> cases = {
      {"auto", BfsKernel::Auto, Direction::Auto},
      {"auto_push", BfsKernel::Auto, Direction::Push},
      {"queue_warp", BfsKernel::QueueWarp, Direction::Auto},
      {"queue_block", BfsKernel::QueueBlock, Direction::Auto},
      {"queue_global", BfsKernel::QueueGlobal, Direction::Auto},
      {"single_block", BfsKernel::SingleBlock, Direction::Auto},
      {"frontier_pull", BfsKernel::Auto, Direction::Pull},
      {"auto_host", BfsKernel::Auto, Direction::Auto, LevelLoop::Host},
      {"auto_push_host", BfsKernel::Auto, Direction::Push, LevelLoop::Host},
      {"queue_warp_host", BfsKernel::QueueWarp, Direction::Auto, LevelLoop::Host},
      {"queue_block_host", BfsKernel::QueueBlock, Direction::Auto, LevelLoop::Host},
      {"queue_global_host", BfsKernel::QueueGlobal, Direction::Auto, LevelLoop::Host},
      {"single_block_host", BfsKernel::SingleBlock, Direction::Auto, LevelLoop::Host},
      {"frontier_pull_host", BfsKernel::Auto, Direction::Pull, LevelLoop::Host},
      {"pull_spmv", BfsKernel::PullSpmv, Direction::Auto},
      // the baselines (lib/baselines/), same result contract
      {"rodinia", BfsKernel::Rodinia, Direction::Auto},
      {"vertex_topdown", BfsKernel::VertexTopDown, Direction::Auto},
      {"vertex_bottomup", BfsKernel::VertexBottomUp, Direction::Auto},
      {"edge_coo", BfsKernel::EdgeCoo, Direction::Auto},
      {"block_per_vertex", BfsKernel::BlockPerVertex, Direction::Auto},
  };
  return cases;
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

class FrontierKernel : public testing::TestWithParam<KernelCase> {
 protected:
  void SetUp() override { SKIP_WITHOUT_GPU(); }

  void check(const gbcuda::Matrix<bool>& A, Index source, const std::string& what, bool parents) {
    SCOPED_TRACE(what + " from " + std::to_string(source) + (parents ? " (parents)" : ""));
    const auto expected = gbtest::graphblas_bfs_levels(A, source);
    gbcuda::BfsOptions o;
    o.device = gbcuda::Device::Cuda;
    o.kernel = GetParam().kernel;
    o.direction = GetParam().direction;
    o.compute_parents = parents;
    o.level_loop = GetParam().loop;
    const gbcuda::BfsResult r = gbcuda::bfs(A, source, o);
    check_result(A, source, r, expected, parents);
    const BfsKernel k = GetParam().kernel;
    if (k == BfsKernel::QueueWarp || k == BfsKernel::QueueBlock || k == BfsKernel::QueueGlobal) {
      for (const auto& s : r.levels) EXPECT_EQ(s.kernel, k) << "level " << s.level;
    }
    if (k == BfsKernel::SingleBlock) {  // single-block, handing over to queue-block only when full
      for (const auto& s : r.levels)
        EXPECT_TRUE(s.kernel == BfsKernel::SingleBlock || s.kernel == BfsKernel::QueueBlock) << "level " << s.level;
    }
    if (k == BfsKernel::Auto && GetParam().direction == Direction::Pull) {
      for (const auto& s : r.levels) {
        EXPECT_EQ(s.kernel, BfsKernel::PullSpmv) << "level " << s.level;
        EXPECT_EQ(s.direction, Direction::Pull);
      }
    }
    if (k == BfsKernel::Auto && GetParam().direction == Direction::Push) {
      for (const auto& s : r.levels) EXPECT_EQ(s.direction, Direction::Push) << "level " << s.level;
    }
  }
};

TEST_P(FrontierKernel, SampleMatrices) {
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

TEST_P(FrontierKernel, RandomGraphs) {
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

TEST_P(FrontierKernel, Star) {
  const auto A = gbtest::star_graph(100000);  // a centre of degree 99999: the block-wide path
  check(A, 0, "star centre", true);
  check(A, 99999, "star leaf", true);
  check(A, 12345, "star leaf", false);
}

TEST_P(FrontierKernel, DirectedPath) {
  // 1e5 levels. The algebra's pull and the engine's forced pull walk every vertex per level:
  // a shorter path there.
  const bool pulls = GetParam().direction == Direction::Pull || GetParam().kernel == BfsKernel::PullSpmv ||
                     GetParam().kernel == BfsKernel::VertexBottomUp;
  const Index len = pulls ? 3000 : 100000;
  const auto A = gbtest::path_graph(len, true);
  check(A, 0, "directed path", true);
  check(A, len / 2, "directed path from its middle", false);
}

std::string case_name(const testing::TestParamInfo<KernelCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Kernels, FrontierKernel, testing::ValuesIn(kernel_cases()), case_name);

// ---- run_bfs directly: tiny capacities force every overflow path ----------------------------

struct Engine {
  fr::DeviceGraph g;
  explicit Engine(const gbcuda::Matrix<bool>& A, bool with_in = true) {
    const auto& out = A.csr(gbcuda::Backend::Cuda);
    g.n = A.nrows();
    g.nnz = A.nvals();
    g.out_ptr = out.row_ptr.data();
    g.out_idx = out.col_idx.data();
    if (with_in) {
      const auto& in = A.transpose().csr(gbcuda::Backend::Cuda);
      g.in_ptr = in.row_ptr.data();
      g.in_idx = in.col_idx.data();
    }
  }
  gbcuda::BfsResult run(Index source, BfsKernel forced, const fr::Capacities& caps, bool parents, LevelLoop loop,
                        gbcuda::detail::KernelPolicy policy = {}) const {
    policy.forced = forced;
    gbcuda::BfsResult r;
    fr::run_bfs(g, source, parents, policy, caps, true, loop, r);
    return r;
  }
};

fr::Capacities tiny() {
  fr::Capacities c;
  c.warp_queue = 2;
  c.block_queue = 8;
  c.single_block_queue = 16;
  return c;
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
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const auto& A = graphs[i];
    const Engine e(A);
    for (Index source : {Index(0), A.nrows() - 1}) {
      for (bool parents : {false, true}) {
        SCOPED_TRACE("graph " + std::to_string(i) + " from " + std::to_string(source));
        const auto expected = gbtest::graphblas_bfs_levels(A, source);
        const auto r = e.run(source, k, tiny(), parents, GetParam().loop);
        check_result(A, source, r, expected, parents);
      }
    }
  }
}

const std::vector<KernelCase>& engine_cases() {
  static const std::vector<KernelCase> cases = {
      {"auto", BfsKernel::Auto, Direction::Auto},
      {"queue_warp", BfsKernel::QueueWarp, Direction::Auto},
      {"queue_block", BfsKernel::QueueBlock, Direction::Auto},
      {"queue_global", BfsKernel::QueueGlobal, Direction::Auto},
      {"single_block", BfsKernel::SingleBlock, Direction::Auto},
      {"pull_spmv", BfsKernel::PullSpmv, Direction::Auto},
      {"auto_host", BfsKernel::Auto, Direction::Auto, LevelLoop::Host},
      {"queue_warp_host", BfsKernel::QueueWarp, Direction::Auto, LevelLoop::Host},
      {"queue_block_host", BfsKernel::QueueBlock, Direction::Auto, LevelLoop::Host},
      {"queue_global_host", BfsKernel::QueueGlobal, Direction::Auto, LevelLoop::Host},
      {"single_block_host", BfsKernel::SingleBlock, Direction::Auto, LevelLoop::Host},
      {"pull_spmv_host", BfsKernel::PullSpmv, Direction::Auto, LevelLoop::Host},
  };
  return cases;
}

constexpr LevelLoop kLoops[] = {LevelLoop::Device, LevelLoop::Host};

INSTANTIATE_TEST_SUITE_P(Engine, TinyCapacities, testing::ValuesIn(engine_cases()), case_name);

TEST(FrontierEngine, SingleBlockHandsOverWhenItsQueueIsFull) {
  SKIP_WITHOUT_GPU();
  // A star from its centre: level 1 holds every leaf, far more than a 16-entry queue.
  const auto A = gbtest::star_graph(1000);
  const Engine e(A);
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    const auto r = e.run(0, BfsKernel::SingleBlock, tiny(), true, loop);
    check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), true);
    ASSERT_EQ(r.levels.size(), 2u);
    EXPECT_EQ(r.levels[0].kernel, BfsKernel::SingleBlock);
    EXPECT_EQ(r.levels[1].kernel, BfsKernel::QueueBlock);
  }
}

TEST(FrontierEngine, SingleBlockRunsANarrowSearchInOneLaunch) {
  SKIP_WITHOUT_GPU();
  // 10000 levels: more than one launch's worth of per-level records (4096), so with stats on
  // both loops also resume a search where a launch stopped.
  const auto A = gbtest::path_graph(20000, false);
  const Engine e(A, false);
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    const auto r = e.run(10000, BfsKernel::Auto, fr::Capacities{}, false, loop);
    check_result(A, 10000, r, gbtest::graphblas_bfs_levels(A, 10000), false);
    for (const auto& s : r.levels) EXPECT_EQ(s.kernel, BfsKernel::SingleBlock) << "level " << s.level;
  }
}

TEST(FrontierEngine, DeviceLoopResumesAcrossLaunchesInEveryKernel) {
  SKIP_WITHOUT_GPU();
  // A directed path of 6000 vertices: 6000 expansions (the last one finds nothing), more than
  // one persistent launch's 4096 per-level records, so with stats on every forced kernel resumes
  // the search in a second launch (the frontier queue, and the pull's bitmap, must survive it).
  const auto path = gbtest::path_graph(6000, true);
  const Engine e(path);
  for (BfsKernel k :
       {BfsKernel::Auto, BfsKernel::QueueWarp, BfsKernel::QueueBlock, BfsKernel::QueueGlobal, BfsKernel::PullSpmv}) {
    SCOPED_TRACE(gbcuda::to_string(k));
    const auto r = e.run(0, k, fr::Capacities{}, true, LevelLoop::Device);
    check_result(path, 0, r, gbtest::graphblas_bfs_levels(path, 0), true);
    ASSERT_EQ(r.levels.size(), 6000u);
  }
}

TEST(FrontierEngine, AutoSwitchesDirectionOnADenseGraph) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({50000, 30.0, false, false, false, 0.0, 5});
  const Engine e(A);
  gbcuda::detail::KernelPolicy p;  // defaults: alpha 15, beta 18
  p.single_block_max = 64;
  p.block_queue_max = 512;
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    const auto r = e.run(0, BfsKernel::Auto, fr::Capacities{}, true, loop, p);
    check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), true);
    bool pulled = false;
    for (const auto& s : r.levels) {
      pulled |= s.kernel == BfsKernel::PullSpmv;
      EXPECT_EQ(s.direction == Direction::Pull, s.kernel == BfsKernel::PullSpmv);
    }
    EXPECT_TRUE(pulled);
    EXPECT_EQ(r.levels.front().kernel, BfsKernel::SingleBlock);
  }
}

TEST(FrontierEngine, NoPullWithoutInEdges) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({20000, 20.0, true, false, false, 0.0, 6});
  const Engine e(A, false);
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    const auto r = e.run(0, BfsKernel::Auto, fr::Capacities{}, false, loop);
    check_result(A, 0, r, gbtest::graphblas_bfs_levels(A, 0), false);
    for (const auto& s : r.levels) EXPECT_NE(s.kernel, BfsKernel::PullSpmv);
    EXPECT_THROW(e.run(0, BfsKernel::PullSpmv, fr::Capacities{}, false, loop), gbcuda::Error);
  }
}

TEST(FrontierEngine, StatsOffStillGivesLevels) {
  SKIP_WITHOUT_GPU();
  const auto A = gbtest::random_graph({10000, 6.0, false, false, false, 0.0, 9});
  const Engine e(A);
  gbcuda::detail::KernelPolicy p;
  p.forced = BfsKernel::Auto;
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    gbcuda::BfsResult r;
    fr::run_bfs(e.g, 3, true, p, fr::Capacities{}, false, loop, r);
    EXPECT_TRUE(r.levels.empty());
    EXPECT_GT(r.seconds, 0.0);
    check_result(A, 3, r, gbtest::graphblas_bfs_levels(A, 3), true);
  }
}

TEST(FrontierEngine, CalibratedPolicyIsSaneAndCached) {
  SKIP_WITHOUT_GPU();
  const auto dir = std::filesystem::temp_directory_path() / ("gbcuda-calib-test-" + std::to_string(::getpid()));
  ::setenv("GBCUDA_CACHE_DIR", dir.c_str(), 1);
  for (LevelLoop loop : kLoops) {
    SCOPED_TRACE(gbcuda::to_string(loop));
    const auto p = fr::calibrated_policy(loop);
    EXPECT_EQ(p.forced, BfsKernel::Auto);
    EXPECT_GT(p.single_block_max, 0);
    EXPECT_GE(p.block_queue_max, p.single_block_max);
    EXPECT_GT(p.alpha, 0.0);
    EXPECT_GT(p.beta, 0.0);
    // Same values the second time (computed once per process and loop).
    const auto q = fr::calibrated_policy(loop);
    EXPECT_EQ(q.single_block_max, p.single_block_max);
    EXPECT_EQ(q.alpha, p.alpha);
  }
  // One cache file per loop.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.path().extension() == ".json";
  if (::getenv("GBCUDA_CALIBRATION") == nullptr) {
    EXPECT_EQ(files, 2);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
