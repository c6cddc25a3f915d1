// Breadth-first search as a sequence of masked matrix-vector products (one per level), written
// once against the public API, so it runs on either backend (LAGraph's BFS):
//
//   q<!visited, structural, replace> = q' * A      (ANY_PAIR, or ANY_SECONDI for parents)
//   nq = nvals(q); stop when 0
//   level<q, structural> = depth                    (and parent<q, structural> = q)
//
// Each product's kernel (push or pull, and which push) is chosen by the product itself, by the
// library's one policy (product_policy.hpp), from device-side counts on the GPU. On CUDA the
// default is the fused path: the same products, kernel bodies and policy inside one persistent
// kernel (lib/cuda/product/fused_bfs.cu), without a launch or a read-back per level.
#include "gbcuda/bfs.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "gbcuda/operations.hpp"

namespace gbcuda {

const char* to_string(ProductKernel k) {
  switch (k) {
    case ProductKernel::Auto: return "auto";
    case ProductKernel::Pull: return "pull";
    case ProductKernel::QueueWarp: return "queue-warp";
    case ProductKernel::QueueBlock: return "queue-block";
    case ProductKernel::QueueGlobal: return "queue-global";
    case ProductKernel::SingleBlock: return "single-block";
  }
  return "unknown";
}

void check_bfs_kernel(BfsKernel kernel, Backend backend) {
  // The host backend has one push and one pull: the queue kernels are the GPU's.
  const bool cuda_only = kernel != BfsKernel::Auto && kernel != BfsKernel::Pull;
  if (cuda_only && backend != Backend::Cuda)
    throw Error(Status::InvalidValue, std::string("kernel '") + to_string(kernel) + "' runs only on the CUDA backend");
}

const char* to_string(LevelLoop l) { return l == LevelLoop::Fused ? "fused" : "algebra"; }

LevelLoop parse_level_loop(const std::string& name) {
  if (name == "fused") return LevelLoop::Fused;
  if (name == "algebra") return LevelLoop::Algebra;
  throw Error(Status::InvalidValue, "unknown level loop '" + name + "' (expected fused or algebra)");
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The trace a product left on its output (ProductTrace): the kernel that ran, what it examined.
// On CUDA one read of the vector's device tally.
template <class F>
detail::ProductTrace product_trace(const Vector<F>& q) {
  const auto& s = q.store();
  if (s.where == Backend::Host || s.tally.empty()) return s.trace;
  detail::DeviceTally t{};
  detail::copy_bytes(&t, Backend::Host, s.tally.data(), Backend::Cuda, sizeof(t));
  return t.trace;
}

// The algebra loop over frontier type F: bool (levels only, ANY_PAIR) or int64_t (parents,
// ANY_SECONDI gives the index of the frontier vertex that reached each new vertex).
template <class T, class F, class S>
void algebra_bfs(const Matrix<T>& A, Index source, const BfsOptions& o, Backend b, BfsResult& r, const S& semiring) {
  const Index n = A.nrows();
  constexpr bool with_parents = std::is_same_v<F, std::int64_t>;
  Descriptor d = desc::RSC;
  d.direction = o.direction;
  d.kernel = o.kernel;
  d.alpha = o.alpha;
  d.beta = o.beta;

  const auto t0 = Clock::now();
  // The visited set (level, or parent) stays a bitmap: read in place as the mask, and written
  // only at the new frontier's positions, so a level costs its frontier's work, not O(n).
  Vector<std::int32_t> level(n, b);
  level.set_form_control(FormControl::Bitmap);
  level.set_element(source, 0);
  Vector<F> q(n, b);
  q.set_element(source, F(with_parents ? source : 1));
  Vector<std::int64_t> parent;
  if constexpr (with_parents) {
    parent = Vector<std::int64_t>(n, b);
    parent.set_form_control(FormControl::Bitmap);
    parent.set_element(source, source);
  }
  Index frontier = 1;
  for (int depth = 1;; ++depth) {
    const auto tl = Clock::now();
    // q<!visited> = q' A: the unvisited vertices with an in-neighbour in q (the visited set is
    // level's structure, or parent's).
    if constexpr (with_parents) vxm(q, parent, no_accum, semiring, q, A, d);
    else vxm(q, level, no_accum, semiring, q, A, d);
    const Index nq = q.nvals();
    if (o.collect_stats) {
      const detail::ProductTrace tr = product_trace(q);
      const auto k = static_cast<BfsKernel>(tr.kernel);
      BfsLevelStats st;
      st.level = depth;
      st.frontier_size = frontier;
      st.edges_examined = tr.examined;
      st.direction = tr.pulled ? Direction::Pull : Direction::Push;
      st.kernel = k;
      st.seconds = seconds_since(tl);
      r.levels.push_back(st);
    }
    if (nq == 0) break;
    assign(level, q, no_accum, std::int32_t(depth), desc::S);
    if constexpr (with_parents) assign(parent, q, no_accum, q, desc::S);
    frontier = nq;
  }
  detail::synchronize(b);
  r.seconds = seconds_since(t0);
  r.level = level.to_dense_vector(-1);
  r.vertices_reached = level.nvals();
  if constexpr (with_parents) r.parent = parent.to_dense_vector(-1);
}

}  // namespace

template <class T>
void detail::check_bfs_arguments(const Matrix<T>& A, Index source) {
  if (A.nrows() != A.ncols())
    throw Error(Status::InvalidValue,
                "BFS needs a square matrix, got " + std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()));
  if (A.nrows() == 0) throw Error(Status::InvalidValue, "BFS on an empty graph (0 vertices)");
  if (source < 0 || source >= A.nrows())
    throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range [0, " +
                                          std::to_string(A.nrows() - 1) + "]");
}

template <class T>
BfsResult bfs(const Matrix<T>& A, Index source, const BfsOptions& options) {
  detail::check_bfs_arguments(A, source);
  BfsResult r;
  r.source = source;
  r.backend = resolve_device(options.device);
  check_bfs_kernel(options.kernel, r.backend);
  const Backend b = r.backend;
  // Move the graph (and the rows a pull searches: A' unless A is symmetric) to the backend
  // before timing starts.
  const bool may_pull =
      options.direction != Direction::Push && (options.kernel == BfsKernel::Auto || options.kernel == BfsKernel::Pull);
  const Csr<T>& out = A.csr(b);
  [[maybe_unused]] const Csr<T>* in = nullptr;  // the fused path's pull rows (a CUDA build's)
  if (may_pull) in = A.is_symmetric_structure() ? &out : &A.transpose().csr(b);

  bool fused = false;
#if GBCUDA_HAVE_CUDA
  fused = b == Backend::Cuda && options.level_loop == LevelLoop::Fused && detail::cuda::fused_bfs_available();
  if (fused) {
    const detail::CsrView<bool> rows = detail::value_free(detail::view(out));
    const detail::CsrView<bool> in_rows = in ? detail::value_free(detail::view(*in)) : detail::CsrView<bool>{};
    const detail::ProductPolicy policy =
        detail::policy_for_call(product_policy(b), options.direction, options.kernel, options.alpha, options.beta);
    const bool tail =
        options.barrier_free_tail && options.kernel == BfsKernel::Auto && options.direction != Direction::Pull;
    detail::cuda::fused_bfs(rows, in_rows, source, policy, options.compute_parents, options.collect_stats, tail, r);
  }
#endif
  if (!fused) {
#if GBCUDA_HAVE_CUDA
    if (b == Backend::Cuda) product_policy(b);  // calibrated before the timed search
#endif
    if (options.compute_parents) algebra_bfs<T, std::int64_t>(A, source, options, b, r, AnySecondI<std::int64_t>{});
    else algebra_bfs<T, bool>(A, source, options, b, r, AnyPair<bool>{});
  }
  r.level_loop = fused ? LevelLoop::Fused : LevelLoop::Algebra;
  detail::complete_bfs_result(A, r);
  return r;
}

template <class T>
BfsResult bfs(const RelabelledGraph<T>& g, Index source, const BfsOptions& options) {
  if (g.relabelling.size() != g.matrix.nrows())
    throw Error(Status::InvalidValue, "relabelled graph: a relabelling of " + std::to_string(g.relabelling.size()) +
                                          " vertices beside a matrix of " + std::to_string(g.matrix.nrows()));
  return to_original_ids(bfs(g.matrix, g.relabelling.new_id(source), options), g.relabelling);
}

BfsResult to_original_ids(BfsResult r, const Relabelling& relabelling) {
  r.level = relabelling.to_original_order(r.level);
  if (!r.parent.empty()) {
    std::vector<std::int64_t> parent = relabelling.to_original_order(r.parent);
    for (std::int64_t& p : parent)
      if (p >= 0) p = relabelling.original_id(p);
    r.parent = std::move(parent);
  }
  r.source = relabelling.original_id(r.source);
  return r;
}

template <class T>
void detail::complete_bfs_result(const Matrix<T>& A, BfsResult& r) {
  std::int32_t max_level = 0;
  for (auto l : r.level) max_level = std::max(max_level, l);
  r.num_levels = max_level + 1;
  const auto& deg = A.out_degrees();
  Index edges = 0;
  for (Index v = 0; v < A.nrows(); ++v)
    if (r.level[v] >= 0) edges += deg[v];
  r.edges_traversed = edges;
}

namespace {
// The problem `check` reports for the lowest vertex that has one ("" when none has): the vertices
// are checked in parallel, the message made once, for that vertex.
template <class Check>
std::string first_problem(Index n, const Check& check) {
  Index first = n;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first)
  for (Index v = 0; v < n; ++v)
    if (v < first && !check(v).empty()) first = v;
  return first < n ? check(first) : std::string();
}
}  // namespace

template <class T>
std::string validate_bfs(const Matrix<T>& A, Index source, const BfsResult& r) {
  const Index n = A.nrows();
  auto s = [](Index x) { return std::to_string(x); };
  if (Index(r.level.size()) != n) return "level has " + s(Index(r.level.size())) + " entries, expected " + s(n);
  if (source < 0 || source >= n) return "source out of range";
  if (r.level[source] != 0) return "source level is " + s(r.level[source]) + ", expected 0";
  const Csr<T>& a = A.csr(Backend::Host);
  std::string problem = first_problem(n, [&](Index v) -> std::string {
    if (r.level[v] < -1) return "vertex " + s(v) + " has level " + s(r.level[v]);
    if (r.level[v] == 0 && v != source) return "vertex " + s(v) + " has level 0 but is not the source";
    if (r.level[v] < 0) return {};
    for (Offset p = a.row_ptr[v]; p < a.row_ptr[v + 1]; ++p) {
      const Index w = a.col_idx[p];
      if (r.level[w] < 0) return "edge " + s(v) + "->" + s(w) + " leaves the reached set";
      if (r.level[w] > r.level[v] + 1)
        return "edge " + s(v) + "->" + s(w) + " spans levels " + s(r.level[v]) + " -> " + s(r.level[w]);
    }
    return {};
  });
  if (!problem.empty()) return problem;
  // Every reached vertex other than the source needs an in-neighbour one level up (levels are
  // then exact BFS distances, given the edge check above). A symmetric structure is its own
  // transpose (a GPU's transpose of kron:27:16 needs 64 GiB of keys).
  const Csr<T>& at = A.known_symmetric_structure().value_or(false) ? a : A.transpose().csr(Backend::Host);
  problem = first_problem(n, [&](Index v) -> std::string {
    if (r.level[v] <= 0) return {};
    for (Offset p = at.row_ptr[v]; p < at.row_ptr[v + 1]; ++p)
      if (r.level[at.col_idx[p]] == r.level[v] - 1) return {};
    return "vertex " + s(v) + " at level " + s(r.level[v]) + " has no in-neighbour one level up";
  });
  if (!problem.empty() || r.parent.empty()) return problem;
  if (Index(r.parent.size()) != n) return "parent has " + s(Index(r.parent.size())) + " entries, expected " + s(n);
  if (r.parent[source] != source) return "parent of the source is " + s(r.parent[source]) + ", expected itself";
  return first_problem(n, [&](Index v) -> std::string {
    if (v == source) return {};
    const Index p = r.parent[v];
    if (r.level[v] < 0) return p != -1 ? "unreached vertex " + s(v) + " has parent " + s(p) : std::string();
    if (p < 0 || p >= n) return "vertex " + s(v) + " has parent " + s(p) + " out of range";
    if (r.level[p] != r.level[v] - 1)
      return "parent " + s(p) + " of vertex " + s(v) + " is at level " + s(r.level[p]) + ", expected " +
             s(r.level[v] - 1);
    const Vid* b = a.col_idx.data() + a.row_ptr[p];
    const Vid* e = a.col_idx.data() + a.row_ptr[p + 1];
    if (!std::binary_search(b, e, static_cast<Vid>(v)))
      return "parent " + s(p) + " of vertex " + s(v) + " has no edge to it";
    return {};
  });
}

#define GBCUDA_INSTANTIATE_BFS(T)                                                 \
  template BfsResult bfs<T>(const Matrix<T>&, Index, const BfsOptions&);          \
  template BfsResult bfs<T>(const RelabelledGraph<T>&, Index, const BfsOptions&); \
  template void detail::complete_bfs_result<T>(const Matrix<T>&, BfsResult&);     \
  template void detail::check_bfs_arguments<T>(const Matrix<T>&, Index);          \
  template std::string validate_bfs<T>(const Matrix<T>&, Index, const BfsResult&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_BFS)

}  // namespace gbcuda
