// The partitioned BFS (partitioned.hpp): P parts through the loopback communicator on the host
// and on one GPU, and through NCCL on several GPUs, each against the one-part search's levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/partitioned.hpp"
#include "support/graphs.hpp"

#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using gbcuda::Matrix;
using gbcuda::PartitionedBfsOptions;
using gbcuda::Transport;

// The levels of the host's (unpartitioned) BFS.
std::vector<std::int32_t> reference_levels(const Matrix<bool>& A, Index source) {
  gbcuda::BfsOptions o;
  o.device = gbcuda::Device::Host;
  return gbcuda::bfs(A, source, o).level;
}

// A directed graph where every even vertex has no in-edges (a search skips them from the start,
// PartGraph::unreachable) beside odd ones that do: u -> u + 1 for even u, 0 -> every third odd
// vertex, and odd u -> u + 2. Source 0 and its word's neighbours have no in-edges.
Matrix<bool> half_without_in_edges(Index n) {
  std::vector<Index> rows, cols;
  for (Index u = 0; u + 1 < n; u += 2) {
    rows.push_back(u);
    cols.push_back(u + 1);
  }
  for (Index v = 1; v < n; v += 6) {
    rows.push_back(0);
    cols.push_back(v);
  }
  for (Index u = 1; u + 2 < n; u += 2) {
    rows.push_back(u);
    cols.push_back(u + 2);
  }
  return Matrix<bool>::from_coo(n, n, rows, cols);
}

// Graphs of every shape the partition must survive: sizes not a multiple of 32 or of the parts,
// fewer vertices than parts * 32 (empty parts), unreachable vertices, a long path, a hub.
std::vector<std::pair<std::string, Matrix<bool>>> graphs() {
  std::vector<std::pair<std::string, Matrix<bool>>> g;
  g.emplace_back("half without in-edges 999", half_without_in_edges(999));
  g.emplace_back("random 1000 directed", gbtest::random_graph({1000, 6.0, true, true, true, 0.05, 3}));
  g.emplace_back("random 777 undirected", gbtest::random_graph({777, 3.0, false, false, false, 0.1, 4}));
  g.emplace_back("tiny 5", gbtest::random_graph({5, 2.0, true, false, false, 0.0, 5}));
  g.emplace_back("path 300", gbtest::path_graph(300, true));
  g.emplace_back("star 10000", gbtest::star_graph(10000));  // a hub row longer than kBigRow in every part
  g.emplace_back("kron:10:8", gbcuda::generate_graph("kron:10:8", Backend::Host));
  g.emplace_back("grid:40:30", gbcuda::generate_graph("grid:40:30", Backend::Host));
  return g;
}

void expect_right_result(const Matrix<bool>& A, Index source, const PartitionedBfsOptions& o,
                         const gbcuda::BfsResult& r, const std::string& what);

void expect_same_levels(const Matrix<bool>& A, Index source, const PartitionedBfsOptions& o, const std::string& what) {
  expect_right_result(A, source, o, gbcuda::bfs_partitioned(A, source, o), what);
}

// r against the one-part search on the host: levels, validity, counts, parents.
void expect_right_result(const Matrix<bool>& A, Index source, const PartitionedBfsOptions& o,
                         const gbcuda::BfsResult& r, const std::string& what) {
  const std::vector<std::int32_t> want = reference_levels(A, source);
  ASSERT_EQ(r.level.size(), want.size()) << what;
  Index wrong = 0, first = -1;
  for (std::size_t v = 0; v < want.size(); ++v)
    if (r.level[v] != want[v] && wrong++ == 0) first = Index(v);
  EXPECT_EQ(wrong, 0) << what << ": first wrong vertex " << first << " level " << r.level[std::size_t(first)]
                      << ", want " << want[std::size_t(first)];
  EXPECT_EQ(gbcuda::validate_bfs(A, source, r), "") << what;
  EXPECT_EQ(r.source, source);
  Index reached = 0, edges = 0;
  std::int32_t deepest = -1;
  const std::vector<Index> degree = A.out_degrees();
  for (std::size_t v = 0; v < want.size(); ++v)
    if (want[v] >= 0) {
      ++reached;
      edges += degree[v];
      deepest = std::max(deepest, want[v]);
    }
  EXPECT_EQ(r.vertices_reached, reached) << what;
  EXPECT_EQ(r.edges_traversed, edges) << what;
  EXPECT_EQ(r.num_levels, deepest + 1) << what;
  if (o.compute_parents) {
    EXPECT_EQ(r.parent.size(), want.size()) << what;  // and validate_bfs checked each parent's edge and level
    EXPECT_EQ(r.parent[std::size_t(source)], source) << what;
  } else {
    EXPECT_TRUE(r.parent.empty()) << what;
  }
  if (o.collect_stats) {
    EXPECT_EQ(int(r.levels.size()), r.num_levels) << what;  // one step past the last level
  }
}

// Pull from the first growing level (alpha huge), never (alpha tiny), or by Beamer's rule.
const double kAlphas[] = {0.0, 1e9, 1e-9};

void check_every_graph(Backend where, const std::vector<int>& part_counts) {
  for (const auto& [name, A] : graphs()) {
    const std::vector<Index> sources = {0, A.nrows() / 2, A.nrows() - 1};
    int run = 0;
    for (int parts : part_counts)
      for (double alpha : kAlphas)
        for (Index s : sources) {
          PartitionedBfsOptions o;
          o.compute_parents = run++ % 2 == 0;  // every direction, part count and source meets both
          o.parts = parts;
          o.device = where == Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
          o.alpha = alpha;
          o.beta = alpha > 0 && alpha < 1 ? 1e9 : 0.0;  // never pulling: and never back
          expect_same_levels(A, s, o,
                             name + ", " + std::to_string(parts) + " parts, alpha " + std::to_string(alpha) +
                                 ", source " + std::to_string(s) + (o.compute_parents ? ", parents" : ""));
        }
  }
}

TEST(Partition, BlocksOfMultiplesOf32) {
  EXPECT_EQ(gbcuda::partition_block(1000, 3), 352);  // ceil(1000 / 3) = 334 -> 352
  EXPECT_EQ(gbcuda::partition_begin(1000, 3, 0), 0);
  EXPECT_EQ(gbcuda::partition_begin(1000, 3, 1), 352);
  EXPECT_EQ(gbcuda::partition_begin(1000, 3, 2), 704);
  EXPECT_EQ(gbcuda::partition_begin(1000, 3, 3), 1000);
  EXPECT_EQ(gbcuda::partition_begin(40, 4, 2), 40);  // blocks of 32: parts 2 and 3 empty
  EXPECT_EQ(gbcuda::partition_begin(40, 4, 1), 32);
  EXPECT_THROW(gbcuda::partition_begin(40, 4, 5), gbcuda::Error);
  EXPECT_THROW(gbcuda::partition_block(40, 0), gbcuda::Error);
}

TEST(PartitionedBfs, LoopbackOnTheHostMatchesOnePart) { check_every_graph(Backend::Host, {1, 2, 3, 8}); }

TEST(PartitionedBfs, StatsCountTheLevels) {
  const auto A = gbcuda::generate_graph("kron:10:8", Backend::Host);
  PartitionedBfsOptions o;
  o.parts = 3;
  o.device = gbcuda::Device::Host;
  const auto r = gbcuda::bfs_partitioned(A, 0, o);
  ASSERT_FALSE(r.levels.empty());
  EXPECT_EQ(r.levels[0].frontier_size, 1);
  EXPECT_EQ(r.levels.back().level, int(r.levels.size()));
  bool pulled = false;
  for (const auto& l : r.levels) pulled |= l.direction == gbcuda::Direction::Pull;
  EXPECT_TRUE(pulled) << "Beamer's rule pulls the middle levels of a Kronecker graph";
  EXPECT_GT(r.seconds, 0.0);
  EXPECT_EQ(r.backend, Backend::Host);
}

TEST(PartitionedBfs, BadArgumentsAreErrors) {
  const auto A = gbtest::random_graph({100, 4.0, true, false, false, 0.0, 1});
  PartitionedBfsOptions o;
  o.device = gbcuda::Device::Host;
  o.parts = 0;
  EXPECT_THROW(gbcuda::bfs_partitioned(A, 0, o), gbcuda::Error);
  o.parts = 2;
  EXPECT_THROW(gbcuda::bfs_partitioned(A, 100, o), gbcuda::Error);
  o.transport = Transport::Nccl;
  EXPECT_THROW(gbcuda::bfs_partitioned(A, 0, o), gbcuda::Error);  // nccl with device host
  o.transport = Transport::Loopback;
  o.gpus = {0, 1};
  EXPECT_THROW(gbcuda::bfs_partitioned(A, 0, o), gbcuda::Error);  // a GPU list without nccl
  EXPECT_EQ(gbcuda::parse_transport("nccl"), Transport::Nccl);
  EXPECT_EQ(gbcuda::parse_transport("loopback"), Transport::Loopback);
  EXPECT_THROW(gbcuda::parse_transport("mpi"), gbcuda::Error);
  if (!gbcuda::nccl_available()) {
    try {
      (void)gbcuda::make_communicators(Transport::Nccl, 2, Backend::Cuda);
      ADD_FAILURE() << "nccl in a build without it";
    } catch (const gbcuda::Error& e) {
      EXPECT_EQ(e.status(), gbcuda::Status::NotImplemented);
    }
  }
}

// Loopback collectives: every rank gets every slice and the sums; a rank that aborts releases
// the others, whose collectives then throw instead of waiting forever.
TEST(Communicator, LoopbackGathersSumsAndAborts) {
  const int P = 4;
  auto comms = gbcuda::make_communicators(Transport::Loopback, P, Backend::Host);
  ASSERT_EQ(int(comms.size()), P);
  std::vector<std::vector<std::uint32_t>> got(P);
  std::vector<std::uint64_t> sums(P);
  std::vector<std::vector<std::uint32_t>> both(P);
  std::vector<std::array<std::uint64_t, 2>> both_sums(P);
  {
    std::vector<std::jthread> t;
    for (int r = 0; r < P; ++r)
      t.emplace_back([&, r] {
        auto& c = *comms[std::size_t(r)];
        const std::vector<std::uint32_t> mine = {std::uint32_t(10 * r), std::uint32_t(10 * r + 1)};
        got[std::size_t(r)].resize(2 * P);
        c.allgather(mine.data(), got[std::size_t(r)].data(), 2);
        std::uint64_t v = std::uint64_t(r + 1);
        c.allreduce_sum(&v, 1);
        sums[std::size_t(r)] = v;
        // Both at once (the level loop's form): a gather of one word and two sums.
        const std::uint32_t word = std::uint32_t(100 + r);
        both[std::size_t(r)].resize(P);
        const std::uint64_t in[2] = {std::uint64_t(r), 1};
        c.allgather_and_sum(&word, both[std::size_t(r)].data(), 1, in, both_sums[std::size_t(r)].data(), 2);
      });
  }
  for (int r = 0; r < P; ++r) {
    EXPECT_EQ(sums[std::size_t(r)], std::uint64_t(P * (P + 1) / 2));
    EXPECT_EQ(both_sums[std::size_t(r)][0], std::uint64_t(P * (P - 1) / 2));
    EXPECT_EQ(both_sums[std::size_t(r)][1], std::uint64_t(P));
    for (int q = 0; q < P; ++q) {
      EXPECT_EQ(got[std::size_t(r)][std::size_t(2 * q)], std::uint32_t(10 * q));
      EXPECT_EQ(got[std::size_t(r)][std::size_t(2 * q + 1)], std::uint32_t(10 * q + 1));
      EXPECT_EQ(both[std::size_t(r)][std::size_t(q)], std::uint32_t(100 + q));
    }
  }
  std::atomic<int> threw{0};
  {
    std::vector<std::jthread> t;
    for (int r = 0; r < P; ++r)
      t.emplace_back([&, r] {
        auto& c = *comms[std::size_t(r)];
        if (r == 2) {
          c.abort();
          return;
        }
        std::uint64_t v = 1;
        try {
          c.allreduce_sum(&v, 1);
        } catch (const gbcuda::Error&) {
          ++threw;
        }
      });
  }
  EXPECT_EQ(threw.load(), P - 1);
}

#if GBCUDA_HAVE_CUDA
TEST(PartitionedBfs, LoopbackOnOneGpuMatchesOnePartCuda) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the GPU parts need one";
  check_every_graph(Backend::Cuda, {1, 2, 3});
}

// Symmetric graphs already in GPU memory: the parts are cut on their GPUs (build_part_on_device),
// from a generated graph and from host graphs copied there, with empty parts among them.
std::vector<std::pair<std::string, Matrix<bool>>> symmetric_graphs_on_the_gpu() {
  std::vector<std::pair<std::string, Matrix<bool>>> g;
  g.emplace_back("kron:10:8 (GPU)", gbcuda::generate_graph("kron:10:8", Backend::Cuda));
  g.emplace_back("grid:40:30 (GPU)", gbcuda::generate_graph("grid:40:30", Backend::Cuda));
  g.emplace_back("random 777 symmetrized", gbtest::random_graph({777, 3.0, false, false, false, 0.1, 4}).symmetrized());
  g.emplace_back("tiny 5 symmetrized", gbtest::random_graph({5, 2.0, true, false, false, 0.0, 5}).symmetrized());
  g.emplace_back("star 10000 symmetrized", gbtest::star_graph(10000).symmetrized());
  g.emplace_back("half without in-edges 999 symmetrized", half_without_in_edges(999).symmetrized());
  for (auto& [name, A] : g) (void)A.csr(Backend::Cuda);  // the copy the parts are cut from
  return g;
}

// Parts of `graphs`, each built on its GPU, against the one-part search.
void check_parts_built_on_gpus(const std::vector<std::pair<std::string, Matrix<bool>>>& graphs, PartitionedBfsOptions o,
                               const std::vector<int>& part_counts) {
  int run = 0;
  for (const auto& [name, A] : graphs)
    for (int parts : part_counts) {
      o.parts = parts;
      const gbcuda::PartitionedGraph parted(A, o);
      EXPECT_TRUE(parted.built_on_gpus()) << name << ", " << parts << " parts";
      for (double alpha : kAlphas)
        for (Index s : {Index(0), A.nrows() - 1}) {
          o.alpha = alpha;
          o.beta = alpha > 0 && alpha < 1 ? 1e9 : 0.0;
          o.compute_parents = run++ % 2 == 0;
          expect_right_result(A, s, o, parted.bfs(s, o),
                              name + ", " + std::to_string(parts) + " parts built on the GPU, alpha " +
                                  std::to_string(alpha) + ", source " + std::to_string(s));
        }
    }
}

TEST(PartitionedBfs, PartsBuiltOnTheGpuMatchOnePartCuda) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the GPU parts need one";
  PartitionedBfsOptions o;
  o.device = gbcuda::Device::Cuda;
  check_parts_built_on_gpus(symmetric_graphs_on_the_gpu(), o, {1, 2, 3});
  // A directed graph, and a graph only on the host, are cut on the host.
  const auto directed = gbtest::random_graph({1000, 6.0, true, true, true, 0.05, 3});
  (void)directed.csr(Backend::Cuda);
  o.parts = 2;
  EXPECT_FALSE(gbcuda::PartitionedGraph(directed, o).built_on_gpus());
  EXPECT_FALSE(gbcuda::PartitionedGraph(gbcuda::generate_graph("kron:10:8", Backend::Host), o).built_on_gpus());
}

TEST(PartitionedBfs, NcclOnEveryGpuMatchesOnePartCuda) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!gbcuda::nccl_available()) GTEST_SKIP() << "this build has no NCCL";
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) GTEST_SKIP() << "NCCL parts need 2 GPUs or more";
  for (const auto& [name, A] : graphs())
    for (double alpha : kAlphas) {
      PartitionedBfsOptions o;
      o.compute_parents = alpha != 0.0;  // Beamer's rule levels only, always pulling or pushing with parents
      o.parts = count;
      o.transport = Transport::Nccl;
      o.alpha = alpha;
      o.beta = alpha > 0 && alpha < 1 ? 1e9 : 0.0;
      expect_same_levels(A, A.nrows() / 3, o, name + " over NCCL on " + std::to_string(count) + " GPUs");
    }
  PartitionedBfsOptions o;
  o.transport = Transport::Nccl;
  check_parts_built_on_gpus(symmetric_graphs_on_the_gpu(), o, {count});
}
#endif

}  // namespace
