#pragma once
// What the command-line programs share: exit codes, the CLI's own input errors, the median, how a
// source vertex is picked, and the one place that turns an exception into a message and an exit
// code.
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gbcuda/types.hpp"

namespace gbcuda_cli {

inline constexpr const char* kEdgesCountedAs = "edges = stored directed entries in the rows of reached vertices";

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// An input problem found by the CLI itself (exit 2), as opposed to one the library reports.
struct UsageError {
  std::string message;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The vertex with the most out-edges, the lowest id on ties (bfs_bench's first source, bfs_spmv's
// --source max-degree). `degree`: Matrix::out_degrees(), at least one vertex.
inline gbcuda::Index max_out_degree_vertex(const std::vector<gbcuda::Index>& degree) {
  gbcuda::Index best = 0;
  for (gbcuda::Index v = 1; v < static_cast<gbcuda::Index>(degree.size()); ++v)
    if (degree[v] > degree[best]) best = v;
  return best;
}

// `count` distinct vertices with at least one out-edge, other than `exclude` (-1: none), each
// drawn uniformly from a std::mt19937_64 seeded with `seed` (the same draws on every platform);
// fewer when fewer such vertices exist. bfs_bench's random sources, bfs_spmv's --source random.
inline std::vector<gbcuda::Index> random_sources(const std::vector<gbcuda::Index>& degree, gbcuda::Index count,
                                                 std::uint64_t seed, gbcuda::Index exclude = -1) {
  const gbcuda::Index n = static_cast<gbcuda::Index>(degree.size());
  gbcuda::Index candidates = 0;
  for (gbcuda::Index d : degree) candidates += d > 0 ? 1 : 0;
  if (exclude >= 0 && degree[exclude] > 0) --candidates;
  const gbcuda::Index wanted = std::min(count, candidates);
  std::mt19937_64 rng(seed);
  std::vector<bool> taken(static_cast<std::size_t>(n), false);
  if (exclude >= 0) taken[exclude] = true;
  std::vector<gbcuda::Index> out;
  while (static_cast<gbcuda::Index>(out.size()) < wanted) {
    const gbcuda::Index v = static_cast<gbcuda::Index>(rng() % static_cast<std::uint64_t>(n));
    if (taken[v] || degree[v] == 0) continue;
    taken[v] = true;
    out.push_back(v);
  }
  return out;
}

// --partitions P, --transport and --gpus (bfs_spmv; bfs_bench with --graph500), the first
// described by `partitions_help`.
inline void add_partition_flags(CLI::App& app, int& partitions, std::string& transport, std::vector<int>& gpus,
                                const std::string& partitions_help) {
  app.add_option("--partitions", partitions, partitions_help)
      ->type_name("P")
      ->check(CLI::Range(1, 1024).description(""));
  app.add_option("--transport", transport,
                 "How the parts of --partitions talk: loopback (this process's memory) or nccl (one GPU a\n"
                 "part; a build with NCCL) (default loopback)")
      ->type_name("loopback|nccl")
      ->check(CLI::IsMember({"loopback", "nccl"}).description(""));
  app.add_option("--gpus", gpus, "With --transport nccl: the GPU of each part, e.g. --gpus 0,1 (default 0..P-1)")
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber.description(""));
}

// Parses the command line. Returns an exit code when the program should stop here: 0 after
// --help or --version, 2 (with a message on stderr) for a usage error; nothing to go on.
inline std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv, const char* program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "{}: error: {}\nRun '{} --help' for the options.\n", program, e.what(), program);
    return kExitUsage;
  }
  return std::nullopt;
}

// Runs body() and maps what it throws to "<program>: error: <message>" on stderr and an exit
// code: 2 for usage and input errors, 1 for everything else.
template <class Body>
int run_reporting_errors(const char* program, Body&& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.message);
    return kExitUsage;
  } catch (const gbcuda::Error& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return e.is_input_error() ? kExitUsage : kExitFailure;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "{}: error: out of host memory\n", program);
    return kExitFailure;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitFailure;
  }
}

}  // namespace gbcuda_cli
