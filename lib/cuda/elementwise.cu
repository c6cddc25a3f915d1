// Element-wise primitives of the CUDA backend: merge (w<m> = accum(w, t)), merge_scalar,
// apply, ewise (add / mult) and mask_bitmap. Operators are dispatched by a run-time code
// (internal.cuh), so each primitive has one kernel per value type.
#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// A vector readable by position: bitmap == nullptr means every position is present.
template <class T>
struct PosInput {
  const std::uint8_t* bitmap = nullptr;
  const T* values = nullptr;
  __device__ bool present(Index i) const { return bitmap == nullptr || bitmap[i] != 0; }
};

// A positional form of a view: Bitmap and Dense are used in place, Sparse is scattered into a
// temporary bitmap (owned here).
template <class T>
struct PosHolder {
  Array<std::uint8_t> bitmap;
  Array<T> values;
  PosInput<T> in;
};

template <class T>
__global__ void scatter_kernel(std::uint8_t* __restrict__ bitmap, T* __restrict__ out, const Vid* __restrict__ idx,
                               const T* __restrict__ vals, Index nvals) {
  for (Index p = global_thread(); p < nvals; p += grid_threads()) {
    bitmap[idx[p]] = 1;
    out[idx[p]] = vals[p];
  }
}

template <class T>
PosHolder<T> positional(const VecView<T>& v) {
  PosHolder<T> h;
  if (v.form == VectorForm::Dense) {
    h.in.values = v.values;
  } else if (v.form == VectorForm::Bitmap) {
    h.in.bitmap = v.bitmap;
    h.in.values = v.values;
  } else {
    const auto n = static_cast<std::size_t>(v.n);
    h.bitmap = Array<std::uint8_t>(n, Backend::Cuda);
    h.bitmap.fill_bytes_with(0);
    h.values = Array<T>(n, Backend::Cuda);
    if (v.nvals > 0) {
      scatter_kernel<<<grid_for(v.nvals), kBlock>>>(h.bitmap.data(), h.values.data(), v.indices, v.values, v.nvals);
      CUDA_CHECK_LAUNCH();
    }
    h.in.bitmap = h.bitmap.data();
    h.in.values = h.values.data();
  }
  return h;
}

// A fresh output store of length n in the given form, arrays allocated (contents unset).
template <class T>
VectorStore<T> make_output(Index n, VectorForm form) {
  VectorStore<T> t = VectorStore<T>::empty(n, Backend::Cuda);
  t.form = form;
  if (form != VectorForm::Sparse) t.values = Array<T>(static_cast<std::size_t>(n), Backend::Cuda);
  if (form == VectorForm::Bitmap) t.bitmap = Array<std::uint8_t>(static_cast<std::size_t>(n), Backend::Cuda);
  return t;
}

// ---- merge ---------------------------------------------------------------------------------

// w (Bitmap) <m> = accum(w, t) over every position.
template <class T>
__global__ void merge_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, PosInput<T> t, MaskView m,
                             BinCode accum, bool replace, Index n, unsigned long long* count) {
  unsigned long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    bool wp = wb[i] != 0;
    if (m.allows(i)) {
      const bool tp = t.present(i);
      if (accum == BinCode::None) {
        wp = tp;
        if (tp) wv[i] = t.values[i];
      } else if (tp) {
        wv[i] = wp ? bin_apply(accum, wv[i], t.values[i]) : t.values[i];
        wp = true;
      }
    } else if (replace) {
      wp = false;
    }
    wb[i] = wp ? 1 : 0;
    local += wp;
  }
  block_count_add(local, count);
}

// w (Bitmap) <m> = accum(w, t) touching only t's entries (accum present, no replace).
template <class T>
__global__ void merge_sparse_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, const Vid* __restrict__ ti,
                                    const T* __restrict__ tv, Index tn, MaskView m, BinCode accum,
                                    unsigned long long* added) {
  unsigned long long local = 0;
  for (Index p = global_thread(); p < tn; p += grid_threads()) {
    const Vid i = ti[p];
    if (!m.allows(i)) continue;
    if (wb[i]) {
      wv[i] = bin_apply(accum, wv[i], tv[p]);
    } else {
      wv[i] = tv[p];
      wb[i] = 1;
      ++local;
    }
  }
  block_count_add(local, added);
}

// ---- merge_scalar --------------------------------------------------------------------------

template <class T>
__global__ void fill_kernel(T* __restrict__ out, T s, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads()) out[i] = s;
}

template <class T>
__global__ void scalar_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, T s, MaskView m, BinCode accum,
                              bool replace, Index n, unsigned long long* count) {
  unsigned long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    bool wp = wb[i] != 0;
    if (m.allows(i)) {
      wv[i] = (accum != BinCode::None && wp) ? bin_apply(accum, wv[i], s) : s;
      wp = true;
    } else if (replace) {
      wp = false;
    }
    wb[i] = wp ? 1 : 0;
    local += wp;
  }
  block_count_add(local, count);
}

// Only the positions of a sparse structural mask (no replace): w stays as is elsewhere.
template <class T>
__global__ void scalar_list_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, T s, const Vid* __restrict__ list,
                                   Index list_size, BinCode accum, unsigned long long* added) {
  unsigned long long local = 0;
  for (Index p = global_thread(); p < list_size; p += grid_threads()) {
    const Vid i = list[p];
    if (wb[i]) {
      wv[i] = accum != BinCode::None ? bin_apply(accum, wv[i], s) : s;
    } else {
      wv[i] = s;
      wb[i] = 1;
      ++local;
    }
  }
  block_count_add(local, added);
}

// ---- apply ---------------------------------------------------------------------------------

template <class T>
__global__ void apply_sparse_kernel(T* __restrict__ out, const T* __restrict__ in, Index nvals, UnCode op) {
  for (Index p = global_thread(); p < nvals; p += grid_threads()) out[p] = un_apply(op, in[p]);
}

// Entries of a sparse list allowed by the mask: flags[p] = 1.
__global__ void allowed_flags_kernel(std::uint8_t* __restrict__ flags, const Vid* __restrict__ idx, Index nvals,
                                     MaskView m) {
  for (Index p = global_thread(); p < nvals; p += grid_threads()) flags[p] = m.allows(idx[p]) ? 1 : 0;
}

template <class T>
__global__ void apply_select_kernel(Vid* __restrict__ out_idx, T* __restrict__ out_val, const Vid* __restrict__ pos,
                                    Index count, const Vid* __restrict__ idx, const T* __restrict__ vals, UnCode op) {
  for (Index q = global_thread(); q < count; q += grid_threads()) {
    const Vid p = pos[q];
    out_idx[q] = idx[p];
    out_val[q] = un_apply(op, vals[p]);
  }
}

// u Bitmap or Dense -> t Bitmap (bitmap != nullptr) or Dense.
template <class T>
__global__ void apply_dense_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, PosInput<T> u, MaskView m,
                                   UnCode op, Index n, unsigned long long* count) {
  unsigned long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    const bool p = u.present(i) && m.allows(i);
    if (p) tv[i] = un_apply(op, u.values[i]);
    if (tb) tb[i] = p ? 1 : 0;
    local += p;
  }
  block_count_add(local, count);
}

// ---- ewise ---------------------------------------------------------------------------------

template <class T>
__global__ void ewise_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, PosInput<T> u, PosInput<T> v,
                             MaskView m, BinCode op, bool is_union, Index n, unsigned long long* count) {
  unsigned long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    bool p = false;
    if (m.allows(i)) {
      const bool pu = u.present(i);
      const bool pv = v.present(i);
      if (pu && pv) {
        tv[i] = bin_apply(op, u.values[i], v.values[i]);
        p = true;
      } else if (is_union && (pu || pv)) {
        tv[i] = pu ? u.values[i] : v.values[i];
        p = true;
      }
    }
    if (tb) tb[i] = p ? 1 : 0;
    local += p;
  }
  block_count_add(local, count);
}

// ---- mask_bitmap ---------------------------------------------------------------------------

template <class M>
__global__ void mask_sparse_kernel(std::uint8_t* __restrict__ out, VecView<M> mask, bool structural) {
  for (Index p = global_thread(); p < mask.nvals; p += grid_threads())
    out[mask.indices[p]] = (structural || mask.value(p) != M(0)) ? 1 : 0;
}

template <class M>
__global__ void mask_dense_kernel(std::uint8_t* __restrict__ out, VecView<M> mask, bool structural) {
  for (Index i = global_thread(); i < mask.n; i += grid_threads())
    out[i] = (mask.present(i) && (structural || mask.value(i) != M(0))) ? 1 : 0;
}

}  // namespace

template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& /*accum*/, VectorStore<T>& t, bool replace) {
  constexpr BinCode code = bin_code<Accum, T>();
  if (t.n != w.n)
    throw Error(Status::DimensionMismatch, "merge: t has length " + std::to_string(t.n) + ", w has " +
                                               std::to_string(w.n));
  // No accumulator and no mask (or replace): t holds exactly the allowed result.
  if (code == BinCode::None && (!m.present() || replace)) {
    w = std::move(t);
    return;
  }
  cuda::convert_form(w, VectorForm::Bitmap);
  if (code != BinCode::None && !replace && t.form == VectorForm::Sparse) {
    if (t.nvals == 0) return;
    DeviceCounter added;
    merge_sparse_kernel<<<grid_for(t.nvals), kBlock>>>(w.bitmap.data(), w.values.data(), t.indices.data(),
                                                       t.values.data(), t.nvals, m, code, added.get());
    CUDA_CHECK_LAUNCH();
    w.nvals += added.read();
    return;
  }
  if (t.form == VectorForm::Sparse) cuda::convert_form(t, VectorForm::Bitmap);
  PosInput<T> tin{t.form == VectorForm::Bitmap ? t.bitmap.data() : nullptr, t.values.data()};
  DeviceCounter count;
  if (w.n > 0) {
    merge_kernel<<<grid_for(w.n), kBlock>>>(w.bitmap.data(), w.values.data(), tin, m, code, replace, w.n, count.get());
    CUDA_CHECK_LAUNCH();
  }
  w.nvals = count.read();
}

template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& /*accum*/, T s, bool replace) {
  constexpr BinCode code = bin_code<Accum, T>();
  if (!m.present() && (code == BinCode::None || w.nvals == 0)) {  // every position becomes s
    VectorStore<T> d = make_output<T>(w.n, VectorForm::Dense);
    if (w.n > 0) {
      fill_kernel<<<grid_for(w.n), kBlock>>>(d.values.data(), s, w.n);
      CUDA_CHECK_LAUNCH();
    }
    d.nvals = w.n;
    w = std::move(d);
    return;
  }
  cuda::convert_form(w, VectorForm::Bitmap);
  if (m.list != nullptr && !replace) {
    if (m.list_size == 0) return;
    DeviceCounter added;
    scalar_list_kernel<<<grid_for(m.list_size), kBlock>>>(w.bitmap.data(), w.values.data(), s, m.list, m.list_size,
                                                          code, added.get());
    CUDA_CHECK_LAUNCH();
    w.nvals += added.read();
    return;
  }
  DeviceCounter count;
  if (w.n > 0) {
    scalar_kernel<<<grid_for(w.n), kBlock>>>(w.bitmap.data(), w.values.data(), s, m, code, replace, w.n, count.get());
    CUDA_CHECK_LAUNCH();
  }
  w.nvals = count.read();
}

template <class Op, class TU>
void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& /*op*/, const VecView<TU>& u) {
  using T = typename Op::result_type;
  static_assert(std::is_same_v<T, TU>, "CUDA apply keeps the value type");
  constexpr UnCode code = un_code<Op, T>();
  if (u.form == VectorForm::Sparse) {
    VectorStore<T> out = VectorStore<T>::empty(u.n, Backend::Cuda);
    out.jumbled = true;  // a view does not say whether u's indices were sorted
    if (!m.present()) {
      const auto nv = static_cast<std::size_t>(u.nvals);
      out.indices = Array<Vid>(nv, Backend::Cuda);
      out.values = Array<T>(nv, Backend::Cuda);
      if (nv > 0) {
        copy_bytes(out.indices.data(), Backend::Cuda, u.indices, Backend::Cuda, nv * sizeof(Vid));
        apply_sparse_kernel<<<grid_for(u.nvals), kBlock>>>(out.values.data(), u.values, u.nvals, code);
        CUDA_CHECK_LAUNCH();
      }
      out.nvals = u.nvals;
    } else if (u.nvals > 0) {
      Array<std::uint8_t> flags(static_cast<std::size_t>(u.nvals), Backend::Cuda);
      allowed_flags_kernel<<<grid_for(u.nvals), kBlock>>>(flags.data(), u.indices, u.nvals, m);
      CUDA_CHECK_LAUNCH();
      Index count = 0;
      Array<Vid> pos = select_flagged(flags.data(), u.nvals, count);
      out.indices = Array<Vid>(static_cast<std::size_t>(count), Backend::Cuda);
      out.values = Array<T>(static_cast<std::size_t>(count), Backend::Cuda);
      if (count > 0) {
        apply_select_kernel<<<grid_for(count), kBlock>>>(out.indices.data(), out.values.data(), pos.data(), count,
                                                         u.indices, u.values, code);
        CUDA_CHECK_LAUNCH();
      }
      out.nvals = count;
    }
    t = std::move(out);
    return;
  }
  const bool dense_out = u.form == VectorForm::Dense && !m.present();
  VectorStore<T> out = make_output<T>(u.n, dense_out ? VectorForm::Dense : VectorForm::Bitmap);
  PosInput<T> uin{u.form == VectorForm::Bitmap ? u.bitmap : nullptr, u.values};
  DeviceCounter count;
  if (u.n > 0) {
    apply_dense_kernel<<<grid_for(u.n), kBlock>>>(out.bitmap.data(), out.values.data(), uin, m, code, u.n,
                                                  count.get());
    CUDA_CHECK_LAUNCH();
  }
  out.nvals = dense_out ? u.n : count.read();
  t = std::move(out);
}

template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& /*op*/, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union) {
  using T = typename Op::result_type;
  static_assert(std::is_same_v<T, TU> && std::is_same_v<T, TV>, "CUDA ewise keeps the value type");
  constexpr BinCode code = bin_code<Op, T>();
  if (u.n != v.n)
    throw Error(Status::DimensionMismatch, "ewise: u has length " + std::to_string(u.n) + ", v has " +
                                               std::to_string(v.n));
  const bool dense_out = u.form == VectorForm::Dense && v.form == VectorForm::Dense && !m.present();
  VectorStore<T> out = make_output<T>(u.n, dense_out ? VectorForm::Dense : VectorForm::Bitmap);
  PosHolder<T> hu = positional(u);
  PosHolder<T> hv = positional(v);
  DeviceCounter count;
  if (u.n > 0) {
    ewise_kernel<<<grid_for(u.n), kBlock>>>(out.bitmap.data(), out.values.data(), hu.in, hv.in, m, code, is_union, u.n,
                                            count.get());
    CUDA_CHECK_LAUNCH();
  }
  out.nvals = dense_out ? u.n : count.read();
  t = std::move(out);
}

template <class M>
void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural) {
  if (mask.n == 0) return;
  if (mask.form == VectorForm::Sparse) {
    fill_bytes(out, Backend::Cuda, 0, static_cast<std::size_t>(mask.n));
    if (mask.nvals > 0) {
      mask_sparse_kernel<<<grid_for(mask.nvals), kBlock>>>(out, mask, structural);
      CUDA_CHECK_LAUNCH();
    }
  } else {
    mask_dense_kernel<<<grid_for(mask.n), kBlock>>>(out, mask, structural);
    CUDA_CHECK_LAUNCH();
  }
}

// ---- explicit instantiations: exactly what cuda_supports_accum / _binary_op / _unary_op accept
#define GBCUDA_BINOPS(X, T) \
  X(T, Plus<T>) X(T, Minus<T>) X(T, Times<T>) X(T, Min<T>) X(T, Max<T>) X(T, First<T>) X(T, Second<T>) \
  X(T, Pair<T>) X(T, Lor<T>) X(T, Land<T>)
#define GBCUDA_UNOPS(X, T) \
  X(T, Identity<T>) X(T, AdditiveInverse<T>) X(T, Abs<T>) X(T, One<T>) X(T, LogicalNot<T>)

#define GBCUDA_INST_MERGE(T, A)                                                                 \
  template void merge<T, A>(VectorStore<T>&, const MaskView&, const A&, VectorStore<T>&, bool); \
  template void merge_scalar<T, A>(VectorStore<T>&, const MaskView&, const A&, T, bool);
#define GBCUDA_INST_EWISE(T, OP) \
  template void ewise<OP, T, T>(VectorStore<T>&, const MaskView&, const OP&, const VecView<T>&, const VecView<T>&, bool);
#define GBCUDA_INST_APPLY(T, OP) \
  template void apply<OP, T>(VectorStore<T>&, const MaskView&, const OP&, const VecView<T>&);

#define GBCUDA_INST_ELEMENTWISE(T)                                  \
  GBCUDA_INST_MERGE(T, NoAccum)                                     \
  GBCUDA_BINOPS(GBCUDA_INST_MERGE, T)                               \
  GBCUDA_BINOPS(GBCUDA_INST_EWISE, T)                               \
  GBCUDA_UNOPS(GBCUDA_INST_APPLY, T)                                \
  template void mask_bitmap<T>(std::uint8_t*, const VecView<T>&, bool);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_ELEMENTWISE)

}  // namespace gbcuda::detail::cuda
