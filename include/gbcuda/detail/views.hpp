#pragma once
// Plain views of matrix and vector storage handed to the backends' kernels, and the normalized
// mask. A view's pointers are in the backend's own memory (host or device).
#include <cstdint>
#include <type_traits>

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
// No mask at all: bitmap == nullptr, complement == false and listed == false (everything allowed).
// A complemented empty mask allows nothing (GrB_COMP with no mask).
struct MaskView {
  const std::uint8_t* bitmap = nullptr;  // n bytes, nonzero = mask entry true
  bool complement = false;
  // Where the mask was a sparse structural vector and not complemented: `listed`, and its entries
  // are all the allowed positions (lets assign touch only them). A mask with no entries is listed
  // too, with an empty list (`list` may then be nullptr): it allows nothing, which is not the same
  // as no mask. A view may hold the list alone (bitmap == nullptr: "list_only") when the operation
  // was prepared for a primitive that walks the list and never calls allows().
  bool listed = false;
  const Vid* list = nullptr;
  Index list_size = 0;                   // exact unless list_size_dev is set
  const Index* list_size_dev = nullptr;  // CUDA: the list's length in device memory
  Index list_capacity = 0;               // length of the list's array (>= its size)
  bool present() const { return bitmap != nullptr || complement || listed; }
  bool list_only() const { return bitmap == nullptr && listed; }
  GBCUDA_HD Index list_count() const { return list_size_dev ? *list_size_dev : list_size; }
  GBCUDA_HD bool allows(Index i) const { return bitmap ? ((bitmap[i] != 0) != complement) : !complement; }
};

// The value types as a run-time code, for kernels that read operands of any type and typecast
// them (one kernel per result type instead of one per combination of operand types).
enum class ValueType : std::int8_t { Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float, Double };
template <class T>
constexpr ValueType value_type_code() {
  if constexpr (std::is_same_v<T, bool>) return ValueType::Bool;
  else if constexpr (std::is_same_v<T, std::int8_t>) return ValueType::Int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return ValueType::Int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ValueType::Int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ValueType::Int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return ValueType::UInt8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return ValueType::UInt16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ValueType::UInt32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return ValueType::UInt64;
  else if constexpr (std::is_same_v<T, float>) return ValueType::Float;
  else {
    static_assert(std::is_same_v<T, double>, "not one of the value types");
    return ValueType::Double;
  }
}

// Values of any value type, read as Z with GraphBLAS typecasting (cast_to). values == nullptr:
// every value is the iso value, kept in an integer form (its bits: an unsigned 64-bit iso value
// past INT64_MAX reads back whole) and a floating one, so that no cast loses it.
struct TypedValues {
  const void* values = nullptr;
  ValueType type = ValueType::Bool;
  std::int64_t iso_int = 1;
  double iso_float = 1.0;
  template <class Z, class S>
  GBCUDA_HD Z get_as(Index p, S iso) const {
    return cast_to<Z>(values ? static_cast<const S*>(values)[p] : iso);
  }
  template <class Z>
  GBCUDA_HD Z get(Index p) const {
    switch (type) {
      case ValueType::Bool: return get_as<Z, bool>(p, iso_int != 0);
      case ValueType::Int8: return get_as<Z, std::int8_t>(p, std::int8_t(iso_int));
      case ValueType::Int16: return get_as<Z, std::int16_t>(p, std::int16_t(iso_int));
      case ValueType::Int32: return get_as<Z, std::int32_t>(p, std::int32_t(iso_int));
      case ValueType::Int64: return get_as<Z, std::int64_t>(p, iso_int);
      case ValueType::UInt8: return get_as<Z, std::uint8_t>(p, std::uint8_t(iso_int));
      case ValueType::UInt16: return get_as<Z, std::uint16_t>(p, std::uint16_t(iso_int));
      case ValueType::UInt32: return get_as<Z, std::uint32_t>(p, std::uint32_t(iso_int));
      case ValueType::UInt64: return get_as<Z, std::uint64_t>(p, std::uint64_t(iso_int));
      case ValueType::Float: return get_as<Z, float>(p, float(iso_float));
      case ValueType::Double: break;
    }
    return get_as<Z, double>(p, iso_float);
  }
};
template <class T>
TypedValues typed_values(const T* values, T iso = T(1)) {
  TypedValues v;
  v.values = values;
  v.type = value_type_code<T>();
  if constexpr (std::is_floating_point_v<T>) {
    v.iso_float = double(iso);
    v.iso_int = cast_to<std::int64_t>(iso);
  } else {
    v.iso_int = std::int64_t(iso);
    v.iso_float = double(iso);
  }
  return v;
}

// A CSR whose values are of any value type.
struct TypedCsr {
  Index nrows = 0;
  Index ncols = 0;
  Offset nnz = 0;
  const Offset* row_ptr = nullptr;
  const Vid* col_idx = nullptr;
  TypedValues values;
  Offset longest_row = -1;  // the most entries of a row, or -1: not known
};
// A vector whose values are of any value type (values.values == nullptr: not read).
struct TypedVec {
  Index n = 0;
  VectorForm form = VectorForm::Sparse;
  Index nvals = 0;
  const Index* nvals_dev = nullptr;
  const Vid* indices = nullptr;
  const std::uint8_t* bitmap = nullptr;
  Index capacity = 0;
  TypedValues values;
  GBCUDA_HD bool present(Index i) const { return form == VectorForm::Dense || bitmap[i] != 0; }
  GBCUDA_HD Index count() const { return nvals_dev ? *nvals_dev : nvals; }
};
template <class T>
TypedCsr typed(const CsrView<T>& a) {
  return {a.nrows, a.ncols, a.nnz, a.row_ptr, a.col_idx, typed_values(a.values, a.iso)};
}
template <class T>
TypedVec typed(const VecView<T>& x) {
  return {x.n, x.form, x.nvals, x.nvals_dev, x.indices, x.bitmap, x.capacity, typed_values(x.values)};
}

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
