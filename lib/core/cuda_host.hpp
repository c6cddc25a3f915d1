#pragma once
// CUDA runtime calls from files the host compiler builds (the .cu files have cuda/cuda_check.cuh):
// a check that turns an error into gbcuda::Error(CudaError), and the calling thread's stream.
#include "gbcuda/config.hpp"
#if GBCUDA_HAVE_CUDA
#include <cuda_runtime.h>

#include <string>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::detail::cuda_host {

// Throws Error(CudaError) "<what>: <CUDA's message>" unless e is cudaSuccess.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(Status::CudaError, std::string(what) + ": " + cudaGetErrorString(e));
}

// The calling thread's library stream (library_stream()).
inline cudaStream_t stream() { return static_cast<cudaStream_t>(library_stream()); }

}  // namespace gbcuda::detail::cuda_host
#endif
