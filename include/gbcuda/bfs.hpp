#pragma once
// Breadth-first search written once against the algebra (the LAGraph loop: vxm, nvals, assign per
// level), on either backend; on the GPU by default as one fused kernel of the same products.
#include <string>
#include <vector>

#include "gbcuda/context.hpp"
#include "gbcuda/descriptor.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/reorder.hpp"

namespace gbcuda {

// The kernel of each level's masked product: the product's kernels (descriptor.hpp). Auto lets
// the policy choose per level; any other is forced for every level.
using BfsKernel = ProductKernel;
// Throws Error(InvalidValue) when `kernel` cannot run on `backend` (the CUDA-only kernels on the
// host). bfs() calls it; a program can call it before loading a graph to fail early.
void check_bfs_kernel(BfsKernel kernel, Backend backend);

// How the search goes from one level to the next.
//   Fused    CUDA: every level in one persistent cooperative kernel, the same kernel bodies and
//            policy as vxm, a grid barrier between levels and each level's kernel chosen on the
//            device: no launch and no host round trip per level. Where it cannot run (the host,
//            a GPU without cooperative launch) the search is the algebra loop.
//   Algebra  the search written with public calls, as a user (or LAGraph) writes it: per level
//            vxm(q<!visited> = q'A), nvals(q), assign(level<q> = depth) (and assign(parent<q> =
//            q)); on CUDA one read-back per level.
enum class LevelLoop { Fused, Algebra };
const char* to_string(LevelLoop l);
// Parses "fused" or "algebra"; throws Error(InvalidValue) otherwise.
LevelLoop parse_level_loop(const std::string& name);

struct BfsOptions {
  Device device = Device::Auto;
  BfsKernel kernel = BfsKernel::Auto;       // the product kernel of every level (Auto: per level)
  LevelLoop level_loop = LevelLoop::Fused;  // see LevelLoop
  Direction direction = Direction::Auto;    // Auto: push or pull per level, by the policy
  bool compute_parents = false;
  bool collect_stats = true;  // per-level statistics (costs a host wait per level in the algebra loop)
  // Fused loop, kernel Auto, direction not forced to pull: once 64 levels in a row were at most
  // 4,096 vertices wide (a mesh, a road network, a long path), the rest of the search runs without
  // level barriers (label-correcting: a level only falls, and each fall is expanded again; with
  // compute_parents, one pass afterwards names for each vertex it reached a parent one level up).
  // A frontier that then grows wide (a queued backlog above 65,536) abandons it and the search is
  // run again level-synchronously, both in `seconds`.
  bool barrier_free_tail = true;
  // The policy's direction thresholds (product_policy.hpp): pull once the frontier's out-edges
  // exceed the unexplored edges / alpha while it grows; push again once it has shrunk below
  // n / beta. 0 = the library's (calibrated on the GPU; Beamer's 15 and 18 on the host).
  double alpha = 0.0;
  double beta = 0.0;
};

struct BfsLevelStats {
  int level = 0;            // the level being produced (1 = neighbours of the source)
  Index frontier_size = 0;  // vertices in the frontier expanded at this step
  // push: out-edges of the frontier (on the GPU, estimated from one vertex in 16 when the push
  // that produced the frontier expanded 2^20 or more edges); pull: upper bound, in-edges of unvisited
  Index edges_examined = 0;
  Direction direction = Direction::Push;
  BfsKernel kernel = BfsKernel::Auto;  // the kernel that ran this level (Auto: the host backend's push)
  // Device-clock time of the level. In the barrier-free tail levels overlap: its first level
  // carries the whole tail's time and the others 0.
  double seconds = 0.0;
  // Produced by the barrier-free tail (BfsOptions::barrier_free_tail): frontier_size and
  // edges_examined counted afterwards from the final levels, direction Push, kernel Auto.
  bool barrier_free = false;
};

struct BfsResult {
  std::vector<std::int32_t> level;   // level[v], -1 when unreachable
  std::vector<std::int64_t> parent;  // parent[v] (source: itself, unreachable: -1); empty unless asked
  Index source = 0;
  Index vertices_reached = 0;
  int num_levels = 0;         // levels including the source's level 0
  Index edges_traversed = 0;  // stored entries in the rows of reached vertices (for GTEPS)
  Backend backend = Backend::Host;
  LevelLoop level_loop = LevelLoop::Algebra;  // the loop that ran (Fused falls back to Algebra)
  double seconds = 0.0;                       // whole search, excluding graph upload and transpose
  // The barrier-free tail (BfsOptions::barrier_free_tail): the first level it produced (0: it did
  // not run), and whether it was abandoned for a wide frontier (the search then ran again
  // level-synchronously; barrier_free_from is 0 and `seconds` holds both searches).
  int barrier_free_from = 0;
  bool barrier_free_abandoned = false;
  std::vector<BfsLevelStats> levels;  // one per expansion step, when collect_stats
};

// BFS from `source` over the graph A (A(i,j) stored = edge i -> j). Throws Error(InvalidIndex)
// when the source is out of range and Error(InvalidValue) for a non-square or empty matrix.
template <class T>
BfsResult bfs(const Matrix<T>& A, Index source, const BfsOptions& options = {});

// BFS over a relabelled graph (reorder.hpp) from `source` given in the original ids; the result
// (levels, parents, source) in the original ids. The relabelling is not in the timed search.
template <class T>
BfsResult bfs(const RelabelledGraph<T>& g, Index source, const BfsOptions& options = {});

// A result computed over a relabelled graph, in the original ids: levels and parents reordered,
// parent ids and the source mapped back. Throws Error(InvalidValue) when the sizes differ.
BfsResult to_original_ids(BfsResult r, const Relabelling& relabelling);

namespace detail {
// Fills r.num_levels and r.edges_traversed from r.level (what bfs() does last); for BFS codes
// outside the library that report the same way (the benchmark's baselines).
template <class T>
void complete_bfs_result(const Matrix<T>& A, BfsResult& r);
// Throws as bfs() does for a matrix that is not square or empty and a source out of range.
template <class T>
void check_bfs_arguments(const Matrix<T>& A, Index source);
}  // namespace detail

// Checks a BFS result without a reference (Graph500 rules): the source has level 0 (and parent
// itself), every edge i->j with i reached has j reached and level[j] <= level[i] + 1, unreached
// vertices have level -1, and when parents are present each reached non-source vertex v has
// parent p with edge p->v and level[p] == level[v] - 1. Returns "" when valid, else the first
// problem found.
template <class T>
std::string validate_bfs(const Matrix<T>& A, Index source, const BfsResult& result);

}  // namespace gbcuda
