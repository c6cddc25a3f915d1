// example_centrality FILE [K] [auto|cuda|host]: reads a graph, takes K vertices with out-edges
// spread over the ids (default 64), computes their harmonic and closeness centrality from one
// multi-source BFS (centrality.hpp) and prints the five most central.
// Exit 0, or 2 for a usage or input error, 1 for anything else.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <numeric>
#include <string>

#include "centrality.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: example_centrality FILE [K] [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<bool> A = gbcuda::read_matrix<bool>(argv[1]);
    long long k = 64;
    if (argc > 2) {
      std::size_t used = 0;
      try {
        k = std::stoll(argv[2], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != std::string(argv[2]).size() || k < 1) {
        std::fprintf(stderr, "example_centrality: K must be a positive integer, not '%s'\n", argv[2]);
        return 2;
      }
    }
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 3 ? argv[3] : "auto"));
    if (A.nrows() != A.ncols() || A.nrows() == 0) {
      std::fprintf(stderr, "example_centrality: need a square, non-empty matrix\n");
      return 2;
    }
    const auto sample = example::spaced_sample(A, gbcuda::Index(k));
    const example::Centrality c = example::centrality(A, sample, where);
    std::vector<std::size_t> order(sample.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.harmonic[a] > c.harmonic[b]; });
    std::printf("example_centrality: %zu vertices in %d pass%s on %s, %.6f s\n", sample.size(), c.passes,
                c.passes == 1 ? "" : "es", gbcuda::backend_description(where).c_str(), c.seconds);
    for (std::size_t i = 0; i < order.size() && i < 5; ++i)
      std::printf("  vertex %lld: harmonic %.4f, closeness %.6f\n", static_cast<long long>(sample[order[i]]),
                  c.harmonic[order[i]], c.closeness[order[i]]);
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_centrality: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_centrality: error: %s\n", e.what());
    return 2;
  }
}
