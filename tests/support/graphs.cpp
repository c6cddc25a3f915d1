#include "support/graphs.hpp"

#include <algorithm>
#include <random>

namespace gbtest {

std::string GraphSpec::name() const {
  return "n" + std::to_string(n) + "_d" + std::to_string(int(avg_degree)) + (directed ? "_dir" : "_und") +
         (self_loops ? "_loops" : "") + (duplicates ? "_dups" : "") + (isolated > 0 ? "_iso" : "") + "_s" +
         std::to_string(seed);
}

gbcuda::Matrix<bool> random_graph(const GraphSpec& s) {
  std::mt19937_64 rng(s.seed);
  const gbcuda::Index n = s.n;
  // The first (1 - isolated) * n vertices (after a random relabelling) carry edges.
  std::vector<gbcuda::Index> label(static_cast<std::size_t>(n));
  for (gbcuda::Index i = 0; i < n; ++i) label[i] = i;
  std::shuffle(label.begin(), label.end(), rng);
  const gbcuda::Index active = std::max<gbcuda::Index>(1, gbcuda::Index(double(n) * (1.0 - s.isolated)));
  std::uniform_int_distribution<gbcuda::Index> pick(0, active - 1);
  const gbcuda::Index m = gbcuda::Index(s.avg_degree * double(active) / (s.directed ? 1.0 : 2.0));
  std::vector<gbcuda::Index> rows, cols;
  for (gbcuda::Index e = 0; e < m; ++e) {
    const gbcuda::Index a = label[pick(rng)], b = label[pick(rng)];
    if (a == b && !s.self_loops) continue;
    const int copies = s.duplicates && (e % 7 == 0) ? 2 : 1;
    for (int c = 0; c < copies; ++c) {
      rows.push_back(a);
      cols.push_back(b);
      if (!s.directed) {
        rows.push_back(b);
        cols.push_back(a);
      }
    }
  }
  if (s.self_loops)
    for (gbcuda::Index i = 0; i < n; i += 5) {
      rows.push_back(i);
      cols.push_back(i);
    }
  return gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
}

gbcuda::Matrix<bool> star_graph(gbcuda::Index n) {
  std::vector<gbcuda::Index> rows, cols;
  for (gbcuda::Index i = 1; i < n; ++i) {
    rows.push_back(0);
    cols.push_back(i);
    rows.push_back(i);
    cols.push_back(0);
  }
  return gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
}

gbcuda::Matrix<bool> path_graph(gbcuda::Index n, bool directed) {
  std::vector<gbcuda::Index> rows, cols;
  for (gbcuda::Index i = 0; i + 1 < n; ++i) {
    rows.push_back(i);
    cols.push_back(i + 1);
    if (!directed) {
      rows.push_back(i + 1);
      cols.push_back(i);
    }
  }
  return gbcuda::Matrix<bool>::from_coo(n, n, rows, cols);
}

std::vector<gbcuda::Index> level_sizes(const std::vector<std::int32_t>& level) {
  std::vector<gbcuda::Index> sizes;
  for (auto l : level) {
    if (l < 0) continue;
    if (sizes.size() <= std::size_t(l)) sizes.resize(std::size_t(l) + 1, 0);
    ++sizes[std::size_t(l)];
  }
  return sizes;
}

}  // namespace gbtest
