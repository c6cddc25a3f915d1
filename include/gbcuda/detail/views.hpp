#pragma once
// Plain views of matrix and vector storage handed to the backends' kernels, and the normalized
// mask. A view's pointers are in the backend's own memory (host or device).
#include <cstdint>

#include "gbcuda/matrix.hpp"
#include "gbcuda/types.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda::detail {

template <class T>
struct CsrView {
  Index nrows = 0;
  Index ncols = 0;
  Offset nnz = 0;  // stored entries (row_ptr[nrows], known without reading device memory)
  const Offset* row_ptr = nullptr;
  const Vid* col_idx = nullptr;
  const T* values = nullptr;  // nullptr: every stored value is `iso` (or values unused)
  T iso = T(1);
  GBCUDA_HD T value(Offset p) const { return values ? values[p] : iso; }
};

template <class T>
struct VecView {
  Index n = 0;
  VectorForm form = VectorForm::Sparse;
  Index nvals = 0;                       // exact unless nvals_dev is set
  const Index* nvals_dev = nullptr;      // CUDA: the count in device memory (then use count())
  const Vid* indices = nullptr;          // Sparse
  const T* values = nullptr;             // Sparse: nvals; Bitmap/Dense: n. nullptr: values unused
  const std::uint8_t* bitmap = nullptr;  // Bitmap
  Index capacity = 0;                    // Sparse: length of the index array (>= the count)
  GBCUDA_HD bool present(Index i) const { return form == VectorForm::Dense || bitmap[i] != 0; }
  GBCUDA_HD T value(Index pos) const { return values ? values[pos] : T(1); }
  // The entry count, in the memory the view lives in (device code reads the device count).
  GBCUDA_HD Index count() const { return nvals_dev ? *nvals_dev : nvals; }
};

// Mask after the descriptor is applied: allows(i) says whether w(i) may be written.
// No mask at all: bitmap == nullptr and complement == false (everything allowed).
// A complemented empty mask allows nothing (GrB_COMP with no mask).
struct MaskView {
  const std::uint8_t* bitmap = nullptr;  // n bytes, nonzero = mask entry true
  bool complement = false;
  // Where the mask was a sparse structural vector and not complemented: its entries, which are
  // all the allowed positions (lets assign touch only them). nullptr otherwise. A view may hold
  // the list alone (bitmap == nullptr, list != nullptr: "list_only") when the operation was
  // prepared for a primitive that walks the list and never calls allows().
  const Vid* list = nullptr;
  Index list_size = 0;                   // exact unless list_size_dev is set
  const Index* list_size_dev = nullptr;  // CUDA: the list's length in device memory
  Index list_capacity = 0;               // length of the list's array (>= its size)
  bool present() const { return bitmap != nullptr || complement || list != nullptr; }
  bool list_only() const { return bitmap == nullptr && list != nullptr; }
  GBCUDA_HD Index list_count() const { return list_size_dev ? *list_size_dev : list_size; }
  GBCUDA_HD bool allows(Index i) const { return bitmap ? ((bitmap[i] != 0) != complement) : !complement; }
};

template <class T>
CsrView<T> view(const Csr<T>& a) {
  return {a.nrows, a.ncols, a.nvals(), a.row_ptr.data(), a.col_idx.data(), a.values.data(), a.iso_value};
}
template <class T>
VecView<T> view(const VectorStore<T>& v) {
  return {v.n,
          v.form,
          v.nvals,
          device_nvals(v),
          v.indices.data(),
          v.values.data(),
          v.bitmap.data(),
          Index(v.indices.size())};
}

// The same structure without values, for operators that read none (the structural semirings):
// the CUDA backend instantiates those for bool views only.
template <class T>
CsrView<bool> value_free(const CsrView<T>& a) {
  return {a.nrows, a.ncols, a.nnz, a.row_ptr, a.col_idx, nullptr, true};
}
template <class T>
VecView<bool> value_free(const VecView<T>& x) {
  return {x.n, x.form, x.nvals, x.nvals_dev, x.indices, nullptr, x.bitmap, x.capacity};
}

}  // namespace gbcuda::detail
