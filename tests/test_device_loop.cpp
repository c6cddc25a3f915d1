// device_loop (device_loop.hpp): on the host backend the plain loop; on the CUDA backend the same
// iterations and the same answers with the body repeated by one CUDA graph, whatever the parity of
// the iteration count (the graph holds the body twice), and the host-driven loop, with a note,
// for a body that reads a value back inside. The examples' loops (BFS levels, SSSP) are checked
// against GraphBLAS in test_examples.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gbcuda/gbcuda.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using namespace gbcuda;

struct Search {
  std::vector<std::int64_t> parent;
  LoopResult loop;
};

// Parents by the loop: q<!pi, replace, structural> = q' A over ANY_SECONDI; pi<q> = q.
Search parents_by_loop(const Matrix<bool>& A, Index source, Backend where, LoopOptions o = {}) {
  const Index n = A.nrows();
  Vector<std::int64_t> pi(n, where), q(n, where);
  pi.set_form_control(FormControl::Bitmap);
  pi.set_element(source, source);
  q.set_element(source, source);
  Search s;
  s.loop = device_loop(
      [&] {
        vxm(q, pi, no_accum, AnySecondI<std::int64_t>{}, q, A, desc::RSC);
        assign(pi, q, no_accum, q, desc::S);
      },
      q, o);
  s.parent = pi.to_dense_vector(-1);
  return s;
}

// The levels the parents imply (-1 where a vertex has none).
std::vector<std::int32_t> levels_of(const std::vector<std::int64_t>& parent, Index source) {
  std::vector<std::int32_t> level(parent.size(), -1);
  for (std::size_t v = 0; v < parent.size(); ++v) {
    if (parent[v] < 0) continue;
    std::int32_t d = 0;
    for (std::int64_t u = std::int64_t(v); u != source; u = parent[std::size_t(u)]) ++d;
    level[v] = d;
  }
  return level;
}

std::vector<std::pair<std::string, Matrix<bool>>> graphs() {
  std::vector<std::pair<std::string, Matrix<bool>>> g;
  g.emplace_back("path 40 (directed)", gbtest::path_graph(40, true));
  g.emplace_back("path 41 (directed)", gbtest::path_graph(41, true));
  g.emplace_back("star 200", gbtest::star_graph(200));
  g.emplace_back("grid:12:9", generate_graph("grid:12:9", Backend::Host));
  g.emplace_back("kron:10:8", generate_graph("kron:10:8", Backend::Host));
  g.emplace_back("urand:11:4", generate_graph("urand:11:4", Backend::Host));
  return g;
}

void expect_valid(const Matrix<bool>& A, Index source, const Search& s) {
  BfsResult r;
  r.parent = s.parent;
  r.level = levels_of(s.parent, source);
  EXPECT_EQ(r.level, gbtest::graphblas_bfs_levels(A, source));
  EXPECT_EQ(validate_bfs(A, source, r), "");
}

TEST(LoopOnHost, IsThePlainLoop) {
  for (const auto& [name, A] : graphs()) {
    SCOPED_TRACE(name);
    const Search s = parents_by_loop(A, 0, Backend::Host);
    expect_valid(A, 0, s);
    EXPECT_FALSE(s.loop.on_device);
    // A BFS runs one more level than it has (the last finds nothing).
    EXPECT_EQ(s.loop.iterations, Index(gbtest::level_sizes(gbtest::graphblas_bfs_levels(A, 0)).size()));
  }
}

TEST(LoopOnHost, StopsAtTheIterationLimit) {
  const Matrix<bool> A = gbtest::path_graph(30, true);
  for (Index limit : {1, 2, 7}) {
    LoopOptions o;
    o.max_iterations = limit;
    const Search s = parents_by_loop(A, 0, Backend::Host, o);
    EXPECT_EQ(s.loop.iterations, limit);
    Index reached = 0;
    for (auto p : s.parent) reached += p >= 0;
    EXPECT_EQ(reached, limit + 1);
  }
  LoopOptions none;
  none.max_iterations = 0;
  try {
    parents_by_loop(A, 0, Backend::Host, none);
    FAIL() << "max_iterations 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::InvalidValue);
  }
}

// A loop until a sum falls to a tolerance, the sum reduced into a vector of size 1 and tested by
// select: x halves each iteration, so 1000 ones need 10 halvings for the sum to reach 1000/1024 < 1.
LoopResult halve_until_small(Backend where, std::vector<double>& x_out) {
  Vector<double> x = Vector<double>::full(1000, 1.0, where);
  Vector<double> sum(1, where), more(1, where);
  const LoopResult r = device_loop(
      [&] {
        apply(x, no_mask, no_accum, bind_second(Times<double>{}, 0.5), x);
        reduce(sum, no_accum, PlusMonoid<double>{}, x);
        select(more, no_mask, no_accum, ValueGt{}, sum, 1.0);
      },
      more);
  x_out = x.to_dense_vector(0.0);
  return r;
}

TEST(LoopOnHost, RunsUntilAReducedValueIsSmall) {
  std::vector<double> x;
  const LoopResult r = halve_until_small(Backend::Host, x);
  EXPECT_EQ(r.iterations, 10);
  EXPECT_EQ(x, std::vector<double>(1000, 1.0 / 1024));
}

class LoopCuda : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device: the loop's graph needs one";
  }
};

TEST_F(LoopCuda, ParentsMatchTheHostLoopOnTheDevice) {
  for (const auto& [name, A] : graphs()) {
    SCOPED_TRACE(name);
    const Search host = parents_by_loop(A, 0, Backend::Host);
    const Search gpu = parents_by_loop(A, 0, Backend::Cuda);
    expect_valid(A, 0, gpu);
    EXPECT_EQ(gpu.loop.iterations, host.loop.iterations);
    if (host.loop.iterations > 1) {
      EXPECT_TRUE(gpu.loop.on_device) << gpu.loop.note;
    }
  }
}

TEST_F(LoopCuda, StopsAtTheIterationLimitOfEitherParity) {
  const Matrix<bool> A = gbtest::path_graph(30, true);
  for (Index limit : {2, 3, 6, 7}) {
    SCOPED_TRACE(limit);
    LoopOptions o;
    o.max_iterations = limit;
    const Search s = parents_by_loop(A, 0, Backend::Cuda, o);
    EXPECT_TRUE(s.loop.on_device) << s.loop.note;
    EXPECT_EQ(s.loop.iterations, limit);
    Index reached = 0;
    for (auto p : s.parent) reached += p >= 0;
    EXPECT_EQ(reached, limit + 1);
  }
}

TEST_F(LoopCuda, RunsUntilAReducedValueIsSmallOnTheDevice) {
  std::vector<double> x;
  const LoopResult r = halve_until_small(Backend::Cuda, x);
  EXPECT_TRUE(r.on_device) << r.note;
  EXPECT_EQ(r.iterations, 10);
  EXPECT_EQ(x, std::vector<double>(1000, 1.0 / 1024));
}

TEST_F(LoopCuda, ABodyThatReadsBackRunsOnTheHost) {
  const Matrix<bool> A = generate_graph("grid:10:10", Backend::Host);
  const Index n = A.nrows();
  Vector<std::int64_t> pi(n, Backend::Cuda), q(n, Backend::Cuda);
  pi.set_element(0, 0);
  q.set_element(0, 0);
  Index seen = 0;
  const LoopResult r = device_loop(
      [&] {
        vxm(q, pi, no_accum, AnySecondI<std::int64_t>{}, q, A, desc::RSC);
        seen += q.nvals();  // a read-back: not capturable
        assign(pi, q, no_accum, q, desc::S);
      },
      q);
  EXPECT_FALSE(r.on_device);
  EXPECT_NE(r.note.find("waits for the GPU"), std::string::npos) << r.note;
  EXPECT_EQ(seen, n - 1);  // every vertex but the source, counted once
  Search s;
  s.parent = pi.to_dense_vector(-1);
  expect_valid(A, 0, s);

  LoopOptions strict;
  strict.require_device = true;
  Vector<std::int64_t> q2(n, Backend::Cuda), pi2(n, Backend::Cuda);
  pi2.set_element(0, 0);
  q2.set_element(0, 0);
  try {
    device_loop(
        [&] {
          vxm(q2, pi2, no_accum, AnySecondI<std::int64_t>{}, q2, A, desc::RSC);
          (void)q2.nvals();
          assign(pi2, q2, no_accum, q2, desc::S);
        },
        q2, strict);
    FAIL() << "require_device accepted a body that reads back";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NotImplemented);
  }
}

}  // namespace
