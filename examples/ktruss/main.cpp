// example_ktruss FILE K [auto|cuda|host]: reads a graph, makes it undirected (A + A'), computes
// its K-truss (ktruss.hpp) and prints how many edges and vertices remain.
// Exit 0, or 2 for a usage or input error, 1 for anything else.
#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "ktruss.hpp"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: example_ktruss FILE K [auto|cuda|host]\n");
    return 2;
  }
  try {
    std::size_t used = 0;
    int k = 0;
    try {
      k = std::stoi(argv[2], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != std::string(argv[2]).size() || k < 3) {
      std::fprintf(stderr, "example_ktruss: K must be an integer of at least 3, not '%s'\n", argv[2]);
      return 2;
    }
    const gbcuda::Matrix<bool> read = gbcuda::read_matrix<bool>(argv[1]);
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 3 ? argv[3] : "auto"));
    if (read.nrows() != read.ncols()) {
      std::fprintf(stderr, "example_ktruss: need a square matrix\n");
      return 2;
    }
    const gbcuda::Matrix<bool> A = read.is_symmetric_structure() ? read : read.symmetrized();
    const example::KTruss t = example::ktruss(A, k, where);
    std::vector<gbcuda::Index> I, J;
    std::vector<std::int64_t> X;
    gbcuda::extract_tuples(t.truss, I, J, X);
    const std::set<gbcuda::Index> vertices(I.begin(), I.end());
    std::printf("example_ktruss: the %d-truss has %lld edges on %zu vertices (%d rounds on %s)\n", k,
                static_cast<long long>(t.truss.nvals() / 2), vertices.size(), t.rounds,
                gbcuda::backend_description(where).c_str());
    return 0;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_ktruss: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_ktruss: error: %s\n", e.what());
    return 2;
  }
}
