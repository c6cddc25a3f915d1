#pragma once
// Breadth-first search written once against the algebra; runs on either backend.
#include <string>
#include <vector>

#include "gbcuda/context.hpp"
#include "gbcuda/descriptor.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda {

// Which implementation of the per-level masked product runs the search.
//   Auto          the per-level policy (bfs.cpp: choose_kernel) picks among the ones below
//   PullSpmv      the algebra: vxm with a bitmap frontier, gather over A' with early exit
//   PushSpmspv    the algebra: vxm with a sparse frontier, scatter along A's rows
//   QueueWarp     CUDA: push with per-warp queues in shared memory merged into a block queue
//   QueueBlock    CUDA: push with one shared-memory queue per block
//   QueueGlobal   CUDA: push appending to the global queue with one atomic per vertex
//   SingleBlock   CUDA: one block runs many narrow levels in one launch
//   Rodinia, VertexTopDown, VertexBottomUp, EdgeCoo, BlockPerVertex: CUDA baselines
//                 (lib/baselines/), kept for comparison, not on the fast path
enum class BfsKernel {
  Auto,
  PullSpmv,
  PushSpmspv,
  QueueWarp,
  QueueBlock,
  QueueGlobal,
  SingleBlock,
  Rodinia,
  VertexTopDown,
  VertexBottomUp,
  EdgeCoo,
  BlockPerVertex,
};
struct BfsKernelInfo {
  BfsKernel kernel;
  const char* name;         // the CLI name, e.g. "queue-warp"
  const char* description;  // one line
  bool cuda_only;
};
// Every kernel with its CLI name and a one-line description, in a fixed order.
const std::vector<BfsKernelInfo>& bfs_kernels();
const char* to_string(BfsKernel k);
// Parses a CLI name ("auto", "pull-spmv", ...); throws Error(InvalidValue) listing the names.
BfsKernel parse_bfs_kernel(const std::string& name);
// Throws Error(InvalidValue) when `kernel` cannot run on `backend` (the CUDA-only kernels on the
// host). bfs() calls it; a program can call it before loading a graph to fail early.
void check_bfs_kernel(BfsKernel kernel, Backend backend);

// How the CUDA frontier engine (kernels auto, queue-warp, queue-block, queue-global and
// single-block on the CUDA backend) goes from one level to the next.
//   Device  all levels in one persistent cooperative kernel, a grid barrier between levels, each
//           level's kernel chosen on the device: no host round trip and no launch per level.
//           Falls back to Host on a GPU without cooperative launch.
//   Host    one launch per level (or per single-block phase); the host reads the device's
//           choice back before launching the next (kept for comparison and as the fallback)
enum class LevelLoop { Device, Host };
const char* to_string(LevelLoop l);
// Parses "device" or "host"; throws Error(InvalidValue) otherwise.
LevelLoop parse_level_loop(const std::string& name);
// Whether BfsOptions::level_loop matters for `kernel` on `backend` (the frontier engine's kernels
// on CUDA).
bool bfs_kernel_uses_level_loop(BfsKernel kernel, Backend backend);

struct BfsOptions {
  Device device = Device::Auto;
  BfsKernel kernel = BfsKernel::Auto;
  LevelLoop level_loop = LevelLoop::Device;  // CUDA frontier engine only (see LevelLoop)
  Direction direction = Direction::Auto;     // Auto: switch push/pull per level (see bfs.cpp)
  bool compute_parents = false;
  bool collect_stats = true;  // per-level statistics (costs a device sync per level)
  // Direction-switch constants (LAGraph's heuristic): go pull when frontier edges exceed
  // unexplored edges / alpha; go back to push when the frontier falls below n / beta.
  double alpha = 8.0;
  double beta = 512.0;
};

struct BfsLevelStats {
  int level = 0;             // the level being produced (1 = neighbours of the source)
  Index frontier_size = 0;   // vertices in the frontier expanded at this step
  Index edges_examined = 0;  // push: out-edges of the frontier; pull: upper bound, in-edges of unvisited
  Direction direction = Direction::Push;
  BfsKernel kernel = BfsKernel::PushSpmspv;  // the implementation that ran this level
  double seconds = 0.0;
};

struct BfsResult {
  std::vector<std::int32_t> level;   // level[v], -1 when unreachable
  std::vector<std::int64_t> parent;  // parent[v] (source: itself, unreachable: -1); empty unless asked
  Index source = 0;
  Index vertices_reached = 0;
  int num_levels = 0;         // levels including the source's level 0
  Index edges_traversed = 0;  // stored entries in the rows of reached vertices (for GTEPS)
  Backend backend = Backend::Host;
  double seconds = 0.0;               // whole search, excluding graph upload and transpose
  std::vector<BfsLevelStats> levels;  // one per expansion step, when collect_stats
};

// BFS from `source` over the graph A (A(i,j) stored = edge i -> j). Throws Error(InvalidIndex)
// when the source is out of range and Error(InvalidValue) for a non-square or empty matrix.
template <class T>
BfsResult bfs(const Matrix<T>& A, Index source, const BfsOptions& options = {});

// Checks a BFS result without a reference (Graph500 rules): the source has level 0 (and parent
// itself), every edge i->j with i reached has j reached and level[j] <= level[i] + 1, unreached
// vertices have level -1, and when parents are present each reached non-source vertex v has
// parent p with edge p->v and level[p] == level[v] - 1. Returns "" when valid, else the first
// problem found.
template <class T>
std::string validate_bfs(const Matrix<T>& A, Index source, const BfsResult& result);

}  // namespace gbcuda
