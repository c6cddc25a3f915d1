// The library's threading model, on the host and the CUDA backend: operations on distinct objects
// from different host threads are safe; a Matrix used read-only by many threads at once is safe,
// including the caches it builds on first use (transpose, degrees, symmetry, the copy in the other
// backend's memory); concurrent writes to one object are the caller's error (not tested).
//
//   ManyAlgorithms      8 threads, each running BFS (gbcuda::bfs and examples/bfs), SSSP
//                       (examples/sssp) and PageRank (examples/pagerank) on a graph of its own,
//                       while all of them also run BFS and products on one shared matrix that is
//                       freshly built each round, so its caches are built by the threads racing to
//                       use it first. Results equal single-threaded runs made beforehand on
//                       identical but separate matrices (and GraphBLAS's levels, Dijkstra's
//                       distances, plain loops' products).
//   HandedBetweenThreads  a Vector (and a Matrix) made and written on one thread, read and written
//                       on another, then read on the first, with only host-side synchronisation
//                       (join, promise) in between: on the GPU, work enqueued by one thread must be
//                       ordered before another thread's use.
//   DestroyedOnAnotherThread  a Vector written on one thread and destroyed on another (also after
//                       the writer has exited); memory allocated next must not be disturbed.
//
// Under ThreadSanitizer (make sanitize: build-tsan, label "threads") these also check that the
// library's own memory accesses are ordered. Sizes are small so that the test runs in seconds
// there too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <latch>
#include <limits>
#include <optional>
#include <queue>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "bfs/bfs.hpp"
#include "gbcuda/gbcuda.hpp"
#include "pagerank/pagerank.hpp"
#include "sssp/sssp.hpp"
#include "support/graphblas_ref.hpp"
#include "support/graphs.hpp"

namespace {

using gbcuda::Backend;
using gbcuda::Index;
using gbcuda::Matrix;
using gbcuda::Offset;
using gbcuda::Vector;

constexpr int kThreads = 8;
constexpr int kRounds = 3;

std::string str(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// "" when a and b are equal, else their first difference (gtest would print whole vectors).
template <class T>
std::string difference(const std::vector<T>& got, const std::vector<T>& expected) {
  if (got.size() != expected.size())
    return "length " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == expected[i]))
      return "at " + std::to_string(i) + ": " + str(double(got[i])) + ", expected " + str(double(expected[i]));
  return "";
}
// The same, to a relative tolerance.
std::string difference(const std::vector<double>& got, const std::vector<double>& expected, double rel) {
  if (got.size() != expected.size())
    return "length " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - expected[i]) <= rel * std::abs(expected[i])))
      return "at " + std::to_string(i) + ": " + str(got[i]) + ", expected " + str(expected[i]);
  return "";
}

// ---- the graphs -----------------------------------------------------------------------------------
// Thread t's own graph in round r: a few thousand vertices, of four kinds (symmetric generated,
// directed generated, directed random with loops and duplicates). On the CUDA backend half of the
// generated ones are built in GPU memory, so their host copy is the lazily made one. The same
// arguments build an identical matrix (generators are pure functions of spec and seed).
std::uint64_t own_seed(int t, int r) { return std::uint64_t(1000 * r + t + 1); }

Matrix<bool> own_graph(int t, int r, Backend b) {
  const std::uint64_t seed = own_seed(t, r);
  const Backend gen = b == Backend::Cuda && t % 2 == 1 ? Backend::Cuda : Backend::Host;
  switch (t % 4) {
    case 0: return gbcuda::generate_graph("urand:12:8", gen, seed);
    case 1: return gbcuda::generate_graph("kron:12:8", gen, seed);
    case 2: return gbcuda::generate_graph("randout:3000:6", gen, seed);
    default: return gbtest::random_graph({3500, 6.0, true, true, true, 0.02, seed});
  }
}

// The shared matrix of round r: directed random, undirected random (its symmetry is found by the
// first thread that asks), and a directed generated one (built in GPU memory on the CUDA backend).
Matrix<bool> shared_graph(int r, Backend b) {
  switch (r % 3) {
    case 0: return gbtest::random_graph({4000, 8.0, true, false, true, 0.01, std::uint64_t(77 + r)});
    case 1: return gbtest::random_graph({4000, 8.0, false, true, false, 0.0, std::uint64_t(77 + r)});
    default: return gbcuda::generate_graph("randout:4000:8", b, std::uint64_t(77 + r));
  }
}

// G with weights 1..20 drawn from the seed (quarters for floating point, so that sums are exact).
template <class T>
Matrix<T> weighted(const Matrix<bool>& G, std::uint64_t seed) {
  const auto& g = G.csr(Backend::Host);
  std::vector<Index> I, J;
  std::vector<T> X;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> w(1, 20);
  for (Index i = 0; i < g.nrows; ++i)
    for (Offset p = g.row_ptr[i]; p < g.row_ptr[i + 1]; ++p) {
      I.push_back(i);
      J.push_back(g.col_idx[p]);
      X.push_back(std::is_floating_point_v<T> ? T(w(rng)) / T(4) : T(w(rng)));
    }
  return Matrix<T>::from_coo(g.nrows, g.ncols, I, J, X);
}

// A vertex with out-edges, searched from `start` on.
Index source_from(const Matrix<bool>& A, Index start) {
  const auto& a = A.csr(Backend::Host);
  for (Index k = 0; k < a.nrows; ++k) {
    const Index v = (start + k) % a.nrows;
    if (a.row_ptr[v + 1] > a.row_ptr[v]) return v;
  }
  return 0;
}

// Dijkstra, for the SSSP distances (infinity: unreachable).
template <class T>
std::vector<double> dijkstra(const Matrix<T>& A, Index source) {
  const auto& a = A.csr(Backend::Host);
  std::vector<double> d(std::size_t(a.nrows), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, Index>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  d[std::size_t(source)] = 0;
  heap.push({0.0, source});
  while (!heap.empty()) {
    const auto [du, u] = heap.top();
    heap.pop();
    if (du > d[std::size_t(u)]) continue;
    for (Offset p = a.row_ptr[u]; p < a.row_ptr[u + 1]; ++p) {
      const Index v = a.col_idx[p];
      const double nd = du + double(a.is_iso() ? a.iso_value : a.values[p]);
      if (nd < d[std::size_t(v)]) {
        d[std::size_t(v)] = nd;
        heap.push({nd, v});
      }
    }
  }
  return d;
}

// ---- what one thread computes ---------------------------------------------------------------------
struct BfsOut {
  std::vector<std::int32_t> level;
  std::string valid;  // validate_bfs's verdict ("" = valid)
};

struct OwnOut {
  BfsOut bfs, example_bfs;
  std::vector<double> distance;  // SSSP, infinity where unreachable
  std::vector<double> rank;      // PageRank
  int rank_iterations = 0;
};

// Products and caches of the shared matrix S: out- and in-degrees (S.out_degrees(), S * 1, 1' * S),
// y = S x and z = x' S over PLUS_TIMES for a dense and a sparse x, symmetry, S', S + S'.
struct SharedOut {
  BfsOut bfs, example_bfs;
  std::vector<Index> out_degrees, in_degrees;
  std::vector<std::int64_t> row_counts, col_counts;
  std::vector<double> y_dense, z_dense, y_sparse, z_sparse;
  bool symmetric = false;
  Index transpose_nvals = 0;
  Index symmetrized_nvals = 0;  // S + S'
};

gbcuda::BfsOptions bfs_options(Backend b, int variant) {
  gbcuda::BfsOptions o;
  o.device = b == Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  o.compute_parents = variant % 2 == 0;
  o.level_loop = variant % 4 < 2 ? gbcuda::LevelLoop::Fused : gbcuda::LevelLoop::Algebra;
  return o;
}

template <class T>
BfsOut run_bfs(const Matrix<T>& A, Index source, Backend b, int variant) {
  const gbcuda::BfsResult r = gbcuda::bfs(A, source, bfs_options(b, variant));
  return {r.level, gbcuda::validate_bfs(A, source, r)};
}

template <class T>
BfsOut run_example_bfs(const Matrix<T>& A, Index source, Backend b) {
  example::BfsOutput out = example::bfs(A, source, b);
  gbcuda::BfsResult r;
  r.level = out.level;
  r.parent = std::move(out.parent);
  return {std::move(out.level), gbcuda::validate_bfs(A, source, r)};
}

template <class T>
std::vector<double> run_sssp(const Matrix<T>& W, Index source, Backend b) {
  const example::SsspOutput<T> out = example::sssp(W, source, b);
  std::vector<double> d(out.distance.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = out.distance[i] == example::unreachable<T>() ? std::numeric_limits<double>::infinity()
                                                        : double(out.distance[i]);
  return d;
}

// x(i) = i % 7 + 1, every entry (dense) or every 61st (sparse), in b.
Vector<double> product_input(Index n, bool dense, Backend b) {
  std::vector<Index> idx;
  std::vector<double> vals;
  for (Index i = 0; i < n; i += dense ? 1 : 61) {
    idx.push_back(i);
    vals.push_back(double(i % 7 + 1));
  }
  return Vector<double>::from_tuples(n, idx, vals, b);
}

void shared_products(const Matrix<bool>& S, bool dense, Backend b, SharedOut& out) {
  using namespace gbcuda;
  const Vector<double> x = product_input(S.nrows(), dense, b);
  Vector<double> y(S.nrows(), b), z(S.ncols(), b);
  mxv(y, no_mask, no_accum, PlusTimes<double>{}, S, x);
  vxm(z, no_mask, no_accum, PlusTimes<double>{}, x, S);
  (dense ? out.y_dense : out.y_sparse) = y.to_dense_vector(0.0);
  (dense ? out.z_dense : out.z_sparse) = z.to_dense_vector(0.0);
}

void shared_counts(const Matrix<bool>& S, Backend b, SharedOut& out) {
  using namespace gbcuda;
  const Vector<bool> ones = Vector<bool>::full(S.ncols(), true, b);
  Vector<std::int64_t> rows(S.nrows(), b), cols(S.ncols(), b);
  mxv(rows, no_mask, no_accum, PlusPair<std::int64_t>{}, S, ones);
  vxm(cols, no_mask, no_accum, PlusPair<std::int64_t>{}, ones, S);
  out.row_counts = rows.to_dense_vector(0);
  out.col_counts = cols.to_dense_vector(0);
}

void shared_caches(const Matrix<bool>& S, Backend b, SharedOut& out) {
  out.symmetric = S.is_symmetric_structure();
  out.in_degrees = S.in_degrees();
  out.transpose_nvals = S.transpose().nvals();
  if (b == Backend::Cuda) {  // both copies, whichever the matrix was built in
    out.transpose_nvals = S.transpose().csr(Backend::Cuda).nvals();
    (void)S.csr(Backend::Cuda);
  }
  out.out_degrees = S.out_degrees();
  out.symmetrized_nvals = S.symmetrized().nvals();
}

// The shared matrix's steps, each a first use of some cache when it runs first.
std::vector<std::function<void()>> shared_steps(const Matrix<bool>& S, Index source, Backend b, int variant,
                                                SharedOut& out) {
  return {
      [&S, source, b, variant, &out] { out.bfs = run_bfs(S, source, b, variant); },
      [&S, b, &out] { shared_products(S, true, b, out); },
      [&S, b, &out] { shared_caches(S, b, out); },
      [&S, source, b, &out] { out.example_bfs = run_example_bfs(S, source, b); },
      [&S, b, &out] { shared_counts(S, b, out); },
      [&S, b, &out] { shared_products(S, false, b, out); },
  };
}

// Thread t's steps on its own graph G: both BFS, SSSP over G weighted (int32 or double), PageRank.
std::vector<std::function<void()>> own_steps(const Matrix<bool>& G, int t, int r, Index source, Backend b,
                                             OwnOut& out) {
  return {
      [&G, source, b, t, &out] { out.bfs = run_bfs(G, source, b, t + 1); },
      [&G, t, r, source, b, &out] {
        if (t % 2 == 0) out.distance = run_sssp(weighted<std::int32_t>(G, own_seed(t, r)), source, b);
        else out.distance = run_sssp(weighted<double>(G, own_seed(t, r)), source, b);
      },
      [&G, source, b, &out] { out.example_bfs = run_example_bfs(G, source, b); },
      [&G, b, &out] {
        const auto pr = example::pagerank<bool, double>(G, b);
        out.rank = pr.rank;
        out.rank_iterations = pr.iterations;
      },
  };
}

// ---- references, computed beforehand on one thread --------------------------------------------------
struct OwnReference {
  Index source = 0;
  std::vector<std::int32_t> level;
  std::vector<double> distance, rank;
  int rank_iterations = 0;
};

struct SharedReference {
  std::vector<Index> sources;                     // one per thread
  std::vector<std::vector<std::int32_t>> levels;  // per thread
  std::vector<Index> out_degrees, in_degrees;
  std::vector<double> y_dense, z_dense, y_sparse, z_sparse;
  bool symmetric = false;
  Index nvals = 0;
  Index symmetrized_nvals = 0;
};

OwnReference own_reference(int t, int r, Backend b) {
  const Matrix<bool> G = own_graph(t, r, b);
  OwnReference ref;
  ref.source = source_from(G, Index(own_seed(t, r) * 7919) % G.nrows());
  const BfsOut levels = run_bfs(G, ref.source, b, t + 1);
  EXPECT_EQ(levels.valid, "");
  EXPECT_EQ(difference(levels.level, gbtest::graphblas_bfs_levels(G, ref.source)), "") << "GraphBLAS's levels";
  ref.level = levels.level;
  if (t % 2 == 0) {
    const auto W = weighted<std::int32_t>(G, own_seed(t, r));
    ref.distance = run_sssp(W, ref.source, b);
    EXPECT_EQ(difference(ref.distance, dijkstra(W, ref.source)), "") << "Dijkstra's distances";
  } else {
    const auto W = weighted<double>(G, own_seed(t, r));
    ref.distance = run_sssp(W, ref.source, b);
    EXPECT_EQ(difference(ref.distance, dijkstra(W, ref.source)), "") << "Dijkstra's distances";
  }
  const auto pr = example::pagerank<bool, double>(G, b);
  ref.rank = pr.rank;
  ref.rank_iterations = pr.iterations;
  return ref;
}

SharedReference shared_reference(int r, Backend b) {
  const Matrix<bool> S = shared_graph(r, b);
  const auto& a = S.csr(Backend::Host);
  SharedReference ref;
  ref.nvals = S.nvals();
  const Index n = a.nrows;
  ref.out_degrees.assign(std::size_t(n), 0);
  ref.in_degrees.assign(std::size_t(n), 0);
  ref.y_dense.assign(std::size_t(n), 0.0);
  ref.z_dense.assign(std::size_t(n), 0.0);
  ref.y_sparse.assign(std::size_t(n), 0.0);
  ref.z_sparse.assign(std::size_t(n), 0.0);
  std::vector<std::vector<Index>> cols_of(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i)
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const Index j = a.col_idx[p];
      ++ref.out_degrees[std::size_t(i)];
      ++ref.in_degrees[std::size_t(j)];
      ref.y_dense[std::size_t(i)] += double(j % 7 + 1);
      ref.z_dense[std::size_t(j)] += double(i % 7 + 1);
      if (j % 61 == 0) ref.y_sparse[std::size_t(i)] += double(j % 7 + 1);
      if (i % 61 == 0) ref.z_sparse[std::size_t(j)] += double(i % 7 + 1);
      cols_of[std::size_t(i)].push_back(j);
    }
  // Entries (i, j) of S without (j, i): S is symmetric when there are none, and S + S' has them twice.
  Index one_way = 0;
  for (Index i = 0; i < n; ++i)
    for (Index j : cols_of[std::size_t(i)])
      if (!std::binary_search(cols_of[std::size_t(j)].begin(), cols_of[std::size_t(j)].end(), i)) ++one_way;
  ref.symmetric = one_way == 0;
  ref.symmetrized_nvals = ref.nvals + one_way;
  for (int t = 0; t < kThreads; ++t) {
    ref.sources.push_back(source_from(S, Index(t * 499 + r) % n));
    const BfsOut levels = run_bfs(S, ref.sources.back(), b, t);
    EXPECT_EQ(levels.valid, "");
    EXPECT_EQ(difference(levels.level, gbtest::graphblas_bfs_levels(S, ref.sources.back())), "")
        << "GraphBLAS's levels, shared graph, thread " << t;
    ref.levels.push_back(levels.level);
  }
  return ref;
}

std::vector<std::int64_t> as_int64(const std::vector<Index>& v) { return {v.begin(), v.end()}; }

// What f threw ("" if nothing): no exception may leave a worker thread (std::terminate), and a
// main thread that throws must still release and join its workers.
template <class F>
std::string attempt(F&& f) {
  try {
    f();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

// Runs f(i, start) on n threads, where start() waits until every thread has called it (a latch),
// and returns what each threw ("" if nothing). A thread that throws before start() still counts
// as arrived, so the others do not wait for it forever.
std::vector<std::string> run_together(int n, const std::function<void(int, const std::function<void()>&)>& f) {
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  std::latch go(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      bool arrived = false;
      const std::function<void()> start = [&] {
        arrived = true;
        go.arrive_and_wait();
      };
      errors[std::size_t(i)] = attempt([&] { f(i, start); });
      if (!arrived) go.count_down();
    });
  for (auto& th : threads) th.join();
  return errors;
}

class Threads : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda && !gbcuda::cuda_available())
      GTEST_SKIP() << "no CUDA device: the CUDA backend's threads need a GPU";
  }
};

TEST_P(Threads, ManyAlgorithms) {
  const Backend b = GetParam();
  for (int r = 0; r < kRounds; ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    // References first, single-threaded, on matrices of their own.
    const SharedReference sref = shared_reference(r, b);
    std::vector<OwnReference> oref;
    for (int t = 0; t < kThreads; ++t) oref.push_back(own_reference(t, r, b));
    if (HasFailure()) return;

    const Matrix<bool> S = shared_graph(r, b);  // fresh: no cache built yet
    std::vector<OwnOut> own(kThreads);
    std::vector<SharedOut> shared(kThreads);
    const std::vector<std::string> errors = run_together(kThreads, [&](int t, const std::function<void()>& start) {
      const Matrix<bool> G = own_graph(t, r, b);
      auto mine = own_steps(G, t, r, oref[std::size_t(t)].source, b, own[std::size_t(t)]);
      auto ours = shared_steps(S, sref.sources[std::size_t(t)], b, t, shared[std::size_t(t)]);
      // Each thread starts with a different shared step (the first use of different caches), then
      // alternates with its own work.
      std::rotate(ours.begin(), ours.begin() + t % ours.size(), ours.end());
      start();
      for (std::size_t k = 0; k < std::max(mine.size(), ours.size()); ++k) {
        if (k < ours.size()) ours[k]();
        if (k < mine.size()) mine[k]();
      }
    });

    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      const std::size_t i = std::size_t(t);
      ASSERT_EQ(errors[i], "");
      const OwnOut& o = own[i];
      const OwnReference& oe = oref[i];
      EXPECT_EQ(difference(o.bfs.level, oe.level), "") << "own graph, bfs";
      EXPECT_EQ(o.bfs.valid, "") << "own graph, bfs";
      EXPECT_EQ(difference(o.example_bfs.level, oe.level), "") << "own graph, example bfs";
      EXPECT_EQ(o.example_bfs.valid, "") << "own graph, example bfs";
      EXPECT_EQ(difference(o.distance, oe.distance), "") << "own graph, sssp";
      // Sums made by atomics (GPU) may differ in the last bits between runs.
      EXPECT_EQ(difference(o.rank, oe.rank, 1e-9), "") << "own graph, pagerank";
      EXPECT_EQ(o.rank_iterations, oe.rank_iterations) << "own graph, pagerank";

      const SharedOut& s = shared[i];
      EXPECT_EQ(difference(s.bfs.level, sref.levels[i]), "") << "shared graph, bfs";
      EXPECT_EQ(s.bfs.valid, "") << "shared graph, bfs";
      EXPECT_EQ(difference(s.example_bfs.level, sref.levels[i]), "") << "shared graph, example bfs";
      EXPECT_EQ(s.example_bfs.valid, "") << "shared graph, example bfs";
      EXPECT_EQ(difference(s.out_degrees, sref.out_degrees), "") << "shared graph, out_degrees()";
      EXPECT_EQ(difference(s.in_degrees, sref.in_degrees), "") << "shared graph, in_degrees()";
      EXPECT_EQ(difference(s.row_counts, as_int64(sref.out_degrees)), "") << "shared graph, S * 1";
      EXPECT_EQ(difference(s.col_counts, as_int64(sref.in_degrees)), "") << "shared graph, 1' * S";
      EXPECT_EQ(difference(s.y_dense, sref.y_dense), "") << "shared graph, S x (dense x)";
      EXPECT_EQ(difference(s.z_dense, sref.z_dense), "") << "shared graph, x' S (dense x)";
      EXPECT_EQ(difference(s.y_sparse, sref.y_sparse), "") << "shared graph, S x (sparse x)";
      EXPECT_EQ(difference(s.z_sparse, sref.z_sparse), "") << "shared graph, x' S (sparse x)";
      EXPECT_EQ(s.symmetric, sref.symmetric) << "shared graph, is_symmetric_structure()";
      EXPECT_EQ(s.transpose_nvals, sref.nvals) << "shared graph, transpose()";
      EXPECT_EQ(s.symmetrized_nvals, sref.symmetrized_nvals) << "shared graph, symmetrized()";
    }
  }
}

// ---- objects that change threads ------------------------------------------------------------------
// On the GPU long enough (32 MiB of doubles) that a kernel still runs when the next thread's work
// is enqueued; on the host the length changes nothing but the time (under TSan, 5-15x).
Index long_length(Backend b) { return b == Backend::Cuda ? Index(1) << 22 : Index(1) << 16; }

// v(i) = value everywhere, by a few enqueued operations (none waits for the GPU).
void fill_by_steps(Vector<double>& v, double value) {
  using namespace gbcuda;
  assign(v, no_mask, no_accum, 1.0);
  for (int k = 0; k < 4; ++k) apply(v, no_mask, no_accum, bind_second(Times<double>{}, 2.0), v);  // 16
  apply(v, no_mask, no_accum, bind_second(Plus<double>{}, value - 16.0), v);
}

std::string check_all(const Vector<double>& v, double value) {
  const std::vector<double> d = v.to_dense_vector(-1.0);
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] != value) return "at " + std::to_string(i) + ": " + str(d[i]) + ", expected " + str(value);
  return "";
}

// Fails a promise that is not yet satisfied (so that whoever waits on it sees the problem).
template <class T>
void fail(std::promise<T>& p, const std::string& problem) {
  try {
    p.set_exception(std::make_exception_ptr(std::runtime_error(problem)));
  } catch (const std::future_error&) {  // it was satisfied
  }
}

TEST_P(Threads, HandedBetweenThreads) {
  using namespace gbcuda;
  const Backend b = GetParam();
  const Index len = long_length(b);
  // Made and written here; the last writes are enqueued, not waited for.
  Vector<double> v(len, b);
  fill_by_steps(v, 3.0);

  // A worker reads it (a reduce) and writes it, then ends; only join() orders it with what follows.
  double seen_sum = 0;
  std::string first_problem;
  std::thread first([&] {
    first_problem = attempt([&] {
      seen_sum = reduce(PlusMonoid<double>{}, v);
      apply(v, no_mask, no_accum, bind_second(Times<double>{}, 2.0), v);  // 6
      apply(v, no_mask, no_accum, bind_second(Plus<double>{}, 1.0), v);   // 7
    });
  });
  first.join();
  ASSERT_EQ(first_problem, "");
  EXPECT_EQ(seen_sum, 3.0 * double(len));
  EXPECT_EQ(check_all(v, 7.0), "");  // reads what the worker enqueued

  // Handed to a worker that stays alive and back, through promises: the main thread enqueues and
  // hands over; the worker enqueues and hands back; nobody waits for the GPU in between. A matrix
  // is used first on the worker (its device copy and transpose are made there), then here.
  const Matrix<bool> M = gbtest::random_graph({3000, 6.0, true, false, false, 0.0, 5});
  std::promise<Vector<double>> to_worker, to_main, product_done;
  apply(v, no_mask, no_accum, bind_second(Minus<double>{}, 0.0), v);  // still 7, enqueued
  to_worker.set_value(std::move(v));
  std::string second_problem;
  std::thread second([&] {
    second_problem = attempt([&] {
      Vector<double> w = to_worker.get_future().get();
      apply(w, no_mask, no_accum, bind_second(Minus<double>{}, 2.0), w);  // 5
      Vector<double> x = Vector<double>::full(M.ncols(), 1.0, w.backend());
      Vector<double> y(M.nrows(), w.backend());
      vxm(y, no_mask, no_accum, PlusTimes<double>{}, x, M);  // the in-degrees
      product_done.set_value(std::move(y));
      apply(w, no_mask, no_accum, bind_second(Times<double>{}, 3.0), w);  // 15
      to_main.set_value(std::move(w));
    });
    fail(product_done, second_problem);
    fail(to_main, second_problem);
  });
  std::vector<double> in_deg, out_deg_here, in_deg_here;
  const std::string main_problem = attempt([&] {
    Vector<double> y = product_done.get_future().get();
    Vector<double> back = to_main.get_future().get();
    // Read here while the worker may still be alive.
    EXPECT_EQ(check_all(back, 15.0), "");
    in_deg = y.to_dense_vector(0.0);
    Vector<double> x = Vector<double>::full(M.nrows(), 1.0, b);
    Vector<double> out_deg(M.nrows(), b), in_deg2(M.ncols(), b);
    mxv(out_deg, no_mask, no_accum, PlusTimes<double>{}, M, x);
    vxm(in_deg2, no_mask, no_accum, PlusTimes<double>{}, x, M);
    out_deg_here = out_deg.to_dense_vector(0.0);
    in_deg_here = in_deg2.to_dense_vector(0.0);
  });
  second.join();
  ASSERT_EQ(second_problem, "");
  ASSERT_EQ(main_problem, "");
  std::vector<double> expected_out, expected_in;
  for (Index d : M.out_degrees()) expected_out.push_back(double(d));
  for (Index d : M.in_degrees()) expected_in.push_back(double(d));
  EXPECT_EQ(difference(in_deg, expected_in), "") << "x' M on the worker";
  EXPECT_EQ(difference(out_deg_here, expected_out), "") << "M x on the main thread";
  EXPECT_EQ(difference(in_deg_here, expected_in), "") << "x' M on the main thread";
}

TEST_P(Threads, DestroyedOnAnotherThread) {
  using namespace gbcuda;
  const Backend b = GetParam();
  const Index len = long_length(b);
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE("repeat " + std::to_string(k));
    // Written by a worker that has ended, destroyed here, then memory of the same size taken here.
    {
      std::optional<Vector<double>> v;
      std::string worker_problem;
      std::thread writer([&] {
        worker_problem = attempt([&] {
          v.emplace(len, b);
          fill_by_steps(*v, 5.0);
        });
      });
      writer.join();
      ASSERT_EQ(worker_problem, "");
      v.reset();
      Vector<double> next(len, b);
      fill_by_steps(next, 9.0);
      EXPECT_EQ(check_all(next, 9.0), "") << "after destroying the ended writer's vector";
    }
    // Written by a live worker, destroyed here while it goes on with other work.
    {
      std::promise<Vector<double>> handed;
      std::promise<void> finish;
      std::string worker_problem;
      std::thread writer([&] {
        worker_problem = attempt([&] {
          Vector<double> v(len, b);
          fill_by_steps(v, 5.0);
          handed.set_value(std::move(v));
          Vector<double> own(len, b);
          fill_by_steps(own, 11.0);
          const std::string wrong = check_all(own, 11.0);
          if (!wrong.empty()) throw std::runtime_error("the writer's next vector: " + wrong);
        });
        fail(handed, worker_problem);
        finish.get_future().wait();
      });
      const std::string main_problem = attempt([&] {
        { Vector<double> v = handed.get_future().get(); }  // destroyed here
        Vector<double> next(len, b);
        fill_by_steps(next, 9.0);
        EXPECT_EQ(check_all(next, 9.0), "") << "after destroying the live writer's vector";
      });
      finish.set_value();
      writer.join();
      EXPECT_EQ(worker_problem, "");
      EXPECT_EQ(main_problem, "");
    }
    // Written here, destroyed by a worker, which then makes its own.
    {
      Vector<double> v(len, b);
      fill_by_steps(v, 5.0);
      std::string worker_problem;
      std::thread destroyer([&, v = std::move(v)]() mutable {
        worker_problem = attempt([&] {
          { Vector<double> dead = std::move(v); }
          Vector<double> next(len, b);
          fill_by_steps(next, 13.0);
          const std::string wrong = check_all(next, 13.0);
          if (!wrong.empty()) throw std::runtime_error(wrong);
        });
      });
      destroyer.join();
      EXPECT_EQ(worker_problem, "") << "after destroying the main thread's vector on a worker";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Threads, testing::Values(Backend::Host, Backend::Cuda),
                         [](const testing::TestParamInfo<Backend>& i) {
                           return std::string(gbcuda::to_string(i.param));
                         });

}  // namespace
