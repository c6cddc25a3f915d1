// scatter (push): SpMSpV from a Sparse u for the Any and Lor monoids. Work is balanced over
// edges: an exclusive scan of the frontier's row lengths gives each thread one edge (found by a
// binary search). Each output position is claimed once with an atomicOr on a bit array, so it
// gets exactly one writer; the winners append (j, value) to a jumbled list through a
// warp-aggregated atomic counter. For Lor, a second bit array records which positions saw a
// true term, and a final pass fixes the values.
#include <cooperative_groups.h>

#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

namespace cg = cooperative_groups;

// deg[f] = length of row u.indices[f] for f < nu; deg[nu] = 0 (so the scan ends with the total).
__global__ void frontier_degrees_kernel(Offset* __restrict__ deg, const Vid* __restrict__ idx, Index nu,
                                        const Offset* __restrict__ row_ptr) {
  for (Index f = global_thread(); f <= nu; f += grid_threads()) {
    if (f == nu) {
      deg[f] = 0;
    } else {
      const Vid k = idx[f];
      deg[f] = row_ptr[k + 1] - row_ptr[k];
    }
  }
}

template <class S, class TA, class TU>
__global__ void __launch_bounds__(kBlock)
    push_kernel(Vid* __restrict__ out_idx, typename S::value_type* __restrict__ out_val, unsigned long long* counter,
                std::uint32_t* __restrict__ claimed, std::uint32_t* __restrict__ truebits,
                const Offset* __restrict__ scan, VecView<TU> u, CsrView<TA> a, MaskView m, S s, bool u_first) {
  using Z = typename S::value_type;
  const Index nu = u.nvals;
  const Offset total = scan[nu];
  for (Offset e = global_thread(); e < total; e += grid_threads()) {
    Index lo = 0, hi = nu;  // scan[lo] <= e < scan[hi]
    while (hi - lo > 1) {
      const Index mid = lo + (hi - lo) / 2;
      if (scan[mid] <= e) lo = mid;
      else hi = mid;
    }
    const Vid k = u.indices[lo];
    const Offset p = a.row_ptr[k] + (e - scan[lo]);
    const Vid j = a.col_idx[p];
    if (!m.allows(j)) continue;
    const Z term = u_first ? s.multiply(u.value(lo), a.value(p), k) : s.multiply(a.value(p), u.value(lo), k);
    const std::uint32_t bit = 1u << (j & 31);
    if constexpr (S::add_type::kind == MonoidKind::Lor) {
      if (term) atomicOr(truebits + (j >> 5), bit);
    }
    if (__ldcg(claimed + (j >> 5)) & bit) continue;  // already taken (a stale read only costs the atomic)
    if (atomicOr(claimed + (j >> 5), bit) & bit) continue;
    auto winners = cg::coalesced_threads();
    unsigned long long base = 0;
    if (winners.thread_rank() == 0) base = atomicAdd(counter, static_cast<unsigned long long>(winners.num_threads()));
    base = winners.shfl(base, 0);
    const unsigned long long pos = base + winners.thread_rank();
    out_idx[pos] = j;
    out_val[pos] = term;
  }
}

template <class Z>
__global__ void lor_values_kernel(Z* __restrict__ vals, const Vid* __restrict__ idx, Index count,
                                  const std::uint32_t* __restrict__ truebits) {
  for (Index q = global_thread(); q < count; q += grid_threads()) {
    const Vid j = idx[q];
    vals[q] = Z((truebits[j >> 5] >> (j & 31)) & 1u);
  }
}

}  // namespace

template <class S, class TA, class TU>
void scatter(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& cols,
             const VecView<TU>& u, bool u_first) {
  using Z = typename S::value_type;
  static_assert(cuda_can_scatter<S>(), "CUDA scatter handles the Any and Lor monoids only");
  if (u.form != VectorForm::Sparse) throw Error(Status::InvalidValue, "internal: CUDA scatter needs a Sparse u");
  if (u.n != cols.nrows)
    throw Error(Status::DimensionMismatch, "scatter: u has length " + std::to_string(u.n) + ", the matrix has " +
                                               std::to_string(cols.nrows) + " rows");
  const Index n = cols.ncols;
  const Index nu = u.nvals;
  t = VectorStore<Z>::empty(n, Backend::Cuda);
  if (nu == 0 || n == 0 || (m.complement && m.bitmap == nullptr)) return;

  // Edge offsets of the frontier.
  Array<Offset> deg(static_cast<std::size_t>(nu) + 1, Backend::Cuda);
  Array<Offset> scan(static_cast<std::size_t>(nu) + 1, Backend::Cuda);
  frontier_degrees_kernel<<<grid_for(nu + 1), kBlock>>>(deg.data(), u.indices, nu, cols.row_ptr);
  CUDA_CHECK_LAUNCH();
  {
    const Offset* in = deg.data();
    Offset* out = scan.data();
    const Index items = nu + 1;
    run_cub([&](void* tmp, std::size_t& bytes) { return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, items); });
  }
  deg.reset();
  const Offset total = read_device(scan.data() + nu);
  if (total == 0) return;

  const Index cap = std::min<Index>(n, total);
  const auto words = static_cast<std::size_t>((n + 31) / 32);
  Array<std::uint32_t> claimed(words, Backend::Cuda);
  claimed.fill_bytes_with(0);
  Array<std::uint32_t> truebits;
  if constexpr (S::add_type::kind == MonoidKind::Lor) {
    truebits = Array<std::uint32_t>(words, Backend::Cuda);
    truebits.fill_bytes_with(0);
  }
  Array<Vid> idx(static_cast<std::size_t>(cap), Backend::Cuda);
  Array<Z> vals(static_cast<std::size_t>(cap), Backend::Cuda);
  DeviceCounter counter;
  push_kernel<<<grid_for(total), kBlock>>>(idx.data(), vals.data(), counter.get(), claimed.data(), truebits.data(),
                                           scan.data(), u, cols, m, s, u_first);
  CUDA_CHECK_LAUNCH();
  const Index count = counter.read();
  if (count == 0) return;

  if (count == cap) {
    t.indices = std::move(idx);
    t.values = std::move(vals);
  } else {  // exact-size arrays: a Sparse store holds nvals entries
    t.indices = Array<Vid>(static_cast<std::size_t>(count), Backend::Cuda);
    t.values = Array<Z>(static_cast<std::size_t>(count), Backend::Cuda);
    copy_bytes(t.indices.data(), Backend::Cuda, idx.data(), Backend::Cuda, t.indices.bytes());
    copy_bytes(t.values.data(), Backend::Cuda, vals.data(), Backend::Cuda, t.values.bytes());
  }
  if constexpr (S::add_type::kind == MonoidKind::Lor) {
    lor_values_kernel<<<grid_for(count), kBlock>>>(t.values.data(), t.indices.data(), count, truebits.data());
    CUDA_CHECK_LAUNCH();
  }
  t.nvals = count;
  t.jumbled = true;
}

// ---- explicit instantiations: the semirings with cuda_supports_semiring and cuda_can_scatter,
// on value-free (bool) views for the structural ones.
#define GBCUDA_INST_SCATTER(S, TA, TU)                                                                           \
  template void scatter<S, TA, TU>(VectorStore<typename S::value_type>&, const MaskView&, const S&,               \
                                   const CsrView<TA>&, const VecView<TU>&, bool);
GBCUDA_INST_SCATTER(LorLand<bool>, bool, bool)
GBCUDA_INST_SCATTER(AnyPair<bool>, bool, bool)
GBCUDA_INST_SCATTER(AnySecondI<std::int32_t>, bool, bool)
GBCUDA_INST_SCATTER(AnySecondI<std::int64_t>, bool, bool)

}  // namespace gbcuda::detail::cuda
