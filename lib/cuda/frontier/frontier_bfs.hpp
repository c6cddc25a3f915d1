#pragma once
// The CUDA frontier engine: BFS with the graph resident on the GPU, visited as a bitmap, the
// frontier as a queue (push) or a bitmap (pull), and one of the hand-written kernels per level
// chosen by choose_kernel() (lib/algorithms/kernel_policy.hpp). Internal to the library.
#include "algorithms/kernel_policy.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda::detail::cuda::frontier {

// Device pointers to the graph: out-edges (CSR of A) and in-edges (CSR of A'). When A is
// structurally symmetric the two may be the same arrays.
struct DeviceGraph {
  Index n = 0;
  Offset nnz = 0;
  const Offset* out_ptr = nullptr;
  const Vid* out_idx = nullptr;
  const Offset* in_ptr = nullptr;  // may be null when no kernel that pulls can be chosen
  const Vid* in_idx = nullptr;
};

// Capacities the kernels use; tests shrink them to force the overflow paths.
struct Capacities {
  int warp_queue = 64;            // entries per warp queue in shared memory
  int block_queue = 2048;         // entries per block queue in shared memory
  int single_block_queue = 4096;  // the single-block kernel hands over above this
};

// Runs a whole BFS from `source` and fills r.level (and r.parent when `parents`), r.levels
// (when collect_stats: one entry per level with the kernel that ran), r.seconds (CUDA events,
// after the graph is resident), r.vertices_reached. `loop`: see gbcuda::LevelLoop (Device falls
// back to Host where the persistent kernel cannot run). Throws Error on CUDA failures.
void run_bfs(const DeviceGraph& g, Index source, bool parents, const KernelPolicy& policy, const Capacities& caps,
             bool collect_stats, LevelLoop loop, BfsResult& r);

// The policy for this device and level loop: measured on first use and cached (calibrate.cu).
// The thresholds differ between loops: a level costs a launch and a round trip in one, a grid
// barrier in the other.
KernelPolicy calibrated_policy(LevelLoop loop);

}  // namespace gbcuda::detail::cuda::frontier
