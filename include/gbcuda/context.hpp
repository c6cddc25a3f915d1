#pragma once
// Device discovery and backend selection.
#include <cstddef>
#include <string>

#include "gbcuda/types.hpp"

namespace gbcuda {

// True when this build has the CUDA backend and a usable GPU is present.
bool cuda_available();

// Auto -> Cuda when cuda_available(), else Host. Cuda without a GPU throws Error(NoDevice).
Backend resolve_device(Device d);

// Human-readable name of the processor behind a backend, e.g. "NVIDIA H100 80GB HBM3" or
// "host (OpenMP, 16 threads)".
std::string backend_description(Backend b);

// Free and total device memory in bytes (0, 0 when there is no GPU).
struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
DeviceMemoryInfo device_memory_info();

// Parse "auto" / "host" / "cuda"; throws Error(InvalidValue) otherwise.
Device parse_device(const std::string& name);

}  // namespace gbcuda
