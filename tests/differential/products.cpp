// Differential cases: mxv / vxm over every built-in semiring and a user-defined one (with the
// boolean product's kernels and directions forced now and then), and the reduce of a matrix to a
// vector, which runs on the product.
#include <sstream>

#include "differential/differential.hpp"
#include "differential/semirings.hpp"

namespace diff {
namespace {

// GraphBLAS's w<mask> = accum(w, t) for a product with no terms (an inner dimension of 0): t is
// empty. SuiteSparse:GraphBLAS 7.4.0 refuses such a vxm with an accumulator and a full w
// (GrB_DIMENSION_MISMATCH, "input is 0-by-0"), so the reference assigns the empty t instead.
void grb_empty_product(Case& c, GrB_Vector w, GrB_Vector mask, GrB_BinaryOp accum, Index n, GrB_Descriptor d) {
  GrB_Type type = nullptr;
  OPS_GRB(GxB_Vector_type(&type, w));
  GVec t;
  OPS_GRB(GrB_Vector_new(&t.v, type, GrB_Index(n)));
  grb_ok(c, GrB_Vector_assign(w, mask, accum, t.v, GrB_ALL, GrB_Index(n), d), "assign of an empty product");
}

// Matrix dimensions of a product: op(A) is n_out x n_in.
struct Shape {
  Index nrows, ncols;
};
Shape stored_shape(bool is_vxm, bool transpose_a, Index n_out, Index n_in) {
  // mxv walks rows of op(A) = A (or A'); vxm walks rows of op(A)' (u'*op(A)).
  const bool out_by_in = is_vxm == transpose_a;
  return out_by_in ? Shape{n_out, n_in} : Shape{n_in, n_out};
}

void draw_direction(Case& c, Descriptor& d, bool boolean) {
  static const gbcuda::Direction dirs[] = {gbcuda::Direction::Auto, gbcuda::Direction::Push, gbcuda::Direction::Pull};
  d.direction = dirs[c.pick(3)];
  if (boolean && c.chance(0.3)) {  // a forced kernel of the boolean product
    static const gbcuda::ProductKernel kernels[] = {
        gbcuda::ProductKernel::Pull, gbcuda::ProductKernel::QueueWarp, gbcuda::ProductKernel::QueueBlock,
        gbcuda::ProductKernel::QueueGlobal, gbcuda::ProductKernel::SingleBlock};
    d.kernel = kernels[c.pick(5)];
    d.direction = gbcuda::Direction::Auto;
    c.note(std::string("kernel=") + gbcuda::to_string(d.kernel));
  } else {
    c.note(d.direction == gbcuda::Direction::Auto   ? "dir=auto"
           : d.direction == gbcuda::Direction::Push ? "dir=push"
                                                    : "dir=pull");
  }
}

template <class T, class TA>
void product_with(Case& c, Sr k, bool is_vxm, bool tr, bool alias_u, Index n_out, Index n_in) {
  const Shape sh = stored_shape(is_vxm, tr, n_out, n_in);
  MatrixInput<TA> A = make_matrix<TA>(c, "A", sh.nrows, sh.ncols);
  Input<T> w = make_vector<T>(c, "w", n_out, c.b);
  std::optional<Input<T>> u;
  if (alias_u) c.note("u=w");
  else u = make_vector<T>(c, "u", n_in, c.b);
  Mask<T> mask = draw_mask<T>(c, n_out, !alias_u && n_in == n_out);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  Descriptor d;
  mask.set(d);
  d.transpose_a = tr;
  draw_direction(c, d, k == Sr::AnyPair || k == Sr::LorLand);

  GVec gw = ref_vector(w.t);
  GVec gu_own;
  if (u) gu_own = ref_vector(u->t);
  GrB_Vector gu = alias_u ? gw.v : gu_own.v;
  GMat gA = grb_of(A.coo);
  GrB_Vector gm = grb_mask(mask, gw.v, gu);
  const GrB_Descriptor gd = mask.grb_product(!is_vxm && tr, is_vxm && tr);
  if (n_in == 0) {
    grb_empty_product(c, gw.v, gm, grb_accum<T>(acc), n_out, mask.grb());
  } else {
    grb_ok(c,
           is_vxm ? GrB_vxm(gw.v, gm, grb_accum<T>(acc), grb_sr<T>(k), gu, gA.m, gd)
                  : GrB_mxv(gw.v, gm, grb_accum<T>(acc), grb_sr<T>(k), gA.m, gu, gd),
           is_vxm ? "vxm" : "mxv");
  }

  const Vector<T>* input = alias_u ? &w.v : &u->v;
  with_semiring<T>(k, [&](const auto& s) {
    with_few_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, input, [&](const auto& m) {
        if (is_vxm) gbcuda::vxm(w.v, m, a, s, *input, A.a, d);
        else gbcuda::mxv(w.v, m, a, s, A.a, *input, d);
      });
    });
  });
  compare_vector(c, w.v, gw.v, c.b);
}

template <class T>
void product_case(Case& c) {
  const std::vector<Sr> options = semirings_for<T>();
  const Sr k = options[std::size_t(c.pick(int(options.size())))];
  const bool is_vxm = c.chance(0.5), tr = c.chance(0.3), alias_u = c.chance(0.1);
  const Index n_out = c.length(), n_in = alias_u || c.chance(0.2) ? n_out : c.length();
  const bool pattern = c.chance(0.3);  // A of type bool: its values cast to the semiring's type
  std::ostringstream o;
  o << (is_vxm ? "vxm" : "mxv") << '<' << type_name<T>() << "> " << sr_name(k) << (tr ? " transpose_a" : "")
    << (pattern ? " A-bool" : "");
  c.note(o.str());
  if (pattern) product_with<T, bool>(c, k, is_vxm, tr, alias_u, n_out, n_in);
  else product_with<T, T>(c, k, is_vxm, tr, alias_u, n_out, n_in);
}

template <class T>
void reduce_rows_case(Case& c) {
  std::vector<Mon> options = {Mon::Plus, Mon::Min, Mon::Max};
  if constexpr (std::is_same_v<T, bool>) options.insert(options.end(), {Mon::Times, Mon::Lor, Mon::Land});
  const Mon k = options[std::size_t(c.pick(int(options.size())))];
  const bool columns = c.chance(0.4);
  const Index nrows = c.length(), ncols = c.length();
  c.note(std::string("reduce-rows<") + type_name<T>() + "> " + mon_name(k) + (columns ? " columns" : ""));
  MatrixInput<T> A = make_matrix<T>(c, "A", nrows, ncols);
  const Index n = columns ? ncols : nrows;
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  Mask<T> mask = draw_mask<T>(c, n, false);
  const Accum acc = draw_accum<T>(c, Accums::All);
  Descriptor d;
  mask.set(d);
  d.transpose_a = columns;

  GVec gw = ref_vector(w.t);
  GMat gA = grb_of(A.coo);
  if ((columns ? nrows : ncols) == 0) {
    grb_empty_product(c, gw.v, grb_mask(mask, gw.v, GrB_NULL), grb_accum<T>(acc), n, mask.grb());
  } else {
    // As A * 1 over (monoid, FIRST) by dot products: SuiteSparse:GraphBLAS 7.4.0's own
    // GrB_Matrix_reduce_Monoid runs a saxpy3 product inside that loops forever on some inputs.
    Tuples<T> ones;
    ones.n = columns ? nrows : ncols;
    for (Index i = 0; i < ones.n; ++i) ones.idx.push_back(i), ones.vals.push_back(T(1));
    GVec g1 = ref_vector(ones);
    grb_ok(c,
           GrB_mxv(gw.v, grb_mask(mask, gw.v, GrB_NULL), grb_accum<T>(acc), grb_semiring<T>(k, Bin::First), gA.m, g1.v,
                   mask.grb_product(columns, false)),
           "reduce to a vector");
  }
  with_monoid<T>(k, [&](const auto& mon) {
    with_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, nullptr, [&](const auto& m) { gbcuda::reduce(w.v, m, a, mon, A.a, d); });
    });
  });
  compare_vector(c, w.v, gw.v, c.b);
}

}  // namespace

void run_product(Case& c) {
  with_type(c, [&](auto t) { product_case<decltype(t)>(c); });
}
void run_reduce_rows(Case& c) {
  with_type(c, [&](auto t) { reduce_rows_case<decltype(t)>(c); });
}

}  // namespace diff
