#pragma once
// Seed BFS kernels kept for comparison (one file each in lib/baselines/). Same result contract
// as the frontier engine: r.level (-1 unreachable), r.parent when `parents` (source: itself),
// r.seconds timed with CUDA events once the graph is on the GPU, r.levels when collect_stats.
#include "cuda/frontier/frontier_bfs.hpp"

namespace gbcuda::detail::cuda::baselines {

// Rodinia two-kernel BFS: frontier mask, updating mask, visited; host polls an `over` flag.
void rodinia(const frontier::DeviceGraph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per vertex, top-down: vertices on the current level expand their out-edges.
void vertex_top_down(const frontier::DeviceGraph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per vertex, bottom-up: unvisited vertices look for an in-neighbour on the level.
void vertex_bottom_up(const frontier::DeviceGraph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One thread per stored edge (COO), each level scanning every edge.
void edge_coo(const frontier::DeviceGraph& g, Index source, bool parents, bool collect_stats, BfsResult& r);
// One block per frontier vertex, its threads over the vertex's edges, global frontier queue.
void block_per_vertex(const frontier::DeviceGraph& g, Index source, bool parents, bool collect_stats, BfsResult& r);

}  // namespace gbcuda::detail::cuda::baselines
