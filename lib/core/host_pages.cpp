// Large copies between host memory and the GPU through a pinned ring, and fresh host pages for
// results (host_pages.hpp says why).
#include "core/host_pages.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/cuda_host.hpp"
#include "gbcuda/config.hpp"

namespace gbcuda::detail {
namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

// Copies on up to eight threads of the OpenMP pool (one inside a parallel region of the caller:
// nested regions run on the calling thread alone), in pieces that keep each thread on its own pages.
void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t(256) << 10;
  const auto pieces = static_cast<long>((bytes + kPiece - 1) / kPiece);
  const int threads = static_cast<int>(std::min<long>({long(omp_get_max_threads()), 8L, pieces}));
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < pieces; ++i) {
    const std::size_t off = std::size_t(i) * kPiece;
    std::memcpy(d + off, s + off, std::min(kPiece, bytes - off));
  }
}

#if GBCUDA_HAVE_CUDA
using cuda_host::check;
using cuda_host::stream;

// The calling thread's two pinned chunks and the events that say when each last finished moving.
// Made on the thread's first staged copy; a thread that moves to another device makes its
// events again there. Given back when the thread ends (errors then ignored: at the process's exit
// the CUDA runtime may have gone first).
struct PinnedRing {
  static constexpr std::size_t kChunk = std::size_t(4) << 20;
  void* slot[2] = {nullptr, nullptr};
  cudaEvent_t moved[2] = {nullptr, nullptr};
  int device = -1;
  bool unavailable = false;  // pinning failed once: copy unstaged from then on

  bool ready() {
    if (unavailable) return false;
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    if (slot[0] && dev == device) return true;
    if (!slot[0]) {
      if (cudaHostAlloc(&slot[0], 2 * kChunk, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        slot[0] = nullptr;
        unavailable = true;
        return false;
      }
      slot[1] = static_cast<char*>(slot[0]) + kChunk;
    }
    drop_events();
    for (cudaEvent_t& e : moved) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    device = dev;
    return true;
  }
  void drop_events() noexcept {
    for (cudaEvent_t& e : moved) {
      if (e && (cudaEventSynchronize(e) != cudaSuccess || cudaEventDestroy(e) != cudaSuccess)) cudaGetLastError();
      e = nullptr;
    }
  }
  // Waits until slot i's last copy has moved (a slot not used yet: at once).
  void wait(int i) { check(cudaEventSynchronize(moved[i]), "cudaEventSynchronize"); }
  ~PinnedRing() {
    drop_events();
    if (slot[0] && cudaFreeHost(slot[0]) != cudaSuccess) cudaGetLastError();
  }
};

thread_local PinnedRing t_ring;

bool pageable_host(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeUnregistered;
}
#endif

}  // namespace

bool staged_copy(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes) {
#if GBCUDA_HAVE_CUDA
  if (bytes < kStagedCopyMinBytes || dst_where == src_where) return false;
  const bool to_host = dst_where == Backend::Host;
  if (!pageable_host(to_host ? dst : src)) return false;
  PinnedRing& r = t_ring;
  if (!r.ready()) return false;
  constexpr std::size_t kChunk = PinnedRing::kChunk;
  const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
  auto length = [&](std::size_t c) { return std::min(kChunk, bytes - c * kChunk); };
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (to_host) {
    // Chunk c + 1 moves while the host copies chunk c out of its slot.
    auto fetch = [&](std::size_t c) {
      const int i = int(c % 2);
      check(cudaMemcpyAsync(r.slot[i], s + c * kChunk, length(c), cudaMemcpyDeviceToHost, stream()), "cudaMemcpyAsync");
      check(cudaEventRecord(r.moved[i], stream()), "cudaEventRecord");
    };
    fetch(0);
    if (chunks > 1) fetch(1);
    for (std::size_t c = 0; c < chunks; ++c) {
      const int i = int(c % 2);
      r.wait(i);
      parallel_copy(d + c * kChunk, r.slot[i], length(c));
      if (c + 2 < chunks) fetch(c + 2);
    }
  } else {
    for (std::size_t c = 0; c < chunks; ++c) {
      const int i = int(c % 2);
      r.wait(i);  // the slot's last chunk has left it
      parallel_copy(r.slot[i], s + c * kChunk, length(c));
      check(cudaMemcpyAsync(d + c * kChunk, r.slot[i], length(c), cudaMemcpyHostToDevice, stream()), "cudaMemcpyAsync");
      check(cudaEventRecord(r.moved[i], stream()), "cudaEventRecord");
    }
  }
  return true;
#else
  (void)dst, (void)dst_where, (void)src, (void)src_where, (void)bytes;
  return false;
#endif
}

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kStagedCopyMinBytes || !p) return;
  const auto b = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const auto e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice: failure is harmless
#else
  (void)p, (void)bytes;
#endif
}

void prepare_host_pages(void* p, std::size_t bytes) {
  if (bytes < kStagedCopyMinBytes || !p) return;
  advise_huge_pages(p, bytes);
  auto* c = static_cast<unsigned char*>(p);
  const auto pieces = static_cast<long>((bytes + kHugePage - 1) / kHugePage);
  const int threads = static_cast<int>(std::min<long>({long(omp_get_max_threads()), 8L, pieces}));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < pieces; ++i) {
    const std::size_t off = std::size_t(i) * kHugePage;
    std::memset(c + off, 0, std::min(kHugePage, bytes - off));
  }
}

}  // namespace gbcuda::detail
