// The baselines' table and the step that runs one on a matrix.
#include "baselines/baselines.hpp"

namespace gbcuda::baselines {

namespace bl = detail::cuda::baselines;

const std::vector<Baseline>& all() {
  static const std::vector<Baseline> table = {
      {"rodinia", "baseline: Rodinia two-kernel BFS (frontier/updating masks, host-polled flag)", false, bl::rodinia},
      {"vertex-topdown", "baseline: one thread per vertex, top-down", false, bl::vertex_top_down},
      {"vertex-bottomup", "baseline: one thread per vertex, bottom-up", true, bl::vertex_bottom_up},
      {"edge-coo", "baseline: one thread per edge (COO), every edge every level", false, bl::edge_coo},
      {"block-per-vertex", "baseline: one block per frontier vertex, threads over its edges", false,
       bl::block_per_vertex},
  };
  return table;
}

const Baseline* find(const std::string& name) {
  for (const Baseline& b : all())
    if (name == b.name) return &b;
  return nullptr;
}

template <class T>
BfsResult run(const Baseline& b, const Matrix<T>& A, Index source, bool parents, bool collect_stats) {
  if (A.nrows() != A.ncols() || A.nrows() == 0)
    throw Error(Status::InvalidValue, std::string(b.name) + " needs a square, non-empty matrix");
  if (source < 0 || source >= A.nrows())
    throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range");
  const Csr<T>& out = A.csr(Backend::Cuda);
  bl::Graph g;
  g.n = g.n_in = A.nrows();
  g.nnz = A.nvals();
  g.out_ptr = out.row_ptr.data();
  g.out_idx = out.col_idx.data();
  if (b.needs_in_edges) {
    const Csr<T>& in = A.is_symmetric_structure() ? out : A.transpose().csr(Backend::Cuda);
    g.in_ptr = in.row_ptr.data();
    g.in_idx = in.col_idx.data();
  }
  BfsResult r;
  r.source = source;
  r.backend = Backend::Cuda;
  b.run(g, source, parents, collect_stats, r);
  detail::complete_bfs_result(A, r);
  return r;
}

#define GBCUDA_INSTANTIATE_BASELINE_RUN(T) \
  template BfsResult run<T>(const Baseline&, const Matrix<T>&, Index, bool, bool);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_BASELINE_RUN)

}  // namespace gbcuda::baselines
