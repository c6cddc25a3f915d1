// Differential cases on matrices: mxm with a structural mask (A*B or A*B'), select and apply into
// a matrix, element-wise add and multiply of matrices (masks, accumulators, transposes), reduce of
// a matrix to a scalar, and extract_tuples of matrices made every way.
#include <algorithm>
#include <optional>
#include <sstream>

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
  double thunk = 0;
  std::ostringstream o;
  if (kind == 0) {
    p = Pred(c.pick(10));
    thunk = positional(p) ? double(c.between(-nrows - 1, ncols + 1)) : double(draw_value<T>(c));
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
      grb_ok(c, GrB_Matrix_select_INT64(out, GrB_NULL, GrB_NULL, grb_pred<T>(p), gA.m, std::int64_t(thunk), GrB_NULL),
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

// ewise_add or ewise_mult of two matrices into C: a binary operator, an accumulator or none, a
// matrix mask of C's type or bool (value or structural, complemented or not, replace or not), and
// either input transposed (square shapes then).
template <class T>
void matrix_ewise_case(Case& c) {
  const bool add = c.chance(0.5);
  const Bin op = usable<T>(Bin(c.pick(10)));
  const bool ta = c.chance(0.3), tb = c.chance(0.3);
  // Five matrices a case (C, A, B, a mask, GraphBLAS's copies): sides stay moderate, as mxm's.
  const Index nrows = mxm_side(c), ncols = ta || tb ? nrows : mxm_side(c);
  const int mask_kind = c.pick(3);  // 0: none, 1: of T, 2: bool
  const bool replace = c.chance(0.3), complement = c.chance(0.3), structural = c.chance(0.5);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  std::ostringstream o;
  o << (add ? "ewise_add-matrix<" : "ewise_mult-matrix<") << type_name<T>() << "> " << bin_name(op) << (ta ? " A'" : "")
    << (tb ? " B'" : "")
    << (mask_kind == 0   ? ""
        : mask_kind == 1 ? " M"
                         : " M-bool")
    << (replace ? " replace" : "") << (complement ? " complement" : "") << (structural ? " structural" : "")
    << (acc.has ? " accum " + std::string(bin_name(acc.op)) : "");
  c.note(o.str());
  MatrixInput<T> C = make_matrix<T>(c, "C", nrows, ncols);
  MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);  // square when transposed
  MatrixInput<T> B = make_matrix<T>(c, "B", nrows, ncols);
  std::optional<MatrixInput<T>> M;
  std::optional<MatrixInput<bool>> Mb;
  if (mask_kind == 1) M = make_matrix<T>(c, "M", nrows, ncols);
  if (mask_kind == 2) Mb = make_matrix<bool>(c, "M", nrows, ncols);
  Descriptor d;
  d.replace = replace;
  d.mask_complement = complement && mask_kind != 0;
  d.mask_structural = structural;
  d.transpose_a = ta;
  d.transpose_b = tb;

  // GraphBLAS's copies in sparse form (see ref_vector: its bitmap and full forms crash with masks
  // and accumulators).
  GMat gC = grb_of(C.coo), gA = grb_of(A.coo), gB = grb_of(B.coo), gM;
  if (M) gM = grb_of(M->coo);
  if (Mb) gM = grb_of(Mb->coo);
  for (GrB_Matrix g : {gC.m, gA.m, gB.m, gM.m})
    if (g) OPS_GRB(GxB_Matrix_Option_set(g, GxB_SPARSITY_CONTROL, GxB_SPARSE));
  const GrB_Descriptor gd = grb_desc(replace, structural, complement && mask_kind != 0, ta, tb);
  grb_ok(c,
         add ? GrB_Matrix_eWiseAdd_BinaryOp(gC.m, gM.m, grb_accum<T>(acc), grb_bin<T>(op), gA.m, gB.m, gd)
             : GrB_Matrix_eWiseMult_BinaryOp(gC.m, gM.m, grb_accum<T>(acc), grb_bin<T>(op), gA.m, gB.m, gd),
         "ewise");

  with_bin<T>(op, [&](const auto& f) {
    with_few_accum<T>(acc, [&](const auto& a) {
      auto run = [&](const auto& mask) {
        if (add) gbcuda::ewise_add(C.a, mask, a, f, A.a, B.a, d, c.b);
        else gbcuda::ewise_mult(C.a, mask, a, f, A.a, B.a, d, c.b);
      };
      if (M) run(M->a);
      else if (Mb) run(Mb->a);
      else run(gbcuda::no_mask);
    });
  });
  compare_matrix(c, C.a, gC.m);
}

}  // namespace

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
