#pragma once
// The device loop's hold on the thread's device memory while it captures a body
// (lib/core/device_loop.cpp): memory.cpp hands it the thread's device allocations and frees, and
// refuses host waits while the body is being captured.
#include <cstddef>
#include <cstdint>

#include "gbcuda/config.hpp"
#include "gbcuda/detail/loop_capture.hpp"

namespace gbcuda::detail {
#if GBCUDA_HAVE_CUDA
void* loop_allocate(LoopCapture* c, std::size_t bytes);
void loop_free(LoopCapture* c, void* p, std::size_t bytes) noexcept;
// Whether this thread's stream is capturing a loop body now.
bool loop_capturing() noexcept;
// Error(NotImplemented) for a body that makes the host wait for the GPU.
[[noreturn]] void throw_waits_in_loop(const char* what);
// A copy of host bytes into device memory while capturing: a captured copy would read the host
// memory when the graph runs, so the bytes travel as a kernel's parameters (lib/cuda/loop_kernels.cu).
inline constexpr std::size_t kLoopStoreMaxBytes = 256;
namespace cuda {
void launch_loop_store(void* dst, const void* src, std::size_t bytes);
// The test between two copies of the body (`second` false: after the first one).
void launch_loop_condition(const Index* count_dev, Index count_known, Index* iterations, Index max_iterations,
                           std::uint64_t next, std::uint64_t loop, bool second);
}  // namespace cuda
#endif
}  // namespace gbcuda::detail
