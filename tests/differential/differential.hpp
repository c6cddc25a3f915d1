#pragma once
// The differential test's harness: one random operation per case, run on gbcuda (on the backend
// under test) and on SuiteSparse:GraphBLAS from the same inputs, results compared. A case is a
// pure function of (seed, index), so any failure reruns alone from its one-line report.
//
// A case draws an operation of docs/api.md's table, a value type, the inputs in some form (how a
// vector or matrix was made: from tuples, element by element, by an operation, moved into, ...),
// a mask (none, empty, full, partial; value or structural, complemented, replace), an
// accumulator and aliasing (the output as the mask or as an input). Everything drawn is written
// into the case's text, which the report prints.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/ops_ref.hpp"

namespace diff {

using namespace ops_ref;
using gbcuda::Descriptor;
using gbcuda::Matrix;
using gbcuda::Vector;

// GBCUDA_DIFF_TRACE: 0 quiet, 1 each case's draws as they happen, 2 also the inputs' entries.
int trace_level();

// ---- one case ---------------------------------------------------------------------------------
class Case {
 public:
  Case(std::uint64_t seed, std::uint64_t index, Backend backend);

  Backend b;            // the backend under test: the output's, and most inputs'
  std::string text;     // what was drawn, appended as the case goes
  std::string failure;  // the first difference found; empty while the case passes

  void note(std::string_view what);  // appends " what" to the text
  int pick(int n);                   // uniform in [0, n)
  bool chance(double p);
  Index between(Index lo, Index hi);  // uniform in [lo, hi]
  // A length for a vector or a matrix side: mostly small, sometimes 0 or 1, now and then a few
  // thousand (the GPU's multi-block paths).
  Index length();
  void fail(const std::string& why) {
    if (failure.empty()) failure = why;
  }
  Rng& rng() { return rng_; }

 private:
  Rng rng_;
};

// The families; each draws and runs one case (products.cpp, vector_ops.cpp, matrix_ops.cpp).
void run_product(Case& c);        // mxv, vxm
void run_reduce_rows(Case& c);    // reduce a matrix to a vector
void run_assign(Case& c);         // assign of a scalar or a vector, with or without an index list
void run_extract(Case& c);        // extract of a subvector (an index list with repeats, or all)
void run_apply(Case& c);          // apply of a unary operator or a bound binary one
void run_select(Case& c);         // select on a vector
void run_ewise(Case& c);          // ewise_add, ewise_mult
void run_reduce_vector(Case& c);  // reduce a vector to a scalar
void run_elements(Case& c);       // set/remove/element, nvals, extract_tuples, clear, forms
void run_mxm(Case& c);            // mxm with a structural mask
void run_matrix_unary(Case& c);   // matrix select and apply
void run_matrix_scalar(Case& c);  // reduce a matrix to a scalar, extract_tuples of a matrix
void run_matrix_ewise(Case& c);   // ewise_add / ewise_mult / kronecker of matrices
void run_matrix_index(Case& c);   // transpose, extract and assign of matrices
void run_matrix_line(Case& c);    // extract_col, assign_row, assign_col: one row or column
void run_subassign(Case& c);      // GxB_subassign of vectors, matrices, rows and columns

// ---- types and operators ----------------------------------------------------------------------
template <class T>
const char* type_name() {
  return gbcuda::detail::value_type_name<T>();
}
// Calls f(T{}) for a type drawn from the eleven value types. Under the sanitizers
// (DIFF_SANITIZER_TYPES, tests/CMakeLists.txt) from six: the narrow and unsigned ones there are
// int8_t and uint64_t (signed promotion and wrapping of a narrow type, 64-bit unsigned), since
// compiling every case for all eleven at -O0 took most of that build's time (the other builds
// draw from all eleven).
template <class F>
void with_type(Case& c, F&& f) {
#if DIFF_SANITIZER_TYPES
  switch (c.pick(6)) {
    case 0: f(bool{}); break;
    case 1: f(std::int8_t{}); break;
    case 2: f(std::int32_t{}); break;
    case 3: f(std::uint64_t{}); break;
    case 4: f(float{}); break;
    default: f(double{}); break;
  }
#else
  switch (c.pick(11)) {
    case 0: f(bool{}); break;
    case 1: f(std::int8_t{}); break;
    case 2: f(std::int16_t{}); break;
    case 3: f(std::int32_t{}); break;
    case 4: f(std::int64_t{}); break;
    case 5: f(std::uint8_t{}); break;
    case 6: f(std::uint16_t{}); break;
    case 7: f(std::uint32_t{}); break;
    case 8: f(std::uint64_t{}); break;
    case 9: f(float{}); break;
    default: f(double{}); break;
  }
#endif
}
// X(S) with S GraphBLAS's suffix of T (BOOL, INT8, ..., FP64), in a chain of if constexpr.
#define DIFF_BY_GRB_TYPE(T, X)                             \
  if constexpr (std::is_same_v<T, bool>) {                 \
    X(BOOL)                                                \
  } else if constexpr (std::is_same_v<T, std::int8_t>) {   \
    X(INT8)                                                \
  } else if constexpr (std::is_same_v<T, std::int16_t>) {  \
    X(INT16)                                               \
  } else if constexpr (std::is_same_v<T, std::int32_t>) {  \
    X(INT32)                                               \
  } else if constexpr (std::is_same_v<T, std::int64_t>) {  \
    X(INT64)                                               \
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {  \
    X(UINT8)                                               \
  } else if constexpr (std::is_same_v<T, std::uint16_t>) { \
    X(UINT16)                                              \
  } else if constexpr (std::is_same_v<T, std::uint32_t>) { \
    X(UINT32)                                              \
  } else if constexpr (std::is_same_v<T, std::uint64_t>) { \
    X(UINT64)                                              \
  } else if constexpr (std::is_same_v<T, float>) {         \
    X(FP32)                                                \
  } else {                                                 \
    X(FP64)                                                \
  }

enum class Bin { Plus, Minus, Times, Min, Max, First, Second, Pair, Lor, Land };
const char* bin_name(Bin k);
enum class Mon { Plus, Times, Min, Max, Lor, Land, Any };
const char* mon_name(Mon k);

// Calls f(op) with gbcuda's built-in binary operator of kind k over T.
template <class T, class F>
void with_bin(Bin k, F&& f) {
  switch (k) {
    case Bin::Plus: f(gbcuda::Plus<T>{}); break;
    case Bin::Minus: f(gbcuda::Minus<T>{}); break;
    case Bin::Times: f(gbcuda::Times<T>{}); break;
    case Bin::Min: f(gbcuda::Min<T>{}); break;
    case Bin::Max: f(gbcuda::Max<T>{}); break;
    case Bin::First: f(gbcuda::First<T>{}); break;
    case Bin::Second: f(gbcuda::Second<T>{}); break;
    case Bin::Pair: f(gbcuda::Pair<T>{}); break;
    case Bin::Lor: f(gbcuda::Lor<T>{}); break;
    case Bin::Land: f(gbcuda::Land<T>{}); break;
  }
}
template <class T, class F>
void with_monoid(Mon k, F&& f) {
  switch (k) {
    case Mon::Plus: f(gbcuda::PlusMonoid<T>{}); break;
    case Mon::Times: f(gbcuda::TimesMonoid<T>{}); break;
    case Mon::Min: f(gbcuda::MinMonoid<T>{}); break;
    case Mon::Max: f(gbcuda::MaxMonoid<T>{}); break;
    case Mon::Lor: f(gbcuda::LorMonoid<T>{}); break;
    case Mon::Land: f(gbcuda::LandMonoid<T>{}); break;
    case Mon::Any: f(gbcuda::AnyMonoid<T>{}); break;
  }
}

// GraphBLAS's counterparts, by kind and type.
template <class T>
GrB_BinaryOp grb_bin(Bin k);
template <class T>
GrB_Monoid grb_monoid(Mon k);
// A semiring of a monoid and a binary operator (made once, kept for the process).
template <class T>
GrB_Semiring grb_semiring(Mon add, Bin mul);

// The accumulators a case may draw: none, or a binary operator. All: the seven of with_bin but
// PAIR, LOR, LAND. Few: MINUS (not commutative: swapped operands show), MIN, SECOND, for the
// families whose operators multiply the instantiations (products, apply, select, ewise); the
// accumulation is the same merge for every operation, which assign and reduce-rows cover with all
// seven. `safe_only`:
// results may reach the type's limits (integer MINV's 1/0), so only those that cannot overflow.
struct Accum {
  bool has = false;
  Bin op = Bin::Plus;
};
enum class Accums { All, Few };
Accum draw_accum(Case& c, Accums set, bool safe_only, bool no_minus);
// SuiteSparse:GraphBLAS 7.4.0 computes MINUS over bool (x != y) wrongly on vectors in sparse form
// (which ref_vector keeps them in), as an ewise operator and as an accumulator: bool cases never
// draw it.
template <class T>
Accum draw_accum(Case& c, Accums set, bool safe_only = false) {
  return draw_accum(c, set, safe_only, std::is_same_v<T, bool>);
}
template <class T>
Bin usable(Bin k) {
  return std::is_same_v<T, bool> && k == Bin::Minus ? Bin::Second : k;
}
template <class T, class F>
void with_accum(const Accum& a, F&& f) {
  if (!a.has) f(gbcuda::no_accum);
  else with_bin<T>(a.op, f);
}
template <class T, class F>
void with_few_accum(const Accum& a, F&& f) {
  if (!a.has) f(gbcuda::no_accum);
  else if (a.op == Bin::Minus) f(gbcuda::Minus<T>{});
  else if (a.op == Bin::Min) f(gbcuda::Min<T>{});
  else f(gbcuda::Second<T>{});
}
template <class T>
GrB_BinaryOp grb_accum(const Accum& a) {
  return a.has ? grb_bin<T>(a.op) : GrB_NULL;
}

// ---- inputs -----------------------------------------------------------------------------------
// A vector made for a case, and what it holds.
template <class T>
struct Input {
  Vector<T> v;
  Tuples<T> t;
};
// Values: `for_mask` draws zeros often (so value and structural masks differ).
template <class T>
T draw_value(Case& c, bool for_mask = false) {
  if (for_mask && c.pick(3) == 0) return T(0);
  T x = random_value<T>(c.rng());
  if (for_mask && x == T(0)) x = T(1);
  return x;
}
// A vector of length n in backend `where` made one of many ways (noted in the text as role=how).
// density < 0 draws one.
template <class T>
Input<T> make_vector(Case& c, const char* role, Index n, Backend where, double density = -1, bool for_mask = false);

// A matrix made one of many ways, and its entries as a Coo (duplicates already combined, values
// always given).
template <class T>
struct MatrixInput {
  Matrix<T> a;
  Coo<T> coo;
};
template <class T>
MatrixInput<T> make_matrix(Case& c, const char* role, Index nrows, Index ncols);
template <class T>
GMat grb_of(const Coo<T>& coo);  // GraphBLAS matrix of exactly these (unique) entries

// GraphBLAS's copy of a vector, in sparse form and never iso. SuiteSparse:GraphBLAS 7.4.0
// (Debian's) crashes in an assign with an accumulator, or an operation whose mask and accumulator
// reach the same code (GB_subassign_08n), when the mask or the assigned vector has every entry
// (bitmap or full form); in sparse form it does not. And it writes past the one value of an iso
// vector (every value equal, which its build detects) that is the output of an element-wise
// operation of full inputs: an entry changed and changed back makes it store every value.
template <class T>
void grb_not_iso(GrB_Vector v, const Tuples<T>& t) {
  bool iso = false;
  OPS_GRB(GxB_Vector_iso(&iso, v));
  if (!iso || t.idx.size() < 2) return;
  const T other = std::is_same_v<T, bool> ? T(!t.vals[0]) : T(t.vals[0] + T(1));
  OPS_GRB(Grb<T>::set_element(v, other, GrB_Index(t.idx[0])));
  OPS_GRB(Grb<T>::set_element(v, t.vals[0], GrB_Index(t.idx[0])));
  OPS_GRB(GrB_Vector_wait(v, GrB_MATERIALIZE));
}
template <class T>
GVec ref_vector(const Tuples<T>& t) {
  GVec g = grb_vector(t);
  OPS_GRB(GxB_Vector_Option_set(g.v, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  grb_not_iso(g.v, t);
  return g;
}

// ---- masks ------------------------------------------------------------------------------------
// Which vector is the mask: none, one of T or of another type (M), the output itself, or an input.
enum class MaskIs { None, Same, Other, Output, Input };
// A mask of another type than w's is double (bool for a double w) for bool, int32_t, int64_t, float
// and double; the narrow and unsigned types use their own type there. A mask's type matters only
// where it is read into a bitmap (prepare_mask), which those five cover, and a third mask type
// for every case of the six would add a third to the instantiations they cost (compile time).
template <class T>
using OtherMaskType =
    std::conditional_t<std::is_same_v<T, double>, bool,
                       std::conditional_t<std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> ||
                                              std::is_same_v<T, std::int64_t> || std::is_same_v<T, float>,
                                          double, T>>;

// The descriptor of a GraphBLAS product (mxv, vxm, mxm): replace, structural, complement,
// transposes, and the dot-product method. SuiteSparse:GraphBLAS 7.4.0's saxpy3 method loops forever
// on some masked products (an ANY_PAIR mxv with a transposed iso matrix; an mxm with an inner
// dimension of 0; the reduce of a matrix's columns, which is a product inside), its dot-product
// method does not, and the method changes no result.
GrB_Descriptor grb_product_desc(bool replace, bool structural, bool complement, bool t0, bool t1);

template <class T>
struct Mask {
  MaskIs is = MaskIs::None;
  bool replace = false, complement = false, structural = false;
  std::optional<Input<T>> same;
  std::optional<Input<OtherMaskType<T>>> other;
  GVec g;  // GraphBLAS's copy of same/other
  void set(Descriptor& d) const {
    d.replace = replace;
    d.mask_complement = complement;
    d.mask_structural = structural;
  }
  GrB_Descriptor grb(bool t0 = false, bool t1 = false) const {
    return grb_desc(replace, structural, complement, t0, t1);
  }
  GrB_Descriptor grb_product(bool t0, bool t1) const {
    return grb_product_desc(replace, structural, complement, t0, t1);
  }
};
// Draws a mask for an output of length n. `input_ok`: an input of w's type and length exists that
// may serve as the mask (MaskIs::Input).
template <class T>
Mask<T> draw_mask(Case& c, Index n, bool input_ok);
// Calls f(mask) with the gbcuda mask argument.
template <class T, class F>
void with_mask(Mask<T>& m, Vector<T>& w, std::type_identity_t<const Vector<T>*> input, F&& f) {
  switch (m.is) {
    case MaskIs::None: f(gbcuda::no_mask); break;
    case MaskIs::Same: f(m.same->v); break;
    case MaskIs::Other: f(m.other->v); break;
    case MaskIs::Output: f(w); break;
    case MaskIs::Input: f(*input); break;
  }
}
// The GraphBLAS mask argument (sparse, as ref_vector says why).
template <class T>
GrB_Vector grb_mask(const Mask<T>& m, GrB_Vector w, GrB_Vector input) {
  GrB_Vector g = GrB_NULL;
  switch (m.is) {
    case MaskIs::None: return GrB_NULL;
    case MaskIs::Same:
    case MaskIs::Other: g = m.g.v; break;
    case MaskIs::Output: g = w; break;
    case MaskIs::Input: g = input; break;
  }
  OPS_GRB(GxB_Vector_Option_set(g, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  return g;
}

// ---- comparison -------------------------------------------------------------------------------
// Values compare exactly for integers and bool; floating point within a relative 1e-5 (float) or
// 1e-12 (double), as sums may be combined in another order; NaN equals NaN.
template <class T>
bool same_value(T got, T want);
// Compares w's entries with GraphBLAS's and checks w's own consistency (size, nvals, backend,
// dense view); records the first difference in c.
template <class T>
void compare_vector(Case& c, const Vector<T>& w, GrB_Vector want, Backend expected_backend);
template <class T>
void compare_matrix(Case& c, const Matrix<T>& got, GrB_Matrix want);
template <class T>
void compare_scalar(Case& c, T got, T want);

// GraphBLAS calls that must succeed (a failure there is the test's fault: reported as such).
void grb_ok(Case& c, GrB_Info info, const char* what);

}  // namespace diff
