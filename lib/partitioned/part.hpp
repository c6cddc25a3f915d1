#pragma once
// One part of a partitioned graph (partitioned.hpp: 1D by destination) and one BFS level over it,
// on the host (part.cpp) or on the part's GPU (part_step.cu).
#include <cstdint>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/matrix.hpp"

namespace gbcuda::detail::partitioned {

using ull = unsigned long long;

// Part p's graph, in its memory: the vertices [begin, end) are its own ("local" ids v - begin).
struct PartGraph {
  Index n = 0;  // vertices of the whole graph
  Index begin = 0, end = 0;
  Index slice_words = 0;  // words of every part's slice of a bitmap (the same for all parts)
  Array<Offset> in_ptr;   // end - begin + 1: the in-edges of the own vertices ...
  Array<Vid> in_idx;      // ... their sources, global ids
  Array<Offset> out_ptr;  // n + 1: for every vertex u, its out-edges into the own vertices ...
  Array<Vid> out_idx;     // ... their destinations, local ids
  Array<Index> degree;    // end - begin: each own vertex's out-degree in the whole graph
  Index own() const { return end - begin; }
};

// Builds part p of `parts` from the whole graph's rows and its transpose's (host CSRs with
// sorted rows), in `where`'s memory (on the GPU: the current device).
template <class T>
PartGraph build_part(const Csr<T>& rows, const Csr<T>& in_rows, int parts, int p, Backend where);

// A part's search state, in its memory.
struct PartState {
  Array<std::uint32_t> frontier;  // parts * slice_words: the whole frontier (allgathered)
  Array<std::uint32_t> next;      // slice_words: the own vertices found in this level
  Array<std::uint32_t> visited;   // slice_words
  Array<std::int32_t> level;      // own(): -1 until reached
  Array<ull> counts;              // kCounts + 1 (device parts): the counts, then the big rows' count
  Array<Vid> big;                 // device parts: the frontier vertices whose push waits for the grid
};
// A push on the GPU expands a frontier vertex with more out-edges into the part than this with
// the whole grid (one warp would take as long as all others: a hub of 400,000 took 9.6 ms).
inline constexpr Offset kBigRow = 2048;
inline constexpr int kCounts = 3;  // found, their out-edges (whole-graph degrees), edges examined

// Allocates and clears a part's state; the source's owner marks it visited at level 0.
PartState make_state(const PartGraph& g, int parts, Index source, Backend where);

// One level on part g: next = the own unvisited vertices with an in-neighbour in `frontier`
// (pull: each scans its in-edges and stops at the first in the frontier; push: every frontier
// vertex's out-edges into the part), marked visited with level `lvl`. counts[] = what the level
// found and examined on this part. next is cleared first.
void host_level(const PartGraph& g, PartState& s, bool pull, int lvl, ull counts[kCounts]);
void cuda_level(const PartGraph& g, PartState& s, bool pull, int lvl, ull counts[kCounts]);  // part_step.cu

}  // namespace gbcuda::detail::partitioned
