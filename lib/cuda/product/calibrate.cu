// calibrated_product_policy(): the thresholds of the product's cost model (ProductPolicy),
// measured on this device on first use and cached per device name + driver/runtime version.
// The product of vxm/mxv and the fused BFS share the policy and the kernel bodies; the
// measurements run the fused BFS, whose levels are those products without the launch and the
// read-back between them (which cost the same whichever kernel runs).
//
// Measurements (each a real fused BFS on a synthetic graph built on the device, warm-up first,
// best of a few runs; well under a second in all):
//   single_block_max  "layered" graphs (a root, then D layers of width f, each vertex linked to
//                     3 vertices of the next layer: the frontier stays f wide for D levels);
//                     single-block vs queue-warp, f = 128 .. 4096: the largest width at which
//                     single-block is still faster (one SM, but no grid barrier). Not the
//                     midpoint to the first loss: a layered graph's frontier is consecutive ids,
//                     kinder to one SM's caches than a real one, so its crossover sits high. With
//                     512 in place of the midpoint's 1024 the grid's 512-1,023-vertex levels run
//                     on block queues over every SM (6.04 against 6.22 us a level):
//                     grid:1024:1024 -3.7 to -5%, grid:2048:2048 -0.9 to -1% (H100).
//   block_queue_max   = the midpoint (at most single_block_queue): in 1024-thread blocks
//                     queue-block overflows its 2048-entry queue as soon as a tile discovers
//                     more vertices than that, and lost to queue-warp by up to 1.6x on kron,
//                     urand and randout;
//                     the layered graphs, whose tiles never discover more than their own width,
//                     cannot show that.
//   alpha, beta       a circulant graph (v -> v + o_k mod n, 16 pseudo-random offsets o_k; its
//                     in-edges are known by formula), BFS once all-push and once all-pull with
//                     per-level times; direction_thresholds() (below) turns them into alpha, the
//                     ratio unexplored/frontier edges at which pull starts to win while the
//                     frontier grows, and beta, the ratio n/frontier at which push wins again
//                     while it shrinks (geometric means of the bracketing levels), at most
//                     kMaxBeta (product.hpp says why). Within one machine start the result is the
//                     same every time (16 calibrations); between starts beta came out 18 or 40:
//                     averaging 7 runs of each direction did not change it within a start, so
//                     the difference is the machine's, not one run's noise.
// A GPU of the built-in table (built_in_policy) is not measured: its policy was measured once and
// kept, so that every machine start makes the same choices. GBCUDA_CALIBRATION=measure measures
// it anyway; =off skips all of it (ProductPolicy's defaults). The cache is a small JSON file in
// $GBCUDA_CACHE_DIR, else $XDG_CACHE_HOME/gbcuda, else ~/.cache/gbcuda; not writable = not cached.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/product/common.cuh"

namespace gbcuda::detail::cuda::product {
namespace {

// ---- synthetic graphs on the device ---------------------------------------------------------

struct HostGraph {  // device arrays + the view fused_bfs takes
  Array<Offset> ptr;
  Array<Vid> idx, in_idx;
  Graph g;
};

__global__ void layered_ptr_kernel(Offset* ptr, Index f, Index d, Index n) {
  for (Index v = global_thread(); v <= n; v += grid_threads())
    ptr[v] = v == 0 ? 0 : f + 3 * std::min<Index>(v - 1, (d - 1) * f);
}

__global__ void layered_idx_kernel(Vid* idx, Index f, Offset nnz) {
  for (Offset t = global_thread(); t < nnz; t += grid_threads()) {
    if (t < f) {
      idx[t] = Vid(1 + t);
      continue;
    }
    const Offset e = t - f, v1 = e / 3, k = e % 3;
    const Index layer = v1 / f, j = v1 % f;
    const Index nj = (j + (k == 0 ? 0 : k == 1 ? 1 : f - 1)) % f;
    idx[t] = Vid(1 + (layer + 1) * f + nj);
  }
}

// Root 0 -> layer 0 (f vertices) -> ... -> layer d-1, each vertex to 3 of the next layer.
HostGraph layered_graph(Index f, Index d) {
  HostGraph h;
  const Index n = 1 + f * d;
  const Offset nnz = f + 3 * (d - 1) * f;
  h.ptr = Array<Offset>(std::size_t(n + 1), Backend::Cuda);
  h.idx = Array<Vid>(std::size_t(nnz), Backend::Cuda);
  layered_ptr_kernel<<<grid_for(n + 1), kBlock, 0, stream()>>>(h.ptr.data(), f, d, n);
  CUDA_CHECK_LAUNCH();
  layered_idx_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(h.idx.data(), f, nnz);
  CUDA_CHECK_LAUNCH();
  h.g.n = h.g.n_in = n;
  h.g.nnz = nnz;
  h.g.out_ptr = h.ptr.data();
  h.g.out_idx = h.idx.data();
  return h;
}

constexpr int kCirculantDegree = 16;
struct Offsets {
  Index o[kCirculantDegree];
};

__global__ void circulant_kernel(Offset* ptr, Vid* out, Vid* in, Index n, Offsets off) {
  const Offset nnz = n * kCirculantDegree;
  for (Offset t = global_thread(); t < nnz; t += grid_threads()) {
    const Index v = t / kCirculantDegree, k = t % kCirculantDegree;
    out[t] = Vid((v + off.o[k]) % n);
    in[t] = Vid((v - off.o[k] + n) % n);
    if (k == 0) ptr[v] = t;
    if (t == nnz - 1) ptr[n] = nnz;
  }
}

HostGraph circulant_graph(Index n) {
  HostGraph h;
  Offsets off{};
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& o : off.o) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    o = Index(1 + (x >> 33) % std::uint64_t(n - 1));
  }
  const Offset nnz = n * kCirculantDegree;
  h.ptr = Array<Offset>(std::size_t(n + 1), Backend::Cuda);
  h.idx = Array<Vid>(std::size_t(nnz), Backend::Cuda);
  h.in_idx = Array<Vid>(std::size_t(nnz), Backend::Cuda);
  circulant_kernel<<<grid_for(nnz), kBlock, 0, stream()>>>(h.ptr.data(), h.idx.data(), h.in_idx.data(), n, off);
  CUDA_CHECK_LAUNCH();
  h.g.n = h.g.n_in = n;
  h.g.nnz = nnz;
  h.g.out_ptr = h.ptr.data();
  h.g.out_idx = h.idx.data();
  h.g.in_ptr = h.ptr.data();  // every in-row has the same length as its out-row
  h.g.in_idx = h.in_idx.data();
  return h;
}

// ---- measuring ------------------------------------------------------------------------------

BfsResult run_forced(const Graph& g, ProductKernel k, bool stats) {
  ProductPolicy p;
  p.forced = k;
  BfsResult r;
  fused_bfs(g, 0, false, p, Capacities{}, stats, /*barrier_free_tail=*/false, r);
  return r;
}

// Best of `reps` whole-search times (after one warm-up run).
double best_time(const Graph& g, ProductKernel k, int reps) {
  run_forced(g, k, false);
  double best = 1e300;
  for (int i = 0; i < reps; ++i) best = std::min(best, run_forced(g, k, false).seconds);
  return best;
}

}  // namespace

void queue_thresholds(const std::vector<Index>& widths, const std::vector<bool>& single_wins, Index single_block_queue,
                      ProductPolicy& p) {
  std::size_t i = 0;  // the first width single-block lost at
  while (i < widths.size() && single_wins[i]) ++i;
  // The crossover: between the last win and the first loss (geometric mean), or beyond the ends.
  const Index between = i == 0               ? widths.front() / 2
                        : i == widths.size() ? widths.back() * 2
                                             : Index(std::sqrt(double(widths[i - 1]) * double(widths[i])));
  p.block_queue_max = std::min(between, single_block_queue);  // see the note at the top
  p.single_block_max = i == 0 ? p.block_queue_max : std::min(widths[i - 1], p.block_queue_max);
}

namespace {

void measure_queue_thresholds(ProductPolicy& p) {
  const Capacities caps;
  // Coarse on purpose: with 256 and 1024 added the crossover moved to 1448 and grid:2048:2048
  // got slower (32.7 against 28.6 ms): a layered graph's frontier is
  // consecutive ids, kinder to one SM's caches than real frontiers, so a finer search here only
  // sharpens a biased estimate.
  std::vector<Index> widths = {128, 512, 2048, Index(caps.single_block_queue)};
  std::vector<bool> wins;
  for (Index f : widths) {
    HostGraph h = layered_graph(f, 48);
    wins.push_back(best_time(h.g, ProductKernel::SingleBlock, 2) <= best_time(h.g, ProductKernel::QueueWarp, 2));
  }
  queue_thresholds(widths, wins, caps.single_block_queue, p);
}

void measure_direction_thresholds(ProductPolicy& p) {
  const Index n = Index(1) << 20;
  HostGraph h = circulant_graph(n);
  run_forced(h.g, ProductKernel::QueueWarp, true);  // warm-up
  run_forced(h.g, ProductKernel::Pull, true);
  const BfsResult push = run_forced(h.g, ProductKernel::QueueWarp, true);
  const BfsResult pull = run_forced(h.g, ProductKernel::Pull, true);
  std::vector<LevelTimes> levels(std::min(push.levels.size(), pull.levels.size()));
  for (std::size_t l = 0; l < levels.size(); ++l)
    levels[l] = {push.levels[l].frontier_size, push.levels[l].edges_examined, push.levels[l].seconds,
                 pull.levels[l].seconds};
  direction_thresholds(levels, n, h.g.nnz, p);
}

}  // namespace

void direction_thresholds(const std::vector<LevelTimes>& levels, Index n, Offset nnz, ProductPolicy& p) {
  if (levels.size() < 3) return;
  // Growing: the first level where pull wins; alpha between its m_u/m_f and the previous one's.
  double unexplored = double(nnz), prev_ratio = -1, alpha = -1, beta = -1, prev_s = -1;
  Index prev_size = 0;
  bool grew_done = false;
  for (const LevelTimes& s : levels) {
    const bool growing = s.frontier_size > prev_size;
    const bool pull_wins = s.pull_seconds < s.push_seconds;
    if (growing && !grew_done && s.push_edges > 0) {
      const double ratio = unexplored / double(s.push_edges);
      if (pull_wins) {
        alpha = prev_ratio > 0 ? std::sqrt(ratio * prev_ratio) : ratio * 2;
        grew_done = true;
      }
      prev_ratio = ratio;
    }
    if (!growing && s.frontier_size > 0) {
      const double ratio = double(n) / double(s.frontier_size);
      if (!pull_wins && beta < 0) beta = prev_s > 0 ? std::sqrt(ratio * prev_s) : ratio / 2;
      if (pull_wins) prev_s = ratio;
    }
    unexplored -= double(s.push_edges);
    prev_size = s.frontier_size;
  }
  if (alpha > 0) p.alpha = std::clamp(alpha, 1.0, 1000.0);
  if (beta > 0) p.beta = std::clamp(beta, 2.0, kMaxBeta);
}

namespace {

// ---- the cache ------------------------------------------------------------------------------

std::string sanitise(const std::string& s) {
  std::string out;
  for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '_';
  return out;
}

std::filesystem::path cache_dir() {
  if (const char* d = std::getenv("GBCUDA_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "gbcuda";
  if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "gbcuda";
  return {};
}

std::string device_key(std::string& name, int& sms) {
  int device = 0, driver = 0, runtime = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  name = prop.name;
  sms = prop.multiProcessorCount;
  return "product-policy-" + sanitise(name) + "-sm" + std::to_string(prop.multiProcessorCount) + "-drv" +
         std::to_string(driver) + "-rt" + std::to_string(runtime) + ".json";
}

// The number after "key": in a flat JSON object, or NaN.
double json_number(const std::string& text, const std::string& key) {
  const auto k = text.find("\"" + key + "\"");
  if (k == std::string::npos) return NAN;
  const auto colon = text.find(':', k);
  if (colon == std::string::npos) return NAN;
  const char* b = text.c_str() + colon + 1;
  char* e = nullptr;
  const double v = std::strtod(b, &e);
  return e == b ? NAN : v;
}

void write_cache(const std::filesystem::path& file, const std::string& device, const ProductPolicy& p) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return;
  std::string quoted;
  for (char ch : device)
    if (ch != '"' && ch != '\\') quoted += ch;
  const auto tmp = file.string() + ".tmp" + std::to_string(std::rand());
  {
    std::ofstream out(tmp);
    if (!out) return;
    out << "{\n  \"format\": 4,\n  \"device\": \"" << quoted << "\",\n  \"single_block_max\": " << p.single_block_max
        << ",\n  \"block_queue_max\": " << p.block_queue_max << ",\n  \"alpha\": " << p.alpha
        << ",\n  \"beta\": " << p.beta << "\n}\n";
    if (!out) return;
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

std::string& policy_source() {
  static std::string source;
  return source;
}

ProductPolicy calibrate() {
  ProductPolicy p;  // the defaults
  std::string& source = policy_source();
  const char* c = std::getenv("GBCUDA_CALIBRATION");
  const std::string mode = c ? c : "";
  if (mode == "off") {
    source = "defaults (GBCUDA_CALIBRATION=off)";
    return p;
  }
  if (mode != "" && mode != "auto" && mode != "measure")
    std::fprintf(stderr, "gbcuda: GBCUDA_CALIBRATION=%s is not one of auto, measure, off: read as auto\n", c);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    source = "defaults (no GPU)";
    return p;
  }
  std::string name;
  int sms = 0;
  const std::string key = device_key(name, sms);
  if (mode != "measure" && built_in_policy(name, sms, p)) {
    source = "built-in (" + name + ")";
    return p;
  }
  const std::filesystem::path dir = cache_dir();
  if (!dir.empty() && read_policy_cache((dir / key).string(), p)) {
    source = "cached (" + (dir / key).string() + ")";
    return p;
  }
  if (!persistent_kernels_available()) {
    source = "defaults (no cooperative launch)";
    return p;
  }
  try {
    ProductPolicy m;
    measure_queue_thresholds(m);
    measure_direction_thresholds(m);
    p = m;
  } catch (const Error&) {
    source = "defaults (the measurement failed)";
    return ProductPolicy{};  // not cached
  }
  source = "measured";
  if (!dir.empty()) write_cache(dir / key, name, p);
  return p;
}

}  // namespace

bool read_policy_cache(const std::string& file, ProductPolicy& p) {
  std::ifstream in(file);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string t = ss.str();
  const double sb = json_number(t, "single_block_max"), bq = json_number(t, "block_queue_max"),
               al = json_number(t, "alpha"), be = json_number(t, "beta"), fmt = json_number(t, "format");
  for (double v : {sb, bq, al, be})
    if (!std::isfinite(v) || v <= 0) return false;
  if (fmt != 4) return false;  // 4: single_block_max the widest win (3 held the midpoint: measure anew)
  p.single_block_max = Index(sb);
  p.block_queue_max = Index(bq);
  p.alpha = al;
  p.beta = std::min(be, kMaxBeta);  // caches written before the cap
  return true;
}

bool built_in_policy(const std::string& name, int sms, ProductPolicy& p) {
  struct Known {
    const char* name;
    int sms;
    double alpha, beta;
    Index single_block_max, block_queue_max;
  };
  // Each row: what the calibration measured on that GPU (bfs_bench --json's product_policy,
  // GBCUDA_CALIBRATION=measure).
  static constexpr Known kKnown[] = {
      {"NVIDIA H100 80GB HBM3", 132, 11.3453, 18.0, 512, 1024},
  };
  for (const Known& k : kKnown) {
    if (name != k.name || sms != k.sms) continue;
    p.alpha = k.alpha;
    p.beta = k.beta;
    p.single_block_max = k.single_block_max;
    p.block_queue_max = k.block_queue_max;
    return true;
  }
  return false;
}

ProductPolicy calibrated_product_policy() {
  static std::once_flag once;
  static ProductPolicy policy;
  std::call_once(once, [] { policy = calibrate(); });
  return policy;
}

std::string calibrated_policy_source() {
  (void)calibrated_product_policy();
  return policy_source();
}

}  // namespace gbcuda::detail::cuda::product
