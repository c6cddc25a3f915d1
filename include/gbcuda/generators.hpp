#pragma once
// Synthetic graphs, named by a short spec wherever a graph file is accepted:
//
//   kron:S:E     Graph500 Kronecker (A=.57, B=C=.19, D=.05): 2^S vertices, E*2^S edges drawn,
//                vertex ids randomly permuted, symmetrized, self loops and duplicates removed.
//   urand:S:K    2^S vertices, K*2^S edges with uniform random endpoints, symmetrized, self
//                loops and duplicates removed.
//   grid:W:H     W x H 2-D grid, 4 neighbours, both directions; vertex (x, y) has id y*W + x.
//   randout:N:D  N vertices, each with exactly D distinct out-edges to uniformly random vertices
//                (a repeated draw is drawn again; self loops allowed). Not symmetric.
//
//
// Shapes of real graphs (the real suite: bench/README.md):
//   rmat:S:E[:A:B:C]  R-MAT, directed: 2^S vertices, E*2^S edges u -> v drawn with quadrant
//                probabilities A, B, C and D = 1-A-B-C (default .55:.10:.30, so D = .05: a column
//                bit is 0 with probability A+C = .85 and a row bit with A+B = .65, hence in-degrees
//                more skewed than out-degrees, as in a web or citation graph); ids permuted; self
//                loops and duplicates removed; not symmetric.
//   powerlaw:N:D[:K]  N vertices, D*N edges u -> v drawn with u uniform and v of Zipf rank
//                (rank floor(N x^K), x uniform; K = 1..8, default 3), ranks permuted: a few
//                vertices with in-degree in the thousands, most with a handful; out-degrees Poisson
//                around D. Self loops and duplicates removed; not symmetric.
//   web:N        a web crawl's shape, symmetric, N >= 1000 vertices, about 6.7 N stored entries:
//                site hubs whose rows hold thousands of low-degree members, a core of pages,
//                and comb-shaped tails, the longest ending at secluded sites (whose hub rows a
//                pull scans in vain until a BFS reaches them late). From the highest-degree
//                vertex a BFS has a wide level, a narrow one, a few wide ones and then about 20
//                thin ones (lib/generators/generator_core.hpp, WebEdges, says how).
//   road:W:H     a road map's shape, symmetric: a W x H lattice (vertex y*W + x) thinned to a
//                random spanning tree plus one bond in five and a few diagonals; connected,
//                degrees 1..6, mean about 2.5, BFS depth in the thousands for W = H = 1000.
// Numbers may be written in decimal or with an exponent ("1e8"). A generated graph is a pattern
// (iso) Matrix<bool>, a pure function of (spec, seed): the host and the GPU build the identical
// matrix, on any number of threads.
#include <cstdint>
#include <string>
#include <vector>

#include "gbcuda/matrix.hpp"

namespace gbcuda {

struct GraphSpec {
  enum class Kind { Kron, Urand, Grid, RandOut, RMat, PowerLaw, Web, Road };
  Kind kind = Kind::Kron;
  int scale = 0;          // kron, urand, rmat: 2^scale vertices (1..30)
  Index edge_factor = 0;  // kron, urand, rmat: edges drawn = edge_factor * 2^scale
  Index width = 0;        // grid, road
  Index height = 0;       // grid, road
  Index degree = 0;       // randout: out-edges per vertex; powerlaw: edges drawn per vertex
  double rmat_a = 0.55, rmat_b = 0.10, rmat_c = 0.30;  // rmat: quadrant probabilities
  int exponent = 3;                                    // powerlaw: K
  Index vertices = 0;                                  // every kind: the matrix is vertices x vertices

  // Edges drawn (kron, urand, rmat, powerlaw, web, road: before symmetrizing and the removal of
  // self loops and duplicates), or the exact number of stored entries (grid, randout).
  Index edges_drawn() const;
  // Whether the generated matrix is symmetric (every kind but randout, rmat and powerlaw).
  bool symmetric() const;
  // The canonical spec text, e.g. "kron:22:16", "rmat:20:16:0.55:0.1:0.3" (every field written).
  std::string text() const;
};

// The seed used when none is given.
inline constexpr std::uint64_t kDefaultGraphSeed = 0x67626375646121ULL;

// True when `text` names a generator ("kron:", "urand:", "grid:", "randout:", "rmat:",
// "powerlaw:", "web:", "road:" prefix), i.e.
// should not be opened as a file. (A file with such a name can be given as "./kron:...".)
bool is_graph_spec(const std::string& text);

// Parses a spec; throws Error(InvalidValue) naming the spec and what is wrong (unknown kind,
// missing or non-numeric field, zero sizes, more than 2^31-1 vertices, ...).
GraphSpec parse_graph_spec(const std::string& text);

// Builds the graph. Backend::Cuda builds the CSR in GPU memory (it never passes through the
// host) and first checks that the GPU has room: Error(OutOfMemory, "... needs X GiB, Y GiB
// free") otherwise; Error(NoDevice) in a build without CUDA or without a GPU. Backend::Host
// uses OpenMP threads.
// On the GPU, the kinds drawn edge by edge (all but grid and randout) sort 64-bit keys, one per
// edge drawn (two for the symmetric kinds), through two buffers. When those would take
// more than 3/4 of the free memory, the CSR is built one group of consecutive rows at a time,
// within a working budget: the free memory less the CSR (its columns first allocated for every
// key) and a reserve of 1/16; each group draws every edge again. The environment variable
// GBCUDA_GENERATOR_WORKING_BYTES (bytes, or with a K, M or G suffix: 512M, 8G) forces that build
// with that budget for the keys and CUB's temporary storage (the CSR comes on top); a value that
// is not a positive byte count is Error(InvalidValue). The matrix is the same either way.
Matrix<bool> generate_graph(const GraphSpec& spec, Backend where, std::uint64_t seed = kDefaultGraphSeed);
inline Matrix<bool> generate_graph(const std::string& spec, Backend where, std::uint64_t seed = kDefaultGraphSeed) {
  return generate_graph(parse_graph_spec(spec), where, seed);
}

// Graph500's edge count of one search (its "nedge"): the edges drawn, before symmetrizing and the
// removal of self loops and duplicates, whose both ends the search reached (level[v] >= 0), each
// counted once. Drawn again on the host (OpenMP) from the same seed. For kron, urand and rmat,
// whose edges are drawn independently; Error(InvalidValue) for the other kinds or a level vector
// of another length.
Index count_drawn_edges_within(const GraphSpec& spec, const std::vector<std::int32_t>& level,
                               std::uint64_t seed = kDefaultGraphSeed);

}  // namespace gbcuda
