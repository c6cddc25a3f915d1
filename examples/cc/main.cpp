// example_cc FILE [auto|cuda|host]: reads a graph, makes it undirected (A + A'), runs the
// connected components (the library's call, through cc.hpp) and prints how many there are and the largest one's size.
// Exit 0, or 2 for a usage or input error, 1 for anything else.
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "cc.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: example_cc FILE [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<bool> read = gbcuda::read_matrix<bool>(argv[1]);
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 2 ? argv[2] : "auto"));
    if (read.nrows() != read.ncols()) {
      std::fprintf(stderr, "example_cc: need a square matrix\n");
      return 2;
    }
    const gbcuda::Matrix<bool> A = read.is_symmetric_structure() ? read : read.symmetrized();
    const auto out = example::connected_components(A, where);
    std::map<std::int64_t, gbcuda::Index> sizes;
    for (auto c : out.component) ++sizes[c];
    gbcuda::Index largest = 0;
    for (const auto& [c, size] : sizes) largest = size > largest ? size : largest;
    std::printf("example_cc: %lld components on %s, the largest of %lld vertices\n", static_cast<long long>(out.count),
                gbcuda::backend_description(where).c_str(), static_cast<long long>(largest));
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_cc: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_cc: error: %s\n", e.what());
    return 2;
  }
}
