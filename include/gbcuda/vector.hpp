#pragma once
// Vector<T>: a sparse vector of length n in one of three forms, living in one backend's memory.
//   Sparse: an index list (maybe unsorted, "jumbled") with one value per index;
//   Bitmap: n presence bytes + n values;
//   Dense : n values, every entry present.
// Operations pick the form they need; conform() picks by density (GraphBLAS's sparsity control).
#include <atomic>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/detail/loop_capture.hpp"
#include "gbcuda/detail/stream_use.hpp"
#include "gbcuda/scalar.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda {

enum class VectorForm { Sparse, Bitmap, Dense };
const char* to_string(VectorForm f);

// How conform() picks a vector's form (GraphBLAS's sparsity control).
enum class FormControl {
  Auto,    // by density: Dense when full, Sparse below 1/32, else Bitmap
  Bitmap,  // Bitmap, or Dense when full. For a vector that many operations read or update a
           // few entries at a time, such as a BFS's visited set: as a mask it is read in place,
           // and an assign through a sparse mask writes only the listed positions, so each call
           // costs what it touches, not O(n) (rebuilding a bitmap) or O(nvals) (merging lists).
};

namespace detail {

// What a boolean masked product (vxm/mxv with a structural semiring, see operations.hpp) records
// about its output, for the cost model of the next product that takes that output as its input
// (a BFS frontier): the policy then needs neither a pass over the frontier nor the search's
// history. Valid only for the matrix orientation it names (VectorStore::trace_of).
struct ProductTrace {
  Index edges = 0;            // out-edges of the output's entries, along the rows a push would walk
  Index unexplored = 0;       // edges not yet expanded by the chain of products that led here
  Index input_size = 0;       // entries of the product's input
  Index examined = 0;         // edges the product looked at (push: the input's out-edges; pull: read)
  std::int32_t kernel = 0;    // the ProductKernel that ran
  std::int32_t pulled = 0;    // 1 when that was a pull
  double pull_penalty = 1.0;  // FrontierInfo::pull_penalty the product chose with
};

// A CUDA vector's entry count and trace in device memory: written by the kernel that produced
// the vector, read by the host only when it asks (Vector::nvals()).
struct DeviceTally {
  Index nvals;
  ProductTrace trace;
};

template <class T>
struct VectorStore {
  Index n = 0;
  Backend where = Backend::Host;
  VectorForm form = VectorForm::Sparse;
  // Entries present. Always exact on the host backend. On the CUDA backend the exact count may
  // be in device memory instead (count_on_device: tally[0].nvals, written by the kernel that
  // produced the vector) until the host asks for it; use exact_nvals() / device_nvals().
  mutable Index nvals = 0;
  mutable bool count_on_device = false;
  Array<DeviceTally> tally;        // CUDA: one element, allocated on first use
  ProductTrace trace;              // host backend: the trace (CUDA: tally[0].trace)
  const void* trace_of = nullptr;  // the matrix rows the trace refers to; nullptr: no trace
  bool jumbled = false;            // Sparse only: indices not sorted
  Array<Vid> indices;              // Sparse: the first nvals entries (on CUDA the arrays may be longer)
  Array<T> values;                 // Sparse: one per index; Bitmap and Dense: n values
  Array<std::uint8_t> bitmap;      // Bitmap: n bytes, 1 = present, 0 = absent

  VectorStore clone(Backend to) const;  // vector.cpp
  // o's contents into this store's own arrays, when both are CUDA stores of one form and the same
  // array lengths (no allocation: the arrays stay where they are); false, and this unchanged,
  // otherwise (vector.cpp).
  bool copy_in_place(const VectorStore& o);
  // Empty vector of length n in sparse form.
  static VectorStore empty(Index n, Backend where) noexcept {
    VectorStore s;
    s.n = n;
    s.where = where;
    return s;
  }
};

// ---- the entry count ------------------------------------------------------------------------
// Readers may resolve a count kept on the device from several threads at once (a vector shared
// read-only): count_on_device only ever goes from true to false under a read, through atomics,
// and one reader at a time copies the count (count_lock, striped by address).
std::mutex& count_lock(const void* store);
// The exact count, read from the device (one counted host wait) when it lives there.
template <class T>
Index exact_nvals(const VectorStore<T>& v) {
  std::atomic_ref<bool> on_device(v.count_on_device);
  if (on_device.load(std::memory_order_acquire)) {
    std::lock_guard lock(count_lock(&v));
    if (on_device.load(std::memory_order_relaxed)) {
      Index c = 0;
      copy_bytes(&c, Backend::Host, &v.tally.data()->nvals, Backend::Cuda, sizeof(c));
      v.nvals = c;
      on_device.store(false, std::memory_order_release);
    }
  }
  return v.nvals;
}
// The count in device memory when it lives there, else nullptr (v.nvals is then exact).
template <class T>
const Index* device_nvals(const VectorStore<T>& v) {
  return std::atomic_ref<bool>(v.count_on_device).load(std::memory_order_acquire) ? &v.tally.data()->nvals : nullptr;
}
// The device tally, allocated on first use (CUDA stores only).
template <class T>
DeviceTally* tally_of(VectorStore<T>& v) {
  if (v.tally.empty()) v.tally = Array<DeviceTally>(1, Backend::Cuda);
  return v.tally.data();
}
// Sets an exact count known on the host; the entries changed, so any trace is dropped.
template <class T>
void set_nvals(VectorStore<T>& v, Index count) {
  v.nvals = count;
  v.count_on_device = false;
  v.trace_of = nullptr;
}
// For a kernel that adds to or subtracts from the count in place (atomics): the device count,
// first written there from the host's value when that is where it was (no wait: the copy is
// enqueued). The entries change, so any trace is dropped.
template <class T>
Index* count_for_update(VectorStore<T>& v) {
  Index* c = &tally_of(v)->nvals;
  if (!v.count_on_device) copy_bytes(c, Backend::Cuda, &v.nvals, Backend::Host, sizeof(Index));
  v.count_on_device = true;
  v.trace_of = nullptr;
  return c;
}
// For a kernel that counts the entries it produces from zero: the device count, zeroed.
template <class T>
Index* fresh_count(VectorStore<T>& v) {
  Index* c = &tally_of(v)->nvals;
  fill_bytes(c, Backend::Cuda, 0, sizeof(Index));
  v.count_on_device = true;
  v.trace_of = nullptr;
  return c;
}

// Form conversions and checks, one implementation per backend (host: vector_host.cpp via
// host_vector.hpp, CUDA: lib/cuda/vector_forms.cu). Explicitly instantiated for the value types
// listed in GBCUDA_FOR_EACH_TYPE.
template <class T>
void convert_form(VectorStore<T>& v, VectorForm to);
template <class T>
void sort_indices(VectorStore<T>& v);  // Sparse: make indices ascending

}  // namespace detail

// Moving a Vector leaves the source valid and empty: length 0, no entries, in the same backend
// (as a moved-from std::vector is empty). Objects may be handed between threads; see docs/api.md's
// "Threads" for what may run at once.
template <class T>
class Vector {
  static_assert(detail::is_value_type_v<T>, "gbcuda::Vector<T>: T must be one of " GBCUDA_VALUE_TYPE_NAMES);

 public:
  using value_type = T;

  Vector() = default;
  // An empty vector of length n (no entries) in `where`'s memory.
  explicit Vector(Index n, Backend where = Backend::Host);
  // A vector with every entry present and equal to `fill` (dense form).
  static Vector full(Index n, T fill, Backend where = Backend::Host);
  // From index/value lists (host memory); the indices may be of any integer type. Duplicate
  // indices are combined in input order by `dup` (GrB_Vector_build's dup; the default Last: the
  // last value wins). An index outside [0, n) is Error(InvalidIndex).
  static Vector from_tuples(Index n, const std::vector<Index>& idx, const std::vector<T>& vals,
                            Backend where = Backend::Host, DuplicatePolicy dup = DuplicatePolicy::Last);
  template <IndexRange R>
  requires(!std::is_same_v<R, std::vector<Index>>) static Vector
      from_tuples(Index n, const R& idx, const std::vector<T>& vals, Backend where = Backend::Host,
                  DuplicatePolicy dup = DuplicatePolicy::Last) {
    return from_tuples(n, detail::to_indices(idx, "from_tuples: index"), vals, where, dup);
  }

  Vector(const Vector& o) : s_(o.read().clone(o.s_.where)), control_(o.control_) { note_created(); }
  Vector& operator=(const Vector& o) {
    if (this != &o) {
      if (s_.where == Backend::Cuda && o.s_.where == Backend::Cuda && write().copy_in_place(o.read())) {
        control_ = o.control_;  // into the arrays this vector has: a loop's copy stays in place
        return *this;
      }
      detail::VectorStore<T> copy = o.read().clone(o.s_.where);
      write() = std::move(copy);
      note_created();  // made on this thread's stream (this may have been a host vector before)
      control_ = o.control_;
    }
    return *this;
  }
  Vector(Vector&& o) noexcept
      : s_((o.loop_touch(), std::exchange(o.s_, detail::VectorStore<T>::empty(0, o.s_.where)))),
        control_(o.control_),
        use_(std::move(o.use_)) {}
  Vector& operator=(Vector&& o) noexcept {
    if (this != &o) {
      if (s_.where == Backend::Cuda) use_.before_free();  // this vector's memory goes
      loop_touch();
      o.loop_touch();
      s_ = std::exchange(o.s_, detail::VectorStore<T>::empty(0, o.s_.where));
      control_ = o.control_;
      use_ = std::move(o.use_);
    }
    return *this;
  }
  ~Vector() {
    if (s_.where == Backend::Cuda) use_.before_free();
    if (detail::LoopCapture* c = detail::active_loop_capture()) detail::loop_forget(c, this);
  }

  Index size() const noexcept { return s_.n; }
  // Entries present. On the CUDA backend the count may still be in device memory, written by the
  // operation that produced the vector: then this reads it (one host wait, see host_waits()).
  Index nvals() const { return detail::exact_nvals(read()); }
  Backend backend() const noexcept { return s_.where; }
  VectorForm form() const noexcept { return s_.form; }

  // Single elements (slow on the CUDA backend: one small copy each). The index may be of any
  // integer type; outside [0, size()) it is Error(InvalidIndex).
  void set_element(Index i, T value);
  std::optional<T> element(Index i) const;
  void remove_element(Index i);
  // GrB_Vector_setElement_Scalar: an empty scalar removes the entry.
  void set_element(Index i, const Scalar<T>& s) {
    if (s.empty()) remove_element(i);
    else set_element(i, *s.value());
  }
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, Index> && !std::is_same_v<I, bool>) void set_element(I i,
                                                                                                            T value) {
    set_element(detail::to_index(i, "set_element: index"), value);
  }
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, Index> && !std::is_same_v<I, bool>) std::optional<T> element(I i)
  const { return element(detail::to_index(i, "element: index")); }
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, Index> && !std::is_same_v<I, bool>) void remove_element(I i) {
    remove_element(detail::to_index(i, "remove_element: index"));
  }
  void clear();  // no entries (sparse form, unless the form control says otherwise)

  // All entries as sorted (index, value) lists in host memory.
  void extract_tuples(std::vector<Index>& idx, std::vector<T>& vals) const;
  // Length-n host array: value where present, `missing` elsewhere.
  std::vector<T> to_dense_vector(T missing) const;
  // A vector with every position present, its values those of `values` (GxB_Vector_pack_Full;
  // dense form): the vector's memory is taken over without a copy in host memory (bool values are
  // copied), and copied once to the GPU for `where` = Cuda.
  static Vector pack_full(std::vector<T>&& values, Backend where = Backend::Host);
  // The values of a vector with every position present, moved out (GxB_Vector_unpack_Full): without
  // a copy when the vector lives in host memory in dense form over memory it took over
  // (pack_full), else by one copy. The vector keeps its length and has no entries after.
  // Error(InvalidValue) when a position has no entry.
  std::vector<T> unpack_full();

  // Change representation; contents are unchanged.
  void to_form(VectorForm f) { detail::convert_form(write(), f); }
  // Pick the form as the form control says (by density unless set otherwise). Operations call
  // it on their output. Does nothing while the count is in device memory (deciding would make
  // the host wait). Never fails: when a conversion cannot get memory the form stays as it is.
  void conform() noexcept;
  // Sets how conform() picks the form from now on (kept by copies), and conforms now.
  void set_form_control(FormControl c);
  FormControl form_control() const noexcept { return control_; }
  // A copy in another backend's memory (or this one's).
  Vector to(Backend where) const;

  // Backend access to the storage (used by the operations; not for casual use). On the CUDA
  // backend the non-const one orders the calling thread's stream after all earlier use of the
  // vector (a write), the const one after its last write (a read).
  detail::VectorStore<T>& store() { return write(); }
  const detail::VectorStore<T>& store() const { return read(); }
  explicit Vector(detail::VectorStore<T>&& s) : s_(std::move(s)) { note_created(); }

 private:
  void check_index(Index i) const;
  const detail::VectorStore<T>& read() const {
    if (s_.where == Backend::Cuda) use_.before_read();
    return s_;
  }
  detail::VectorStore<T>& write() {
    if (s_.where == Backend::Cuda) {
      use_.before_write();
      loop_touch();
    }
    return s_;
  }
  // A device loop capturing its body learns of every change to a CUDA vector (loop_capture.hpp).
  // noexcept: a vector the loop cannot note (no memory for it) ends the process rather than
  // letting the loop repeat a body whose vectors it does not know.
  void loop_touch() noexcept {
    if (s_.where != Backend::Cuda) return;
    if (detail::LoopCapture* c = detail::active_loop_capture()) detail::loop_touch(c, this, &kLoopOps);
  }
  static detail::LoopShape loop_shape(const void* v) {
    const detail::VectorStore<T>& s = static_cast<const Vector*>(v)->s_;
    auto block = [](const auto& a) {
      const auto r = a.raw();
      return detail::LoopBlock{static_cast<void*>(r.ptr), r.size, r.allocated, sizeof(*r.ptr)};
    };
    return {s.n,        int(s.form),      s.nvals,         s.count_on_device, s.jumbled,
            s.trace_of, block(s.indices), block(s.values), block(s.bitmap),   block(s.tally)};
  }
  static void loop_release(void* v) {
    detail::VectorStore<T>& s = static_cast<Vector*>(v)->s_;
    s = detail::VectorStore<T>::empty(s.n, s.where);
  }
  static void loop_adopt(void* v, const detail::LoopShape& sh) {
    detail::VectorStore<T>& s = static_cast<Vector*>(v)->s_;
    auto take = [](auto& a, const detail::LoopBlock& b) {
      using E = std::remove_cvref_t<decltype(*a.data())>;
      a = std::remove_cvref_t<decltype(a)>::adopt_raw({static_cast<E*>(b.ptr), b.size, b.allocated, Backend::Cuda});
    };
    s = detail::VectorStore<T>::empty(sh.n, Backend::Cuda);
    s.form = VectorForm(sh.form);
    s.nvals = sh.nvals;
    s.count_on_device = sh.count_on_device;
    s.jumbled = sh.jumbled;
    s.trace_of = sh.trace_of;
    take(s.indices, sh.indices);
    take(s.values, sh.values);
    take(s.bitmap, sh.bitmap);
    take(s.tally, sh.tally);
  }
  static constexpr detail::LoopVectorOps kLoopOps{&Vector::loop_shape, &Vector::loop_release, &Vector::loop_adopt};
  void note_created() {
    if (s_.where == Backend::Cuda) use_.wrote();
  }
  detail::VectorStore<T> s_;
  FormControl control_ = FormControl::Auto;
  detail::StreamUse use_;  // which threads' streams have work queued on s_ (CUDA)
};

#define GBCUDA_EXTERN_VECTOR(T)                                                   \
  extern template struct detail::VectorStore<T>;                                  \
  extern template class Vector<T>;                                                \
  extern template void detail::convert_form(detail::VectorStore<T>&, VectorForm); \
  extern template void detail::sort_indices(detail::VectorStore<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_VECTOR)
#undef GBCUDA_EXTERN_VECTOR

}  // namespace gbcuda
