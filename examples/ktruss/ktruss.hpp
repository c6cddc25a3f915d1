#pragma once
// The k-truss of an undirected graph, written with gbcuda's public calls only (LAGraph's
// LAGraph_KTruss): the largest subgraph in which every edge lies on at least k - 2 triangles of
// the subgraph. With C the graph's edges (no self loops), repeat until no edge goes:
//
//   S<C, structural> = C * C'     mxm over PLUS_PAIR: S(i,j) = the triangles on edge (i,j) in C
//   C = select(S >= k - 2)        select with ValueGe
//
// The result holds each remaining edge (both directions) with its triangle count in the truss.
#include <cstdint>
#include <string>

#include <gbcuda/gbcuda.hpp>

namespace example {

struct KTruss {
  gbcuda::Matrix<std::int64_t> truss;  // edges of the k-truss, valued by their triangle counts
  int rounds = 0;
};

// A must be symmetric (an undirected graph); its diagonal is ignored. k >= 3.
template <class T>
KTruss ktruss(const gbcuda::Matrix<T>& A, int k, gbcuda::Backend where) {
  using namespace gbcuda;
  if (k < 3) throw Error(Status::InvalidValue, "ktruss: k must be at least 3, not " + std::to_string(k));
  Matrix<T> E;
  select(E, no_mask, no_accum, Offdiag{}, A, 0.0, where);  // the edges, without self loops
  KTruss out;
  Matrix<std::int64_t> S;
  mxm(S, E, no_accum, PlusPair<std::int64_t>{}, E, E, desc::ST1, where);  // C' = C: A is symmetric
  Index before = E.nvals();
  for (;;) {
    ++out.rounds;
    select(out.truss, no_mask, no_accum, ValueGe{}, S, double(k - 2), where);
    if (out.truss.nvals() == before) return out;
    before = out.truss.nvals();
    // S's old entries outside the mask (the edges just dropped) deleted: replace (RST1).
    mxm(S, out.truss, no_accum, PlusPair<std::int64_t>{}, out.truss, out.truss, desc::RST1, where);
  }
}

}  // namespace example
