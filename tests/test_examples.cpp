// The examples' code (examples/), checked against SuiteSparse:GraphBLAS on each backend: the BFS
// of examples/bfs/bfs.hpp, written with public calls only, gives GraphBLAS's levels and valid
// parents on the sample matrices and on random graphs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bfs/bfs.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

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

}  // namespace
