#pragma once
// Device discovery and backend selection.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gbcuda/detail/product_policy.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda {

// True when this build has the CUDA backend and a usable GPU is present.
bool cuda_available();

// Auto -> Cuda when cuda_available(), else Host. Cuda without a GPU throws Error(NoDevice).
Backend resolve_device(Device d);

// Human-readable name of the processor behind a backend, e.g. "NVIDIA H100 80GB HBM3" or
// "host (OpenMP, 16 threads)".
std::string backend_description(Backend b);

// Free and total device memory in bytes (all 0 when there is no GPU). Free counts the memory the
// library's pool holds unused (freed arrays it keeps for reuse), which its allocations take first.
// peak_used_bytes: the most the library's arrays on this device held at once since the process
// started or since reset_device_memory_peak() (the pool's high-water mark; cached blocks held
// unused do not count).
struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  std::size_t peak_used_bytes = 0;
};
DeviceMemoryInfo device_memory_info();
// Starts peak_used_bytes again from what is in use now (on the current device).
void reset_device_memory_peak();

// How often the library made the host wait for the GPU since the process started. Operations on
// the CUDA backend are enqueued on the calling thread's stream and return without waiting; the host
// waits only when the caller asks for something on the host: a count (Vector::nvals), an element,
// a scalar reduce, a copy to host memory, a BFS result. Take the difference of two readings to
// see what a piece of code costs (the tests do: one BFS level of vxm + assign makes no wait).
struct HostWaits {
  std::uint64_t reads = 0;  // blocking copies of device memory to the host
  std::uint64_t syncs = 0;  // waits for all queued device work (stream or event synchronisation)
  std::uint64_t total() const { return reads + syncs; }
};
HostWaits host_waits();

// How many operations on the CUDA backend ran on host copies instead (their inputs copied to
// the host, the result copied back): those with user-defined operators, or a combination of
// operator and types the CUDA backend does not compile. Every built-in semiring, monoid and
// operator over the value types runs on the GPU; take the difference of two readings to check.
std::uint64_t host_fallbacks();

// The CUDA stream (a cudaStream_t) the calling thread's gbcuda operations are enqueued on: one
// per host thread, made on the thread's first use, so that a program can order its own CUDA work
// with the library's. nullptr in a build without CUDA.
void* cuda_stream();
// Waits until the GPU has done all the work the calling thread enqueued (counted in host_waits);
// for timing a step from the host. Returns at once without a GPU.
void wait_for_device();

// The product policy (gbcuda/detail/product_policy.hpp: the direction thresholds alpha and
// beta, the widest inputs for one block and for block queues) that products and BFS run with on
// backend b where a call does not set them: on the GPU the calibrated one (measured on first
// use, then cached per device), on the host the defaults. It varies a little between machines
// and driver versions, so benchmarks record it (bfs_bench's JSON). A GPU of the library's
// built-in table (NVIDIA H100 80GB HBM3) is not measured: it gets the policy measured once and
// kept, the same on every machine start (GBCUDA_CALIBRATION=measure measures it anyway).
detail::ProductPolicy product_policy(Backend b);

// Where product_policy(b) came from, in words: "built-in (DEVICE)", "measured", "cached (FILE)",
// "defaults (WHY)"; on the host "defaults (host backend)".
std::string product_policy_source(Backend b);

// Parse "auto" / "host" / "cuda"; throws Error(InvalidValue) otherwise.
Device parse_device(const std::string& name);

}  // namespace gbcuda
