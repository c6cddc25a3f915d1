// example_tc FILE [auto|cuda|host]: reads a graph, makes it undirected (A + A'), counts its
// triangles with tc.hpp and prints the count. Exit 0, or 2 for a usage or input error, 1 for
// anything else.
#include <cstdio>
#include <exception>
#include <string>

#include "tc.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: example_tc FILE [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<bool> read = gbcuda::read_matrix<bool>(argv[1]);
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 2 ? argv[2] : "auto"));
    if (read.nrows() != read.ncols()) {
      std::fprintf(stderr, "example_tc: need a square matrix\n");
      return 2;
    }
    const gbcuda::Matrix<bool> A = read.is_symmetric_structure() ? read : read.symmetrized();
    const std::int64_t triangles = example::triangle_count(A, where);
    std::printf("example_tc: %lld triangles on %s\n", static_cast<long long>(triangles),
                gbcuda::backend_description(where).c_str());
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_tc: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_tc: error: %s\n", e.what());
    return 2;
  }
}
