// Vector<T>: construction, element access, and the host side of form conversions.
#include "gbcuda/vector.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <numeric>
#include <string>

#include "core/duplicates.hpp"
#include "core/host_pages.hpp"
#include "gbcuda/detail/host_ops.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {
namespace detail {
namespace {

// Host conversions. Each leaves the store consistent: form, nvals, and only the arrays that
// form uses.
template <class T>
void host_to_bitmap(VectorStore<T>& v) {
  if (v.form == VectorForm::Bitmap) return;
  Array<std::uint8_t> bitmap(static_cast<std::size_t>(v.n), Backend::Host);
  Array<T> values(static_cast<std::size_t>(v.n), Backend::Host);
  if (v.form == VectorForm::Dense) {
    std::fill(bitmap.begin(), bitmap.end(), std::uint8_t{1});
    values = std::move(v.values);
  } else {
    std::fill(bitmap.begin(), bitmap.end(), std::uint8_t{0});
    for (Index p = 0; p < v.nvals; ++p) {
      bitmap[v.indices[p]] = 1;
      values[v.indices[p]] = v.values[p];
    }
  }
  v.bitmap = std::move(bitmap);
  v.values = std::move(values);
  v.indices.reset();
  v.form = VectorForm::Bitmap;
  v.jumbled = false;
}

template <class T>
void host_to_sparse(VectorStore<T>& v) {
  if (v.form == VectorForm::Sparse) return;
  Array<Vid> indices;
  Array<T> values;
  const bool dense = v.form == VectorForm::Dense;
  host::util::compact(
      v.n, [&](Index i) { return dense || v.bitmap[i] != 0; },
      [&](Index count) {
        indices = Array<Vid>(static_cast<std::size_t>(count), Backend::Host);
        values = Array<T>(static_cast<std::size_t>(count), Backend::Host);
      },
      [&](Index p, Index i) {
        indices[p] = static_cast<Vid>(i);
        values[p] = v.values[i];
      });
  v.indices = std::move(indices);
  v.values = std::move(values);
  v.bitmap.reset();
  v.form = VectorForm::Sparse;
  v.jumbled = false;
}

template <class T>
void host_sort(VectorStore<T>& v) {
  if (v.form != VectorForm::Sparse || !v.jumbled) return;
  std::vector<Index> order(static_cast<std::size_t>(v.nvals));
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(), [&](Index a, Index b) { return v.indices[a] < v.indices[b]; });
  Array<Vid> indices(order.size(), Backend::Host);
  Array<T> values(order.size(), Backend::Host);
  for (std::size_t p = 0; p < order.size(); ++p) {
    indices[p] = v.indices[order[p]];
    values[p] = v.values[order[p]];
  }
  v.indices = std::move(indices);
  v.values = std::move(values);
  v.jumbled = false;
}

}  // namespace

template <class T>
void convert_form(VectorStore<T>& v, VectorForm to) try {
  if (v.form == to) return;
  if (to == VectorForm::Dense && exact_nvals(v) != v.n)
    throw Error(Status::InvalidValue, "a vector with missing entries cannot take the dense form");
#if GBCUDA_HAVE_CUDA
  if (v.where == Backend::Cuda) {
    cuda::convert_form(v, to);
    return;
  }
#endif
  if (to == VectorForm::Sparse) {
    host_to_sparse(v);
  } else {
    host_to_bitmap(v);
    if (to == VectorForm::Dense) {
      v.bitmap.reset();
      v.form = VectorForm::Dense;
    }
  }
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("a form conversion");
}

template <class T>
void sort_indices(VectorStore<T>& v) try {
#if GBCUDA_HAVE_CUDA
  if (v.where == Backend::Cuda) {
    cuda::sort_indices(v);
    return;
  }
#endif
  host_sort(v);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("sorting a vector");
}

template <class T>
VectorStore<T> VectorStore<T>::clone(Backend to) const try {
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda && to == Backend::Cuda) return cuda::clone_store(*this);
#endif
  VectorStore c;
  c.n = n;
  c.where = to;
  c.form = form;
  c.nvals = exact_nvals(*this);  // a copy to or from the host needs the count there
  c.jumbled = jumbled;
  c.trace = where == Backend::Host ? trace : ProductTrace{};
  c.trace_of = where == Backend::Host && to == Backend::Host ? trace_of : nullptr;
  if (form == VectorForm::Sparse) {  // only the entries: a CUDA store's arrays may be longer
    const auto count = static_cast<std::size_t>(nvals);
    c.indices = Array<Vid>(count, to);
    c.values = Array<T>(values.empty() ? 0 : count, to);
    copy_bytes(c.indices.data(), to, indices.data(), where, count * sizeof(Vid));
    copy_bytes(c.values.data(), to, values.data(), where, c.values.bytes());
  } else {
    c.values = values.clone(to);
    c.bitmap = bitmap.clone(to);
  }
  return c;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("copying a vector");
}

template <class T>
bool VectorStore<T>::copy_in_place(const VectorStore& o) {
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda && o.where == Backend::Cuda) return cuda::copy_store_into(*this, o);
#else
  (void)o;
#endif
  return false;
}

}  // namespace detail

template <class T>
Vector<T>::Vector(Index n, Backend where) {
  if (n < 0) throw Error(Status::InvalidValue, "vector length must be >= 0, got " + std::to_string(n));
  if (n > Index(std::numeric_limits<Vid>::max()))
    throw Error(Status::InvalidValue, "vector length " + std::to_string(n) + " exceeds 2^31-1");
  s_ = detail::VectorStore<T>::empty(n, where);
  note_created();
}

template <class T>
Vector<T> Vector<T>::pack_full(std::vector<T>&& values, Backend where) try {
  const auto n = static_cast<Index>(values.size());
  Vector<T> v(n, Backend::Host);
  v.s_.values = detail::Array<T>::adopt(std::move(values));
  v.s_.form = VectorForm::Dense;
  v.s_.nvals = n;
  if (where == Backend::Host) return v;  // moved out (a conditional expression would copy it)
  return v.to(where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Vector::pack_full");
}

template <class T>
std::vector<T> Vector<T>::unpack_full() try {
  const Index n = size(), have = nvals();
  if (have != n)
    throw Error(Status::InvalidValue, "unpack_full: the vector has " + std::to_string(have) + " entries in " +
                                          std::to_string(n) + " positions; every position needs one");
  std::vector<T> out = backend() == Backend::Host && form() == VectorForm::Dense ? write().values.release_vector()
                                                                                 : to_dense_vector(T{});
  *this = Vector<T>(n, backend());
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Vector::unpack_full");
}

template <class T>
Vector<T> Vector<T>::full(Index n, T fill, Backend where) try {
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {  // filled on the device: no host array, no copy, no wait
    Vector<T> v(n, where);
    detail::cuda::merge_scalar(v.s_, detail::MaskView{}, NoAccum{}, fill, /*replace=*/false);
    return v;
  }
#endif
  Vector<T> v(n, Backend::Host);
  auto& s = v.s_;
  s.values = detail::Array<T>(static_cast<std::size_t>(n), Backend::Host);
  std::fill(s.values.begin(), s.values.end(), fill);
  s.form = VectorForm::Dense;
  s.nvals = n;
  if (where == Backend::Host) return v;  // moved out (a conditional expression would copy it)
  return v.to(where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Vector::full");
}

template <class T>
Vector<T> Vector<T>::from_tuples(Index n, const std::vector<Index>& idx, const std::vector<T>& vals, Backend where,
                                 DuplicatePolicy dup) try {
  if (idx.size() != vals.size())
    throw Error(Status::InvalidValue, "from_tuples: " + std::to_string(idx.size()) + " indices but " +
                                          std::to_string(vals.size()) + " values");
  Vector<T> v(n, Backend::Host);
  v.to_form(VectorForm::Bitmap);
  auto& s = v.s_;
  std::fill(s.bitmap.begin(), s.bitmap.end(), std::uint8_t{0});
  Index count = 0;
  for (std::size_t p = 0; p < idx.size(); ++p) {
    v.check_index(idx[p]);
    const T x = vals[p];
    if (!s.bitmap[idx[p]]) {
      ++count;
      s.bitmap[idx[p]] = 1;
      s.values[idx[p]] = x;
    } else if (dup == DuplicatePolicy::Error) {
      throw Error(Status::InvalidValue, "from_tuples: index " + std::to_string(idx[p]) +
                                            " appears twice and DuplicatePolicy::Error was asked for");
    } else {
      s.values[idx[p]] = detail::combine<T>(dup, s.values[idx[p]], x);
    }
  }
  s.nvals = count;
  v.conform();
  if (where == Backend::Host) return v;  // moved out (a conditional expression would copy it)
  return v.to(where);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Vector::from_tuples");
}

template <class T>
void Vector<T>::check_index(Index i) const {
  if (i < 0 || i >= s_.n)
    throw Error(Status::InvalidIndex,
                "index " + std::to_string(i) + " out of range for a vector of length " + std::to_string(s_.n));
}

template <class T>
void Vector<T>::set_element(Index i, T value) try {
  check_index(i);
  write();
  to_form(s_.form == VectorForm::Dense ? VectorForm::Dense : VectorForm::Bitmap);
#if GBCUDA_HAVE_CUDA
  if (s_.where == Backend::Cuda) {  // one small kernel: no read of the old entry
    detail::cuda::set_element(s_, i, value);
    return;
  }
#endif
  if (s_.form == VectorForm::Bitmap && !s_.bitmap[i]) {
    s_.bitmap[i] = 1;
    detail::set_nvals(s_, s_.nvals + 1);
  }
  s_.values[i] = value;
  s_.trace_of = nullptr;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("set_element");
}

template <class T>
std::optional<T> Vector<T>::element(Index i) const try {
  check_index(i);
  read();
  if (s_.form == VectorForm::Sparse) {
    std::vector<Index> idx;
    std::vector<T> vals;
    extract_tuples(idx, vals);
    auto it = std::lower_bound(idx.begin(), idx.end(), i);
    if (it == idx.end() || *it != i) return std::nullopt;
    return vals[static_cast<std::size_t>(it - idx.begin())];
  }
  if (s_.form == VectorForm::Bitmap) {
    std::uint8_t present = 0;
    detail::copy_bytes(&present, Backend::Host, s_.bitmap.data() + i, s_.where, 1);
    if (!present) return std::nullopt;
  }
  T value{};
  detail::copy_bytes(&value, Backend::Host, s_.values.data() + i, s_.where, sizeof(T));
  return value;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("element");
}

template <class T>
void Vector<T>::remove_element(Index i) try {
  check_index(i);
  write();
  to_form(VectorForm::Bitmap);
#if GBCUDA_HAVE_CUDA
  if (s_.where == Backend::Cuda) {
    detail::cuda::remove_element(s_, i);
    return;
  }
#endif
  if (s_.bitmap[i]) {
    s_.bitmap[i] = 0;
    detail::set_nvals(s_, s_.nvals - 1);
  }
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("remove_element");
}

template <class T>
void Vector<T>::clear() {
  write() = detail::VectorStore<T>::empty(s_.n, s_.where);
  conform();
}

template <class T>
void Vector<T>::extract_tuples(std::vector<Index>& idx, std::vector<T>& vals) const try {
  detail::VectorStore<T> h = read().clone(Backend::Host);
  detail::convert_form(h, VectorForm::Sparse);
  detail::sort_indices(h);
  std::vector<Index> i(h.indices.begin(), h.indices.begin() + h.nvals);  // both made, then handed over
  std::vector<T> v(h.values.begin(), h.values.begin() + h.nvals);
  idx.swap(i);
  vals.swap(v);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("extract_tuples");
}

template <class T>
std::vector<T> Vector<T>::to_dense_vector(T missing) const try {
#if GBCUDA_HAVE_CUDA
  if constexpr (!std::is_same_v<T, bool>) {  // std::vector<bool> packs its values: no array to copy into
    if (s_.where == Backend::Cuda) {
      // Densified on the device, then one copy of the values: much cheaper than copying the
      // bitmap too and walking it on the host.
      std::vector<T> out = detail::fresh_host_vector<T>(static_cast<std::size_t>(s_.n));
      detail::cuda::to_dense_host(read(), missing, out.data());
      return out;
    }
  }
#endif
  detail::VectorStore<T> h = read().clone(Backend::Host);
  std::vector<T> out(static_cast<std::size_t>(s_.n), missing);
  if (h.form == VectorForm::Sparse) {
    for (Index p = 0; p < h.nvals; ++p) out[h.indices[p]] = h.values[p];
  } else {
    for (Index i = 0; i < h.n; ++i)
      if (h.form == VectorForm::Dense || h.bitmap[i]) out[i] = h.values[i];
  }
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("to_dense_vector");
}

template <class T>
void Vector<T>::conform() noexcept {
  if (s_.count_on_device) return;  // the form stays until the count is known on the host
  // A conversion keeps the entries; when it cannot get memory the vector keeps its form, which
  // is as valid (so an operation that already changed its output does not fail after the fact).
  try {
    if (control_ == FormControl::Bitmap) {
      to_form(s_.nvals == s_.n && s_.n > 0 ? VectorForm::Dense : VectorForm::Bitmap);
      return;
    }
    if (s_.nvals == s_.n && s_.n > 0) {
      to_form(VectorForm::Dense);
    } else if (s_.nvals * 32 < s_.n) {
      to_form(VectorForm::Sparse);
    } else if (s_.form == VectorForm::Dense) {
      to_form(VectorForm::Bitmap);  // no longer full
    } else if (s_.form == VectorForm::Sparse && s_.nvals * 16 >= s_.n) {
      to_form(VectorForm::Bitmap);  // hysteresis: stay sparse between 1/32 and 1/16
    }
  } catch (const Error&) {
    // out of memory, or a device error the vector's next use reports again
  } catch (const std::bad_alloc&) {
  }
}

template <class T>
void Vector<T>::set_form_control(FormControl c) try {
  control_ = c;
  conform();
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("set_form_control");
}

template <class T>
Vector<T> Vector<T>::to(Backend where) const try {
  Vector<T> out(read().clone(where));
  out.control_ = control_;
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Vector::to");
}

#define GBCUDA_INSTANTIATE_VECTOR(T)                                       \
  template struct detail::VectorStore<T>;                                  \
  template class Vector<T>;                                                \
  template void detail::convert_form(detail::VectorStore<T>&, VectorForm); \
  template void detail::sort_indices(detail::VectorStore<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_VECTOR)

}  // namespace gbcuda
