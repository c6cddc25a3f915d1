#pragma once
// device_loop: a loop of gbcuda calls repeated on the GPU until a vector is empty, with no host
// round trip per iteration.
//
//   LoopResult r = device_loop([&] { vxm(q, pi, no_accum, AnySecondI<std::int64_t>{}, q, A, desc::RSC);
//                                    assign(pi, q, no_accum, q, desc::S); },
//                              q);   // repeat while q has entries
//
// runs the body, then again while `until_empty` has entries, at most options.max_iterations
// times in all: the same as
//
//   do { body(); } while (++iterations < max_iterations && until_empty.nvals() > 0);
//
// On the host backend (until_empty in host memory) it is exactly that loop. On the CUDA backend
// the first iteration runs as written; the body is then captured (CUDA stream capture, twice in a
// row so that each vector's arrays come back to where they started) into one CUDA graph whose
// conditional while node repeats it and tests the condition on the device. The host waits once
// after the first iteration (the count) and once at the end (the number of iterations).
//
// What a body to be repeated on the device must keep to (docs/api.md, "Loops on the device"):
//   - every gbcuda call in it works on CUDA objects and leaves its results on the device: no
//     nvals(), element(), extract_tuples(), reduce to a Scalar or other read-back inside;
//   - it decides nothing on the host from values that change between iterations (a host
//     counter passed as a scalar is frozen at the value it had when the body was captured);
//   - vectors it changes and reads in a later iteration, or after the loop, live outside it;
//     vectors made inside it end with it; matrices are only read.
// A body the loop cannot capture (a read-back inside, a vector whose arrays do not come back to
// where they started) runs on as the plain host-driven loop; LoopResult says which it was and why
// (options.require_device turns that into Error(NotImplemented)).
#include <atomic>
#include <functional>
#include <limits>
#include <string>

#include "gbcuda/vector.hpp"

namespace gbcuda {

struct LoopOptions {
  Index max_iterations = std::numeric_limits<Index>::max();  // runs of the body, the first included (>= 1)
  bool require_device = false;  // CUDA: throw Error(NotImplemented) rather than loop on the host
  bool host_driven = false;     // CUDA: the plain loop all the same (for comparison, debugging)
};

struct LoopResult {
  Index iterations = 0;        // runs of the body
  bool on_device = false;      // the iterations after the first ran as one CUDA graph
  std::string note;            // on the CUDA backend, why on_device is false
  int captures = 0;            // CUDA: captures made of the body (each runs its calls twice on the host)
  double capture_seconds = 0;  // CUDA: host time from the first capture to the graph's launch
  // CUDA, on_device: the GPU work of one run of the body in the graph, as captured: its kernels
  // (the library's, CUB's and cuSPARSE's alike) and its copies and fills (memcpy and memset
  // nodes); -1 and 0 otherwise.
  int kernels = -1;
  int copies = 0;
};

namespace detail {
// The loop's condition, without its type: the vector's count read on the host, or its place in
// device memory (nullptr: the count is known on the host and written to *known).
struct LoopCondition {
  const void* vector;
  Index (*host_count)(const void* vector);
  const Index* (*device_count)(const void* vector, Index* known);
};
// The CUDA backend's loop (lib/core/device_loop.cpp).
LoopResult run_device_loop(const std::function<void()>& body, const LoopCondition& until_empty,
                           const LoopOptions& options);
}  // namespace detail

template <class T, class Body>
LoopResult device_loop(Body&& body, const Vector<T>& until_empty, const LoopOptions& options = {}) {
  if (options.max_iterations < 1)
    throw Error(Status::InvalidValue,
                "device_loop: max_iterations must be at least 1, got " + std::to_string(options.max_iterations));
  if (until_empty.backend() == Backend::Host || options.host_driven) {
    LoopResult r;
    do {
      body();
    } while (++r.iterations < options.max_iterations && until_empty.nvals() > 0);
    if (until_empty.backend() == Backend::Cuda) r.note = "host_driven was asked for";
    return r;
  }
  // The count is read on the host and left on the device as well, where the body's operations
  // put it: the captured body then sees the vector as every later iteration leaves it.
  const detail::LoopCondition cond{&until_empty,
                                   [](const void* v) {
                                     const detail::VectorStore<T>& s = static_cast<const Vector<T>*>(v)->store();
                                     const bool on_device = detail::device_nvals(s) != nullptr;
                                     const Index count = detail::exact_nvals(s);
                                     if (on_device)
                                       std::atomic_ref<bool>(s.count_on_device).store(true, std::memory_order_release);
                                     return count;
                                   },
                                   [](const void* v, Index* known) -> const Index* {
                                     const detail::VectorStore<T>& s = static_cast<const Vector<T>*>(v)->store();
                                     const Index* dev = detail::device_nvals(s);
                                     if (!dev) *known = s.nvals;
                                     return dev;
                                   }};
  return detail::run_device_loop(std::function<void()>(std::ref(body)), cond, options);
}

}  // namespace gbcuda
