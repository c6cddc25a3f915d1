#pragma once
// bfs_bench --graph500 SCALE [EDGEFACTOR]: the Graph500 BFS benchmark (specification 3.0, its
// BFS kernel) on one device, or on the graph split into parts (several GPUs over NCCL): kernel 1
// (construction) timed, 64 search keys drawn as the specification says, each search validated,
// TEPS over the input edges in the searched component, and the statistics in the reference
// code's output format.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gbcuda/partitioned.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda_bench {

struct Graph500Options {
  int scale = 0;
  gbcuda::Index edge_factor = 16;
  int keys = 64;           // search keys (the specification's NBFS: 64)
  std::uint64_t seed = 1;  // the search keys' draw (the graph: the generators' default seed)
  gbcuda::Backend backend = gbcuda::Backend::Cuda;
  bool validate = true;
  // > 0: the searches run on the graph split into this many parts (PartitionedGraph, built in
  // kernel 1), talking through `transport` (nccl: part p on GPU gpus[p], or p).
  int partitions = 0;
  gbcuda::Transport transport = gbcuda::Transport::Loopback;
  std::vector<int> gpus;
};

// Runs it, prints the report on stdout (progress on stderr) and returns every number as JSON.
// Throws gbcuda::Error as the library does; a search that fails validation is reported and
// makes `failed` true.
nlohmann::json run_graph500(const Graph500Options& o, bool& failed);

}  // namespace gbcuda_bench
