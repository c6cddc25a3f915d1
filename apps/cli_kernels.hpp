#pragma once
// The BFS kernels as the command-line programs name them (bfs_spmv --kernel, bfs_bench
// --kernels): the CLI name, a one-line description for --kernel list, and whether the kernel
// needs the GPU (gbcuda::check_bfs_kernel enforces that in the library).
#include <string>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda_cli {

struct BfsKernelInfo {
  gbcuda::BfsKernel kernel;
  const char* name;         // the CLI name, e.g. "queue-warp" (gbcuda::to_string(kernel))
  const char* description;  // one line
  bool cuda_only;
};

// Every kernel with its CLI name and description, in a fixed order.
inline const std::vector<BfsKernelInfo>& bfs_kernels() {
  using gbcuda::BfsKernel;
  static const std::vector<BfsKernelInfo> table = {
      {BfsKernel::Auto, "auto", "chosen per level by the product's policy (calibrated on the GPU)", false},
      {BfsKernel::Pull, "pull", "every level a pull: masked SpMV over A' with a bitmap frontier and early exit", false},
      {BfsKernel::QueueWarp, "queue-warp",
       "push with per-warp shared-memory queues merged into block queues, one global atomic per block", true},
      {BfsKernel::QueueBlock, "queue-block", "push with one shared-memory queue per block, one global atomic per block",
       true},
      {BfsKernel::QueueGlobal, "queue-global", "push appending each new vertex to the global queue with its own atomic",
       true},
      {BfsKernel::SingleBlock, "single-block",
       "push by one block; the fused loop runs many narrow levels in it without a grid barrier", true},
  };
  return table;
}

// A CLI name ("auto", "pull", "queue-warp", ...) as a kernel; Error(InvalidValue) listing the names.
inline gbcuda::BfsKernel parse_bfs_kernel(const std::string& name) {
  std::string names;
  for (const auto& info : bfs_kernels()) {
    if (name == info.name) return info.kernel;
    names += names.empty() ? "" : ", ";
    names += info.name;
  }
  throw gbcuda::Error(gbcuda::Status::InvalidValue, "unknown kernel '" + name + "' (expected one of: " + names + ")");
}

}  // namespace gbcuda_cli
