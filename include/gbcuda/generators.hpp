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
// Numbers may be written in decimal or with an exponent ("1e8"). A generated graph is a pattern
// (iso) Matrix<bool>, a pure function of (spec, seed): the host and the GPU build the identical
// matrix, on any number of threads.
#include <cstdint>
#include <string>

#include "gbcuda/matrix.hpp"

namespace gbcuda {

struct GraphSpec {
  enum class Kind { Kron, Urand, Grid, RandOut };
  Kind kind = Kind::Kron;
  int scale = 0;          // kron, urand: 2^scale vertices (1..30)
  Index edge_factor = 0;  // kron, urand: edges drawn = edge_factor * 2^scale
  Index width = 0;        // grid
  Index height = 0;       // grid
  Index degree = 0;       // randout: out-edges per vertex
  Index vertices = 0;     // every kind: the matrix is vertices x vertices

  // Edges drawn (kron, urand: before symmetrizing and deduplication), or the exact number of
  // stored entries (grid, randout).
  Index edges_drawn() const;
  // The canonical spec text, e.g. "kron:22:16".
  std::string text() const;
};

// The seed used when none is given.
inline constexpr std::uint64_t kDefaultGraphSeed = 0x67626375646121ULL;

// True when `text` names a generator ("kron:", "urand:", "grid:", "randout:" prefix), i.e.
// should not be opened as a file. (A file with such a name can be given as "./kron:...".)
bool is_graph_spec(const std::string& text);

// Parses a spec; throws Error(InvalidValue) naming the spec and what is wrong (unknown kind,
// missing or non-numeric field, zero sizes, more than 2^31-1 vertices, ...).
GraphSpec parse_graph_spec(const std::string& text);

// Builds the graph. Backend::Cuda builds the CSR in GPU memory (it never passes through the
// host) and first checks that the GPU has room: Error(OutOfMemory, "... needs X GiB, Y GiB
// free") otherwise; Error(NoDevice) in a build without CUDA or without a GPU. Backend::Host
// uses OpenMP threads.
Matrix<bool> generate_graph(const GraphSpec& spec, Backend where, std::uint64_t seed = kDefaultGraphSeed);
inline Matrix<bool> generate_graph(const std::string& spec, Backend where, std::uint64_t seed = kDefaultGraphSeed) {
  return generate_graph(parse_graph_spec(spec), where, seed);
}

}  // namespace gbcuda
