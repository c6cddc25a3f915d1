#pragma once
// Declarations of the CUDA backend's primitives (see backend_ops.hpp for their contract).
// Definitions: lib/cuda/*.cu and lib/cuda/product/, explicitly instantiated for the combinations
// that cuda_supports_*() accept. Only called when GBCUDA_HAVE_CUDA. Every primitive enqueues its
// work on the calling thread's stream and returns without waiting for the device.
#include <memory>
#include <span>

#include "gbcuda/detail/backend_ops.hpp"
#include "gbcuda/detail/column_places.hpp"
#include "gbcuda/detail/multi_source_level.hpp"
#include "gbcuda/detail/product_policy.hpp"

namespace gbcuda {
struct BfsResult;
}

namespace gbcuda::detail::cuda {

// ---- binary operators (accumulators and ewise) ---------------------------------------------
#define GBCUDA_BINARY_OP_ENUMERATOR(NAME, ...) NAME,
enum class BinCode : int { None, GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_BINARY_OP_ENUMERATOR) };

template <class Op, class T>
constexpr BinCode bin_code() {
  static_assert(std::is_same_v<Op, NoAccum> || cuda_supports_binary_op<Op, T>(),
                "operator not instantiated by the CUDA backend");
#define GBCUDA_BIN_CODE_OF(NAME, ...)                              \
  if constexpr (std::is_same_v<Op, NAME<T>>) return BinCode::NAME; \
  else
  GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_BIN_CODE_OF) return BinCode::None;
#undef GBCUDA_BIN_CODE_OF
}

// ---- unary operators (apply) ----------------------------------------------------------------
enum class UnCode : int { Identity, AdditiveInverse, Abs, One, LogicalNot, MultiplicativeInverse };

template <class Op, class T>
constexpr UnCode un_code() {
  if constexpr (std::is_same_v<Op, Identity<T>>) return UnCode::Identity;
  else if constexpr (std::is_same_v<Op, AdditiveInverse<T>>) return UnCode::AdditiveInverse;
  else if constexpr (std::is_same_v<Op, Abs<T>>) return UnCode::Abs;
  else if constexpr (std::is_same_v<Op, One<T>>) return UnCode::One;
  else if constexpr (std::is_same_v<Op, LogicalNot<T>>) return UnCode::LogicalNot;
  else {
    static_assert(std::is_same_v<Op, MultiplicativeInverse<T>>, "operator not instantiated by the CUDA backend");
    return UnCode::MultiplicativeInverse;
  }
}

// ---- element operators (apply, select): one run-time code per value type ------------------
enum class ElementKind : std::int8_t { Unary, BindFirst, BindSecond, Select };
template <class T>
struct ElementOp {
  ElementKind kind = ElementKind::Unary;
  UnCode unary = UnCode::Identity;       // Unary
  BinCode binary = BinCode::None;        // BindFirst / BindSecond: the operator ...
  T scalar{};                            // ... and its bound operand
  SelectKind select = SelectKind::Tril;  // Select: keep x at i when select_holds(select, x, i, 0, thunk)
  SelectThunk<T> thunk;
};
// The code of an operator cuda_supports_unary_op accepts.
template <class Op, class T>
ElementOp<T> element_op(const Op& op) {
  ElementOp<T> e;
  if constexpr (is_bind_v<Op>) {
    e.kind = Op::scalar_first ? ElementKind::BindFirst : ElementKind::BindSecond;
    e.binary = bin_code<typename Op::op_type, T>();
    e.scalar = T(op.scalar);
  } else {
    (void)op;
    e.unary = un_code<Op, T>();
  }
  return e;
}
template <class T>
ElementOp<T> select_op(SelectKind kind, const SelectThunk<T>& thunk) {
  ElementOp<T> e;
  e.kind = ElementKind::Select;
  e.select = kind;
  e.thunk = thunk;
  return e;
}

// The value product (value_product.cu): w = A*u over any semiring cuda_supports_semiring
// accepts, operands of any value type read as the semiring's type Z. The semiring travels as
// run-time codes, so each kernel is compiled once per Z.
enum class MulCode : std::int8_t { GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_BINARY_OP_ENUMERATOR) SecondI };
template <class Op, class Z>
constexpr MulCode mul_code() {
#define GBCUDA_MUL_CODE_OF(NAME, ...)                              \
  if constexpr (std::is_same_v<Op, NAME<Z>>) return MulCode::NAME; \
  else
  GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_MUL_CODE_OF) {
    static_assert(std::is_same_v<Op, SecondI<Z>>, "multiply operator not offered by the CUDA value product");
    return MulCode::SecondI;
  }
#undef GBCUDA_MUL_CODE_OF
}
struct SemiringCode {
  MonoidKind add = MonoidKind::Plus;
  MulCode mul = MulCode::Times;
  bool reads_x = true;  // the multiply reads its first operand's value
  bool reads_y = true;  // ... its second's
};
template <class S>
constexpr SemiringCode semiring_code() {
  using Z = typename S::value_type;
  return {S::add_type::kind, mul_code<typename S::mul_type, Z>(), S::mul_type::uses_x, S::mul_type::uses_y};
}
// pull: t(i) = ADD_k MUL(...) over the stored (i,k) of `rows` where u(k) is present and the mask
// allows i; u Bitmap or Dense. Rows are shared out by length: a tile of threads per ordinary
// row (1, 8 or 32 by the average length), long rows split into chunks over whole blocks (that
// pass skipped when rows.longest_row says no row is long). t: Bitmap, count in device memory.
template <class Z>
void value_pull(VectorStore<Z>& t, const MaskView& m, const SemiringCode& s, const TypedCsr& rows, const TypedVec& u,
                bool u_first);
// push: the same product from u's entries: for each entry k of u (Sparse), each stored (k, j)
// of `cols` adds its term into t(j), the edges spread evenly over the threads. t: Bitmap.
template <class Z>
void value_push(VectorStore<Z>& t, const MaskView& m, const SemiringCode& s, const TypedCsr& cols, const TypedVec& u,
                bool u_first);
// The same product for a Bitmap u whose count is in device memory, the direction chosen on the
// device: u's entries are listed and their out-edges (in `cols`) summed there, the policy `p`
// weighs them against `unexplored_edges` (choose_product_kernel), and the pull over `rows` and the
// push over `cols` are both enqueued, each running only if chosen. No host wait. t: Bitmap.
template <class Z>
void value_product_on_device(VectorStore<Z>& t, const MaskView& m, const SemiringCode& s, const TypedCsr& rows,
                             const TypedCsr& cols, const TypedVec& u, bool u_first, const ProductPolicy& p,
                             Index unexplored_edges);
// The most entries of a row of a CSR on the device (reads the answer back).
Offset longest_row(const Offset* row_ptr, Index nrows);
// Masked mxm by dot products (value_product.cu): for each stored (i,j) of `mask`, the semiring's
// sum over k of A(i,k) * Bt(j,k) (Bt: the rows of B'); the result keeps the entries with a term.
template <class Z>
Csr<Z> mxm_dot(const CsrView<bool>& mask, const SemiringCode& s, const TypedCsr& a, const TypedCsr& bt);
// cuSPARSE as a backend of the products it computes (cusparse.cu): PlusTimes over float or
// double, every operand of that type with its values stored, fewer than 2^31 entries (its 32-bit
// indices; row_ptr32 are a matrix's row offsets in 32 bits, detail::device_row_offsets32).
// t = rows * u (cusparseSpMV), u of rows.ncols values all present: t(i) present where row i has
// an entry (GraphBLAS's rule for a full input). t: Dense when every row has an entry, else
// Bitmap; its count on the host. `engine`: the matrix's state from make_spmv_engine()
// (device_engine_state), which keeps each stream's descriptor and preprocessed work space and
// the rows holding an entry (found by the first call, which waits once for the GPU).
template <class Z>
void library_spmv(VectorStore<Z>& t, const CsrView<Z>& rows, const std::int32_t* row_ptr32, const Z* u, void* engine);
std::shared_ptr<void> make_spmv_engine();
// C = A * B (cusparseSpGEMM), columns sorted within each row; Error(OutOfMemory) when cuSPARSE's
// work space does not fit, Error(InvalidValue) when C would have 2^31 entries or more.
// How many products cuSPARSE has computed in this process (tests check the policy's choice).
std::uint64_t library_calls() noexcept;
template <class Z>
Csr<Z> library_spgemm(const CsrView<Z>& a, const std::int32_t* a_row_ptr32, const CsrView<Z>& b,
                      const std::int32_t* b_row_ptr32);
// Connected components (components.cu, the steps of gbcuda/components.hpp): parent[v] ends as the
// smallest vertex id of v's component. `symmetric`: a's structure is, and Afforest's sampling
// skips the giant component's own edges.
void connected_components(const CsrView<bool>& a, bool symmetric, Vid* parent);
// The entries of `a` where select_holds(kind, value, i, j, thunk) (matrix_ops.cu).
template <class T>
Csr<T> select_csr(const Csr<T>& a, SelectKind kind, const SelectThunk<T>& thunk);
// A's entries inside nrows x ncols, as an nrows x ncols CSR (GrB_Matrix_resize; matrix_ops.cu).
// Reads one count back.
template <class T>
Csr<T> resize_csr(const Csr<T>& a, Index nrows, Index ncols);
// diag(v, k) of a vector in bitmap form (n_v values and flags, device memory): row r holds
// v(r - max(-k, 0)) at column r + k, n_v + |k| rows and columns (GrB_Matrix_diag; matrix_ops.cu).
// Reads one count back.
template <class T>
Csr<T> diag_csr(const T* values, const std::uint8_t* bitmap, Index n_v, Index k);
// The values of an index-unary apply with a positional operator (matrix_ops.cu): entry p, at
// (i, j) of the device CSR (n rows, nnz entries), becomes cast_to<TC>(i + y), (j + y) or
// (j - (i + y)) for Row, Col, Diag (GrB_ROWINDEX, GrB_COLINDEX, GrB_DIAGINDEX). A null row_ptr:
// a vector's nnz slots, slot p at index col_idx[p] (col_idx null: p), in column 0.
enum class PositionalKind : std::int8_t { Row, Col, Diag };
template <class TC>
Array<TC> positional_values(const Offset* row_ptr, const Vid* col_idx, Index n, Offset nnz, PositionalKind kind,
                            std::int64_t y);
// C = kron(A, B) of device CSRs with op(a, b) for each entry pair (matrix_kronecker.cu); C's
// values stored. Reads one count back.
template <class T>
Csr<T> kronecker_csr(const Csr<T>& a, const Csr<T>& b, BinCode op);
// out[p] = cast_to<To>(in.get(p)) for p < count.
template <class To>
void cast_values(To* out, const TypedValues& in, Index count);

// The boolean masked product (lib/cuda/product/product.cu): the CUDA backend of vxm/mxv over
// LorLand, AnyPair and AnySecondI. What the call provides besides t, the mask and u:
struct BoolProductCall {
  CsrView<bool> push;                     // the rows a push walks (indexed by u's positions); row_ptr null: no push
  CsrView<bool> pull;                     // the rows a pull searches (indexed by t's positions); row_ptr null: no pull
  const void* trace_key = nullptr;        // names the push rows in traces (VectorStore::trace_of)
  const DeviceTally* u_tally = nullptr;   // u's trace when it is valid for these push rows
  Direction direction = Direction::Auto;  // the descriptor's choices (policy_for_call)
  ProductKernel kernel = ProductKernel::Auto;
  double alpha = 0.0, beta = 0.0;
  bool mask_counted = false;              // the mask's entry count is known (below): the cost
  Index mask_count = 0;                   // model estimates the unexplored edges from it when
  const Index* mask_count_dev = nullptr;  // u carries no trace
};
// t = the product over the structure (values only for LorLand, whose matrix must be a pattern of
// true values): Sparse, jumbled, count and trace in device memory. u: a bool view (value-free
// except for LorLand).
template <class S>
void bool_product(VectorStore<typename S::value_type>& t, const MaskView& m, const VecView<bool>& u,
                  const BoolProductCall& call);

// The whole BFS in one persistent cooperative kernel (lib/cuda/product/fused_bfs.cu): the same
// kernel bodies and policy as bool_product, every level's kernel chosen on the device. `out`: the
// graph's rows; `in`: its transpose's (row_ptr null: the search never pulls). Fills r's levels
// (and parents when `parents`; per-level records when `stats`). `barrier_free_tail`: the search
// may finish without level barriers (docs/design/fused-bfs.md). Needs fused_bfs_available().
bool fused_bfs_available();
// The product policy measured on this device (lib/cuda/product/calibrate.cu, docs/design/calibration.md).
ProductPolicy calibrated_product_policy();
std::string calibrated_policy_source();
void fused_bfs(const CsrView<bool>& out, const CsrView<bool>& in, Index source, const ProductPolicy& policy,
               bool parents, bool stats, bool barrier_free_tail, BfsResult& r);

// One level of a multi-source BFS pass on the GPU (lib/cuda/multi_source.cu): push over `out`
// (next = the frontier's out-edges' searches not yet seen; next must be zero on entry) or pull
// over `in` (each vertex not seen by every search ORs its in-neighbours' frontier words); then
// seen |= next, the levels written, and counts[kMultiSourceCounts] (host memory) filled.
void multi_source_level(const CsrView<bool>& out, const CsrView<bool>& in, const MultiSourceLevel& s, bool push,
                        std::uint64_t* counts);
// A pass's start: bit i of frontier and seen at src[i] (host memory, k <= 64), level 0 there;
// frontier and seen zero and the levels -1 before.
void multi_source_start(const MultiSourceLevel& s, const Index* src, int k);

template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace);
// w(i) = accum(w(i), t(i)) (or t(i)) at t's entries (t Sparse, not w's own arrays): one kernel,
// w elsewhere unchanged.
template <class T, class Accum>
void merge_entries(VectorStore<T>& w, const VecView<T>& t, const Accum& accum);
template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& accum, T s, bool replace);
// t(i) = op(u(i)) where u(i) is present, the mask allows i and (select) the predicate holds.
template <class T>
void apply(VectorStore<T>& t, const MaskView& m, const ElementOp<T>& op, const VecView<T>& u);
// w<m> = accum(w, op(u)) in one kernel, op(u) never stored (apply_merge_fits: u and w Bitmap or
// Dense, the mask not list-only); u may be w itself.
template <class T, class Accum>
void apply_merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, const ElementOp<T>& op, const VecView<T>& u,
                 bool replace);
template <class T>
bool apply_merge_fits(const VectorStore<T>& w, const MaskView& m, const VecView<T>& u) {
  return w.form != VectorForm::Sparse && u.form != VectorForm::Sparse && !m.list_only() && w.n == u.n;
}
// GrB_assign with an index list, the part after w is copied into t: for each k < count,
// t(idx[k]) = accum(t(idx[k]), u(k)) where u(k) is present; with no accumulator an absent u(k)
// deletes t(idx[k]). t becomes Bitmap; idx (device memory) has no duplicates, each < t.n.
template <class T>
void assign_indexed(VectorStore<T>& t, const Index* idx, Index count, const VecView<T>& u, BinCode accum);
// GrB_Vector_extract: t (Bitmap, length count, its count in device memory) holds u(idx[k]) at k
// where the mask allows k and u has that entry; idx (device memory) may repeat, each < u.n. A null
// idx is the identity, positions at u.n and past absent (a resize).
template <class T>
void extract_indexed(VectorStore<T>& t, const MaskView& m, const Index* idx, Index count, const VecView<T>& u);
template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union);
template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u);
// w(0) = accum(w(0), the sum of u's entries under the monoid `kind`) in one kernel, w a Bitmap
// vector of size 1 (its count left in device memory); an empty u clears w, or leaves it under
// accum. u may be w itself.
template <class T>
void reduce_into(VectorStore<T>& w, BinCode accum, MonoidKind kind, T identity, const VecView<T>& u);
template <class M>
void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural);

// Vector storage on the device (vector_forms.cu): form conversion, index sorting (reads the
// count: only host reads call it), a copy of the entries only, single elements.
template <class T>
void convert_form(VectorStore<T>& v, VectorForm to);
template <class T>
void sort_indices(VectorStore<T>& v);
template <class T>
VectorStore<T> clone_store(const VectorStore<T>& v);
// v's contents copied into c's own arrays when they have the same form and lengths (no
// allocation, c's arrays stay where they are); false, and c unchanged, when they do not.
template <class T>
bool copy_store_into(VectorStore<T>& c, const VectorStore<T>& v);
template <class T>
void set_element(VectorStore<T>& v, Index i, T value);
template <class T>
void remove_element(VectorStore<T>& v, Index i);
// out[0, v.n) = v's values, `missing` where v has no entry, out in host memory; waits for the copy.
template <class T>
void to_dense_host(const VectorStore<T>& v, T missing, T* out);

// True when two device buffers hold the same bytes (size a multiple of 4).
bool device_bytes_equal(const void* a, const void* b, std::size_t bytes);

// The merge of two CSRs of one shape with sorted rows (matrix_merge.cu), spread over their entries:
// Union (element-wise add: op(a, b) where both hold an entry, else the one value), Intersection
// (element-wise multiply: op(a, b) where both do), or Write, GraphBLAS's C<M, accum, replace> = T
// with a = C and b = T: where the mask allows, accum(c, t) over the union (T alone without an
// accumulator); elsewhere C's entry, or none with replace. The result's values are stored (never
// iso). Reads two counts back (the sizes to allocate).
enum class MergeKind : std::int8_t { Union, Intersection, Write };
struct MergeRule {
  MergeKind kind = MergeKind::Union;
  BinCode op = BinCode::None;        // Union, Intersection: the operator; Write: the accumulator or None
  const Offset* mask_ptr = nullptr;  // Write: the pattern of the mask's allowing entries (device), or
  const Vid* mask_idx = nullptr;     // null for no mask
  bool mask_complement = false;      // Write: allow where the mask has no entry (no mask: allow nothing)
  bool replace = false;              // Write: C's entries the mask does not allow are dropped
  // Write, instead of a mask: the region of an assign, rows x columns (a flag per row and per
  // column, device memory), allowing (i, j) where both flags are set.
  const std::uint8_t* region_rows = nullptr;
  const std::uint8_t* region_cols = nullptr;
};
template <class T>
Csr<T> merge_csr(const Csr<T>& a, const Csr<T>& b, const MergeRule& r);

// C = A(I, J) of a device CSR (matrix_extract.cu; GrB_Matrix_extract): C(r, s) = A(I[r], J[s])
// where that entry exists, I in host memory and J given by its column_places, checked by the
// caller (A's indices, repeats and any order allowed). An iso A gives an iso C. Reads two counts
// back.
template <class T>
Csr<T> extract_csr(const Csr<T>& a, std::span<const Index> I, const ColumnPlaces& J);
// The inverse (matrix_extract.cu), the source of an assign at C's coordinates: the nrows x ncols
// S with S(I[r], J[s]) = A(r, s), A being |I| x |J| and I, J distinct indices of S (host memory,
// checked by the caller); place_value: x at every (I[r], J[s]). Rows sorted; iso stays iso.
template <class T>
Csr<T> place_csr(const Csr<T>& a, Index nrows, Index ncols, std::span<const Index> I, std::span<const Index> J);
template <class T>
Csr<T> place_value(T x, Index nrows, Index ncols, std::span<const Index> I, std::span<const Index> J);

// CSR transpose on the device (CUB radix sort by column; stable, so rows stay sorted).
template <class T>
Csr<T> transpose_csr(const Csr<T>& a);

// P A P' of a square device CSR with sorted rows (relabel.cu): row k is A's row original[k],
// column j renamed new_id[j], rows sorted. Both maps are permutations of 0..n-1 in device memory.
template <class T>
Csr<T> relabel_csr(const Csr<T>& a, const Index* original, const Index* new_id);
// The degree ordering of a graph of n vertices (reorder.hpp's Ordering::Degree) from its row
// offsets and, unless it is symmetric (in_ptr null), its transpose's: original[k] = the vertex
// relabelled k, new_id its inverse, both n entries of device memory.
void degree_order(const Offset* row_ptr, const Offset* in_ptr, Index n, Index* original, Index* new_id);

}  // namespace gbcuda::detail::cuda
