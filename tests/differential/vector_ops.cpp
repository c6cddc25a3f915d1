// Differential cases on vectors: assign (scalar or vector, all indices or a list), extract, apply (unary
// or bound binary operators), select, ewise_add / ewise_mult, reduce to a scalar, and element
// operations.
#include <algorithm>
#include <numeric>
#include <sstream>

#include "differential/differential.hpp"
#include "differential/operators.hpp"

namespace diff {
namespace {

// ---- assign -----------------------------------------------------------------------------------
// An index list (an assign's: distinct; an extract's: repeats too) handed over in a drawn integer type.
template <class F>
void with_index_list(Case& c, const std::vector<Index>& idx, F&& f) {
  switch (c.pick(3)) {
    case 0:
      c.note("indices=int64");
      f(idx);
      break;
    case 1: {
      c.note("indices=int32");
      f(std::vector<std::int32_t>(idx.begin(), idx.end()));
      break;
    }
    default: {
      c.note("indices=GrB_Index");
      f(std::vector<GrB_Index>(idx.begin(), idx.end()));
      break;
    }
  }
}

template <class T>
void assign_case(Case& c) {
  const int kind = c.pick(4);  // 0: scalar, 1: vector, 2: vector at a list, 3: scalar at a list
  static const char* const kinds[] = {"scalar", "vector", "vector-indexed", "scalar-indexed"};
  c.note(std::string("assign<") + type_name<T>() + "> " + kinds[kind]);
  const Index n = c.length();
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  std::vector<Index> idx;
  if (kind >= 2) {
    idx.resize(std::size_t(n));
    std::iota(idx.begin(), idx.end(), Index(0));
    std::shuffle(idx.begin(), idx.end(), c.rng());
    idx.resize(std::size_t(c.between(0, n)));
  }
  const bool alias_u = kind == 1 && c.chance(0.1);
  std::optional<Input<T>> u;
  if (alias_u) c.note("u=w");
  else if (kind == 1) u = make_vector<T>(c, "u", n, c.b);
  else if (kind == 2) u = make_vector<T>(c, "u", Index(idx.size()), c.b);
  const T x = draw_value<T>(c);
  if (kind == 0 || kind == 3) c.note("x=" + value_string(x));
  Mask<T> mask = draw_mask<T>(c, n, kind == 1 && !alias_u);
  const Accum acc = draw_accum<T>(c, Accums::All);
  Descriptor d;
  mask.set(d);

  GVec gw = ref_vector(w.t);
  GVec gu_own;
  if (u) gu_own = ref_vector(u->t);
  const GrB_Vector gu = alias_u ? gw.v : gu_own.v;
  const GrB_Vector gm = grb_mask(mask, gw.v, gu);
  std::vector<GrB_Index> gidx(idx.begin(), idx.end());
  gidx.reserve(1);
  const GrB_Descriptor gd = mask.grb();
  switch (kind) {
    case 0: grb_ok(c, Grb<T>::assign(gw.v, gm, grb_accum<T>(acc), x, GrB_Index(n), gd), "assign scalar"); break;
    case 1: grb_ok(c, GrB_Vector_assign(gw.v, gm, grb_accum<T>(acc), gu, GrB_ALL, GrB_Index(n), gd), "assign"); break;
    case 2:
      grb_ok(c, GrB_Vector_assign(gw.v, gm, grb_accum<T>(acc), gu, gidx.data(), GrB_Index(idx.size()), gd), "assign");
      break;
    default:
      grb_ok(c, Grb<T>::assign_indexed(gw.v, gm, grb_accum<T>(acc), x, gidx.data(), GrB_Index(idx.size()), gd),
             "assign scalar");
  }

  const Vector<T>* input = alias_u ? &w.v : u ? &u->v : nullptr;
  with_accum<T>(acc, [&](const auto& a) {
    with_mask(mask, w.v, input, [&](const auto& m) {
      switch (kind) {
        case 0: gbcuda::assign(w.v, m, a, x, d); break;
        case 1: gbcuda::assign(w.v, m, a, *input, d); break;
        case 2: with_index_list(c, idx, [&](const auto& list) { gbcuda::assign(w.v, m, a, *input, list, d); }); break;
        default: with_index_list(c, idx, [&](const auto& list) { gbcuda::assign(w.v, m, a, x, list, d); });
      }
    });
  });
  compare_vector(c, w.v, gw.v, c.b);
}

// ---- extract -----------------------------------------------------------------------------------
// w<mask> = accum(w, u(I)) (GrB_Vector_extract): I in any order with repeats, or every index of u
// in order (GrB_ALL for GraphBLAS); u may be w when the lengths agree.
template <class T>
void extract_case(Case& c) {
  const Index n = c.length();
  const bool all = c.chance(0.2);
  std::vector<Index> idx;
  if (all) {
    idx.resize(std::size_t(n));
    std::iota(idx.begin(), idx.end(), Index(0));
  } else if (n > 0) {
    const Index count = c.between(0, std::min<Index>(2 * n + 3, 5000));
    for (Index k = 0; k < count; ++k) idx.push_back(c.between(0, n - 1));
  }
  const Index count = Index(idx.size());
  const bool alias_u = count == n && c.chance(0.2);
  c.note(std::string("extract<") + type_name<T>() + "> |I| " + std::to_string(count) + (all ? " (all)" : "") +
         (alias_u ? " u=w" : ""));
  Input<T> w = make_vector<T>(c, "w", count, c.b);
  std::optional<Input<T>> u;
  if (!alias_u) u = make_vector<T>(c, "u", n, c.b);
  Mask<T> mask = draw_mask<T>(c, count, false);
  const Accum acc = draw_accum<T>(c, Accums::All);
  Descriptor d;
  mask.set(d);

  GVec gw = ref_vector(w.t);
  GVec gu_own;
  if (u) gu_own = ref_vector(u->t);
  const GrB_Vector gu = alias_u ? gw.v : gu_own.v;
  const std::vector<GrB_Index> gidx(idx.begin(), idx.end());
  static const GrB_Index none = 0;  // an empty list: GraphBLAS refuses a null pointer
  const GrB_Index* pi = all ? GrB_ALL : gidx.empty() ? &none : gidx.data();
  grb_ok(
      c,
      GrB_Vector_extract(gw.v, grb_mask(mask, gw.v, GrB_NULL), grb_accum<T>(acc), gu, pi, GrB_Index(count), mask.grb()),
      "extract");
  const Vector<T>& input = alias_u ? w.v : u->v;
  const bool pass_all = all && c.chance(0.5);  // gbcuda's `all` for GrB_ALL, else the list 0 ... n - 1
  if (pass_all) c.note("indices=all");
  with_accum<T>(acc, [&](const auto& a) {
    with_mask(mask, w.v, nullptr, [&](const auto& m) {
      if (pass_all) gbcuda::extract(w.v, m, a, input, gbcuda::all, d);
      else with_index_list(c, idx, [&](const auto& list) { gbcuda::extract(w.v, m, a, input, list, d); });
    });
  });
  compare_vector(c, w.v, gw.v, c.b);
}

// ---- apply ------------------------------------------------------------------------------------
template <class T>
void apply_case(Case& c) {
  const bool bound = c.chance(0.4);
  const Index n = c.length();
  std::ostringstream o;
  o << "apply<" << type_name<T>() << "> ";
  Un un = Un::Identity;
  Bin bin = Bin::Plus;
  bool scalar_first = false;
  const T s = draw_value<T>(c);
  if (bound) {
    static const Bin bins[] = {Bin::Plus, Bin::Minus, Bin::Times, Bin::Min, Bin::Max, Bin::First, Bin::Second};
    bin = usable<T>(bins[c.pick(7)]);
    scalar_first = c.chance(0.5);
    o << (scalar_first ? "bind-first " : "bind-second ") << bin_name(bin) << " s=" << value_string(s);
  } else {
    un = Un(c.pick(std::is_same_v<T, double> ? 7 : 6));
    o << un_name(un);
  }
  c.note(o.str());
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  const bool alias_u = c.chance(0.1);
  std::optional<Input<T>> u;
  if (alias_u) c.note("u=w");
  else u = make_vector<T>(c, "u", n, c.b);
  Mask<T> mask = draw_mask<T>(c, n, !alias_u);
  // Integer MINV reaches the type's largest value (1/0): no accumulator that could overflow.
  const Accum acc = draw_accum<T>(c, Accums::Few, !bound && un == Un::Minv && std::is_integral_v<T>);
  Descriptor d;
  mask.set(d);

  GVec gw = ref_vector(w.t);
  GVec gu_own;
  if (u) gu_own = ref_vector(u->t);
  const GrB_Vector gu = alias_u ? gw.v : gu_own.v;
  const GrB_Vector gm = grb_mask(mask, gw.v, gu);
  if (!bound)
    grb_ok(
        c,
        GrB_Vector_apply(gw.v, gm, grb_accum<T>(acc), un == Un::User ? grb_user_un() : grb_un<T>(un), gu, mask.grb()),
        "apply");
  else if (scalar_first)
    grb_ok(c, Grb<T>::apply_first(gw.v, gm, grb_accum<T>(acc), grb_bin<T>(bin), s, gu, mask.grb()), "apply 1st");
  else grb_ok(c, Grb<T>::apply_second(gw.v, gm, grb_accum<T>(acc), grb_bin<T>(bin), gu, s, mask.grb()), "apply 2nd");

  const Vector<T>* input = alias_u ? &w.v : &u->v;
  auto run = [&](const auto& op) {
    with_few_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, input, [&](const auto& m) { gbcuda::apply(w.v, m, a, op, *input, d); });
    });
  };
  if (!bound) with_unary<T>(un, run);
  else
    with_bin<T>(bin, [&](auto op) {
      if (scalar_first) run(gbcuda::bind_first(op, s));
      else run(gbcuda::bind_second(op, s));
    });
  compare_vector(c, w.v, gw.v, c.b);
}

// ---- select -----------------------------------------------------------------------------------
template <class T>
void select_case(Case& c) {
  const Pred k = Pred(c.pick(10));
  const Index n = c.length();
  // Positional thunks are small integers around the indices; value thunks are drawn values.
  const ThunkOf<T> thunk = positional(k) ? ThunkOf<T>(c.between(-n - 1, 2)) : ThunkOf<T>(draw_value<T>(c));
  c.note(std::string("select<") + type_name<T>() + "> " + pred_name(k) + " thunk=" + value_string(thunk));
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  const bool alias_u = c.chance(0.1);
  std::optional<Input<T>> u;
  if (alias_u) c.note("u=w");
  else u = make_vector<T>(c, "u", n, c.b);
  Mask<T> mask = draw_mask<T>(c, n, !alias_u);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  Descriptor d;
  mask.set(d);

  GVec gw = ref_vector(w.t);
  GVec gu_own;
  if (u) gu_own = ref_vector(u->t);
  const GrB_Vector gu = alias_u ? gw.v : gu_own.v;
  const GrB_Vector gm = grb_mask(mask, gw.v, gu);
  if (positional(k))
    grb_ok(c, GrB_Vector_select_INT64(gw.v, gm, grb_accum<T>(acc), grb_pred<T>(k), gu, Index(thunk), mask.grb()),
           "select");
  else grb_ok(c, Grb<T>::select(gw.v, gm, grb_accum<T>(acc), grb_pred<T>(k), gu, T(thunk), mask.grb()), "select");

  const Vector<T>* input = alias_u ? &w.v : &u->v;
  with_pred(k, [&](const auto& p) {
    with_few_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, input, [&](const auto& m) { gbcuda::select(w.v, m, a, p, *input, thunk, d); });
    });
  });
  compare_vector(c, w.v, gw.v, c.b);
}

// ---- ewise_add / ewise_mult ---------------------------------------------------------------------
template <class T>
void ewise_case(Case& c) {
  const bool add = c.chance(0.5);
  const bool user = std::is_same_v<T, double> && c.chance(0.1);
  const Bin op = usable<T>(Bin(c.pick(10)));
  const Index n = c.length();
  c.note(std::string(add ? "ewise_add<" : "ewise_mult<") + type_name<T>() + "> " + (user ? "user" : bin_name(op)));
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  // Aliases: u or v may be w, v may be u.
  const int alias = c.pick(10);  // 0: u = w, 1: v = w, 2: v = u, else none
  std::optional<Input<T>> u, v;
  if (alias != 0) u = make_vector<T>(c, "u", n, c.b);
  else c.note("u=w");
  if (alias != 1 && alias != 2) v = make_vector<T>(c, "v", n, c.b);
  else c.note(alias == 1 ? "v=w" : "v=u");
  Mask<T> mask = draw_mask<T>(c, n, alias != 0);
  const Accum acc = draw_accum<T>(c, Accums::Few);
  Descriptor d;
  mask.set(d);

  GVec gw = ref_vector(w.t);
  GVec gu_own, gv_own;
  if (u) gu_own = ref_vector(u->t);
  if (v) gv_own = ref_vector(v->t);
  const GrB_Vector gu = alias == 0 ? gw.v : gu_own.v;
  const GrB_Vector gv = alias == 1 ? gw.v : alias == 2 ? gu : gv_own.v;
  const GrB_Vector gm = grb_mask(mask, gw.v, gu);
  const GrB_BinaryOp gop = user ? grb_user_bin() : grb_bin<T>(op);
  grb_ok(c,
         add ? GrB_Vector_eWiseAdd_BinaryOp(gw.v, gm, grb_accum<T>(acc), gop, gu, gv, mask.grb())
             : GrB_Vector_eWiseMult_BinaryOp(gw.v, gm, grb_accum<T>(acc), gop, gu, gv, mask.grb()),
         "ewise");

  const Vector<T>& uu = alias == 0 ? w.v : u->v;
  const Vector<T>& vv = alias == 1 ? w.v : alias == 2 ? uu : v->v;
  auto run = [&](const auto& f) {
    with_few_accum<T>(acc, [&](const auto& a) {
      with_mask(mask, w.v, &uu, [&](const auto& m) {
        if (add) gbcuda::ewise_add(w.v, m, a, f, uu, vv, d);
        else gbcuda::ewise_mult(w.v, m, a, f, uu, vv, d);
      });
    });
  };
  if (user) {
    if constexpr (std::is_same_v<T, double>) run(gbcuda::make_binary_op<double>(user_sub2));
  } else {
    with_bin<T>(op, run);
  }
  compare_vector(c, w.v, gw.v, c.b);
}

// ---- reduce to a scalar -------------------------------------------------------------------------
template <class T>
void reduce_case(Case& c) {
  const Index n = c.length();
  std::vector<Mon> options = {Mon::Plus, Mon::Min, Mon::Max, Mon::Any};
  // TIMES: products of many values overflow integers and round floats in any order; short ones.
  const Index times_limit = std::is_same_v<T, std::int32_t> ? 6 : 12;
  if (std::is_same_v<T, bool> || n <= times_limit) options.push_back(Mon::Times);
  if constexpr (std::is_same_v<T, bool>) options.insert(options.end(), {Mon::Lor, Mon::Land});
  const Mon k = options[std::size_t(c.pick(int(options.size())))];
  c.note(std::string("reduce<") + type_name<T>() + "> " + mon_name(k));
  Input<T> u = make_vector<T>(c, "u", n, c.b);
  T got{};
  with_monoid<T>(k, [&](const auto& mon) { got = gbcuda::reduce(mon, u.v); });
  if (k == Mon::Any) {  // any entry will do; the identity (0) when there is none
    const bool ok = u.t.vals.empty() ? got == T(0) : std::find(u.t.vals.begin(), u.t.vals.end(), got) != u.t.vals.end();
    if (!ok) c.fail("ANY gave " + value_string(got) + ", not an entry");
    return;
  }
  GVec gu = ref_vector(u.t);
  T want{};
  grb_ok(c, Grb<T>::reduce(&want, grb_monoid<T>(k), gu.v), "reduce");
  compare_scalar(c, got, want);
}

// ---- element operations -------------------------------------------------------------------------
template <class T>
void elements_case(Case& c) {
  const Index n = std::max<Index>(1, c.length());
  c.note(std::string("elements<") + type_name<T>() + ">");
  Input<T> w = make_vector<T>(c, "w", n, c.b);
  GVec gw = ref_vector(w.t);
  const int steps = 1 + c.pick(8);
  std::ostringstream o;
  for (int s = 0; s < steps && c.failure.empty(); ++s) {
    const Index i = c.between(0, n - 1);
    switch (c.pick(8)) {
      case 0:
      case 1: {
        const T x = draw_value<T>(c);
        o << " set(" << i << ")";
        if (c.chance(0.5)) w.v.set_element(std::int32_t(i), x);  // an index of another integer type
        else w.v.set_element(i, x);
        grb_ok(c, Grb<T>::set_element(gw.v, x, GrB_Index(i)), "setElement");
        break;
      }
      case 2: {
        o << " remove(" << i << ")";
        w.v.remove_element(GrB_Index(i));
        grb_ok(c, GrB_Vector_removeElement(gw.v, GrB_Index(i)), "removeElement");
        break;
      }
      case 3: {
        o << " element(" << i << ")";
        const std::optional<T> got = w.v.element(i);
        T x{};
        const GrB_Info info = Grb<T>::extract_element(&x, gw.v, GrB_Index(i));
        if (info == GrB_NO_VALUE) {
          if (got) c.fail("element(" + std::to_string(i) + ") gave a value where there is none");
        } else if (!got || !same_value(*got, x)) {
          c.fail("element(" + std::to_string(i) + ") gave " + (got ? value_string(*got) : "nothing") + ", expected " +
                 value_string(x));
        }
        break;
      }
      case 4: {
        o << " nvals";
        GrB_Index nv = 0;
        grb_ok(c, GrB_Vector_nvals(&nv, gw.v), "nvals");
        if (w.v.nvals() != Index(nv))
          c.fail("nvals() " + std::to_string(w.v.nvals()) + ", expected " + std::to_string(nv));
        break;
      }
      case 5: {
        static const gbcuda::VectorForm forms[] = {gbcuda::VectorForm::Sparse, gbcuda::VectorForm::Bitmap};
        const auto f = forms[c.pick(2)];
        o << " to_form(" << gbcuda::to_string(f) << ")";
        w.v.to_form(f);
        break;
      }
      case 6: {
        const bool copy = c.chance(0.5);
        o << (copy ? " copy" : " move");
        Vector<T> other = copy ? Vector<T>(w.v) : Vector<T>(std::move(w.v));
        w.v = std::move(other);
        break;
      }
      default: {
        if (c.chance(0.3)) {
          o << " clear";
          w.v.clear();
          grb_ok(c, GrB_Vector_clear(gw.v), "clear");
        } else {
          o << " conform";
          w.v.conform();
        }
      }
    }
  }
  c.note("steps:" + o.str());
  compare_vector(c, w.v, gw.v, c.b);
}

}  // namespace

void run_assign(Case& c) {
  with_type(c, [&](auto t) { assign_case<decltype(t)>(c); });
}
void run_extract(Case& c) {
  with_type(c, [&](auto t) { extract_case<decltype(t)>(c); });
}
void run_apply(Case& c) {
  with_type(c, [&](auto t) { apply_case<decltype(t)>(c); });
}
void run_select(Case& c) {
  with_type(c, [&](auto t) { select_case<decltype(t)>(c); });
}
void run_ewise(Case& c) {
  with_type(c, [&](auto t) { ewise_case<decltype(t)>(c); });
}
void run_reduce_vector(Case& c) {
  with_type(c, [&](auto t) { reduce_case<decltype(t)>(c); });
}
void run_elements(Case& c) {
  with_type(c, [&](auto t) { elements_case<decltype(t)>(c); });
}

}  // namespace diff
