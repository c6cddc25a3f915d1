// reduce: the sum of a vector's entries under a built-in monoid, in one kernel (one block folds
// the blocks' partial sums), into a value read back or into a vector of size 1 on the device (a
// device scalar, which a device loop can test). The monoid is a run-time kind, so the kernel is
// instantiated once per value type.
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
      default: return a;  // Any: either will do (User never reaches the CUDA backend)
    }
  }
};

// A partial sum and whether any entry went into it. Folding pairs rather than starting from the
// identity keeps the sum of one entry that entry (GraphBLAS; LOR(0, -4) would be 1 over a
// non-bool type), and tells an empty input from one whose sum is the identity.
template <class T>
struct Folded {
  T value;
  bool present;
};
template <class T>
__device__ __forceinline__ Folded<T> fold(MonoidOp<T> op, Folded<T> a, Folded<T> b) {
  if (!a.present) return b;
  if (!b.present) return a;
  return {op(a.value, b.value), true};
}

// u's entries by position: a Bitmap's flags, else the first `count` (or *count_dev) positions.
template <class T>
struct Entries {
  const T* values;
  const std::uint8_t* bitmap;  // Bitmap form, else null
  Index count;                 // Sparse and Dense: entries (when count_dev is null)
  const Index* count_dev;
  __device__ bool present(Index p) const { return bitmap ? bitmap[p] != 0 : p < count_of(count, count_dev); }
};

// Where the sum goes: *value (the identity when u has no entry), or a device scalar, a Bitmap
// vector of size 1: value[0] = accum(value[0], sum) (sum alone without an accumulator or where
// it had no entry), its flag and count set; an empty u clears it, or leaves it under accum.
template <class T>
struct ReduceTarget {
  T* value;
  std::uint8_t* flag;  // the device scalar's presence flag, or null for a plain value
  Index* count;        // the device scalar's count
  BinCode accum;
  T identity;
};

// The block's threads' pairs folded into thread 0's; every thread of the block calls it.
template <class T>
__device__ Folded<T> block_fold(MonoidOp<T> op, Folded<T> mine) {
  __shared__ Folded<T> slots[kBlock];
  slots[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) slots[threadIdx.x] = fold(op, slots[threadIdx.x], slots[threadIdx.x + half]);
    __syncthreads();
  }
  return slots[0];
}

// Each block folds its stride of positions into partial[blockIdx.x]; the last block to finish
// (counted in *arrived, zero on entry and left zero) folds the partials. Every fold's order is
// fixed by thread and block index, never by which block finished first, so a float sum is the
// same on every run. A grid of one block needs neither.
template <class T>
__global__ void __launch_bounds__(kBlock) reduce_kernel(Entries<T> u, Index items, MonoidOp<T> op, Folded<T>* partial,
                                                        unsigned* arrived, ReduceTarget<T> out) {
  Folded<T> mine{T{}, false};
  for (Index p = global_thread(); p < items; p += grid_threads())
    if (u.present(p)) mine = fold(op, mine, Folded<T>{u.values[p], true});
  Folded<T> sum = block_fold(op, mine);
  if (gridDim.x > 1) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      partial[blockIdx.x] = sum;
      __threadfence();
      last = atomicAdd(arrived, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    mine = Folded<T>{T{}, false};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      const volatile Folded<T>* p = partial + b;  // written by other blocks: not from this SM's L1
      mine = fold(op, mine, Folded<T>{p->value, p->present});
    }
    __syncthreads();
    sum = block_fold(op, mine);
    if (threadIdx.x == 0) *arrived = 0;
  }
  if (threadIdx.x != 0) return;
  if (!out.flag) {
    *out.value = sum.present ? sum.value : out.identity;
    return;
  }
  if (sum.present) {
    *out.value = out.accum != BinCode::None && *out.flag ? bin_apply(out.accum, *out.value, sum.value) : sum.value;
    *out.flag = 1;
  } else if (out.accum == BinCode::None) {
    *out.flag = 0;
  }
  *out.count = *out.flag;
}

template <class T>
void launch_reduce(MonoidKind kind, const VecView<T>& u, const ReduceTarget<T>& out) {
  const Index items = u.form == VectorForm::Sparse ? u.capacity : u.n;
  const Entries<T> at{u.values, u.form == VectorForm::Bitmap ? u.bitmap : nullptr,
                      u.form == VectorForm::Dense ? u.n : u.nvals,
                      u.form == VectorForm::Sparse ? u.nvals_dev : nullptr};
  // One wave of blocks at most: the last one folds their partials, a few per thread.
  const unsigned blocks = static_cast<unsigned>(std::min<Index>(grid_for(items), kDeviceCountBlocks));
  Scratch scratch;
  Folded<T>* partial = nullptr;
  unsigned* arrived = nullptr;
  if (blocks > 1) {
    partial = scratch.take<Folded<T>>(blocks);
    arrived = scratch.take<unsigned>(1);
    fill_bytes(arrived, Backend::Cuda, 0, sizeof(unsigned));
  }
  reduce_kernel<<<blocks, kBlock, 0, stream()>>>(at, items, MonoidOp<T>{kind}, partial, arrived, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class Monoid, class T>
typename Monoid::value_type reduce(const Monoid& mon, const VecView<T>& u) {
  static_assert(std::is_same_v<typename Monoid::value_type, T>, "CUDA reduce keeps the value type");
  const T identity = mon.identity();
  if (!u.nvals_dev && u.nvals == 0) return identity;
  Scratch scratch;
  T* out = scratch.take<T>(1);
  launch_reduce(Monoid::kind, u, ReduceTarget<T>{out, nullptr, nullptr, BinCode::None, identity});
  return read_device(out);
}

template <class T>
void reduce_into(VectorStore<T>& w, BinCode accum, MonoidKind kind, T identity, const VecView<T>& u) {
  if (w.form != VectorForm::Bitmap || w.n != 1)
    throw Error(Status::InvalidValue, "internal: a reduce into a vector needs it Bitmap of size 1");
  Index* count = &tally_of(w)->nvals;
  w.count_on_device = true;
  w.trace_of = nullptr;
  launch_reduce(kind, u, ReduceTarget<T>{w.values.data(), w.bitmap.data(), count, accum, identity});
}

#define GBCUDA_INST_REDUCE_K(T, K) \
  template T reduce<BuiltinMonoid<T, MonoidKind::K>, T>(const BuiltinMonoid<T, MonoidKind::K>&, const VecView<T>&);
#define GBCUDA_INST_REDUCE_KINDS(T, X) X(T, Plus) X(T, Times) X(T, Min) X(T, Max) X(T, Lor) X(T, Land) X(T, Any)
#define GBCUDA_INST_REDUCE(T)                       \
  GBCUDA_INST_REDUCE_KINDS(T, GBCUDA_INST_REDUCE_K) \
  template void reduce_into<T>(VectorStore<T>&, BinCode, MonoidKind, T, const VecView<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_REDUCE)

}  // namespace gbcuda::detail::cuda
