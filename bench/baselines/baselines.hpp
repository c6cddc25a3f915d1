#pragma once
// The seed BFS kernels, kept to show what each idea of the library's kernels buys: bfs_bench
// runs them beside the library (`--kernels rodinia,...`) and the kernel tests check them. Not
// part of the library or its API. One file each (bench/baselines/*.cu), the same result contract
// as gbcuda::bfs: r.level (-1 unreachable), r.parent when `parents` (source: itself), r.seconds
// timed with CUDA events once the graph is on the GPU, r.levels when collect_stats.
#include <string>
#include <vector>

#include "cuda/product/product.hpp"
#include "gbcuda/bfs.hpp"

namespace gbcuda::detail::cuda::baselines {

using product::Graph;

// Rodinia two-kernel BFS: frontier mask, updating mask, visited; host polls an `over` flag.
void rodinia(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per vertex, top-down: vertices on the current level expand their out-edges.
void vertex_top_down(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per vertex, bottom-up: unvisited vertices look for an in-neighbour on the level.
void vertex_bottom_up(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per stored edge (COO), each level scanning every edge.
void edge_coo(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One block per frontier vertex, its threads over the vertex's edges, global frontier queue.
void block_per_vertex(const Graph& g, Index source, bool parents, bool collect_stats, BfsResult& r);

}  // namespace gbcuda::detail::cuda::baselines

namespace gbcuda::baselines {

struct Baseline {
  const char* name;         // e.g. "rodinia"
  const char* description;  // one line
  bool needs_in_edges;      // searches A' (the transpose) too
  void (*run)(const detail::cuda::baselines::Graph&, Index, bool, bool, BfsResult&);
};
// Every baseline, in a fixed order.
const std::vector<Baseline>& all();
// The baseline named `name`, or nullptr.
const Baseline* find(const std::string& name);
// BFS from `source` with a baseline on the GPU: the graph is moved there first (untimed), and
// the result is completed as gbcuda::bfs completes its own (levels, edges traversed).
template <class T>
BfsResult run(const Baseline& b, const Matrix<T>& A, Index source, bool parents, bool collect_stats);

}  // namespace gbcuda::baselines
