#pragma once
// Array<T>: an owning, contiguous, uninitialised buffer in host or device memory.
// The building block of Matrix and Vector storage; copies between backends are explicit.
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// Raw memory primitives (lib/core/memory.cpp). Device versions throw Error(NoDevice) in a
// build without CUDA and Error(OutOfMemory) naming the bytes asked for and free.
void* allocate_bytes(std::size_t bytes, Backend where);
void free_bytes(void* p, Backend where) noexcept;
void copy_bytes(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes);
void fill_bytes(void* dst, Backend where, int value, std::size_t bytes);
// Blocks until all device work queued so far is done (no-op for the host).
void synchronize(Backend where);

template <class T>
class Array {
  template <class U> friend class Array;
  static_assert(std::is_trivially_copyable_v<T>, "Array holds plain data only");

 public:
  Array() = default;
  Array(std::size_t n, Backend where) : n_(n), where_(where) {
    if (n_ > 0) ptr_ = static_cast<T*>(allocate_bytes(n_ * sizeof(T), where_));
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
  ~Array() { reset(); }
  Array(Array&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)), where_(o.where_) {}
  Array& operator=(Array&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
      where_ = o.where_;
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
    if (ptr_) free_bytes(ptr_, where_);
    ptr_ = nullptr;
    n_ = 0;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
  Backend where_ = Backend::Host;
};

}  // namespace gbcuda::detail
