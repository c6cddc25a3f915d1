#pragma once
// Pieces every baseline shares: the device level/parent arrays and their copy back into a
// BfsResult, CUDA-event timing, and the per-level flag and counters the host reads after each
// level. Internal to bench/baselines/. Everything runs on the legacy default stream (stream 0);
// the library's stream is a blocking stream, so the library's allocations and frees (made there)
// are ordered with it.
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/atomic>
#include <vector>

#include "baselines/baselines.hpp"
#include "cuda/cuda_check.cuh"

namespace gbcuda::detail::cuda::baselines {

// Relaxed atomic access to a level entry that other threads may claim with atomicCAS in the same
// launch: a plain load there would be a data race, and a relaxed one costs the same instruction.
__device__ __forceinline__ std::int32_t load_level(std::int32_t* p) {
  return ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device>(*p).load(::cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_level(std::int32_t* p, std::int32_t v) {
  ::cuda::atomic_ref<std::int32_t, ::cuda::thread_scope_device>(*p).store(v, ::cuda::memory_order_relaxed);
}

// What one level reports to the host, read back with one copy: `flag` is the baseline's "work
// remains" flag (Rodinia's `over`, the vertex kernels' `new_vertex_visited`); `edges` and
// `found` (edges examined, vertices added) are counted only when statistics are collected.
struct LevelCounters {
  unsigned long long flag;
  unsigned long long edges;
  unsigned long long found;
};

// Called once by every thread of the block at the end of a kernel (it synchronizes the block):
// raises the flag with one atomic per block when any thread added a vertex, and adds the counts
// when `stats` is not null.
__device__ __forceinline__ void block_report(bool added, unsigned long long edges, unsigned long long found,
                                             unsigned long long* flag, LevelCounters* stats) {
  if (__syncthreads_or(added) && threadIdx.x == 0) atomicExch(flag, 1ull);
  if (stats) {
    block_count_add(edges, &stats->edges);
    block_count_add(found, &stats->found);
  }
}

// Device memory for one LevelCounters, cleared before and read after each level.
class DeviceLevelCounters {
 public:
  DeviceLevelCounters() : a_(1, Backend::Cuda) {}
  LevelCounters* get() { return a_.data(); }
  unsigned long long* flag() { return &a_.data()->flag; }
  void clear() { CUDA_CHECK(cudaMemsetAsync(a_.data(), 0, sizeof(LevelCounters), 0)); }
  LevelCounters read() const { return read_device(a_.data()); }

 private:
  Array<LevelCounters> a_;
};

// Elapsed GPU time between start() and stop() on stream 0, from a pair of CUDA events.
class EventTimer {
 public:
  EventTimer() {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { CUDA_CHECK(cudaEventRecord(start_, 0)); }
  // Records the stop event, waits for it, and returns the seconds since start().
  double stop() {
    CUDA_CHECK(cudaEventRecord(stop_, 0));
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

// The search's output on the device: level (int32, -1 = unreached) and, when asked, parent
// (int64, -1 = none). Allocated by the constructor (before timing starts); init() queues the
// start state: everything -1, the source at level 0 and its own parent.
class SearchState {
 public:
  SearchState(Index n, Index source, bool parents)
      : source_(source), level_(static_cast<std::size_t>(n), Backend::Cuda) {
    if (parents) parent_ = Array<std::int64_t>(static_cast<std::size_t>(n), Backend::Cuda);
  }
  void init() {
    CUDA_CHECK(cudaMemsetAsync(level_.data(), 0xff, level_.bytes(), 0));
    const std::int32_t zero = 0;
    CUDA_CHECK(cudaMemcpyAsync(level_.data() + source_, &zero, sizeof(zero), cudaMemcpyHostToDevice, 0));
    if (!parent_.empty()) {
      CUDA_CHECK(cudaMemsetAsync(parent_.data(), 0xff, parent_.bytes(), 0));
      const std::int64_t self = source_;
      CUDA_CHECK(cudaMemcpyAsync(parent_.data() + source_, &self, sizeof(self), cudaMemcpyHostToDevice, 0));
    }
  }
  std::int32_t* level() { return level_.data(); }
  std::int64_t* parent() { return parent_.empty() ? nullptr : parent_.data(); }  // null: not asked
  // Copies level (and parent) into r and counts the reached vertices.
  void finish(BfsResult& r) const {
    r.level = level_.to_vector();
    r.parent = parent_.empty() ? std::vector<std::int64_t>{} : parent_.to_vector();
    Index reached = 0;
    for (std::int32_t l : r.level) reached += l >= 0;
    r.vertices_reached = reached;
  }

 private:
  Index source_;
  Array<std::int32_t> level_;
  Array<std::int64_t> parent_;
};

// The host loop of the baselines whose levels end on a flag (vertex-topdown, vertex-bottomup,
// edge-coo, rodinia), timed as one search: start the clock, init the state, `prepare()` what
// else the search starts from, then per level d = 1, 2, ...: clear the counters,
// `launch(d, flag, stats)` the level's kernels, read the counters back (the host poll), record
// the level when statistics are on (`edges_of(c)`: the edges it examined, `direction` its
// kind), stop once no vertex was added. Stops the clock into r.seconds and copies the result.
template <class Prepare, class Launch, class EdgesOf>
void run_level_loop(SearchState& state, bool collect_stats, Direction direction, BfsResult& r, Prepare&& prepare,
                    Launch&& launch, EdgesOf&& edges_of) {
  DeviceLevelCounters counters;
  LevelCounters* stats = collect_stats ? counters.get() : nullptr;
  EventTimer total, level_timer;
  total.start();
  state.init();
  prepare();
  Index frontier_size = 1;
  for (std::int32_t d = 1;; ++d) {
    if (collect_stats) level_timer.start();
    counters.clear();
    launch(d, counters.flag(), stats);
    const LevelCounters c = counters.read();
    if (collect_stats) {
      const double t = level_timer.stop();
      r.levels.push_back({d, frontier_size, static_cast<Index>(edges_of(c)), direction, BfsKernel::Auto, t});
      frontier_size = static_cast<Index>(c.found);
    }
    if (!c.flag) break;
  }
  r.seconds = total.stop();
  state.finish(r);
}

}  // namespace gbcuda::detail::cuda::baselines
