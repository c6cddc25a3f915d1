// bfs_bench --graph500 (graph500.hpp).
#include "graph500.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"

namespace gbcuda_bench {
namespace {

using Clock = std::chrono::steady_clock;
using gbcuda::Index;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The reference code's statistics: quartiles as the mean of the two middle candidates, the
// sample standard deviation, and for rates the harmonic mean with its standard deviation.
struct Stats {
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, mean = 0, stddev = 0, hmean = 0, hstddev = 0;
};

Stats statistics(std::vector<double> x) {
  Stats s;
  const std::size_t n = x.size();
  if (n == 0) return s;
  std::sort(x.begin(), x.end());
  s.min = x.front();
  s.max = x.back();
  s.q1 = (x[(n - 1) / 4] + x[n / 4]) / 2;
  s.median = (x[(n - 1) / 2] + x[n / 2]) / 2;
  s.q3 = (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]) / 2;
  double sum = 0, inv = 0;
  for (double v : x) {
    sum += v;
    inv += 1 / v;
  }
  s.mean = sum / double(n);
  const double inv_mean = inv / double(n);
  s.hmean = 1 / inv_mean;
  double d2 = 0, h2 = 0;
  for (double v : x) {
    d2 += (v - s.mean) * (v - s.mean);
    h2 += (1 / v - inv_mean) * (1 / v - inv_mean);
  }
  if (n > 1) {
    s.stddev = std::sqrt(d2 / double(n - 1));
    s.hstddev = std::sqrt(h2) / double(n - 1) * s.hmean * s.hmean;
  }
  return s;
}

nlohmann::json to_json(const Stats& s) {
  return {{"min", s.min},
          {"firstquartile", s.q1},
          {"median", s.median},
          {"thirdquartile", s.q3},
          {"max", s.max},
          {"mean", s.mean},
          {"stddev", s.stddev},
          {"harmonic_mean", s.hmean},
          {"harmonic_stddev", s.hstddev}};
}

void print_stats(const char* prefix, const char* what, const Stats& s, bool harmonic) {
  fmt::print("{}min_{}: {:.9g}\n", prefix, what, s.min);
  fmt::print("{}firstquartile_{}: {:.9g}\n", prefix, what, s.q1);
  fmt::print("{}median_{}: {:.9g}\n", prefix, what, s.median);
  fmt::print("{}thirdquartile_{}: {:.9g}\n", prefix, what, s.q3);
  fmt::print("{}max_{}: {:.9g}\n", prefix, what, s.max);
  if (harmonic) {
    fmt::print("{}harmonic_mean_{}: {:.9g}\n", prefix, what, s.hmean);
    fmt::print("{}harmonic_stddev_{}: {:.9g}\n", prefix, what, s.hstddev);
  } else {
    fmt::print("{}mean_{}: {:.9g}\n", prefix, what, s.mean);
    fmt::print("{}stddev_{}: {:.9g}\n", prefix, what, s.stddev);
  }
}

}  // namespace

nlohmann::json run_graph500(const Graph500Options& o, bool& failed) {
  failed = false;
  gbcuda::GraphSpec spec;
  spec.kind = gbcuda::GraphSpec::Kind::Kron;
  spec.scale = o.scale;
  spec.edge_factor = o.edge_factor;
  spec = gbcuda::parse_graph_spec(spec.text());  // checks the numbers, fills the vertex count
  const std::string device = o.partitions > 0
                                 ? fmt::format("{} parts ({} transport) on {}", o.partitions,
                                               gbcuda::to_string(o.transport), gbcuda::backend_description(o.backend))
                                 : gbcuda::backend_description(o.backend);
  fmt::print(stderr, "bfs_bench: Graph500 SCALE {} edgefactor {} on {}\n", o.scale, o.edge_factor, device);

  // Kernel 1: the Kronecker edges drawn and made a CSR on the device, and what a search reads
  // beside it (degrees; kron is symmetric, so no transpose).
  auto t0 = Clock::now();
  const gbcuda::Matrix<bool> A = gbcuda::generate_graph(spec, o.backend);
  if (o.backend == gbcuda::Backend::Cuda) gbcuda::detail::synchronize(o.backend);
  const double generation = since(t0);
  (void)A.out_degrees();
  (void)A.is_symmetric_structure();
  gbcuda::PartitionedBfsOptions po;  // with partitions: each part's piece, on its GPU
  po.parts = std::max(o.partitions, 1);
  po.transport = o.transport;
  po.device = o.backend == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  po.gpus = o.gpus;
  po.compute_parents = true;
  po.collect_stats = false;
  std::optional<gbcuda::PartitionedGraph> parts;
  if (o.partitions > 0) {
    fmt::print(stderr, "bfs_bench: Graph500 building {} parts\n", o.partitions);
    parts.emplace(A, po);
    fmt::print(stderr, "bfs_bench: Graph500 built {} parts in {:.2f} s ({})\n", o.partitions, since(t0) - generation,
               parts->built_on_gpus() ? "cut on their GPUs" : "cut on the host");
  }
  const double construction = since(t0);

  // The search keys: distinct vertices with an edge to another vertex (the CSR has no self loops).
  const std::vector<Index> keys = gbcuda_cli::random_sources(A.out_degrees(), o.keys, o.seed);
  gbcuda::BfsOptions bo;
  bo.device = o.backend == gbcuda::Backend::Cuda ? gbcuda::Device::Cuda : gbcuda::Device::Host;
  bo.compute_parents = true;  // Graph500's output is a BFS tree
  bo.collect_stats = false;
  auto search = [&](Index key) { return parts ? parts->bfs(key, po) : gbcuda::bfs(A, key, bo); };
  if (!keys.empty()) (void)search(keys[0]);  // warm-up (calibration, first-use caches): untimed

  std::vector<double> times, nedges, teps, validate_times;
  std::map<std::pair<Index, Index>, Index> nedge_of;  // a component (reached, edges) -> its drawn edges
  nlohmann::json searches = nlohmann::json::array();
  int invalid = 0;
  const bool progress = isatty(fileno(stderr)) != 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const gbcuda::BfsResult r = search(keys[i]);
    std::string problem;
    if (o.validate) {
      const auto tv = Clock::now();
      problem = gbcuda::validate_bfs(A, keys[i], r);
      validate_times.push_back(since(tv));
    }
    if (!problem.empty()) {
      ++invalid;
      fmt::print(stderr, "bfs_bench: Graph500 search {} from {}: validation failed: {}\n", i, keys[i], problem);
    }
    const std::pair<Index, Index> component{r.vertices_reached, r.edges_traversed};
    auto it = nedge_of.find(component);
    if (it == nedge_of.end()) it = nedge_of.emplace(component, gbcuda::count_drawn_edges_within(spec, r.level)).first;
    times.push_back(r.seconds);
    nedges.push_back(double(it->second));
    teps.push_back(double(it->second) / r.seconds);
    searches.push_back({{"key", keys[i]},
                        {"seconds", r.seconds},
                        {"nedge", it->second},
                        {"teps", double(it->second) / r.seconds},
                        {"reached", r.vertices_reached},
                        {"levels", r.num_levels},
                        {"valid", o.validate ? nlohmann::json(problem.empty()) : nlohmann::json(nullptr)}});
    if (progress) fmt::print(stderr, "\rbfs_bench: Graph500 search {}/{}", i + 1, keys.size());
  }
  if (progress) fmt::print(stderr, "\n");
  failed = invalid > 0;
  const Stats st = statistics(times), sn = statistics(nedges), sr = statistics(teps), sv = statistics(validate_times);

  fmt::print("SCALE: {}\nedgefactor: {}\nNBFS: {}\n", o.scale, o.edge_factor, keys.size());
  fmt::print("graph_generation: {:.9g}\nnum_mpi_processes: 1\nconstruction_time: {:.9g}\n", generation, construction);
  if (o.partitions > 0) fmt::print("num_parts: {}\n", o.partitions);
  print_stats("bfs  ", "time", st, false);
  print_stats("", "nedge", sn, false);
  print_stats("bfs  ", "TEPS", sr, true);
  if (o.validate) {
    print_stats("bfs  ", "validate", sv, false);
    fmt::print("bfs  validation: {}\n", invalid == 0 ? "passed" : fmt::format("FAILED for {} searches", invalid));
  }
  fmt::print("device: {}\n", device);

  nlohmann::json j;
  j["scale"] = o.scale;
  j["edgefactor"] = o.edge_factor;
  j["nbfs"] = keys.size();
  j["device"] = device;
  j["partitions"] = o.partitions > 0 ? nlohmann::json(o.partitions) : nlohmann::json(nullptr);
  j["transport"] = o.partitions > 0 ? nlohmann::json(gbcuda::to_string(o.transport)) : nlohmann::json(nullptr);
  j["graph_generation_seconds"] = generation;
  j["construction_seconds"] = construction;
  j["vertices"] = A.nrows();
  j["stored_entries"] = A.nvals();
  j["edges_drawn"] = spec.edges_drawn();
  j["key_seed"] = o.seed;
  j["time"] = to_json(st);
  j["nedge"] = to_json(sn);
  j["teps"] = to_json(sr);
  j["validated"] = o.validate;
  j["invalid"] = invalid;
  j["searches"] = searches;
  return j;
}

}  // namespace gbcuda_bench
