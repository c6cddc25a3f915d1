#pragma once
// When the BFS switches kernels: the one function that decides, given the current frontier.
// Header-only and GBCUDA_HD so the CUDA level loop can evaluate it on the device (no host round
// trip to decide the next level) and the host can replay it for statistics.
#include "gbcuda/bfs.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// What is known about a level before expanding it.
struct LevelInfo {
  int level = 0;                  // the level being produced
  Index frontier_size = 0;        // vertices in the current frontier
  Index previous_frontier_size = 0;
  Index frontier_edges = 0;       // out-edges of the frontier
  Index unexplored_edges = 0;     // out-edges of vertices not yet visited
  Index n = 0;
  bool pulling = false;           // the previous level ran a pull kernel
};

// Thresholds of the cost model. Defaults are LAGraph's / Beamer's; calibrate_kernel_policy()
// (lib/cuda/frontier/calibrate.cu) replaces the size thresholds with values measured on the
// device and caches them per device name.
struct KernelPolicy {
  BfsKernel forced = BfsKernel::Auto;  // a specific kernel, or Auto to choose per level
  double alpha = 15.0;                 // go pull when frontier_edges > unexplored_edges / alpha (growing)
  double beta = 18.0;                  // go back to push when frontier_size < n / beta (shrinking)
  Index single_block_max = 1024;       // frontier <= this: the single-block multi-level kernel ...
  Index single_block_max_edges = 32768;  // ... while its out-edges fit one block's work too (one
                                         // block expanding a 163k-edge Kronecker hub took 0.37 ms
                                         // on the H100, 2026-11-22; a 4k-vertex grid frontier,
                                         // 16k edges, 11 us)
  Index block_queue_max = 65536;       // frontier <= this: block queues; above: warp queues
};

GBCUDA_HD inline BfsKernel choose_kernel(const KernelPolicy& p, const LevelInfo& l) {
  if (p.forced != BfsKernel::Auto) return p.forced;
  const bool growing = l.frontier_size > l.previous_frontier_size;
  bool pull = l.pulling;
  if (!pull && growing && double(l.frontier_edges) > double(l.unexplored_edges) / p.alpha) pull = true;
  if (pull && !growing && double(l.frontier_size) < double(l.n) / p.beta) pull = false;
  if (pull) return BfsKernel::PullSpmv;
  if (l.frontier_size <= p.single_block_max && l.frontier_edges <= p.single_block_max_edges)
    return BfsKernel::SingleBlock;
  if (l.frontier_size <= p.block_queue_max) return BfsKernel::QueueBlock;
  return BfsKernel::QueueWarp;
}

}  // namespace gbcuda::detail
