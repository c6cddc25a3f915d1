// The level loop of the CUDA frontier engine (run_bfs).
//
// Where the per-level decision happens: on the device. Every level kernel closes its level
// itself (the last block to finish, or the single block's thread 0) by calling advance(), which
// updates the device-side counters (next frontier size, its out-edges, the unexplored edges) and
// evaluates choose_kernel() there. The host only launches what the device chose:
//   - narrow phases run inside the single-block kernel, many levels per launch, with no host
//     round trip at all (a 4093-level grid BFS is a few launches);
//   - every other level costs one small async copy of the control block into pinned memory and
//     one stream sync, after which the host launches the chosen kernel with a grid sized for the
//     frontier. Such levels have frontiers of thousands of vertices or more, whose kernels take
//     far longer than the ~10 us round trip, and there are few of them (kron: under ten).
// A CUDA graph that launches every candidate kernel per level (each exiting when not chosen)
// would remove that round trip but pay full-size empty grids for the unchosen kernels on every
// level and need a fixed grid; the device-side choice above keeps the door open to it (or to
// conditional graph nodes) without changing a kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <string>

#include "cuda/frontier/frontier_common.cuh"

namespace gbcuda::detail::cuda::frontier {
namespace {

__global__ void init_kernel(SearchArgs a, Index source, Vid* q) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const Vid s = Vid(source);
  a.level[s] = 0;
  if (a.parent) a.parent[s] = source;
  a.visited[s >> 5] |= 1u << (s & 31);
  q[0] = s;
  Control c{};
  c.frontier_size = 1;
  c.frontier_edges = static_cast<ull>(a.g.out_ptr[s + 1] - a.g.out_ptr[s]);
  c.prev_size = 0;
  c.unexplored_edges = static_cast<ull>(a.g.nnz);
  c.level = 1;
  c.pulling = 0;
  c.kernel = next_kernel(c, a);
  *a.ctl = c;
}

struct PinnedControl {
  Control* p = nullptr;
  PinnedControl() { CUDA_CHECK(cudaMallocHost(&p, sizeof(Control))); }
  ~PinnedControl() {
    if (p) cudaFreeHost(p);
  }
  PinnedControl(const PinnedControl&) = delete;
  PinnedControl& operator=(const PinnedControl&) = delete;
};

struct Event {
  cudaEvent_t e = nullptr;
  Event() { CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

double elapsed(const Event& a, const Event& b) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a.e, b.e));
  return double(ms) * 1e-3;
}

bool engine_kernel(BfsKernel k) {
  return k == BfsKernel::Auto || k == BfsKernel::PullSpmv || k == BfsKernel::QueueWarp ||
         k == BfsKernel::QueueBlock || k == BfsKernel::QueueGlobal || k == BfsKernel::SingleBlock;
}

constexpr int kRecordCapacity = 4096;  // per-level records of one single-block launch (stats)

}  // namespace

void run_bfs(const DeviceGraph& g, Index source, bool parents, const KernelPolicy& policy, const Capacities& caps,
             bool collect_stats, BfsResult& r) {
  const Index n = g.n;
  if (n <= 0) throw Error(Status::InvalidValue, "BFS on an empty graph (0 vertices)");
  if (n > Index(INT32_MAX)) throw Error(Status::InvalidValue, "the frontier engine needs fewer than 2^31 vertices");
  if (source < 0 || source >= n) throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range");
  if (!engine_kernel(policy.forced))
    throw Error(Status::InvalidValue, std::string("kernel '") + to_string(policy.forced) + "' is not a frontier-engine kernel");
  if (policy.forced == BfsKernel::PullSpmv && !g.in_ptr)
    throw Error(Status::InvalidValue, "the pull kernel needs the in-edges (A') on the device");

  int device = 0;
  SearchArgs a;
  a.g = g;
  a.policy = policy;
  a.caps = caps;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&a.sms, cudaDevAttrMultiProcessorCount, device));

  // State on the device.
  const Index words = (n + 31) / 32;
  Array<std::int32_t> level(std::size_t(n), Backend::Cuda);
  Array<std::int64_t> parent(parents ? std::size_t(n) : 0, Backend::Cuda);
  Array<std::uint32_t> visited(std::size_t(words), Backend::Cuda);
  Array<std::uint32_t> fbm[2];  // frontier bitmaps (pull), ping-pong
  if (g.in_ptr) {
    fbm[0] = Array<std::uint32_t>(std::size_t(words), Backend::Cuda);
    fbm[1] = Array<std::uint32_t>(std::size_t(words), Backend::Cuda);
  }
  Array<Vid> queue[2] = {Array<Vid>(std::size_t(n), Backend::Cuda), Array<Vid>(std::size_t(n), Backend::Cuda)};
  Array<Control> ctl(1, Backend::Cuda);
  Array<LevelRecord> records(collect_stats ? kRecordCapacity : 0, Backend::Cuda);
  std::vector<LevelRecord> host_records;
  a.level = level.data();
  a.parent = parents ? parent.data() : nullptr;
  a.visited = visited.data();
  a.ctl = ctl.data();
  PinnedControl h;
  Event start, stop, t0, t1;
  auto fetch_control = [&] {
    CUDA_CHECK(cudaMemcpyAsync(h.p, ctl.data(), sizeof(Control), cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaStreamSynchronize(0));
  };

  CUDA_CHECK(cudaEventRecord(start.e, 0));
  CUDA_CHECK(cudaMemsetAsync(level.data(), 0xff, level.bytes(), 0));
  if (parents) CUDA_CHECK(cudaMemsetAsync(parent.data(), 0xff, parent.bytes(), 0));
  CUDA_CHECK(cudaMemsetAsync(visited.data(), 0, visited.bytes(), 0));
  init_kernel<<<1, 1>>>(a, source, queue[0].data());
  CUDA_CHECK_LAUNCH();
  fetch_control();

  int cur = 0;               // queue[cur] holds the frontier
  int bm = 0;                // fbm[bm] holds it too when bitmap_valid
  bool bitmap_valid = false;
  ull examined_before = h.p->examined;
  for (;;) {
    const Control c = *h.p;
    if (c.frontier_size == 0) break;
    if (c.level > n + 1) throw Error(Status::CudaError, "frontier engine: level loop did not terminate (internal error)");
    const BfsKernel k = static_cast<BfsKernel>(c.kernel);
    const Index fsize = Index(c.frontier_size);
    if (collect_stats) CUDA_CHECK(cudaEventRecord(t0.e, 0));
    switch (k) {
      case BfsKernel::SingleBlock:
        launch_single_block(a, queue[cur].data(), queue[1 - cur].data(), collect_stats ? records.data() : nullptr,
                            collect_stats ? kRecordCapacity : INT_MAX);
        break;
      case BfsKernel::PullSpmv:
        if (!bitmap_valid) launch_queue_to_bitmap(queue[cur].data(), fsize, fbm[bm].data(), n);
        launch_pull(a, c.level, fbm[bm].data(), fbm[1 - bm].data(), queue[1 - cur].data());
        bm = 1 - bm;
        break;
      case BfsKernel::QueueGlobal:
      case BfsKernel::QueueBlock:
      case BfsKernel::QueueWarp: launch_push(k, a, c.level, queue[cur].data(), fsize, Index(c.frontier_edges), queue[1 - cur].data());
        break;
      default: throw Error(Status::CudaError, "frontier engine: the device chose an unknown kernel (internal error)");
    }
    cur = 1 - cur;
    bitmap_valid = k == BfsKernel::PullSpmv;
    if (collect_stats) CUDA_CHECK(cudaEventRecord(t1.e, 0));
    fetch_control();
    if (collect_stats) {
      const double t = elapsed(t0, t1);
      if (k == BfsKernel::SingleBlock) {
        // Levels inside one single-block launch share its time evenly (one launch, no per-level clock).
        const int ran = std::max(1, h.p->level - c.level);
        host_records.resize(std::size_t(ran));
        copy_bytes(host_records.data(), Backend::Host, records.data(), Backend::Cuda, std::size_t(ran) * sizeof(LevelRecord));
        for (int i = 0; i < ran; ++i)
          r.levels.push_back({c.level + i, Index(host_records[i].frontier_size), Index(host_records[i].frontier_edges),
                              Direction::Push, BfsKernel::SingleBlock, t / ran});
      } else if (k == BfsKernel::PullSpmv) {
        r.levels.push_back({c.level, fsize, Index(h.p->examined - examined_before), Direction::Pull, k, t});
      } else {
        r.levels.push_back({c.level, fsize, Index(c.frontier_edges), Direction::Push, k, t});
      }
    }
    examined_before = h.p->examined;
  }
  CUDA_CHECK(cudaEventRecord(stop.e, 0));
  CUDA_CHECK(cudaEventSynchronize(stop.e));
  r.seconds = elapsed(start, stop);

  r.level = level.to_vector();
  Index reached = 0;
  for (auto l : r.level) reached += l >= 0;
  r.vertices_reached = reached;
  if (parents) r.parent = parent.to_vector();
  else r.parent.clear();
}

}  // namespace gbcuda::detail::cuda::frontier
