// Breadth-first search as a sequence of masked matrix-vector products (one per level),
// written once against the public API, so it runs on either backend.
//
//   frontier<!visited, structural, replace> = frontier' * A      (ANY_PAIR, or ANY_SECONDI for parents)
//   level<frontier, structural> = d
//
// The direction of each product (push = sparse frontier scatter along A's rows; pull = gather
// over A' rows with early exit) is chosen per level by choose_direction() below.
#include "gbcuda/bfs.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "algorithms/kernel_policy.hpp"
#include "gbcuda/operations.hpp"
#if GBCUDA_HAVE_CUDA
#include "baselines/baselines.hpp"
#include "cuda/frontier/frontier_bfs.hpp"
#endif

namespace gbcuda {

const std::vector<BfsKernelInfo>& bfs_kernels() {
  static const std::vector<BfsKernelInfo> table = {
      {BfsKernel::Auto, "auto",
       "choose per level: the algebra on the host; on CUDA the frontier kernels by the calibrated cost model", false},
      {BfsKernel::PullSpmv, "pull-spmv",
       "every level a pull: masked SpMV over A' with a bitmap frontier and early exit (the algebra)", false},
      {BfsKernel::PushSpmspv, "push-spmspv",
       "every level a push: masked SpMSpV along A's rows from a sparse frontier (the algebra)", false},
      {BfsKernel::QueueWarp, "queue-warp",
       "push with per-warp shared-memory queues merged into block queues, one global atomic per block", true},
      {BfsKernel::QueueBlock, "queue-block", "push with one shared-memory queue per block, one global atomic per block",
       true},
      {BfsKernel::QueueGlobal, "queue-global", "push appending each new vertex to the global queue with its own atomic",
       true},
      {BfsKernel::SingleBlock, "single-block",
       "one block runs many narrow levels per launch; hands over to block queues when full", true},
      {BfsKernel::Rodinia, "rodinia", "baseline: Rodinia two-kernel BFS (frontier/updating masks, host-polled flag)",
       true},
      {BfsKernel::VertexTopDown, "vertex-topdown", "baseline: one thread per vertex, top-down", true},
      {BfsKernel::VertexBottomUp, "vertex-bottomup", "baseline: one thread per vertex, bottom-up", true},
      {BfsKernel::EdgeCoo, "edge-coo", "baseline: one thread per edge (COO), every edge every level", true},
      {BfsKernel::BlockPerVertex, "block-per-vertex", "baseline: one block per frontier vertex, threads over its edges",
       true},
  };
  return table;
}

const char* to_string(BfsKernel k) {
  for (const auto& info : bfs_kernels())
    if (info.kernel == k) return info.name;
  return "unknown";
}

BfsKernel parse_bfs_kernel(const std::string& name) {
  std::string names;
  for (const auto& info : bfs_kernels()) {
    if (name == info.name) return info.kernel;
    names += names.empty() ? "" : ", ";
    names += info.name;
  }
  throw Error(Status::InvalidValue, "unknown kernel '" + name + "' (expected one of: " + names + ")");
}

const char* to_string(LevelLoop l) { return l == LevelLoop::Device ? "device" : "host"; }

LevelLoop parse_level_loop(const std::string& name) {
  if (name == "device") return LevelLoop::Device;
  if (name == "host") return LevelLoop::Host;
  throw Error(Status::InvalidValue, "unknown level loop '" + name + "' (expected device or host)");
}

bool bfs_kernel_uses_level_loop(BfsKernel kernel, Backend backend) {
  return backend == Backend::Cuda &&
         (kernel == BfsKernel::Auto || kernel == BfsKernel::QueueWarp || kernel == BfsKernel::QueueBlock ||
          kernel == BfsKernel::QueueGlobal || kernel == BfsKernel::SingleBlock);
}

void check_bfs_kernel(BfsKernel kernel, Backend backend) {
  for (const auto& info : bfs_kernels())
    if (info.kernel == kernel && info.cuda_only && backend != Backend::Cuda)
      throw Error(Status::InvalidValue, std::string("kernel '") + info.name + "' runs only on the CUDA backend");
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// LAGraph's rule: go pull once the frontier's out-edges exceed the unexplored edges / alpha
// while the frontier grows; go back to push once it has shrunk below n / beta.
Direction choose_direction(const BfsOptions& o, Direction current, Index frontier_edges, Index unexplored_edges,
                           Index frontier_size, Index previous_frontier_size, Index n) {
  if (o.direction != Direction::Auto) return o.direction;
  const bool growing = frontier_size > previous_frontier_size;
  if (current == Direction::Push) {
    if (growing && double(frontier_edges) > double(unexplored_edges) / o.alpha) return Direction::Pull;
    return Direction::Push;
  }
  if (!growing && double(frontier_size) < double(n) / o.beta) return Direction::Push;
  return Direction::Pull;
}

// Sum of `degrees` over the entries of `frontier`: degrees<frontier, struct, replace> then reduce.
template <class F>
Index masked_degree_sum(const Vector<std::int64_t>& degrees, const Vector<F>& frontier, Vector<std::int64_t>& scratch) {
  apply(scratch, frontier, no_accum, Identity<std::int64_t>{}, degrees, desc::RS);
  return reduce(PlusMonoid<std::int64_t>{}, scratch);
}

// The level loop over frontier type F: bool (levels only, ANY_PAIR) or int64_t (parents,
// ANY_SECONDI gives the index of the frontier vertex that reached each new vertex).
template <class T, class F, class S>
void level_loop(const Matrix<T>& A, Index source, const BfsOptions& o, Backend b, BfsResult& r, const S& semiring) {
  const Index n = A.nrows();
  const Index nnz = A.nvals();
  const bool with_parents = std::is_same_v<F, std::int64_t>;
  const bool need_edge_counts = o.direction == Direction::Auto || o.collect_stats;

  Vector<std::int64_t> out_deg, in_deg, scratch;
  if (need_edge_counts) {
    const auto& od = A.out_degrees();
    const auto& id = A.in_degrees();
    std::vector<Index> all(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) all[i] = i;
    out_deg = Vector<std::int64_t>::from_tuples(n, all, od, b);
    in_deg = Vector<std::int64_t>::from_tuples(n, all, id, b);
    scratch = Vector<std::int64_t>(n, b);
  }

  const auto t0 = Clock::now();
  Vector<std::int32_t> level(n, b);
  level.set_element(source, 0);
  Vector<F> frontier(n, b);
  frontier.set_element(source, F(with_parents ? source : 1));
  Vector<std::int64_t> parent;
  if constexpr (with_parents) {
    parent = Vector<std::int64_t>(n, b);
    parent.set_element(source, source);
  }

  Direction dir = o.direction == Direction::Pull ? Direction::Pull : Direction::Push;
  Index frontier_size = 1, previous_size = 0;
  Index explored_out = 0;  // out-edges of vertices already expanded
  Index visited_in = need_edge_counts ? in_deg.element(source).value_or(0) : 0;
  for (int d = 1;; ++d) {
    const auto tl = Clock::now();
    Index frontier_edges = 0;
    if (need_edge_counts) frontier_edges = masked_degree_sum(out_deg, frontier, scratch);
    dir = choose_direction(o, dir, frontier_edges, nnz - explored_out, frontier_size, previous_size, n);
    const Index examined = dir == Direction::Push ? frontier_edges : nnz - visited_in;
    explored_out += frontier_edges;

    // The masked product: the next frontier is every unvisited vertex with an in-neighbour in
    // the current one. The mask is the visited set (level's structure, or parent's).
    const Descriptor dsc = desc::RSC.with_direction(dir);
    if constexpr (with_parents) vxm(frontier, parent, no_accum, semiring, frontier, A, dsc);
    else vxm(frontier, level, no_accum, semiring, frontier, A, dsc);

    previous_size = frontier_size;
    frontier_size = frontier.nvals();
    if (frontier_size > 0) {
      assign(level, frontier, no_accum, std::int32_t(d), desc::S);
      if constexpr (with_parents) apply(parent, frontier, no_accum, Identity<std::int64_t>{}, frontier, desc::S);
      if (need_edge_counts) visited_in += masked_degree_sum(in_deg, frontier, scratch);
    }
    if (o.collect_stats) {
      detail::synchronize(b);
      r.levels.push_back({d, previous_size, examined, dir,
                          dir == Direction::Pull ? BfsKernel::PullSpmv : BfsKernel::PushSpmspv, seconds_since(tl)});
    }
    if (frontier_size == 0) break;
  }
  detail::synchronize(b);
  r.seconds = seconds_since(t0);
  r.level = level.to_dense_vector(-1);
  r.vertices_reached = level.nvals();
  if constexpr (with_parents) r.parent = parent.to_dense_vector(-1);
}

}  // namespace

template <class T>
BfsResult bfs(const Matrix<T>& A, Index source, const BfsOptions& options) {
  if (A.nrows() != A.ncols())
    throw Error(Status::InvalidValue,
                "BFS needs a square matrix, got " + std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()));
  if (A.nrows() == 0) throw Error(Status::InvalidValue, "BFS on an empty graph (0 vertices)");
  if (source < 0 || source >= A.nrows())
    throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range [0, " +
                                          std::to_string(A.nrows() - 1) + "]");
  BfsResult r;
  r.source = source;
  r.backend = resolve_device(options.device);
  const BfsKernel kernel = options.kernel;
  check_bfs_kernel(kernel, r.backend);
  // The algebra path: the level loop below, one vxm per level.
  const bool algebra = kernel == BfsKernel::PullSpmv || kernel == BfsKernel::PushSpmspv ||
                       (kernel == BfsKernel::Auto && r.backend == Backend::Host);
  if (algebra) {
    BfsOptions o = options;
    if (kernel == BfsKernel::PullSpmv) o.direction = Direction::Pull;
    if (kernel == BfsKernel::PushSpmspv) o.direction = Direction::Push;
    // Move the graph (and its transpose, which pull walks) to the backend before timing starts.
    A.csr(r.backend);
    if (o.direction != Direction::Push) A.transpose().csr(r.backend);
    if (o.compute_parents) level_loop<T, std::int64_t>(A, source, o, r.backend, r, AnySecondI<std::int64_t>{});
    else level_loop<T, bool>(A, source, o, r.backend, r, AnyPair<bool>{});
  } else {
#if GBCUDA_HAVE_CUDA
    // The frontier engine or a baseline, with the graph resident on the GPU.
    const Csr<T>& out = A.csr(Backend::Cuda);
    detail::cuda::frontier::DeviceGraph g;
    g.n = A.nrows();
    g.nnz = A.nvals();
    g.out_ptr = out.row_ptr.data();
    g.out_idx = out.col_idx.data();
    const bool needs_in =
        kernel == BfsKernel::VertexBottomUp || (kernel == BfsKernel::Auto && options.direction != Direction::Push);
    if (needs_in) {
      const Csr<T>& in = A.is_symmetric_structure() ? out : A.transpose().csr(Backend::Cuda);
      g.in_ptr = in.row_ptr.data();
      g.in_idx = in.col_idx.data();
    }
    namespace bl = detail::cuda::baselines;
    const bool p = options.compute_parents, st = options.collect_stats;
    switch (kernel) {
      case BfsKernel::Rodinia: bl::rodinia(g, source, p, st, r); break;
      case BfsKernel::VertexTopDown: bl::vertex_top_down(g, source, p, st, r); break;
      case BfsKernel::VertexBottomUp: bl::vertex_bottom_up(g, source, p, st, r); break;
      case BfsKernel::EdgeCoo: bl::edge_coo(g, source, p, st, r); break;
      case BfsKernel::BlockPerVertex: bl::block_per_vertex(g, source, p, st, r); break;
      default: {
        detail::KernelPolicy policy = detail::cuda::frontier::calibrated_policy(options.level_loop);
        policy.forced = kernel;
        // Push only: frontier_edges > unexplored / 0 = infinity never holds, so pull is never chosen.
        if (kernel == BfsKernel::Auto && options.direction == Direction::Push) policy.alpha = 0.0;
        if (kernel == BfsKernel::Auto && options.direction == Direction::Pull) policy.forced = BfsKernel::PullSpmv;
        detail::cuda::frontier::run_bfs(g, source, p, policy, detail::cuda::frontier::Capacities{}, st,
                                        options.level_loop, r);
      }
    }
#else
    throw Error(Status::NoDevice, "this copy of gbcuda was built without the CUDA backend");
#endif
  }

  std::int32_t max_level = 0;
  for (auto l : r.level) max_level = std::max(max_level, l);
  r.num_levels = max_level + 1;
  const auto& deg = A.out_degrees();
  Index edges = 0;
  for (Index v = 0; v < A.nrows(); ++v)
    if (r.level[v] >= 0) edges += deg[v];
  r.edges_traversed = edges;
  return r;
}

template <class T>
std::string validate_bfs(const Matrix<T>& A, Index source, const BfsResult& r) {
  const Index n = A.nrows();
  auto s = [](Index x) { return std::to_string(x); };
  if (Index(r.level.size()) != n) return "level has " + s(Index(r.level.size())) + " entries, expected " + s(n);
  if (source < 0 || source >= n) return "source out of range";
  if (r.level[source] != 0) return "source level is " + s(r.level[source]) + ", expected 0";
  const Csr<T>& a = A.csr(Backend::Host);
  for (Index v = 0; v < n; ++v) {
    if (r.level[v] < -1) return "vertex " + s(v) + " has level " + s(r.level[v]);
    if (r.level[v] == 0 && v != source) return "vertex " + s(v) + " has level 0 but is not the source";
    if (r.level[v] < 0) continue;
    for (Offset p = a.row_ptr[v]; p < a.row_ptr[v + 1]; ++p) {
      const Index w = a.col_idx[p];
      if (r.level[w] < 0) return "edge " + s(v) + "->" + s(w) + " leaves the reached set";
      if (r.level[w] > r.level[v] + 1)
        return "edge " + s(v) + "->" + s(w) + " spans levels " + s(r.level[v]) + " -> " + s(r.level[w]);
    }
  }
  // Every reached vertex other than the source needs an in-neighbour one level up (levels are
  // then exact BFS distances, given the edge check above).
  const Csr<T>& at = A.transpose().csr(Backend::Host);
  for (Index v = 0; v < n; ++v) {
    if (r.level[v] <= 0) continue;
    bool found = false;
    for (Offset p = at.row_ptr[v]; p < at.row_ptr[v + 1] && !found; ++p)
      found = r.level[at.col_idx[p]] == r.level[v] - 1;
    if (!found) return "vertex " + s(v) + " at level " + s(r.level[v]) + " has no in-neighbour one level up";
  }
  if (r.parent.empty()) return "";
  if (Index(r.parent.size()) != n) return "parent has " + s(Index(r.parent.size())) + " entries, expected " + s(n);
  if (r.parent[source] != source) return "parent of the source is " + s(r.parent[source]) + ", expected itself";
  for (Index v = 0; v < n; ++v) {
    if (v == source) continue;
    const Index p = r.parent[v];
    if (r.level[v] < 0) {
      if (p != -1) return "unreached vertex " + s(v) + " has parent " + s(p);
      continue;
    }
    if (p < 0 || p >= n) return "vertex " + s(v) + " has parent " + s(p) + " out of range";
    if (r.level[p] != r.level[v] - 1)
      return "parent " + s(p) + " of vertex " + s(v) + " is at level " + s(r.level[p]) + ", expected " +
             s(r.level[v] - 1);
    const Vid* b = a.col_idx.data() + a.row_ptr[p];
    const Vid* e = a.col_idx.data() + a.row_ptr[p + 1];
    if (!std::binary_search(b, e, static_cast<Vid>(v)))
      return "parent " + s(p) + " of vertex " + s(v) + " has no edge to it";
  }
  return "";
}

#define GBCUDA_INSTANTIATE_BFS(T)                                        \
  template BfsResult bfs<T>(const Matrix<T>&, Index, const BfsOptions&); \
  template std::string validate_bfs<T>(const Matrix<T>&, Index, const BfsResult&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_BFS)

}  // namespace gbcuda
