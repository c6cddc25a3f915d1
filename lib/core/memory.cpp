// Raw host and device memory: allocation, copies, fills, the threads' streams and the ordering of
// objects between them (StreamUse), the scratch arena, fault injection, and the count of host
// waits (detail/array.hpp, gbcuda::host_waits()).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/cuda_host.hpp"
#include "core/host_pages.hpp"
#include "core/loop_memory.hpp"
#include "gbcuda/config.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/detail/array.hpp"
#include "gbcuda/detail/stream_use.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {
namespace detail {
namespace {

std::atomic<std::uint64_t> g_reads{0};
std::atomic<std::uint64_t> g_syncs{0};
std::atomic<std::uint64_t> g_host_fallbacks{0};

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

#if GBCUDA_HAVE_CUDA
using cuda_host::check;
using cuda_host::stream;
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
};

#if GBCUDA_HAVE_CUDA
// Small device blocks (256 B to 64 KiB, in power-of-two classes) that a thread freed, kept for
// its next allocations of the same class: cudaMallocAsync and cudaFreeAsync cost about 0.6 us of
// host time each (H200), and a small operation makes several (its output's arrays and count),
// a third of a one-block vxm's enqueue. A block is reused on the freeing thread's own stream
// after the free in stream order, as the pool reuses a block freed on a stream; a block of
// another device than the thread's stream goes back to the pool.
struct SmallBlocks {
  static constexpr int kClasses = 9;  // 256 B << 0 ... 256 B << 8 = 64 KiB
  static constexpr std::size_t kMinBytes = 256;
  static constexpr std::size_t kMaxBytes = kMinBytes << (kClasses - 1);
  static constexpr std::size_t kKeptPerClass = 32;
  std::vector<void*> kept[kClasses];
  // The class of a request of `bytes` (0 < bytes <= kMaxBytes).
  static int class_of(std::size_t bytes) noexcept {
    int c = 0;
    while ((kMinBytes << c) < bytes) ++c;
    return c;
  }
  static std::size_t class_bytes(int c) noexcept { return kMinBytes << c; }
};
// Every live block handed out from a size class, by address: its device and class. Global, so
// that a block freed by another thread than the one that allocated it is still known for what
// it is (it goes back to that thread's cache only if it is of that thread's device).
struct SmallBlockRegistry {
  std::mutex mu;
  std::unordered_map<void*, std::pair<int, int>> live;  // device, class
};
SmallBlockRegistry& small_block_registry() {
  static SmallBlockRegistry* r = new SmallBlockRegistry;  // never destroyed: thread exits may come later
  return *r;
}
#endif

#if GBCUDA_HAVE_CUDA
// Streams are handed to threads and taken back when a thread ends, never destroyed: an object
// may still name the stream of a thread that has ended (StreamUse), and waiting on it must stay
// valid. A new thread reuses an idle stream of its current device (a thread per GPU: streams belong
// to the device current when they were made).
struct PooledStream {
  int device;
  cudaStream_t stream;
};
struct StreamPool {
  std::mutex mu;
  std::vector<PooledStream> idle;
  std::vector<PooledStream> all;
};
int current_device() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) cudaGetLastError();
  return dev;
}
StreamPool& stream_pool() {
  static StreamPool* pool = new StreamPool;  // never destroyed: thread exits may come later
  return *pool;
}
cudaStream_t take_stream() {
  StreamPool& pool = stream_pool();
  const int dev = current_device();
  std::lock_guard lock(pool.mu);
  for (std::size_t i = pool.idle.size(); i-- > 0;) {
    if (pool.idle[i].device != dev) continue;
    cudaStream_t s = pool.idle[i].stream;
    pool.idle.erase(pool.idle.begin() + std::ptrdiff_t(i));
    return s;
  }
  pool.all.reserve(pool.all.size() + 1);   // may throw, before a stream exists
  pool.idle.reserve(pool.all.size() + 1);  // (so that giving it back cannot throw)
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamDefault) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;  // no device: the legacy stream, whose calls then fail with the real reason
  }
  pool.all.push_back({dev, s});
  return s;
}
#endif

// This thread's stream (plain data, so it stays readable while the thread's other locals are
// destroyed), and what the thread gives back when it ends: its scratch chunks and its stream.
#if GBCUDA_HAVE_CUDA
thread_local void* t_stream = nullptr;
thread_local bool t_stream_taken = false;
thread_local int t_stream_device = -1;  // the device t_stream belongs to
#endif
struct ThreadResources {
  Arena arena;
#if GBCUDA_HAVE_CUDA
  SmallBlocks small;
  // Gives the kept small blocks back to the pool (on this thread's stream).
  void release_small_blocks() noexcept {
    for (auto& kept : small.kept) {
      for (void* p : kept)
        if (cudaFreeAsync(p, static_cast<cudaStream_t>(t_stream)) != cudaSuccess) cudaGetLastError();
      kept.clear();
    }
  }
#endif
  ~ThreadResources() {
#if GBCUDA_HAVE_CUDA
    release_small_blocks();
    for (const Arena::Chunk& c : arena.chunks) free_bytes(c.p, Backend::Cuda, c.bytes);
    arena.chunks.clear();
    if (t_stream) {
      StreamPool& pool = stream_pool();
      std::lock_guard lock(pool.mu);
      const auto s = static_cast<cudaStream_t>(t_stream);
      for (const PooledStream& p : pool.all)
        if (p.stream == s) pool.idle.push_back(p);
    }
    t_stream = nullptr;
    t_stream_taken = false;
#endif
  }
};
thread_local ThreadResources t_resources;

// Fault injection (set_allocation_failure): allocations left before one fails; < 0: none fails.
thread_local std::int64_t t_allocations_before_failure = -1;

#if GBCUDA_HAVE_CUDA
// Makes `waiter` wait for the work queued on `other` so far.
void stream_wait(cudaStream_t waiter, cudaStream_t other) {
  thread_local cudaEvent_t event = nullptr;
  if (!event) check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventRecord(event, other), "cudaEventRecord");
  check(cudaStreamWaitEvent(waiter, event, 0), "cudaStreamWaitEvent");
}
void wait_for_every_stream(cudaStream_t waiter) {
  std::vector<cudaStream_t> all;
  const int dev = current_device();
  {
    StreamPool& pool = stream_pool();
    std::lock_guard lock(pool.mu);
    for (const PooledStream& p : pool.all)
      if (p.device == dev) all.push_back(p.stream);  // a GPU's objects are used on that GPU only
  }
  for (cudaStream_t s : all)
    if (s != waiter) stream_wait(waiter, s);
}
#endif

}  // namespace

void* library_stream() {
#if GBCUDA_HAVE_CUDA
  if (!t_stream_taken) {
    (void)&t_resources;  // constructs it, so that the thread gives the stream back when it ends
    t_stream_device = current_device();
    t_stream = take_stream();
    t_stream_taken = true;
  }
  return t_stream;
#else
  return nullptr;
#endif
}

void set_allocation_failure(std::int64_t successes) noexcept { t_allocations_before_failure = successes; }

bool injected_allocation_failure() noexcept {
  if (t_allocations_before_failure < 0) return false;
  if (t_allocations_before_failure == 0) {
    t_allocations_before_failure = -1;
    return true;
  }
  --t_allocations_before_failure;
  return false;
}

// ---- StreamUse ------------------------------------------------------------------------------

void StreamUse::lock() const noexcept {
  while (busy_.exchange(true, std::memory_order_acquire)) {
  }
}

void StreamUse::take(StreamUse& o) noexcept {
  writer_.store(o.writer_.exchange(nullptr, std::memory_order_relaxed), std::memory_order_relaxed);
  has_readers_.store(o.has_readers_.exchange(false, std::memory_order_relaxed), std::memory_order_relaxed);
  for (int k = 0; k < kReaders; ++k) readers_[k] = std::exchange(o.readers_[k], nullptr);
  overflow_ = std::exchange(o.overflow_, false);
}

void StreamUse::wrote() {
  writer_.store(library_stream(), std::memory_order_release);
  if (has_readers_.load(std::memory_order_relaxed)) {
    for (void*& r : readers_) r = nullptr;
    overflow_ = false;
    has_readers_.store(false, std::memory_order_release);
  }
}

void StreamUse::before_read() const {
#if GBCUDA_HAVE_CUDA
  void* const writer = writer_.load(std::memory_order_acquire);
  if (writer == nullptr) return;
  void* const me = library_stream();
  if (writer == me) return;
  lock();
  bool known = false;
  for (void* r : readers_) known = known || r == me;
  if (!known) {
    try {
      stream_wait(static_cast<cudaStream_t>(me), static_cast<cudaStream_t>(writer));
    } catch (...) {
      unlock();
      throw;
    }
    int k = 0;
    while (k < kReaders && readers_[k] != nullptr) ++k;
    if (k < kReaders) readers_[k] = me;
    else overflow_ = true;
    has_readers_.store(true, std::memory_order_release);
  }
  unlock();
#endif
}

void StreamUse::before_write() {
#if GBCUDA_HAVE_CUDA
  void* const writer = writer_.load(std::memory_order_acquire);
  const bool readers = has_readers_.load(std::memory_order_acquire);
  void* const me = library_stream();
  if (writer == me && !readers) return;
  auto waiter = static_cast<cudaStream_t>(me);
  if (writer != nullptr && writer != me) stream_wait(waiter, static_cast<cudaStream_t>(writer));
  if (overflow_) {
    wait_for_every_stream(waiter);
  } else {
    for (void* r : readers_)
      if (r != nullptr && r != me) stream_wait(waiter, static_cast<cudaStream_t>(r));
  }
  wrote();
#endif
}

void StreamUse::before_free() noexcept {
  try {
    before_write();
  } catch (...) {
    // at exit the runtime may be gone; nothing is left to order then
  }
}

std::mutex& count_lock(const void* store) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<std::uintptr_t>(store) >> 6) % 64];
}

void throw_host_out_of_memory(std::size_t bytes) {
  throw Error(Status::OutOfMemory, "host out of memory: could not allocate " + mib(bytes));
}

void note_synchronization() noexcept { g_syncs.fetch_add(1, std::memory_order_relaxed); }
void note_host_fallback() noexcept { g_host_fallbacks.fetch_add(1, std::memory_order_relaxed); }

#if GBCUDA_HAVE_CUDA
namespace {
// The current device's default memory pool, set up on its first use to keep the memory it holds:
// its release threshold counts all the memory it holds, in use or not, so any threshold below
// what a large graph occupies made every synchronisation give the free blocks back, and the next
// allocations map fresh memory. Memory held unused counts as free in device_memory_info().
// nullptr if none.
cudaMemPool_t device_pool() noexcept {
  constexpr int kDevices = 64;
  static std::once_flag ready[kDevices];
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  if (dev < kDevices)
    std::call_once(ready[dev], [pool] {
      std::uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      cudaGetLastError();
    });
  return pool;
}
}  // namespace
#endif

void release_cached_device_memory() noexcept {
#if GBCUDA_HAVE_CUDA
  t_resources.release_small_blocks();
  try {
    cudaStreamSynchronize(stream());
    note_synchronization();
  } catch (...) {
  }
  if (cudaMemPool_t pool = device_pool()) cudaMemPoolTrimTo(pool, 0);
  cudaGetLastError();
#endif
}

void* allocate_bytes(std::size_t bytes, Backend where) {
  if (bytes == 0) return nullptr;
  if (injected_allocation_failure())
    throw Error(Status::OutOfMemory, std::string(where == Backend::Host ? "host" : "GPU") +
                                         " out of memory: could not allocate " + mib(bytes) + " (injected failure)");
  if (where == Backend::Host) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw Error(Status::OutOfMemory, "host out of memory: could not allocate " + mib(bytes));
    advise_huge_pages(p, bytes);  // a large array's whole huge pages (host_pages.hpp)
    return p;
  }
#if GBCUDA_HAVE_CUDA
  if (LoopCapture* c = active_loop_capture()) return loop_allocate(c, bytes);
  // Stream-ordered allocations from the device's pool: freeing does not synchronise, and freed
  // blocks are kept for reuse (device_pool: no release at synchronisations). A failed allocation
  // gives the cached blocks back to the driver and tries once more.
  (void)device_pool();
  void* p = nullptr;
  const bool small = bytes <= SmallBlocks::kMaxBytes;
  const int cls = small ? SmallBlocks::class_of(bytes) : 0;
  if (small) {
    (void)library_stream();  // t_stream_device is known from here on
    const int dev = current_device();
    auto& kept = t_resources.small.kept[cls];
    if (dev == t_stream_device && !kept.empty()) {
      p = kept.back();
      kept.pop_back();
      try {
        SmallBlockRegistry& r = small_block_registry();
        std::lock_guard lock(r.mu);
        r.live[p] = {dev, cls};
      } catch (...) {
        kept.push_back(p);  // the room it just left
        throw_host_out_of_memory(sizeof(void*) * 4);
      }
      return p;
    }
    bytes = SmallBlocks::class_bytes(cls);
  } else {
    // Whole 8-byte words: an atomic on a 1- or 2-byte value works on the aligned 32-bit word
    // around it, which must lie inside the allocation.
    bytes = (bytes + 7) / 8 * 8;
  }
  cudaError_t e = cudaMallocAsync(&p, bytes, stream());
  if (e == cudaErrorMemoryAllocation) {  // give cached blocks back to the driver, then try once more
    cudaGetLastError();
    t_resources.release_small_blocks();
    cudaStreamSynchronize(stream());
    note_synchronization();
    if (cudaMemPool_t pool = device_pool()) cudaMemPoolTrimTo(pool, 0);
    e = cudaMallocAsync(&p, bytes, stream());
  }
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the error so later calls work
    DeviceMemoryInfo info = device_memory_info();
    throw Error(Status::OutOfMemory, "GPU out of memory: this step needs " + mib(bytes) + " more, " +
                                         mib(info.free_bytes) + " free of " + mib(info.total_bytes));
  }
  check(e, "cudaMallocAsync");
  if (small) {
    try {
      SmallBlockRegistry& r = small_block_registry();
      std::lock_guard lock(r.mu);
      r.live[p] = {current_device(), cls};
    } catch (...) {
      cudaFreeAsync(p, stream());
      throw_host_out_of_memory(sizeof(void*) * 4);
    }
  }
  return p;
#else
  no_cuda();
#endif
}

void free_bytes(void* p, Backend where, std::size_t bytes) noexcept {
  if (!p) return;
  if (where == Backend::Host) {
    std::free(p);
    return;
  }
#if GBCUDA_HAVE_CUDA
  if (LoopCapture* c = active_loop_capture()) {
    loop_free(c, p, bytes);
    return;
  }
  cudaStream_t s = nullptr;  // a thread whose first use this is may find no memory for its stream:
  try {                      // then the legacy stream, which waits for all the others
    s = stream();
  } catch (...) {
  }
  if (bytes <= SmallBlocks::kMaxBytes) {  // the registry forgets the block whatever becomes of it
    int dev = -1, cls = -1;
    {
      SmallBlockRegistry& r = small_block_registry();
      std::lock_guard lock(r.mu);
      if (auto it = r.live.find(p); it != r.live.end()) {
        dev = it->second.first;
        cls = it->second.second;
        r.live.erase(it);
      }
    }
    if (cls >= 0 && dev == t_stream_device && s != nullptr) {
      auto& kept = t_resources.small.kept[cls];
      if (kept.size() < SmallBlocks::kKeptPerClass) {
        try {
          kept.push_back(p);
          return;
        } catch (...) {  // no room to keep it: the pool takes it back
        }
      }
    }
  }
  if (cudaFreeAsync(p, s) != cudaSuccess) cudaGetLastError();  // at exit the runtime may be gone
#else
  (void)bytes;
#endif
}

void copy_bytes(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_where == Backend::Host && src_where == Backend::Host) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if GBCUDA_HAVE_CUDA
  if (dst_where == Backend::Host && loop_capturing()) throw_waits_in_loop("a value copied back to the host");
  if (src_where == Backend::Host && loop_capturing()) {
    if (bytes > kLoopStoreMaxBytes)
      throw Error(Status::NotImplemented, "device_loop: the body copies " + std::to_string(bytes) +
                                              " bytes of host memory to the GPU (at most " +
                                              std::to_string(kLoopStoreMaxBytes) + " can be captured)");
    cuda::launch_loop_store(dst, src, bytes);
    return;
  }
  if (staged_copy(dst, dst_where, src, src_where, bytes)) {  // a large copy to or from pageable memory
    if (dst_where == Backend::Host) g_reads.fetch_add(1, std::memory_order_relaxed);
    return;
  }
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

#if GBCUDA_HAVE_CUDA
void throw_waits_in_loop(const char* what) {
  throw Error(Status::NotImplemented, std::string("device_loop: the body waits for the GPU (") + what +
                                          "); a body repeated on the device must leave its results there");
}
#endif

void synchronize(Backend where) {
  if (where == Backend::Host) return;
#if GBCUDA_HAVE_CUDA
  if (loop_capturing()) throw_waits_in_loop("a synchronisation");
  note_synchronization();
  check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
#else
  no_cuda();
#endif
}

Scratch::Scratch() : chunk_(t_resources.arena.chunk), offset_(t_resources.arena.offset) {}

Scratch::~Scratch() {
  t_resources.arena.chunk = chunk_;
  t_resources.arena.offset = offset_;
}

void* Scratch::take(std::size_t bytes) {
  constexpr std::size_t kAlign = 256;
  bytes = (std::max<std::size_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  Arena& a = t_resources.arena;
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
