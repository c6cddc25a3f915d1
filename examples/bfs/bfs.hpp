#pragma once
// Breadth-first search written with gbcuda's public calls only, the way LAGraph writes it: one
// masked vector-matrix product per level. Runs on the GPU or the host, whichever backend the
// vectors live in. Copy it; change it.
//
//   q<!parent, replace, structural> = q' * A    over ANY_SECONDI: every vertex not yet reached
//                                                with an in-neighbour k in the frontier q, valued k
//   nq = nvals(q), stop when 0
//   parent<q, structural> = q                   the k each new vertex was reached from
//   level<q, structural>  = depth
//
// On the GPU nothing here waits for the device except q.nvals(), once a level: vxm and assign
// are enqueued and return (gbcuda::host_waits() counts what waits).
#include <cstdint>
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

struct BfsOutput {
  std::vector<std::int32_t> level;   // level[v]: the depth v was reached at, -1 when unreachable
  std::vector<std::int64_t> parent;  // parent[v]: the vertex it was reached from (source: itself), -1
  int levels = 0;                    // levels, counting the source's level 0
};

// BFS from `source` over A (A(i,j) stored = an edge i -> j; values are never read).
template <class T>
BfsOutput bfs(const gbcuda::Matrix<T>& A, gbcuda::Index source, gbcuda::Backend where) {
  using namespace gbcuda;
  const Index n = A.nrows();
  Vector<std::int32_t> level(n, where);
  Vector<std::int64_t> parent(n, where);
  Vector<std::int64_t> q(n, where);  // the frontier
  // Keep the visited sets as bitmaps (GraphBLAS's sparsity control): the mask is then read in
  // place and an assign writes only the frontier's positions, so a level costs its frontier's
  // work rather than O(n). Without this a long thin graph (a path) takes O(n) per level.
  level.set_form_control(FormControl::Bitmap);
  parent.set_form_control(FormControl::Bitmap);
  level.set_element(source, 0);
  parent.set_element(source, source);
  q.set_element(source, source);
  int depth = 1;
  for (;; ++depth) {
    vxm(q, parent, no_accum, AnySecondI<std::int64_t>{}, q, A, desc::RSC);
    if (q.nvals() == 0) break;
    assign(parent, q, no_accum, q, desc::S);
    assign(level, q, no_accum, std::int32_t(depth), desc::S);
  }
  return {level.to_dense_vector(-1), parent.to_dense_vector(-1), depth};
}

// The levels alone, the whole search in gbcuda::device_loop: on the GPU the levels repeat as one
// CUDA graph, with no wait for the device between them. The frontier carries its vertices'
// levels, so no host counter is needed (a body repeated on the device cannot read one):
//
//   q<!level, replace, structural> = q' * A    over MIN_FIRST: a new vertex's lowest frontier level
//   q = q + 1                                  its own level
//   level<q, structural> = q
//   while q has entries
template <class T>
std::vector<std::int32_t> bfs_levels(const gbcuda::Matrix<T>& A, gbcuda::Index source, gbcuda::Backend where,
                                     const gbcuda::LoopOptions& loop = {}) {
  using namespace gbcuda;
  const Index n = A.nrows();
  Vector<std::int32_t> level(n, where), q(n, where);
  level.set_form_control(FormControl::Bitmap);
  level.set_element(source, 0);
  q.set_element(source, 0);
  device_loop(
      [&] {
        vxm(q, level, no_accum, MinFirst<std::int32_t>{}, q, A, desc::RSC);
        apply(q, no_mask, no_accum, bind_second(Plus<std::int32_t>{}, std::int32_t(1)), q);
        assign(level, q, no_accum, q, desc::S);
      },
      q, loop);
  return level.to_dense_vector(-1);
}

}  // namespace example
