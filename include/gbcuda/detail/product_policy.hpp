#pragma once
// Which kernel runs a boolean masked product (vxm/mxv over LorLand, AnyPair, AnySecondI): the one
// function that decides, for every caller. GBCUDA_HD so that the CUDA backend evaluates it on the
// device from device-side counts (no host round trip), inside the product's own kernel and inside
// the fused BFS between levels; the host backend evaluates the same function for its push/pull
// choice.
#include "gbcuda/descriptor.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// What is known about a product before it runs. For a BFS, the input is the frontier.
struct FrontierInfo {
  Index frontier_size = 0;           // entries of the input
  Index previous_frontier_size = 0;  // entries of the input of the product that produced it (0: none)
  Index frontier_edges = 0;          // out-edges of the input's entries (the work of a push)
  Index unexplored_edges = 0;        // edges a pull may still have to look at
  Index n = 0;                       // length of the output
  bool pulling = false;              // the input was produced by a pull
  double pull_penalty = 1.0;         // how much more the chain's last pull read than the rule
                                     // assumed (pull_penalty_after; 1: none yet, or as assumed)
};

// Thresholds of the cost model. Defaults are Beamer's (GAP) direction constants and sizes
// measured on the H100; on the GPU, calibrated_product_policy() (lib/cuda/product/calibrate.cu)
// replaces them with values measured on the device and caches them per device.
struct ProductPolicy {
  ProductKernel forced = ProductKernel::Auto;  // one kernel, or Auto to choose per product
  double alpha = 15.0;                         // go pull when frontier_edges > unexplored_edges / alpha (while growing)
  double beta = 18.0;                          // go back to push when frontier_size < n / beta (while shrinking)
  Index single_block_max = 1024;               // frontier <= this: one block ...
  Index single_block_max_edges = 2048;         // ... while its out-edges fit one block's work too: a
                                               // level of 512 random-graph vertices (4,096 edges) took
                                               // 17 us in one block and 8 us on block queues over every
                                               // SM (randout:1e6:8, H100);
                                               // 2,048 keeps a 512-wide mesh level (4 edges a vertex)
                                               // in one block, as calibrated (single_block_max)
  Index block_queue_max = 1024;                // frontier <= this: block queues ...
  Index block_queue_max_edges = 1 << 23;       // ... and so are pushes of at most this many
                                               // out-edges; above both: warp queues. Block queues ran
                                               // levels of 2-24K vertices (5-124K edges) faster
                                               // (web:325000 -5%, rmat:20:16 -4%) and urand:26:8's
                                               // push of 3.1M edges 6% faster; warp queues its pushes
                                               // of 49M and 531M edges 9% faster (H200)
  double pull_edge_cost = 1.0;                 // an in-edge a pull reads, in out-edges a push expands
                                               // (pull_penalty_after; 0: no penalty)
  Index pull_fixed_edges = 131072;             // what starting a pull costs beyond its reads (the
                                               // frontier queue made a bitmap: two grid barriers), in
                                               // out-edges a push expands: small social graphs pulled
                                               // at 2.2x the push's time without it, 1.05-1.12x with
                                               // it (64K left one at 1.4x; H100)
};

// The policy a call runs with: `base` (the library's) with a descriptor's choices laid over it.
// Direction::Push never pulls; Direction::Pull always does; a forced kernel wins over both;
// alpha/beta of 0 keep the base's.
GBCUDA_HD inline ProductPolicy policy_for_call(ProductPolicy base, Direction direction, ProductKernel kernel,
                                               double alpha, double beta) {
  if (alpha > 0) base.alpha = alpha;
  if (beta > 0) base.beta = beta;
  if (direction == Direction::Push) base.alpha = 0.0;  // frontier_edges > unexplored / 0 = inf never holds
  if (direction == Direction::Pull) base.forced = ProductKernel::Pull;
  if (kernel != ProductKernel::Auto) base.forced = kernel;
  return base;
}

// After a pull that read `examined` in-edges while `unexplored` edges were left: how many times
// more than Beamer's rule assumes it reads (unexplored / alpha, counted in pushed edges at
// p.pull_edge_cost each), at least 1. A pull stops early at a row's first in-edge in the frontier;
// on a graph whose long in-rows rarely meet it (a web crawl's hubs beside their own pages) a pull
// reads most of those rows to their end, and the next choices then demand that much more of a
// frontier before they pull.
GBCUDA_HD inline double pull_penalty_after(const ProductPolicy& p, Index examined, Index unexplored) {
  if (!(p.alpha > 0) || unexplored <= 0) return 1.0;
  const double r = double(examined) * p.pull_edge_cost * p.alpha / double(unexplored);
  return r > 1.0 ? r : 1.0;
}

// The kernel for a product described by `l`. `can_pull`: the transpose's rows (the pull's input)
// are at hand; without them every choice is a push.
GBCUDA_HD inline ProductKernel choose_product_kernel(const ProductPolicy& p, const FrontierInfo& l,
                                                     bool can_pull = true) {
  if (p.forced != ProductKernel::Auto && (p.forced != ProductKernel::Pull || can_pull)) return p.forced;
  const bool growing = l.frontier_size > l.previous_frontier_size;
  const double pull_work = double(l.unexplored_edges) * l.pull_penalty / p.alpha;
  bool pull = l.pulling;
  if (!pull && growing && double(l.frontier_edges) > pull_work + double(p.pull_fixed_edges)) pull = true;
  // After a pull that read more than assumed, every level weighs the two again.
  if (pull && l.pull_penalty > 1.0 && !(double(l.frontier_edges) > pull_work)) pull = false;
  if (pull && !growing && double(l.frontier_size) < double(l.n) / p.beta) pull = false;
  if (pull && can_pull && p.forced == ProductKernel::Auto) return ProductKernel::Pull;
  if (l.frontier_size <= p.single_block_max && l.frontier_edges <= p.single_block_max_edges)
    return ProductKernel::SingleBlock;
  if (l.frontier_size <= p.block_queue_max || l.frontier_edges <= p.block_queue_max_edges)
    return ProductKernel::QueueBlock;
  return ProductKernel::QueueWarp;
}

// The direction rule of the value product (every semiring but the boolean frontier ones): its
// push combines each term into the output with an atomic of the monoid and its pull gathers a
// value for each in-edge, so an edge costs about the same either way. On the H100 (MinPlus<float>
// over kron:22:16 and urand:22:16, each round forced both ways) the push was the cheaper below
// about 40% of the pull's edges; Beamer's alpha of 15 pulled rounds of 9-50M edges at 1.1-2.8x
// the push's time.
inline constexpr double kValueProductAlpha = 2.5;
GBCUDA_HD inline ProductPolicy value_product_policy() {
  ProductPolicy p;
  p.alpha = kValueProductAlpha;
  return p;
}

// The arithmetic products cuSPARSE computes (PlusTimes over float or double, every operand of
// that type with its values stored, fewer than 2^31 entries) go to it on the GPU: its SpMV ran
// 1.4-2.7x faster than the library's own pull on the H100 (docs/performance.md), and its SpGEMM is
// the reference a GPU mxm is measured by. A mask or an input with absent entries keeps the
// library's kernels (cuSPARSE computes neither), and so does a forced kernel (a descriptor's
// Pull runs the library's own pull, which tests compare with cuSPARSE's).
// A full input goes to cuSPARSE whatever its size: the push/pull rule (choose_product_kernel) would
// push a small product, every entry's row with atomics, where one SpMV does.
struct LibraryProductCase {
  bool computes = false;                  // semiring, types, stored values and entry counts as above
  bool masked = false;                    // the product has a mask
  bool input_full = true;                 // a vector input has every position present
  Direction direction = Direction::Auto;  // the descriptor's: Push or Pull keep the library's kernels
};
GBCUDA_HD inline bool by_cusparse(const ProductPolicy& p, const LibraryProductCase& c) {
  return p.forced == ProductKernel::Auto && c.direction == Direction::Auto && c.computes && !c.masked && c.input_full;
}

}  // namespace gbcuda::detail
