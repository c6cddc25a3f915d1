#pragma once
// Single-source shortest paths by Bellman-Ford over a frontier, written with gbcuda's public
// calls only: a round relaxes the out-edges of the vertices whose distance fell in the round
// before (at most n - 1 rounds without negative cycles; a round more means there is one).
//
//   d = {source: 0}, f = {source: 0}
//   repeat:  d<f> = f                    (the first time: the source, already there)
//            t = f' * A                  over MIN_PLUS (A's values are the edge weights)
//            f<!d> = t                   t's vertices not reached before ...
//            f<(d - t) > 0> = t          ... and those t brings closer
//   while f has entries
//
// A round costs the frontier's out-edges, not the whole graph's (the dense d' * A of the plain
// Bellman-Ford). The rounds run in gbcuda::device_loop: on the GPU they repeat as one CUDA graph
// with no wait for the device between them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

template <class T>
struct SsspOutput {
  std::vector<T> distance;  // distance[v] from the source; infinity (or the type's max) when unreachable
  int rounds = 0;           // products run, the last one finding nothing to improve
  gbcuda::LoopResult loop;  // how the rounds ran (on the GPU: whether as one CUDA graph)
};

template <class T>
constexpr T unreachable() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}

// Shortest paths from `source` over A (A(i,j) = the weight of edge i -> j, at least 0 expected;
// negative cycles reachable from the source are reported with std::runtime_error). `loop`: how
// the rounds run (gbcuda::LoopOptions; its iteration limit is capped at n, and a search it stops
// earlier returns the distances found so far).
template <class T>
SsspOutput<T> sssp(const gbcuda::Matrix<T>& A, gbcuda::Index source, gbcuda::Backend where,
                   const gbcuda::LoopOptions& loop = {}) {
  using namespace gbcuda;
  const Index n = A.nrows();
  Vector<T> d(n, where), f(n, where), t(n, where), diff(n, where), better(n, where);
  d.set_element(source, T(0));
  f.set_element(source, T(0));
  SsspOutput<T> out;
  LoopOptions rounds = loop;
  rounds.max_iterations = std::min(loop.max_iterations, std::max<Index>(n, 1));  // f is empty by then
  const LoopResult r = device_loop(
      [&] {
        assign(d, f, no_accum, f, desc::S);
        vxm(t, no_mask, no_accum, MinPlus<T>{}, f, A);
        apply(f, d, no_accum, Identity<T>{}, t, desc::RSC);  // f<!struct(d), replace> = t
        ewise_mult(diff, no_mask, no_accum, Minus<T>{}, d, t);
        select(better, no_mask, no_accum, ValueGt{}, diff, 0.0);
        apply(f, better, no_accum, Identity<T>{}, t, desc::S);
      },
      f, rounds);
  if (r.iterations >= n && f.nvals() > 0)
    throw std::runtime_error("sssp: a negative cycle is reachable from the source");
  out.rounds = int(r.iterations);
  out.loop = r;
  out.distance = d.to_dense_vector(unreachable<T>());
  return out;
}

}  // namespace example
