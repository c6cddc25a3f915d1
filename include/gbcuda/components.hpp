#pragma once
// Connected components (LAGraph's LAGr_ConnectedComponents, whose GraphBLAS formulation is FastSV)
// by concurrent union-find with Afforest's sampling (Sutton, Ben-Nun and Bar-Noy, IPDPS'18), the
// way the fastest GPU codes (ECL-CC, Afforest) run it:
//   1. every vertex is its own tree; each vertex's first two neighbours are linked to it (the
//      root with the larger id is hooked under the one with the smaller, by compare-and-swap);
//   2. the trees are flattened and 1024 vertices sampled: their most frequent root is taken for
//      the giant component;
//   3. every vertex outside it links its remaining neighbours (an edge between the giant
//      component and another is seen from the other side, the graph being symmetric);
//   4. the trees are flattened again: each vertex's root is its component's smallest vertex id.
// A graph whose structure is not symmetric gets its weakly connected components: step 3 then
// links every entry of every vertex, no sampling. Same algorithm on both backends (OpenMP on the
// host, one kernel per step on the GPU).
#include <cstdint>

#include "gbcuda/matrix.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {

// component(v) = the smallest vertex id of v's component, for every vertex (a full vector; an
// isolated vertex is its own component), in `where`'s memory. The number of components is the
// count of v with component(v) == v. A's values are not read; an entry (i, j) connects i and j
// whichever way it points. Error(InvalidValue) for a matrix that is not square.
template <class T>
Vector<std::int64_t> connected_components(const Matrix<T>& A, Backend where = Backend::Host);

}  // namespace gbcuda
