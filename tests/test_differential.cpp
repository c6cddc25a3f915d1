// The differential test: random operations, every operation of docs/api.md's table, on gbcuda and
// on SuiteSparse:GraphBLAS from the same inputs, on each backend (tests/differential/). Seeded and
// reproducible: case k of seed s is the same on every run (with the same C++ standard library,
// whose distributions it draws from), and each failure is printed on one line with the command
// that reruns it alone.
//
// Environment:
//   GBCUDA_DIFF_CASES=N    cases per backend (default kDefaultCases: under two minutes on the host
//                          backend of a 2-core machine)
//   GBCUDA_DIFF_SEED=S     the seed (default 1)
//   GBCUDA_DIFF_CASE=K     run case K only (the repro)
//   GBCUDA_DIFF_FAMILY=F   run only the cases of one family (product, assign, mxm, ...)
//   GBCUDA_DIFF_TRACE=1    print each case's index, family and draws as they happen (to find a crash);
//                          2: the inputs' entries too
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "differential/differential.hpp"

namespace {

using diff::Case;
using gbcuda::Backend;

constexpr std::int64_t kDefaultCases = 200000;
constexpr int kMaxFailures = 20;

// GraphBLAS, with its pool of freed blocks off: every block goes back to free() at once, so a
// sanitizer sees a use after free in the reference as well.
class ReferenceEnvironment : public ops_ref::GraphBlasEnvironment {
 public:
  void SetUp() override {
    ops_ref::GraphBlasEnvironment::SetUp();
    std::int64_t no_pool[64] = {};
    OPS_GRB(GxB_Global_Option_set(GxB_MEMORY_POOL, no_pool));
  }
};
const auto* const kGraphBlasEnv = ::testing::AddGlobalTestEnvironment(new ReferenceEnvironment);

struct Family {
  const char* name;
  void (*run)(Case&);
  int weight;  // relative frequency
};
const Family kFamilies[] = {
    {"product", diff::run_product, 22},
    {"reduce-rows", diff::run_reduce_rows, 5},
    {"assign", diff::run_assign, 16},
    {"extract", diff::run_extract, 4},
    {"apply", diff::run_apply, 10},
    {"select", diff::run_select, 7},
    {"ewise", diff::run_ewise, 14},
    {"reduce", diff::run_reduce_vector, 4},
    {"elements", diff::run_elements, 6},
    {"mxm", diff::run_mxm, 6},
    {"matrix-unary", diff::run_matrix_unary, 6},
    {"matrix-scalar", diff::run_matrix_scalar, 4},
    {"matrix-ewise", diff::run_matrix_ewise, 3},
    {"matrix-index", diff::run_matrix_index, 3},
    {"matrix-line", diff::run_matrix_line, 3},
    {"subassign", diff::run_subassign, 4},
};

const Family& draw_family(Case& c) {
  int total = 0;
  for (const Family& f : kFamilies) total += f.weight;
  int k = c.pick(total);
  for (const Family& f : kFamilies) {
    if (k < f.weight) return f;
    k -= f.weight;
  }
  return kFamilies[0];
}

std::optional<std::int64_t> env_number(const char* name) {
  const char* s = std::getenv(name);
  if (!s || !*s) return std::nullopt;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (*end != '\0' || v < 0) throw std::invalid_argument(std::string(name) + " must be a non-negative integer");
  return v;
}

// Runs case `index`; returns its failure ("" when it passed).
std::string run_case(std::uint64_t seed, std::uint64_t index, Backend b, const char* only_family, const char** family) {
  Case c(seed, index, b);
  const Family& f = draw_family(c);
  *family = f.name;
  if (only_family && std::string(only_family) != f.name) return {};
  if (diff::trace_level() > 0) {
    std::printf("case %llu: %s\n", static_cast<unsigned long long>(index), f.name);
    std::fflush(stdout);
  }
  try {
    f.run(c);
  } catch (const gbcuda::Error& e) {
    c.fail(std::string("threw gbcuda::Error: ") + e.what());
  } catch (const std::exception& e) {
    c.fail(std::string("threw ") + e.what());
  }
  if (c.failure.empty()) return {};
  return c.text + " => " + c.failure;
}

class Differential : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
};

// Ends the program, naming the case, when one case runs for more than a minute (a hang in gbcuda
// or in the reference would otherwise run into ctest's timeout with nothing said).
class Watchdog {
 public:
  Watchdog(std::uint64_t seed, const char* backend) : seed_(seed), backend_(backend), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void starting(std::uint64_t index) {
    std::lock_guard lock(mutex_);
    index_ = index;
    since_ = std::chrono::steady_clock::now();
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      wake_.wait_for(lock, std::chrono::seconds(1));
      if (!done_ && std::chrono::steady_clock::now() - since_ > std::chrono::seconds(60)) {
        std::fprintf(
            stderr,
            "case %llu has run for a minute: it hangs (in gbcuda or in GraphBLAS)\n  repro: GBCUDA_DIFF_SEED=%llu "
            "GBCUDA_DIFF_CASE=%llu GBCUDA_DIFF_TRACE=1 test_differential --gtest_filter='*RandomOperations/%s'\n",
            static_cast<unsigned long long>(index_), static_cast<unsigned long long>(seed_),
            static_cast<unsigned long long>(index_), backend_);
        std::_Exit(3);
      }
    }
  }
  std::uint64_t seed_;
  const char* backend_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::uint64_t index_ = 0;
  std::chrono::steady_clock::time_point since_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

TEST_P(Differential, RandomOperations) {
  const Backend b = GetParam();
  const char* backend = b == Backend::Host ? "Host" : "Cuda";
  const std::uint64_t seed = std::uint64_t(env_number("GBCUDA_DIFF_SEED").value_or(1));
  const std::optional<std::int64_t> only = env_number("GBCUDA_DIFF_CASE");
  const std::int64_t count = env_number("GBCUDA_DIFF_CASES").value_or(kDefaultCases);
  const char* only_family = std::getenv("GBCUDA_DIFF_FAMILY");
  if (only_family && !*only_family) only_family = nullptr;

  const std::uint64_t first = only ? std::uint64_t(*only) : 0;
  const std::uint64_t last = only ? first + 1 : std::uint64_t(count);
  std::map<std::string, int> ran;
  int failures = 0;
  const auto start = std::chrono::steady_clock::now();
  Watchdog watchdog(seed, backend);
  for (std::uint64_t k = first; k < last && failures < kMaxFailures; ++k) {
    watchdog.starting(k);
    const char* family = "";
    const std::string failure = run_case(seed, k, b, only_family, &family);
    if (only_family && std::string(only_family) != family) continue;
    ++ran[family];
    if (!failure.empty()) {
      ++failures;
      ADD_FAILURE() << "case " << k << ": " << failure << "\n  repro: GBCUDA_DIFF_SEED=" << seed
                    << " GBCUDA_DIFF_CASE=" << k << " test_differential --gtest_filter='*RandomOperations/" << backend
                    << "'";
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int total = 0;
  std::string mix;
  for (auto& [name, n] : ran) {
    total += n;
    mix += " " + name + " " + std::to_string(n);
  }
  std::printf("differential on %s, seed %llu: %d cases in %.1f s, %d failed (%s)\n", backend,
              static_cast<unsigned long long>(seed), total, seconds, failures, mix.c_str() + (mix.empty() ? 0 : 1));
  if (failures >= kMaxFailures) std::printf("stopped after %d failures\n", kMaxFailures);
  std::fflush(stdout);
}

INSTANTIATE_TEST_SUITE_P(Backends, Differential, ::testing::Values(Backend::Host, Backend::Cuda),
                         ops_ref::backend_name);

}  // namespace
