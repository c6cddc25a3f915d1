#pragma once
// Closeness and harmonic centrality of a sample of vertices, from one multi-source BFS
// (gbcuda::bfs_multi_source: 64 searches a pass, one bit each in every vertex's word). Only the
// level sizes of each search are needed, so the levels are not kept.
//   harmonic(s)  = sum over the vertices v != s that s reaches of 1 / d(s, v)
//   closeness(s) = (r - 1)^2 / ((n - 1) * sum of d(s, v)), r = the vertices s reaches, itself
//                  included (Wasserman and Faust's form, for graphs that are not connected); 0
//                  when s reaches nothing else.
// Distances follow the edges' direction (out-distances).
#include <vector>

#include <gbcuda/gbcuda.hpp>

namespace example {

struct Centrality {
  std::vector<gbcuda::Index> vertex;  // the sample
  std::vector<double> harmonic, closeness;
  int passes = 0;
  double seconds = 0.0;  // the searches
};

// From each level-size list (level_sizes[l]: the vertices at distance l), the two centralities.
inline void centrality_from_levels(const std::vector<gbcuda::Index>& sizes, gbcuda::Index n, double& harmonic,
                                   double& closeness) {
  double inv = 0, dist = 0, reached = 0;
  for (std::size_t l = 0; l < sizes.size(); ++l) {
    reached += double(sizes[l]);
    if (l == 0) continue;
    inv += double(sizes[l]) / double(l);
    dist += double(sizes[l]) * double(l);
  }
  harmonic = inv;
  closeness = dist > 0 && n > 1 ? (reached - 1) * (reached - 1) / (double(n - 1) * dist) : 0.0;
}

template <class T>
Centrality centrality(const gbcuda::Matrix<T>& A, const std::vector<gbcuda::Index>& sample, gbcuda::Backend where) {
  gbcuda::MultiSourceBfsOptions o;
  o.device = where == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  o.keep_levels = false;
  const gbcuda::MultiSourceBfsResult r = gbcuda::bfs_multi_source(A, sample, o);
  Centrality c;
  c.vertex = sample;
  c.harmonic.resize(sample.size());
  c.closeness.resize(sample.size());
  for (std::size_t i = 0; i < sample.size(); ++i)
    centrality_from_levels(r.level_sizes[i], A.nrows(), c.harmonic[i], c.closeness[i]);
  c.passes = r.passes;
  c.seconds = r.seconds;
  return c;
}

// k vertices with out-edges, evenly spaced over the ids (fewer when fewer have out-edges).
template <class T>
std::vector<gbcuda::Index> spaced_sample(const gbcuda::Matrix<T>& A, gbcuda::Index k) {
  std::vector<gbcuda::Index> with_edges;
  const auto& deg = A.out_degrees();
  for (gbcuda::Index v = 0; v < A.nrows(); ++v)
    if (deg[std::size_t(v)] > 0) with_edges.push_back(v);
  std::vector<gbcuda::Index> s;
  const gbcuda::Index m = gbcuda::Index(with_edges.size());
  for (gbcuda::Index i = 0; i < k && i < m; ++i) s.push_back(with_edges[std::size_t(i * m / std::min(k, m))]);
  return s;
}

}  // namespace example
