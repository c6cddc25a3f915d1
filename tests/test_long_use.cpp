// Long use stays flat: 100,000 mixed operations on the GPU (20,000 on the host) (products, assigns, element-wise,
// apply, select, reduce, element access, copies, moves, form changes, temporaries made and dropped) keep the device
// memory pool's high-water mark and the process's resident host memory flat once the first tenth has warmed the caches
// (the scratch arenas, the claim maps, the matrix's copies).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "support/ops_ref.hpp"
#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using namespace ops_ref;
using gbcuda::Matrix;
using gbcuda::Vector;
namespace desc = gbcuda::desc;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // the sanitizers keep freed memory in quarantine: RSS grows
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Resident host memory of this process, bytes.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * std::size_t(sysconf(_SC_PAGESIZE));
}

// The device pool gbcuda allocates from: memory in use now, and the most in use since the last
// reset.
struct PoolUse {
  std::uint64_t used = 0, used_high = 0;
};
#if GBCUDA_HAVE_CUDA
cudaMemPool_t device_pool() {
  int dev = 0;
  cudaMemPool_t pool{};
  EXPECT_EQ(cudaGetDevice(&dev), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, dev), cudaSuccess);
  return pool;
}
PoolUse pool_use() {
  cudaMemPool_t pool = device_pool();
  PoolUse u;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u.used);
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &u.used_high);
  return u;
}
void reset_pool_high() {
  std::uint64_t zero = 0;
  cudaMemPoolSetAttribute(device_pool(), cudaMemPoolAttrUsedMemHigh, &zero);
}
#endif

Index env_count(const char* name, Index fallback) {
  const char* v = std::getenv(name);
  return v ? Index(std::strtoll(v, nullptr, 10)) : fallback;
}

class LongUse : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { OPS_SKIP_WITHOUT_CUDA(GetParam()); }
};

// One of a rotation of operations on a small graph; every result is read now and then so that
// nothing is only queued.
struct Workload {
  Backend b;
  Index n;
  Matrix<double> A;
  Matrix<bool> P;
  Vector<double> x, y, w;
  Vector<bool> frontier, visited, next;
  double checksum = 0;

  Workload(Backend backend, Index size, std::uint64_t seed) : b(backend), n(size) {
    Rng rng(seed);
    Coo<double> a = random_matrix<double>(rng, n, n, 6.0);
    A = gb_matrix(a);
    P = gb_matrix(Coo<bool>{n, n, a.rows, a.cols, {}});
    x = gb_vector(random_tuples<double>(rng, n, 0.5), b);
    y = Vector<double>(n, b);
    w = gb_vector(random_tuples<double>(rng, n, 0.05), b);
    frontier = Vector<bool>(n, b);
    visited = Vector<bool>(n, b);
    next = Vector<bool>(n, b);
    frontier.set_element(0, true);
    visited.set_element(0, true);
  }

  void step(Index i) {
    switch (i % 16) {
      case 0: gbcuda::mxv(y, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusTimes<double>{}, A, x); break;
      case 1: gbcuda::vxm(next, visited, gbcuda::no_accum, gbcuda::AnyPair<bool>{}, frontier, P, desc::RSC); break;
      case 2:
        gbcuda::assign(visited, next, gbcuda::no_accum, true, desc::S);
        std::swap(frontier, next);
        if (frontier.nvals() == 0) {  // the search ended: start again
          visited.clear();
          frontier.clear();
          frontier.set_element(i % n, true);
          visited.set_element(i % n, true);
        }
        break;
      case 3: gbcuda::assign(w, x, gbcuda::Plus<double>{}, y, desc::S); break;
      case 4:
        gbcuda::apply(w, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_second(gbcuda::Times<double>{}, 0.5), w);
        break;
      case 5: gbcuda::select(y, gbcuda::no_mask, gbcuda::no_accum, gbcuda::ValueGt{}, y, -1.0); break;
      case 6: gbcuda::ewise_add(x, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Max<double>{}, x, w); break;
      case 7: {
        Vector<double> t(n, b);  // a temporary made and dropped
        gbcuda::ewise_mult(t, w, gbcuda::no_accum, gbcuda::Times<double>{}, x, y, desc::S);
        checksum += double(t.nvals());
        break;
      }
      case 8: checksum += gbcuda::reduce(gbcuda::PlusMonoid<double>{}, x); break;
      case 9:
        x.set_element((i * 7) % n, double(i % 5));
        w.remove_element((i * 11) % n);
        break;
      case 10: {
        Vector<double> copy = w;  // copies and moves
        Vector<double> moved = std::move(copy);
        w = std::move(moved);
        break;
      }
      case 11: w.to_form(i % 32 == 11 ? gbcuda::VectorForm::Sparse : gbcuda::VectorForm::Bitmap); break;
      case 12: gbcuda::vxm(y, gbcuda::no_mask, gbcuda::Min<double>{}, gbcuda::MinPlus<double>{}, x, A); break;
      case 13: checksum += double(y.element(i % n).value_or(0.0)); break;
      case 14: {
        Vector<double> sums(n, b);
        gbcuda::reduce(sums, gbcuda::no_mask, gbcuda::no_accum, gbcuda::PlusMonoid<double>{}, A);
        checksum += double(sums.nvals());
        break;
      }
      default: {
        gbcuda::assign(y, gbcuda::no_mask, gbcuda::no_accum, 1.0);  // keeps the values bounded
        gbcuda::assign(x, gbcuda::no_mask, gbcuda::Min<double>{}, 3.0);
        break;
      }
    }
  }
};

TEST_P(LongUse, MemoryStaysFlat) {
  const Backend b = GetParam();
  // 100,000 on the GPU; a fifth of that on the host, whose small operations are slower (its
  // OpenMP teams fork per call) and where the test runs under the sanitizers too.
  const Index ops = env_count("GBCUDA_LONG_USE_OPS", b == Backend::Cuda ? 100000 : 20000);
  const Index warmup = ops / 10;
  Workload work(b, 2000, 42);
  for (Index i = 0; i < warmup; ++i) work.step(i);
  if (b == Backend::Cuda) gbcuda::detail::synchronize(Backend::Cuda);
  const std::size_t rss_before = resident_bytes();
#if GBCUDA_HAVE_CUDA
  PoolUse pool_before{};
  if (b == Backend::Cuda) {
    pool_before = pool_use();
    reset_pool_high();
  }
#endif
  for (Index i = warmup; i < ops; ++i) work.step(i);
  if (b == Backend::Cuda) gbcuda::detail::synchronize(Backend::Cuda);
  const std::size_t rss_after = resident_bytes();
  std::printf("%lld operations on %s: resident host memory %.1f -> %.1f MiB", (long long)ops, gbcuda::to_string(b),
              double(rss_before) / (1 << 20), double(rss_after) / (1 << 20));
#if GBCUDA_HAVE_CUDA
  if (b == Backend::Cuda) {
    const PoolUse pool_after = pool_use();
    std::printf(", device pool in use %.2f -> %.2f MiB, high-water %.2f (warm-up) -> %.2f MiB",
                double(pool_before.used) / (1 << 20), double(pool_after.used) / (1 << 20),
                double(pool_before.used_high) / (1 << 20), double(pool_after.used_high) / (1 << 20));
    // The warm-up ran every operation many times: the rest reaches no higher, and holds no more
    // at the end (1 MiB of slack: the allocator's granularity).
    EXPECT_LE(pool_after.used, pool_before.used + (1u << 20));
    EXPECT_LE(pool_after.used_high, pool_before.used_high + (1u << 20));
  }
#endif
  std::printf(" (checksum %g)\n", work.checksum);
  if (!kSanitized) {
    EXPECT_LE(rss_after, rss_before + (16u << 20)) << "resident host memory grew";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, LongUse, ::testing::Values(Backend::Host, Backend::Cuda), backend_name);

}  // namespace
