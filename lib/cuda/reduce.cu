// reduce: the sum of a vector's entries under a built-in monoid, with CUB DeviceReduce. The
// monoid is dispatched by a run-time kind, so CUB is instantiated once per value type.
#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

template <class T>
struct MonoidOp {
  MonoidKind kind;
  __host__ __device__ T operator()(const T& a, const T& b) const {
    switch (kind) {
      case MonoidKind::Plus: return BuiltinMonoid<T, MonoidKind::Plus>{}(a, b);
      case MonoidKind::Times: return BuiltinMonoid<T, MonoidKind::Times>{}(a, b);
      case MonoidKind::Min: return BuiltinMonoid<T, MonoidKind::Min>{}(a, b);
      case MonoidKind::Max: return BuiltinMonoid<T, MonoidKind::Max>{}(a, b);
      case MonoidKind::Lor: return BuiltinMonoid<T, MonoidKind::Lor>{}(a, b);
      case MonoidKind::Land: return BuiltinMonoid<T, MonoidKind::Land>{}(a, b);
      default: return a;  // Any (User never reaches the CUDA backend)
    }
  }
};

// Absent bitmap entries become the identity, so a plain reduction over n values is exact.
template <class T>
__global__ void fill_absent_kernel(T* __restrict__ out, const T* __restrict__ vals, const std::uint8_t* __restrict__ bm,
                                   T identity, Index n) {
  for (Index i = global_thread(); i < n; i += grid_threads()) out[i] = bm[i] ? vals[i] : identity;
}

__global__ void first_present_kernel(const std::uint8_t* __restrict__ bm, Index n, unsigned long long* first) {
  for (Index i = global_thread(); i < n; i += grid_threads())
    if (bm[i]) atomicMin(first, static_cast<unsigned long long>(i));
}

template <class T>
T reduce_values(MonoidKind kind, const T* vals, Index count, T identity) {
  Array<T> out(1, Backend::Cuda);
  MonoidOp<T> op{kind};
  run_cub([&](void* tmp, std::size_t& bytes) {
    return cub::DeviceReduce::Reduce(tmp, bytes, vals, out.data(), count, op, identity);
  });
  return read_device(out.data());
}

}  // namespace

template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u) {
  static_assert(std::is_same_v<typename Monoid::value_type, T>, "CUDA reduce keeps the value type");
  const T identity = mon.identity();
  if (u.nvals == 0) return identity;
  const Index count = u.form == VectorForm::Sparse ? u.nvals : u.n;
  if constexpr (Monoid::kind == MonoidKind::Any) {  // any entry will do: take the first stored one
    Index pos = 0;
    if (u.form == VectorForm::Bitmap) {
      Array<unsigned long long> first(1, Backend::Cuda);
      first.fill_bytes_with(0xff);
      first_present_kernel<<<grid_for(u.n), kBlock>>>(u.bitmap, u.n, first.data());
      CUDA_CHECK_LAUNCH();
      pos = static_cast<Index>(read_device(first.data()));
    }
    return read_device(u.values + pos);
  } else {
    if (u.form == VectorForm::Bitmap) {
      Array<T> filled(static_cast<std::size_t>(u.n), Backend::Cuda);
      fill_absent_kernel<<<grid_for(u.n), kBlock>>>(filled.data(), u.values, u.bitmap, identity, u.n);
      CUDA_CHECK_LAUNCH();
      return reduce_values(Monoid::kind, filled.data(), count, identity);
    }
    return reduce_values(Monoid::kind, u.values, count, identity);
  }
}

#define GBCUDA_INST_REDUCE_K(T, K) \
  template T reduce<BuiltinMonoid<T, MonoidKind::K>, T>(const BuiltinMonoid<T, MonoidKind::K>&, const VecView<T>&);
#define GBCUDA_INST_REDUCE(T)                                                                        \
  GBCUDA_INST_REDUCE_K(T, Plus) GBCUDA_INST_REDUCE_K(T, Times) GBCUDA_INST_REDUCE_K(T, Min)          \
  GBCUDA_INST_REDUCE_K(T, Max) GBCUDA_INST_REDUCE_K(T, Lor) GBCUDA_INST_REDUCE_K(T, Land)            \
  GBCUDA_INST_REDUCE_K(T, Any)
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_REDUCE)

}  // namespace gbcuda::detail::cuda
