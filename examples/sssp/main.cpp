// example_sssp FILE [SOURCE] [auto|cuda|host]: reads a weighted graph (the matrix values are the
// edge weights; a pattern file weighs every edge 1), runs the Bellman-Ford of sssp.hpp and prints
// how many vertices it reached and the largest finite distance. Exit 0, or 2 for a usage or input
// error, 1 for anything else.
#include <cstdio>
#include <exception>
#include <string>

#include "sssp.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: example_sssp FILE [SOURCE] [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<double> A = gbcuda::read_matrix<double>(argv[1]);
    gbcuda::Index source = 0;
    if (argc > 2) {
      std::size_t used = 0;
      try {
        source = std::stoll(argv[2], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || argv[2][used] != '\0') {
        std::fprintf(stderr, "example_sssp: SOURCE must be a vertex number, not '%s'\n", argv[2]);
        return 2;
      }
    }
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 3 ? argv[3] : "auto"));
    if (A.nrows() != A.ncols() || source < 0 || source >= A.nrows()) {
      std::fprintf(stderr, "example_sssp: need a square matrix and a source in range\n");
      return 2;
    }
    const auto out = example::sssp(A, source, where);
    gbcuda::Index reached = 0;
    double farthest = 0;
    for (double x : out.distance)
      if (x != example::unreachable<double>()) {
        ++reached;
        farthest = x > farthest ? x : farthest;
      }
    std::printf("example_sssp: %lld of %lld vertices reached in %d rounds on %s, farthest at %g\n",
                static_cast<long long>(reached), static_cast<long long>(A.nrows()), out.rounds,
                gbcuda::backend_description(where).c_str(), farthest);
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_sssp: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_sssp: error: %s\n", e.what());
    return 2;
  }
}
