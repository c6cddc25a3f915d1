// reduce: the sum of a vector's entries under a built-in monoid, with CUB DeviceReduce. The
// monoid is dispatched by a run-time kind, so CUB is instantiated once per value type. The
// result is the one value read back (a count in device memory is read on the device).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

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

// The value of position p of a vector, or the identity where it has none: Bitmap (absent
// positions), Sparse (positions past the count, which may live in device memory), Dense.
template <class T>
struct ValueOrIdentity {
  const T* values;
  const std::uint8_t* bitmap;  // Bitmap form, else null
  Index count;                 // Sparse form: entries (when count_dev is null)
  const Index* count_dev;
  T identity;
  __host__ __device__ T operator()(Index p) const {  // called on the device only
    if (bitmap) return bitmap[p] ? values[p] : identity;
    return p < (count_dev ? *count_dev : count) ? values[p] : identity;
  }
};

// *first = min(*first, the first i with bm[i] set). A thread stops at its first find (its later
// ones are larger) and a warp's finds meet by shuffles: one atomic a warp, not one an entry (a
// dense bitmap's millions of atomics on one word serialise).
__global__ void first_present_kernel(const std::uint8_t* __restrict__ bm, Index n, unsigned long long* first) {
  unsigned long long found = ~0ull;
  for (Index i = global_thread(); i < n; i += grid_threads())
    if (bm[i]) {
      found = static_cast<unsigned long long>(i);
      break;
    }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, found, offset);
    found = other < found ? other : found;
  }
  if (threadIdx.x % 32 == 0 && found != ~0ull) atomicMin(first, found);
}

// ANY: the value at the first stored position (*first from first_present_kernel, or 0 for a
// Sparse list), or the identity when there is none.
template <class T>
__global__ void any_value_kernel(T* out, const T* values, const unsigned long long* first, Index count,
                                 const Index* count_dev, T identity) {
  if (first) *out = *first == ~0ull ? identity : values[*first];
  else *out = count_of(count, count_dev) > 0 ? values[0] : identity;
}

// The value of u's first stored entry into *out (the identity when u has none).
template <class T>
void first_entry(Scratch& scratch, const VecView<T>& u, T* out, T identity) {
  unsigned long long* first = nullptr;
  if (u.form == VectorForm::Bitmap) {
    first = scratch.take<unsigned long long>(1);
    fill_bytes(first, Backend::Cuda, 0xff, sizeof(*first));
    first_present_kernel<<<grid_for(u.n), kBlock, 0, stream()>>>(u.bitmap, u.n, first);
    CUDA_CHECK_LAUNCH();
  }
  const Index count = u.form == VectorForm::Dense ? u.n : u.nvals;
  any_value_kernel<<<1, 1, 0, stream()>>>(out, u.values, first, count,
                                          u.form == VectorForm::Sparse ? u.nvals_dev : nullptr, identity);
  CUDA_CHECK_LAUNCH();
}

// *out = *single where u has exactly one entry (its count in device memory or not).
template <class T>
__global__ void single_entry_kernel(T* out, const T* single, Index count, const Index* count_dev) {
  if (count_of(count, count_dev) == 1) *out = *single;
}

}  // namespace

template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u) {
  static_assert(std::is_same_v<typename Monoid::value_type, T>, "CUDA reduce keeps the value type");
  const T identity = mon.identity();
  if (!u.nvals_dev && u.nvals == 0) return identity;
  Scratch scratch;
  T* out = scratch.take<T>(1);
  if constexpr (Monoid::kind == MonoidKind::Any) {  // any entry will do: take the first stored one
    first_entry(scratch, u, out, identity);
  } else {
    const Index items = u.form == VectorForm::Sparse ? u.capacity : u.n;
    if (items == 0) return identity;
    const ValueOrIdentity<T> at{u.values, u.form == VectorForm::Bitmap ? u.bitmap : nullptr,
                                u.form == VectorForm::Dense ? u.n : u.nvals, u.nvals_dev, identity};
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), at);
    MonoidOp<T> op{Monoid::kind};
    run_cub(scratch, [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(tmp, bytes, in, out, items, op, identity, stream());
    });
    // The sum of one entry is that entry (GraphBLAS). The fold above starts from the identity,
    // which every monoid but LOR and LAND over a non-bool type leaves alone: LOR(0, -4) is 1.
    if constexpr ((Monoid::kind == MonoidKind::Lor || Monoid::kind == MonoidKind::Land) && !std::is_same_v<T, bool>) {
      T* single = scratch.take<T>(1);
      first_entry(scratch, u, single, identity);
      const Index count = u.form == VectorForm::Dense ? u.n : u.nvals;
      single_entry_kernel<<<1, 1, 0, stream()>>>(out, single, count,
                                                 u.form == VectorForm::Dense ? nullptr : u.nvals_dev);
      CUDA_CHECK_LAUNCH();
    }
  }
  return read_device(out);
}

#define GBCUDA_INST_REDUCE_K(T, K) \
  template T reduce<BuiltinMonoid<T, MonoidKind::K>, T>(const BuiltinMonoid<T, MonoidKind::K>&, const VecView<T>&);
#define GBCUDA_INST_REDUCE_KINDS(T, X) X(T, Plus) X(T, Times) X(T, Min) X(T, Max) X(T, Lor) X(T, Land) X(T, Any)
#define GBCUDA_INST_REDUCE(T) GBCUDA_INST_REDUCE_KINDS(T, GBCUDA_INST_REDUCE_K)
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_REDUCE)

}  // namespace gbcuda::detail::cuda
