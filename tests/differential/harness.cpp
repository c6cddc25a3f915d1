// The differential test's harness: drawing, inputs in every form, masks, GraphBLAS's operators,
// comparison (differential.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <utility>

#include "differential/differential.hpp"

namespace diff {

// ---- one case ---------------------------------------------------------------------------------
namespace {
// SplitMix64: decorrelates the seeds of neighbouring case indices.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

int trace_level() {
  static const int level = [] {
    const char* s = std::getenv("GBCUDA_DIFF_TRACE");
    return s && *s ? std::atoi(s) : 0;
  }();
  return level;
}

Case::Case(std::uint64_t seed, std::uint64_t index, Backend backend) : b(backend), rng_(mix(mix(seed) ^ index)) {}

void Case::note(std::string_view what) {
  if (!text.empty()) text += ' ';
  text += what;
  if (trace_level() > 0) {  // as it is drawn, so a crash shows how far the case got
    std::printf("  %.*s\n", int(what.size()), what.data());
    std::fflush(stdout);
  }
}
int Case::pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
bool Case::chance(double p) { return std::bernoulli_distribution(p)(rng_); }
Index Case::between(Index lo, Index hi) { return std::uniform_int_distribution<Index>(lo, hi)(rng_); }
Index Case::length() {
  const int k = pick(100);
  if (k < 2) return 0;
  if (k < 7) return 1;
  if (k < 25) return between(2, 12);
  if (k < 80) return between(13, 200);
  if (k < 96) return between(201, 1500);
  return between(1501, 5000);
}

void grb_ok(Case& c, GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS)
    c.fail(std::string("GraphBLAS refused ") + what + " (info " + std::to_string(int(info)) + ")");
}

// ---- operators --------------------------------------------------------------------------------
const char* bin_name(Bin k) {
  static const char* const names[] = {"plus", "minus", "times", "min", "max", "first", "second", "pair", "lor", "land"};
  return names[int(k)];
}
const char* mon_name(Mon k) {
  static const char* const names[] = {"plus", "times", "min", "max", "lor", "land", "any"};
  return names[int(k)];
}

#define DIFF_GRB_OPS(CT, S)                    \
  template <>                                  \
  GrB_BinaryOp grb_bin<CT>(Bin k) {            \
    switch (k) {                               \
      case Bin::Plus: return GrB_PLUS_##S;     \
      case Bin::Minus: return GrB_MINUS_##S;   \
      case Bin::Times: return GrB_TIMES_##S;   \
      case Bin::Min: return GrB_MIN_##S;       \
      case Bin::Max: return GrB_MAX_##S;       \
      case Bin::First: return GrB_FIRST_##S;   \
      case Bin::Second: return GrB_SECOND_##S; \
      case Bin::Pair: return GxB_PAIR_##S;     \
      case Bin::Lor: return GxB_LOR_##S;       \
      case Bin::Land: return GxB_LAND_##S;     \
    }                                          \
    return GrB_NULL;                           \
  }
DIFF_GRB_OPS(bool, BOOL)
DIFF_GRB_OPS(std::int8_t, INT8)
DIFF_GRB_OPS(std::int16_t, INT16)
DIFF_GRB_OPS(std::int32_t, INT32)
DIFF_GRB_OPS(std::int64_t, INT64)
DIFF_GRB_OPS(std::uint8_t, UINT8)
DIFF_GRB_OPS(std::uint16_t, UINT16)
DIFF_GRB_OPS(std::uint32_t, UINT32)
DIFF_GRB_OPS(std::uint64_t, UINT64)
DIFF_GRB_OPS(float, FP32)
DIFF_GRB_OPS(double, FP64)
#undef DIFF_GRB_OPS

#define DIFF_GRB_MONOIDS(CT, S)                     \
  template <>                                       \
  GrB_Monoid grb_monoid<CT>(Mon k) {                \
    switch (k) {                                    \
      case Mon::Plus: return GrB_PLUS_MONOID_##S;   \
      case Mon::Times: return GrB_TIMES_MONOID_##S; \
      case Mon::Min: return GrB_MIN_MONOID_##S;     \
      case Mon::Max: return GrB_MAX_MONOID_##S;     \
      case Mon::Any: return GxB_ANY_##S##_MONOID;   \
      case Mon::Lor:                                \
      case Mon::Land: break; /* bool only */        \
    }                                               \
    return GrB_NULL;                                \
  }
DIFF_GRB_MONOIDS(std::int8_t, INT8)
DIFF_GRB_MONOIDS(std::int16_t, INT16)
DIFF_GRB_MONOIDS(std::int32_t, INT32)
DIFF_GRB_MONOIDS(std::int64_t, INT64)
DIFF_GRB_MONOIDS(std::uint8_t, UINT8)
DIFF_GRB_MONOIDS(std::uint16_t, UINT16)
DIFF_GRB_MONOIDS(std::uint32_t, UINT32)
DIFF_GRB_MONOIDS(std::uint64_t, UINT64)
DIFF_GRB_MONOIDS(float, FP32)
DIFF_GRB_MONOIDS(double, FP64)
#undef DIFF_GRB_MONOIDS
// bool: plus and max are logical or, times and min logical and (as gbcuda's monoids over bool).
template <>
GrB_Monoid grb_monoid<bool>(Mon k) {
  switch (k) {
    case Mon::Plus:
    case Mon::Max:
    case Mon::Lor: return GrB_LOR_MONOID_BOOL;
    case Mon::Times:
    case Mon::Min:
    case Mon::Land: return GrB_LAND_MONOID_BOOL;
    case Mon::Any: return GxB_ANY_BOOL_MONOID;
  }
  return GrB_NULL;
}

template <class T>
GrB_Semiring grb_semiring(Mon add, Bin mul) {
  // Kept for the process, in plain arrays: a static std::map would be destroyed before the leak
  // checker runs at exit, which would then report its objects as leaked.
  static std::mutex lock;
  static GrB_Semiring made[7][10];
  std::lock_guard guard(lock);
  GrB_Semiring& s = made[int(add)][int(mul)];
  if (!s) OPS_GRB(GrB_Semiring_new(&s, grb_monoid<T>(add), grb_bin<T>(mul)));
  return s;
}

GrB_Descriptor grb_product_desc(bool replace, bool structural, bool complement, bool t0, bool t1) {
  static std::mutex lock;
  static GrB_Descriptor made[32];  // kept for the process (a plain array, as grb_semiring says why)
  std::lock_guard guard(lock);
  GrB_Descriptor& d =
      made[(replace ? 16 : 0) + (structural ? 8 : 0) + (complement ? 4 : 0) + (t0 ? 2 : 0) + (t1 ? 1 : 0)];
  if (!d) {
    OPS_GRB(GrB_Descriptor_new(&d));
    if (replace) OPS_GRB(GrB_Descriptor_set(d, GrB_OUTP, GrB_REPLACE));
    if (structural) OPS_GRB(GrB_Descriptor_set(d, GrB_MASK, GrB_STRUCTURE));  // the two settings combine
    if (complement) OPS_GRB(GrB_Descriptor_set(d, GrB_MASK, GrB_COMP));
    if (t0) OPS_GRB(GrB_Descriptor_set(d, GrB_INP0, GrB_TRAN));
    if (t1) OPS_GRB(GrB_Descriptor_set(d, GrB_INP1, GrB_TRAN));
    OPS_GRB(GrB_Descriptor_set(d, GxB_AxB_METHOD, GxB_AxB_DOT));
  }
  return d;
}

Accum draw_accum(Case& c, Accums set, bool safe_only, bool no_minus) {
  Accum a;
  if (c.pick(3) == 0) {
    c.note("accum=none");
    return a;
  }
  static const Bin all[] = {Bin::Plus, Bin::Minus, Bin::Times, Bin::Min, Bin::Max, Bin::First, Bin::Second};
  static const Bin all_safe[] = {Bin::Min, Bin::Max, Bin::First, Bin::Second};
  static const Bin few[] = {Bin::Minus, Bin::Min, Bin::Second};
  static const Bin few_safe[] = {Bin::Min, Bin::Second};
  a.has = true;
  if (set == Accums::All) a.op = safe_only ? all_safe[c.pick(4)] : all[c.pick(7)];
  else a.op = safe_only ? few_safe[c.pick(2)] : few[c.pick(3)];
  if (no_minus && a.op == Bin::Minus) a.op = Bin::Second;
  c.note(std::string("accum=") + bin_name(a.op));
  return a;
}

// ---- vectors in every form --------------------------------------------------------------------
namespace {

template <class T>
Tuples<T> draw_tuples(Case& c, Index n, double density, bool for_mask) {
  Tuples<T> t;
  t.n = n;
  if (density == 0 || n == 0) return t;
  if (density < 0) {  // exactly one entry
    const Index i = c.between(0, n - 1);
    t.idx.push_back(i);
    t.vals.push_back(draw_value<T>(c, for_mask));
    return t;
  }
  std::bernoulli_distribution keep(std::min(1.0, density));
  for (Index i = 0; i < n; ++i)
    if (density >= 1.0 || keep(c.rng())) {
      t.idx.push_back(i);
      t.vals.push_back(draw_value<T>(c, for_mask));
    }
  return t;
}

// How a vector was made. Each gives exactly the tuples asked for.
enum class Made {
  Empty,          // Vector(n): never had an entry (index array never allocated)
  Cleared,        // had entries, then clear()
  Removed,        // had entries, then remove_element of each extra one
  Tuples,         // from_tuples, sorted
  Shuffled,       // from_tuples, indices in no order, some twice (the last wins)
  Bitmap,         // to_form(Bitmap)
  BitmapControl,  // set_form_control(FormControl::Bitmap)
  Dense,          // to_form(Dense) of a full vector
  Full,           // Vector::full(n, x)
  SetElement,     // element by element, with overwrites and removals
  Applied,        // apply(Identity) of a vector with these tuples
  MaskedApply,    // apply(Identity) of a full vector through a structural mask of the pattern
  Union,          // ewise_add(First) of two disjoint halves
  Intersection,   // ewise_mult of two vectors: their common entries
  Assigned,       // assign(v, no_mask, no_accum, u) over a vector holding other entries
  MovedInto,      // a vector holding other entries, then move-assigned
  MovedFrom,      // a moved-from vector assigned again
  Copied,         // copy-constructed
  OtherBackend,   // made in the other backend (inputs only: the operation copies it)
};
const char* made_name(Made m) {
  static const char* const names[] = {"empty",      "cleared",        "removed", "tuples",       "shuffled",
                                      "bitmap",     "bitmap-control", "dense",   "full",         "set-element",
                                      "applied",    "masked-apply",   "union",   "intersection", "assigned",
                                      "moved-into", "moved-from",     "copied",  "other-backend"};
  return names[int(m)];
}

template <class T>
Vector<T> from(const Tuples<T>& t, Backend where) {
  return Vector<T>::from_tuples(t.n, t.idx, t.vals, where);
}

template <class T>
Vector<T> build(Case& c, Made how, Tuples<T>& t, Backend where, bool for_mask) {
  const Index n = t.n;
  switch (how) {
    case Made::Empty: return Vector<T>(n, where);
    case Made::Cleared: {
      Vector<T> v = from(draw_tuples<T>(c, n, 0.5, for_mask), where);
      v.clear();
      return v;
    }
    case Made::Removed: {  // t's entries plus extra ones, then the extras removed
      Tuples<T> more = draw_tuples<T>(c, n, 0.3, for_mask);
      std::map<Index, T> all;
      for (std::size_t k = 0; k < more.idx.size(); ++k) all[more.idx[k]] = more.vals[k];
      for (std::size_t k = 0; k < t.idx.size(); ++k) all[t.idx[k]] = t.vals[k];
      Tuples<T> u;
      u.n = n;
      for (auto& [i, x] : all) u.idx.push_back(i), u.vals.push_back(x);
      Vector<T> v = from(u, where);
      for (Index i : more.idx)
        if (!std::binary_search(t.idx.begin(), t.idx.end(), i)) v.remove_element(i);
      return v;
    }
    case Made::Tuples: return from(t, where);
    case Made::Shuffled: {  // some indices twice with another value, all in random order
      std::vector<std::pair<Index, T>> list;
      for (std::size_t k = 0; k < t.idx.size(); ++k) {
        list.emplace_back(t.idx[k], t.vals[k]);
        if (c.chance(0.2)) list.emplace_back(t.idx[k], draw_value<T>(c, for_mask));
      }
      std::shuffle(list.begin(), list.end(), c.rng());
      std::vector<Index> idx;
      std::vector<T> vals;
      std::map<Index, T> last;  // the reference: each index's last value in the list
      for (auto& [i, x] : list) {
        idx.push_back(i);
        vals.push_back(x);
        last[i] = x;
      }
      t.idx.clear();
      t.vals.clear();
      for (auto& [i, x] : last) t.idx.push_back(i), t.vals.push_back(x);
      return Vector<T>::from_tuples(n, idx, vals, where);
    }
    case Made::Bitmap: {
      Vector<T> v = from(t, where);
      v.to_form(gbcuda::VectorForm::Bitmap);
      return v;
    }
    case Made::BitmapControl: {
      Vector<T> v = from(t, where);
      v.set_form_control(gbcuda::FormControl::Bitmap);
      return v;
    }
    case Made::Dense: {
      Vector<T> v = from(t, where);
      if (Index(t.idx.size()) == n) v.to_form(gbcuda::VectorForm::Dense);
      return v;
    }
    case Made::Full: {
      const T x = t.vals.empty() ? T(1) : t.vals[0];
      std::fill(t.vals.begin(), t.vals.end(), x);
      return Vector<T>::full(n, x, where);
    }
    case Made::SetElement: {
      Vector<T> v(n, where);
      std::vector<std::size_t> order(t.idx.size());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), c.rng());
      for (std::size_t k : order) {
        if (c.chance(0.2)) v.set_element(t.idx[k], draw_value<T>(c, for_mask));  // overwritten next
        v.set_element(t.idx[k], t.vals[k]);
        if (n > 0 && c.chance(0.1)) {  // an extra entry, removed again
          const Index i = c.between(0, n - 1);
          if (!std::binary_search(t.idx.begin(), t.idx.end(), i)) {
            v.set_element(i, draw_value<T>(c, for_mask));
            v.remove_element(i);
          }
        }
      }
      return v;
    }
    case Made::Applied: {
      Vector<T> v(n, where);
      gbcuda::apply(v, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Identity<T>{}, from(t, where));
      return v;
    }
    case Made::MaskedApply: {
      Tuples<T> full = draw_tuples<T>(c, n, 1.0, for_mask);
      for (std::size_t k = 0; k < t.idx.size(); ++k) full.vals[std::size_t(t.idx[k])] = t.vals[k];
      Vector<T> v(n, where);
      gbcuda::apply(v, from(t, where), gbcuda::no_accum, gbcuda::Identity<T>{}, from(full, where), gbcuda::desc::S);
      return v;
    }
    case Made::Union: {
      Tuples<T> a, b;
      a.n = b.n = n;
      for (std::size_t k = 0; k < t.idx.size(); ++k) {
        Tuples<T>& half = c.chance(0.5) ? a : b;
        half.idx.push_back(t.idx[k]);
        half.vals.push_back(t.vals[k]);
      }
      Vector<T> v(n, where);
      gbcuda::ewise_add(v, gbcuda::no_mask, gbcuda::no_accum, gbcuda::First<T>{}, from(a, where), from(b, where));
      return v;
    }
    case Made::Intersection: {  // t itself, and a superset of t's pattern (SECOND would take its values)
      Tuples<T> super = draw_tuples<T>(c, n, 0.4, for_mask);
      std::map<Index, T> all;
      for (std::size_t k = 0; k < super.idx.size(); ++k) all[super.idx[k]] = super.vals[k];
      for (std::size_t k = 0; k < t.idx.size(); ++k) all.emplace(t.idx[k], draw_value<T>(c, for_mask));
      Tuples<T> s;
      s.n = n;
      for (auto& [i, x] : all) s.idx.push_back(i), s.vals.push_back(x);
      Vector<T> v(n, where);
      gbcuda::ewise_mult(v, gbcuda::no_mask, gbcuda::no_accum, gbcuda::First<T>{}, from(t, where), from(s, where));
      return v;
    }
    case Made::Assigned: {
      Vector<T> v = from(draw_tuples<T>(c, n, 0.5, for_mask), where);
      gbcuda::assign(v, gbcuda::no_mask, gbcuda::no_accum, from(t, where));
      return v;
    }
    case Made::MovedInto: {
      Vector<T> v = from(draw_tuples<T>(c, n, 0.5, for_mask), where);
      Vector<T> src = from(t, where);
      v = std::move(src);
      return v;
    }
    case Made::MovedFrom: {
      Vector<T> v = from(draw_tuples<T>(c, n, 0.5, for_mask), where);
      Vector<T> sink = std::move(v);
      v = from(t, where);
      return v;
    }
    case Made::Copied: {
      const Vector<T> src = from(t, where);
      Vector<T> v(src);
      return v;
    }
    case Made::OtherBackend: return from(t, where == Backend::Cuda ? Backend::Host : Backend::Cuda);
  }
  return from(t, where);
}

}  // namespace

template <class T>
Input<T> make_vector(Case& c, const char* role, Index n, Backend where, double density, bool for_mask) {
  if (density < 0 && density != -1) density = -1;
  if (density == -1) {  // none given: draw one
    static const double choices[] = {0.0, -2.0, 0.02, 0.1, 0.5, 0.9, 1.0};
    density = choices[c.pick(7)];
  }
  Input<T> in;
  in.t = draw_tuples<T>(c, n, density == -2.0 ? -1.0 : density, for_mask);
  // The ways that can give these tuples.
  std::vector<Made> ways;
  for (int k = 0; k <= int(Made::OtherBackend); ++k) {
    const Made m = Made(k);
    const bool empty = in.t.idx.empty(), full = Index(in.t.idx.size()) == n;
    if ((m == Made::Empty || m == Made::Cleared) && !empty) continue;
    if ((m == Made::Dense || m == Made::Full) && !full) continue;
    if (m == Made::OtherBackend && where != Backend::Cuda) continue;  // the host-only tests never reach a GPU
    if (m == Made::OtherBackend && std::string_view(role) == "w") continue;
    ways.push_back(m);
  }
  const Made how = ways[std::size_t(c.pick(int(ways.size())))];
  in.v = build(c, how, in.t, where, for_mask);
  std::ostringstream o;
  o << role << '=' << made_name(how) << '(' << n << ',' << in.t.idx.size() << ')';
  c.note(o.str());
  if (trace_level() > 1) {  // the entries too (the first 64)
    for (std::size_t k = 0; k < in.t.idx.size() && k < 64; ++k)
      std::printf("    (%lld, %s)\n", static_cast<long long>(in.t.idx[k]), value_string<T>(in.t.vals[k]).c_str());
    std::fflush(stdout);
  }
  return in;
}

// ---- matrices ---------------------------------------------------------------------------------
namespace {
enum class MadeMatrix {
  Coo,
  Pattern,
  CooLast,
  Csr,
  Selected,
  Applied,
  MovedInto,
  Copied,
  Empty,
  Dense,
  OnGpu,
  Transposed
};
const char* made_matrix_name(MadeMatrix m) {
  static const char* const names[] = {"coo",        "pattern", "coo-last", "csr",   "selected", "applied",
                                      "moved-into", "copied",  "empty",    "dense", "on-gpu",   "transposed"};
  return names[int(m)];
}

// Entries with duplicates: each of `raw` (which may repeat coordinates) and the combined result.
template <class T>
struct RawEntries {
  std::vector<Index> rows, cols;
  std::vector<T> vals;
};

template <class T>
Coo<T> combine(Index nrows, Index ncols, const RawEntries<T>& r, bool last) {
  std::map<std::pair<Index, Index>, T> m;
  for (std::size_t k = 0; k < r.rows.size(); ++k) {
    auto [it, fresh] = m.emplace(std::make_pair(r.rows[k], r.cols[k]), r.vals[k]);
    if (!fresh) it->second = last ? r.vals[k] : gbcuda::Plus<T>{}(it->second, r.vals[k]);
  }
  Coo<T> coo;
  coo.nrows = nrows;
  coo.ncols = ncols;
  for (auto& [ij, x] : m) {
    coo.rows.push_back(ij.first);
    coo.cols.push_back(ij.second);
    coo.vals.push_back(x);
  }
  return coo;
}
}  // namespace

template <class T>
MatrixInput<T> make_matrix(Case& c, const char* role, Index nrows, Index ncols) {
  static const MadeMatrix all[] = {MadeMatrix::Coo,       MadeMatrix::Pattern,  MadeMatrix::CooLast,
                                   MadeMatrix::Csr,       MadeMatrix::Selected, MadeMatrix::Applied,
                                   MadeMatrix::MovedInto, MadeMatrix::Copied,   MadeMatrix::Empty,
                                   MadeMatrix::Dense,     MadeMatrix::OnGpu,    MadeMatrix::Transposed};
  MadeMatrix how = all[c.pick(12)];
  if (how == MadeMatrix::OnGpu && c.b != Backend::Cuda) how = MadeMatrix::Coo;
  if (how == MadeMatrix::Dense && nrows * ncols > 40000) how = MadeMatrix::Coo;
  // Entries: about `avg` a row (Poisson), some rows empty, some coordinates twice, and now and
  // then a long row (the products' long-row paths).
  static const double avgs[] = {0.5, 2.0, 6.0, 20.0};
  const double avg = avgs[c.pick(4)];
  RawEntries<T> entries;
  if (how == MadeMatrix::Dense) {
    for (Index i = 0; i < nrows; ++i)
      for (Index j = 0; j < ncols; ++j)
        entries.rows.push_back(i), entries.cols.push_back(j), entries.vals.push_back(draw_value<T>(c));
  } else if (how != MadeMatrix::Empty && nrows > 0 && ncols > 0) {
    std::poisson_distribution<int> count(avg);
    for (Index i = 0; i < nrows; ++i) {
      if (c.chance(0.2)) continue;
      int k = count(c.rng());
      if (c.chance(0.01)) k = int(std::min<Index>(ncols, 1500 + c.between(0, 1000)));  // a long row
      for (int e = 0; e < k; ++e) {
        const Index j = c.between(0, ncols - 1);
        const int copies = c.chance(0.1) ? 2 : 1;
        for (int d = 0; d < copies; ++d)
          entries.rows.push_back(i), entries.cols.push_back(j), entries.vals.push_back(draw_value<T>(c));
      }
    }
  }
  if (how == MadeMatrix::Pattern) std::fill(entries.vals.begin(), entries.vals.end(), T(1));
  MatrixInput<T> in;
  // A pattern's duplicates are one entry of value 1, like the last of equal values.
  const bool last = how == MadeMatrix::CooLast || how == MadeMatrix::Pattern;
  in.coo = combine(nrows, ncols, entries, last);
  auto from_coo = [&](const RawEntries<T>& r, Index nr, Index nc, gbcuda::DuplicatePolicy dup) {
    if (how == MadeMatrix::Pattern) return Matrix<T>::from_coo(nr, nc, r.rows, r.cols, {}, dup);
    auto x = ops_ref::raw(r.vals);
    return Matrix<T>::from_coo(nr, nc, r.rows, r.cols, std::span<const T>(x.get(), r.vals.size()), dup);
  };
  switch (how) {
    case MadeMatrix::Coo:
    case MadeMatrix::Pattern:
    case MadeMatrix::Empty:
    case MadeMatrix::Dense: in.a = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum); break;
    case MadeMatrix::CooLast: in.a = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Last); break;
    case MadeMatrix::Csr: {  // rows in no order within, duplicates summed
      std::vector<gbcuda::Offset> ptr(std::size_t(nrows) + 1, 0);
      for (Index i : entries.rows) ++ptr[std::size_t(i) + 1];
      for (Index i = 0; i < nrows; ++i) ptr[std::size_t(i) + 1] += ptr[std::size_t(i)];
      std::vector<gbcuda::Vid> col(entries.rows.size());
      std::vector<T> val(entries.rows.size());
      std::vector<gbcuda::Offset> at(ptr.begin(), ptr.end() - 1);
      std::vector<std::size_t> order(entries.rows.size());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), c.rng());
      for (std::size_t k : order) {
        const auto p = std::size_t(at[std::size_t(entries.rows[k])]++);
        col[p] = gbcuda::Vid(entries.cols[k]);
        val[p] = entries.vals[k];
      }
      // The reference sums duplicates in any order: exact for the values drawn.
      in.a = Matrix<T>::from_csr(nrows, ncols, ptr, col, val);
      break;
    }
    case MadeMatrix::Selected: {  // TRIL with a thunk past every column keeps all
      Matrix<T> src = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum);
      gbcuda::select(in.a, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Tril{}, src, double(ncols), c.b);
      break;
    }
    case MadeMatrix::Applied: {
      Matrix<T> src = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum);
      gbcuda::apply(in.a, gbcuda::no_mask, gbcuda::no_accum, gbcuda::Identity<T>{}, src, c.b);
      break;
    }
    case MadeMatrix::MovedInto: {
      Matrix<T> src = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum);
      in.a = Matrix<T>::from_coo(1, 1, std::vector<Index>{0}, std::vector<Index>{0});
      in.a = std::move(src);
      break;
    }
    case MadeMatrix::Copied: {
      const Matrix<T> src = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum);
      in.a = src;
      break;
    }
    case MadeMatrix::OnGpu:
      in.a = from_coo(entries, nrows, ncols, gbcuda::DuplicatePolicy::Sum);
      in.a.csr(Backend::Cuda);
      break;
    case MadeMatrix::Transposed: {  // (A')' of the entries given transposed
      RawEntries<T> t{entries.cols, entries.rows, entries.vals};
      Matrix<T> at = from_coo(t, ncols, nrows, gbcuda::DuplicatePolicy::Sum);
      in.a = at.transpose();
      break;
    }
  }
  std::ostringstream o;
  o << role << '=' << made_matrix_name(how) << '(' << nrows << 'x' << ncols << ',' << in.coo.rows.size() << ')';
  c.note(o.str());
  return in;
}

template <class T>
GMat grb_of(const Coo<T>& coo) {
  GMat g;
  OPS_GRB(GrB_Matrix_new(&g.m, Grb<T>::type(), GrB_Index(coo.nrows), GrB_Index(coo.ncols)));
  std::vector<GrB_Index> i(coo.rows.begin(), coo.rows.end()), j(coo.cols.begin(), coo.cols.end());
  i.reserve(1);
  j.reserve(1);
  auto x = raw(coo.vals);
  OPS_GRB(Grb<T>::mbuild(g.m, i.data(), j.data(), x.get(), GrB_Index(i.size()), Grb<T>::second()));
  // Never iso, for the reason ref_vector gives (a matrix may be an aliased output).
  bool iso = false;
  OPS_GRB(GxB_Matrix_iso(&iso, g.m));
  if (iso && coo.rows.size() > 1) {
    const T x0 = coo.vals[0];
    const T other = std::is_same_v<T, bool> ? T(!x0) : T(x0 + T(1));
    OPS_GRB(Grb<T>::mset_element(g.m, other, GrB_Index(coo.rows[0]), GrB_Index(coo.cols[0])));
    OPS_GRB(Grb<T>::mset_element(g.m, x0, GrB_Index(coo.rows[0]), GrB_Index(coo.cols[0])));
    OPS_GRB(GrB_Matrix_wait(g.m, GrB_MATERIALIZE));
  }
  return g;
}

// ---- masks ------------------------------------------------------------------------------------
template <class T>
Mask<T> draw_mask(Case& c, Index n, bool input_ok) {
  Mask<T> m;
  const int k = c.pick(input_ok ? 100 : 85);
  m.is = k < 25   ? MaskIs::None
         : k < 50 ? MaskIs::Same
         : k < 70 ? MaskIs::Other
         : k < 85 ? MaskIs::Output
                  : MaskIs::Input;
  m.replace = c.chance(0.5);
  m.complement = c.chance(0.5);
  m.structural = c.chance(0.5);
  std::string s = "mask=";
  s += m.is == MaskIs::None     ? "none"
       : m.is == MaskIs::Same   ? "same-type"
       : m.is == MaskIs::Other  ? "other-type"
       : m.is == MaskIs::Output ? "output"
                                : "input";
  if (m.structural) s += ",structural";
  if (m.complement) s += ",complement";
  if (m.replace) s += ",replace";
  c.note(s);
  // Masks live in the output's backend mostly, sometimes in the other one.
  const Backend where = c.b == Backend::Cuda && c.chance(0.1) ? Backend::Host : c.b;
  if (m.is == MaskIs::Same) {
    m.same = make_vector<T>(c, "m", n, where, -1, true);
    m.g = ref_vector(m.same->t);
  } else if (m.is == MaskIs::Other) {
    m.other = make_vector<OtherMaskType<T>>(c, "m", n, where, -1, true);
    m.g = ref_vector(m.other->t);
  }
  return m;
}

// ---- comparison -------------------------------------------------------------------------------
template <class T>
bool same_value(T got, T want) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
    if (std::isinf(got) || std::isinf(want)) return got == want;
    const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
    return std::abs(double(got) - double(want)) <= tol * std::max(1.0, std::abs(double(want)));
  } else {
    return got == want;
  }
}

namespace {
template <class T>
std::string compare_tuples(const Tuples<T>& got, const Tuples<T>& want) {
  std::ostringstream o;
  if (got.n != want.n) {
    o << "length " << got.n << ", expected " << want.n;
    return o.str();
  }
  std::size_t a = 0, b = 0;
  while (a < got.idx.size() || b < want.idx.size()) {
    const Index ig = a < got.idx.size() ? got.idx[a] : got.n;
    const Index iw = b < want.idx.size() ? want.idx[b] : want.n;
    if (ig < iw) {
      o << "unexpected entry (" << ig << ", " << value_string(got.vals[a]) << ")";
    } else if (iw < ig) {
      o << "missing entry (" << iw << ", " << value_string(want.vals[b]) << ")";
    } else if (!same_value(got.vals[a], want.vals[b])) {
      o << "at " << ig << ": " << value_string(got.vals[a]) << ", expected " << value_string(want.vals[b]);
    } else {
      ++a, ++b;
      continue;
    }
    o << "; " << got.idx.size() << " entries, expected " << want.idx.size();
    return o.str();
  }
  return {};
}
}  // namespace

template <class T>
void compare_vector(Case& c, const Vector<T>& w, GrB_Vector want, Backend expected_backend) {
  if (!c.failure.empty()) return;
  const Tuples<T> got = tuples_of(w), ref = tuples_of<T>(want);
  if (std::string d = compare_tuples(got, ref); !d.empty()) return c.fail(d);
  if (w.backend() != expected_backend) return c.fail("the output moved to another backend");
  if (w.nvals() != Index(got.idx.size()))
    return c.fail("nvals() " + std::to_string(w.nvals()) + " but " + std::to_string(got.idx.size()) + " tuples");
  if (c.chance(0.2)) {  // the dense view agrees with the tuples
    const std::vector<T> dense = w.to_dense_vector(T(0));
    std::vector<T> expect(std::size_t(ref.n), T(0));
    for (std::size_t k = 0; k < ref.idx.size(); ++k) expect[std::size_t(ref.idx[k])] = ref.vals[k];
    for (std::size_t i = 0; i < dense.size(); ++i)
      if (!same_value<T>(dense[i], expect[i])) return c.fail("to_dense_vector differs at " + std::to_string(i));
  }
}

template <class T>
void compare_matrix(Case& c, const Matrix<T>& got, GrB_Matrix want) {
  if (!c.failure.empty()) return;
  GrB_Index nr = 0, nc = 0, nv = 0;
  grb_ok(c, GrB_Matrix_nrows(&nr, want), "nrows");
  grb_ok(c, GrB_Matrix_ncols(&nc, want), "ncols");
  grb_ok(c, GrB_Matrix_nvals(&nv, want), "nvals");
  if (got.nrows() != Index(nr) || got.ncols() != Index(nc))
    return c.fail("size " + std::to_string(got.nrows()) + "x" + std::to_string(got.ncols()) + ", expected " +
                  std::to_string(nr) + "x" + std::to_string(nc));
  std::vector<GrB_Index> I(std::max<GrB_Index>(nv, 1)), J(std::max<GrB_Index>(nv, 1));
  std::unique_ptr<T[]> X(new T[std::max<GrB_Index>(nv, 1)]);
  GrB_Index n = nv;
  grb_ok(c, Grb<T>::mextract(I.data(), J.data(), X.get(), &n, want), "extractTuples");
  std::map<std::pair<Index, Index>, T> ref;
  for (GrB_Index k = 0; k < n; ++k) ref[{Index(I[k]), Index(J[k])}] = X[k];
  std::vector<Index> gi, gj;
  std::vector<T> gx;
  gbcuda::extract_tuples(got, gi, gj, gx);
  if (got.nvals() != Index(gi.size())) return c.fail("nvals() differs from the tuples");
  std::map<std::pair<Index, Index>, T> mine;
  for (std::size_t k = 0; k < gi.size(); ++k) {
    if (k > 0 && std::make_pair(gi[k - 1], gj[k - 1]) >= std::make_pair(gi[k], gj[k]))
      return c.fail("extract_tuples not in row order at " + std::to_string(k));
    mine[{gi[k], gj[k]}] = gx[k];
  }
  auto a = mine.begin();
  auto b = ref.begin();
  std::ostringstream o;
  while (a != mine.end() || b != ref.end()) {
    if (b == ref.end() || (a != mine.end() && a->first < b->first)) {
      o << "unexpected entry (" << a->first.first << "," << a->first.second << ")";
    } else if (a == mine.end() || b->first < a->first) {
      o << "missing entry (" << b->first.first << "," << b->first.second << ", " << value_string(b->second) << ")";
    } else if (!same_value(a->second, b->second)) {
      o << "at (" << a->first.first << "," << a->first.second << "): " << value_string(a->second) << ", expected "
        << value_string(b->second);
    } else {
      ++a, ++b;
      continue;
    }
    o << "; " << mine.size() << " entries, expected " << ref.size();
    return c.fail(o.str());
  }
}

template <class T>
void compare_scalar(Case& c, T got, T want) {
  if (c.failure.empty() && !same_value(got, want))
    c.fail("scalar " + value_string(got) + ", expected " + value_string(want));
}

#define DIFF_INSTANTIATE(T)                                                           \
  template GrB_Semiring grb_semiring<T>(Mon, Bin);                                    \
  template Input<T> make_vector<T>(Case&, const char*, Index, Backend, double, bool); \
  template MatrixInput<T> make_matrix<T>(Case&, const char*, Index, Index);           \
  template GMat grb_of<T>(const Coo<T>&);                                             \
  template Mask<T> draw_mask<T>(Case&, Index, bool);                                  \
  template bool same_value<T>(T, T);                                                  \
  template void compare_vector<T>(Case&, const Vector<T>&, GrB_Vector, Backend);      \
  template void compare_matrix<T>(Case&, const Matrix<T>&, GrB_Matrix);               \
  template void compare_scalar<T>(Case&, T, T);
GBCUDA_FOR_EACH_TYPE(DIFF_INSTANTIATE)
#undef DIFF_INSTANTIATE

}  // namespace diff
