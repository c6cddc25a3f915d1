// The fused BFS: the whole search in ONE cooperative launch, the same kernel bodies and the same
// policy as the product of vxm/mxv (bodies.cuh, choose_product_kernel), with the BFS's own
// target (FusedTarget: visited bitmap as mask and claim, levels and parents written in place).
// Every block runs every level, a grid barrier separates levels, and after each barrier every
// block closes the level itself from the same counters (advance(): the next frontier's size and
// out-edges, the policy), so all blocks agree on the next body without any host involvement.
// Narrow phases run the single-block body in block 0 while the other blocks wait at the barrier.
//
// Why: the same search written with public calls (vxm, assign, nvals per level) costs a launch
// or two and one read-back per level, ~20 us on the H100; a grid barrier costs ~1.2-1.4 us
// (132-264 blocks), and a CUDA graph WHILE node with IF-node dispatch measured ~13 us an
// iteration.
//
// Counters: level `it` of this launch accumulates into slots[it % 3]; block 0 zeroes
// slots[(it + 1) % 3] at the top of level `it`: that slot was last read right after the barrier
// that closed level it - 2, and everyone has passed another barrier since; its next writers
// come after the barrier that closes level `it`.
// Coherence: data written by another block in this launch (queues, visited words, the counters)
// is read from L2 (load<true>, __ldcg), never from a possibly stale L1 line, except where a stale
// line is harmless or impossible: the claims' pre-check of a visited bit (bit_clear: it only
// saves an atomic) and the pull's frontier bitmap and candidates, written before the barrier
// that starts the pull and only read during it (see load() in common.cuh).
#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "cuda/product/barrier_free.cuh"
#include "cuda/product/bodies.cuh"
#include "gbcuda/detail/cuda_ops.hpp"

namespace gbcuda::detail::cuda::product {
namespace {

namespace cg = cooperative_groups;

struct LevelSlot {
  ull next_size, next_edges, examined, deferred;  // deferred: the pull's DeferredRows::packed
};

struct FusedArgs {
  FusedTarget t;  // out and fout are set per level
  LevelRule rule;
  Control* ctl = nullptr;
  Vid* queues[2] = {nullptr, nullptr};
  std::uint32_t* bitmaps[2] = {nullptr, nullptr};  // null without in-edges
  LevelSlot* slots = nullptr;                      // 3, zeroed before each launch
  DeferredRows deferred;                           // the pull's long rows (packed: per slot)
  LevelRecord* records = nullptr;                  // max_levels entries, or null
  int max_levels = 0;
  bool blind_claims_ok = false;  // blind_claims_allowed() for the visited bitmap
  TailState* tail = nullptr;     // the barrier-free tail's state, or null: level-synchronous throughout
  Index init_source = -1;        // >= 0: the search's first launch, which sets up its state first
};

// Dynamic shared memory of the bodies' queues (one body at a time).
std::size_t fused_queue_smem_bytes(const Capacities& caps) { return body_queue_smem_bytes<FusedTarget>(caps); }

// The search's state, by the first launch's grid before its first level: levels and parents -1
// but the source's, the visited bitmap holding the source alone, the level counters and the
// tail's state zeroed, the source queued. Inside the search's one launch rather than five
// memsets and a kernel before it: each launch is a few microseconds of the host's enqueueing
// that the GPU waits for.
__device__ void init_search(const FusedArgs& a, Index source) {
  const Vid s = Vid(source);
  const Index n = a.t.g.n, words = (n + 31) / 32;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    a.t.level[i] = i == source ? 0 : -1;
    if (a.t.parent) a.t.parent[i] = i == source ? source : -1;
    if (i < words) a.t.visited[i] = i == Index(s >> 5) ? 1u << (s & 31) : 0u;
  }
  if (global_thread() < Index(3 * sizeof(LevelSlot) / sizeof(ull)))
    reinterpret_cast<ull*>(a.slots)[global_thread()] = 0;
  if (a.tail)
    for (Index i = global_thread(); i < Index(sizeof(TailState) / sizeof(ull)); i += grid_threads())
      reinterpret_cast<ull*>(a.tail)[i] = 0;
  if (global_thread() != 0) return;
  a.queues[0][0] = s;
  Control c{};
  c.frontier_size = 1;
  c.frontier_edges = static_cast<ull>(a.t.g.out_ptr[s + 1] - a.t.g.out_ptr[s]);
  c.prev_size = 0;
  c.unexplored_edges = static_cast<ull>(a.t.g.nnz);
  c.level = 1;
  c.pulling = 0;
  c.kernel = next_kernel(c, a.rule);
  c.queue = 0;
  c.bitmap = 0;
  *a.ctl = c;
}

// One block of 1024 threads per SM (64 registers a thread). Capping registers at 32 for two
// blocks per SM was measured slower on every graph of the standard set.
__global__ void __launch_bounds__(kThreads, 1) fused_kernel(FusedArgs a) {
  extern __shared__ Vid smem[];  // the bodies' queues, one body at a time
  __shared__ Control s_c;        // this block's copy of the control (thread 0 writes it)
  __shared__ PushShared ps;
  __shared__ FewRowsShared fs;
  __shared__ SingleShared ss;
  __shared__ ull s_sum;
  __shared__ int s_narrow;  // levels in a row at most kTailMaxWidth wide (thread 0 counts; shared
                            // rather than in a register: the level loop has none to spare)
  cg::grid_group grid = cg::this_grid();
  // Thread 0 sets the next level's wide-push flags before the barrier that precedes it.
  auto set_wide_level = [&a](const Control& c) {
    wide_level() = wide_level_for(c.kernel != int(ProductKernel::Pull), c.frontier_edges, c.unexplored_edges,
                                  ull(a.t.g.nnz), a.blind_claims_ok);
  };
  if (a.init_source >= 0) {
    init_search(a, a.init_source);
    grid.sync();
  }
  if (threadIdx.x == 0) {
    s_c = load_control(a.ctl);
    set_wide_level(s_c);
    ps.count = 0;
    ps.big.owner = INT_MAX;
    s_narrow = 0;
  }
  __syncthreads();
  int cur = s_c.queue, bm = s_c.bitmap;
  const int last_level = int(a.t.g.n) + 1;  // a guard only: a BFS has at most n levels
  int recorded = 0;
  for (unsigned it = 0;; ++it) {
    const Control c = s_c;
    if (c.frontier_size == 0 || recorded >= a.max_levels || c.level > last_level) break;
    if (a.tail && s_narrow >= kTailAfterLevels) break;
    LevelSlot* slot = a.slots + it % 3;
    ull t0 = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      LevelSlot* z = a.slots + (it + 1) % 3;
      z->next_size = z->next_edges = z->examined = z->deferred = 0;
      t0 = globaltimer_ns();
    }
    const LevelCounters k{&slot->next_size, &slot->next_edges, &slot->examined};
    const auto kind = static_cast<ProductKernel>(c.kernel);
    const Vid* in = a.queues[cur];
    FusedTarget t = a.t;
    t.out = a.queues[1 - cur];
    const Index size = Index(c.frontier_size);
    if (kind == ProductKernel::SingleBlock) {
      if (blockIdx.x == 0) {
        // With a tail, return after enough narrow levels for it to start.
        const int budget = a.tail ? max(kTailAfterLevels - s_narrow, 1) : INT_MAX;
        single_block_levels<true>(t, a.rule, s_c, in, k.tail, a.records ? a.records + recorded : nullptr,
                                  min(a.max_levels - recorded, budget), smem, ss);
        if (threadIdx.x == 0) {
          *a.ctl = s_c;
          __threadfence();
        }
      }
      grid.sync();
      if (blockIdx.x != 0 && threadIdx.x == 0) s_c = load_control(a.ctl);
    } else {
      if (kind == ProductKernel::Pull) {
        std::uint32_t* fin = a.bitmaps[bm];
        if (!c.pulling) {  // the frontier is a queue: make it a bitmap first
          const Index words = (a.t.g.n + 31) / 32;
          for (Index w = global_thread(); w < words; w += grid_threads()) fin[w] = 0;
          grid.sync();
          for (Index i = global_thread(); i < size; i += grid_threads()) {
            const Vid v = load<true>(in + i);
            atomicOr(fin + (v >> 5), 1u << (v & 31));
          }
          grid.sync();
        }
        t.fout = a.bitmaps[1 - bm];
        DeferredRows d = a.deferred;
        d.packed = &slot->deferred;
        d.lane_steps = pull_lane_steps(a.t.g.n, Index(c.frontier_size));
        pull_level(t, c.level, fin, k, d, smem, &s_sum);
        bm = 1 - bm;
      } else {
        grid_push_level<true>(t, c.level, in, size, Index(c.frontier_edges), kind, k, smem, ps, fs);
      }
      // The level ends at this barrier, or a pull that deferred rows searches them first. (One
      // barrier call site: a second one here spilled registers in every body.)
      for (bool rest = kind == ProductKernel::Pull;; rest = false) {
        grid.sync();
        if (!rest || __ldcg(&slot->deferred) == 0) break;
        DeferredRows d = a.deferred;
        d.packed = &slot->deferred;
        pull_deferred_rows(t, c.level, a.bitmaps[1 - bm], k, d, &s_sum);
      }
      if (threadIdx.x == 0) {
        const ull ns = __ldcg(&slot->next_size), ne = __ldcg(&slot->next_edges), ex = __ldcg(&slot->examined);
        if (blockIdx.x == 0 && a.records)
          a.records[recorded] = {
              c.frontier_size, kind == ProductKernel::Pull ? ex : c.frontier_edges, t0, globaltimer_ns(), c.kernel, 0};
        s_c.examined += ex;
        advance(s_c, ns, ne, kind == ProductKernel::Pull, ex, a.rule);
      }
    }
    cur = 1 - cur;
    if (threadIdx.x == 0) {
      set_wide_level(s_c);
      // A single-block run's levels were all at most single_block_max <= kTailMaxWidth wide.
      s_narrow = size <= kTailMaxWidth ? s_narrow + (s_c.level - c.level) : 0;
    }
    __syncthreads();
    recorded += s_c.level - c.level;
  }
  if (a.tail && s_narrow >= kTailAfterLevels && s_c.frontier_size > 0) {
    const Index cap = a.t.caps.tail_queue > 0 ? min(a.t.caps.tail_queue, a.t.g.n) : a.t.g.n;
    barrier_free_tail(a.t.g, a.t.level, a.queues[cur], Index(s_c.frontier_size), s_c.level - 1, a.queues[1 - cur], cap,
                      a.tail);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      a.tail->t_end_ns = globaltimer_ns();
      if (a.tail->status != kTailAbandoned) a.tail->status = kTailDone;
      s_c.frontier_size = 0;  // the search ended (or the host searches again)
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    s_c.queue = cur;
    s_c.bitmap = bm;
    s_c.next_size = 0;
    *a.ctl = s_c;
  }
}

// How the fused kernel is launched on this device: blocks (all co-resident; 0 when it cannot
// run: no cooperative launch, or the queues leave no block room beside the kernel's static
// shared memory) and dynamic shared memory.
struct FusedLaunch {
  int blocks = 0;
  std::size_t smem = 0;
};

FusedLaunch fused_launch(const Capacities& caps, int sms) {
  FusedLaunch l;
  if (!persistent_kernels_available()) return l;
  const int optin = device_facts().smem_optin;
  int per_sm = 0;
  l.smem = fused_queue_smem_bytes(caps);
  if (l.smem + static_smem_bytes(fused_kernel) + 1024 > std::size_t(optin)) return l;
  static std::atomic<std::size_t> raised{0};
  allow_dynamic_smem(fused_kernel, l.smem, raised);
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fused_kernel, kThreads, l.smem));
  l.blocks = per_sm * sms;
  return l;
}

struct Event {
  cudaEvent_t e = nullptr;
  Event() { CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

constexpr int kRecordCapacity = 4096;  // per-level records of one launch (stats)

// Appends the per-level statistics of `count` records (levels first_level, first_level + 1, ...).
void append_records(const Array<LevelRecord>& records, int count, int first_level, BfsResult& r) {
  if (count <= 0) return;
  std::vector<LevelRecord> host(static_cast<std::size_t>(count));
  copy_bytes(host.data(), Backend::Host, records.data(), Backend::Cuda, host.size() * sizeof(LevelRecord));
  for (int i = 0; i < count; ++i) {
    const LevelRecord& rec = host[std::size_t(i)];
    const auto k = static_cast<ProductKernel>(rec.kernel);
    r.levels.push_back({first_level + i, Index(rec.frontier_size), Index(rec.edges),
                        k == ProductKernel::Pull ? Direction::Pull : Direction::Push, k,
                        double(rec.t_end_ns - rec.t_begin_ns) * 1e-9, false});
  }
}

// Per-level statistics of the levels the barrier-free tail produced, from the final levels (the
// tail has no level steps of its own): each level's frontier and its out-edges; the first such
// entry carries the whole tail's time (device clock), the others 0.
void append_tail_stats(const Graph& g, const TailState& ts, BfsResult& r) {
  const int seed = ts.seed_level;
  int deepest = seed;
  for (auto l : r.level) deepest = std::max(deepest, int(l));
  std::vector<Offset> ptr(std::size_t(g.n) + 1);
  copy_bytes(ptr.data(), Backend::Host, g.out_ptr, Backend::Cuda, ptr.size() * sizeof(Offset));
  std::vector<Index> size(std::size_t(deepest - seed + 1), 0), edges(size.size(), 0);
  for (Index v = 0; v < g.n; ++v) {
    const int l = r.level[std::size_t(v)];
    if (l < seed) continue;
    size[std::size_t(l - seed)] += 1;
    edges[std::size_t(l - seed)] += Index(ptr[std::size_t(v) + 1] - ptr[std::size_t(v)]);
  }
  for (std::size_t i = 0; i < size.size(); ++i) {
    r.levels.push_back({seed + 1 + int(i), size[i], edges[i], Direction::Push, ProductKernel::Auto,
                        i == 0 ? double(ts.t_end_ns - ts.t_begin_ns) * 1e-9 : 0.0, true});
  }
}

}  // namespace

bool persistent_kernels_available() {
  static const bool available = [] {
    int device = 0, coop = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return coop != 0;
  }();
  return available;
}

namespace {

__global__ void count_rows_longer_kernel(const Offset* ptr, Index n, Offset length, ull* count) {
  ull mine = 0;
  for (Index v = global_thread(); v < n; v += grid_threads()) mine += ptr[v + 1] - ptr[v] > length;
  for (int o = 16; o > 0; o /= 2) mine += __shfl_down_sync(kFullMask, mine, o);
  if (lane_id() == 0 && mine) atomicAdd(count, mine);
}

// Rows of the CSR offsets `ptr` (n rows, on the device) holding more than `length` entries: the
// rows a pull may defer (DeferredRows). Waits for the device.
Index rows_longer_than(const Offset* ptr, Index n, Offset length) {
  Array<ull> count(1, Backend::Cuda);
  count.fill_bytes_with(0);
  count_rows_longer_kernel<<<grid_for(n), kBlock, 0, stream()>>>(ptr, n, length, count.data());
  CUDA_CHECK_LAUNCH();
  ull h = 0;
  copy_bytes(&h, Backend::Host, count.data(), Backend::Cuda, sizeof(ull));
  return Index(h);
}

// One search; returns the tail's status (kTailNotRun without one). An abandoned tail leaves r's
// levels unfilled: the caller searches again once this search's device arrays are freed.
TailStatus fused_search(const Graph& g, Index source, bool parents, const ProductPolicy& policy, const Capacities& caps,
                        bool collect_stats, bool tail, BfsResult& r) {
  const Index n = g.n;
  if (n <= 0) throw Error(Status::InvalidValue, "BFS on an empty graph (0 vertices)");
  if (g.n_in != n) throw Error(Status::InvalidValue, "the fused BFS needs a square matrix");
  if (source < 0 || source >= n)
    throw Error(Status::InvalidIndex, "source vertex " + std::to_string(source) + " is out of range");
  if (policy.forced == ProductKernel::Pull && !g.in_ptr)
    throw Error(Status::InvalidValue, "the pull kernel needs the in-edges (A') on the device");
  const int sms = device_facts().sms, optin = device_facts().smem_optin;
  if (single_block_smem_bytes<FusedTarget>(caps) + 512 > std::size_t(optin))
    throw Error(Status::InvalidValue, "single-block queue of " + std::to_string(caps.single_block_queue) +
                                          " entries does not fit in shared memory (" + std::to_string(optin) +
                                          " bytes per block)");
  const FusedLaunch launch = fused_launch(caps, sms);
  const int blocks = launch.blocks;
  if (blocks == 0)
    throw Error(Status::NotImplemented, persistent_kernels_available()
                                            ? "the fused BFS kernel does not fit on this GPU (" +
                                                  std::to_string(fused_queue_smem_bytes(caps)) +
                                                  " bytes of dynamic shared memory per block)"
                                            : std::string("this GPU cannot run the fused BFS (no cooperative launch)"));

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
  Array<LevelSlot> slots(3, Backend::Cuda);
  Array<LevelRecord> records(collect_stats ? kRecordCapacity : 0, Backend::Cuda);
  Array<TailState> tail_state(tail ? 1 : 0, Backend::Cuda);
  const auto deferred_cap = std::size_t(g.in_ptr ? rows_longer_than(g.in_ptr, n, kPullLaneStepsMin) + 1 : 0);
  Array<Vid> deferred_v(deferred_cap, Backend::Cuda);
  Array<Offset> deferred_from(deferred_cap, Backend::Cuda);
  Array<ull> deferred_base(deferred_cap, Backend::Cuda);

  FusedArgs a;
  a.t.g = g;
  a.t.caps = caps;
  a.t.level = level.data();
  a.t.parent = parents ? parent.data() : nullptr;
  a.t.visited = visited.data();
  a.rule = {policy, caps, n, g.in_ptr != nullptr};
  a.ctl = ctl.data();
  a.queues[0] = queue[0].data();
  a.queues[1] = queue[1].data();
  a.bitmaps[0] = fbm[0].data();
  a.bitmaps[1] = fbm[1].data();
  a.slots = slots.data();
  a.records = collect_stats ? records.data() : nullptr;
  a.max_levels = collect_stats ? kRecordCapacity : INT_MAX;
  a.blind_claims_ok = blind_claims_allowed(n);
  a.tail = tail ? tail_state.data() : nullptr;
  a.deferred = {kPullLaneStepsMin, deferred_v.data(), deferred_from.data(), deferred_base.data(), nullptr};

  Control h{};
  auto fetch_control = [&] { copy_bytes(&h, Backend::Host, ctl.data(), Backend::Cuda, sizeof(Control)); };
  auto check_termination = [&] {
    if (h.level > n + 1) throw Error(Status::CudaError, "fused BFS: level loop did not terminate (internal error)");
  };

  Event start, stop;
  CUDA_CHECK(cudaEventRecord(start.e, stream()));
  const std::size_t smem = launch.smem;  // opted in by fused_launch()
  int first_level = 1;
  for (bool first_launch = true;; first_launch = false) {
    a.init_source = first_launch ? source : -1;
    if (!first_launch) slots.fill_bytes_with(0);  // the first launch's: init_search
    void* params[] = {&a};
    CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(fused_kernel), dim3(unsigned(blocks)),
                                           dim3(kThreads), params, smem, stream()));
    if (!collect_stats) break;  // it ran to the end; nothing to read until then
    fetch_control();
    append_records(records, h.level - first_level, first_level, r);
    first_level = h.level;
    check_termination();
    if (h.frontier_size == 0) break;
  }
  if (tail && parents) {  // parents of the tail's levels (nothing to do unless it finished)
    barrier_free_parents_kernel<<<grid_for(n), kBlock, 0, stream()>>>(g, level.data(), parent.data(),
                                                                      tail_state.data());
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaEventRecord(stop.e, stream()));
  note_synchronization();
  CUDA_CHECK(cudaEventSynchronize(stop.e));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
  r.seconds = double(ms) * 1e-3;
  if (!collect_stats) {  // one read after the search, to check it ended
    fetch_control();
    check_termination();
    if (h.frontier_size != 0)
      throw Error(Status::CudaError, "fused BFS: the persistent kernel stopped early (internal error)");
  }

  TailState ts{};
  if (tail) copy_bytes(&ts, Backend::Host, tail_state.data(), Backend::Cuda, sizeof(TailState));
  if (ts.status == kTailAbandoned) return kTailAbandoned;
  r.barrier_free_from = ts.status == kTailDone ? ts.seed_level + 1 : 0;
  r.level = level.to_vector();
  if (collect_stats && ts.status == kTailDone) append_tail_stats(g, ts, r);
  Index reached = 0;
  for (auto l : r.level) reached += l >= 0;
  r.vertices_reached = reached;
  if (parents) r.parent = parent.to_vector();
  else r.parent.clear();
  return TailStatus(ts.status);
}

}  // namespace

void fused_bfs(const Graph& g, Index source, bool parents, const ProductPolicy& policy, const Capacities& caps,
               bool collect_stats, bool barrier_free_tail, BfsResult& r) {
  r.barrier_free_abandoned = false;
  if (fused_search(g, source, parents, policy, caps, collect_stats, barrier_free_tail, r) != kTailAbandoned) return;
  // Too wide for the tail: search again, level-synchronous; both searches in the time.
  const double first = r.seconds;
  r.levels.clear();
  fused_search(g, source, parents, policy, caps, collect_stats, false, r);
  r.seconds += first;
  r.barrier_free_abandoned = true;
}

}  // namespace gbcuda::detail::cuda::product

namespace gbcuda::detail::cuda {

bool fused_bfs_available() { return product::persistent_kernels_available(); }

ProductPolicy calibrated_product_policy() { return product::calibrated_product_policy(); }

std::string calibrated_policy_source() { return product::calibrated_policy_source(); }

void fused_bfs(const CsrView<bool>& out, const CsrView<bool>& in, Index source, const ProductPolicy& policy,
               bool parents, bool stats, bool barrier_free_tail, BfsResult& r) {
  product::Graph g;
  g.n = g.n_in = out.nrows;
  g.nnz = out.nnz;
  g.out_ptr = out.row_ptr;
  g.out_idx = out.col_idx;
  g.in_ptr = in.row_ptr;
  g.in_idx = in.col_idx;
  product::fused_bfs(g, source, parents, policy, product::Capacities{}, stats, barrier_free_tail, r);
}

}  // namespace gbcuda::detail::cuda
