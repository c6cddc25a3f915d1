// vxm_latency: what one step of the algebra costs on the GPU, for the one-product issue's
// targets. On a small grid graph (a 1k-vertex one by default) and on larger ones:
//   vxm      one BFS-style vxm (q<!visited> = q'A) with nothing read back, timed from before its
//            enqueue to the end of its work on the GPU (CUDA events on the library stream, the GPU
//            idle before), the host's time inside the call (enqueueing), the time per vxm when 16
//            run back to back (the larger of the host's and the GPU's share), and the host waits
//            it made (gbcuda::host_waits());
//   level    vxm + nvals + assign, the algebra BFS's step, timed on the host clock.
// Median of --repeat runs after warm-up. Prints one line per graph.
//   vxm_latency [--repeat N] [SPEC...]      (default grid:32:32 grid:2048:2048 kron:20:16)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gbcuda/gbcuda.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "vxm_latency: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void measure(const std::string& spec, int repeat) {
  using namespace gbcuda;
  const Backend b = Backend::Cuda;
  const Matrix<bool> A = generate_graph(spec, b);
  const Index n = A.nrows();
  auto stream = static_cast<cudaStream_t>(cuda_stream());
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  // A frontier of one vertex in the middle, the visited set holding it: the first level of a BFS.
  auto fresh = [&](Vector<bool>& q, Vector<std::int32_t>& level) {
    q = Vector<bool>(n, b);
    level = Vector<std::int32_t>(n, b);
    q.set_element(n / 2, true);
    level.set_element(n / 2, 0);
    vxm(q, level, no_accum, AnyPair<bool>{}, q, A, desc::RSC);  // q: the source's neighbours, sparse
    q.nvals();
    assign(level, q, no_accum, std::int32_t(1), desc::S);
  };
  Vector<bool> q, next;
  Vector<std::int32_t> level;
  fresh(q, level);
  std::vector<double> vxm_us, level_us, host_us, pipelined_us;
  std::uint64_t waits = 0;
  for (int r = -3; r < repeat; ++r) {  // three warm-up runs
    next = q;                          // the same input every time
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const HostWaits w0 = host_waits();
    check(cudaEventRecord(e0, stream), "cudaEventRecord");
    const auto h0 = std::chrono::steady_clock::now();
    vxm(next, level, no_accum, AnyPair<bool>{}, next, A, desc::RSC);
    const double enqueue_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count();
    check(cudaEventRecord(e1, stream), "cudaEventRecord");
    const HostWaits w1 = host_waits();
    check(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    if (r >= 0) {
      vxm_us.push_back(double(ms) * 1e3);
      host_us.push_back(enqueue_us);
      waits += w1.total() - w0.total();
    }
  }
  // Throughput: 16 products from the same input into 16 outputs, back to back, one wait at the
  // end: the time per product is whichever of the host's enqueueing and the GPU's work is longer.
  constexpr int kBatch = 16;
  std::vector<Vector<bool>> outs(kBatch);
  for (int r = -3; r < repeat / 8 + 1; ++r) {
    for (auto& o : outs) o = Vector<bool>(n, b);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& o : outs) vxm(o, level, no_accum, AnyPair<bool>{}, q, A, desc::RSC);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (r >= 0) pipelined_us.push_back(us / kBatch);
  }
  // The algebra BFS's step: vxm, nvals, assign, on a copy of the level vector.
  for (int r = -3; r < repeat; ++r) {
    next = q;
    Vector<std::int32_t> lv = level;
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const auto t0 = std::chrono::steady_clock::now();
    vxm(next, lv, no_accum, AnyPair<bool>{}, next, A, desc::RSC);
    const Index nq = next.nvals();
    assign(lv, next, no_accum, std::int32_t(2), desc::S);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    (void)nq;
    if (r >= 0) level_us.push_back(us);
  }
  std::printf(
      "%-16s n=%-9lld frontier=%-6lld vxm %7.2f us (host enqueue %6.2f us, back to back %6.2f us per vxm, host waits "
      "per vxm %.2f)   vxm+nvals+assign %7.2f us\n",
      spec.c_str(), static_cast<long long>(n), static_cast<long long>(q.nvals()), median(vxm_us), median(host_us),
      median(pipelined_us), double(waits) / repeat, median(level_us));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 200;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else specs.push_back(a);
  }
  if (specs.empty()) specs = {"grid:32:32", "grid:2048:2048", "kron:20:16"};
  if (!gbcuda::cuda_available()) {
    std::fprintf(stderr, "vxm_latency: no CUDA GPU\n");
    return 2;
  }
  std::printf("vxm_latency on %s, median of %d\n", gbcuda::backend_description(gbcuda::Backend::Cuda).c_str(), repeat);
  for (const auto& s : specs) measure(s, repeat);
  return 0;
}
