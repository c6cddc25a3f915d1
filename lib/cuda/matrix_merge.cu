// The merge of two matrices of one shape on the device: element-wise add (the union of the
// patterns) and multiply (the intersection), and GraphBLAS's write C<M, accum, replace> = T.
// The work is spread over entries, not rows, so a row of a million entries costs what a million
// rows of one entry cost:
//  1. each entry of A looks for its column in B's row (a binary search): matched[p], and by a
//     CUB exclusive sum M[p], the matches before entry p;
//  2. every position of the union then has its place without a row-by-row merge: A's entry p,
//     whose column has lb entries of B before it (lb: B's lower bound, an absolute position), is
//     union position p + lb - M[p]; an entry q of B that A lacks, with A's lower bound la, is
//     q + la - M[la]; row i starts at a_ptr[i] + b_ptr[i] - M[a_ptr[i]];
//  3. the intersection keeps A's matched entries, at M[p]; the write decides each union position
//     (mask, accumulator, replace), and a second exclusive sum of its keep flags gives the places.
// Two reads of a count (the output's size, to allocate it) are the only host waits.
#include <vector>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

// The first position in [lo, hi) of the ascending idx whose column is >= j (hi when none).
__device__ __forceinline__ Offset lower_bound_col(const Vid* idx, Offset lo, Offset hi, Vid j) {
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (idx[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// One position of the union: thread t < a.nnz is A's entry t, the others B's entries; a B entry
// that A also holds is not a position of its own (valid false: A's entry stands for both).
struct UnionEntry {
  bool valid;
  Index i;
  Vid j;
  Offset pa, pb;  // the entry in A and in B, -1 where absent
  Offset u;       // its union position
};

template <class T>
__device__ UnionEntry union_entry(const CsrView<T>& a, const CsrView<T>& b, const Offset* matched_before, Index n,
                                  Offset t) {
  UnionEntry e;
  if (t < a.nnz) {
    e.pa = t;
    e.i = row_of(a.row_ptr, n, t);
    e.j = a.col_idx[t];
    const Offset lb = lower_bound_col(b.col_idx, b.row_ptr[e.i], b.row_ptr[e.i + 1], e.j);
    e.pb = lb < b.row_ptr[e.i + 1] && b.col_idx[lb] == e.j ? lb : -1;
    e.u = t + lb - matched_before[t];
    e.valid = true;
  } else {
    e.pb = t - a.nnz;
    e.i = row_of(b.row_ptr, n, e.pb);
    e.j = b.col_idx[e.pb];
    const Offset la = lower_bound_col(a.col_idx, a.row_ptr[e.i], a.row_ptr[e.i + 1], e.j);
    e.pa = -1;
    e.valid = !(la < a.row_ptr[e.i + 1] && a.col_idx[la] == e.j);
    e.u = e.pb + la - matched_before[la];
  }
  return e;
}

// Whether a union position stays, and with which value, under the rule (the write: A is C, B is T).
template <class T>
__device__ bool decide(const MergeRule& r, const CsrView<T>& a, const CsrView<T>& b, const UnionEntry& e, T* value) {
  const bool ha = e.pa >= 0, hb = e.pb >= 0;
  if (r.kind == MergeKind::Union) {
    if (value) *value = ha && hb ? bin_apply(r.op, a.value(e.pa), b.value(e.pb)) : ha ? a.value(e.pa) : b.value(e.pb);
    return true;
  }
  // The write: where the mask allows, accum(c, t) over the union (T alone without an
  // accumulator); elsewhere C's entry, unless replaced.
  bool allowed = !r.mask_complement;
  if (r.region_rows) {
    allowed = (r.region_rows[e.i] && r.region_cols[e.j]) != r.mask_complement;
  } else if (r.mask_ptr) {
    const Offset lo = r.mask_ptr[e.i], hi = r.mask_ptr[e.i + 1];
    const Offset k = lower_bound_col(r.mask_idx, lo, hi, e.j);
    allowed = (k < hi && r.mask_idx[k] == e.j) != r.mask_complement;
  }
  if (!allowed) {
    if (ha && !r.replace && value) *value = a.value(e.pa);
    return ha && !r.replace;
  }
  if (r.op == BinCode::None) {
    if (hb && value) *value = b.value(e.pb);
    return hb;
  }
  if (value) *value = ha && hb ? bin_apply(r.op, a.value(e.pa), b.value(e.pb)) : ha ? a.value(e.pa) : b.value(e.pb);
  return true;
}

// matched[p] = 1 where B's row holds A's entry p's column; matched[a.nnz] = 0.
template <class T>
__global__ void matched_kernel(Offset* __restrict__ matched, CsrView<T> a, CsrView<T> b, Index n) {
  for (Offset p = global_thread(); p <= a.nnz; p += grid_threads()) {
    if (p == a.nnz) {
      matched[p] = 0;
      continue;
    }
    const Index i = row_of(a.row_ptr, n, p);
    const Vid j = a.col_idx[p];
    const Offset hi = b.row_ptr[i + 1], lb = lower_bound_col(b.col_idx, b.row_ptr[i], hi, j);
    matched[p] = lb < hi && b.col_idx[lb] == j ? 1 : 0;
  }
}

// keep[u] for every union position u (each is one valid entry's), keep[union_size] = 0.
template <class T>
__global__ void keep_kernel(Offset* __restrict__ keep, MergeRule r, CsrView<T> a, CsrView<T> b,
                            const Offset* matched_before, Index n, Offset union_size) {
  const Offset total = a.nnz + b.nnz;
  for (Offset t = global_thread(); t <= total; t += grid_threads()) {
    if (t == total) {
      keep[union_size] = 0;
      continue;
    }
    const UnionEntry e = union_entry(a, b, matched_before, n, t);
    if (e.valid) keep[e.u] = decide<T>(r, a, b, e, nullptr) ? 1 : 0;
  }
}

// Row i of the output starts at place[start(i)]: start(i) is the row's first union position
// (place null: the union itself), or for the intersection its first A entry (place = M).
__global__ void merged_rows_kernel(Offset* __restrict__ out, const Offset* a_ptr, const Offset* b_ptr,
                                   const Offset* matched_before, const Offset* place, bool by_a_entries, Index n) {
  for (Index i = global_thread(); i <= n; i += grid_threads()) {
    const Offset start = by_a_entries ? a_ptr[i] : a_ptr[i] + b_ptr[i] - matched_before[a_ptr[i]];
    out[i] = place ? place[start] : start;
  }
}

// The union's entries into their places (place null: the union position itself).
template <class T>
__global__ void union_scatter_kernel(Vid* __restrict__ out_col, T* __restrict__ out_val, MergeRule r, CsrView<T> a,
                                     CsrView<T> b, const Offset* matched_before, const Offset* place, Index n) {
  const Offset total = a.nnz + b.nnz;
  for (Offset t = global_thread(); t < total; t += grid_threads()) {
    const UnionEntry e = union_entry(a, b, matched_before, n, t);
    if (!e.valid) continue;
    T x{};
    if (!decide<T>(r, a, b, e, &x)) continue;
    const Offset q = place ? place[e.u] : e.u;
    out_col[q] = e.j;
    out_val[q] = x;
  }
}

// The intersection: A's matched entry p at M[p], op(a, b).
template <class T>
__global__ void intersection_scatter_kernel(Vid* __restrict__ out_col, T* __restrict__ out_val, BinCode op,
                                            CsrView<T> a, CsrView<T> b, const Offset* matched_before, Index n) {
  for (Offset p = global_thread(); p < a.nnz; p += grid_threads()) {
    if (matched_before[p + 1] == matched_before[p]) continue;
    const Index i = row_of(a.row_ptr, n, p);
    const Vid j = a.col_idx[p];
    const Offset q = lower_bound_col(b.col_idx, b.row_ptr[i], b.row_ptr[i + 1], j);
    out_col[matched_before[p]] = j;
    out_val[matched_before[p]] = bin_apply(op, a.value(p), b.value(q));
  }
}

}  // namespace

template <class T>
Csr<T> merge_csr(const Csr<T>& a_csr, const Csr<T>& b_csr, const MergeRule& r) {
  const Index n = a_csr.nrows;
  if (n == 0) {  // no rows (row_ptr may even be empty): nothing to merge
    Csr<T> out;
    out.ncols = a_csr.ncols;
    out.row_ptr = Array<Offset>(std::vector<Offset>{0}, Backend::Cuda);
    return out;
  }
  const CsrView<T> a = view(a_csr), b = view(b_csr);
  Array<Offset> matched(static_cast<std::size_t>(a.nnz) + 1, Backend::Cuda);
  matched_kernel<<<grid_for(a.nnz + 1), kBlock, 0, stream()>>>(matched.data(), a, b, n);
  CUDA_CHECK_LAUNCH();
  exclusive_sum_in_place(matched.data(), a.nnz + 1);
  const Offset matches = read_device(matched.data() + a.nnz);
  const Offset union_size = a.nnz + b.nnz - matches;

  Array<Offset> keep;  // the write's places: the exclusive sum of its keep flags
  Offset kept = r.kind == MergeKind::Intersection ? matches : union_size;
  if (r.kind == MergeKind::Write) {
    keep = Array<Offset>(static_cast<std::size_t>(union_size) + 1, Backend::Cuda);
    keep_kernel<<<grid_for(a.nnz + b.nnz + 1), kBlock, 0, stream()>>>(keep.data(), r, a, b, matched.data(), n,
                                                                      union_size);
    CUDA_CHECK_LAUNCH();
    exclusive_sum_in_place(keep.data(), union_size + 1);
    kept = read_device(keep.data() + union_size);
  }

  Csr<T> out;
  out.nrows = a_csr.nrows;
  out.ncols = a_csr.ncols;
  out.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  const bool by_a = r.kind == MergeKind::Intersection;
  const Offset* place = by_a ? matched.data() : r.kind == MergeKind::Write ? keep.data() : nullptr;
  merged_rows_kernel<<<grid_for(n + 1), kBlock, 0, stream()>>>(out.row_ptr.data(), a.row_ptr, b.row_ptr, matched.data(),
                                                               place, by_a, n);
  CUDA_CHECK_LAUNCH();
  out.col_idx = Array<Vid>(static_cast<std::size_t>(kept), Backend::Cuda);
  out.values = Array<T>(static_cast<std::size_t>(kept), Backend::Cuda);
  if (kept == 0) return out;
  if (by_a) {
    intersection_scatter_kernel<<<grid_for(a.nnz), kBlock, 0, stream()>>>(out.col_idx.data(), out.values.data(), r.op,
                                                                          a, b, matched.data(), n);
  } else {
    union_scatter_kernel<<<grid_for(a.nnz + b.nnz), kBlock, 0, stream()>>>(out.col_idx.data(), out.values.data(), r, a,
                                                                           b, matched.data(), place, n);
  }
  CUDA_CHECK_LAUNCH();
  return out;
}

#define GBCUDA_INST_MERGE_CSR(T) template Csr<T> merge_csr<T>(const Csr<T>&, const Csr<T>&, const MergeRule&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_MERGE_CSR)
#undef GBCUDA_INST_MERGE_CSR

}  // namespace gbcuda::detail::cuda
