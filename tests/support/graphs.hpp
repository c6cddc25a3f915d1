#pragma once
// Random and structured test graphs, deterministic for a seed.
#include <cstdint>
#include <string>
#include <vector>

#include "gbcuda/matrix.hpp"

namespace gbtest {

struct GraphSpec {
  gbcuda::Index n = 100;
  double avg_degree = 4.0;
  bool directed = true;
  bool self_loops = false;  // add some i -> i entries
  bool duplicates = false;  // repeat some entries (they must merge)
  double isolated = 0.0;    // fraction of vertices with no edges at all
  std::uint64_t seed = 1;
  std::string name() const;
};

// A random graph (Erdos-Renyi-like edge sampling) as a pattern matrix.
gbcuda::Matrix<bool> random_graph(const GraphSpec& spec);
// A star: vertex 0 linked both ways to vertices 1..n-1.
gbcuda::Matrix<bool> star_graph(gbcuda::Index n);
// A directed or undirected path 0 - 1 - ... - n-1.
gbcuda::Matrix<bool> path_graph(gbcuda::Index n, bool directed);

// Level sizes (count of vertices per level) of a level vector.
std::vector<gbcuda::Index> level_sizes(const std::vector<std::int32_t>& level);

}  // namespace gbtest
