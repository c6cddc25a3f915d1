// Element-wise primitives of the CUDA backend: merge (w<m> = accum(w, t)), merge_scalar,
// apply, ewise (add / mult) and mask_bitmap. Operators are dispatched by a run-time code
// (internal.cuh), so each primitive has one kernel per value type. No primitive reads anything
// back: counts are kept in device memory (VectorStore::tally) and loops whose length is such a
// count read it on the device.
#include <cub/block/block_scan.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// Short vectors: a primitive over at most kOneBlockMax positions (or list entries) that would
// take several launches (a scatter, a fill, a compaction) runs as one kernel of one block, whose
// phases the block's barriers separate, and writes its count instead of adding to a zeroed one:
// one launch and no fill (tests/test_kernel_counts.cpp counts them).
constexpr int kOneBlockThreads = 1024;
constexpr Index kOneBlockMax = 4096;

// The block's sum of each thread's `local`, written to *total by thread 0 (every thread calls).
__device__ __forceinline__ void block_count_store(long long local, Index* total) {
  __shared__ long long warp_sums[kOneBlockThreads / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) local += __shfl_down_sync(0xffffffffu, local, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long sum = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) sum += warp_sums[w];
    *total = Index(sum);
  }
}

// A vector readable by position: bitmap == nullptr means every position is present.
template <class T>
struct PosInput {
  const std::uint8_t* bitmap = nullptr;
  const T* values = nullptr;
  __device__ bool present(Index i) const { return bitmap == nullptr || bitmap[i] != 0; }
  __device__ T value(Index i) const { return values[i]; }
};
// op(u) read by position, computed as it is read (apply_merge).
template <class T>
struct AppliedInput {
  PosInput<T> u;
  ElementOp<T> op;
  __device__ bool present(Index i) const { return u.present(i) && element_keeps(op, u.values[i], i); }
  __device__ T value(Index i) const { return element_value(op, u.values[i]); }
};

template <class T>
__global__ void scatter_kernel(std::uint8_t* __restrict__ bitmap, T* __restrict__ out, const Vid* __restrict__ idx,
                               const T* __restrict__ vals, Index nvals, const Index* nvals_dev) {
  const Index count = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < count; p += grid_threads()) {
    bitmap[idx[p]] = 1;
    out[idx[p]] = vals[p];
  }
}

// A positional form of a view: Bitmap and Dense are used in place, Sparse is scattered into a
// temporary bitmap taken from `scratch`.
template <class T>
PosInput<T> positional(const VecView<T>& v, Scratch& scratch) {
  PosInput<T> in;
  if (v.form == VectorForm::Dense) {
    in.values = v.values;
  } else if (v.form == VectorForm::Bitmap) {
    in.bitmap = v.bitmap;
    in.values = v.values;
  } else {
    const auto n = static_cast<std::size_t>(v.n);
    auto* bitmap = scratch.take<std::uint8_t>(n);
    auto* values = scratch.take<T>(n);
    fill_bytes(bitmap, Backend::Cuda, 0, n);
    if (v.capacity > 0 && (v.nvals_dev || v.nvals > 0)) {
      scatter_kernel<<<grid_for_count(v.nvals, v.nvals_dev, v.capacity), kBlock, 0, stream()>>>(
          bitmap, values, v.indices, v.values, v.nvals, v.nvals_dev);
      CUDA_CHECK_LAUNCH();
    }
    in.bitmap = bitmap;
    in.values = values;
  }
  return in;
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

// w (Bitmap) <m> = accum(w, t) over every position; counts w's entries from zero.
template <class T, class In>
__global__ void merge_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, In t, MaskView m, BinCode accum,
                             bool replace, Index n, Index* count) {
  long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    bool wp = wb[i] != 0;
    if (m.allows(i)) {
      const bool tp = t.present(i);
      if (accum == BinCode::None) {
        wp = tp;
        if (tp) wv[i] = t.value(i);
      } else if (tp) {
        wv[i] = wp ? bin_apply(accum, wv[i], t.value(i)) : t.value(i);
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

// w (Bitmap or Dense: wb null) = accum(w, t) at t's entries only (t obeys the mask already);
// adds the new entries to w's count.
template <class T>
__global__ void merge_sparse_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, const Vid* __restrict__ ti,
                                    const T* __restrict__ tv, Index tn, const Index* tn_dev, BinCode accum,
                                    Index* count) {
  long long local = 0;
  const Index entries = count_of(tn, tn_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads()) {
    const Vid i = ti[p];
    if (!wb || wb[i]) {
      wv[i] = accum == BinCode::None ? tv[p] : bin_apply(accum, wv[i], tv[p]);
    } else {
      wv[i] = tv[p];
      wb[i] = 1;
      ++local;
    }
  }
  block_count_add(local, count);
}

// w Dense <m> = accum(w, t) without replace: no position loses its entry, only values change.
template <class T, class In>
__global__ void merge_dense_kernel(T* __restrict__ wv, In t, MaskView m, BinCode accum, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads())
    if (m.allows(i) && t.present(i)) wv[i] = bin_apply(accum, wv[i], t.value(i));
}

// The positions of a list mask lose their entry in w (Bitmap); subtracts them from w's count.
__global__ void delete_listed_kernel(std::uint8_t* __restrict__ wb, const Vid* __restrict__ list, Index size,
                                     const Index* size_dev, Index* count) {
  long long local = 0;
  const Index entries = count_of(size, size_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads()) {
    const Vid i = list[p];
    if (wb[i]) {
      wb[i] = 0;
      --local;
    }
  }
  block_count_add(local, count);
}

// w (Bitmap) <list> = t (positional): each listed position takes t's entry or loses w's.
template <class T>
__global__ void merge_listed_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, PosInput<T> t,
                                    const Vid* __restrict__ list, Index size, const Index* size_dev, Index* count) {
  long long local = 0;
  const Index entries = count_of(size, size_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads()) {
    const Vid i = list[p];
    const bool was = wb[i] != 0, now = t.present(i);
    if (now) wv[i] = t.values[i];
    wb[i] = now ? 1 : 0;
    local += int(now) - int(was);
  }
  block_count_add(local, count);
}

// ---- merge_scalar --------------------------------------------------------------------------

// w's own entries (w Sparse, its own mask): values[p] = accum(values[p], s), or s.
template <class T>
__global__ void scalar_entries_kernel(T* __restrict__ values, T s, Index nvals, const Index* nvals_dev, BinCode accum) {
  const Index entries = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads())
    values[p] = accum != BinCode::None ? bin_apply(accum, values[p], s) : s;
}

template <class T>
__global__ void fill_kernel(T* __restrict__ out, T s, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads()) out[i] = s;
}

template <class T>
__global__ void scalar_kernel(std::uint8_t* __restrict__ wb, T* __restrict__ wv, T s, MaskView m, BinCode accum,
                              bool replace, Index n, Index* count) {
  long long local = 0;
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
                                   Index list_size, const Index* list_size_dev, BinCode accum, Index* count) {
  long long local = 0;
  const Index entries = count_of(list_size, list_size_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads()) {
    const Vid i = list[p];
    if (wb[i]) {
      wv[i] = accum != BinCode::None ? bin_apply(accum, wv[i], s) : s;
    } else {
      wv[i] = s;
      wb[i] = 1;
      ++local;
    }
  }
  block_count_add(local, count);
}

// ---- apply ---------------------------------------------------------------------------------

template <class T>
__global__ void apply_sparse_kernel(Vid* __restrict__ out_idx, T* __restrict__ out, const Vid* __restrict__ idx,
                                    const T* __restrict__ in, Index nvals, const Index* nvals_dev, ElementOp<T> op) {
  const Index count = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < count; p += grid_threads()) {
    out_idx[p] = idx[p];
    out[p] = element_value(op, in[p]);
  }
}

// A sparse list's entries that stay (allowed by the mask, kept by the operator) laid into a
// Bitmap (its flags zero on entry); counted into *count unless the count is known (null).
template <class T>
__global__ void apply_scatter_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, const Vid* __restrict__ idx,
                                     const T* __restrict__ vals, Index nvals, const Index* nvals_dev, MaskView m,
                                     ElementOp<T> op, Index* count) {
  long long local = 0;
  const Index entries = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < entries; p += grid_threads()) {
    const Vid i = idx[p];
    if (m.allows(i) && element_keeps(op, vals[p], i)) {
      tv[i] = element_value(op, vals[p]);
      tb[i] = 1;
      ++local;
    }
  }
  if (count) block_count_add(local, count);
}

// Entries of a sparse list that stay (allowed by the mask, kept by the operator): flags[p] = 1
// (0 past the list's count).
template <class T>
__global__ void staying_flags_kernel(std::uint8_t* __restrict__ flags, const Vid* __restrict__ idx,
                                     const T* __restrict__ vals, Index nvals, const Index* nvals_dev, Index capacity,
                                     MaskView m, ElementOp<T> op) {
  const Index count = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < capacity; p += grid_threads())
    flags[p] = p < count && m.allows(idx[p]) && element_keeps(op, vals[p], idx[p]) ? 1 : 0;
}

template <class T>
__global__ void apply_select_kernel(Vid* __restrict__ out_idx, T* __restrict__ out_val, const Vid* __restrict__ pos,
                                    const Index* count, const Vid* __restrict__ idx, const T* __restrict__ vals,
                                    ElementOp<T> op) {
  const Index c = *count;
  for (Index q = global_thread(); q < c; q += grid_threads()) {
    const Vid p = pos[q];
    out_idx[q] = idx[p];
    out_val[q] = element_value(op, vals[p]);
  }
}

// The staying entries of a short sparse list (staying_flags_kernel's test), compacted in their
// order with their values by one block of kOneBlockThreads; the count written to *count.
template <class T>
__global__ void __launch_bounds__(kOneBlockThreads)
    keep_entries_one_block_kernel(Vid* __restrict__ out_idx, T* __restrict__ out_val, Index* count,
                                  const Vid* __restrict__ idx, const T* __restrict__ vals, Index nvals,
                                  const Index* nvals_dev, MaskView m, ElementOp<T> op) {
  using Scan = cub::BlockScan<int, kOneBlockThreads>;
  __shared__ typename Scan::TempStorage scan;
  const Index entries = count_of(nvals, nvals_dev);
  Index base = 0;  // the same in every thread
  for (Index p0 = 0; p0 < entries; p0 += kOneBlockThreads) {
    const Index p = p0 + threadIdx.x;
    const bool keep = p < entries && m.allows(idx[p]) && element_keeps(op, vals[p], idx[p]);
    int rank = 0, kept = 0;
    Scan(scan).ExclusiveSum(int(keep), rank, kept);
    if (keep) {
      out_idx[base + rank] = idx[p];
      out_val[base + rank] = element_value(op, vals[p]);
    }
    base += kept;
    __syncthreads();  // the scan's storage is reused
  }
  if (threadIdx.x == 0) *count = base;
}

// u Bitmap or Dense -> t Bitmap (bitmap != nullptr) or Dense.
template <class T>
__global__ void apply_dense_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, PosInput<T> u, MaskView m,
                                   ElementOp<T> op, Index n, Index* count) {
  long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    const bool p = u.present(i) && m.allows(i) && element_keeps(op, u.values[i], i);
    if (p) tv[i] = element_value(op, u.values[i]);
    if (tb) tb[i] = p ? 1 : 0;
    local += p;
  }
  if (count) block_count_add(local, count);
}

// ---- assign with an index list ----------------------------------------------------------------

// t (Bitmap) at idx[k] takes u(k) (accumulated into t's entry), or loses its entry where u(k) is
// absent and there is no accumulator. idx has no duplicates: no two threads touch one position.
template <class T>
__global__ void assign_indexed_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, const Index* __restrict__ idx,
                                      Index count, PosInput<T> u, BinCode accum, Index* nvals) {
  long long local = 0;
  for (Index k = global_thread(); k < count; k += grid_threads()) {
    const Index i = idx[k];
    const bool was = tb[i] != 0;
    if (u.present(k)) {
      tv[i] = (accum != BinCode::None && was) ? bin_apply(accum, tv[i], u.values[k]) : u.values[k];
      tb[i] = 1;
      local += was ? 0 : 1;
    } else if (accum == BinCode::None && was) {
      tb[i] = 0;
      --local;
    }
  }
  block_count_add(local, nvals);
}

// ---- extract with an index list ---------------------------------------------------------------

// t(k) = u(idx[k]) where the mask allows k and u has that entry (idx null: u(k), absent past u_n);
// t's flags all written.
template <class T>
__global__ void extract_indexed_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, const Index* __restrict__ idx,
                                       Index count, PosInput<T> u, Index u_n, MaskView m, Index* nvals) {
  long long local = 0;
  for (Index k = global_thread(); k < count; k += grid_threads()) {
    const Index i = idx ? idx[k] : k;
    const bool present = m.allows(k) && i < u_n && u.present(i);
    tb[k] = present ? 1 : 0;
    if (present) tv[k] = u.values[i];
    local += present ? 1 : 0;
  }
  block_count_add(local, nvals);
}

// ---- ewise ---------------------------------------------------------------------------------

template <class T>
__global__ void ewise_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, PosInput<T> u, PosInput<T> v,
                             MaskView m, BinCode op, bool is_union, Index n, Index* count) {
  long long local = 0;
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
  if (count) block_count_add(local, count);
}

// ewise of short vectors, one of them Sparse, by one block of kOneBlockThreads with no scratch:
// t's bitmap first marks u's entries (bit 0) and v's (bit 1) while t's values take u's value, then
// op(u, v) where both are, v's where only v is; the last pass keeps what the mask allows and the
// operation (union or intersection) leaves, and writes the count.
template <class T>
__global__ void __launch_bounds__(kOneBlockThreads)
    ewise_one_block_kernel(std::uint8_t* __restrict__ tb, T* __restrict__ tv, VecView<T> u, VecView<T> v, MaskView m,
                           BinCode op, bool is_union, Index* count) {
  const Index n = u.n;
  for (Index i = threadIdx.x; i < n; i += blockDim.x) tb[i] = 0;
  __syncthreads();
  // Calls f(i, position of the value) for each entry of x.
  auto each = [](const VecView<T>& x, auto&& f) {
    if (x.form == VectorForm::Sparse) {
      const Index entries = x.count();
      for (Index p = threadIdx.x; p < entries; p += blockDim.x) f(Index(x.indices[p]), p);
    } else {
      for (Index i = threadIdx.x; i < x.n; i += blockDim.x)
        if (x.present(i)) f(i, i);
    }
  };
  each(u, [&](Index i, Index p) {
    tv[i] = u.values[p];
    tb[i] = 1;
  });
  __syncthreads();
  each(v, [&](Index i, Index p) {
    const T y = v.values[p];
    tv[i] = (tb[i] & 1) ? bin_apply(op, tv[i], y) : y;
    tb[i] |= 2;
  });
  __syncthreads();
  long long local = 0;
  for (Index i = threadIdx.x; i < n; i += blockDim.x) {
    const unsigned b = tb[i];
    const bool p = m.allows(i) && (is_union ? b != 0 : b == 3);
    tb[i] = p ? 1 : 0;
    local += p;
  }
  block_count_store(local, count);
}

// ---- mask_bitmap ---------------------------------------------------------------------------

template <class M>
__global__ void mask_sparse_kernel(std::uint8_t* __restrict__ out, VecView<M> mask, bool structural) {
  const Index count = mask.count();
  for (Index p = global_thread(); p < count; p += grid_threads())
    out[mask.indices[p]] = (structural || mask.value(p) != M(0)) ? 1 : 0;
}

template <class M>
__global__ void mask_dense_kernel(std::uint8_t* __restrict__ out, VecView<M> mask, bool structural) {
  for (Index i = global_thread(); i < mask.n; i += grid_threads())
    out[i] = (mask.present(i) && (structural || mask.value(i) != M(0))) ? 1 : 0;
}

}  // namespace

template <class T, class Accum>
void merge_entries(VectorStore<T>& w, const VecView<T>& t, const Accum& /*accum*/) {
  if (t.form != VectorForm::Sparse) throw Error(Status::InvalidValue, "internal: merge_entries of a non-sparse vector");
  // Only t's entries change. A Dense w stays Dense (every position is already present).
  if (w.form == VectorForm::Sparse) cuda::convert_form(w, VectorForm::Bitmap);
  if (t.capacity == 0) return;
  Index* count = count_for_update(w);
  merge_sparse_kernel<<<grid_for_count(t.nvals, t.nvals_dev, t.capacity), kBlock, 0, stream()>>>(
      w.form == VectorForm::Bitmap ? w.bitmap.data() : nullptr, w.values.data(), t.indices, t.values, t.nvals,
      t.nvals_dev, bin_code<Accum, T>(), count);
  CUDA_CHECK_LAUNCH();
}

template <class T, class Accum>
void merge(VectorStore<T>& w, const MaskView& m, const Accum& /*accum*/, VectorStore<T>& t, bool replace) {
  constexpr BinCode code = bin_code<Accum, T>();
  if (t.n != w.n)
    throw Error(Status::DimensionMismatch,
                "merge: t has length " + std::to_string(t.n) + ", w has " + std::to_string(w.n));
  // No accumulator and no mask (or replace): t holds exactly the allowed result.
  if (code == BinCode::None && (!m.present() || replace)) {
    w = std::move(t);
    return;
  }
  const Index* tn_dev = device_nvals(t);
  if (m.list_only()) {
    // Prepared for this path (no replace): only the listed positions change.
    if (code != BinCode::None || replace)
      throw Error(Status::InvalidValue, "internal: a list-only mask reached merge with an accumulator or replace");
    cuda::convert_form(w, VectorForm::Bitmap);
    Index* count = count_for_update(w);
    const unsigned grid = grid_for_count(m.list_size, m.list_size_dev, m.list_capacity);
    if (t.form == VectorForm::Sparse) {  // delete every listed position, then lay t over
      if (m.list_capacity > 0) {
        delete_listed_kernel<<<grid, kBlock, 0, stream()>>>(w.bitmap.data(), m.list, m.list_size, m.list_size_dev,
                                                            count);
        CUDA_CHECK_LAUNCH();
      }
      if (!t.indices.empty()) {
        merge_sparse_kernel<<<grid_for_count(t.nvals, tn_dev, Index(t.indices.size())), kBlock, 0, stream()>>>(
            w.bitmap.data(), w.values.data(), t.indices.data(), t.values.data(), t.nvals, tn_dev, BinCode::None, count);
        CUDA_CHECK_LAUNCH();
      }
    } else if (m.list_capacity > 0) {
      const PosInput<T> tin{t.form == VectorForm::Bitmap ? t.bitmap.data() : nullptr, t.values.data()};
      merge_listed_kernel<<<grid, kBlock, 0, stream()>>>(w.bitmap.data(), w.values.data(), tin, m.list, m.list_size,
                                                         m.list_size_dev, count);
      CUDA_CHECK_LAUNCH();
    }
    return;
  }
  if (code != BinCode::None && !replace && t.form == VectorForm::Sparse) {
    merge_entries(w, view(t), Accum{});
    return;
  }
  if (t.form == VectorForm::Sparse) cuda::convert_form(t, VectorForm::Bitmap);
  const PosInput<T> tin{t.form == VectorForm::Bitmap ? t.bitmap.data() : nullptr, t.values.data()};
  if (w.form == VectorForm::Dense && code != BinCode::None && !replace) {
    // Every position keeps its entry (a PageRank's rank vector): w stays Dense, so the next
    // product reads it without a bitmap.
    if (w.n > 0) {
      merge_dense_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.values.data(), tin, m, code, w.n);
      CUDA_CHECK_LAUNCH();
    }
    w.trace_of = nullptr;
    return;
  }
  cuda::convert_form(w, VectorForm::Bitmap);
  Index* count = fresh_count(w);
  if (w.n > 0) {
    merge_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.bitmap.data(), w.values.data(), tin, m, code, replace, w.n,
                                                         count);
    CUDA_CHECK_LAUNCH();
  }
}

template <class T, class Accum>
void apply_merge(VectorStore<T>& w, const MaskView& m, const Accum& /*accum*/, const ElementOp<T>& op,
                 const VecView<T>& u, bool replace) {
  constexpr BinCode code = bin_code<Accum, T>();
  if (!apply_merge_fits(w, m, u)) throw Error(Status::InvalidValue, "internal: apply_merge on a Sparse vector");
  // Each position's op(u(i)) is read and w(i) written by the same thread: u may be w.
  const AppliedInput<T> tin{{u.form == VectorForm::Bitmap ? u.bitmap : nullptr, u.values}, op};
  w.trace_of = nullptr;
  if (w.form == VectorForm::Dense && code != BinCode::None && !replace) {  // every position keeps its entry
    if (w.n > 0) {
      merge_dense_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.values.data(), tin, m, code, w.n);
      CUDA_CHECK_LAUNCH();
    }
    return;
  }
  cuda::convert_form(w, VectorForm::Bitmap);  // Dense -> Bitmap keeps the values array (u's, if u is w)
  Index* count = fresh_count(w);
  if (w.n > 0) {
    merge_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.bitmap.data(), w.values.data(), tin, m, code, replace, w.n,
                                                         count);
    CUDA_CHECK_LAUNCH();
  }
}

template <class T, class Accum>
void merge_scalar(VectorStore<T>& w, const MaskView& m, const Accum& /*accum*/, T s, bool replace) {
  constexpr BinCode code = bin_code<Accum, T>();
  const bool known_empty = !w.count_on_device && w.nvals == 0;
  if (!m.present() && (code == BinCode::None || known_empty)) {          // every position becomes s
    if (w.form == VectorForm::Dense && Index(w.values.size()) == w.n) {  // in place: no allocation
      if (w.n > 0) {
        fill_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.values.data(), s, w.n);
        CUDA_CHECK_LAUNCH();
      }
      set_nvals(w, w.n);
      return;
    }
    VectorStore<T> d = make_output<T>(w.n, VectorForm::Dense);
    if (w.n > 0) {
      fill_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(d.values.data(), s, w.n);
      CUDA_CHECK_LAUNCH();
    }
    set_nvals(d, w.n);
    w = std::move(d);
    return;
  }
  if (m.listed && m.list != nullptr && !replace && w.form == VectorForm::Sparse && m.list == w.indices.data()) {
    // w is its own mask (assign(w, w, ..., s, S)): exactly w's entries change, in place. (The
    // list lives in w's arrays: converting w first would free it under the kernel.)
    if (w.indices.empty()) return;
    const Index* count_dev = device_nvals(w);
    w.trace_of = nullptr;
    scalar_entries_kernel<<<grid_for_count(w.nvals, count_dev, Index(w.indices.size())), kBlock, 0, stream()>>>(
        w.values.data(), s, w.nvals, count_dev, code);
    CUDA_CHECK_LAUNCH();
    return;
  }
  if (m.listed && !replace) {
    cuda::convert_form(w, VectorForm::Bitmap);
    if (m.list_capacity == 0) return;
    Index* count = count_for_update(w);
    scalar_list_kernel<<<grid_for_count(m.list_size, m.list_size_dev, m.list_capacity), kBlock, 0, stream()>>>(
        w.bitmap.data(), w.values.data(), s, m.list, m.list_size, m.list_size_dev, code, count);
    CUDA_CHECK_LAUNCH();
    return;
  }
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached assign with replace");
  cuda::convert_form(w, VectorForm::Bitmap);
  Index* count = fresh_count(w);
  if (w.n > 0) {
    scalar_kernel<<<grid_for(w.n), kBlock, 0, stream()>>>(w.bitmap.data(), w.values.data(), s, m, code, replace, w.n,
                                                          count);
    CUDA_CHECK_LAUNCH();
  }
}

template <class T>
void apply(VectorStore<T>& t, const MaskView& m, const ElementOp<T>& op, const VecView<T>& u) {
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached apply");
  const bool keeps_all = op.kind != ElementKind::Select;
  const bool every_entry = !m.present() && keeps_all;
  // A Sparse u into a Bitmap t in one kernel (a fill of the flags first) where a list would be
  // made a bitmap anyway (every entry stays, their count known and at least n/16: what conform()
  // does) or would take a compaction's passes (a long list, at least n/32 of the positions).
  const bool scatter =
      u.form == VectorForm::Sparse && u.n > 0 &&
      (every_entry ? !u.nvals_dev && u.nvals * 16 >= u.n : u.capacity > kOneBlockMax && u.capacity * 32 >= u.n);
  if (scatter) {
    VectorStore<T> out = make_output<T>(u.n, VectorForm::Bitmap);
    fill_bytes(out.bitmap.data(), Backend::Cuda, 0, static_cast<std::size_t>(u.n));
    Index* count = nullptr;
    if (every_entry) set_nvals(out, u.nvals);
    else count = fresh_count(out);
    apply_scatter_kernel<<<grid_for_count(u.nvals, u.nvals_dev, u.capacity), kBlock, 0, stream()>>>(
        out.bitmap.data(), out.values.data(), u.indices, u.values, u.nvals, u.nvals_dev, m, op, count);
    CUDA_CHECK_LAUNCH();
    t = std::move(out);
    return;
  }
  if (u.form == VectorForm::Sparse) {
    VectorStore<T> out = VectorStore<T>::empty(u.n, Backend::Cuda);
    out.jumbled = true;  // a view does not say whether u's indices were sorted
    const auto cap = static_cast<std::size_t>(u.capacity);
    out.indices = Array<Vid>(cap, Backend::Cuda);
    out.values = Array<T>(cap, Backend::Cuda);
    if (every_entry) {  // the same count
      if (u.nvals_dev) copy_bytes(&tally_of(out)->nvals, Backend::Cuda, u.nvals_dev, Backend::Cuda, sizeof(Index));
      out.count_on_device = u.nvals_dev != nullptr;
      out.nvals = u.nvals;
      if (cap > 0) {
        apply_sparse_kernel<<<grid_for_count(u.nvals, u.nvals_dev, u.capacity), kBlock, 0, stream()>>>(
            out.indices.data(), out.values.data(), u.indices, u.values, u.nvals, u.nvals_dev, op);
        CUDA_CHECK_LAUNCH();
      }
    } else {
      Scratch scratch;
      Index* count = &tally_of(out)->nvals;
      out.count_on_device = true;
      if (cap == 0) {
        fill_bytes(count, Backend::Cuda, 0, sizeof(Index));
      } else if (u.capacity <= kOneBlockMax) {
        keep_entries_one_block_kernel<<<1, kOneBlockThreads, 0, stream()>>>(
            out.indices.data(), out.values.data(), count, u.indices, u.values, u.nvals, u.nvals_dev, m, op);
        CUDA_CHECK_LAUNCH();
      } else {
        auto* flags = scratch.take<std::uint8_t>(cap);
        auto* pos = scratch.take<Vid>(cap);
        staying_flags_kernel<<<grid_for(u.capacity), kBlock, 0, stream()>>>(flags, u.indices, u.values, u.nvals,
                                                                            u.nvals_dev, u.capacity, m, op);
        CUDA_CHECK_LAUNCH();
        select_flagged(scratch, flags, u.capacity, pos, count);
        apply_select_kernel<<<std::min<unsigned>(grid_for(u.capacity), unsigned(kDeviceCountBlocks)), kBlock, 0,
                              stream()>>>(out.indices.data(), out.values.data(), pos, count, u.indices, u.values, op);
        CUDA_CHECK_LAUNCH();
      }
    }
    t = std::move(out);
    return;
  }
  const bool dense_out = u.form == VectorForm::Dense && every_entry;
  VectorStore<T> out = make_output<T>(u.n, dense_out ? VectorForm::Dense : VectorForm::Bitmap);
  const PosInput<T> uin{u.form == VectorForm::Bitmap ? u.bitmap : nullptr, u.values};
  Index* count = nullptr;
  if (dense_out) set_nvals(out, u.n);
  else count = fresh_count(out);
  if (u.n > 0) {
    apply_dense_kernel<<<grid_for(u.n), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), uin, m, op, u.n,
                                                               count);
    CUDA_CHECK_LAUNCH();
  }
  t = std::move(out);
}

template <class T>
void assign_indexed(VectorStore<T>& t, const Index* idx, Index count, const VecView<T>& u, BinCode accum) {
  cuda::convert_form(t, VectorForm::Bitmap);
  if (count == 0) return;
  Scratch scratch;
  const PosInput<T> uin = positional(u, scratch);
  Index* nvals = count_for_update(t);
  assign_indexed_kernel<<<grid_for(count), kBlock, 0, stream()>>>(t.bitmap.data(), t.values.data(), idx, count, uin,
                                                                  accum, nvals);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void extract_indexed(VectorStore<T>& t, const MaskView& m, const Index* idx, Index count, const VecView<T>& u) {
  VectorStore<T> out = make_output<T>(count, VectorForm::Bitmap);
  Index* nvals = fresh_count(out);
  if (count > 0) {
    Scratch scratch;
    const PosInput<T> uin = positional(u, scratch);
    extract_indexed_kernel<<<grid_for(count), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), idx, count,
                                                                     uin, u.n, m, nvals);
    CUDA_CHECK_LAUNCH();
  }
  t = std::move(out);
}

template <class Op, class TU, class TV>
void ewise(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& /*op*/, const VecView<TU>& u,
           const VecView<TV>& v, bool is_union) {
  using T = typename Op::result_type;
  static_assert(std::is_same_v<T, TU> && std::is_same_v<T, TV>, "CUDA ewise keeps the value type");
  constexpr BinCode code = bin_code<Op, T>();
  if (u.n != v.n)
    throw Error(Status::DimensionMismatch,
                "ewise: u has length " + std::to_string(u.n) + ", v has " + std::to_string(v.n));
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached ewise");
  const bool dense_out = u.form == VectorForm::Dense && v.form == VectorForm::Dense && !m.present();
  VectorStore<T> out = make_output<T>(u.n, dense_out ? VectorForm::Dense : VectorForm::Bitmap);
  if ((u.form == VectorForm::Sparse || v.form == VectorForm::Sparse) && u.n > 0 && u.n <= kOneBlockMax) {
    Index* count = &tally_of(out)->nvals;
    out.count_on_device = true;
    ewise_one_block_kernel<<<1, kOneBlockThreads, 0, stream()>>>(out.bitmap.data(), out.values.data(), u, v, m, code,
                                                                 is_union, count);
    CUDA_CHECK_LAUNCH();
    t = std::move(out);
    return;
  }
  Scratch scratch;
  const PosInput<T> hu = positional(u, scratch);
  const PosInput<T> hv = positional(v, scratch);
  Index* count = nullptr;
  if (dense_out) set_nvals(out, u.n);
  else count = fresh_count(out);
  if (u.n > 0) {
    ewise_kernel<<<grid_for(u.n), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), hu, hv, m, code,
                                                         is_union, u.n, count);
    CUDA_CHECK_LAUNCH();
  }
  t = std::move(out);
}

template <class M>
void mask_bitmap(std::uint8_t* out, const VecView<M>& mask, bool structural) {
  if (mask.n == 0) return;
  if (mask.form == VectorForm::Sparse) {
    fill_bytes(out, Backend::Cuda, 0, static_cast<std::size_t>(mask.n));
    if (mask.capacity > 0 && (mask.nvals_dev || mask.nvals > 0)) {
      mask_sparse_kernel<<<grid_for_count(mask.nvals, mask.nvals_dev, mask.capacity), kBlock, 0, stream()>>>(
          out, mask, structural);
      CUDA_CHECK_LAUNCH();
    }
  } else {
    mask_dense_kernel<<<grid_for(mask.n), kBlock, 0, stream()>>>(out, mask, structural);
    CUDA_CHECK_LAUNCH();
  }
}

// ---- explicit instantiations: exactly what cuda_supports_accum / _binary_op / _unary_op accept
// (apply and assign_indexed take their operators as run-time codes: one per type)
#define GBCUDA_BINOP_OF_TYPE(NAME, X, T) X(T, NAME<T>)
#define GBCUDA_BINOPS(X, T) GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_BINOP_OF_TYPE, X, T)

#define GBCUDA_INST_MERGE(T, A)                                                                                       \
  template void merge<T, A>(VectorStore<T>&, const MaskView&, const A&, VectorStore<T>&, bool);                       \
  template void apply_merge<T, A>(VectorStore<T>&, const MaskView&, const A&, const ElementOp<T>&, const VecView<T>&, \
                                  bool);                                                                              \
  template void merge_entries<T, A>(VectorStore<T>&, const VecView<T>&, const A&);                                    \
  template void merge_scalar<T, A>(VectorStore<T>&, const MaskView&, const A&, T, bool);
#define GBCUDA_INST_EWISE(T, OP)                                                                                   \
  template void ewise<OP, T, T>(VectorStore<T>&, const MaskView&, const OP&, const VecView<T>&, const VecView<T>&, \
                                bool);

#define GBCUDA_INST_ELEMENTWISE(T)                                                                            \
  GBCUDA_INST_MERGE(T, NoAccum)                                                                               \
  GBCUDA_BINOPS(GBCUDA_INST_MERGE, T)                                                                         \
  GBCUDA_BINOPS(GBCUDA_INST_EWISE, T)                                                                         \
  template void apply<T>(VectorStore<T>&, const MaskView&, const ElementOp<T>&, const VecView<T>&);           \
  template void assign_indexed<T>(VectorStore<T>&, const Index*, Index, const VecView<T>&, BinCode);          \
  template void extract_indexed<T>(VectorStore<T>&, const MaskView&, const Index*, Index, const VecView<T>&); \
  template void mask_bitmap<T>(std::uint8_t*, const VecView<T>&, bool);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_ELEMENTWISE)

}  // namespace gbcuda::detail::cuda
