#pragma once
// Matrix<T>: a sparse matrix in CSR form (64-bit row offsets, 32-bit column indices). A(i,j)
// stored means an edge i -> j. Copies share storage until one is changed (set_element,
// remove_element: copy on write; the change waits for the next read). Derived data is computed
// once on demand and cached (LAGraph's cached properties): the transpose (the CSC view that pull
// walks), out/in degrees, whether the structure is symmetric, and a copy in each backend's memory.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gbcuda/detail/array.hpp"
#include "gbcuda/scalar.hpp"
#include "gbcuda/types.hpp"
#include "gbcuda/vector.hpp"

namespace gbcuda {

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

// A CSR in std::vectors (Matrix::unpack_csr): `values` empty when every stored value is
// `iso_value` (a pattern matrix).
template <class T>
struct CsrVectors {
  Index nrows = 0;
  Index ncols = 0;
  std::vector<Offset> row_ptr;  // nrows + 1
  std::vector<Vid> col_idx;     // ascending within each row, no duplicates
  std::vector<T> values;
  T iso_value = T(1);
};

// A CSC in std::vectors (Matrix::unpack_csc): column j holds the rows row_idx[col_ptr[j] ..
// col_ptr[j + 1]), ascending, no duplicates; `values` empty for a pattern (every value
// `iso_value`).
template <class T>
struct CscVectors {
  Index nrows = 0;
  Index ncols = 0;
  std::vector<Offset> col_ptr;  // ncols + 1
  std::vector<Vid> row_idx;
  std::vector<T> values;
  T iso_value = T(1);
};

// A hypersparse CSR in std::vectors (Matrix::unpack_hyper_csr): only the rows holding an entry,
// listed in `rows` (ascending); row rows[k] holds the columns col_idx[row_ptr[k] ..
// row_ptr[k + 1]), ascending, no duplicates.
template <class T>
struct HyperCsrVectors {
  Index nrows = 0;
  Index ncols = 0;
  std::vector<Index> rows;
  std::vector<Offset> row_ptr;  // rows.size() + 1
  std::vector<Vid> col_idx;
  std::vector<T> values;
  T iso_value = T(1);
};

template <class T>
class Matrix;
namespace detail {
// The row offsets of A's GPU copy in 32 bits (cuSPARSE's index type), made on first use and
// cached with that copy (4 bytes a row); nullptr when A has 2^31 entries or more. CUDA builds.
template <class T>
const std::int32_t* device_row_offsets32(const Matrix<T>& A);
// The GPU engine's state for A (cuSPARSE's descriptors and work space, cusparse.cu), made by
// `make` on first use and kept with A's GPU copy (dropped with it). CUDA builds.
template <class T>
std::shared_ptr<void> device_engine_state(const Matrix<T>& A, std::shared_ptr<void> (*make)());
// The most entries of a row of A, computed on first use where A lives (on the GPU: one read-back)
// and cached until A's entries change.
template <class T>
Offset longest_row(const Matrix<T>& A);
}  // namespace detail

// Moving a Matrix leaves the source a valid 0 x 0 matrix. A Matrix may be read by many threads
// at once, its lazily built caches included; see docs/api.md's "Threads".
template <class T>
class Matrix {
  static_assert(detail::is_value_type_v<T>, "gbcuda::Matrix<T>: T must be one of " GBCUDA_VALUE_TYPE_NAMES);

 public:
  using value_type = T;

  Matrix();  // 0 x 0
  // An nrows x ncols matrix with no entries (GrB_Matrix_new), to fill with set_element.
  Matrix(Index nrows, Index ncols);

  // From coordinates (0-based), in any integer type (std::vector<int>, std::vector<uint64_t>,
  // spans, ...). `values` empty means a pattern matrix (every value T(1), stored once).
  // Duplicates are combined by `dup` (Sum adds; for bool, logical or). Indices are checked:
  // outside the matrix is Error(InvalidIndex).
  static Matrix from_coo(Index nrows, Index ncols, std::span<const Index> rows, std::span<const Index> cols,
                         std::span<const T> values = {}, DuplicatePolicy dup = DuplicatePolicy::Sum);
  template <IndexRange R, IndexRange C>
  requires(!std::is_convertible_v<const R&, std::span<const Index>> ||
           !std::is_convertible_v<const C&, std::span<const Index>>) static Matrix
      from_coo(Index nrows, Index ncols, const R& rows, const C& cols, std::span<const T> values = {},
               DuplicatePolicy dup = DuplicatePolicy::Sum) {
    const std::vector<Index> r = detail::to_indices(rows, "from_coo: row index");
    const std::vector<Index> c = detail::to_indices(cols, "from_coo: column index");
    return from_coo(nrows, ncols, std::span<const Index>(r), std::span<const Index>(c), values, dup);
  }
  // From CSR arrays. Rows need not be sorted; duplicates within a row are combined by `dup`.
  // Vectors moved in are taken over without a copy (GxB_Matrix_pack_CSR): the checks read them
  // once and unsorted rows are sorted in place (combining duplicates rebuilds the row offsets).
  static Matrix from_csr(Index nrows, Index ncols, std::vector<Offset> row_ptr, std::vector<Vid> col_idx,
                         std::vector<T> values = {}, DuplicatePolicy dup = DuplicatePolicy::Sum);
  // From CSC arrays (GxB_Matrix_pack_CSC): column j holds the rows row_idx[col_ptr[j] ..
  // col_ptr[j + 1]), in any order; duplicates within a column are combined by `dup`. The
  // vectors moved in are taken over without a copy as the CSR of A', which the matrix keeps as its
  // transpose() (the rows a pull walks); A's own CSR is built from them once (a transpose).
  static Matrix from_csc(Index nrows, Index ncols, std::vector<Offset> col_ptr, std::vector<Vid> row_idx,
                         std::vector<T> values = {}, DuplicatePolicy dup = DuplicatePolicy::Sum);
  // From a hypersparse CSR (GxB_Matrix_pack_HyperCSR): the listed `rows` (strictly ascending, in
  // [0, nrows)), row rows[k] holding the columns col_idx[row_ptr[k] .. row_ptr[k + 1]); every
  // other row is empty. col_idx and values are taken over as from_csr takes them; the full row
  // offsets (8 bytes a row) are built from the list.
  static Matrix from_hyper_csr(Index nrows, Index ncols, std::vector<Index> rows, std::vector<Offset> row_ptr,
                               std::vector<Vid> col_idx, std::vector<T> values = {},
                               DuplicatePolicy dup = DuplicatePolicy::Sum);
  // Adopt an already valid CSR (sorted rows, no duplicates) in any backend's memory, e.g. one
  // built on the GPU by a generator. Not checked beyond sizes. A caller that knows whether the
  // structure is symmetric says so, which spares computing it (a transpose) later.
  static Matrix from_valid_csr(Csr<T>&& csr, std::optional<bool> symmetric_structure = std::nullopt);

  // Copies share the storage until one of them is changed (copy on write): each behaves as a value.
  Matrix(const Matrix&) = default;
  Matrix& operator=(const Matrix&) = default;
  Matrix(Matrix&& o) noexcept : s_(std::exchange(o.s_, empty_store())) {}
  Matrix& operator=(Matrix&& o) noexcept {
    if (this != &o) s_ = std::exchange(o.s_, empty_store());
    return *this;
  }

  Index nrows() const;
  Index ncols() const;
  Index nvals() const;
  bool is_iso() const;
  // A(i, j) (GrB_Matrix_extractElement), or nothing when no entry is stored there; read from the
  // host copy (made on first use). Error(InvalidIndex) outside the matrix.
  std::optional<T> element(Index i, Index j) const;

  // Changing one entry (GrB_Matrix_setElement, GrB_Matrix_removeElement; removing an absent entry
  // does nothing). The change is kept pending, in host memory, and applied by the next read of any
  // kind or by wait(): SuiteSparse's pending tuples and zombies, as one ordered list of changes
  // (a later change to an entry replaces an earlier one). Applying rebuilds the host CSR once and
  // drops every cached copy (GPU, transpose, degrees, symmetry); references returned earlier by
  // csr(), transpose(), out_degrees(), in_degrees() or symmetrized() become invalid. A change
  // must not run while another thread uses this Matrix object. Error(InvalidIndex) outside the
  // matrix.
  void set_element(Index i, Index j, T x);
  void remove_element(Index i, Index j);
  // GrB_Matrix_setElement_Scalar: an empty scalar removes the entry.
  void set_element(Index i, Index j, const Scalar<T>& s) {
    if (s.empty()) remove_element(i, j);
    else set_element(i, j, *s.value());
  }
  // Applies pending changes now (GrB_Matrix_wait): reads from several threads at once are safe
  // again after it (they are before any change, and after this).
  void wait() const;
  // Changes not applied yet.
  Index pending_changes() const;
  // The CSR moved out into std::vectors (GxB_Matrix_unpack_CSR), this matrix left with its shape
  // and no entries: without a copy when this Matrix alone holds a host CSR that was built from
  // vectors (from_csr with moved-in vectors, from_coo, the file readers), else by one copy (a
  // copy of this Matrix keeps its entries either way).
  CsrVectors<T> unpack_csr();
  // The CSC moved out (GxB_Matrix_unpack_CSC): the CSR of A' (transpose(), computed first when not
  // cached), without a copy when that transpose is held by this matrix alone and lives in host
  // memory built from vectors (a matrix made by from_csc, say), else by one copy; this matrix left
  // with its shape and no entries.
  CscVectors<T> unpack_csc();
  // The hypersparse CSR moved out (GxB_Matrix_unpack_HyperCSR): col_idx and values as unpack_csr()
  // gives them, the list of rows holding an entry and their offsets built (a pass over the rows).
  HyperCsrVectors<T> unpack_hyper_csr();

  // The CSR in `where`'s memory (copied there once, then cached). On the GPU the calling
  // thread's stream is ordered after the copy (and after whatever built it on another thread).
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
  // Drop cached copies in `where` (e.g. free the GPU copy). Not while another thread uses the
  // matrix: references csr() returned before become invalid.
  void release(Backend where) const;

 private:
  template <class U>
  friend const std::int32_t* detail::device_row_offsets32(const Matrix<U>&);
  template <class U>
  friend std::shared_ptr<void> detail::device_engine_state(const Matrix<U>&, std::shared_ptr<void> (*)());
  template <class U>
  friend Offset detail::longest_row(const Matrix<U>&);
  explicit Matrix(std::shared_ptr<detail::MatrixStore<T>> s) : s_(std::move(s)) {}
  // Applies pending changes (every read calls it first).
  void settle() const;
  // Gives this Matrix a store of its own before a change (copy on write).
  void own_storage();
  // A pending change of A(i, j): a value, or nothing for a removal; `what` names the call.
  void change(Index i, Index j, std::optional<T> x, const char* what);
  // The store of every moved-from matrix: 0 x 0, shared (nothing changes a 0 x 0 matrix).
  static const std::shared_ptr<detail::MatrixStore<T>>& empty_store() noexcept;
  std::shared_ptr<detail::MatrixStore<T>> s_;
};

#define GBCUDA_EXTERN_MATRIX(T)                                                       \
  extern template class Matrix<T>;                                                    \
  extern template Csr<T> detail::transpose_csr(const Csr<T>&);                        \
  extern template const std::int32_t* detail::device_row_offsets32(const Matrix<T>&); \
  extern template std::shared_ptr<void> detail::device_engine_state(const Matrix<T>&, std::shared_ptr<void> (*)());
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_MATRIX)
#undef GBCUDA_EXTERN_MATRIX

}  // namespace gbcuda
