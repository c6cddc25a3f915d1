#pragma once
// One part of a partitioned graph (partitioned.hpp: 1D by destination) and one BFS level over it,
// on the host (part.cpp) or on the part's GPU (part_step.cu).
#include <cstdint>
#include <memory>
#include <vector>

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
  // slice_words: the own vertices without in-edges, which no level can reach. A search starts
  // with them marked visited, so a pull skips them; on kron graphs they are half of the vertices,
  // spread so that nearly every word of a late pull held one.
  Array<std::uint32_t> unreachable;
  Index own() const { return end - begin; }
};

// Part p of `parts` of a graph of n vertices with nothing in it yet: its range and slice.
PartGraph part_frame(Index n, int parts, int p);

// Builds part p of `parts` from the whole graph's rows and its transpose's (host CSRs with
// sorted rows), in `where`'s memory (on the GPU: the current device).
template <class T>
PartGraph build_part(const Csr<T>& rows, const Csr<T>& in_rows, int parts, int p, Backend where);

// Builds part p on the current GPU from the transpose's rows in GPU memory (any GPU's: the part's
// slice is copied over, then everything happens on the current one) and the whole graph's
// out-degrees: the in-edges are the slice of rows [begin, end), the out-edges into the part its
// transpose (transpose_csr). in_ptr: n + 1 offsets; in_idx: their entries. The caller makes sure
// the writes of in_ptr and in_idx are done. At its peak the build holds about
// device_build_bytes(n, entries of the slice) of the current GPU (part_step.cu: CUDA builds only).
PartGraph build_part_on_device(const Offset* in_ptr, const Vid* in_idx, Index n, const std::vector<Index>& out_degree,
                               int parts, int p);
std::size_t device_build_bytes(Index n, Offset slice_entries);

inline constexpr int kCounts = 3;  // found, their out-edges (whole-graph degrees), edges examined

// Where a search stands at a level: its frontier and the direction rule's inputs.
struct LevelProgress {
  ull size, edges;    // this level's frontier: vertices, their out-edges in the whole graph
  ull prev;           // the frontier's size a level before
  double unexplored;  // edges not yet examined from the frontier's side (Beamer's m_u)
  int pull, stop;     // this level's direction; stop: the frontier is empty, nothing to do
};

// What a level loop knows at a level, in the part's memory (on the GPU: written by kernels, so
// that the direction is chosen without the host).
struct LoopState {
  ull counts[kCounts + 1];  // this part's counts of the level, then (GPU) the big rows waiting
  ull sums[kCounts];        // the counts summed over the parts (the exchange writes them)
  LevelProgress at;
};

// Before level 1: the frontier is the source, of out-degree `degree`, in a graph of `nnz` edges.
LevelProgress first_progress(Index degree, Offset nnz);

// Moves `at` (level lvl - 1's) to level lvl, given level lvl - 1's summed counts (every part holds
// the same sums, so all take the same direction and stop together). The direction rule is
// Beamer's on the whole graph's counts: pull once the frontier's out-edges exceed the unexplored
// edges / alpha while it grows; push again once it has shrunk below n / beta.
GBCUDA_HD inline void begin_level(LevelProgress& at, const ull sums[kCounts], int lvl, double alpha, double beta,
                                  double n) {
  if (lvl > 1) {
    at.unexplored -= double(at.edges);
    at.prev = at.size;
    at.size = sums[0];
    at.edges = sums[1];
  }
  at.stop = at.size == 0;
  const bool growing = at.size > at.prev;
  if (!at.pull && growing && double(at.edges) > at.unexplored / alpha) at.pull = 1;
  else if (at.pull && !growing && double(at.size) < n / beta) at.pull = 0;
}

// A part's search state, in its memory. The loop state and the next frontier alternate between
// two buffers by the level's parity (loop_of, next_of), so that a level's one kernel can start it
// from the level before's state and clear the next level's buffers without a launch of its own:
// level lvl reads loop_of(lvl - 1) and writes loop_of(lvl) and next_of(lvl); it clears the counts
// of loop_of(lvl + 1) and next_of(lvl + 1), both consumed by the exchange of level lvl - 1.
struct PartState {
  Array<std::uint32_t> frontier;  // parts * slice_words: the whole frontier (allgathered)
  Array<std::uint32_t> next;      // 2 * slice_words: the own vertices found in a level
  Array<std::uint32_t> visited;   // slice_words
  Array<std::int32_t> level;      // own(): -1 until reached
  Array<Vid> parent;              // own() when the search names parents (global ids), else empty
  Array<LoopState> loop;          // two
  Array<Vid> big;                 // device parts: the frontier vertices whose push waits for the grid
};
inline LoopState* loop_of(PartState& s, int lvl) { return s.loop.data() + (lvl & 1); }
inline std::uint32_t* next_of(PartState& s, int lvl) { return s.next.data() + (lvl & 1) * (s.next.size() / 2); }
// A push on the GPU expands a frontier vertex with more out-edges into the part than this with
// the whole grid (one warp would take as long as all others: a hub of 400,000 took 9.6 ms).
inline constexpr Offset kBigRow = 2048;

// Allocates and clears a part's state: visited holds g.unreachable, and the source's owner marks
// the source visited at level 0 (its own parent, with `parents`). The loop starts at first_progress(source_degree, nnz)
// in loop_of(0).
PartState make_state(const PartGraph& g, int parts, Index source, Index source_degree, Offset nnz, bool parents,
                     Backend where);

// Level lvl on part g: begin_level on the level before's state and sums into loop_of(lvl), whose
// counts start at zero, then, unless it says stop, next_of(lvl) = the own unvisited vertices with
// an in-neighbour in `frontier` (pull: each scans its in-edges and stops at the first in the
// frontier; push: every frontier vertex's out-edges into the part), marked visited with level lvl
// and, when s.parent is kept, that in-neighbour as parent; the part's counts of the level in
// loop_of(lvl). host_level runs it; cuda_level enqueues it on the thread's stream (one kernel, and
// one for the push's big rows).
void host_level(const PartGraph& g, PartState& s, int lvl, double alpha, double beta);
void cuda_level(const PartGraph& g, PartState& s, int lvl, double alpha, double beta);  // part_step.cu

// The host's copies of each level's LoopState, taken without waiting for the level (on the GPU:
// pinned slots, an event a level), and each level's time: so the host can enqueue a level before
// the one before it ends.
class LevelReports {
 public:
  explicit LevelReports(Backend where);
  ~LevelReports();
  LevelReports(const LevelReports&) = delete;
  LevelReports& operator=(const LevelReports&) = delete;
  void start();                                // the search's clock starts (after level 0's set-up)
  void copy(const LoopState* state, int lvl);  // the state after level lvl (lvl = 1, 2, ...)
  const LoopState& wait(int lvl);              // that copy, once complete; levels in order
  double seconds(int lvl);                     // level lvl's time, once waited for
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gbcuda::detail::partitioned
