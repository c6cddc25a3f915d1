#pragma once
// What the device loop (device_loop.hpp) needs from the vectors while it captures a loop body:
// every CUDA vector the body writes (or moves from) reports itself before its first change, so
// that the loop knows its arrays at the start of the body and can compare them with those at the
// end, and can give a vector back arrays it held earlier (a capture undone, or a loop that ended
// halfway through its unrolled body). Implemented in lib/core/device_loop.cpp.
#include <cstddef>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

// One array of a vector, as raw parts (Array<T>::Raw without the type).
struct LoopBlock {
  void* ptr = nullptr;
  std::size_t size = 0;       // elements
  std::size_t allocated = 0;  // elements allocated
  std::size_t element = 0;    // bytes an element
};

// A CUDA vector's store at one moment: its fields and its arrays' parts.
struct LoopShape {
  Index n = 0;
  int form = 0;  // VectorForm
  Index nvals = 0;
  bool count_on_device = false;
  bool jumbled = false;
  const void* trace_of = nullptr;
  LoopBlock indices, values, bitmap, tally;
};

// A vector's part in the bookkeeping, one table per value type (vector.hpp).
struct LoopVectorOps {
  LoopShape (*shape)(const void* vector);
  // Gives up the vector's arrays (the loop's allocator takes them back) and leaves it empty.
  void (*release)(void* vector);
  // Makes the vector own the arrays of `s` (taken back from the loop's allocator first).
  void (*adopt)(void* vector, const LoopShape& s);
};

class LoopCapture;
// The capture this thread is making of a loop body, or nullptr.
LoopCapture* active_loop_capture() noexcept;
// The vector is about to change (or be moved from): remembered with its store as it is now, the
// first time in a capture.
void loop_touch(LoopCapture* c, void* vector, const LoopVectorOps* ops);
// The vector is being destroyed.
void loop_forget(LoopCapture* c, const void* vector) noexcept;

}  // namespace gbcuda::detail
