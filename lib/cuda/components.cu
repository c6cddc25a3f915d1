// Connected components on the GPU (gbcuda/components.hpp): Afforest's union-find, one kernel a
// step, the parent array in device memory linked by compare-and-swap (ECL-CC's hooking: the
// larger root under the smaller, paths halved as they are walked). Races between halvings are
// benign: every write moves a vertex to an ancestor.
#include <vector>

#include "gbcuda/detail/components.hpp"
#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

__device__ __forceinline__ Vid load(const Vid* p) { return *static_cast<const volatile Vid*>(p); }

__device__ Vid root_of(Vid* parent, Vid x) {
  Vid cur = load(&parent[x]);
  if (cur != x) {
    Vid prev = x, next;
    while (cur > (next = load(&parent[cur]))) {
      parent[prev] = next;
      prev = cur;
      cur = next;
    }
  }
  return cur;
}

__device__ void link(Vid* parent, Vid u, Vid v) {
  Vid ru = root_of(parent, u), rv = root_of(parent, v);
  while (ru != rv) {
    if (ru < rv) {
      const Vid t = ru;
      ru = rv;
      rv = t;
    }
    const Vid old = atomicCAS(&parent[ru], ru, rv);
    if (old == ru) return;
    ru = root_of(parent, old);  // ru was hooked meanwhile: go on from its new root
    rv = root_of(parent, rv);
  }
}

__global__ void init_kernel(Vid* parent, Index n) {
  for (Index v = global_thread(); v < n; v += grid_threads()) parent[v] = static_cast<Vid>(v);
}

// Each vertex links its first `count` entries (one thread a vertex: the rows' first entries).
__global__ void link_first_kernel(CsrView<bool> a, Vid* parent, int count) {
  for (Index u = global_thread(); u < a.nrows; u += grid_threads()) {
    const Offset begin = a.row_ptr[u], end = min(a.row_ptr[u + 1], begin + count);
    for (Offset p = begin; p < end; ++p) link(parent, static_cast<Vid>(u), a.col_idx[p]);
  }
}

// A warp a vertex (rows of any length): unless its parent is `skip`, the vertex links its
// entries from the `from`-th on.
__global__ void link_rest_kernel(CsrView<bool> a, Vid* parent, int from, Vid skip) {
  const unsigned lane = threadIdx.x % 32;
  const Index warps = grid_threads() / 32;
  for (Index u = global_thread() / 32; u < a.nrows; u += warps) {
    if (load(&parent[u]) == skip) continue;  // the same value for every lane: the warp moves on
    const Offset end = a.row_ptr[u + 1];
    for (Offset p = a.row_ptr[u] + from + lane; p < end; p += 32) link(parent, static_cast<Vid>(u), a.col_idx[p]);
  }
}

// Every vertex pointed at its root. The walk writes nothing on the way: a halving racing with
// another vertex's final write could put back an ancestor that is not the root.
__global__ void flatten_kernel(Vid* parent, Index n) {
  for (Index v = global_thread(); v < n; v += grid_threads()) {
    Vid cur = load(&parent[v]), next;
    while (cur > (next = load(&parent[cur]))) cur = next;
    parent[v] = cur;
  }
}

__global__ void sample_kernel(const Vid* __restrict__ parent, Index n, Vid* __restrict__ roots) {
  const int i = static_cast<int>(global_thread());
  if (i < kComponentSamples) roots[i] = parent[component_sample(i, n)];
}

}  // namespace

void connected_components(const CsrView<bool>& a, bool symmetric, Vid* parent) {
  const Index n = a.nrows;
  if (n == 0) return;
  init_kernel<<<grid_for(n), kBlock, 0, stream()>>>(parent, n);
  CUDA_CHECK_LAUNCH();
  Vid skip = -1;
  int from = 0;
  if (symmetric) {
    link_first_kernel<<<grid_for(n), kBlock, 0, stream()>>>(a, parent, kSampledNeighbours);
    CUDA_CHECK_LAUNCH();
    flatten_kernel<<<grid_for(n), kBlock, 0, stream()>>>(parent, n);
    CUDA_CHECK_LAUNCH();
    Array<Vid> roots(kComponentSamples, Backend::Cuda);
    sample_kernel<<<grid_for(kComponentSamples), kBlock, 0, stream()>>>(parent, n, roots.data());
    CUDA_CHECK_LAUNCH();
    skip = most_frequent_root(roots.to_vector());  // one host wait: 4 KiB
    from = kSampledNeighbours;
  }
  link_rest_kernel<<<grid_for(n, 32), kBlock, 0, stream()>>>(a, parent, from, skip);
  CUDA_CHECK_LAUNCH();
  flatten_kernel<<<grid_for(n), kBlock, 0, stream()>>>(parent, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda
