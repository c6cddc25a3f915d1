// gather (pull): masked SpMV over the rows of a CSR for the value semirings (PlusTimes, MinPlus,
// MaxPlus, and LorLand over a matrix with stored values), u Bitmap or Dense. A tile of G threads
// handles a row (G = 1, 8 or 32, picked by the average row length); monoids with a terminal
// value stop a row as soon as one lane reaches it. Output: Bitmap, its count in device memory.
// (The boolean structural semirings run on the frontier kernels instead: lib/cuda/product/.)
#include <cooperative_groups.h>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

namespace cg = cooperative_groups;

template <class T, class Tile>
__device__ __forceinline__ T tile_shfl_xor(const Tile& tile, T v, unsigned lane_mask) {
  if constexpr (std::is_same_v<T, bool>) return tile.shfl_xor(static_cast<int>(v), lane_mask) != 0;
  else return tile.shfl_xor(v, lane_mask);
}

template <int G, class S, class TA, class TU>
__global__ void __launch_bounds__(kBlock)
    gather_kernel(std::uint8_t* __restrict__ tb, typename S::value_type* __restrict__ tv, MaskView m, S s,
                  CsrView<TA> a, VecView<TU> u, bool u_first, Index* count) {
  using Z = typename S::value_type;
  const unsigned lane = threadIdx.x % G;
  const Index groups = grid_threads() / G;
  long long local = 0;
  for (Index i = global_thread() / G; i < a.nrows; i += groups) {
    bool has = false;
    Z acc = s.add.identity();
    if (m.allows(i)) {
      const Offset end = a.row_ptr[i + 1];
      for (Offset p0 = a.row_ptr[i]; p0 < end; p0 += G) {
        const Offset p = p0 + lane;
        if (p < end) {
          const Vid k = a.col_idx[p];
          if (u.present(k)) {
            const Z term = u_first ? s.multiply(u.value(k), a.value(p), k) : s.multiply(a.value(p), u.value(k), k);
            acc = has ? s.add(acc, term) : term;
            has = true;
          }
        }
        if constexpr (S::add_type::has_terminal) {
          bool done = has && s.add.is_terminal(acc);
          if constexpr (G > 1) done = cg::tiled_partition<G>(cg::this_thread_block()).any(done);
          if (done) break;
        }
      }
      if constexpr (G > 1) {  // combine the lanes' partial sums; a lane without terms contributes nothing
        auto tile = cg::tiled_partition<G>(cg::this_thread_block());
        for (unsigned off = G / 2; off > 0; off /= 2) {
          const bool other_has = tile_shfl_xor(tile, has, off);
          const Z other = tile_shfl_xor(tile, acc, off);
          if (other_has) {
            acc = has ? s.add(acc, other) : other;
            has = true;
          }
        }
      }
    }
    if (lane == 0) {
      tb[i] = has ? 1 : 0;
      if (has) tv[i] = acc;
      local += has;
    }
  }
  block_count_add(local, count);
}

template <int G, class S, class TA, class TU>
void launch_gather(VectorStore<typename S::value_type>& out, const MaskView& m, const S& s, const CsrView<TA>& a,
                   const VecView<TU>& u, bool u_first, Index* count) {
  gather_kernel<G>
      <<<grid_for(a.nrows, G), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), m, s, a, u, u_first, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class S, class TA, class TU>
void gather(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& rows,
            const VecView<TU>& u, bool u_first) {
  using Z = typename S::value_type;
  if (u.form == VectorForm::Sparse) throw Error(Status::InvalidValue, "internal: CUDA gather needs u Bitmap or Dense");
  if (u.n != rows.ncols)
    throw Error(Status::DimensionMismatch, "gather: u has length " + std::to_string(u.n) + ", the matrix has " +
                                               std::to_string(rows.ncols) + " columns");
  const Index n = rows.nrows;
  if ((!u.nvals_dev && u.nvals == 0) || n == 0 || (m.complement && m.bitmap == nullptr)) {  // no term can exist
    t = VectorStore<Z>::empty(n, Backend::Cuda);
    return;
  }
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached gather");
  VectorStore<Z> out = VectorStore<Z>::empty(n, Backend::Cuda);
  out.form = VectorForm::Bitmap;
  out.values = Array<Z>(static_cast<std::size_t>(n), Backend::Cuda);
  out.bitmap = Array<std::uint8_t>(static_cast<std::size_t>(n), Backend::Cuda);
  Index* count = fresh_count(out);
  const Offset avg = rows.nnz / n;
  if (avg < 4) launch_gather<1>(out, m, s, rows, u, u_first, count);
  else if (avg < 32) launch_gather<8>(out, m, s, rows, u, u_first, count);
  else launch_gather<32>(out, m, s, rows, u, u_first, count);
  t = std::move(out);
}

// ---- explicit instantiations: the value semirings cuda_supports_semiring accepts.
#define GBCUDA_INST_GATHER(S, TA, TU)                                                                                  \
  template void gather<S, TA, TU>(VectorStore<typename S::value_type>&, const MaskView&, const S&, const CsrView<TA>&, \
                                  const VecView<TU>&, bool);
#define GBCUDA_INST_GATHER_ARITH(T)      \
  GBCUDA_INST_GATHER(PlusTimes<T>, T, T) \
  GBCUDA_INST_GATHER(MinPlus<T>, T, T)   \
  GBCUDA_INST_GATHER(MaxPlus<T>, T, T)
GBCUDA_INST_GATHER_ARITH(std::int32_t)
GBCUDA_INST_GATHER_ARITH(std::int64_t)
GBCUDA_INST_GATHER_ARITH(float)
GBCUDA_INST_GATHER_ARITH(double)
GBCUDA_INST_GATHER(LorLand<bool>, bool, bool)  // over a matrix with stored values

}  // namespace gbcuda::detail::cuda
