#pragma once
// What the command-line programs share: exit codes, the CLI's own input errors, the median, and
// the one place that turns an exception into a message and an exit code.
#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

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
