#pragma once
// Array<T>: an owning, contiguous, uninitialised buffer in host or device memory.
// The building block of Matrix and Vector storage; copies between backends are explicit.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// Raw memory primitives (lib/core/memory.cpp). Device versions throw Error(NoDevice) in a
// build without CUDA and Error(OutOfMemory) naming the bytes asked for and free.
//
// Device work is enqueued on the calling host thread's stream (library_stream()) and returns
// without waiting: allocations and frees are stream-ordered (the device's memory pool), fills and
// copies into device memory are asynchronous (the source of a host-to-device copy may be reused at
// once). The host waits only where it must: a copy into host memory completes before copy_bytes
// returns, and synchronize() waits for everything this thread queued. Both are counted
// (host_waits()). Objects passed between threads order their device work with StreamUse
// (stream_use.hpp).
// `bytes` in free_bytes: the size asked for when `p` was allocated.
void* allocate_bytes(std::size_t bytes, Backend where);
void free_bytes(void* p, Backend where, std::size_t bytes) noexcept;
// Hands the device memory the library's pool holds unused back to the driver (after waiting for
// the calling thread's stream), for a library that allocates outside the pool (cuSPARSE's work
// space) and found too little. No-op without CUDA.
void release_cached_device_memory() noexcept;
void copy_bytes(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes);
void fill_bytes(void* dst, Backend where, int value, std::size_t bytes);
// Blocks until all device work this thread queued so far is done (no-op for the host).
void synchronize(Backend where);
// The cudaStream_t the calling host thread's device operations run on: one per thread, created
// on the thread's first use (or reused from a thread that ended) and never destroyed; it
// synchronises with the legacy default stream like any blocking stream. nullptr without CUDA.
void* library_stream();
// Counted host waits, for waits the library makes outside copy_bytes/synchronize (e.g. on an
// event).
void note_synchronization() noexcept;
// Fault injection, for tests: after `successes` more allocations on the calling thread succeed
// (allocate_bytes, host and device), the next one fails with Error(OutOfMemory); negative turns
// it off (the default). injected_allocation_failure() counts one allocation against it and says
// whether that one fails; a test's replacement of operator new may call it too.
void set_allocation_failure(std::int64_t successes) noexcept;
bool injected_allocation_failure() noexcept;
// Counts an operation on the CUDA backend that ran on host copies (gbcuda::host_fallbacks()).
void note_host_fallback() noexcept;

// Error(OutOfMemory) for a host allocation of `bytes` that failed (std::bad_alloc, or a size
// past what the allocator takes).
[[noreturn]] void throw_host_out_of_memory(std::size_t bytes);
// std::vector<T>(n, fill), with failure reported as Error(OutOfMemory) naming the bytes.
template <class T>
std::vector<T> host_vector(std::size_t n, const T& fill = T{}) {
  try {
    return std::vector<T>(n, fill);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  throw_host_out_of_memory(n > SIZE_MAX / sizeof(T) ? SIZE_MAX : n * sizeof(T));
}

// Device scratch memory for the temporaries of one operation (masks, counters, CUB's temporary
// storage, ...): take() hands out pieces in order, and the scope gives them all back when it
// ends. The next operation reuses the same memory without waiting, because everything that
// touches it runs in order on the thread's stream. The memory is kept (per host thread) at its
// largest use so far. Scopes nest; a piece must not outlive its scope.
class Scratch {
 public:
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // `bytes` of device memory, 256-byte aligned, contents undefined.
  void* take(std::size_t bytes);
  template <class T>
  T* take(std::size_t count) {
    return static_cast<T*>(take(count * sizeof(T)));
  }

 private:
  std::size_t chunk_ = 0;  // the arena's position when the scope began
  std::size_t offset_ = 0;
};

template <class T>
class Array {
  template <class U>
  friend class Array;
  static_assert(std::is_trivially_copyable_v<T>, "Array holds plain data only");

 public:
  Array() = default;
  Array(std::size_t n, Backend where) : n_(n), where_(where) {
    if (n_ > 0) ptr_ = static_cast<T*>(allocate_bytes(n_ * sizeof(T), where_));
    allocated_ = n_;
  }
  Array(const std::vector<T>& v, Backend where) : Array(v.size(), where) {
    if (n_ == 0) return;
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> is packed: copy element-wise
      Array<T> h(n_, Backend::Host);
      for (std::size_t i = 0; i < n_; ++i) h.ptr_[i] = v[i];
      copy_bytes(ptr_, where_, h.ptr_, Backend::Host, n_ * sizeof(T));
    } else {
      copy_bytes(ptr_, where_, v.data(), Backend::Host, n_ * sizeof(T));
    }
  }
  // Host memory taken over from `v` without a copy: the array frees it as v would have
  // (std::vector<bool> is packed, so a bool array copies it).
  static Array adopt(std::vector<T>&& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return Array(v, Backend::Host);
    } else {
      Array a;
      if (v.empty()) return a;
      a.owner_ = new std::vector<T>(std::move(v));
      a.ptr_ = a.owner_->data();
      a.n_ = a.owner_->size();
      a.allocated_ = a.n_;
      return a;
    }
  }
  // The elements as a std::vector, the array left empty: without a copy when the array took its
  // memory over from a vector (adopt), else by one copy.
  std::vector<T> release_vector() {
    if constexpr (!std::is_same_v<T, bool>) {
      if (owner_) {
        std::vector<T> v = std::move(*owner_);
        v.resize(n_);  // shrink() may have kept a prefix
        delete owner_;
        owner_ = nullptr;
        ptr_ = nullptr;
        n_ = 0;
        allocated_ = 0;
        return v;
      }
    }
    std::vector<T> v = to_vector();
    reset();
    return v;
  }
  // Whether the memory was taken over from a std::vector (adopt).
  bool adopted() const noexcept { return owner_ != nullptr; }

  ~Array() { reset(); }
  Array(Array&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        n_(std::exchange(o.n_, 0)),
        allocated_(std::exchange(o.allocated_, 0)),
        where_(o.where_),
        owner_(std::exchange(o.owner_, nullptr)) {}
  Array& operator=(Array&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
      allocated_ = std::exchange(o.allocated_, 0);
      where_ = o.where_;
      owner_ = std::exchange(o.owner_, nullptr);
    }
    return *this;
  }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  Backend where() const noexcept { return where_; }
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }

  // Host-only element access (debug checks are the caller's job).
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  T* begin() noexcept { return ptr_; }
  T* end() noexcept { return ptr_ + n_; }
  const T* begin() const noexcept { return ptr_; }
  const T* end() const noexcept { return ptr_ + n_; }

  // A copy of this array in `to` memory.
  Array clone(Backend to) const {
    Array out(n_, to);
    if (n_ > 0) copy_bytes(out.ptr_, to, ptr_, where_, bytes());
    return out;
  }
  Array clone() const { return clone(where_); }
  std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> is packed: copy element-wise
      Array<T> h = clone(Backend::Host);
      return std::vector<T>(h.begin(), h.end());
    } else {
      std::vector<T> v(n_);
      if (n_ > 0) copy_bytes(v.data(), Backend::Host, ptr_, where_, bytes());
      return v;
    }
  }
  // Sets every byte to `byte` (use 0 for zero, 0xff for "-1" in signed integers).
  void fill_bytes_with(int byte) {
    if (n_ > 0) fill_bytes(ptr_, where_, byte, bytes());
  }
  void reset() noexcept {
    if (owner_) delete owner_;
    else if (ptr_) free_bytes(ptr_, where_, allocated_ * sizeof(T));
    owner_ = nullptr;
    ptr_ = nullptr;
    n_ = 0;
    allocated_ = 0;
  }
  // Keeps the first min(n, size()) elements: size() becomes that, and the allocation stays whole
  // until the array frees it (shrinking to 0 frees it now). For a buffer filled up to a count
  // known only afterwards, where a copy of the right size would not fit beside it.
  void shrink(std::size_t n) noexcept {
    if (n >= n_) return;
    if (n == 0) reset();
    else n_ = n;
  }

  // The memory as raw parts, still owned by the array, and an array that takes such parts over
  // (memory no other array owns, of the backend and allocation size given): the device loop's
  // bookkeeping (device_loop.hpp) hands a vector's arrays back to it this way.
  struct Raw {
    T* ptr = nullptr;
    std::size_t size = 0;
    std::size_t allocated = 0;
    Backend where = Backend::Host;
  };
  Raw raw() const noexcept { return {ptr_, n_, allocated_, where_}; }
  static Array adopt_raw(const Raw& r) noexcept {
    Array a;
    a.ptr_ = r.ptr;
    a.n_ = r.size;
    a.allocated_ = r.allocated;
    a.where_ = r.where;
    return a;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
  std::size_t allocated_ = 0;  // elements allocated (shrink() keeps the allocation whole)
  Backend where_ = Backend::Host;
  std::vector<T>* owner_ = nullptr;  // adopt(): the vector whose buffer ptr_ is (host memory)
};

}  // namespace gbcuda::detail
