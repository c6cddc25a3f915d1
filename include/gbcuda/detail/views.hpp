#pragma once
// Plain views of matrix and vector storage handed to the backends' kernels, and the normalized
// mask. A view's pointers are in the backend's own memory (host or device).
#include <cstdint>

#include "gbcuda/types.hpp"
#include "gbcuda/matrix.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda::detail {

template <class T>
struct CsrView {
  Index nrows = 0;
  Index ncols = 0;
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
  Index nvals = 0;
  const Vid* indices = nullptr;          // Sparse
  const T* values = nullptr;             // Sparse: nvals; Bitmap/Dense: n. nullptr: values unused
  const std::uint8_t* bitmap = nullptr;  // Bitmap
  GBCUDA_HD bool present(Index i) const { return form == VectorForm::Dense || bitmap[i] != 0; }
  GBCUDA_HD T value(Index pos) const { return values ? values[pos] : T(1); }
};

// Mask after the descriptor is applied: allows(i) says whether w(i) may be written.
// No mask at all: bitmap == nullptr and complement == false (everything allowed).
// A complemented empty mask allows nothing (GrB_COMP with no mask).
struct MaskView {
  const std::uint8_t* bitmap = nullptr;  // n bytes, nonzero = mask entry true
  bool complement = false;
  // Where the mask was a sparse structural vector and not complemented: its entries, which are
  // all the allowed positions (lets scalar assign touch only them). nullptr otherwise.
  const Vid* list = nullptr;
  Index list_size = 0;
  bool present() const { return bitmap != nullptr || complement || list != nullptr; }
  GBCUDA_HD bool allows(Index i) const { return bitmap ? ((bitmap[i] != 0) != complement) : !complement; }
};

template <class T>
CsrView<T> view(const Csr<T>& a) {
  return {a.nrows, a.ncols, a.row_ptr.data(), a.col_idx.data(), a.values.data(), a.iso_value};
}
template <class T>
VecView<T> view(const VectorStore<T>& v) {
  return {v.n, v.form, v.nvals, v.indices.data(), v.values.data(), v.bitmap.data()};
}

// The same structure without values, for operators that read none (the structural semirings):
// the CUDA backend instantiates those for bool views only.
template <class T>
CsrView<bool> value_free(const CsrView<T>& a) {
  return {a.nrows, a.ncols, a.row_ptr, a.col_idx, nullptr, true};
}
template <class T>
VecView<bool> value_free(const VecView<T>& x) {
  return {x.n, x.form, x.nvals, x.indices, nullptr, x.bitmap};
}

}  // namespace gbcuda::detail
