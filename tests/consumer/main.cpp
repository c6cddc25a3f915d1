// Builds a 4-vertex path, runs gbcuda::bfs on the host backend and checks the levels.
#include <cstdio>

#include <gbcuda/gbcuda.hpp>

int main() {
  std::vector<gbcuda::Index> rows{0, 1, 2}, cols{1, 2, 3};
  const auto A = gbcuda::Matrix<bool>::from_coo(4, 4, rows, cols);
  gbcuda::BfsOptions options;
  options.device = gbcuda::Device::Host;
  const gbcuda::BfsResult r = gbcuda::bfs(A, 0, options);
  const bool ok = r.level == std::vector<std::int32_t>{0, 1, 2, 3} && r.vertices_reached == 4;
  std::printf("consumer: %s\n", ok ? "ok" : "wrong levels");
  return ok ? 0 : 1;
}
