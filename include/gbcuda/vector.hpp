#pragma once
// Vector<T>: a sparse vector of length n in one of three forms, living in one backend's memory.
//   Sparse: an index list (maybe unsorted, "jumbled") with one value per index;
//   Bitmap: n presence bytes + n values;
//   Dense : n values, every entry present.
// Operations pick the form they need; conform() picks by density (GraphBLAS's sparsity control).
#include <optional>
#include <utility>
#include <vector>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda {

enum class VectorForm { Sparse, Bitmap, Dense };
const char* to_string(VectorForm f);

namespace detail {

template <class T>
struct VectorStore {
  Index n = 0;
  Backend where = Backend::Host;
  VectorForm form = VectorForm::Sparse;
  Index nvals = 0;            // entries present (exact in every form)
  bool jumbled = false;       // Sparse only: indices not sorted
  Array<Vid> indices;         // Sparse: nvals indices
  Array<T> values;            // Sparse: nvals values; Bitmap and Dense: n values
  Array<std::uint8_t> bitmap; // Bitmap: n bytes, 1 = present, 0 = absent

  VectorStore clone(Backend to) const {
    VectorStore c;
    c.n = n;
    c.where = to;
    c.form = form;
    c.nvals = nvals;
    c.jumbled = jumbled;
    c.indices = indices.clone(to);
    c.values = values.clone(to);
    c.bitmap = bitmap.clone(to);
    return c;
  }
  // Empty vector of length n in sparse form.
  static VectorStore empty(Index n, Backend where) {
    VectorStore s;
    s.n = n;
    s.where = where;
    return s;
  }
};

// Form conversions and checks, one implementation per backend (host: vector_host.cpp via
// host_vector.hpp, CUDA: lib/cuda/vector_forms.cu). Explicitly instantiated for the value types
// listed in GBCUDA_FOR_EACH_TYPE.
template <class T> void convert_form(VectorStore<T>& v, VectorForm to);
template <class T> void sort_indices(VectorStore<T>& v);  // Sparse: make indices ascending

}  // namespace detail

// The value types the library instantiates for (vectors, matrices, CUDA kernels).
#define GBCUDA_FOR_EACH_TYPE(X) X(bool) X(std::int32_t) X(std::int64_t) X(float) X(double)

template <class T>
class Vector {
 public:
  using value_type = T;

  Vector() = default;
  // An empty vector of length n (no entries) in `where`'s memory.
  explicit Vector(Index n, Backend where = Backend::Host);
  // A vector with every entry present and equal to `fill` (dense form).
  static Vector full(Index n, T fill, Backend where = Backend::Host);
  // From index/value lists (host memory). Duplicate indices: the last value wins.
  static Vector from_tuples(Index n, const std::vector<Index>& idx, const std::vector<T>& vals,
                            Backend where = Backend::Host);

  Vector(const Vector& o) : s_(o.s_.clone(o.s_.where)) {}
  Vector& operator=(const Vector& o) {
    if (this != &o) s_ = o.s_.clone(o.s_.where);
    return *this;
  }
  Vector(Vector&&) noexcept = default;
  Vector& operator=(Vector&&) noexcept = default;

  Index size() const noexcept { return s_.n; }
  Index nvals() const noexcept { return s_.nvals; }
  Backend backend() const noexcept { return s_.where; }
  VectorForm form() const noexcept { return s_.form; }

  // Single elements (slow on the CUDA backend: one small copy each).
  void set_element(Index i, T value);
  std::optional<T> element(Index i) const;
  void remove_element(Index i);
  void clear();  // no entries, sparse form

  // All entries as sorted (index, value) lists in host memory.
  void extract_tuples(std::vector<Index>& idx, std::vector<T>& vals) const;
  // Length-n host array: value where present, `missing` elsewhere.
  std::vector<T> to_dense_vector(T missing) const;

  // Change representation; contents are unchanged.
  void to_form(VectorForm f) { detail::convert_form(s_, f); }
  // Pick the form by density: Dense when full, Sparse below 1/32 density, else Bitmap.
  void conform();
  // A copy in another backend's memory (or this one's).
  Vector to(Backend where) const;

  // Backend access to the storage (used by the operations; not for casual use).
  detail::VectorStore<T>& store() noexcept { return s_; }
  const detail::VectorStore<T>& store() const noexcept { return s_; }
  explicit Vector(detail::VectorStore<T>&& s) : s_(std::move(s)) {}

 private:
  void check_index(Index i) const;
  detail::VectorStore<T> s_;
};

#define GBCUDA_EXTERN_VECTOR(T)                                   \
  extern template class Vector<T>;                                \
  extern template void detail::convert_form(detail::VectorStore<T>&, VectorForm); \
  extern template void detail::sort_indices(detail::VectorStore<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_VECTOR)
#undef GBCUDA_EXTERN_VECTOR

}  // namespace gbcuda
