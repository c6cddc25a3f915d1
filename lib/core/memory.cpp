// Raw host and device memory: allocation, copies, fills, the library stream, the scratch arena,
// and the count of host waits (detail/array.hpp, gbcuda::host_waits()).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "gbcuda/config.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/detail/array.hpp"
#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gbcuda {
namespace detail {
namespace {

std::atomic<std::uint64_t> g_reads{0};
std::atomic<std::uint64_t> g_syncs{0};
std::atomic<std::uint64_t> g_host_fallbacks{0};

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

#if GBCUDA_HAVE_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(Status::CudaError, std::string(what) + ": " + cudaGetErrorString(e));
}

cudaStream_t stream() { return static_cast<cudaStream_t>(library_stream()); }
#endif

#if !GBCUDA_HAVE_CUDA
[[noreturn]] void no_cuda() {
  throw Error(Status::NoDevice, "this copy of gbcuda was built without the CUDA backend (GBCUDA_CUDA=OFF)");
}
#endif

// The scratch arena of this host thread: device chunks kept for reuse, and the position of the
// innermost open Scratch scope.
struct Arena {
  struct Chunk {
    char* p;
    std::size_t bytes;
  };
  std::vector<Chunk> chunks;
  std::size_t chunk = 0;   // chunks[chunk] is being handed out ...
  std::size_t offset = 0;  // ... from this byte on
  ~Arena() {
    for (const Chunk& c : chunks) free_bytes(c.p, Backend::Cuda);
  }
};
thread_local Arena g_arena;

}  // namespace

void* library_stream() {
#if GBCUDA_HAVE_CUDA
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    if (cudaStreamCreateWithFlags(&created, cudaStreamDefault) != cudaSuccess) {
      cudaGetLastError();
      created = nullptr;  // no device: the legacy stream, whose calls then fail with the real reason
    }
    return created;
  }();
  return s;
#else
  return nullptr;
#endif
}

void note_synchronization() noexcept { g_syncs.fetch_add(1, std::memory_order_relaxed); }
void note_host_fallback() noexcept { g_host_fallbacks.fetch_add(1, std::memory_order_relaxed); }

void* allocate_bytes(std::size_t bytes, Backend where) {
  if (bytes == 0) return nullptr;
  if (where == Backend::Host) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw Error(Status::OutOfMemory, "host out of memory: could not allocate " + mib(bytes));
    return p;
  }
#if GBCUDA_HAVE_CUDA
  // Stream-ordered allocations from the device's pool: freeing does not synchronise, and freed
  // blocks are kept for reuse. Up to 1 GiB of freed memory stays cached; beyond that the pool
  // hands it back at the next synchronisation, so a one-off large temporary (a transpose's sort
  // buffers) does not stay reserved.
  static const bool pool_ready = [] {
    cudaMemPool_t pool;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
      std::uint64_t keep = std::uint64_t(1) << 30;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
    return true;
  }();
  (void)pool_ready;
  void* p = nullptr;
  cudaError_t e = cudaMallocAsync(&p, bytes, stream());
  if (e == cudaErrorMemoryAllocation) {  // give cached blocks back to the driver, then try once more
    cudaGetLastError();
    cudaStreamSynchronize(stream());
    note_synchronization();
    cudaMemPool_t pool;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
      cudaMemPoolTrimTo(pool, 0);
    e = cudaMallocAsync(&p, bytes, stream());
  }
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error so later calls work
    DeviceMemoryInfo info = device_memory_info();
    throw Error(Status::OutOfMemory, "GPU out of memory: this step needs " + mib(bytes) + " more, " +
                                         mib(info.free_bytes) + " free of " + mib(info.total_bytes));
  }
  check(e, "cudaMallocAsync");
  return p;
#else
  no_cuda();
#endif
}

void free_bytes(void* p, Backend where) noexcept {
  if (!p) return;
  if (where == Backend::Host) {
    std::free(p);
    return;
  }
#if GBCUDA_HAVE_CUDA
  if (cudaFreeAsync(p, stream()) != cudaSuccess) cudaGetLastError();  // at exit the runtime may be gone
#endif
}

void copy_bytes(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_where == Backend::Host && src_where == Backend::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if GBCUDA_HAVE_CUDA
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream()), "cudaMemcpyAsync");
  if (dst_where == Backend::Host) {  // the caller reads it next: wait for it
    g_reads.fetch_add(1, std::memory_order_relaxed);
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
  }
#else
  no_cuda();
#endif
}

void fill_bytes(void* dst, Backend where, int value, std::size_t bytes) {
  if (bytes == 0) return;
  if (where == Backend::Host) {
    std::memset(dst, value, bytes);
    return;
  }
#if GBCUDA_HAVE_CUDA
  check(cudaMemsetAsync(dst, value, bytes, stream()), "cudaMemsetAsync");
#else
  no_cuda();
#endif
}

void synchronize(Backend where) {
  if (where == Backend::Host) return;
#if GBCUDA_HAVE_CUDA
  note_synchronization();
  check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
#else
  no_cuda();
#endif
}

Scratch::Scratch() : chunk_(g_arena.chunk), offset_(g_arena.offset) {}

Scratch::~Scratch() {
  g_arena.chunk = chunk_;
  g_arena.offset = offset_;
}

void* Scratch::take(std::size_t bytes) {
  constexpr std::size_t kAlign = 256;
  bytes = (std::max<std::size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  Arena& a = g_arena;
  while (a.chunk < a.chunks.size() && a.offset + bytes > a.chunks[a.chunk].bytes) {
    ++a.chunk;
    a.offset = 0;
  }
  if (a.chunk == a.chunks.size()) {  // a new chunk: at least double the last, 4 MiB at least
    std::size_t size = std::max<std::size_t>(bytes, std::size_t(4) << 20);
    if (!a.chunks.empty()) size = std::max(size, 2 * a.chunks.back().bytes);
    a.chunks.push_back({static_cast<char*>(allocate_bytes(size, Backend::Cuda)), size});
    a.offset = 0;
  }
  void* p = a.chunks[a.chunk].p + a.offset;
  a.offset += bytes;
  return p;
}

}  // namespace detail

HostWaits host_waits() {
  return {detail::g_reads.load(std::memory_order_relaxed), detail::g_syncs.load(std::memory_order_relaxed)};
}

std::uint64_t host_fallbacks() { return detail::g_host_fallbacks.load(std::memory_order_relaxed); }

void* cuda_stream() { return detail::library_stream(); }

}  // namespace gbcuda
