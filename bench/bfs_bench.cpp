// bfs_bench: breadth-first search benchmark. Runs BFS kernels x graphs x sources, beside
// baselines in the same run (the seed GPU kernels of bench/baselines/ such as Rodinia's, the
// gbcuda host backend and a SuiteSparse:GraphBLAS BFS on the CPU), checks every answer, and
// prints a table (and JSON).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "cli_graph.hpp"
#include "cli_kernels.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/reorder.hpp"
#include "gbcuda/types.hpp"
#include "graph500.hpp"

#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if GBCUDA_BENCH_BASELINES
#include "baselines/baselines.hpp"
#endif

// GraphBLAS.h (inside extern "C": Debian's 7.4 has no guard; only the typed functions are
// called below), the handles and the import.
#include "graphblas_algorithms.hpp"

namespace {

using gbcuda::Index;
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr const char* kTooLarge = "skipped (too large for the CPU baselines in this run)";

using gbcuda_cli::kEdgesCountedAs;
using gbcuda_cli::kExitFailure;
using gbcuda_cli::kExitOk;
using gbcuda_cli::kExitUsage;
using gbcuda_cli::median;
using gbcuda_cli::UsageError;

// The standard suite, and a quick version of it for tests.
const std::vector<std::string> kPresetStandard = {"kron:22:16",         "urand:22:16",       "grid:2048:2048",
                                                  "urand:26:8",         "randout:1000000:8", "randout:100000000:4",
                                                  "randout:100000000:8"};
const std::vector<std::string> kPresetSmall = {"kron:16:16", "urand:16:16", "grid:256:256", "randout:100000:8"};

// The real suite (issue 28): generated shapes of real graphs, then real files (kRealFiles).
// web: the web crawl's size and level profile, whose pull levels scan long hub rows; road: the
// road network's size, thousands of levels; rmat and powerlaw: directed, skewed in-degrees.
const std::vector<std::string> kPresetReal = {"web:325000", "road:1250:1200", "rmat:20:16", "powerlaw:1000000:8"};
// The same shapes small enough for a test on the host.
const std::vector<std::string> kPresetRealSmall = {"web:20000", "road:120:100", "rmat:14:8", "powerlaw:20000:8"};

// A real graph file of scripts/real-graphs.sh (bench/README.md lists where each comes from), as
// it is read: kept byte for byte as obtained, so each names its format here.
struct RealFile {
  const char* file;
  const char* kind;
  gbcuda::FileFormat format;
  int index_base;   // edge lists: the first vertex id
  bool symmetrize;  // the file stores each undirected edge once: search A + A'
};
const RealFile kRealFiles[] = {
    {"luxembourg_osm.mtx", "road network", gbcuda::FileFormat::EdgeList, 1, true},
    {"delaunay_n16.mtx", "mesh", gbcuda::FileFormat::EdgeList, 1, true},
    {"web-edu.mtx", "web crawl", gbcuda::FileFormat::Headerless, 1, true},
    {"facebook_combined.txt", "social network", gbcuda::FileFormat::EdgeList, 0, true},
    {"ca-HepPh.txt", "co-authorship", gbcuda::FileFormat::EdgeList, 0, true},
    {"p2p-Gnutella31.txt", "directed (peer-to-peer)", gbcuda::FileFormat::EdgeList, 0, false},
    {"wiki-Vote.txt", "directed, power-law in-degree", gbcuda::FileFormat::EdgeList, 0, false},
};
constexpr const char* kRealGraphsScript = "scripts/real-graphs.sh";

// One graph to run: a generator spec or a file given on the command line (read as detected), or
// a real file read as kRealFiles says.
struct GraphInput {
  std::string name;  // in the table and the JSON
  std::string path;  // the spec or the file
  gbcuda::ReadOptions read;
  bool symmetrize = false;
  std::string read_as;  // how a real file is read, for the JSON; empty otherwise
};

struct Options {
  std::vector<std::string> graphs;
  std::string kernels;  // empty: the default list for the device
  int sources = 0;      // random sources beside the highest-degree vertex
  std::uint64_t seed = 1;
  int repeat = 10;
  int warmup = 2;
  std::string device = "auto";
  std::string json_file;
  gbcuda_cli::ReaderFlags read;  // how GRAPH files are read (the preset's real files say their own)
  bool symmetrize = false;       // GRAPH files: search A + A'
  std::string preset;
  bool no_graphblas = false;
  bool no_host = false;
  bool no_barrier_free_tail = false;
  Index host_max_entries = 200000000;
  double timeout_per_case = 20.0;
  std::string reorder = "none";     // comma-separated orderings for the gbcuda kernels
  std::vector<long long> graph500;  // SCALE [EDGEFACTOR]: the Graph500 mode
  bool no_validate = false;         // --graph500 only
  int partitions = 0;               // --graph500 only: the partitioned search
  std::string transport = "loopback";
  std::vector<int> gpus;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------------------------------------
// Peak device memory of one case: the high-water mark of the CUDA default memory pool (which
// every gbcuda device allocation comes from), reset before the timed runs. The pool's mark
// includes whatever is resident then (the graph, a cached transpose); should the graph not
// live in the pool, its bytes are added.
class DevicePeak {
 public:
  explicit DevicePeak(bool enabled) : enabled_(enabled) {}

  void reset() {
#if GBCUDA_HAVE_CUDA
    if (!enabled_) return;
    ok_ = false;
    int dev = 0;
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetDefaultMemPool(&pool_, dev) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    std::uint64_t zero = 0;  // resets the high-water marks to the current values
    if (cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &zero) != cudaSuccess ||
        cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &zero) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &used_at_reset_) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    ok_ = true;
#endif
  }

  // Bytes at the highest point since reset(), or nothing when unknown (no GPU, query failed).
  std::optional<std::uint64_t> peak(std::uint64_t graph_device_bytes) {
#if GBCUDA_HAVE_CUDA
    if (!enabled_ || !ok_) return std::nullopt;
    std::uint64_t used_high = 0;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &used_high) != cudaSuccess) {
      cudaGetLastError();
      return std::nullopt;
    }
    const std::uint64_t outside = graph_device_bytes > used_at_reset_ ? graph_device_bytes - used_at_reset_ : 0;
    return used_high + outside;
#else
    (void)graph_device_bytes;
    return std::nullopt;
#endif
  }

 private:
  bool enabled_ = false;
  bool ok_ = false;
#if GBCUDA_HAVE_CUDA
  cudaMemPool_t pool_{};
  std::uint64_t used_at_reset_ = 0;
#endif
};

// Device name, driver and runtime versions for the JSON header (what is known).
Json device_info(gbcuda::Backend backend) {
  Json j;
  j["backend"] = gbcuda::to_string(backend);
  j["name"] = gbcuda::backend_description(backend);
  j["host"] = gbcuda::backend_description(gbcuda::Backend::Host);
  j["cuda_backend_built"] = static_cast<bool>(GBCUDA_HAVE_CUDA);
  const gbcuda::detail::ProductPolicy p = gbcuda::product_policy(backend);
  j["product_policy"] = {{"alpha", p.alpha},
                         {"beta", p.beta},
                         {"single_block_max", p.single_block_max},
                         {"block_queue_max", p.block_queue_max},
                         {"block_queue_max_edges", p.block_queue_max_edges},
                         {"source", gbcuda::product_policy_source(backend)}};
#if GBCUDA_HAVE_CUDA
  if (backend == gbcuda::Backend::Cuda) {
    int driver = 0, runtime = 0, dev = 0;
    auto version = [](int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); };
    if (cudaDriverGetVersion(&driver) == cudaSuccess) j["cuda_driver_version"] = version(driver);
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) j["cuda_runtime_version"] = version(runtime);
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      j["multiprocessors"] = prop.multiProcessorCount;
      j["l2_cache_bytes"] = prop.l2CacheSize;
      j["compute_capability"] = fmt::format("{}.{}", prop.major, prop.minor);
    }
    cudaGetLastError();
    const gbcuda::DeviceMemoryInfo mem = gbcuda::device_memory_info();
    j["memory_total_bytes"] = mem.total_bytes;
  }
#endif
  return j;
}

// ---------------------------------------------------------------------------------------------
// SuiteSparse:GraphBLAS: the CPU baseline.

int cpu_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

class GraphBlas {
 public:
  GraphBlas() = default;
  GraphBlas(const GraphBlas&) = delete;
  GraphBlas& operator=(const GraphBlas&) = delete;
  ~GraphBlas() {
    if (initialized_) GrB_finalize();
  }
  void ensure_initialized() {
    if (initialized_) return;
    gbref::check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    initialized_ = true;
    gbref::check(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, cpu_cores()), "GxB_Global_Option_set(NTHREADS)");
  }
  static std::string description() {
    return fmt::format("SuiteSparse:GraphBLAS {}.{}.{} (host, {} threads)", GxB_IMPLEMENTATION_MAJOR,
                       GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, cpu_cores());
  }

 private:
  bool initialized_ = false;
};

// The GraphBLAS handles and the import of the pattern (an iso by-row matrix), shared with
// algebra_bench.
using GrbMatrix = gbref::Matrix;
void build_graphblas_matrix(const gbcuda::Matrix<bool>& A, GrbMatrix& out) { gbref::import(A, out); }

// ---------------------------------------------------------------------------------------------
// One row of the results.

enum class RowStatus { Ok, Failed, Error, Skipped };

struct Row {
  std::string graph;
  Index vertices = 0;
  Index entries = 0;
  std::string name;               // kernel name, "host" or "graphblas"
  std::string kind;               // "kernel", "host-backend" or "graphblas"
  std::string ordering = "none";  // the vertex ordering the search ran in (reorder.hpp)
  Index source = 0;
  std::string source_kind;  // "max-degree" or "random"
  int levels = 0;
  Index reached = 0;
  Index edges_traversed = 0;
  std::vector<double> seconds;  // every timed run
  int runs_planned = 0;
  int warmup_runs = 0;
  std::optional<std::uint64_t> peak_device_bytes;
  std::string device;
  RowStatus status = RowStatus::Ok;
  std::string note;  // why FAILED / error / skipped, or a remark (runs cut short, validated)
  bool validated = false;
  std::string compared_with;  // the row whose levels this one had to equal

  bool has_times() const { return !seconds.empty(); }
  double t_median() const { return median(seconds); }
  double t_min() const { return *std::min_element(seconds.begin(), seconds.end()); }
  std::optional<double> gteps() const {
    if (!has_times() || t_median() <= 0) return std::nullopt;
    return static_cast<double>(edges_traversed) / t_median() / 1e9;
  }
};

const char* status_word(RowStatus s) {
  switch (s) {
    case RowStatus::Ok: return "ok";
    case RowStatus::Failed: return "FAILED";
    case RowStatus::Error: return "ERROR";
    case RowStatus::Skipped: return "skipped";
  }
  return "?";
}

// Repeats `once(keep_answer)` (returning the run's seconds): warm-up, then timed, stopping early
// once the case has used its time budget (at least one timed run). `before_timed` runs between.
template <class Once, class Between>
void time_runs(Row& row, int warmup, int repeat, double budget_s, Once&& once, Between&& before_timed) {
  const Clock::time_point t0 = Clock::now();
  row.runs_planned = repeat;
  for (int i = 0; i < warmup; ++i) {
    once(false);
    ++row.warmup_runs;
    if (seconds_since(t0) > budget_s) break;
  }
  before_timed();
  for (int i = 0; i < repeat; ++i) {
    row.seconds.push_back(once(true));  // the last timed run's answer is the one checked
    if (i + 1 < repeat && seconds_since(t0) > budget_s) {
      row.note = fmt::format("{} of {} timed runs (--timeout-per-case {} s)", row.seconds.size(), repeat, budget_s);
      break;
    }
  }
}

// Compares levels with the reference; "" when equal, else what differs.
std::string compare_levels(const std::vector<std::int32_t>& got, const std::vector<std::int32_t>& ref) {
  if (got.size() != ref.size()) return fmt::format("{} levels returned, expected {}", got.size(), ref.size());
  for (std::size_t v = 0; v < got.size(); ++v)
    if (got[v] != ref[v]) return fmt::format("vertex {} has level {}, expected {}", v, got[v], ref[v]);
  return "";
}

// ---------------------------------------------------------------------------------------------

struct Source {
  Index vertex = 0;
  std::string kind;
};

// The highest-out-degree vertex, then `extra` random vertices with an out-edge (cli_common.hpp).
std::vector<Source> pick_sources(const std::vector<Index>& degree, int extra, std::uint64_t seed) {
  const Index best = gbcuda_cli::max_out_degree_vertex(degree);
  std::vector<Source> out = {{best, "max-degree"}};
  for (Index v : gbcuda_cli::random_sources(degree, extra, seed, best)) out.push_back({v, "random"});
  return out;
}

std::string format_ms(double seconds) {
  const double ms = seconds * 1e3;
  if (ms < 10) return fmt::format("{:.4f}", ms);
  if (ms < 1000) return fmt::format("{:.2f}", ms);
  return fmt::format("{:.0f}", ms);
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/+@%") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct GraphRecord {
  std::string name;
  std::string path;     // the file or spec (the name is a real file's base name)
  std::string read_as;  // a real file's format and treatment; empty otherwise
  bool generated = false;
  Index vertices = 0;
  Index entries = 0;
  double load_seconds = 0;
  std::uint64_t device_bytes = 0;
  Index max_out_degree = 0;
  std::vector<Source> sources;
  bool cpu_baselines = false;
  std::string error;
  struct OrderingRecord {
    std::string name;
    double seconds = 0;      // compute_ordering + relabel (+ the upload to the GPU), not in any BFS time
    bool from_file = false;  // the ordering a .gbc file was saved with (seconds: the upload only)
    std::string error;
  };
  std::vector<OrderingRecord> orderings;  // the relabellings made (not none)
};

// What a row named after a kernel runs: a library kernel in the fused loop, the algebra loop
// ("algebra"), or a seed kernel of bench/baselines/.
constexpr const char* kAlgebra = "algebra";
struct KernelRun {
  gbcuda::BfsKernel kernel = gbcuda::BfsKernel::Auto;
  gbcuda::LevelLoop loop = gbcuda::LevelLoop::Fused;
  std::string name;  // the row's name
#if GBCUDA_BENCH_BASELINES
  const gbcuda::baselines::Baseline* baseline = nullptr;
#endif
};

class Bench {
 public:
  Bench(const Options& o, gbcuda::Backend backend, std::vector<KernelRun> kernels,
        std::vector<gbcuda::Ordering> orderings)
      : o_(o),
        backend_(backend),
        kernels_(std::move(kernels)),
        orderings_(std::move(orderings)),
        device_desc_(gbcuda::backend_description(backend)) {}

  void run_graph(const GraphInput& in, std::size_t index, std::size_t count);
  int print_table() const;
  Json to_json(const std::string& command_line, const std::string& date) const;
  int failures() const {
    int f = 0;
    for (const Row& r : rows_) f += r.status == RowStatus::Failed || r.status == RowStatus::Error ? 1 : 0;
    for (const GraphRecord& g : graphs_) {
      f += g.error.empty() ? 0 : 1;
      for (const auto& ord : g.orderings) f += ord.error.empty() ? 0 : 1;
    }
    return f;
  }

 private:
  Row base_row(const GraphRecord& g, const Source& s, std::string name, std::string kind, std::string device) const {
    Row r;
    r.graph = g.name;
    r.vertices = g.vertices;
    r.entries = g.entries;
    r.name = std::move(name);
    r.kind = std::move(kind);
    r.source = s.vertex;
    r.source_kind = s.kind;
    r.device = std::move(device);
    return r;
  }
  void progress(const Row& r) const;
  // A search over A (relabelled by `relabelling` when not null: the source is mapped to A's ids
  // and the levels back to the original ones).
  Row run_gbcuda(const gbcuda::Matrix<bool>& A, const gbcuda::Relabelling* relabelling, const GraphRecord& g,
                 const Source& s, const KernelRun& kernel, gbcuda::Backend where,
                 std::vector<std::int32_t>& levels_out);
  Row run_graphblas(const GrbMatrix& G, const std::vector<Index>& degree, const GraphRecord& g, const Source& s,
                    std::vector<std::int32_t>& levels_out);

  // One graph's graph (in the file's ids), its saved ordering, and per source the levels every
  // other row must equal (the first row's, once validated).
  struct GraphRun {
    gbcuda::Matrix<bool> A;
    std::optional<gbcuda::RelabelledGraph<bool>> saved;  // the graph as a .gbc file holds it relabelled
    GraphRecord g;
    std::vector<std::vector<std::int32_t>> refs;
    std::vector<std::string> ref_names;
  };
  // run_graph's steps: load (false: the graph's error is recorded), the gbcuda kernels in each
  // ordering, the CPU baselines.
  bool load(GraphRun& run, const GraphInput& in, std::size_t index, std::size_t count);
  void run_kernels(GraphRun& run);
  void run_baselines(GraphRun& run);
  // Checks a row against the graph or its source's reference levels, and records it; `make` runs
  // the search (an exception turns `fallback` into an error row).
  template <class Make>
  void guarded(GraphRun& run, std::size_t si, Make&& make, Row fallback);
  void finish(GraphRun& run, std::size_t si, Row& row, std::vector<std::int32_t>& levels) const;

  const Options& o_;
  gbcuda::Backend backend_;
  std::vector<KernelRun> kernels_;
  std::vector<gbcuda::Ordering> orderings_;
  std::string device_desc_;
  GraphBlas graphblas_;
  std::vector<GraphRecord> graphs_;
  std::vector<Row> rows_;
};

void Bench::progress(const Row& r) const {
  if (r.status == RowStatus::Skipped) {
    fmt::print(stderr, "  {:<16} source {:>10}: {}\n", r.name, r.source, r.note);
    return;
  }
  std::string times = r.has_times()
                          ? fmt::format("median {} ms, min {} ms", format_ms(r.t_median()), format_ms(r.t_min()))
                          : std::string("no time");
  fmt::print(stderr, "  {:<16} source {:>10}: {}, {} levels, {} reached: {}{}\n", r.name, r.source, times, r.levels,
             r.reached, status_word(r.status), r.note.empty() ? "" : " (" + r.note + ")");
}

Row Bench::run_gbcuda(const gbcuda::Matrix<bool>& A, const gbcuda::Relabelling* relabelling, const GraphRecord& g,
                      const Source& s, const KernelRun& kernel, gbcuda::Backend where,
                      std::vector<std::int32_t>& levels_out) {
  const bool host_baseline = where != backend_;
  Row row = base_row(g, s, host_baseline ? "host" : kernel.name, host_baseline ? "host-backend" : "kernel",
                     gbcuda::backend_description(where));
  if (relabelling) row.ordering = gbcuda::to_string(relabelling->ordering());
  const Index source = relabelling ? relabelling->new_id(s.vertex) : s.vertex;
  gbcuda::BfsOptions opt;
  opt.device = where == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  opt.kernel = kernel.kernel;
  opt.level_loop = kernel.loop;
  opt.collect_stats = false;  // per-level statistics would add a synchronisation per level
  opt.barrier_free_tail = !o_.no_barrier_free_tail;
  DevicePeak peak(where == gbcuda::Backend::Cuda);
  gbcuda::BfsResult last;
  auto search = [&] {
#if GBCUDA_BENCH_BASELINES
    if (kernel.baseline && !host_baseline) return gbcuda::baselines::run(*kernel.baseline, A, source, false, false);
#endif
    return gbcuda::bfs(A, source, opt);
  };
  time_runs(
      row, o_.warmup, o_.repeat, o_.timeout_per_case,
      [&](bool keep) {
        gbcuda::BfsResult r = search();
        const double t = r.seconds;
        if (keep) last = std::move(r);
        return t;
      },
      [&] { peak.reset(); });
  row.peak_device_bytes = peak.peak(A.device_bytes());
  row.levels = last.num_levels;
  row.reached = last.vertices_reached;
  row.edges_traversed = last.edges_traversed;
  levels_out = relabelling ? relabelling->to_original_order(last.level) : std::move(last.level);
  return row;
}

Row Bench::run_graphblas(const GrbMatrix& G, const std::vector<Index>& degree, const GraphRecord& g, const Source& s,
                         std::vector<std::int32_t>& levels_out) {
  Row row = base_row(g, s, "graphblas", "graphblas", GraphBlas::description());
  time_runs(
      row, o_.warmup, o_.repeat, o_.timeout_per_case,
      [&](bool keep) {
        gbref::Result<std::int32_t> run = gbref::bfs_levels(G, g.vertices, s.vertex, keep);
        if (keep) levels_out = std::move(run.values);
        return run.seconds;
      },
      [] {});
  // Counted as the library counts them, so that GTEPS compare.
  std::int32_t max_level = -1;
  Index reached = 0, edges = 0;
  for (std::size_t v = 0; v < levels_out.size(); ++v) {
    if (levels_out[v] < 0) continue;
    max_level = std::max(max_level, levels_out[v]);
    ++reached;
    edges += degree[v];
  }
  row.levels = max_level + 1;
  row.reached = reached;
  row.edges_traversed = edges;
  return row;
}

bool Bench::load(GraphRun& run, const GraphInput& in, std::size_t index, std::size_t count) {
  GraphRecord& g = run.g;
  const std::string& name = g.name;
  g.generated = gbcuda::is_graph_spec(in.path);
  fmt::print(stderr, "bfs_bench: [{}/{}] {}: {} ...\n", index + 1, count, name,
             g.generated
                 ? fmt::format("generating ({})", backend_ == gbcuda::Backend::Cuda ? "on the GPU" : "on the host")
                 : std::string("reading"));
  const Clock::time_point t0 = Clock::now();
  gbcuda::Matrix<bool>& A = run.A;
  try {
    gbcuda_cli::LoadedGraph loaded = gbcuda_cli::load_graph(in.path, backend_, in.read);
    if (loaded.relabelling.size() == 0 || loaded.relabelling.is_identity()) {
      A = in.symmetrize ? loaded.matrix.symmetrized() : std::move(loaded.matrix);
    } else {  // the baselines and the checks work in the file's original ids
      A = gbcuda::relabel(loaded.matrix, loaded.relabelling.inverse());
      if (in.symmetrize) {  // the saved ordering then holds for A + A' too (orderings look at it)
        A = A.symmetrized();
        loaded.matrix = loaded.matrix.symmetrized();
      }
      run.saved = gbcuda::RelabelledGraph<bool>{std::move(loaded.matrix), std::move(loaded.relabelling)};
    }
    if (A.nrows() != A.ncols())
      throw gbcuda::Error(gbcuda::Status::InvalidValue,
                          fmt::format("the matrix is {} x {}; BFS needs a square matrix", A.nrows(), A.ncols()));
    if (A.nrows() == 0) throw gbcuda::Error(gbcuda::Status::InvalidValue, "the graph is empty (0 vertices)");
    if (backend_ == gbcuda::Backend::Cuda) A.csr(gbcuda::Backend::Cuda);  // resident before any timing
  } catch (const std::bad_alloc&) {
    g.error = "out of host memory";
  } catch (const std::exception& e) {
    g.error = e.what();
  }
  if (!g.error.empty()) {
    fmt::print(stderr, "bfs_bench: error: {}: {}\n", name, g.error);
    return false;
  }
  g.load_seconds = seconds_since(t0);
  g.vertices = A.nrows();
  g.entries = A.nvals();
  const std::vector<Index>& degree = A.out_degrees();
  g.sources = pick_sources(degree, o_.sources, o_.seed);
  g.max_out_degree = degree[g.sources.front().vertex];
  g.device_bytes = A.device_bytes();
  g.cpu_baselines = g.entries <= o_.host_max_entries;
  fmt::print(stderr, "bfs_bench: {}: {} vertices, {} stored entries, loaded in {:.2f} s (not timed)\n", name,
             g.vertices, g.entries, g.load_seconds);
  run.refs.assign(g.sources.size(), {});
  run.ref_names.assign(g.sources.size(), {});
  return true;
}

void Bench::finish(GraphRun& run, std::size_t si, Row& row, std::vector<std::int32_t>& levels) const {
  if (row.status != RowStatus::Ok) return;
  std::vector<std::int32_t>& ref = run.refs[si];
  std::string& ref_name = run.ref_names[si];
  if (ref_name.empty()) {
    // The first result for this graph and source: checked against the graph itself.
    gbcuda::BfsResult r;
    r.level = levels;
    const std::string problem = gbcuda::validate_bfs(run.A, run.g.sources[si].vertex, r);
    row.validated = true;
    if (!problem.empty()) {  // not a reference then: the next result is validated instead
      row.status = RowStatus::Failed;
      row.note = "validation: " + problem;
      return;
    }
    ref = std::move(levels);
    ref_name = row.name + (row.ordering == "none" ? "" : " (" + row.ordering + ")");
    return;
  }
  row.compared_with = ref_name;
  const std::string diff = compare_levels(levels, ref);
  if (!diff.empty()) {
    row.status = RowStatus::Failed;
    row.note = fmt::format("levels differ from {}: {}", ref_name, diff);
  }
}

template <class Make>
void Bench::guarded(GraphRun& run, std::size_t si, Make&& make, Row fallback) {
  std::vector<std::int32_t> levels;
  Row row;
  try {
    row = make(levels);
  } catch (const std::bad_alloc&) {
    row = std::move(fallback);
    row.status = RowStatus::Error;
    row.note = "out of host memory";
  } catch (const std::exception& e) {
    row = std::move(fallback);
    row.status = RowStatus::Error;
    row.note = e.what();
  }
  finish(run, si, row, levels);
  progress(row);
  rows_.push_back(std::move(row));
}

// The gbcuda kernels in each ordering (the graph relabelled once per ordering).
void Bench::run_kernels(GraphRun& run) {
  gbcuda::Matrix<bool>& A = run.A;
  GraphRecord& g = run.g;
  const std::string& name = g.name;
  for (gbcuda::Ordering ordering : orderings_) {
    gbcuda::Matrix<bool> M = A;
    gbcuda::Relabelling relabelling;
    const bool relabelled = ordering != gbcuda::Ordering::None;
    // One copy of the graph on the GPU at a time, so that peak MiB is the relabelled graph's own.
    if (backend_ == gbcuda::Backend::Cuda) {
      if (relabelled) A.release(gbcuda::Backend::Cuda);
      else A.csr(gbcuda::Backend::Cuda);
    }
    if (relabelled) {
      GraphRecord::OrderingRecord rec;
      rec.name = gbcuda::to_string(ordering);
      fmt::print(stderr, "bfs_bench: {}: relabelling ({}) ...\n", name, rec.name);
      const Clock::time_point t1 = Clock::now();
      try {
        rec.from_file = run.saved && run.saved->relabelling.ordering() == ordering;  // (None never gets here)
        gbcuda::RelabelledGraph<bool> rg = rec.from_file ? *run.saved : gbcuda::relabel(A, ordering);
        M = std::move(rg.matrix);
        relabelling = std::move(rg.relabelling);
        if (backend_ == gbcuda::Backend::Cuda) M.csr(gbcuda::Backend::Cuda);
        rec.seconds = seconds_since(t1);
        fmt::print(stderr, "bfs_bench: {}: {} ordering {} {:.2f} s (not timed)\n", name, rec.name,
                   rec.from_file ? "saved in the file, ready in" : "in", rec.seconds);
      } catch (const std::exception& e) {
        rec.error = e.what();
        fmt::print(stderr, "bfs_bench: error: {}: {} ordering: {}\n", name, rec.name, rec.error);
      }
      const bool failed = !rec.error.empty();
      g.orderings.push_back(std::move(rec));
      if (failed) continue;
    }
    for (std::size_t si = 0; si < g.sources.size(); ++si) {
      const Source& s = g.sources[si];
      for (const KernelRun& k : kernels_) {
        Row fallback = base_row(g, s, k.name, "kernel", device_desc_);
        fallback.ordering = gbcuda::to_string(ordering);
        guarded(
            run, si,
            [&](std::vector<std::int32_t>& lv) {
              return run_gbcuda(M, relabelled ? &relabelling : nullptr, g, s, k, backend_, lv);
            },
            std::move(fallback));
      }
    }
    // A saved ordering's matrix outlives M (it is shared): drop its GPU copy now.
    if (relabelled && backend_ == gbcuda::Backend::Cuda) M.release(gbcuda::Backend::Cuda);
  }
}

// The CPU baselines: the host backend (when the kernels ran on the GPU) and GraphBLAS.
void Bench::run_baselines(GraphRun& run) {
  const GraphRecord& g = run.g;
  const bool want_host = !o_.no_host && backend_ == gbcuda::Backend::Cuda;
  const bool want_graphblas = !o_.no_graphblas;
  GrbMatrix G;
  std::string graphblas_error;
  if (want_graphblas && g.cpu_baselines) {
    try {
      graphblas_.ensure_initialized();
      build_graphblas_matrix(run.A, G);
    } catch (const std::exception& e) {
      graphblas_error = e.what();
    }
  }
  auto unrun = [&](Row row, RowStatus status, const std::string& note) {  // a row with no search
    row.status = status;
    row.note = note;
    progress(row);
    rows_.push_back(std::move(row));
  };
  const std::vector<Index>& degree = run.A.out_degrees();
  for (std::size_t si = 0; si < g.sources.size(); ++si) {
    const Source& s = g.sources[si];
    if (want_host) {
      Row host = base_row(g, s, "host", "host-backend", gbcuda::backend_description(gbcuda::Backend::Host));
      if (!g.cpu_baselines) {
        unrun(std::move(host), RowStatus::Skipped, kTooLarge);
      } else {
        guarded(
            run, si,
            [&](std::vector<std::int32_t>& lv) {
              KernelRun host_run;
              host_run.name = "host";
              return run_gbcuda(run.A, nullptr, g, s, host_run, gbcuda::Backend::Host, lv);
            },
            std::move(host));
      }
    }
    if (want_graphblas) {
      Row grb = base_row(g, s, "graphblas", "graphblas", GraphBlas::description());
      if (!g.cpu_baselines) unrun(std::move(grb), RowStatus::Skipped, kTooLarge);
      else if (!graphblas_error.empty()) unrun(std::move(grb), RowStatus::Error, graphblas_error);
      else
        guarded(
            run, si, [&](std::vector<std::int32_t>& lv) { return run_graphblas(G, degree, g, s, lv); }, std::move(grb));
    }
  }
}

// load -> the kernels in each ordering -> the baselines; every row checked against the first.
void Bench::run_graph(const GraphInput& in, std::size_t index, std::size_t count) {
  GraphRun run;
  run.g.name = in.name;
  run.g.path = in.path;
  run.g.read_as = in.read_as;
  if (load(run, in, index, count)) {
    run_kernels(run);
    run_baselines(run);
  }
  graphs_.push_back(std::move(run.g));
}

int Bench::print_table() const {
  const std::vector<std::string> head = {"graph",  "vertices", "entries", "kernel/baseline", "order",
                                         "source", "levels",   "reached", "median ms",       "min ms",
                                         "GTEPS",  "peak MiB", "device",  "status"};
  // Right-aligned numeric columns.
  const std::vector<bool> right = {false, true, true, false, false, true,  true,
                                   true,  true, true, true,  true,  false, false};
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows_) {
    const bool skipped = r.status == RowStatus::Skipped;
    const bool timed = r.has_times() && r.status != RowStatus::Error;
    std::string status = skipped ? r.note : status_word(r.status);
    if (!skipped && !r.note.empty()) status += " (" + r.note + ")";
    std::string peak = "-";
    if (r.peak_device_bytes) peak = fmt::format("{:.0f}", static_cast<double>(*r.peak_device_bytes) / (1 << 20));
    const std::optional<double> gteps = r.gteps();
    cells.push_back({r.graph, std::to_string(r.vertices), std::to_string(r.entries), r.name, r.ordering,
                     std::to_string(r.source), timed ? std::to_string(r.levels) : "-",
                     timed ? std::to_string(r.reached) : "-", timed ? format_ms(r.t_median()) : "-",
                     timed ? format_ms(r.t_min()) : "-", timed && gteps ? fmt::format("{:.3f}", *gteps) : "-", peak,
                     r.device, status});
  }
  for (const GraphRecord& g : graphs_)
    if (!g.error.empty())
      cells.push_back(
          {g.name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", device_desc_, "ERROR (" + g.error + ")"});
  for (const GraphRecord& g : graphs_)
    for (const auto& ord : g.orderings)
      if (!ord.error.empty())
        cells.push_back({g.name, "-", "-", "-", ord.name, "-", "-", "-", "-", "-", "-", "-", device_desc_,
                         "ERROR (ordering: " + ord.error + ")"});
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) width[c] = head[c].size();
  for (const auto& row : cells)
    for (std::size_t c = 0; c + 1 < head.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c) s += "  ";
      if (c + 1 == row.size()) s += row[c];
      else if (right[c]) s += fmt::format("{:>{}}", row[c], width[c]);
      else s += fmt::format("{:<{}}", row[c], width[c]);
    }
    fmt::print("{}\n", s);
  };
  line(head);
  std::string rule;
  for (std::size_t c = 0; c < head.size(); ++c) rule += std::string(c + 1 == head.size() ? 6 : width[c], '-') + "  ";
  fmt::print("{}\n", rule.substr(0, rule.size() - 2));
  for (const auto& row : cells) line(row);
  fmt::print(
      "\nTimes: median and min of {} timed BFS after {} warm-up run(s), graph resident, load not timed; gbcuda\n"
      "kernels report the library's own time (CUDA events on the GPU), graphblas a steady clock around its level\n"
      "loop. GTEPS = edges traversed / median time, {}.\n"
      "peak MiB: device memory in use at its highest during the timed runs (the CUDA memory pool's high-water\n"
      "mark: the resident graph, any cached transpose and the kernel's temporaries). Every result is checked:\n"
      "the first row of each graph/source with validate_bfs, the others against its levels.\n"
      "order: the vertex ordering the kernel searched in (--reorder; sources and levels in the graph's own ids;\n"
      "the relabelling is not timed, its cost is in --json and on stderr); every --kernels entry, seed kernels\n"
      "included, runs once per ordering; the host and graphblas baselines search the graph as given.\n",
      o_.repeat, o_.warmup, kEdgesCountedAs);
  const int f = failures();
  if (f) fmt::print("{} case(s) FAILED or in error.\n", f);
  std::cout.flush();
  return f;
}

Json Bench::to_json(const std::string& command_line, const std::string& date) const {
  Json j;
  j["tool"] = "bfs_bench";
  j["gbcuda_version"] = GBCUDA_VERSION_STRING;
  j["date"] = date;
  j["command_line"] = command_line;
  j["device"] = device_info(backend_);
  j["graphblas"] = {
      {"description", GraphBlas::description()},
      {"version", fmt::format("{}.{}.{}", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB)},
      {"threads", cpu_cores()}};
  j["edges_counted_as"] = kEdgesCountedAs;
  j["gteps_definition"] = "edges_traversed / seconds_median / 1e9";
  j["peak_device_bytes_definition"] =
      "high-water mark of the CUDA default memory pool during the timed runs (resident graph, cached transpose, "
      "temporaries); null off the GPU";
  Json settings;
  std::vector<std::string> knames;
  for (const KernelRun& k : kernels_) knames.push_back(k.name);
  settings["kernels"] = knames;
  std::vector<std::string> onames;
  for (gbcuda::Ordering ord : orderings_) onames.push_back(gbcuda::to_string(ord));
  settings["orderings"] = onames;
  settings["preset"] = o_.preset.empty() ? Json(nullptr) : Json(o_.preset);
  settings["extra_sources"] = o_.sources;
  settings["seed"] = o_.seed;
  settings["repeat"] = o_.repeat;
  settings["warmup"] = o_.warmup;
  settings["host_baseline"] = !o_.no_host && backend_ == gbcuda::Backend::Cuda;
  settings["graphblas_baseline"] = !o_.no_graphblas;
  settings["barrier_free_tail"] = !o_.no_barrier_free_tail;
  settings["host_max_entries"] = o_.host_max_entries;
  settings["timeout_per_case_s"] = o_.timeout_per_case;
  settings["graph_seed"] = gbcuda::kDefaultGraphSeed;
  j["settings"] = settings;

  Json graphs = Json::array();
  for (const GraphRecord& g : graphs_) {
    Json x;
    x["graph"] = g.name;
    if (!g.read_as.empty()) {
      x["path"] = g.path;
      x["read_as"] = g.read_as;
    }
    x["generated"] = g.generated;
    if (!g.error.empty()) {
      x["error"] = g.error;
      graphs.push_back(x);
      continue;
    }
    x["vertices"] = g.vertices;
    x["entries"] = g.entries;
    x["load_seconds"] = g.load_seconds;
    x["graph_device_bytes"] = g.device_bytes;
    x["max_out_degree"] = g.max_out_degree;
    Json src = Json::array();
    for (const Source& s : g.sources) src.push_back({{"vertex", s.vertex}, {"kind", s.kind}});
    x["sources"] = src;
    Json ords = Json::array();
    for (const auto& ord : g.orderings)
      ords.push_back({{"ordering", ord.name},
                      {"from_file", ord.from_file},
                      {"seconds", ord.error.empty() ? Json(ord.seconds) : Json(nullptr)},
                      {"error", ord.error.empty() ? Json(nullptr) : Json(ord.error)}});
    x["orderings"] = ords;
    x["cpu_baselines"] = g.cpu_baselines;
    graphs.push_back(x);
  }
  j["graphs"] = graphs;

  Json cases = Json::array();
  for (const Row& r : rows_) {
    Json c;
    c["graph"] = r.graph;
    c["vertices"] = r.vertices;
    c["entries"] = r.entries;
    c["name"] = r.name;
    c["kind"] = r.kind;
    c["ordering"] = r.ordering;
    c["source"] = r.source;
    c["source_kind"] = r.source_kind;
    c["status"] = status_word(r.status);
    c["note"] = r.note;
    c["device"] = r.device;
    const bool timed = r.has_times() && r.status != RowStatus::Error;
    c["levels"] = timed ? Json(r.levels) : Json(nullptr);
    c["reached"] = timed ? Json(r.reached) : Json(nullptr);
    c["edges_traversed"] = timed ? Json(r.edges_traversed) : Json(nullptr);
    c["seconds_median"] = timed ? Json(r.t_median()) : Json(nullptr);
    c["seconds_min"] = timed ? Json(r.t_min()) : Json(nullptr);
    c["seconds"] = r.seconds;
    const std::optional<double> gteps = r.gteps();
    c["gteps"] = timed && gteps ? Json(*gteps) : Json(nullptr);
    c["runs"] = r.seconds.size();
    c["runs_planned"] = r.runs_planned;
    c["warmup_runs"] = r.warmup_runs;
    c["peak_device_bytes"] = r.peak_device_bytes ? Json(*r.peak_device_bytes) : Json(nullptr);
    c["validated"] = r.validated;
    c["compared_with"] = r.compared_with.empty() ? Json(nullptr) : Json(r.compared_with);
    cases.push_back(c);
  }
  j["cases"] = cases;
  j["failures"] = failures();
  return j;
}

// ---------------------------------------------------------------------------------------------

void build_cli(CLI::App& app, Options& o) {
  app.description(
      "BFS benchmark: every kernel x graph x source, with the seed GPU kernels (Rodinia's, ...), the gbcuda\n"
      "host backend and SuiteSparse:GraphBLAS (CPU) as baselines in the same run. Prints a table on stdout,\n"
      "progress on stderr.");
  app.add_option("GRAPH", o.graphs,
                 "Graph files (any format bfs_spmv reads, or .gbc) or generator specs: kron:S:E, urand:S:K, "
                 "grid:W:H, randout:N:D, rmat:S:E[:A:B:C], powerlaw:N:D[:K], web:N, road:W:H")
      ->type_name("");
  app.add_option("--preset", o.preset,
                 "standard: kron:22:16 urand:22:16 grid:2048:2048 urand:26:8 randout:1000000:8 randout:100000000:4 "
                 "randout:100000000:8; small: kron:16:16 urand:16:16 grid:256:256 randout:100000:8; real: web:325000 "
                 "road:1250:1200 rmat:20:16 powerlaw:1000000:8 and the real files (see below); real-small: web:20000 "
                 "road:120:100 rmat:14:8 powerlaw:20000:8 and the real files (added after the GRAPHs)")
      ->type_name("standard|small|real|real-small")
      ->check(CLI::IsMember({"standard", "small", "real", "real-small"}).description(""));
  app.add_option("--kernels", o.kernels,
                 "Comma-separated kernels: bfs_spmv's (auto, pull, queue-warp, queue-block, queue-global, "
                 "single-block: the fused loop; algebra: the BFS written with vxm/nvals/assign) and the seed GPU "
                 "kernels (rodinia, vertex-topdown, vertex-bottomup, edge-coo, block-per-vertex); 'all' for every "
                 "one that runs on the device, 'list' to print them. Default: auto,algebra,rodinia on the GPU, auto "
                 "on the host")
      ->type_name("LIST|all|list");
  app.add_option("--reorder", o.reorder,
                 "Vertex orderings to run the gbcuda kernels in, comma-separated: none, degree, rcm; each is\n"
                 "computed once per graph (its time on stderr and in --json, never in a BFS time), sources and\n"
                 "levels stay in the graph's own ids; every --kernels entry runs once per ordering, the host and\n"
                 "graphblas baselines on the graph as given (default none)")
      ->type_name("LIST");
  app.add_option("--sources", o.sources, "Random non-isolated sources beside the highest-out-degree vertex (default 0)")
      ->type_name("K")
      ->check(CLI::Range(0, 1000000).description(""));
  app.add_option("--seed", o.seed,
                 "Seed for the random sources and --graph500's search keys (default 1; graphs use the generators'\n"
                 "default seed)")
      ->type_name("S");
  app.add_option("--graph500", o.graph500,
                 "The Graph500 BFS benchmark instead of the table: kron:SCALE:EDGEFACTOR (default 16) built and\n"
                 "timed (kernel 1), 64 distinct search keys with an edge (--seed), each searched with parents and\n"
                 "validated, TEPS = the drawn edges inside the searched component / the search's time; the\n"
                 "reference code's statistics and output format on stdout, every number in --json")
      ->type_name("SCALE [EDGEFACTOR]")
      ->expected(1, 2);
  app.add_flag("--no-validate", o.no_validate, "With --graph500: skip the validation of each search (on the host)");
  gbcuda_cli::add_partition_flags(app, o.partitions, o.transport, o.gpus,
                                  "With --graph500: search the graph split into P parts (bfs_spmv --partitions;\n"
                                  "the parts are built in kernel 1)");
  app.add_option("--repeat", o.repeat, "Timed BFS per case (default 10)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000).description(""));
  app.add_option("--warmup", o.warmup, "Untimed BFS per case before the timed ones (default 2)")
      ->type_name("W")
      ->check(CLI::Range(0, 1000000).description(""));
  app.add_option("--device", o.device, "Where the gbcuda kernels run: cuda, host, or auto: the GPU when usable")
      ->type_name("auto|cuda|host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}).description(""));
  app.add_option("--json", o.json_file, "Write every number to FILE (whole or not at all)")->type_name("FILE");
  gbcuda_cli::add_reader_flags(app, o.read);
  app.add_flag("--symmetrize", o.symmetrize, "GRAPH files: search A + A' (every edge in both directions)");
  app.add_flag("--no-graphblas", o.no_graphblas, "Leave out the SuiteSparse:GraphBLAS baseline");
  app.add_flag("--no-host", o.no_host, "Leave out the gbcuda host-backend baseline");
  app.add_flag("--no-barrier-free-tail", o.no_barrier_free_tail,
               "Keep every level of gbcuda's fused searches level-synchronous (BfsOptions::barrier_free_tail)");
  app.add_option("--host-max-entries", o.host_max_entries,
                 "Run the CPU baselines (host, graphblas) only on graphs with at most N stored entries (default 2e8)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber.description(""));
  app.add_option("--timeout-per-case", o.timeout_per_case,
                 "Stop repeating a case once it has run SEC seconds, warm-up included (at least one timed run; "
                 "default 20)")
      ->type_name("SEC")
      ->check(CLI::PositiveNumber.description(""));
  app.set_version_flag("--version", fmt::format("bfs_bench (gbcuda {}; CUDA backend: {})", GBCUDA_VERSION_STRING,
                                                GBCUDA_HAVE_CUDA ? "yes" : "no, built with GBCUDA_CUDA=OFF"));
  app.footer(
      std::string("Sources: the highest-out-degree vertex (lowest id on ties) plus --sources random vertices with an\n"
                  "out-edge. Per case: --warmup untimed runs, then --repeat timed ones; median and min reported.\n"
                  "GTEPS = edges traversed / median time, where ") +
      kEdgesCountedAs +
      ".\n"
      "Every result is checked (validate_bfs on the first, the others against its levels); a mismatch is a\n"
      "FAILED row.\n"
      "\n"
      "The real suite (--preset real, real-small) adds the real graph files that scripts/real-graphs.sh\n"
      "fetches (a road network, a mesh, a web crawl, a social network, a co-authorship graph, two directed\n"
      "graphs: bench/README.md) from $GBCUDA_GRAPH_DIR, else data/graphs; each is read as it was obtained\n"
      "(its format, index base, and A + A' where it stores each undirected edge once). A missing file is\n"
      "named on stderr with the command that gets it, and the run goes on without it (not a failure).\n"
      "\n"
      "Exit codes: 0 every case ok; 1 a case FAILED or could not run; 2 usage error (bad option, missing\n"
      "file, bad spec, a CUDA-only kernel or --device cuda without a usable GPU).\n"
      "\n"
      "Examples:\n"
      "  bfs_bench --preset standard --json build/bench.json     # what `make bench` runs\n"
      "  scripts/real-graphs.sh && bfs_bench --preset real --json build/real.json\n"
      "  bfs_bench kron:20:16 grid:1024:1024 --kernels all --sources 4\n"
      "  bfs_bench --kernels list\n"
      "  bfs_bench graph.mtx --device host --repeat 3");
}

// Every name --kernels takes on this device, with a description, in the order 'all' runs them.
std::vector<std::pair<KernelRun, std::string>> kernel_catalogue(gbcuda::Backend backend) {
  const bool cuda = backend == gbcuda::Backend::Cuda;
  std::vector<std::pair<KernelRun, std::string>> out;
  for (const gbcuda_cli::BfsKernelInfo& info : gbcuda_cli::bfs_kernels()) {
    if (info.cuda_only && !cuda) continue;
    KernelRun k;
    k.kernel = info.kernel;
    k.name = info.name;
    out.push_back({k, info.description});
  }
  KernelRun algebra;
  algebra.loop = gbcuda::LevelLoop::Algebra;
  algebra.name = kAlgebra;
  out.push_back({algebra, "the BFS written with public calls (vxm, nvals, assign per level)"});
#if GBCUDA_BENCH_BASELINES
  if (cuda) {
    for (const gbcuda::baselines::Baseline& b : gbcuda::baselines::all()) {
      KernelRun k;
      k.name = b.name;
      k.baseline = &b;
      out.push_back({k, b.description});
    }
  }
#endif
  return out;
}

void print_kernel_catalogue(gbcuda::Backend backend) {
  const auto all = kernel_catalogue(backend);
  std::size_t width = 0;
  for (const auto& [k, d] : all) width = std::max(width, k.name.size());
  for (const auto& [k, d] : all) fmt::print("{:<{}}  {}\n", k.name, width, d);
}

// The kernel rows --kernels names, each once.
std::vector<KernelRun> select_kernels(const std::string& list, gbcuda::Backend backend) {
  const auto all = kernel_catalogue(backend);
  std::vector<KernelRun> out;
  if (list == "all") {
    for (const auto& [k, d] : all) out.push_back(k);
    return out;
  }
  std::vector<std::string> names;
  if (list.empty()) {
    names = {"auto"};
    if (backend == gbcuda::Backend::Cuda) names = {"auto", kAlgebra, "rodinia"};
  } else {
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      names.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  for (const std::string& name : names) {
    if (name.empty()) throw UsageError{fmt::format("--kernels '{}' has an empty name", list)};
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& kd) { return kd.first.name == name; });
    if (it == all.end()) {
      const auto gpu = kernel_catalogue(gbcuda::Backend::Cuda);
      std::string known;
      for (const auto& [k, d] : gpu) known += (known.empty() ? "" : ", ") + k.name;
      const bool gpu_only = std::any_of(gpu.begin(), gpu.end(), [&](const auto& kd) { return kd.first.name == name; });
      if (gpu_only)
        throw UsageError{fmt::format("kernel '{}' runs only on the GPU, and this run uses the host ({})", name,
                                     GBCUDA_HAVE_CUDA ? "no usable GPU or --device host" : "built without CUDA")};
      throw UsageError{fmt::format("unknown kernel '{}' (expected one of: {})", name, known)};
    }
    if (std::none_of(out.begin(), out.end(), [&](const KernelRun& k) { return k.name == name; }))
      out.push_back(it->first);
  }
  return out;
}

// --reorder's list: known names, each once, in the order given.
std::vector<gbcuda::Ordering> parse_orderings(const std::string& list) {
  std::vector<gbcuda::Ordering> out;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string name = list.substr(pos, comma - pos);
    pos = comma + 1;
    gbcuda::Ordering o;
    try {
      o = gbcuda::parse_ordering(name);
    } catch (const gbcuda::Error& e) {
      throw UsageError{fmt::format("--reorder: {}", e.what())};
    }
    if (std::find(out.begin(), out.end(), o) != out.end())
      throw UsageError{fmt::format("--reorder: {} is listed twice", name)};
    out.push_back(o);
  }
  return out;
}

// The folder of the real files: $GBCUDA_GRAPH_DIR, else data/graphs (where scripts/real-graphs.sh
// puts them, relative to the current directory).
std::string graph_dir() {
  const char* env = std::getenv("GBCUDA_GRAPH_DIR");
  return env && *env ? std::string(env) : std::string("data/graphs");
}

// The real files present in graph_dir(), each with how it is read. A missing one is named on
// stderr with the command that gets it, and the run goes on without it.
std::vector<GraphInput> real_files() {
  const std::string dir = graph_dir();
  std::vector<GraphInput> out;
  std::vector<std::string> missing;
  for (const RealFile& f : kRealFiles) {
    const std::filesystem::path path = std::filesystem::path(dir) / f.file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      missing.push_back(f.file);
      continue;
    }
    GraphInput in;
    in.name = f.file;
    in.path = path.string();
    in.read.format = f.format;
    in.read.index_base = f.index_base;
    in.symmetrize = f.symmetrize;
    in.read_as = fmt::format("{}: {}, {}-based{}", f.kind, gbcuda::to_string(f.format), f.index_base,
                             f.symmetrize ? ", symmetrized (A + A')" : ", directed");
    out.push_back(std::move(in));
  }
  for (const std::string& m : missing)
    fmt::print(stderr, "bfs_bench: real suite: {} is not in {} (get the files with: {} --dest {}); left out\n", m, dir,
               kRealGraphsScript, dir);
  return out;
}

// --graph500 SCALE [EDGEFACTOR] (graph500.hpp).
int run_graph500_mode(const Options& o, const std::string& command_line) {
  if (!o.graphs.empty() || !o.preset.empty()) throw UsageError{"--graph500 makes its own graph: no GRAPH or --preset"};
  if (!o.kernels.empty() || o.reorder != "none" || o.sources != 0)
    throw UsageError{
        "--graph500 runs the library's BFS (auto) from its own 64 keys: no --kernels, --reorder or --sources"};
  gbcuda_bench::Graph500Options g;
  if (o.graph500[0] < 1 || o.graph500[0] > 30) throw UsageError{"--graph500: SCALE must be 1 to 30"};
  g.scale = int(o.graph500[0]);
  if (o.graph500.size() > 1) {
    if (o.graph500[1] < 1) throw UsageError{"--graph500: EDGEFACTOR must be at least 1"};
    g.edge_factor = o.graph500[1];
  }
  g.seed = o.seed;
  g.backend = gbcuda::resolve_device(gbcuda::parse_device(o.device));
  g.validate = !o.no_validate;
  g.partitions = o.partitions;
  g.transport = gbcuda::parse_transport(o.transport);  // checked by the option
  if (o.partitions == 0 && (o.transport != "loopback" || !o.gpus.empty()))
    throw UsageError{"--transport and --gpus go with --partitions"};
  if (g.transport == gbcuda::Transport::Nccl && g.backend != gbcuda::Backend::Cuda)
    throw UsageError{"--transport nccl runs on GPUs: not with --device host"};
  g.gpus = o.gpus;
  if (!o.json_file.empty()) {
    const std::filesystem::path dir = std::filesystem::absolute(o.json_file).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw UsageError{fmt::format("--json {}: the folder {} does not exist", o.json_file, dir.string())};
  }
  bool failed = false;
  nlohmann::json j = gbcuda_bench::run_graph500(g, failed);
  if (!o.json_file.empty()) {
    j["tool"] = "bfs_bench --graph500";
    j["gbcuda_version"] = GBCUDA_VERSION_STRING;
    j["command_line"] = command_line;
    j["date"] = utc_now();
    gbcuda::write_file_atomically(o.json_file, [&](std::ostream& out) { out << j.dump(2) << '\n'; });
    fmt::print(stderr, "bfs_bench: wrote {}\n", o.json_file);
  }
  return failed ? kExitFailure : kExitOk;
}

int run(const Options& o, const std::string& command_line) {
  if (!o.graph500.empty()) return run_graph500_mode(o, command_line);
  if (o.no_validate) throw UsageError{"--no-validate goes with --graph500 (every other case is always checked)"};
  if (o.partitions > 0 || o.transport != "loopback" || !o.gpus.empty())
    throw UsageError{"--partitions, --transport and --gpus go with --graph500 (bfs_spmv --partitions searches a file)"};
  if (o.kernels == "list") {
    print_kernel_catalogue(gbcuda::resolve_device(gbcuda::parse_device(o.device)));
    return kExitOk;
  }
  std::vector<std::string> graphs = o.graphs;
  if (o.preset == "standard") graphs.insert(graphs.end(), kPresetStandard.begin(), kPresetStandard.end());
  if (o.preset == "small") graphs.insert(graphs.end(), kPresetSmall.begin(), kPresetSmall.end());
  if (o.preset == "real") graphs.insert(graphs.end(), kPresetReal.begin(), kPresetReal.end());
  if (o.preset == "real-small") graphs.insert(graphs.end(), kPresetRealSmall.begin(), kPresetRealSmall.end());
  // Input mistakes are reported before anything runs.
  for (const std::string& g : graphs) {
    if (gbcuda::is_graph_spec(g)) {
      try {
        gbcuda::parse_graph_spec(g);
      } catch (const gbcuda::Error& e) {
        throw UsageError{e.what()};
      }
      continue;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(g, ec))
      throw UsageError{
          fmt::format("{}: no such file (and not a generator spec: kron:S:E, urand:S:K, grid:W:H, "
                      "randout:N:D, rmat:S:E[:A:B:C], powerlaw:N:D[:K], web:N, road:W:H)",
                      g)};
  }
  std::vector<GraphInput> inputs;
  for (const std::string& g : graphs) {
    if (gbcuda::is_graph_spec(g)) {
      inputs.push_back({g, g, {}, false, {}});
    } else {  // as the flags say; read_as (in the JSON) only when they say something
      const bool told = o.read.given() || o.symmetrize;
      inputs.push_back({g, g, gbcuda_cli::reader_options(o.read), o.symmetrize,
                        told ? fmt::format("{}, {}-based, header {}{}", o.read.format, o.read.index_base, o.read.header,
                                           o.symmetrize ? ", symmetrized (A + A')" : "")
                             : std::string()});
    }
  }
  if (o.preset == "real" || o.preset == "real-small") {
    const std::vector<GraphInput> files = real_files();
    inputs.insert(inputs.end(), files.begin(), files.end());
  }
  if (inputs.empty())
    throw UsageError{"no graphs: give GRAPH files or specs, or --preset standard|small|real|real-small"};
  if (!o.json_file.empty()) {
    const std::filesystem::path dir = std::filesystem::absolute(o.json_file).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw UsageError{fmt::format("--json {}: the folder {} does not exist", o.json_file, dir.string())};
  }

  const gbcuda::Backend backend = gbcuda::resolve_device(gbcuda::parse_device(o.device));
  const std::vector<KernelRun> kernels = select_kernels(o.kernels, backend);
  const std::vector<gbcuda::Ordering> orderings = parse_orderings(o.reorder);
  const std::string date = utc_now();
  fmt::print(stderr, "bfs_bench: {} graph(s), kernels on {}; {} warm-up + {} timed runs per case\n", inputs.size(),
             gbcuda::backend_description(backend), o.warmup, o.repeat);

  Bench bench(o, backend, kernels, orderings);
  for (std::size_t i = 0; i < inputs.size(); ++i) bench.run_graph(inputs[i], i, inputs.size());
  const int failures = bench.print_table();
  if (!o.json_file.empty()) {
    const Json j = bench.to_json(command_line, date);
    gbcuda::write_file_atomically(o.json_file, [&](std::ostream& out) { out << j.dump(2) << '\n'; });
    fmt::print(stderr, "bfs_bench: wrote {}\n", o.json_file);
  }
  return failures ? kExitFailure : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app;
  app.name("bfs_bench");
  Options o;
  build_cli(app, o);
  if (const auto stop = gbcuda_cli::parse_arguments(app, argc, argv, "bfs_bench")) return *stop;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + shell_quote(argv[i]);

  return gbcuda_cli::run_reporting_errors("bfs_bench", [&] { return run(o, command_line); });
}
