// The level loop of the CUDA frontier engine (run_bfs).
//
// Where the per-level decision happens: on the device. Every level closes on the device with
// advance(), which updates the counters (next frontier size, its out-edges, the unexplored
// edges) and evaluates choose_kernel() there. Two loops drive the levels (gbcuda::LevelLoop):
//   - Device (the default): persistent.cu runs every level inside one cooperative launch with a
//     grid barrier between levels. No launch and no host round trip per level; with statistics
//     on, one relaunch per kRecordCapacity levels to copy the per-level records out.
//   - Host: one launch per level, or per single-block phase (many narrow levels in one launch);
//     after each, one small async copy of the control block into pinned memory and a stream
//     sync, then the host launches what the device chose, with a grid sized for the frontier.
// A CUDA graph with a WHILE node and IF-node dispatch was measured as a third option and lost:
// ~13 us an iteration on the H100 against ~1.2 us for a grid barrier (docs/PERFORMANCE.md).
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
  c.queue = 0;
  c.bitmap = 0;
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
  return k == BfsKernel::Auto || k == BfsKernel::PullSpmv || k == BfsKernel::QueueWarp || k == BfsKernel::QueueBlock ||
         k == BfsKernel::QueueGlobal || k == BfsKernel::SingleBlock;
}

constexpr int kRecordCapacity = 4096;  // per-level records of one launch (stats)

// Appends the per-level statistics of `count` records (levels first_level, first_level + 1, ...).
void append_records(const Array<LevelRecord>& records, int count, int first_level, BfsResult& r) {
  if (count <= 0) return;
  std::vector<LevelRecord> host(static_cast<std::size_t>(count));
  copy_bytes(host.data(), Backend::Host, records.data(), Backend::Cuda, host.size() * sizeof(LevelRecord));
  for (int i = 0; i < count; ++i) {
    const LevelRecord& rec = host[std::size_t(i)];
    const auto k = static_cast<BfsKernel>(rec.kernel);
    r.levels.push_back({first_level + i, Index(rec.frontier_size), Index(rec.edges),
                        k == BfsKernel::PullSpmv ? Direction::Pull : Direction::Push, k,
                        double(rec.t_end_ns - rec.t_begin_ns) * 1e-9});
  }
}

}  // namespace

void run_bfs(const DeviceGraph& g, Index source, bool parents, const KernelPolicy& policy, const Capacities& caps,
             bool collect_stats, LevelLoop loop, BfsResult& r) {
  const Index n = g.n;
  if (n <= 0) throw Error(Status::InvalidValue, "BFS on an empty graph (0 vertices)");
  if (n > Index(INT32_MAX)) throw Error(Status::InvalidValue, "the frontier engine needs fewer than 2^31 vertices");
  if (source < 0 || source >= n)
    throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range");
  if (!engine_kernel(policy.forced))
    throw Error(Status::InvalidValue,
                std::string("kernel '") + to_string(policy.forced) + "' is not a frontier-engine kernel");
  if (policy.forced == BfsKernel::PullSpmv && !g.in_ptr)
    throw Error(Status::InvalidValue, "the pull kernel needs the in-edges (A') on the device");
  check_single_block_fits(caps);

  int device = 0;
  SearchArgs a;
  a.g = g;
  a.policy = policy;
  a.caps = caps;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&a.sms, cudaDevAttrMultiProcessorCount, device));
  const int persistent = loop == LevelLoop::Device ? persistent_blocks(a) : 0;  // 0: host loop

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
  Array<LevelSlot> slots(persistent > 0 ? 3 : 0, Backend::Cuda);
  Array<LevelRecord> records(collect_stats ? kRecordCapacity : 0, Backend::Cuda);
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
  auto check_termination = [&](const Control& c) {
    if (c.level > n + 1)
      throw Error(Status::CudaError, "frontier engine: level loop did not terminate (internal error)");
  };

  CUDA_CHECK(cudaEventRecord(start.e, 0));
  CUDA_CHECK(cudaMemsetAsync(level.data(), 0xff, level.bytes(), 0));
  if (parents) CUDA_CHECK(cudaMemsetAsync(parent.data(), 0xff, parent.bytes(), 0));
  CUDA_CHECK(cudaMemsetAsync(visited.data(), 0, visited.bytes(), 0));
  init_kernel<<<1, 1>>>(a, source, queue[0].data());
  CUDA_CHECK_LAUNCH();

  if (persistent > 0) {
    PersistentBuffers b;
    b.queues[0] = queue[0].data();
    b.queues[1] = queue[1].data();
    b.bitmaps[0] = fbm[0].data();
    b.bitmaps[1] = fbm[1].data();
    b.slots = slots.data();
    b.records = collect_stats ? records.data() : nullptr;
    b.max_levels = collect_stats ? kRecordCapacity : INT_MAX;
    int first_level = 1;
    for (;;) {
      CUDA_CHECK(cudaMemsetAsync(slots.data(), 0, slots.bytes(), 0));
      launch_persistent(a, b, persistent);
      if (!collect_stats) break;  // it ran to the end; nothing to read until then
      fetch_control();
      append_records(records, h.p->level - first_level, first_level, r);
      first_level = h.p->level;
      check_termination(*h.p);
      if (h.p->frontier_size == 0) break;
    }
  } else {
    fetch_control();
    int cur = 0;  // queue[cur] holds the frontier
    int bm = 0;   // fbm[bm] holds it too when bitmap_valid
    bool bitmap_valid = false;
    ull examined_before = h.p->examined;
    for (;;) {
      const Control c = *h.p;
      if (c.frontier_size == 0) break;
      check_termination(c);
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
        case BfsKernel::QueueWarp:
          launch_push(k, a, c.level, queue[cur].data(), fsize, Index(c.frontier_edges), queue[1 - cur].data());
          break;
        default: throw Error(Status::CudaError, "frontier engine: the device chose an unknown kernel (internal error)");
      }
      cur = 1 - cur;
      bitmap_valid = k == BfsKernel::PullSpmv;
      if (collect_stats) CUDA_CHECK(cudaEventRecord(t1.e, 0));
      fetch_control();
      if (collect_stats) {
        if (k == BfsKernel::SingleBlock) {  // the kernel's own per-level records (device clock)
          append_records(records, std::max(1, h.p->level - c.level), c.level, r);
        } else {
          const Index edges =
              k == BfsKernel::PullSpmv ? Index(h.p->examined - examined_before) : Index(c.frontier_edges);
          r.levels.push_back({c.level, fsize, edges, k == BfsKernel::PullSpmv ? Direction::Pull : Direction::Push, k,
                              elapsed(t0, t1)});
        }
      }
      examined_before = h.p->examined;
    }
  }
  CUDA_CHECK(cudaEventRecord(stop.e, 0));
  CUDA_CHECK(cudaEventSynchronize(stop.e));
  r.seconds = elapsed(start, stop);
  if (!collect_stats && persistent > 0) {  // one read after the search, to check it ended
    fetch_control();
    check_termination(*h.p);
    if (h.p->frontier_size != 0)
      throw Error(Status::CudaError, "frontier engine: the persistent kernel stopped early (internal error)");
  }

  r.level = level.to_vector();
  Index reached = 0;
  for (auto l : r.level) reached += l >= 0;
  r.vertices_reached = reached;
  if (parents) r.parent = parent.to_vector();
  else r.parent.clear();
}

}  // namespace gbcuda::detail::cuda::frontier
