#pragma once
// Matrix<T>: an immutable sparse matrix in CSR form (64-bit row offsets, 32-bit column
// indices). A(i,j) stored means an edge i -> j. Copies share storage. Derived data is computed
// once on demand and cached (LAGraph's cached properties): the transpose (the CSC view that pull
// walks), out/in degrees, whether the structure is symmetric, and a copy in each backend's memory.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/types.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {

// How duplicate entries are combined when building from coordinates.
enum class DuplicatePolicy { Sum, Last, Error };

template <class T>
struct Csr {
  Index nrows = 0;
  Index ncols = 0;
  detail::Array<Offset> row_ptr;  // nrows + 1
  detail::Array<Vid> col_idx;     // nvals, ascending within each row, no duplicates
  detail::Array<T> values;        // nvals, or empty when every value is `iso_value`
  T iso_value = T(1);

  Index nvals() const { return nrows == 0 ? 0 : static_cast<Index>(col_idx.size()); }
  bool is_iso() const { return values.empty(); }
  Backend where() const { return row_ptr.where(); }
  Csr clone(Backend to) const {
    Csr c;
    c.nrows = nrows;
    c.ncols = ncols;
    c.row_ptr = row_ptr.clone(to);
    c.col_idx = col_idx.clone(to);
    c.values = values.clone(to);
    c.iso_value = iso_value;
    return c;
  }
  std::size_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
};

namespace detail {
template <class T>
struct MatrixStore;
// CSR transpose, one per backend (host: counting sort; CUDA: CUB radix sort).
template <class T>
Csr<T> transpose_csr(const Csr<T>& a);
}  // namespace detail

template <class T>
class Matrix {
 public:
  using value_type = T;

  Matrix();  // 0 x 0

  // From coordinates (0-based). `values` empty means a pattern matrix (every value T(1), stored
  // once). Duplicates are combined by `dup` (Sum adds; for bool, logical or). Indices are checked.
  static Matrix from_coo(Index nrows, Index ncols, std::span<const Index> rows, std::span<const Index> cols,
                         std::span<const T> values = {}, DuplicatePolicy dup = DuplicatePolicy::Sum);
  // From CSR arrays. Rows need not be sorted; duplicates within a row are combined by `dup`.
  static Matrix from_csr(Index nrows, Index ncols, std::vector<Offset> row_ptr, std::vector<Vid> col_idx,
                         std::vector<T> values = {}, DuplicatePolicy dup = DuplicatePolicy::Sum);
  // Adopt an already valid CSR (sorted rows, no duplicates) in any backend's memory, e.g. one
  // built on the GPU by a generator. Not checked beyond sizes. A caller that knows whether the
  // structure is symmetric says so, which spares computing it (a transpose) later.
  static Matrix from_valid_csr(Csr<T>&& csr, std::optional<bool> symmetric_structure = std::nullopt);

  Index nrows() const;
  Index ncols() const;
  Index nvals() const;
  bool is_iso() const;

  // The CSR in `where`'s memory (copied there once, then cached).
  const Csr<T>& csr(Backend where = Backend::Host) const;
  // A' as a Matrix (cached; computed in the backend where A already lives).
  const Matrix& transpose() const;
  // Out-degree (stored entries per row) and in-degree (per column), cached, host memory.
  const std::vector<Index>& out_degrees() const;
  const std::vector<Index>& in_degrees() const;
  // True when the pattern of A equals the pattern of A' (values ignored). Cached.
  bool is_symmetric_structure() const;
  // The cached answer of is_symmetric_structure(), or nothing when it was never computed (nor
  // given to from_valid_csr): finding out costs a transpose.
  std::optional<bool> known_symmetric_structure() const;
  // A + A' pattern (values of A kept where present, else of A'); cached. Used by --symmetrize.
  Matrix symmetrized() const;

  // Bytes this matrix occupies in device memory now (CSR + cached transpose copies).
  std::size_t device_bytes() const;
  // Drop cached copies in `where` (e.g. free the GPU copy).
  void release(Backend where) const;

 private:
  std::shared_ptr<detail::MatrixStore<T>> s_;
};

#define GBCUDA_EXTERN_MATRIX(T)    \
  extern template class Matrix<T>; \
  extern template Csr<T> detail::transpose_csr(const Csr<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_MATRIX)
#undef GBCUDA_EXTERN_MATRIX

}  // namespace gbcuda
