// example_pagerank FILE [auto|cuda|host]: reads a graph, runs the PageRank of pagerank.hpp (GAP's
// definition, damping 0.85, at most 20 iterations or a total change below 1e-4) and prints the
// iterations and the vertex of highest rank. Exit 0, or 2 for a usage or input error, 1 for
// anything else.
#include <cstdio>
#include <exception>
#include <string>

#include "pagerank.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: example_pagerank FILE [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<bool> A = gbcuda::read_matrix<bool>(argv[1]);
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 2 ? argv[2] : "auto"));
    if (A.nrows() != A.ncols()) {
      std::fprintf(stderr, "example_pagerank: need a square matrix\n");
      return 2;
    }
    const auto out = example::pagerank<bool, double>(A, where);
    gbcuda::Index top = 0;
    for (gbcuda::Index v = 1; v < A.nrows(); ++v)
      if (out.rank[std::size_t(v)] > out.rank[std::size_t(top)]) top = v;
    std::printf("example_pagerank: %d iterations on %s (last change %.3g); highest rank %.6f at vertex %lld\n",
                out.iterations, gbcuda::backend_description(where).c_str(), out.change,
                A.nrows() ? out.rank[std::size_t(top)] : 0.0, static_cast<long long>(top));
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_pagerank: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_pagerank: error: %s\n", e.what());
    return 2;
  }
}
