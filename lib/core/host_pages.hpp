#pragma once
// Large copies between host memory and the GPU, and fresh host memory for results.
//
// A copy between pageable host memory and the GPU runs at a fraction of the bus: the driver
// stages it through its own small pinned buffers, and on a virtual machine every first touch of
// a fresh 4 KiB page is a trap to the hypervisor (an H200 guest: 16 MiB to the host 1.3-2 ms
// pageable against 0.33 ms pinned; a fresh 16 MiB std::vector 1.4-9 ms to zero, 256 MiB 110 ms).
// So copies of at least kStagedCopyMinBytes go through a pinned ring of the calling thread in
// chunks, the DMA of one chunk overlapping the host's copy of the other on several threads, and
// host memory a result is written to is backed by huge pages and first touched in parallel.
#include <cstddef>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// Copies below this go straight to cudaMemcpyAsync.
inline constexpr std::size_t kStagedCopyMinBytes = std::size_t(4) << 20;

// Copies `bytes` between the calling thread's GPU and pageable host memory through the thread's
// pinned ring, on its stream; returns false (and does nothing) when the copy is not one it
// stages: one side not the host, the host side pinned, fewer than kStagedCopyMinBytes, or
// staging unavailable (the ring could not be pinned). A copy to the host has landed when it
// returns; a copy from the host has been read from `src` (its last chunk may still be moving).
bool staged_copy(void* dst, Backend dst_where, const void* src, Backend src_where, std::size_t bytes);

// Asks for huge pages behind [p, p + bytes) and touches every page of it on several threads, so
// that what is written there next does not fault page by page. For at least kStagedCopyMinBytes;
// smaller ranges are left alone. The bytes' values are unspecified afterwards.
void prepare_host_pages(void* p, std::size_t bytes);

// Asks for huge pages behind [p, p + bytes) (no touch); for kStagedCopyMinBytes or more.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

// A vector of n value-initialised elements whose pages were touched by prepare_host_pages first:
// for a result about to be copied into.
template <class T>
std::vector<T> fresh_host_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  prepare_host_pages(v.data(), n * sizeof(T));
  v.resize(n);
  return v;
}

}  // namespace gbcuda::detail
