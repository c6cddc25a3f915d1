#pragma once
// Kernels for user-defined operators, compiled in the caller's own CUDA translation units.
// The library's .cu files instantiate kernels for the built-in operators only (cuda_ops.hpp);
// an operator made with make_device_unary_op / make_device_binary_op / make_device_monoid
// (semiring.hpp, nvcc only) carries a __host__ __device__ callable, and operations.hpp hands it
// to these templates instead of running on host copies. Included by operations.hpp only when
// nvcc compiles the caller (GBCUDA_USER_KERNELS). Each primitive follows the contract of
// backend_ops.hpp: t overwritten, entries only where the mask allows, count in device memory.
#include "gbcuda/detail/backend_ops.hpp"
#if GBCUDA_USER_KERNELS
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "gbcuda/context.hpp"

namespace gbcuda::detail::cuda_user {

inline constexpr int kBlock = 256;
inline cudaStream_t stream() { return static_cast<cudaStream_t>(cuda_stream()); }
inline unsigned grid_for(Index n) { return unsigned(std::clamp<Index>((n + kBlock - 1) / kBlock, 1, 8192)); }
inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw Error(Status::CudaError, std::string(what) + ": " + cudaGetErrorString(e));
}
__device__ inline Index first_thread() { return Index(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline Index thread_count() { return Index(gridDim.x) * blockDim.x; }

// Adds each thread's `local` to *count, one atomic per warp. Every thread of the block calls it.
__device__ inline void add_count(long long local, Index* count) {
  for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
  if ((threadIdx.x & 31) == 0 && local != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(count), static_cast<unsigned long long>(local));
}
template <class Z>
__device__ inline Z shuffle_down(Z v, int o) {
  if constexpr (std::is_same_v<Z, bool>) return __shfl_down_sync(0xffffffffu, int(v), o) != 0;
  else if constexpr (sizeof(Z) < 4) return Z(__shfl_down_sync(0xffffffffu, int(v), o));
  else return __shfl_down_sync(0xffffffffu, v, o);
}

// A fresh Bitmap output of length n in device memory, its count zeroed on the stream.
template <class Z>
VectorStore<Z> bitmap_output(Index n, Index*& count) {
  VectorStore<Z> t = VectorStore<Z>::empty(n, Backend::Cuda);
  t.form = VectorForm::Bitmap;
  t.values = Array<Z>(static_cast<std::size_t>(n), Backend::Cuda);
  t.bitmap = Array<std::uint8_t>(static_cast<std::size_t>(n), Backend::Cuda);
  count = fresh_count(t);
  return t;
}

template <class Op, class TU, class Z>
__global__ void apply_kernel(std::uint8_t* tb, Z* tv, VecView<TU> u, MaskView m, Op op, Index* count) {
  long long local = 0;
  for (Index i = first_thread(); i < u.n; i += thread_count()) {
    const bool keep = u.present(i) && m.allows(i);
    if (keep) tv[i] = Z(op(u.values[i]));
    tb[i] = keep ? 1 : 0;
    local += keep;
  }
  add_count(local, count);
}

// t(i) = op(u(i)); u Bitmap or Dense.
template <class Op, class TU>
void apply(VectorStore<typename Op::result_type>& t, const MaskView& m, const Op& op, const VecView<TU>& u) {
  using Z = typename Op::result_type;
  Index* count = nullptr;
  VectorStore<Z> out = bitmap_output<Z>(u.n, count);
  apply_kernel<<<grid_for(u.n), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), u, m, op, count);
  check_launch("apply with a device operator");
  t = std::move(out);
}

template <class Op, class T>
__global__ void ewise_kernel(std::uint8_t* tb, T* tv, VecView<T> u, VecView<T> v, MaskView m, Op op, bool is_union,
                             Index* count) {
  long long local = 0;
  for (Index i = first_thread(); i < u.n; i += thread_count()) {
    bool keep = false;
    if (m.allows(i)) {
      const bool pu = u.present(i), pv = v.present(i);
      if (pu && pv) {
        tv[i] = T(op(u.values[i], v.values[i]));
        keep = true;
      } else if (is_union && (pu || pv)) {
        tv[i] = pu ? u.values[i] : v.values[i];
        keep = true;
      }
    }
    tb[i] = keep ? 1 : 0;
    local += keep;
  }
  add_count(local, count);
}

// t(i) = op(u(i), v(i)) on the intersection, or (is_union) on the union; u, v Bitmap or Dense.
template <class Op, class T>
void ewise(VectorStore<T>& t, const MaskView& m, const Op& op, const VecView<T>& u, const VecView<T>& v,
           bool is_union) {
  Index* count = nullptr;
  VectorStore<T> out = bitmap_output<T>(u.n, count);
  ewise_kernel<<<grid_for(u.n), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), u, v, m, op, is_union,
                                                       count);
  check_launch("ewise with a device operator");
  t = std::move(out);
}

// One warp per row: the lanes stride over the row, then combine (present, sum) pairs by
// shuffles, so the monoid needs no identity and no atomics.
template <class S, class TA, class TU>
__global__ void pull_kernel(std::uint8_t* tb, typename S::value_type* tv, CsrView<TA> rows, VecView<TU> u, MaskView m,
                            S s, bool u_first, Index* count) {
  using Z = typename S::value_type;
  const int lane = int(threadIdx.x & 31);
  long long local = 0;
  for (Index i = first_thread() / 32; i < rows.nrows; i += thread_count() / 32) {
    bool has = false;
    Z acc{};
    if (m.allows(i)) {
      for (Offset p = rows.row_ptr[i] + lane; p < rows.row_ptr[i + 1]; p += 32) {
        const Index k = rows.col_idx[p];
        if (!u.present(k)) continue;
        const Z term = u_first ? s.multiply(u.value(k), rows.value(p), k) : s.multiply(rows.value(p), u.value(k), k);
        acc = has ? Z(s.add(acc, term)) : term;
        has = true;
      }
    }
    for (int o = 16; o > 0; o >>= 1) {
      const Z other = shuffle_down(acc, o);
      const bool other_has = shuffle_down(has, o);
      if (other_has) {
        acc = has ? Z(s.add(acc, other)) : other;
        has = true;
      }
    }
    if (lane == 0) {
      tb[i] = has ? 1 : 0;
      if (has) tv[i] = acc;
      local += has;
    }
  }
  add_count(local, count);
}

// t = rows * u over the semiring (a pull; u Bitmap or Dense).
template <class S, class TA, class TU>
void pull(VectorStore<typename S::value_type>& t, const MaskView& m, const S& s, const CsrView<TA>& rows,
          const VecView<TU>& u, bool u_first) {
  using Z = typename S::value_type;
  Index* count = nullptr;
  VectorStore<Z> out = bitmap_output<Z>(rows.nrows, count);
  const unsigned grid = unsigned(std::clamp<Index>((rows.nrows * 32 + kBlock - 1) / kBlock, 1, 8192));
  pull_kernel<<<grid, kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), rows, u, m, s, u_first, count);
  check_launch("a product over a device semiring");
  t = std::move(out);
}

}  // namespace gbcuda::detail::cuda_user
#endif  // GBCUDA_USER_KERNELS
