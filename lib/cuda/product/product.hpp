#pragma once
// The boolean masked product on the GPU, internal declarations: the graph view its kernels walk,
// their queue capacities, the library's calibrated policy, and the fused BFS (the same kernel
// bodies and policy run level after level inside one persistent kernel). The public entry of the
// product itself is cuda::bool_product (gbcuda/detail/cuda_ops.hpp), called by vxm/mxv.
#include <string>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/detail/product_policy.hpp"
#include "gbcuda/detail/views.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda::detail::cuda::product {

// Device pointers to the matrix rows the product walks: `out_*` the rows a push expands (indexed
// by input positions, n_in rows), `in_*` the rows a pull searches (indexed by output positions,
// n rows; the transpose of the push rows). For a BFS on a structurally symmetric graph the two
// may be the same arrays. Either may be null where that direction cannot run.
struct Graph {
  Index n = 0;     // output length (pull rows)
  Index n_in = 0;  // input length (push rows)
  Offset nnz = 0;
  const Offset* out_ptr = nullptr;
  const Vid* out_idx = nullptr;
  const Offset* in_ptr = nullptr;
  const Vid* in_idx = nullptr;
};

// Capacities the kernels use; tests shrink them to force the overflow paths.
struct Capacities {
  int warp_queue = 64;               // entries per warp queue in shared memory
  int block_queue = 2048;            // entries per block queue in shared memory
  int single_block_queue = 4096;     // the single-block body hands over above this
  Index tail_queue = 0;              // the barrier-free tail's global queue (0: n entries)
  Index one_block_vertices = 4096;   // one_block_product(): graphs this small run in one block ...
  Offset one_block_entries = 32768;  // ... with at most this many entries
};

// Long in-rows of a pull (bodies.cuh): a lane scans at most pull_lane_steps() in-edges of its row;
// a row that has not met the frontier by then is deferred and its rest searched after a grid
// barrier, in chunks of kPullChunk in-edges, one warp a chunk, over the whole grid. Without it a
// pull level costs its longest row that never meets the frontier, scanned by one lane: on a web
// crawl, in-rows of tens of thousands of entries took a level to 1 ms.
inline constexpr int kPullLaneSteps = 64;     // the most a lane reads (a sparse frontier)
inline constexpr int kPullLaneStepsMin = 16;  // the least (a dense one)

// The lane budget of a pull whose frontier holds `frontier` of the input's n_in entries. A row
// whose in-neighbours are spread like the frontier meets it within about n_in / frontier in-edges,
// so a lane reads four times that, within [kPullLaneStepsMin, kPullLaneSteps]: on a dense frontier
// the rows still unfound after a few in-edges are the ones that rarely meet it (a web crawl's hubs
// beside their own pages), and the grid searches them faster than one lane does.
// (In float: a 64-bit division in the fused kernel spilled its loop's registers.)
constexpr int pull_lane_steps(Index n_in, Index frontier) {
  const float steps = frontier > 0 ? 4.0f * float(n_in) / float(frontier) : float(kPullLaneSteps);
  return steps < float(kPullLaneStepsMin) ? kPullLaneStepsMin
         : steps > float(kPullLaneSteps)  ? kPullLaneSteps
                                          : int(steps);
}
inline constexpr int kPullChunk = 1024;  // 32 lanes x 32 in-edges

// A push input of at most kFewRows entries holding kFewRowsMinEdges out-edges or more (the first
// level from a hub) is dealt out over every block in chunks of edges (few_rows_level, bodies.cuh)
// rather than a row per block. At 2048 rather than 16384, the web crawl's first level (one row of
// 10,039 edges) took 8 us instead of 24 (H100).
inline constexpr Index kFewRows = 32;
inline constexpr Offset kFewRowsMinEdges = 2048;

// A product over a graph of at most one_block_vertices rows and columns and one_block_entries
// entries (Capacities) runs in one block: scheduling a full grid and its barriers cost more than
// the work (the whole product on a 1k-vertex graph is a few microseconds of one block).
constexpr bool one_block_product(const Capacities& caps, Index n_out, Index n_in, Offset nnz) {
  return n_out <= caps.one_block_vertices && n_in <= caps.one_block_vertices && nnz <= caps.one_block_entries;
}

// The library's policy on this device (calibrate.cu): the built-in one of a known GPU, else
// measured on first use and cached; GBCUDA_CALIBRATION=measure measures a known GPU too, =off
// keeps ProductPolicy's defaults.
ProductPolicy calibrated_product_policy();

// Where calibrated_product_policy() took its policy from, in words: "built-in (H100 ...)",
// "measured", "cached (FILE)" or "defaults (WHY)". Calibrates first if it has not run.
std::string calibrated_policy_source();

// The policies of the GPUs the library is benchmarked on, measured by the calibration once and
// kept: a measurement moves between machine starts of one GPU (beta 18, 40 and 8,532 on three
// starts of one H100), and with it a benchmark's kernel choices. True, and p set, when `name`
// with `sms` multiprocessors is one of them (the name alone does not tell a cut-down part).
bool built_in_policy(const std::string& name, int sms, ProductPolicy& p);

// The largest beta the calibration keeps (pull -> push once the frontier is under n / beta). Its
// circulant graph reaches every vertex, so the tail of its search pulls over few candidates and
// the measured beta can come out in the thousands (18, 40 and 8,532 on three starts of one H100);
// a graph with unreachable vertices then pulls its small last frontiers over
// all of them (kron:22:16's 684-vertex level: 25 us instead of 4; randout:1e8:4: +0.75 ms).
inline constexpr double kMaxBeta = 64.0;

// One level of the calibration's two searches of one graph (all-push and all-pull): the frontier
// the level expanded, the out-edges the push examined, and each direction's time for the level.
struct LevelTimes {
  Index frontier_size = 0;
  Index push_edges = 0;
  double push_seconds = 0.0;
  double pull_seconds = 0.0;
};

// The direction thresholds from those levels (n vertices, nnz edges): alpha where pull starts
// to win while the frontier grows (unexplored / frontier edges, geometric mean of the bracketing
// levels), beta where push wins again while it shrinks (n / frontier). Sets p.alpha (clamped to
// [1, 1000]) and p.beta (to [2, kMaxBeta]) where the levels show a crossover; leaves them else.
void direction_thresholds(const std::vector<LevelTimes>& levels, Index n, Offset nnz, ProductPolicy& p);

// The queue thresholds from the calibration's layered graphs of increasing `widths` (whether
// single-block beat queue-warp at each): single_block_max is the largest width single-block won,
// block_queue_max the crossover (between the last win and the first loss), both at most
// single_block_queue. Sets p.single_block_max and p.block_queue_max.
void queue_thresholds(const std::vector<Index>& widths, const std::vector<bool>& single_wins, Index single_block_queue,
                      ProductPolicy& p);

// Reads a cached policy (the calibration's JSON file) into p; false when it is missing, malformed
// or of another format. beta is capped at kMaxBeta.
bool read_policy_cache(const std::string& file, ProductPolicy& p);

// Capacities for the product kernel (tests shrink them to force the overflow paths; the
// defaults otherwise). Not thread-safe: set before running products.
void set_product_capacities(const Capacities& caps);
Capacities product_capacities();

// True when this GPU can run the persistent kernels (cooperative launch).
bool persistent_kernels_available();

// The fused BFS: every level in one cooperative launch, the next level's kernel chosen on the
// device by the policy. Fills r.level (and r.parent when `parents`), r.levels (when
// collect_stats: one entry per level with the kernel that ran, device-clock times), r.seconds
// (CUDA events, the graph resident), r.vertices_reached. Needs g.n == g.n_in (a square matrix).
// barrier_free_tail: after 64 narrow levels in a row the rest runs without level barriers
// (barrier_free.cuh; with parents, barrier_free_parents_kernel names the tail's afterwards); a
// tail abandoned as too wide is searched again without it, both searches in r.seconds.
void fused_bfs(const Graph& g, Index source, bool parents, const ProductPolicy& policy, const Capacities& caps,
               bool collect_stats, bool barrier_free_tail, BfsResult& r);

}  // namespace gbcuda::detail::cuda::product
