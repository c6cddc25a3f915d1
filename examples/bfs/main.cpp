// example_bfs FILE [SOURCE] [auto|cuda|host]: reads a graph, runs the BFS of bfs.hpp, checks the
// answer with gbcuda::validate_bfs and prints a line about it. Exit 0 when valid, 1 when not, 2
// for a usage or input error.
#include <cstdio>
#include <exception>
#include <string>

#include "bfs.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: example_bfs FILE [SOURCE] [auto|cuda|host]\n");
    return 2;
  }
  try {
    const gbcuda::Matrix<bool> A = gbcuda::read_matrix<bool>(argv[1]);
    const gbcuda::Index source = argc > 2 ? std::stoll(argv[2]) : 0;
    const gbcuda::Backend where = gbcuda::resolve_device(gbcuda::parse_device(argc > 3 ? argv[3] : "auto"));
    if (A.nrows() != A.ncols() || source < 0 || source >= A.nrows()) {
      std::fprintf(stderr, "example_bfs: need a square matrix and a source in range\n");
      return 2;
    }
    const example::BfsOutput out = example::bfs(A, source, where);
    gbcuda::BfsResult r;  // in the library's result type, to check it
    r.level = out.level;
    r.parent = out.parent;
    const std::string problem = gbcuda::validate_bfs(A, source, r);
    gbcuda::Index reached = 0;
    for (auto l : out.level) reached += l >= 0;
    std::printf("example_bfs: %lld of %lld vertices reached in %d levels on %s: %s\n", static_cast<long long>(reached),
                static_cast<long long>(A.nrows()), out.levels, gbcuda::backend_description(where).c_str(),
                problem.empty() ? "valid" : problem.c_str());
    return problem.empty() ? 0 : 1;
  } catch (const gbcuda::Error& e) {
    std::fprintf(stderr, "example_bfs: error: %s\n", e.what());
    return e.is_input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_bfs: error: %s\n", e.what());
    return 2;
  }
}
