// The device loop on the CUDA backend (device_loop.hpp): the first iteration as written, then the
// body captured into a CUDA graph whose conditional while node repeats it.
//
// A captured kernel keeps the addresses it was captured with, while an operation gives its
// output fresh arrays. So the graph's body is the loop body captured twice (ping-pong): the first
// copy writes a vector's new arrays somewhere else, the second writes them back into the arrays
// the vector had when the body began, and at the end of the second copy every vector the body
// changed must hold exactly the arrays (and fields) it held at the start. While it captures, the
// loop is the thread's device allocator: a freed block is only kept (no capture records an
// allocation or a free: conditional bodies hold kernels, copies and fills only), a block is
// reused only where a hint says so, and everything else is fresh memory. The first capture
// learns which allocations of the second copy made each vector's final arrays; a second capture
// hands those allocations the vector's starting arrays. A body whose vectors still do not come
// back runs on as the host-driven loop, its vectors restored to the state after the first
// iteration.
#include "gbcuda/device_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/cuda_host.hpp"
#include "core/loop_memory.hpp"
#include "gbcuda/config.hpp"
#include "gbcuda/detail/array.hpp"
#include "gbcuda/detail/loop_capture.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda::detail {

#if GBCUDA_HAVE_CUDA
namespace {
using cuda_host::check;

thread_local LoopCapture* t_capture = nullptr;

// A stream of this thread's for the allocations made while its own stream captures.
cudaStream_t allocation_stream() {
  thread_local cudaStream_t s = nullptr;
  if (!s) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
}

bool same_fields(const LoopShape& a, const LoopShape& b) {
  return a.n == b.n && a.form == b.form && a.count_on_device == b.count_on_device && a.jumbled == b.jumbled &&
         a.trace_of == b.trace_of && (a.count_on_device || a.nvals == b.nvals);
}
bool same_block(const LoopBlock& a, const LoopBlock& b) {
  return a.ptr == b.ptr && a.size == b.size && a.allocated == b.allocated;
}
// What differs between a vector's fields at the start of the body and at its end.
std::string changes(const LoopShape& a, const LoopShape& b) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
  if (a.form != b.form)
    add(std::string("its form from ") + to_string(VectorForm(a.form)) + " to " + to_string(VectorForm(b.form)));
  if (a.count_on_device != b.count_on_device)
    add(a.count_on_device ? "its count from the device to the host" : "its count from the host to the device");
  else if (!a.count_on_device && a.nvals != b.nvals)
    add("its count (known on the host) from " + std::to_string(a.nvals) + " to " + std::to_string(b.nvals));
  if (a.jumbled != b.jumbled) add(a.jumbled ? "its indices from unsorted to sorted" : "its indices to unsorted");
  if (a.trace_of != b.trace_of) add("the product trace it keeps");
  if (a.n != b.n) add("its length from " + std::to_string(a.n) + " to " + std::to_string(b.n));
  return out;
}
}  // namespace
#endif

class LoopCapture {
 public:
#if GBCUDA_HAVE_CUDA
  struct Tracked {
    void* vector;
    const LoopVectorOps* ops;
    LoopShape start;   // when the body began changing it
    LoopShape middle;  // after the first copy of the body
  };
  std::vector<Tracked> tracked;
  bool capturing = false;

  LoopCapture() { t_capture = this; }
  ~LoopCapture() {
    t_capture = nullptr;
    free_kept();
  }
  LoopCapture(const LoopCapture&) = delete;
  LoopCapture& operator=(const LoopCapture&) = delete;

  // Starts the capture of one graph: a reused block may come only from earlier captures.
  void begin_attempt() {
    tracked.clear();
    for (Kept& k : kept) k.fresh = false;
    ordinal.clear();
    made_first.clear();
    made_by.clear();
    second = false;
    capturing = true;
  }
  // The second copy: each allocation that made a vector's array in the first copy is, in the
  // second, handed that vector's array from the start of the body (the same calls in the same
  // order make the same allocations).
  void begin_second() {
    second = true;
    ordinal.clear();
    for (Tracked& t : tracked) {
      t.middle = t.ops->shape(t.vector);
      const LoopBlock* s[] = {&t.start.indices, &t.start.values, &t.start.bitmap, &t.start.tally};
      const LoopBlock* m[] = {&t.middle.indices, &t.middle.values, &t.middle.bitmap, &t.middle.tally};
      for (int a = 0; a < 4; ++a) {
        if (!s[a]->ptr || m[a]->ptr == s[a]->ptr) continue;
        auto made = made_first.find(m[a]->ptr);
        if (made != made_first.end() && made->second.first == s[a]->allocated * s[a]->element)
          hints[made->second] = s[a]->ptr;
      }
    }
  }

  void touch(void* v, const LoopVectorOps* ops) {
    if (!capturing) return;
    for (const Tracked& t : tracked)
      if (t.vector == v) return;
    const LoopShape s = ops->shape(v);
    tracked.push_back({v, ops, s, s});
  }
  void forget(const void* v) noexcept {
    std::erase_if(tracked, [v](const Tracked& t) { return t.vector == v; });
  }

  void* allocate(std::size_t bytes) {
    const std::size_t k = ordinal[bytes]++;
    if (second) {
      if (auto h = hints.find({bytes, k}); h != hints.end())
        if (take_kept(h->second, bytes)) return note_made(h->second, bytes, k);
    }
    // A block freed in this capture is not reused: the graph runs its copies of the body again
    // and again, and a block's later owner would overwrite what its earlier one still holds then.
    for (std::size_t i = kept.size(); i-- > 0;) {  // a block an earlier capture freed
      if (kept[i].fresh || kept[i].bytes != bytes) continue;
      void* p = kept[i].ptr;
      kept.erase(kept.begin() + std::ptrdiff_t(i));
      return note_made(p, bytes, k);
    }
    void* p = nullptr;
    const cudaStream_t s = allocation_stream();
    const cudaError_t e = cudaMallocAsync(&p, (bytes + 7) / 8 * 8, s);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw Error(Status::OutOfMemory, "GPU out of memory while capturing a device loop's body");
    }
    check(e, "cudaMallocAsync");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return note_made(p, bytes, k);
  }
  void free(void* p, std::size_t bytes) { kept.push_back({p, bytes, true}); }

  // Whether every vector the body changed ends the second copy as it began. Else `why` says
  // which did not and new hints are learnt where an allocation can be pointed at a start array;
  // returns false with `fixable` false when no hint can help.
  bool came_back(std::string& why, bool& fixable) {
    fixable = false;
    bool all = true;
    why.clear();
    for (Tracked& t : tracked) {
      const LoopShape end = t.ops->shape(t.vector);
      if (!same_fields(t.start, end)) {
        all = false;
        if (why.empty())
          why = "a vector of length " + std::to_string(end.n) + " changes in the body: " + changes(t.start, end);
        continue;
      }
      const LoopBlock* s[] = {&t.start.indices, &t.start.values, &t.start.bitmap, &t.start.tally};
      const LoopBlock* e[] = {&end.indices, &end.values, &end.bitmap, &end.tally};
      for (int a = 0; a < 4; ++a) {
        if (same_block(*s[a], *e[a])) continue;
        all = false;
        auto made = made_by.find(e[a]->ptr);
        if (s[a]->ptr && made != made_by.end() && s[a]->allocated == e[a]->allocated &&
            made->second.first == s[a]->allocated * s[a]->element) {
          hints[made->second] = s[a]->ptr;
          fixable = true;
        }
      }
    }
    if (!all && why.empty()) why = "a vector's arrays do not come back to where they were at the start of the body";
    return all;
  }

  // Gives every vector the body changed its arrays and fields as of `start` (or `middle`).
  void restore(bool middle) {
    for (Tracked& t : tracked) t.ops->release(t.vector);
    for (Tracked& t : tracked) {
      LoopShape& s = middle ? t.middle : t.start;
      for (LoopBlock* b : {&s.indices, &s.values, &s.bitmap, &s.tally})
        if (b->ptr && !take_kept(b->ptr, 0))
          throw Error(Status::CudaError, "internal: a device loop lost a vector's array");
      t.ops->adopt(t.vector, s);
    }
  }

 private:
  struct Kept {
    void* ptr;
    std::size_t bytes;
    bool fresh;  // freed in the capture being made
  };
  std::vector<Kept> kept;
  bool second = false;
  struct KeyHash {
    std::size_t operator()(const std::pair<std::size_t, std::size_t>& k) const noexcept {
      return std::hash<std::size_t>()(k.first * 1000003u ^ k.second);
    }
  };
  // Allocations of the second copy by (bytes, ordinal among the allocations of that size).
  std::unordered_map<std::size_t, std::size_t> ordinal;
  std::unordered_map<void*, std::pair<std::size_t, std::size_t>> made_first, made_by;
  std::unordered_map<std::pair<std::size_t, std::size_t>, void*, KeyHash> hints;

  void* note_made(void* p, std::size_t bytes, std::size_t k) {
    (second ? made_by : made_first)[p] = {bytes, k};
    return p;
  }
  // Takes `p` out of the kept blocks (any size when bytes is 0); nullptr if it is not there.
  void* take_kept(void* p, std::size_t bytes) {
    for (std::size_t i = kept.size(); i-- > 0;) {
      if (kept[i].ptr != p || (bytes != 0 && kept[i].bytes != bytes)) continue;
      kept.erase(kept.begin() + std::ptrdiff_t(i));
      return p;
    }
    return nullptr;
  }
  void free_kept() noexcept {
    std::vector<Kept> all = std::move(kept);
    kept.clear();
    for (const Kept& k : all) free_bytes(k.ptr, Backend::Cuda, k.bytes);
  }
#endif
};

LoopCapture* active_loop_capture() noexcept {
#if GBCUDA_HAVE_CUDA
  return t_capture;
#else
  return nullptr;
#endif
}

void loop_touch(LoopCapture* c, void* vector, const LoopVectorOps* ops) {
#if GBCUDA_HAVE_CUDA
  c->touch(vector, ops);
#else
  (void)c;
  (void)vector;
  (void)ops;
#endif
}

void loop_forget(LoopCapture* c, const void* vector) noexcept {
#if GBCUDA_HAVE_CUDA
  c->forget(vector);
#else
  (void)c;
  (void)vector;
#endif
}

#if GBCUDA_HAVE_CUDA
void* loop_allocate(LoopCapture* c, std::size_t bytes) { return c->allocate(bytes); }
void loop_free(LoopCapture* c, void* p, std::size_t bytes) noexcept {
  try {
    c->free(p, bytes);
  } catch (...) {  // no room to note it: the block is simply not reused (a leak until exit)
  }
}
bool loop_capturing() noexcept { return t_capture && t_capture->capturing; }
#endif

namespace {

LoopResult host_driven(const std::function<void()>& body, const LoopCondition& cond, const LoopOptions& o,
                       LoopResult r) {
  while (r.iterations < o.max_iterations && cond.host_count(cond.vector) > 0) {
    body();
    ++r.iterations;
  }
  return r;
}

#if GBCUDA_HAVE_CUDA
// One CUDA graph: a while node whose body is the loop body, the test, and an if node holding
// the loop body again and the test.
struct LoopGraph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  LoopGraph() = default;
  LoopGraph(const LoopGraph&) = delete;
  LoopGraph& operator=(const LoopGraph&) = delete;
  ~LoopGraph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

cudaGraph_t add_conditional(cudaGraph_t into, const cudaGraphNode_t* deps, std::size_t ndeps,
                            cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, cudaGraphNode_t* node) {
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = 1;
  check(cudaGraphAddNode(node, into, deps, nullptr, ndeps, &p), "cudaGraphAddNode (conditional)");
  return p.conditional.phGraph_out[0];
}

// Captures the graph; "" when done, else why it could not be (the capture is ended either way).
// Counts the body's kernel nodes and copy/fill nodes in the first copy into r (the test
// after the body is one kernel of its own).
std::string capture(LoopCapture& cap, LoopGraph& g, const std::function<void()>& body, const LoopCondition& cond,
                    Index* iterations, Index max_iterations, LoopResult& r) {
  const cudaStream_t s = cuda_host::stream();
  check(cudaGraphCreate(&g.graph, 0), "cudaGraphCreate");
  cudaGraphConditionalHandle loop{}, next{};
  check(cudaGraphConditionalHandleCreate(&loop, g.graph, 1, cudaGraphCondAssignDefault),
        "cudaGraphConditionalHandleCreate");
  cudaGraphNode_t while_node{}, if_node{};
  cudaGraph_t first = add_conditional(g.graph, nullptr, 0, loop, cudaGraphCondTypeWhile, &while_node);
  check(cudaGraphConditionalHandleCreate(&next, first, 0, 0), "cudaGraphConditionalHandleCreate");
  auto test = [&](bool second) {
    Index known = 0;
    const Index* dev = cond.device_count(cond.vector, &known);
    cuda::launch_loop_condition(dev, known, iterations, max_iterations, next, loop, second);
  };
  auto captured = [&](cudaGraph_t into, bool second) -> std::string {
    check(cudaStreamBeginCaptureToGraph(s, into, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed),
          "cudaStreamBeginCaptureToGraph");
    std::string why;
    try {
      if (second) cap.begin_second();
      body();
      test(second);
    } catch (const std::exception& e) {
      why = e.what();
    }
    cudaGraph_t out = nullptr;
    const cudaError_t e = cudaStreamEndCapture(s, &out);
    if (e != cudaSuccess && why.empty()) why = std::string("the capture failed: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return why;
  };
  cap.begin_attempt();
  std::string why = captured(first, false);
  if (why.empty()) {
    std::vector<cudaGraphNode_t> last;  // the first copy's last nodes: the if node follows them
    std::size_t count = 0;
    check(cudaGraphGetNodes(first, nullptr, &count), "cudaGraphGetNodes");
    std::vector<cudaGraphNode_t> nodes(count);
    check(cudaGraphGetNodes(first, nodes.data(), &count), "cudaGraphGetNodes");
    r.kernels = -1;  // the test's kernel
    r.copies = 0;
    for (cudaGraphNode_t n : nodes) {
      cudaGraphNodeType type{};
      check(cudaGraphNodeGetType(n, &type), "cudaGraphNodeGetType");
      if (type == cudaGraphNodeTypeKernel) ++r.kernels;
      if (type == cudaGraphNodeTypeMemcpy || type == cudaGraphNodeTypeMemset) ++r.copies;
      std::size_t out = 0;
      check(cudaGraphNodeGetDependentNodes(n, nullptr, nullptr, &out), "cudaGraphNodeGetDependentNodes");
      if (out == 0) last.push_back(n);
    }
    cudaGraph_t again = add_conditional(first, last.data(), last.size(), next, cudaGraphCondTypeIf, &if_node);
    why = captured(again, true);
  }
  return why;
}

std::string run_on_device(const std::function<void()>& body, const LoopCondition& cond, const LoopOptions& o,
                          LoopResult& r) {
  Array<Index> counter(1, Backend::Cuda);
  LoopCapture cap;
  std::string why;
  std::unique_ptr<LoopGraph> g;
  const auto t0 = std::chrono::steady_clock::now();
  auto took = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  for (int attempt = 0; attempt < 3; ++attempt) {
    ++r.captures;
    copy_bytes(counter.data(), Backend::Cuda, &r.iterations, Backend::Host, sizeof(Index));
    g = std::make_unique<LoopGraph>();
    try {
      why = capture(cap, *g, body, cond, counter.data(), o.max_iterations, r);
    } catch (const std::exception& e) {
      why = e.what();
    }
    cap.capturing = false;  // the capture has ended, by now or by the exception
    bool fixable = false;
    if (why.empty() && cap.came_back(why, fixable)) break;
    cap.restore(false);
    g.reset();
    if (!fixable) {
      r.capture_seconds = took();
      return why;
    }
  }
  if (!why.empty()) {
    r.capture_seconds = took();
    return why;
  }
  cudaError_t e = cudaGraphInstantiate(&g->exec, g->graph, 0);
  if (e != cudaSuccess) {  // the vectors hold their starting arrays: nothing ran
    cudaGetLastError();
    return std::string("the graph could not be instantiated: ") + cudaGetErrorString(e);
  }
  check(cudaGraphLaunch(g->exec, cuda_host::stream()), "cudaGraphLaunch");
  r.capture_seconds = took();
  Index total = 0;
  copy_bytes(&total, Backend::Host, counter.data(), Backend::Cuda, sizeof(Index));
  if ((total - r.iterations) % 2 == 1) cap.restore(true);  // it ended after the first copy
  r.iterations = total;
  r.on_device = true;
  return "";
}
#endif

}  // namespace

LoopResult run_device_loop(const std::function<void()>& body, const LoopCondition& cond, const LoopOptions& o) {
  LoopResult r;
  body();
  r.iterations = 1;
  if (r.iterations >= o.max_iterations || cond.host_count(cond.vector) == 0) {
    r.note = "the loop ended after its first iteration, before any capture";
    return r;
  }
#if GBCUDA_HAVE_CUDA
  r.note = run_on_device(body, cond, o, r);
  if (r.on_device) return r;
  r.kernels = -1;
  r.copies = 0;
  if (o.require_device)
    throw Error(Status::NotImplemented, "device_loop: the body cannot run on the device: " + r.note);
#endif
  return host_driven(body, cond, o, r);
}

}  // namespace gbcuda::detail
