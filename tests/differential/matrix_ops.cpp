// Differential cases on matrices: mxm with a structural mask (A*B or A*B'), select and apply into
// a matrix, element-wise add and multiply and the Kronecker product of matrices (masks,
// accumulators, transposes), transpose, extract and assign of matrices (index lists, masks,
// accumulators), reduce of a matrix to a scalar, and extract_tuples of matrices made every way.
#include <algorithm>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "differential/differential.hpp"
#include "differential/operators.hpp"
#include "differential/semirings.hpp"

namespace diff {
namespace {

// A side of an mxm: the products cost a dot product per mask entry, so sides stay moderate.
Index mxm_side(Case& c) { return std::min<Index>(c.length(), 400); }

template <class T, class TM>
void mxm_with(Case& c, Sr k, bool tb, bool alias_c) {
  const Index m = mxm_side(c), inner = alias_c ? m : mxm_side(c), n = alias_c ? m : mxm_side(c);
  MatrixInput<T> A = make_matrix<T>(c, "A", m, inner);
  MatrixInput<T> B = tb ? make_matrix<T>(c, "B'", n, inner) : make_matrix<T>(c, "B", inner, n);
  MatrixInput<TM> M = make_matrix<TM>(c, "M", m, n);
  Descriptor d = tb ? gbcuda::desc::ST1 : gbcuda::desc::S;
  d.replace = true;  // as GraphBLAS's below: an output aliased to A loses A's entries outside M

  GMat gA = grb_of(A.coo), gB = grb_of(B.coo), gM = grb_of(M.coo);
  GMat gC;
  OPS_GRB(GrB_Matrix_new(&gC.m, Grb<T>::type(), GrB_Index(m), GrB_Index(n)));
  // The output aliased to A: GraphBLAS's C is A's copy, written in place, as gbcuda's; else an
  // empty output (gbcuda's 0 x 0 is an empty one of the product's shape).
  GrB_Matrix out = alias_c ? gA.m : gC.m;
  // With an inner dimension of 0 there are no terms: C is empty. (SuiteSparse:GraphBLAS 7.4.0
  // loops forever on such a product, so it is not asked.)
  if (inner == 0) OPS_GRB(GrB_Matrix_clear(out));
  else
    grb_ok(c, GrB_mxm(out, gM.m, GrB_NULL, grb_sr<T>(k), gA.m, gB.m, grb_product_desc(true, true, false, false, tb)),
           "mxm");

  Matrix<T> C;
  Matrix<T>& target = alias_c ? A.a : C;
  with_semiring<T>(k, [&](const auto& s) { gbcuda::mxm(target, M.a, gbcuda::no_accum, s, A.a, B.a, d, c.b); });
  compare_matrix(c, target, out);
}

template <class T>
void mxm_case(Case& c) {
  std::vector<Sr> options = semirings_for<T>();
  const Sr k = options[std::size_t(c.pick(int(options.size())))];
  const bool tb = c.chance(0.5), alias_c = c.chance(0.1), mask_bool = c.chance(0.3);
  c.note(std::string("mxm<") + type_name<T>() + "> " + sr_name(k) + (tb ? " transpose_b" : "") +
         (alias_c ? " C=A" : "") + (mask_bool ? " M-bool" : ""));
  if (mask_bool) mxm_with<T, bool>(c, k, tb, alias_c);
  else mxm_with<T, T>(c, k, tb, alias_c);
}

// select or apply into a matrix.
template <class T>
void matrix_unary_case(Case& c) {
  const Index nrows = c.length(), ncols = c.length();
  const int kind = c.pick(3);  // 0: select, 1: apply a unary operator, 2: apply a bound binary one
  const bool alias_c = c.chance(0.1);
  Pred p = Pred::Tril;
  Un un = Un::Identity;
  Bin bin = Bin::Plus;
  bool first = false;
  const T s = draw_value<T>(c);
  ThunkOf<T> thunk = 0;
  std::ostringstream o;
  if (kind == 0) {
    p = Pred(c.pick(10));
    thunk = positional(p) ? ThunkOf<T>(c.between(-nrows - 1, ncols + 1)) : ThunkOf<T>(draw_value<T>(c));
    o << "select-matrix<" << type_name<T>() << "> " << pred_name(p) << " thunk=" << value_string(thunk);
  } else if (kind == 1) {
    un = Un(c.pick(std::is_same_v<T, double> ? 7 : 6));
    o << "apply-matrix<" << type_name<T>() << "> " << un_name(un);
  } else {
    static const Bin bins[] = {Bin::Plus, Bin::Minus, Bin::Times, Bin::Min, Bin::Max, Bin::First, Bin::Second};
    bin = bins[c.pick(7)];
    first = c.chance(0.5);
    o << "apply-matrix<" << type_name<T>() << "> " << (first ? "bind-first " : "bind-second ") << bin_name(bin)
      << " s=" << value_string(s);
  }
  if (alias_c) o << " C=A";
  c.note(o.str());
  MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);

  GMat gA = grb_of(A.coo), gC;
  OPS_GRB(GrB_Matrix_new(&gC.m, Grb<T>::type(), GrB_Index(nrows), GrB_Index(ncols)));
  GrB_Matrix out = alias_c ? gA.m : gC.m;
  if (kind == 0) {
    if (positional(p)) {
      grb_ok(c, GrB_Matrix_select_INT64(out, GrB_NULL, GrB_NULL, grb_pred<T>(p), gA.m, Index(thunk), GrB_NULL),
             "select");
    } else {
      grb_ok(c, Grb<T>::mselect(out, grb_pred<T>(p), gA.m, T(thunk)), "select");
    }
  } else if (kind == 1) {
    grb_ok(c, GrB_Matrix_apply(out, GrB_NULL, GrB_NULL, grb_un<T>(un), gA.m, GrB_NULL), "apply");
  } else {
    grb_ok(c,
           first ? Grb<T>::mapply_first(out, grb_bin<T>(bin), s, gA.m)
                 : Grb<T>::mapply_second(out, grb_bin<T>(bin), gA.m, s),
           "apply");
  }

  Matrix<T> C = Matrix<T>::from_coo(1, 1, std::vector<Index>{0}, std::vector<Index>{0});
  Matrix<T>& target = alias_c ? A.a : C;
  if (kind == 0) {
    with_pred(
        p, [&](const auto& pred) { gbcuda::select(target, gbcuda::no_mask, gbcuda::no_accum, pred, A.a, thunk, c.b); });
  } else if (kind == 1) {
    with_unary<T>(un, [&](const auto& op) { gbcuda::apply(target, gbcuda::no_mask, gbcuda::no_accum, op, A.a, c.b); });
  } else {
    with_bin<T>(bin, [&](auto op) {
      if (first) gbcuda::apply(target, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_first(op, s), A.a, c.b);
      else gbcuda::apply(target, gbcuda::no_mask, gbcuda::no_accum, gbcuda::bind_second(op, s), A.a, c.b);
    });
  }
  compare_matrix(c, target, out);
}

// reduce to a scalar, or the matrix's own entries (extract_tuples, nvals) as made.
template <class T>
void matrix_scalar_case(Case& c) {
  const Index nrows = c.length(), ncols = c.length();
  const bool reduce = c.chance(0.6);
  if (!reduce) {
    c.note(std::string("extract-tuples-matrix<") + type_name<T>() + ">");
    MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);
    GMat gA = grb_of(A.coo);
    compare_matrix(c, A.a, gA.m);
    return;
  }
  std::vector<Mon> options = {Mon::Plus, Mon::Min, Mon::Max, Mon::Any};
  if constexpr (std::is_same_v<T, bool>) options.insert(options.end(), {Mon::Times, Mon::Lor, Mon::Land});
  const Mon k = options[std::size_t(c.pick(int(options.size())))];
  c.note(std::string("reduce-matrix<") + type_name<T>() + "> " + mon_name(k));
  MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);
  T got{};
  with_monoid<T>(k, [&](const auto& mon) { got = gbcuda::reduce(mon, A.a, c.b); });
  if (k == Mon::Any) {  // any entry will do; the identity (0) when there is none
    const auto& x = A.coo.vals;
    if (x.empty() ? got != T(0) : std::find(x.begin(), x.end(), got) == x.end())
      c.fail("ANY gave " + value_string(got) + ", not an entry");
    return;
  }
  GMat gA = grb_of(A.coo);
  T want{};
  grb_ok(c, Grb<T>::mreduce(&want, grb_monoid<T>(k), gA.m), "reduce");
  compare_scalar(c, got, want);
}

// The mask of a case writing a matrix C: none, of C's type or bool, value or structural,
// complemented or not, replace or not. draw() draws the kind and flags, make() the mask of C's
// shape (after the case's inputs, as the cases draw them).
template <class T>
struct MatrixMask {
  int kind = 0;  // 0: none, 1: of T, 2: bool
  bool replace = false, complement = false, structural = false;
  std::optional<MatrixInput<T>> same;
  std::optional<MatrixInput<bool>> other;

  void draw(Case& c) {
    kind = c.pick(3);
    replace = c.chance(0.3);
    complement = c.chance(0.3);
    structural = c.chance(0.5);
  }
  std::string text() const {
    return std::string(kind == 0   ? ""
                       : kind == 1 ? " M"
                                   : " M-bool") +
           (replace ? " replace" : "") + (complement ? " complement" : "") + (structural ? " structural" : "");
  }
  void make(Case& c, Index rows, Index cols) {
    if (kind == 1) same = make_matrix<T>(c, "M", rows, cols);
    if (kind == 2) other = make_matrix<bool>(c, "M", rows, cols);
  }
  Descriptor descriptor() const {
    Descriptor d;
    d.replace = replace;
    d.mask_complement = complement && kind != 0;
    d.mask_structural = structural;
    return d;
  }
  GrB_Descriptor grb(bool ta, bool tb) const { return grb_desc(replace, structural, complement && kind != 0, ta, tb); }
  GMat grb_matrix() const { return same ? grb_of(same->coo) : other ? grb_of(other->coo) : GMat{}; }
  template <class F>
  void with(F&& f) const {  // f(gbcuda's mask argument)
    if (same) f(same->a);
    else if (other) f(other->a);
    else f(gbcuda::no_mask);
  }
};

// ewise_add, ewise_mult or the Kronecker product of two matrices into C: a binary operator, an
// accumulator or none, a matrix mask of C's type or bool (value or structural, complemented or
// not, replace or not), and either input transposed (square shapes then, but for kronecker).
template <class T>
void matrix_ewise_case(Case& c) {
  const int kind = c.pick(5);  // 0, 1: ewise_add; 2, 3: ewise_mult; 4: kronecker
  const bool add = kind < 2, kron = kind == 4;
  const Bin op = usable<T>(Bin(c.pick(10)));
  const bool ta = c.chance(0.3), tb = c.chance(0.3);
  // Five matrices a case (C, A, B, a mask, GraphBLAS's copies): sides stay moderate, as mxm's.
  // A Kronecker product's sides multiply: its inputs stay at most 8 x 8.
  const Index nrows = kron ? std::min<Index>(c.length(), 8) : mxm_side(c);
  const Index ncols = kron ? std::min<Index>(c.length(), 8) : ta || tb ? nrows : mxm_side(c);
  const Index brows = kron ? std::min<Index>(c.length(), 8) : nrows,
              bcols = kron ? std::min<Index>(c.length(), 8) : ncols;
  // C's shape: the inputs' (kron: the product of A's and B's, after their transposes).
  const Index crows = kron ? (ta ? ncols : nrows) * (tb ? bcols : brows) : nrows;
  const Index ccols = kron ? (ta ? nrows : ncols) * (tb ? brows : bcols) : ncols;
  MatrixMask<T> mask;
  mask.draw(c);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  std::ostringstream o;
  o << (kron  ? "kronecker<"
        : add ? "ewise_add-matrix<"
              : "ewise_mult-matrix<")
    << type_name<T>() << "> " << bin_name(op) << (ta ? " A'" : "") << (tb ? " B'" : "") << mask.text()
    << (acc.has ? " accum " + std::string(bin_name(acc.op)) : "");
  c.note(o.str());
  MatrixInput<T> C = make_matrix<T>(c, "C", crows, ccols);
  MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);  // square when transposed (but for kron)
  MatrixInput<T> B = make_matrix<T>(c, "B", brows, bcols);
  mask.make(c, crows, ccols);
  Descriptor d = mask.descriptor();
  d.transpose_a = ta;
  d.transpose_b = tb;

  // GraphBLAS's copies in sparse form (see ref_vector: its bitmap and full forms crash with masks
  // and accumulators).
  GMat gC = grb_of(C.coo), gA = grb_of(A.coo), gB = grb_of(B.coo), gM = mask.grb_matrix();
  for (GrB_Matrix g : {gC.m, gA.m, gB.m, gM.m})
    if (g) OPS_GRB(GxB_Matrix_Option_set(g, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  const GrB_Descriptor gd = mask.grb(ta, tb);
  grb_ok(c,
         kron  ? GrB_Matrix_kronecker_BinaryOp(gC.m, gM.m, grb_accum<T>(acc), grb_bin<T>(op), gA.m, gB.m, gd)
         : add ? GrB_Matrix_eWiseAdd_BinaryOp(gC.m, gM.m, grb_accum<T>(acc), grb_bin<T>(op), gA.m, gB.m, gd)
               : GrB_Matrix_eWiseMult_BinaryOp(gC.m, gM.m, grb_accum<T>(acc), grb_bin<T>(op), gA.m, gB.m, gd),
         kron ? "kronecker" : "ewise");

  with_bin<T>(op, [&](const auto& f) {
    with_few_accum<T>(acc, [&](const auto& a) {
      mask.with([&](const auto& m) {
        if (kron) gbcuda::kronecker(C.a, m, a, f, A.a, B.a, d, c.b);
        else if (add) gbcuda::ewise_add(C.a, m, a, f, A.a, B.a, d, c.b);
        else gbcuda::ewise_mult(C.a, m, a, f, A.a, B.a, d, c.b);
      });
    });
  });
  compare_matrix(c, C.a, gC.m);
}

// Row or column indices for an extract: any order, repeats allowed, sometimes every index in
// order (and then GraphBLAS is given GrB_ALL).
std::vector<Index> extract_indices(Case& c, Index n, bool& all) {
  all = c.chance(0.2);
  std::vector<Index> idx;
  if (all) {
    for (Index i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  const int count = n == 0 ? 0 : c.pick(int(std::min<Index>(n + 3, 60)) + 1);
  for (int k = 0; k < count; ++k) idx.push_back(Index(c.pick(int(n))));
  return idx;
}

// Distinct indices of [0, n) in a random order for an assign, sometimes all of them in order
// (GrB_ALL for GraphBLAS).
std::vector<Index> assign_indices(Case& c, Index n, bool& all) {
  all = c.chance(0.2);
  std::vector<Index> idx;
  for (Index i = 0; i < n; ++i) idx.push_back(i);
  if (all) return idx;
  for (std::size_t k = idx.size(); k > 1; --k) std::swap(idx[k - 1], idx[std::size_t(c.pick(int(k)))]);
  idx.resize(std::size_t(c.pick(int(n) + 1)));
  return idx;
}

std::vector<GrB_Index> grb_indices(const std::vector<Index>& idx) { return {idx.begin(), idx.end()}; }

// transpose, extract (C = A(I, J)) or assign (C(I, J) = A) of a matrix into C: an accumulator or
// none, a mask of C's shape of C's type or bool (value or structural, complemented or not,
// replace or not), and A transposed or not.
template <class T>
void matrix_index_case(Case& c) {
  const int op = c.pick(3);  // 0: transpose, 1: extract, 2: assign
  const bool ta = c.chance(0.3);
  MatrixMask<T> mask;
  mask.draw(c);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  const Index rows = mxm_side(c), cols = mxm_side(c);  // A's shape (after the transpose ta asks)
  bool all_i = false, all_j = false;
  std::vector<Index> I, J;
  Index crows = rows, ccols = cols;  // C's shape
  if (op == 0) std::swap(crows, ccols);
  if (op == 1) {
    I = extract_indices(c, rows, all_i);
    J = extract_indices(c, cols, all_j);
    crows = Index(I.size());
    ccols = Index(J.size());
  }
  if (op == 2) {  // C is rows x cols; A is |I| x |J|
    I = assign_indices(c, rows, all_i);
    J = assign_indices(c, cols, all_j);
  }
  const Index arows = op == 2 ? Index(I.size()) : rows, acols = op == 2 ? Index(J.size()) : cols;
  std::ostringstream o;
  o << (op == 0   ? "transpose"
        : op == 1 ? "extract-matrix"
                  : "assign-matrix")
    << "<" << type_name<T>() << ">" << (ta ? " A'" : "")
    << (op != 0 ? " |I| " + std::to_string(I.size()) + (all_i ? " (all)" : "") : "")
    << (op != 0 ? " |J| " + std::to_string(J.size()) + (all_j ? " (all)" : "") : "") << mask.text()
    << (acc.has ? " accum " + std::string(bin_name(acc.op)) : "");
  c.note(o.str());
  MatrixInput<T> C = make_matrix<T>(c, "C", crows, ccols);
  MatrixInput<T> A = ta ? make_matrix<T>(c, "A'", acols, arows) : make_matrix<T>(c, "A", arows, acols);
  mask.make(c, crows, ccols);
  Descriptor d = mask.descriptor();
  d.transpose_a = ta;

  // GraphBLAS's copies in sparse form (ref_vector says why).
  GMat gC = grb_of(C.coo), gA = grb_of(A.coo), gM = mask.grb_matrix();
  for (GrB_Matrix g : {gC.m, gA.m, gM.m})
    if (g) OPS_GRB(GxB_Matrix_Option_set(g, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  const GrB_Descriptor gd = mask.grb(ta, false);
  const std::vector<GrB_Index> gi = grb_indices(I), gj = grb_indices(J);
  static const GrB_Index none = 0;  // an empty list: GraphBLAS refuses a null pointer
  const GrB_Index* pi = all_i ? GrB_ALL : gi.empty() ? &none : gi.data();
  const GrB_Index* pj = all_j ? GrB_ALL : gj.empty() ? &none : gj.data();
  if (op == 0) grb_ok(c, GrB_transpose(gC.m, gM.m, grb_accum<T>(acc), gA.m, gd), "transpose");
  if (op == 1)
    grb_ok(c, GrB_Matrix_extract(gC.m, gM.m, grb_accum<T>(acc), gA.m, pi, gi.size(), pj, gj.size(), gd), "extract");
  if (op == 2)
    grb_ok(c, GrB_Matrix_assign(gC.m, gM.m, grb_accum<T>(acc), gA.m, pi, gi.size(), pj, gj.size(), gd), "assign");

  with_few_accum<T>(acc, [&](const auto& a) {
    mask.with([&](const auto& m) {
      if (op == 0) gbcuda::transpose(C.a, m, a, A.a, d, c.b);
      if (op == 1) gbcuda::extract(C.a, m, a, A.a, std::span<const Index>(I), std::span<const Index>(J), d, c.b);
      if (op == 2) gbcuda::assign(C.a, m, a, A.a, std::span<const Index>(I), std::span<const Index>(J), d, c.b);
    });
  });
  compare_matrix(c, C.a, gC.m);
}

// One row or column: w<mask> = accum(w, A(I, j)) (extract_col; with A', row j of A), C<mask>(i, J)
// = accum(C(i, J), u') (assign_row) or C<mask>(I, j) = accum(C(I, j), u) (assign_col): a vector
// mask over the line (the line's own entries alone for the assigns), an accumulator or none.
template <class T>
void matrix_line_case(Case& c) {
  const int op = c.pick(3);  // 0: extract_col, 1: assign_row, 2: assign_col
  const bool ta = op == 0 && c.chance(0.4);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  const Index rows = std::max<Index>(mxm_side(c), 1), cols = std::max<Index>(mxm_side(c), 1);  // A's or C's shape
  bool all = false;
  std::vector<Index> idx;
  Index line = 0;
  if (op == 0) {
    idx = extract_indices(c, ta ? cols : rows, all);
    line = Index(c.pick(int(ta ? rows : cols)));
  } else {
    idx = assign_indices(c, op == 1 ? cols : rows, all);
    line = Index(c.pick(int(op == 1 ? rows : cols)));
  }
  const Index n = op == 0 ? Index(idx.size()) : op == 1 ? cols : rows;  // the mask's length
  std::ostringstream o;
  o << (op == 0   ? "extract-col"
        : op == 1 ? "assign-row"
                  : "assign-col")
    << "<" << type_name<T>() << ">" << (ta ? " A'" : "") << " line " << line << " |I| " << idx.size()
    << (all ? " (all)" : "") << (acc.has ? " accum " + std::string(bin_name(acc.op)) : "");
  c.note(o.str());
  Mask<T> mask = draw_mask<T>(c, n, false);
  if (op != 0 && mask.is == MaskIs::Output) {
    mask.is = MaskIs::None;
    c.note("(a line assign has no output vector: no mask)");
  }
  Descriptor d;
  mask.set(d);
  d.transpose_a = ta;
  MatrixInput<T> M = make_matrix<T>(c, op == 0 ? "A" : "C", rows, cols);
  GMat gM = grb_of(M.coo);
  OPS_GRB(GxB_Matrix_Option_set(gM.m, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  const std::vector<GrB_Index> gi = grb_indices(idx);
  static const GrB_Index none = 0;  // an empty list: GraphBLAS refuses a null pointer
  const GrB_Index* pi = all ? GrB_ALL : gi.empty() ? &none : gi.data();
  const GrB_Index length = GrB_Index(idx.size());
  if (op == 0) {
    Input<T> w = make_vector<T>(c, "w", n, c.b);
    GVec gw = ref_vector(w.t);
    grb_ok(c,
           GrB_Col_extract(gw.v, grb_mask(mask, gw.v, GrB_NULL), grb_accum<T>(acc), gM.m, pi, length, GrB_Index(line),
                           mask.grb(ta, false)),
           "extract_col");
    with_few_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, nullptr,
                [&](const auto& m) { gbcuda::extract_col(w.v, m, a, M.a, std::span<const Index>(idx), line, d); });
    });
    compare_vector(c, w.v, gw.v, c.b);
    return;
  }
  Input<T> u = make_vector<T>(c, "u", Index(idx.size()), c.b);
  GVec gu = ref_vector(u.t);
  Vector<T> no_output(n, c.b);  // with_mask's output: never the mask here
  const GrB_Vector gmask = grb_mask(mask, GrB_NULL, GrB_NULL);
  if (op == 1)
    grb_ok(c, GrB_Row_assign(gM.m, gmask, grb_accum<T>(acc), gu.v, GrB_Index(line), pi, length, mask.grb()),
           "assign_row");
  else
    grb_ok(c, GrB_Col_assign(gM.m, gmask, grb_accum<T>(acc), gu.v, pi, length, GrB_Index(line), mask.grb()),
           "assign_col");
  with_few_accum<T>(acc, [&](const auto& a) {
    with_mask(mask, no_output, nullptr, [&](const auto& m) {
      if (op == 1) gbcuda::assign_row(M.a, m, a, u.v, line, std::span<const Index>(idx), d, c.b);
      else gbcuda::assign_col(M.a, m, a, u.v, std::span<const Index>(idx), line, d, c.b);
    });
  });
  compare_matrix(c, M.a, gM.m);
}

// An index list for a subassign: `all` where every index in order was drawn (GraphBLAS gets
// GrB_ALL), else the list itself.
template <class F>
void with_list(bool all, const std::vector<Index>& idx, F&& f) {
  if (all) f(gbcuda::all);
  else f(idx);
}

// GxB_subassign: w(I)<m> = accum(w(I), u or x), C(I, J)<M> = accum(C(I, J), A, A' or x), C(i, J)<m'>
// = accum(C(i, J), u') and C(I, j)<m> = accum(C(I, j), u): the mask of the region's shape (value or
// structural, complemented or not, replace or not), an accumulator or none, the lists distinct in
// any order or every index (`all` for gbcuda, GrB_ALL for GraphBLAS).
template <class T>
void subassign_case(Case& c) {
  const int op = c.pick(5);         // 0: vector from u, 1: vector from x, 2: matrix from A, 3: matrix from x, 4: a line
  static const GrB_Index none = 0;  // an empty list: GraphBLAS refuses a null pointer
  const T x = draw_value<T>(c);
  if (op == 2 || op == 3) {
    const bool ta = op == 2 && c.chance(0.3);
    MatrixMask<T> mask;
    mask.draw(c);
    const Accum acc = draw_accum<T>(c, Accums::Few);
    const Index rows = mxm_side(c), cols = mxm_side(c);  // C's shape
    bool all_i = false, all_j = false;
    const std::vector<Index> I = assign_indices(c, rows, all_i), J = assign_indices(c, cols, all_j);
    const Index ni = Index(I.size()), nj = Index(J.size());
    c.note(std::string("subassign-matrix<") + type_name<T>() + ">" + (op == 3 ? " x=" + value_string(x) : "") +
           (ta ? " A'" : "") + " |I| " + std::to_string(ni) + (all_i ? " (all)" : "") + " |J| " + std::to_string(nj) +
           (all_j ? " (all)" : "") + mask.text() + (acc.has ? " accum " + std::string(bin_name(acc.op)) : ""));
    MatrixInput<T> C = make_matrix<T>(c, "C", rows, cols);
    std::optional<MatrixInput<T>> A;
    if (op == 2) A = ta ? make_matrix<T>(c, "A'", nj, ni) : make_matrix<T>(c, "A", ni, nj);
    mask.make(c, ni, nj);
    Descriptor d = mask.descriptor();
    d.transpose_a = ta;
    GMat gC = grb_of(C.coo), gM = mask.grb_matrix(), gA;
    if (A) gA = grb_of(A->coo);
    for (GrB_Matrix g : {gC.m, gA.m, gM.m})
      if (g) OPS_GRB(GxB_Matrix_Option_set(g, GxB_SPARSITY_CONTROL, GxB_SPARSE));
    const std::vector<GrB_Index> gi = grb_indices(I), gj = grb_indices(J);
    const GrB_Index* pi = all_i ? GrB_ALL : gi.empty() ? &none : gi.data();
    const GrB_Index* pj = all_j ? GrB_ALL : gj.empty() ? &none : gj.data();
    if (op == 2)
      grb_ok(c,
             GxB_Matrix_subassign(gC.m, gM.m, grb_accum<T>(acc), gA.m, pi, GrB_Index(ni), pj, GrB_Index(nj),
                                  mask.grb(ta, false)),
             "subassign");
    else
      grb_ok(c,
             Grb<T>::msubassign(gC.m, gM.m, grb_accum<T>(acc), x, pi, GrB_Index(ni), pj, GrB_Index(nj),
                                mask.grb(false, false)),
             "subassign value");
    with_few_accum<T>(acc, [&](const auto& a) {
      mask.with([&](const auto& m) {
        with_list(all_i, I, [&](const auto& li) {
          with_list(all_j, J, [&](const auto& lj) {
            if (op == 2) gbcuda::subassign(C.a, m, a, A->a, li, lj, d, c.b);
            else gbcuda::subassign(C.a, m, a, x, li, lj, d, c.b);
          });
        });
      });
    });
    compare_matrix(c, C.a, gC.m);
    return;
  }
  // A vector, or a row or column of C: the list's positions of w or of the line.
  const bool row = op == 4 && c.chance(0.5);
  const Index rows = std::max<Index>(mxm_side(c), 1), cols = std::max<Index>(mxm_side(c), 1);  // C's shape
  const Index n = op == 4 ? (row ? cols : rows) : c.length();
  const Index line = op == 4 ? Index(c.pick(int(row ? rows : cols))) : 0;
  bool all = false;
  const std::vector<Index> idx = assign_indices(c, n, all);
  const Index count = Index(idx.size());
  const Accum acc = draw_accum<T>(c, op == 4 ? Accums::Few : Accums::All);
  c.note(std::string(op == 4 ? (row ? "subassign-row<" : "subassign-col<") : "subassign-vector<") + type_name<T>() +
         ">" + (op == 1 ? " x=" + value_string(x) : "") + (op == 4 ? " line " + std::to_string(line) : "") + " |I| " +
         std::to_string(count) + (all ? " (all)" : "") + (acc.has ? " accum " + std::string(bin_name(acc.op)) : ""));
  Mask<T> mask = draw_mask<T>(c, count, false);
  if (mask.is == MaskIs::Output) {
    mask.is = MaskIs::None;
    c.note("(the mask has the list's length, not the output's: no mask)");
  }
  Descriptor d;
  mask.set(d);
  std::optional<MatrixInput<T>> C;
  std::optional<Input<T>> w, u;
  if (op == 4) C = make_matrix<T>(c, "C", rows, cols);
  else w = make_vector<T>(c, "w", n, c.b);
  if (op != 1) u = make_vector<T>(c, "u", count, c.b);
  GMat gC;
  GVec gw, gu;
  if (C) {
    gC = grb_of(C->coo);
    OPS_GRB(GxB_Matrix_Option_set(gC.m, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  }
  if (w) gw = ref_vector(w->t);
  if (u) gu = ref_vector(u->t);
  const std::vector<GrB_Index> gidx = grb_indices(idx);
  const GrB_Index* pi = all ? GrB_ALL : gidx.empty() ? &none : gidx.data();
  const GrB_Vector gm = grb_mask(mask, GrB_NULL, GrB_NULL);
  const GrB_BinaryOp gacc = grb_accum<T>(acc);
  if (op == 0) grb_ok(c, GxB_Vector_subassign(gw.v, gm, gacc, gu.v, pi, GrB_Index(count), mask.grb()), "subassign");
  if (op == 1)
    grb_ok(c, Grb<T>::subassign_indexed(gw.v, gm, gacc, x, pi, GrB_Index(count), mask.grb()), "subassign value");
  if (op == 4 && row)
    grb_ok(c, GxB_Row_subassign(gC.m, gm, gacc, gu.v, GrB_Index(line), pi, GrB_Index(count), mask.grb()),
           "subassign_row");
  if (op == 4 && !row)
    grb_ok(c, GxB_Col_subassign(gC.m, gm, gacc, gu.v, pi, GrB_Index(count), GrB_Index(line), mask.grb()),
           "subassign_col");
  Vector<T> no_output(count, c.b);  // with_mask's output: never the mask here
  auto ours = [&](const auto& a) {
    with_mask(mask, no_output, nullptr, [&](const auto& m) {
      with_list(all, idx, [&](const auto& list) {
        if (op == 0) gbcuda::subassign(w->v, m, a, u->v, list, d);
        if (op == 1) gbcuda::subassign(w->v, m, a, x, list, d);
        if (op == 4 && row) gbcuda::subassign_row(C->a, m, a, u->v, line, list, d, c.b);
        if (op == 4 && !row) gbcuda::subassign_col(C->a, m, a, u->v, list, line, d, c.b);
      });
    });
  };
  if (op == 4) with_few_accum<T>(acc, ours);
  else with_accum<T>(acc, ours);
  if (C) compare_matrix(c, C->a, gC.m);
  else compare_vector(c, w->v, gw.v, c.b);
}

}  // namespace

void run_subassign(Case& c) {
  with_type(c, [&](auto t) { subassign_case<decltype(t)>(c); });
}
void run_matrix_index(Case& c) {
  with_type(c, [&](auto t) { matrix_index_case<decltype(t)>(c); });
}
void run_matrix_line(Case& c) {
  with_type(c, [&](auto t) { matrix_line_case<decltype(t)>(c); });
}
void run_matrix_ewise(Case& c) {
  with_type(c, [&](auto t) { matrix_ewise_case<decltype(t)>(c); });
}
void run_mxm(Case& c) {
  with_type(c, [&](auto t) { mxm_case<decltype(t)>(c); });
}
void run_matrix_unary(Case& c) {
  with_type(c, [&](auto t) { matrix_unary_case<decltype(t)>(c); });
}
void run_matrix_scalar(Case& c) {
  with_type(c, [&](auto t) { matrix_scalar_case<decltype(t)>(c); });
}

}  // namespace diff
