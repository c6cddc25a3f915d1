// vxm_latency: what one step of the algebra costs on the GPU, for the one-product issue's
// targets. On a small grid graph (a 1k-vertex one by default) and on larger ones:
//   vxm      one BFS-style vxm (q<!visited> = q'A) with nothing read back, timed from before its
//            enqueue to the end of its work on the GPU (CUDA events on the library stream, the GPU
//            idle before), the host's time inside the call (enqueueing), the time per vxm when 16
//            run back to back (the larger of the host's and the GPU's share), and the host waits
//            it made (gbcuda::host_waits());
//   level    vxm + nvals + assign, the algebra BFS's step, timed on the host clock;
//   loop     a whole BFS (parents) from the middle vertex written with public calls in a
//            device_loop, on the device and host-driven (LoopOptions::host_driven), from the
//            loop's call to its answer on the GPU (host clock; the vectors made before), beside
//            the library's fused search with parents (gbcuda::bfs, its own BfsResult::seconds).
// Median of --repeat runs after warm-up (the loops: of --repeat / 20 + 3). Prints two lines per
// graph.
//   vxm_latency [--repeat N] [SPEC...]      (default grid:32:32 grid:2048:2048 kron:20:16)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
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

  // The whole search in a device loop, against the same loop host-driven and the fused search.
  const Index source = n / 2;
  auto search = [&](bool host_driven, LoopResult& r) {
    Vector<std::int64_t> pi(n, b), f(n, b);
    pi.set_form_control(FormControl::Bitmap);
    pi.set_element(source, source);
    f.set_element(source, source);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    LoopOptions o;
    o.host_driven = host_driven;
    const auto t0 = std::chrono::steady_clock::now();
    r = device_loop(
        [&] {
          vxm(f, pi, no_accum, AnySecondI<std::int64_t>{}, f, A, desc::RSC);
          assign(pi, f, no_accum, f, desc::S);
        },
        f, o);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> on_device_ms, host_driven_ms, fused_ms;
  LoopResult on_device, host_driven;
  BfsOptions fused_options;
  fused_options.device = Device::Cuda;
  fused_options.compute_parents = true;
  const int loops = repeat / 20 + 3;
  for (int r = -1; r < loops; ++r) {
    const double d = search(false, on_device);
    const double h = search(true, host_driven);
    const BfsResult fr = bfs(A, source, fused_options);
    const double f = fr.seconds * 1e3;
    if (fr.num_levels != on_device.iterations || on_device.iterations != host_driven.iterations) {
      std::fprintf(stderr, "vxm_latency: %s: the loops ran %lld and %lld iterations, the fused search %d levels\n",
                   spec.c_str(), static_cast<long long>(on_device.iterations),
                   static_cast<long long>(host_driven.iterations), fr.num_levels);
      std::exit(1);
    }
    if (r < 0) continue;
    on_device_ms.push_back(d);
    host_driven_ms.push_back(h);
    fused_ms.push_back(f);
  }
  const double levels = double(on_device.iterations);
  std::printf(
      "%-16s loop: device_loop %9.3f ms (%s, %lld iterations, %6.2f us each; %d captures, %.3f ms to the "
      "launch)   host-driven %9.3f ms (%6.2f us each)   fused bfs %8.3f ms   device_loop / fused %.2f\n",
      spec.c_str(), median(on_device_ms), on_device.on_device ? "on the device" : on_device.note.c_str(),
      static_cast<long long>(on_device.iterations), median(on_device_ms) * 1e3 / levels, on_device.captures,
      on_device.capture_seconds * 1e3, median(host_driven_ms), median(host_driven_ms) * 1e3 / levels, median(fused_ms),
      median(on_device_ms) / median(fused_ms));
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
