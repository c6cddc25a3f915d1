#pragma once
// PageRank as the GAP benchmark and LAGraph (LAGr_PageRankGAP) define it, written with gbcuda's
// public calls only: damping d, every vertex starts at 1/n and each iteration
//
//   w = r .* (d / outdeg)          what each vertex sends along each of its out-edges
//   r' = (1 - d)/n  +  w' * A      over PLUS_FIRST (A's values are not read)
//
// until the total change sum |r' - r| drops below the tolerance or after `itermax` iterations.
// Vertices without out-edges send nothing (GAP's definition: their rank is not redistributed,
// so the ranks need not add up to 1). The iterations run in gbcuda::device_loop: the total change
// is reduced into a vector of size 1 and tested there by `select`, so on the GPU they repeat as
// one CUDA graph with no wait for the device between them.
#include <algorithm>
#include <utility>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

template <class T>
struct PageRankOutput {
  std::vector<T> rank;      // rank[v]
  int iterations = 0;       // iterations run
  T change = 0;             // sum |r' - r| of the last iteration
  gbcuda::LoopResult loop;  // how the iterations ran (on the GPU: whether as one CUDA graph)
};

// `loop`: how the iterations run (gbcuda::LoopOptions; its iteration limit is capped at itermax).
template <class TA, class T = float>
PageRankOutput<T> pagerank(const gbcuda::Matrix<TA>& A, gbcuda::Backend where, T damping = T(0.85),
                           T tolerance = T(1e-4), int itermax = 20, const gbcuda::LoopOptions& loop = {}) {
  using namespace gbcuda;
  const Index n = A.nrows();
  PageRankOutput<T> out;
  if (n == 0 || itermax < 1) return out;
  // d / outdeg, computed where the vectors live: the out-degrees are A * 1 over PLUS_PAIR, then
  // 1/x and times d. Vertices without out-edges get 0 (they send nothing), so `scale`, and with
  // it every vector below, stays dense: the product then reads w without a presence bitmap.
  const Vector<bool> ones = Vector<bool>::full(A.ncols(), true, where);
  Vector<T> share(n, where);
  mxv(share, no_mask, no_accum, PlusPair<T>{}, A, ones);
  apply(share, no_mask, no_accum, MultiplicativeInverse<T>{}, share);
  apply(share, no_mask, no_accum, bind_first(Times<T>{}, damping), share);
  Vector<T> scale = Vector<T>::full(n, T(0), where);
  assign(scale, no_mask, Plus<T>{}, share);
  const T teleport = (T(1) - damping) / T(n);
  Vector<T> r = Vector<T>::full(n, T(1) / T(n), where), next = Vector<T>::full(n, teleport, where);
  Vector<T> w(n, where), delta(n, where);
  Vector<T> change(1, where), again(1, where);  // sum |r' - r|; the same while it is >= tolerance
  LoopOptions o = loop;
  o.max_iterations = std::min<Index>(loop.max_iterations, itermax);
  out.loop = device_loop(
      [&] {
        ewise_mult(w, no_mask, no_accum, Times<T>{}, r, scale);
        assign(next, no_mask, no_accum, teleport);
        vxm(next, no_mask, Plus<T>{}, PlusFirst<T>{}, w, A);
        ewise_add(delta, no_mask, no_accum, Minus<T>{}, next, r);
        apply(delta, no_mask, no_accum, Abs<T>{}, delta);
        reduce(change, no_accum, PlusMonoid<T>{}, delta);
        select(again, no_mask, no_accum, ValueGe{}, change, tolerance);
        std::swap(r, next);
      },
      again, o);
  out.iterations = int(out.loop.iterations);
  out.change = change.element(0).value_or(T(0));
  out.rank = r.to_dense_vector(T(0));
  return out;
}

}  // namespace example
