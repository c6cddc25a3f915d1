#pragma once
// The host backend's element-wise primitives: apply (and select, through its keep predicate) and
// ewise add/mult. Output forms: apply the input's form (Bitmap for a masked Dense input); ewise
// Sparse when both inputs are Sparse, or an intersection with one Sparse input, else Bitmap (Dense
// for two Dense inputs without a mask).
#include "gbcuda/detail/host/util.hpp"

namespace gbcuda::detail::host {

// ---- apply: t(i) = op(u(i)), where keep(u(i), i) ------------------------------------------
// KeepAll: every entry stays (apply); select passes its predicate.
struct KeepAll {
  template <class X>
  constexpr bool operator()(const X&, Index) const {
    return true;
  }
};
template <class Op, class TU, class Keep = KeepAll>
void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const Keep& keep = {}) {
  using Z = typename Op::result_type;
  constexpr bool keeps_all = std::is_same_v<Keep, KeepAll>;
  const Index n = u.n;
  util::reset(t, n);
  if (u.form == VectorForm::Sparse) {
    util::compact(
        u.nvals, [&](Index p) { return m.allows(u.indices[p]) && keep(u.value(p), Index(u.indices[p])); },
        [&](Index count) {
          t.nvals = count;
          t.indices = util::host_array<Vid>(count);
          t.values = util::host_array<Z>(count);
        },
        [&](Index pos, Index p) {
          t.indices[pos] = u.indices[p];
          t.values[pos] = static_cast<Z>(op(u.value(p)));
        });
    t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    return;
  }
  if (m.listed) {
    // A sparse structural mask lists every position that may be written: visit only those.
    util::compact(
        m.list_size, [&](Index p) { return u.present(m.list[p]) && keep(u.value(m.list[p]), Index(m.list[p])); },
        [&](Index count) {
          t.nvals = count;
          t.indices = util::host_array<Vid>(count);
          t.values = util::host_array<Z>(count);
        },
        [&](Index pos, Index p) {
          const Index i = m.list[p];
          t.indices[pos] = static_cast<Vid>(i);
          t.values[pos] = static_cast<Z>(op(u.value(i)));
        });
    t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    return;
  }
  t.values = util::host_array<Z>(n);
  Z* tv = t.values.data();
  if (keeps_all && u.form == VectorForm::Dense && !m.present()) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) tv[i] = static_cast<Z>(op(u.value(i)));
    t.form = VectorForm::Dense;
    t.nvals = n;
    return;
  }
  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(n);
  std::uint8_t* tb = t.bitmap.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    const bool stays = u.present(i) && m.allows(i) && keep(u.value(i), i);
    tb[i] = stays ? 1 : 0;
    if (stays) {
      tv[i] = static_cast<Z>(op(u.value(i)));
      ++count;
    }
  }
  t.nvals = count;
}

// ---- ewise: t(i) = op(u(i), v(i)) on the intersection, or on the union ---------------------
template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union) {
  using Z = typename Op::result_type;
  const Index n = u.n;
  util::reset(t, n);
  const bool u_sparse = u.form == VectorForm::Sparse;
  const bool v_sparse = v.form == VectorForm::Sparse;

  if (u_sparse && v_sparse) {
    // Merge the two index lists in ascending order; the result is sorted.
    const std::vector<Index> uo = util::sorted_order(u.indices, u.nvals);
    const std::vector<Index> vo = util::sorted_order(v.indices, v.nvals);
    std::vector<Vid> oi;
    std::vector<Z> ov;
    const std::size_t cap = is_union ? uo.size() + vo.size() : std::min(uo.size(), vo.size());
    oi.reserve(cap);
    ov.reserve(cap);
    std::size_t a = 0, b = 0;
    while (a < uo.size() || b < vo.size()) {
      const Index iu = a < uo.size() ? u.indices[uo[a]] : n;
      const Index iv = b < vo.size() ? v.indices[vo[b]] : n;
      if (!is_union && (a == uo.size() || b == vo.size())) break;
      const Index i = std::min(iu, iv);
      const bool allowed = m.allows(i);
      if (iu == iv) {
        if (allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(op(u.value(uo[a]), v.value(vo[b]))));
        }
        ++a, ++b;
      } else if (iu < iv) {
        if (is_union && allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(u.value(uo[a])));
        }
        ++a;
      } else {
        if (is_union && allowed) {
          oi.push_back(static_cast<Vid>(i));
          ov.push_back(static_cast<Z>(v.value(vo[b])));
        }
        ++b;
      }
    }
    t.nvals = static_cast<Index>(oi.size());
    t.indices = util::to_array(oi);
    t.values = util::to_array(ov);
    return;
  }

  if (!is_union && (u_sparse || v_sparse)) {
    // Intersection with one sparse side: filter its entries by the other's presence.
    auto filter = [&](const auto& sp, const auto& other, auto make) {
      util::compact(
          sp.nvals,
          [&](Index p) {
            const Index i = sp.indices[p];
            return other.present(i) && m.allows(i);
          },
          [&](Index count) {
            t.nvals = count;
            t.indices = util::host_array<Vid>(count);
            t.values = util::host_array<Z>(count);
          },
          [&](Index pos, Index p) {
            const Index i = sp.indices[p];
            t.indices[pos] = static_cast<Vid>(i);
            t.values[pos] = make(p, i);
          });
      t.jumbled = !util::strictly_sorted(t.indices.data(), t.nvals);
    };
    if (u_sparse) filter(u, v, [&](Index p, Index i) { return static_cast<Z>(op(u.value(p), v.value(i))); });
    else filter(v, u, [&](Index p, Index i) { return static_cast<Z>(op(u.value(i), v.value(p))); });
    return;
  }

  // Bitmap output over all positions; a sparse side is spread into a bitmap first.
  Array<std::uint8_t> ub_hold, vb_hold;
  Array<TU> uv_hold;
  Array<TV> vv_hold;
  const VecView<TU> ub = u_sparse ? util::bitmap_of_sparse(u, ub_hold, uv_hold) : u;
  const VecView<TV> vb = v_sparse ? util::bitmap_of_sparse(v, vb_hold, vv_hold) : v;
  t.values = util::host_array<Z>(n);
  Z* tv = t.values.data();
  if (ub.form == VectorForm::Dense && vb.form == VectorForm::Dense && !m.present()) {
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) tv[i] = static_cast<Z>(op(ub.value(i), vb.value(i)));
    t.form = VectorForm::Dense;
    t.nvals = n;
    return;
  }
  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(n);
  std::uint8_t* tb = t.bitmap.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    tb[i] = 0;
    if (!m.allows(i)) continue;
    const bool up = ub.present(i), vp = vb.present(i);
    if (up && vp) tv[i] = static_cast<Z>(op(ub.value(i), vb.value(i)));
    else if (is_union && up) tv[i] = static_cast<Z>(ub.value(i));
    else if (is_union && vp) tv[i] = static_cast<Z>(vb.value(i));
    else continue;
    tb[i] = 1;
    ++count;
  }
  t.nvals = count;
}

}  // namespace gbcuda::detail::host
