// The pull kernel (bottom-up, masked SpMV over A' with early exit): each unvisited vertex scans
// its in-edges and stops at the first in-neighbour in the frontier bitmap. One warp owns one
// 32-vertex word of the bitmaps, so the word of the next frontier comes from one vote and the
// visited word is updated by one plain store (no other warp touches it during the level). The
// next frontier is written both as a bitmap (for a following pull) and as a queue (for a push),
// appended with one atomic per warp.
#include "cuda/frontier/frontier_common.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

__global__ void queue_to_bitmap_kernel(const Vid* __restrict__ q, Index size, std::uint32_t* bm) {
  for (Index i = global_thread(); i < size; i += grid_threads()) {
    const Vid v = q[i];
    atomicOr(bm + (v >> 5), 1u << (v & 31));
  }
}

__global__ void __launch_bounds__(kQueueThreads)
    pull_kernel(SearchArgs a, int lvl, const std::uint32_t* __restrict__ fin, std::uint32_t* __restrict__ fout,
                Vid* __restrict__ out) {
  __shared__ ull s_sum;
  const Index n = a.g.n;
  const Index words = (n + 31) / 32;
  const Index nwarps = grid_threads() / 32;
  const unsigned lane = lane_id();
  ull new_edges = 0, examined = 0;
  for (Index w = global_thread() / 32; w < words; w += nwarps) {  // warp-uniform
    const std::uint32_t vis = a.visited[w];
    if (vis == kFullMask) {
      if (lane == 0) fout[w] = 0;
      continue;
    }
    const Index v = w * 32 + lane;
    bool found = false;
    Vid par = 0;
    if (v < n && !((vis >> lane) & 1u)) {
      const Offset b = a.g.in_ptr[v], e = a.g.in_ptr[v + 1];
      examined += static_cast<ull>(e - b);
      for (Offset p = b; p < e; ++p) {
        const Vid u = a.g.in_idx[p];
        if ((fin[u >> 5] >> (u & 31)) & 1u) {
          found = true;
          par = u;
          break;
        }
      }
    }
    const unsigned m = __ballot_sync(kFullMask, found);
    if (lane == 0) {
      fout[w] = m;
      if (m) a.visited[w] = vis | m;
    }
    if (m == 0) continue;
    if (found) {
      a.level[v] = lvl;
      if (a.parent) a.parent[v] = par;
      new_edges += static_cast<ull>(a.g.out_ptr[v + 1] - a.g.out_ptr[v]);
    }
    ull base = 0;
    if (lane == 0) base = atomicAdd(&a.ctl->next_size, ull(__popc(m)));
    base = __shfl_sync(kFullMask, base, 0);
    if (found) out[base + __popc(m & lanes_below())] = Vid(v);
  }
  block_add(new_edges, &a.ctl->next_edges, &s_sum);
  block_add(examined, &a.ctl->examined, &s_sum);
  finish_level(a, true);
}

}  // namespace

void launch_queue_to_bitmap(const Vid* q, Index size, std::uint32_t* bm, Index n) {
  const Index words = (n + 31) / 32;
  CUDA_CHECK(cudaMemsetAsync(bm, 0, std::size_t(words) * sizeof(std::uint32_t), 0));
  if (size == 0) return;
  queue_to_bitmap_kernel<<<grid_for(size), kBlock>>>(q, size, bm);
  CUDA_CHECK_LAUNCH();
}

void launch_pull(const SearchArgs& a, int lvl, const std::uint32_t* fin, std::uint32_t* fout, Vid* out) {
  if (!a.g.in_ptr) throw Error(Status::InvalidValue, "the pull kernel needs the in-edges (A') on the device");
  const Index words = (a.g.n + 31) / 32;
  const Index blocks = (words + kQueueThreads / 32 - 1) / (kQueueThreads / 32);
  const unsigned grid = unsigned(std::clamp<Index>(blocks, 1, Index(a.sms) * 16));
  pull_kernel<<<grid, kQueueThreads>>>(a, lvl, fin, fout, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gbcuda::detail::cuda::frontier
