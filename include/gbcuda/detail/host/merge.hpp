#pragma once
// The host backend's merges: w<m> = accum(w, t), of a result, of a scalar, and assign with an
// index list. Output forms: Bitmap or Dense (or t itself on the fast path); the caller conforms w.
#include "gbcuda/detail/host/util.hpp"

namespace gbcuda::detail::host {

// ---- merge: w<m> = accum(w, t) --------------------------------------------------------------
template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& accum, VectorStore<T>& t, bool replace) {
  constexpr bool has_accum = util::has_accum_v<Accum>;
  const Index n = w.n;
  if (!has_accum && (!m.present() || replace)) {
    // t holds entries only where the mask allows; everything else of w goes.
    w = std::move(t);
    w.n = n;
    w.where = Backend::Host;
    return;
  }
  // Positions where w(i) is deleted before t is laid over: outside the mask under replace, and
  // inside the mask without an accumulator (w(i) becomes t(i), present or not).
  const bool deletes = m.present() && (replace || !has_accum);
  if (w.form == VectorForm::Sparse || (deletes && w.form == VectorForm::Dense)) util::make_bitmap(w);
  const bool w_dense = w.form == VectorForm::Dense;
  std::uint8_t* wb = w.bitmap.data();
  T* wv = w.values.data();

  if (t.form == VectorForm::Sparse) {
    Index removed = 0, added = 0;
    if (deletes && !replace && m.listed) {
      // Without replace only allowed positions lose their entry, and the list names them all.
      for (Index p = 0; p < m.list_size; ++p) {
        const Index i = m.list[p];
        if (!w_dense && wb[i]) {
          wb[i] = 0;
          ++removed;
        }
      }
    } else if (deletes) {
      GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : removed) if (n > util::kParallelMin))
      for (Index i = 0; i < n; ++i) {
        const bool allowed = m.allows(i);
        if (wb[i] && ((!allowed && replace) || (allowed && !has_accum))) {
          wb[i] = 0;
          ++removed;
        }
      }
    }
    added = util::count_over(t.nvals, util::kParallelMin, [&](Index p) {
      const Index i = t.indices[p];
      if (w_dense || wb[i]) {
        if constexpr (has_accum) wv[i] = util::accumulate(accum, wv[i], t.values[p]);
        else wv[i] = t.values[p];
        return false;
      }
      wb[i] = 1;
      wv[i] = t.values[p];
      return true;
    });
    w.nvals += added - removed;
    return;
  }

  const std::uint8_t* tb = t.form == VectorForm::Bitmap ? t.bitmap.data() : nullptr;
  const T* tv = t.values.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    bool wp = w_dense || wb[i];
    const bool tp = tb == nullptr || tb[i];
    if (m.allows(i)) {
      if (tp) {
        if constexpr (has_accum) wv[i] = wp ? util::accumulate(accum, wv[i], tv[i]) : tv[i];
        else wv[i] = tv[i];
        wp = true;
      } else if (!has_accum) {
        wp = false;
      }
    } else if (replace) {
      wp = false;
    }
    if (!w_dense) wb[i] = wp ? 1 : 0;
    count += wp ? 1 : 0;
  }
  w.nvals = count;
}

// ---- merge_scalar: w<m> = accum(w, s) at every position --------------------------------------
template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& accum, T s, bool replace) {
  constexpr bool has_accum = util::has_accum_v<Accum>;
  const Index n = w.n;
  auto combine = [&](const T& old) -> T {
    if constexpr (has_accum) return util::accumulate(accum, old, s);
    else {
      (void)old;
      return s;
    }
  };

  if (m.listed) {
    // Sparse structural mask: touch only the listed positions (and, under replace, drop the rest).
    const Index L = m.list_size;
    if (w.form == VectorForm::Sparse) {
      // Walk w and the list in index order together; the result is sorted.
      const std::vector<Index> wo = util::sorted_order(w.indices.data(), w.nvals);
      const std::vector<Index> lo = util::sorted_order(m.list, L);
      std::vector<Vid> oi;
      std::vector<T> ov;
      oi.reserve(static_cast<std::size_t>(w.nvals + L));
      ov.reserve(static_cast<std::size_t>(w.nvals + L));
      std::size_t a = 0, b = 0;
      while (a < wo.size() || b < lo.size()) {
        const Index iw = a < wo.size() ? w.indices[wo[a]] : n;
        const Index il = b < lo.size() ? m.list[lo[b]] : n;
        if (iw == il) {
          oi.push_back(static_cast<Vid>(iw));
          ov.push_back(combine(w.values[wo[a]]));
          ++a, ++b;
        } else if (il < iw) {
          oi.push_back(static_cast<Vid>(il));
          ov.push_back(s);
          ++b;
        } else {
          if (!replace) {
            oi.push_back(static_cast<Vid>(iw));
            ov.push_back(w.values[wo[a]]);
          }
          ++a;
        }
      }
      Array<Vid> idx = util::to_array(oi);  // everything allocated before w changes
      Array<T> vals = util::to_array(ov);
      util::reset(w, n);
      w.nvals = static_cast<Index>(oi.size());
      w.indices = std::move(idx);
      w.values = std::move(vals);
      return;
    }
    const bool w_dense = w.form == VectorForm::Dense;
    if (replace) {
      // The result is exactly the listed positions.
      const std::vector<Index> lo = util::sorted_order(m.list, L);
      Array<Vid> idx = util::host_array<Vid>(L);
      Array<T> vals = util::host_array<T>(L);
      util::for_each_index(L, util::kParallelMin, [&](Index e) {
        const Index i = m.list[lo[static_cast<std::size_t>(e)]];
        idx[e] = static_cast<Vid>(i);
        vals[e] = (w_dense || w.bitmap[i]) ? combine(w.values[i]) : s;
      });
      util::reset(w, n);
      w.nvals = L;
      w.indices = std::move(idx);
      w.values = std::move(vals);
      return;
    }
    w.nvals += util::count_over(L, util::kParallelMin, [&](Index e) {
      const Index i = m.list[e];
      if (w_dense || w.bitmap[i]) {
        w.values[i] = combine(w.values[i]);
        return false;
      }
      w.bitmap[i] = 1;
      w.values[i] = s;
      return true;
    });
    return;
  }

  if (!m.present()) {
    // Every position is written: the result is full.
    if (w.form == VectorForm::Sparse) util::make_bitmap(w);
    const bool w_dense = w.form == VectorForm::Dense;
    GBCUDA_HOST_OMP(omp parallel for schedule(static) if (n > util::kParallelMin))
    for (Index i = 0; i < n; ++i) w.values[i] = (w_dense || w.bitmap[i]) ? combine(w.values[i]) : s;
    w.bitmap.reset();
    w.form = VectorForm::Dense;
    w.nvals = n;
    return;
  }

  util::make_bitmap(w);
  std::uint8_t* wb = w.bitmap.data();
  T* wv = w.values.data();
  Index count = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : count) if (n > util::kParallelMin))
  for (Index i = 0; i < n; ++i) {
    if (m.allows(i)) {
      wv[i] = wb[i] ? combine(wv[i]) : s;
      wb[i] = 1;
    } else if (replace) {
      wb[i] = 0;
    }
    count += wb[i] ? 1 : 0;
  }
  w.nvals = count;
}

// ---- assign with an index list: t(idx[k]) = accum(t(idx[k]), u(k)) -------------------------
// t is w's copy; u is Bitmap or Dense, of length count; idx has no duplicates. With no
// accumulator an absent u(k) deletes t(idx[k]).
template <class T, class Accum>
void assign_indexed(VectorStore<T>& t, const Index* idx, Index count, const VecView<T>& u, const Accum& accum) {
  util::make_bitmap(t);
  std::uint8_t* tb = t.bitmap.data();
  T* tv = t.values.data();
  Index delta = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : delta) if (count > util::kParallelMin))
  for (Index k = 0; k < count; ++k) {
    const Index i = idx[k];
    const bool was = tb[i] != 0;
    if (u.present(k)) {
      if constexpr (util::has_accum_v<Accum>) tv[i] = was ? util::accumulate(accum, tv[i], u.value(k)) : u.value(k);
      else tv[i] = u.value(k);
      tb[i] = 1;
      delta += was ? 0 : 1;
    } else if (!util::has_accum_v<Accum> && was) {
      tb[i] = 0;
      --delta;
    }
  }
  t.nvals += delta;
}

// ---- extract with an index list: t(k) = u(idx[k]) ----------------------------------------------
// GrB_Vector_extract: t (Bitmap, length count) holds u(idx[k]) at k where the mask allows k and u
// has that entry. u is Bitmap or Dense; idx may repeat and be in any order, each below u.n. A null
// idx is the identity, positions at u.n and past absent (a resize).
template <class T>
void extract_indexed(VectorStore<T>& t, const MaskView& m, const Index* idx, Index count, const VecView<T>& u) {
  util::reset(t, count);
  t.form = VectorForm::Bitmap;
  t.bitmap = util::host_array<std::uint8_t>(count);
  t.values = util::host_array<T>(count);
  std::uint8_t* tb = t.bitmap.data();
  T* tv = t.values.data();
  Index found = 0;
  GBCUDA_HOST_OMP(omp parallel for schedule(static) reduction(+ : found) if (count > util::kParallelMin))
  for (Index k = 0; k < count; ++k) {
    const Index i = idx ? idx[k] : k;
    const bool present = m.allows(k) && i < u.n && u.present(i);
    tb[k] = present ? 1 : 0;
    if (present) {
      tv[k] = u.value(i);
      ++found;
    }
  }
  t.nvals = found;
}

}  // namespace gbcuda::detail::host
