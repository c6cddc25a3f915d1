// connected_components (components.hpp): Afforest's union-find on the host (OpenMP, atomics on
// the parent array) and the driver of the GPU's (lib/cuda/components.cu), the same steps.
#include "gbcuda/components.hpp"

#include <atomic>
#include <new>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/detail/components.hpp"
#include "gbcuda/detail/views.hpp"

#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {
namespace detail {

Vid most_frequent_root(const std::vector<Vid>& roots) {
  std::unordered_map<Vid, int> count;
  Vid best = roots.empty() ? 0 : roots[0];
  int best_count = 0;
  for (Vid r : roots)
    if (const int c = ++count[r]; c > best_count || (c == best_count && r < best)) best = r, best_count = c;
  return best;
}

}  // namespace detail

namespace {

using detail::kComponentSamples;
using detail::kSampledNeighbours;

Vid load(Vid& x) { return std::atomic_ref<Vid>(x).load(std::memory_order_relaxed); }

// The root of x's tree, halving the path on the way (parent[v] <= v always, roots point to
// themselves). Concurrent halvings only ever move a vertex closer to its root.
Vid root_of(Vid* parent, Vid x) {
  Vid cur = load(parent[x]);
  if (cur != x) {
    Vid prev = x, next;
    while (cur > (next = load(parent[cur]))) {
      std::atomic_ref<Vid>(parent[prev]).store(next, std::memory_order_relaxed);
      prev = cur;
      cur = next;
    }
  }
  return cur;
}

// Joins the trees of u and v: the root with the larger id is hooked under the other's.
void link(Vid* parent, Vid u, Vid v) {
  Vid ru = root_of(parent, u), rv = root_of(parent, v);
  while (ru != rv) {
    if (ru < rv) std::swap(ru, rv);
    Vid expected = ru;
    if (std::atomic_ref<Vid>(parent[ru]).compare_exchange_strong(expected, rv, std::memory_order_relaxed)) return;
    ru = root_of(parent, expected);  // ru was hooked meanwhile: go on from its new root
    rv = root_of(parent, rv);
  }
}

// Links, for every vertex u whose parent is not `skip`, its entries from the `from`-th to before
// the `to`-th (to < 0: to the end of the row).
void link_entries(const detail::CsrView<bool>& a, Vid* parent, Offset from, Offset to, Vid skip) {
#pragma omp parallel for schedule(dynamic, 1024)
  for (Index u = 0; u < a.nrows; ++u) {
    if (load(parent[u]) == skip) continue;
    const Offset begin = a.row_ptr[u] + from,
                 end = to < 0 ? a.row_ptr[u + 1] : std::min(a.row_ptr[u + 1], a.row_ptr[u] + to);
    for (Offset p = begin; p < end; ++p) link(parent, static_cast<Vid>(u), a.col_idx[p]);
  }
}

// Every vertex pointed at its root. The walk writes nothing on the way: a halving racing with
// another vertex's final write could put back an ancestor that is not the root.
void flatten(Vid* parent, Index n) {
#pragma omp parallel for schedule(static)
  for (Index v = 0; v < n; ++v) {
    Vid cur = load(parent[v]), next;
    while (cur > (next = load(parent[cur]))) cur = next;
    std::atomic_ref<Vid>(parent[v]).store(cur, std::memory_order_relaxed);
  }
}

void host_components(const detail::CsrView<bool>& a, bool symmetric, Vid* parent) {
  const Index n = a.nrows;
  std::iota(parent, parent + n, Vid(0));
  Vid skip = -1;
  Offset from = 0;
  if (symmetric && n > 0) {
    link_entries(a, parent, 0, kSampledNeighbours, -1);
    flatten(parent, n);
    std::vector<Vid> roots(kComponentSamples);
    for (int i = 0; i < kComponentSamples; ++i) roots[std::size_t(i)] = parent[detail::component_sample(i, n)];
    skip = detail::most_frequent_root(roots);
    from = kSampledNeighbours;
  }
  link_entries(a, parent, from, -1, skip);
  flatten(parent, n);
}

}  // namespace

template <class T>
Vector<std::int64_t> connected_components(const Matrix<T>& A, Backend where) try {
  if (A.nrows() != A.ncols())
    throw Error(Status::InvalidValue, "connected_components: the matrix is " + std::to_string(A.nrows()) + " x " +
                                          std::to_string(A.ncols()) + ", not square");
  const Index n = A.nrows();
  const bool symmetric = A.is_symmetric_structure();
  detail::VectorStore<std::int64_t> s = detail::VectorStore<std::int64_t>::empty(n, where);
  s.form = VectorForm::Dense;
  s.nvals = n;
  s.values = detail::Array<std::int64_t>(static_cast<std::size_t>(n), where);
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    detail::Array<Vid> parent(static_cast<std::size_t>(n), Backend::Cuda);
    detail::cuda::connected_components(detail::value_free(detail::view(A.csr(Backend::Cuda))), symmetric,
                                       parent.data());
    detail::TypedValues labels;
    labels.values = parent.data();
    labels.type = detail::ValueType::Int32;
    detail::cuda::cast_values<std::int64_t>(s.values.data(), labels, n);
    return Vector<std::int64_t>(std::move(s));
  }
#endif
  std::vector<Vid> parent = detail::host_vector<Vid>(static_cast<std::size_t>(n));
  host_components(detail::value_free(detail::view(A.csr(Backend::Host))), symmetric, parent.data());
  std::int64_t* out = s.values.data();
#pragma omp parallel for schedule(static)
  for (Index v = 0; v < n; ++v) out[v] = parent[std::size_t(v)];
  return Vector<std::int64_t>(std::move(s));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("connected_components");
}

#define GBCUDA_INSTANTIATE_COMPONENTS(T) template Vector<std::int64_t> connected_components(const Matrix<T>&, Backend);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_COMPONENTS)
#undef GBCUDA_INSTANTIATE_COMPONENTS

}  // namespace gbcuda
