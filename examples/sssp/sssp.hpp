#pragma once
// Single-source shortest paths by Bellman-Ford, written with gbcuda's public calls only: one
// min-plus vector-matrix product a round, until no distance shrinks (at most n - 1 rounds
// without negative cycles; a round more means there is one).
//
//   d = {source: 0}
//   repeat:  t = d;  t' min= d' * A   over MIN_PLUS (A's values are the edge weights)
//            stop when t == d (same entries, and since t <= d, no decrease: sum(d - t) == 0)
//            d = t
//
// On the GPU a round waits for the device twice (the count and the sum), nothing else.
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
};

template <class T>
constexpr T unreachable() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}

// Shortest paths from `source` over A (A(i,j) = the weight of edge i -> j, at least 0 expected;
// negative cycles reachable from the source are reported with std::runtime_error).
template <class T>
SsspOutput<T> sssp(const gbcuda::Matrix<T>& A, gbcuda::Index source, gbcuda::Backend where) {
  using namespace gbcuda;
  const Index n = A.nrows();
  Vector<T> d(n, where);
  d.set_element(source, T(0));
  SsspOutput<T> out;
  for (Index round = 0;; ++round) {
    if (round >= n) throw std::runtime_error("sssp: a negative cycle is reachable from the source");
    ++out.rounds;
    Vector<T> t = d;
    vxm(t, no_mask, Min<T>{}, MinPlus<T>{}, d, A);
    if (t.nvals() == d.nvals()) {  // same entries: equal unless some distance shrank
      Vector<T> shrink(n, where);
      ewise_mult(shrink, no_mask, no_accum, Minus<T>{}, d, t);
      if (reduce(PlusMonoid<T>{}, shrink) == T(0)) break;
    }
    d = std::move(t);
  }
  out.distance = d.to_dense_vector(unreachable<T>());
  return out;
}

}  // namespace example
