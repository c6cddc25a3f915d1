// The value product: w = A*u (or u'*A) over any built-in semiring, masked or not, operands of any
// value type typecast to the semiring's type Z as they are read (GraphBLAS's rule). The semiring
// is a run-time code (SemiringCode), so each kernel is compiled once per Z; the switches it
// costs are uniform across a warp.
//
// pull (u Bitmap or Dense): a tile of G threads per row of `rows` (G = 1, 8 or 32 by the average
//   row length; a monoid with a terminal value stops a row early). Rows of 32 tile lengths or
//   more are not left to one tile (a Kronecker hub of 10^5 entries would keep one warp busy
//   long after the rest finished): the tile lists them, and a second pass deals their entries
//   out to one wave of blocks in equal contiguous shares (at least kChunk each), each block's part of
//   a row combined into it with one atomic.
// push (u Sparse): the edges of u's entries are numbered by a scan of their lengths and spread
//   evenly over the threads (a thread finds its entry by binary search); each term is combined
//   into its output position with an atomic of the monoid.
// on the device (u Bitmap, its count in device memory): u's entries are listed and their edges
//   counted on the GPU, a one-thread kernel applies the policy (choose_product_kernel) to the
//   exact counts, and both the pull's and the push's kernels are enqueued, each gated on that
//   choice, so the host neither waits nor guesses.
// Output: Bitmap, its count in device memory. Sums combined by atomics (long rows, push) are in
// no fixed order: floating-point results may differ in the last bits from a sequential sum.
#include <cooperative_groups.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/cub.cuh>

#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr Offset kChunk = 4096;  // the least a block's share of the long rows' entries (16 a thread)
// Rows of at least 32 tile lengths (32 steps of a tile), at most 1024 entries, go to the chunked
// pass: a Kronecker row of 1000 entries kept one 8-lane tile busy for 125 steps, the tail of the
// whole pull (kron:20:16 on the H100).
constexpr Offset long_row_min(int tile) { return std::clamp<Offset>(Offset(32) * tile, 32, 1024); }

// ---- the semiring at run time ----------------------------------------------------------------
// (Compiling PlusTimes and MinPlus in instead, without the switches, made the pull at most 5%
// faster on the H100; unrolling the row loop, or starting a tile's steps at a
// multiple of its width (9% fewer L2 sectors read), made it no faster or slower: the pull is
// bound by L2 throughput, mostly u's random gathers, a 32-byte sector for each value.)
template <class Z>
struct DeviceSemiring {
  SemiringCode code;
  bool read_a = true;  // the terms read A's values
  bool read_u = true;  // ... u's values
  bool u_first = false;
  Z a_iso = Z(1);  // A's iso value as Z

  template <MonoidKind K>
  using M = BuiltinMonoid<Z, K>;

  __host__ __device__ Z identity() const {
    switch (code.add) {
      case MonoidKind::Plus: return M<MonoidKind::Plus>{}.identity();
      case MonoidKind::Times: return M<MonoidKind::Times>{}.identity();
      case MonoidKind::Min: return M<MonoidKind::Min>{}.identity();
      case MonoidKind::Max: return M<MonoidKind::Max>{}.identity();
      case MonoidKind::Lor: return M<MonoidKind::Lor>{}.identity();
      case MonoidKind::Land: return M<MonoidKind::Land>{}.identity();
      default: return M<MonoidKind::Any>{}.identity();
    }
  }
  __device__ bool has_terminal() const {
    switch (code.add) {
      case MonoidKind::Lor:
      case MonoidKind::Land:
      case MonoidKind::Any: return true;
      case MonoidKind::Min:
      case MonoidKind::Max: return std::is_integral_v<Z>;
      default: return false;
    }
  }
  __device__ bool is_terminal(Z x) const {
    switch (code.add) {
      case MonoidKind::Lor: return M<MonoidKind::Lor>{}.is_terminal(x);
      case MonoidKind::Land: return M<MonoidKind::Land>{}.is_terminal(x);
      case MonoidKind::Any: return true;
      case MonoidKind::Min: return M<MonoidKind::Min>{}.is_terminal(x);
      case MonoidKind::Max: return M<MonoidKind::Max>{}.is_terminal(x);
      default: return false;
    }
  }
  __device__ Z add(Z a, Z b) const {
    switch (code.add) {
      case MonoidKind::Plus: return M<MonoidKind::Plus>{}(a, b);
      case MonoidKind::Times: return M<MonoidKind::Times>{}(a, b);
      case MonoidKind::Min: return M<MonoidKind::Min>{}(a, b);
      case MonoidKind::Max: return M<MonoidKind::Max>{}(a, b);
      case MonoidKind::Lor: return M<MonoidKind::Lor>{}(a, b);
      case MonoidKind::Land: return M<MonoidKind::Land>{}(a, b);
      default: return a;  // Any
    }
  }
  __device__ Z multiply(Z x, Z y, Index k) const {
    switch (code.mul) {
#define GBCUDA_MULTIPLY_CASE(NAME, ...) \
  case MulCode::NAME: return NAME<Z>{}(x, y);
      GBCUDA_FOR_EACH_BINARY_OP(GBCUDA_MULTIPLY_CASE)
#undef GBCUDA_MULTIPLY_CASE
      case MulCode::SecondI: break;
    }
    return cast_to<Z>(k);
  }
  // One term: A's entry p (column or row k) with u's value at position q. kDirect: the values
  // read are of type Z (or A is iso), so they are loaded as Z without a switch on their type
  // (which would keep the compiler from overlapping the loads of successive entries).
  template <bool kDirect>
  __device__ Z term(const TypedValues& a, Offset p, const TypedValues& u, Index q, Index k) const {
    Z av = Z(1), uv = Z(1);
    if constexpr (kDirect) {
      if (read_a) av = a.values ? static_cast<const Z*>(a.values)[p] : a_iso;
      if (read_u) uv = static_cast<const Z*>(u.values)[q];
    } else {
      if (read_a) av = a.get<Z>(p);
      if (read_u) uv = u.get<Z>(q);
    }
    return u_first ? multiply(uv, av, k) : multiply(av, uv, k);
  }
};

// ---- atomics of the monoid ------------------------------------------------------------------
template <class W>
__device__ __forceinline__ W atomic_cas_word(W* addr, W expected, W desired) {
  if constexpr (sizeof(W) == 4) return atomicCAS(reinterpret_cast<unsigned*>(addr), expected, desired);
  else return atomicCAS(reinterpret_cast<unsigned long long*>(addr), expected, desired);
}

// *addr = add(*addr, v), atomically. Native atomics where the hardware has them, a compare-and-
// swap loop otherwise; bools by a plain store (below).
template <class Z>
__device__ void atomic_combine(Z* addr, Z v, const DeviceSemiring<Z>& s) {
  const MonoidKind k = s.code.add;
  if (k == MonoidKind::Any) {
    *addr = v;  // any one of the terms will do
    return;
  }
  if constexpr (!std::is_same_v<Z, bool> && sizeof(Z) < 4) {
    // A compare-and-swap on the aligned 32-bit word around the value (device allocations are
    // whole words: allocate_bytes), the neighbouring values left as they are.
    unsigned* word = reinterpret_cast<unsigned*>(reinterpret_cast<std::uintptr_t>(addr) & ~std::uintptr_t(3));
    const unsigned shift = unsigned(reinterpret_cast<std::uintptr_t>(addr) & 3) * 8;
    constexpr unsigned kMask = sizeof(Z) == 1 ? 0xffu : 0xffffu;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const Z nv = s.add(Z((assumed >> shift) & kMask), v);
      const unsigned next = (assumed & ~(kMask << shift)) | ((unsigned(nv) & kMask) << shift);
      if (next == assumed) return;
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
    return;
  } else if constexpr (std::is_same_v<Z, bool>) {
    // Every built-in monoid over bool is an OR (Lor, Plus, Max) or an AND (Land, Times, Min): a
    // plain store of the absorbing value does it. (A compare-and-swap on the word around the
    // byte would read past the end of the array.)
    const bool or_like = k == MonoidKind::Lor || k == MonoidKind::Plus || k == MonoidKind::Max;
    if (or_like == v) *addr = v;
    return;
  } else {
    if (k == MonoidKind::Plus) {
      if constexpr (std::is_integral_v<Z> && sizeof(Z) == 8)
        atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
      else atomicAdd(addr, v);
      return;
    }
    if constexpr (std::is_integral_v<Z>) {
      // The hardware's min and max of signed and of unsigned words.
      using N = std::conditional_t<std::is_signed_v<Z>, std::conditional_t<sizeof(Z) == 4, int, long long>,
                                   std::conditional_t<sizeof(Z) == 4, unsigned, unsigned long long>>;
      if (k == MonoidKind::Min) {
        atomicMin(reinterpret_cast<N*>(addr), N(v));
        return;
      }
      if (k == MonoidKind::Max) {
        atomicMax(reinterpret_cast<N*>(addr), N(v));
        return;
      }
    } else {
      // IEEE floats without the sign bit order as their bits read as signed integers, and those
      // with it in reverse as unsigned ones: one integer atomic instead of a compare-and-swap
      // loop. A NaN term keeps the loop (its order against other terms is unspecified anyway).
      using N = std::conditional_t<sizeof(Z) == 4, int, long long>;
      using U = std::conditional_t<sizeof(Z) == 4, unsigned, unsigned long long>;
      if ((k == MonoidKind::Min || k == MonoidKind::Max) && v == v) {
        N bits;
        memcpy(&bits, &v, sizeof(Z));
        const bool negative = bits < 0;
        if ((k == MonoidKind::Min) != negative) {  // Min of a positive or Max of a negative: signed
          if (k == MonoidKind::Min) atomicMin(reinterpret_cast<N*>(addr), bits);
          else atomicMin(reinterpret_cast<U*>(addr), U(bits));
        } else {
          if (k == MonoidKind::Max) atomicMax(reinterpret_cast<N*>(addr), bits);
          else atomicMax(reinterpret_cast<U*>(addr), U(bits));
        }
        return;
      }
    }
    using W = std::conditional_t<sizeof(Z) == 4, unsigned, unsigned long long>;
    W* word = reinterpret_cast<W*>(addr);
    W old = *word, assumed;
    do {
      assumed = old;
      Z cur;
      memcpy(&cur, &assumed, sizeof(Z));
      const Z nv = s.add(cur, v);
      W next;
      memcpy(&next, &nv, sizeof(Z));
      if (next == assumed) return;
      old = atomic_cas_word(word, assumed, next);
    } while (old != assumed);
  }
}

template <class T, class Tile>
__device__ __forceinline__ T tile_shfl_xor(const Tile& tile, T v, unsigned lane_mask) {
  if constexpr (std::is_same_v<T, bool>) return tile.shfl_xor(static_cast<int>(v), lane_mask) != 0;
  else if constexpr (sizeof(T) < 4) return T(tile.shfl_xor(static_cast<int>(v), lane_mask));
  else return tile.shfl_xor(v, lane_mask);
}
// Combines the (has, acc) partial sums of a tile's lanes; every lane ends with the total.
template <int G, class Z>
__device__ void tile_combine(const DeviceSemiring<Z>& s, bool& has, Z& acc) {
  if constexpr (G > 1) {
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

// Whether a kernel runs, decided on the device: always when `flag` is null, else when *flag ==
// want (a product whose direction the GPU chose enqueues both, each gated on the choice).
struct Gate {
  const int* flag = nullptr;
  int want = 0;
  __device__ bool closed() const { return flag != nullptr && *flag != want; }
};

// The long rows a pull handed to the second pass: their rows, and after the numbering pass each
// one's first entry in their concatenation and whether a share has given it a term yet.
struct LongRows {
  Index* count;        // rows listed
  Vid* rows;           // capacity entries
  Index* first_entry;  // capacity + 1 entries: exclusive prefix of the listed rows' lengths
  int* has;            // capacity entries
  Index capacity;
  Offset min_length;  // rows this long or longer are listed
};

// ---- pull ------------------------------------------------------------------------------------
template <int G, bool kDirect, class Z>
__global__ void __launch_bounds__(kBlock)
    pull_rows_kernel(std::uint8_t* __restrict__ tb, Z* __restrict__ tv, MaskView m, DeviceSemiring<Z> s, TypedCsr a,
                     TypedVec u, LongRows lr, bool split_long, Index* count, Gate gate) {
  if (gate.closed()) return;
  const unsigned lane = threadIdx.x % G;
  const Index groups = grid_threads() / G;
  const bool terminal = s.has_terminal();
  long long local = 0;
  for (Index i = global_thread() / G; i < a.nrows; i += groups) {
    bool has = false;
    Z acc = s.identity();
    if (m.allows(i)) {
      const Offset begin = a.row_ptr[i], end = a.row_ptr[i + 1];
      if (split_long && end - begin >= lr.min_length) {
        if (lane == 0) {
          const Index slot = static_cast<Index>(atomicAdd(reinterpret_cast<unsigned long long*>(lr.count), 1ull));
          lr.rows[slot] = static_cast<Vid>(i);
          tv[i] = acc;  // the shares combine into the identity
        }
      } else {
        for (Offset p0 = begin; p0 < end; p0 += G) {
          const Offset p = p0 + lane;
          if (p < end) {
            const Vid k = a.col_idx[p];
            if (u.present(k)) {
              const Z t = s.template term<kDirect>(a.values, p, u.values, k, k);
              acc = has ? s.add(acc, t) : t;
              has = true;
            }
          }
          if (terminal) {
            bool done = has && s.is_terminal(acc);
            if constexpr (G > 1) done = cg::tiled_partition<G>(cg::this_thread_block()).any(done);
            if (done) break;
          }
        }
        tile_combine<G>(s, has, acc);
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

// lengths[j] = the entries of listed row j, 0 past the list (so an exclusive sum over the capacity
// numbers them all, its last element the total); clears the rows' flags.
__global__ void row_lengths_kernel(LongRows lr, const Offset* __restrict__ row_ptr, Index* __restrict__ lengths) {
  const Index listed = *lr.count;
  for (Index j = global_thread(); j <= lr.capacity; j += grid_threads()) {
    Index len = 0;
    if (j < listed) {
      const Vid r = lr.rows[j];
      len = row_ptr[r + 1] - row_ptr[r];
    }
    lengths[j] = len;
    if (j < lr.capacity) lr.has[j] = 0;
  }
}

// The long rows' entries, one after another, dealt out to the blocks in equal contiguous shares
// of at least kChunk: a block finds the row its share starts in by one binary search and walks
// on, summing its part of each row (each thread kLongUnroll entries a step, their loads issued
// before any is used) and combining that into the row with one atomic; the first part with a
// term marks the row present and counts it. (A block a chunk of 4096 entries, with a search and
// a block-wide combine each, took 1.2 ms of kron:22:16's float pull on the H200 against 0.58 ms
// for all the short rows; shares of whole chunks left the blocks among rows of one partial chunk
// with half the work of those among hubs.)
constexpr int kLongUnroll = 4;

template <bool kDirect, class Z>
__global__ void __launch_bounds__(kBlock)
    long_rows_kernel(std::uint8_t* __restrict__ tb, Z* __restrict__ tv, DeviceSemiring<Z> s, TypedCsr a, TypedVec u,
                     LongRows lr, Index* count) {
  __shared__ bool warp_has[kBlock / 32];
  __shared__ Z warp_acc[kBlock / 32];
  const Index rows = *lr.count;
  const Index total = lr.first_entry[rows];
  const Index share = max((total + gridDim.x - 1) / gridDim.x, Index(kChunk));
  const Index e_begin = Index(blockIdx.x) * share;
  const Index e_end = min(total, e_begin + share);
  if (e_begin >= e_end) return;  // the whole block: no barrier is left waiting
  Index lo = 0, hi = rows;       // the last row j whose first entry is <= e_begin
  while (hi - lo > 1) {
    const Index mid = (lo + hi) / 2;
    if (lr.first_entry[mid] <= e_begin) lo = mid;
    else hi = mid;
  }
  for (Index j = lo, e = e_begin; e < e_end; ++j) {
    const Index row_first = lr.first_entry[j];
    const Index part_end = min(e_end, lr.first_entry[j + 1]);  // this block's entries of row j: [e, part_end)
    const Vid r = lr.rows[j];
    const Offset row_begin = a.row_ptr[r];
    const Offset begin = row_begin + (e - row_first), end = row_begin + (part_end - row_first);
    e = part_end;
    bool has = false;
    Z acc = s.identity();
    for (Offset p0 = begin + threadIdx.x; p0 < end; p0 += Offset(kBlock) * kLongUnroll) {
      Vid k[kLongUnroll];
      bool in[kLongUnroll];
#pragma unroll
      for (int q = 0; q < kLongUnroll; ++q) {
        const Offset p = p0 + Offset(q) * kBlock;
        in[q] = p < end;
        k[q] = in[q] ? a.col_idx[p] : 0;
      }
#pragma unroll
      for (int q = 0; q < kLongUnroll; ++q) in[q] = in[q] && u.present(k[q]);
      Z t[kLongUnroll];
#pragma unroll
      for (int q = 0; q < kLongUnroll; ++q)
        if (in[q]) t[q] = s.template term<kDirect>(a.values, p0 + Offset(q) * kBlock, u.values, k[q], k[q]);
#pragma unroll
      for (int q = 0; q < kLongUnroll; ++q) {
        if (!in[q]) continue;
        acc = has ? s.add(acc, t[q]) : t[q];
        has = true;
      }
    }
    tile_combine<32>(s, has, acc);
    const unsigned warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
      warp_has[warp] = has;
      warp_acc[warp] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      has = false;
      for (unsigned w = 0; w < kBlock / 32; ++w)
        if (warp_has[w]) {
          acc = has ? s.add(acc, warp_acc[w]) : warp_acc[w];
          has = true;
        }
      if (has) {
        atomic_combine(&tv[r], acc, s);
        if (atomicExch(&lr.has[j], 1) == 0) {
          tb[r] = 1;
          atomicAdd(reinterpret_cast<unsigned long long*>(count), 1ull);
        }
      }
    }
    __syncthreads();
  }
}

// One wave of the long-row kernel: its blocks resident at once (queried on the first device it runs on).
// Equal shares over more blocks than fit leave a second, partial wave that most SMs sit out
// (1,024 blocks at six an SM on an H200's 132: 1.3 waves, the SMs active 79% of the kernel).
template <bool kDirect, class Z>
Index long_rows_blocks() {
  static const Index blocks = [] {
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, long_rows_kernel<kDirect, Z>, kBlock, 0));
    return Index(std::max(1, per_sm * sms));
  }();
  return blocks;
}

template <int G, bool kDirect, class Z>
void launch_pull_rows(VectorStore<Z>& out, const MaskView& m, const DeviceSemiring<Z>& s, const TypedCsr& a,
                      const TypedVec& u, const LongRows& lr, bool split_long, Index* count, Gate gate) {
  pull_rows_kernel<G, kDirect><<<grid_for(a.nrows, G), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), m,
                                                                              s, a, u, lr, split_long, count, gate);
  CUDA_CHECK_LAUNCH();
}

template <class Z>
DeviceSemiring<Z> device_semiring(const SemiringCode& code, bool u_first, const TypedValues& a) {
  DeviceSemiring<Z> s;
  s.code = code;
  s.u_first = u_first;
  s.read_a = u_first ? code.reads_y : code.reads_x;
  s.read_u = u_first ? code.reads_x : code.reads_y;
  TypedValues iso = a;  // the iso value alone (a's array is in device memory)
  iso.values = nullptr;
  s.a_iso = iso.get<Z>(0);
  return s;
}
// Whether the values a product reads are all of type Z (the kernels' direct loads).
template <class Z>
bool direct_loads(const DeviceSemiring<Z>& s, const TypedValues& a, const TypedValues& u) {
  constexpr ValueType z = value_type_code<Z>();
  return (!s.read_a || a.values == nullptr || a.type == z) && (!s.read_u || (u.values != nullptr && u.type == z));
}

// ---- push ------------------------------------------------------------------------------------
// Every position absent, its value the identity (what the atomics combine into).
template <class Z>
__global__ void clear_output_kernel(std::uint8_t* __restrict__ tb, Z* __restrict__ tv, Z identity, Index n, Gate gate) {
  if (gate.closed()) return;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    tb[i] = 0;
    tv[i] = identity;
  }
}

// ends[p] = out-edges of u's entries 0..p (inclusive), over the list's capacity (0 past the count).
__global__ void entry_lengths_kernel(Index* __restrict__ lengths, const Offset* __restrict__ row_ptr,
                                     const Vid* __restrict__ idx, Index nvals, const Index* nvals_dev, Index capacity) {
  const Index count = count_of(nvals, nvals_dev);
  for (Index p = global_thread(); p < capacity; p += grid_threads()) {
    Index len = 0;
    if (p < count) {
      const Vid k = idx[p];
      len = row_ptr[k + 1] - row_ptr[k];
    }
    lengths[p] = len;
  }
}

template <bool kDirect, class Z>
__global__ void __launch_bounds__(kBlock)
    push_kernel(std::uint8_t* __restrict__ tb, Z* __restrict__ tv, MaskView m, DeviceSemiring<Z> s, TypedCsr a,
                TypedVec u, const Index* __restrict__ ends, Index entries, bool values_by_position, Gate gate) {
  if (entries == 0 || gate.closed()) return;
  const Index edges = ends[entries - 1];
  for (Index e = global_thread(); e < edges; e += grid_threads()) {
    Index lo = 0, hi = entries - 1;  // the first entry p with ends[p] > e
    while (lo < hi) {
      const Index mid = (lo + hi) / 2;
      if (ends[mid] > e) hi = mid;
      else lo = mid + 1;
    }
    const Vid k = u.indices[lo];
    const Offset p = a.row_ptr[k + 1] - (ends[lo] - e);
    const Vid j = a.col_idx[p];
    if (!m.allows(j)) continue;
    atomic_combine(&tv[j], s.template term<kDirect>(a.values, p, u.values, values_by_position ? k : lo, k), s);
    tb[j] = 1;
  }
}

__global__ void count_present_kernel(const std::uint8_t* __restrict__ tb, Index n, Index* count, Gate gate) {
  if (gate.closed()) return;
  long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) local += tb[i] != 0;
  block_count_add(local, count);
}

template <class To>
__global__ void cast_values_kernel(To* __restrict__ out, TypedValues in, Index count) {
  for (Index p = global_thread(); p < count; p += grid_threads()) out[p] = in.get<To>(p);
}

// ---- masked mxm by dot products ----------------------------------------------------------------
// One thread per entry (i,j) of the mask: the intersection of row i of A and row j of B' (both
// sorted), walking the shorter list and finding each of its columns in the longer by a binary
// search that only moves forward. keep[e] = 1 where a term exists, its sum in vals[e].
template <class Z>
__global__ void __launch_bounds__(kBlock)
    mxm_dot_kernel(Offset* __restrict__ keep, Z* __restrict__ vals, CsrView<bool> m, DeviceSemiring<Z> s, TypedCsr a,
                   TypedCsr bt) {
  const Offset nnz = m.nnz;
  for (Offset e = global_thread(); e <= nnz; e += grid_threads()) {
    if (e == nnz) {
      keep[e] = 0;
      continue;
    }
    const Index i = row_of(m.row_ptr, m.nrows, e);
    const Vid j = m.col_idx[e];
    Offset p = a.row_ptr[i], pe = a.row_ptr[i + 1], q = bt.row_ptr[j], qe = bt.row_ptr[j + 1];
    const bool a_short = pe - p <= qe - q;
    bool has = false;
    Z acc = s.identity();
    // s: the short list, l: the long one; x comes from A, y from B' whichever is which.
    Offset sp = a_short ? p : q, se = a_short ? pe : qe, lp = a_short ? q : p, le = a_short ? qe : pe;
    const Vid* scol = a_short ? a.col_idx : bt.col_idx;
    const Vid* lcol = a_short ? bt.col_idx : a.col_idx;
    for (; sp < se && lp < le; ++sp) {
      const Vid k = scol[sp];
      Offset lo = lp, hi = le;  // the first position in [lp, le) with a column >= k
      while (lo < hi) {
        const Offset mid = (lo + hi) / 2;
        if (lcol[mid] < k) lo = mid + 1;
        else hi = mid;
      }
      lp = lo;
      if (lp < le && lcol[lp] == k) {
        const Offset pa = a_short ? sp : lp, pb = a_short ? lp : sp;
        const Z x = s.read_a ? a.values.get<Z>(pa) : Z(1);
        const Z y = s.read_u ? bt.values.get<Z>(pb) : Z(1);
        const Z t = s.multiply(x, y, k);
        acc = has ? s.add(acc, t) : t;
        has = true;
        ++lp;
        if (s.has_terminal() && s.is_terminal(acc)) break;
      }
    }
    keep[e] = has ? 1 : 0;
    vals[e] = acc;
  }
}

template <class Z>
__global__ void mxm_scatter_kernel(Vid* __restrict__ out_col, Z* __restrict__ out_val, const Offset* __restrict__ pos,
                                   const Vid* __restrict__ col, const Z* __restrict__ vals, Offset nnz) {
  for (Offset e = global_thread(); e < nnz; e += grid_threads())
    if (pos[e + 1] != pos[e]) {
      out_col[pos[e]] = col[e];
      out_val[pos[e]] = vals[e];
    }
}

}  // namespace

template <class Z>
Csr<Z> mxm_dot(const CsrView<bool>& m, const SemiringCode& code, const TypedCsr& a, const TypedCsr& bt) {
  // The multiply's x is A's value, y B's: as a product with u_first false, A in the role of the
  // matrix and B' in u's.
  const DeviceSemiring<Z> s = device_semiring<Z>(code, /*u_first=*/false, a.values);
  Array<Offset> keep(static_cast<std::size_t>(m.nnz) + 1, Backend::Cuda);
  Array<Z> vals(static_cast<std::size_t>(std::max<Offset>(m.nnz, 1)), Backend::Cuda);
  mxm_dot_kernel<<<grid_for(m.nnz + 1), kBlock, 0, stream()>>>(keep.data(), vals.data(), m, s, a, bt);
  CUDA_CHECK_LAUNCH();
  Csr<Z> out;
  out.nrows = m.nrows;
  out.ncols = m.ncols;
  Offset kept = 0;
  out.row_ptr = compact_rows(m.row_ptr, m.nrows, keep.data(), m.nnz, kept);
  out.col_idx = Array<Vid>(static_cast<std::size_t>(kept), Backend::Cuda);
  out.values = Array<Z>(static_cast<std::size_t>(kept), Backend::Cuda);
  if (m.nnz > 0) {
    mxm_scatter_kernel<<<grid_for(m.nnz), kBlock, 0, stream()>>>(out.col_idx.data(), out.values.data(), keep.data(),
                                                                 m.col_idx, vals.data(), m.nnz);
    CUDA_CHECK_LAUNCH();
  }
  return out;
}

namespace {

// The pull's kernels into `out` (Bitmap of rows.nrows), counting into *count; all gated.
template <class Z>
void pull_into(VectorStore<Z>& out, Index* count, const MaskView& m, const DeviceSemiring<Z>& s, bool direct,
               const TypedCsr& rows, const TypedVec& u, Gate gate) {
  const Index n = rows.nrows;
  // A tile of about a quarter of the average row: each lane takes a few entries, which keeps
  // more loads in flight than one entry a lane and a longer reduction.
  const Offset avg = rows.nnz / n;
  const int tile = avg < 8 ? 1 : avg < 64 ? 8 : 32;
  // Room for every row that can be long: at most nnz / min_length of them.
  Scratch scratch;
  LongRows lr{};
  lr.min_length = long_row_min(tile);
  // Known to have no row that long (the matrix's cached longest row), the pull skips the pass.
  const bool split_long = rows.longest_row < 0 ? rows.nnz >= lr.min_length : rows.longest_row >= lr.min_length;
  Index* lengths = nullptr;
  if (split_long) {
    lr.capacity = std::min<Index>(n, rows.nnz / lr.min_length);
    const auto cap = static_cast<std::size_t>(lr.capacity);
    lr.count = scratch.take<Index>(1);
    lr.rows = scratch.take<Vid>(cap);
    lr.first_entry = scratch.take<Index>(cap + 1);
    lr.has = scratch.take<int>(cap);
    lengths = scratch.take<Index>(cap + 1);
    fill_bytes(lr.count, Backend::Cuda, 0, sizeof(Index));
  }
  auto run = [&](auto direct_tag) {
    constexpr bool kDirect = decltype(direct_tag)::value;
    if (tile == 1) launch_pull_rows<1, kDirect>(out, m, s, rows, u, lr, split_long, count, gate);
    else if (tile == 8) launch_pull_rows<8, kDirect>(out, m, s, rows, u, lr, split_long, count, gate);
    else launch_pull_rows<32, kDirect>(out, m, s, rows, u, lr, split_long, count, gate);
    if (split_long) {
      // Ungated: a pull that did not run listed no long row, and these then do nothing.
      row_lengths_kernel<<<grid_for(lr.capacity + 1), kBlock, 0, stream()>>>(lr, rows.row_ptr, lengths);
      CUDA_CHECK_LAUNCH();
      run_cub(scratch, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(temp, bytes, lengths, lr.first_entry, lr.capacity + 1, stream());
      });
      const Index max_shares = (rows.nnz + kChunk - 1) / kChunk;
      const auto blocks = static_cast<unsigned>(std::clamp<Index>(max_shares, 1, long_rows_blocks<kDirect, Z>()));
      long_rows_kernel<kDirect>
          <<<blocks, kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), s, rows, u, lr, count);
      CUDA_CHECK_LAUNCH();
    }
  };
  if (direct) run(std::true_type{});
  else run(std::false_type{});
}

// ends[p] = the out-edges of u's entries 0..p (Sparse u; `entries` its count or capacity), from
// `scratch`.
inline Index* entry_ends(Scratch& scratch, const TypedCsr& cols, const TypedVec& u, Index entries) {
  auto* lengths = scratch.take<Index>(static_cast<std::size_t>(entries));
  auto* ends = scratch.take<Index>(static_cast<std::size_t>(entries));
  entry_lengths_kernel<<<grid_for(entries), kBlock, 0, stream()>>>(lengths, cols.row_ptr, u.indices, u.nvals,
                                                                   u.nvals_dev, entries);
  CUDA_CHECK_LAUNCH();
  run_cub(scratch, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, lengths, ends, entries, stream());
  });
  return ends;
}

// The push's kernels into `out` (Bitmap of cols.ncols), counting into *count; all gated.
// values_by_position: u's values are indexed by position (a Bitmap's), not by entry.
template <class Z>
void push_into(VectorStore<Z>& out, Index* count, const MaskView& m, const DeviceSemiring<Z>& s, bool direct,
               const TypedCsr& cols, const TypedVec& u, const Index* ends, Index entries, bool values_by_position,
               Gate gate) {
  const Index n = cols.ncols;
  clear_output_kernel<<<grid_for(n), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), s.identity(), n,
                                                            gate);
  CUDA_CHECK_LAUNCH();
  // Enough threads for the average entry's edges; the grid-stride loop covers the rest.
  const Index edge_guess = std::max<Index>(1, entries * std::max<Offset>(1, cols.nnz / std::max<Index>(1, cols.nrows)));
  if (direct)
    push_kernel<true><<<grid_for(edge_guess), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), m, s, cols,
                                                                     u, ends, entries, values_by_position, gate);
  else
    push_kernel<false><<<grid_for(edge_guess), kBlock, 0, stream()>>>(out.bitmap.data(), out.values.data(), m, s, cols,
                                                                      u, ends, entries, values_by_position, gate);
  CUDA_CHECK_LAUNCH();
  count_present_kernel<<<grid_for(n), kBlock, 0, stream()>>>(out.bitmap.data(), n, count, gate);
  CUDA_CHECK_LAUNCH();
}

// *pull = 1 when the policy pulls the product whose input has *entries entries with ends[...]
// out-edges, else 0.
__global__ void choose_direction_kernel(int* pull, const Index* entries, const Index* ends, ProductPolicy p,
                                        Index n_out, Index unexplored_edges) {
  FrontierInfo info;
  info.frontier_size = *entries;
  info.frontier_edges = info.frontier_size > 0 ? ends[info.frontier_size - 1] : 0;
  info.unexplored_edges = unexplored_edges;
  info.n = n_out;
  *pull = choose_product_kernel(p, info) == ProductKernel::Pull ? 1 : 0;
}

void check_length(Index u_n, Index want, const char* what) {
  if (u_n != want)
    throw Error(Status::DimensionMismatch, "product: u has length " + std::to_string(u_n) + ", the matrix has " +
                                               std::to_string(want) + " " + what);
}

struct RowLength {
  const Offset* row_ptr;
  __host__ __device__ Offset operator()(Index i) const { return row_ptr[i + 1] - row_ptr[i]; }
};

}  // namespace

Offset longest_row(const Offset* row_ptr, Index nrows) {
  if (nrows == 0) return 0;
  Scratch scratch;
  auto* out = scratch.take<Offset>(1);
  auto lengths = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), RowLength{row_ptr});
  run_cub(scratch, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceReduce::Max(temp, bytes, lengths, out, nrows, stream());
  });
  return read_device(out);
}

template <class Z>
void value_pull(VectorStore<Z>& t, const MaskView& m, const SemiringCode& code, const TypedCsr& rows, const TypedVec& u,
                bool u_first) {
  if (u.form == VectorForm::Sparse) throw Error(Status::InvalidValue, "internal: CUDA pull needs u Bitmap or Dense");
  check_length(u.n, rows.ncols, "columns");
  const Index n = rows.nrows;
  if ((!u.nvals_dev && u.nvals == 0) || n == 0 || (m.complement && m.bitmap == nullptr)) {  // no term can exist
    t = VectorStore<Z>::empty(n, Backend::Cuda);
    return;
  }
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached the pull");
  const DeviceSemiring<Z> s = device_semiring<Z>(code, u_first, rows.values);
  VectorStore<Z> out = bitmap_output<Z>(n);
  Index* count = fresh_count(out);
  pull_into(out, count, m, s, direct_loads(s, rows.values, u.values), rows, u, Gate{});
  t = std::move(out);
}

template <class Z>
void value_push(VectorStore<Z>& t, const MaskView& m, const SemiringCode& code, const TypedCsr& cols, const TypedVec& u,
                bool u_first) {
  if (u.form != VectorForm::Sparse) throw Error(Status::InvalidValue, "internal: CUDA push needs u Sparse");
  check_length(u.n, cols.nrows, "rows");
  const Index n = cols.ncols;
  // The list's length: its count when the host knows it, else its capacity (the lengths past
  // the device count are zero).
  const Index entries = u.nvals_dev ? u.capacity : u.nvals;
  if (entries == 0 || n == 0 || (m.complement && m.bitmap == nullptr)) {
    t = VectorStore<Z>::empty(n, Backend::Cuda);
    return;
  }
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached the push");
  const DeviceSemiring<Z> s = device_semiring<Z>(code, u_first, cols.values);
  VectorStore<Z> out = bitmap_output<Z>(n);
  Index* count = fresh_count(out);
  Scratch scratch;
  const Index* ends = entry_ends(scratch, cols, u, entries);
  push_into(out, count, m, s, direct_loads(s, cols.values, u.values), cols, u, ends, entries, false, Gate{});
  t = std::move(out);
}

template <class Z>
void value_product_on_device(VectorStore<Z>& t, const MaskView& m, const SemiringCode& code, const TypedCsr& rows,
                             const TypedCsr& cols, const TypedVec& u, bool u_first, const ProductPolicy& p,
                             Index unexplored_edges) {
  if (u.form != VectorForm::Bitmap)
    throw Error(Status::InvalidValue, "internal: a device-chosen product needs u Bitmap");
  check_length(u.n, rows.ncols, "columns");
  check_length(u.n, cols.nrows, "rows");
  const Index n = rows.nrows;
  if (n == 0 || u.n == 0 || (m.complement && m.bitmap == nullptr)) {
    t = VectorStore<Z>::empty(n, Backend::Cuda);
    return;
  }
  if (m.list_only()) throw Error(Status::InvalidValue, "internal: a list-only mask reached the product");
  const DeviceSemiring<Z> s = device_semiring<Z>(code, u_first, rows.values);
  const bool direct = direct_loads(s, rows.values, u.values);
  VectorStore<Z> out = bitmap_output<Z>(n);
  Index* count = fresh_count(out);
  Scratch scratch;
  // u's entries as a list (its values stay where the Bitmap holds them), their edges counted.
  TypedVec list = u;
  list.form = VectorForm::Sparse;
  list.capacity = u.n;
  list.nvals = 0;
  auto* listed = scratch.take<Vid>(static_cast<std::size_t>(u.n));
  auto* listed_count = scratch.take<Index>(1);
  select_flagged(scratch, u.bitmap, u.n, listed, listed_count);
  list.indices = listed;
  list.nvals_dev = listed_count;
  list.bitmap = nullptr;
  const Index* ends = entry_ends(scratch, cols, list, u.n);
  int* pull = scratch.take<int>(1);
  choose_direction_kernel<<<1, 1, 0, stream()>>>(pull, listed_count, ends, p, n, unexplored_edges);
  CUDA_CHECK_LAUNCH();
  pull_into(out, count, m, s, direct, rows, u, Gate{pull, 1});
  push_into(out, count, m, s, direct, cols, list, ends, u.n, /*values_by_position=*/true, Gate{pull, 0});
  t = std::move(out);
}

template <class To>
void cast_values(To* out, const TypedValues& in, Index count) {
  if (count <= 0) return;
  cast_values_kernel<<<grid_for(count), kBlock, 0, stream()>>>(out, in, count);
  CUDA_CHECK_LAUNCH();
}

#define GBCUDA_INST_VALUE_PRODUCT(Z)                                                                                   \
  template void value_pull<Z>(VectorStore<Z>&, const MaskView&, const SemiringCode&, const TypedCsr&, const TypedVec&, \
                              bool);                                                                                   \
  template void value_push<Z>(VectorStore<Z>&, const MaskView&, const SemiringCode&, const TypedCsr&, const TypedVec&, \
                              bool);                                                                                   \
  template void value_product_on_device<Z>(VectorStore<Z>&, const MaskView&, const SemiringCode&, const TypedCsr&,     \
                                           const TypedCsr&, const TypedVec&, bool, const ProductPolicy&, Index);       \
  template void cast_values<Z>(Z*, const TypedValues&, Index);                                                         \
  template Csr<Z> mxm_dot<Z>(const CsrView<bool>&, const SemiringCode&, const TypedCsr&, const TypedCsr&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INST_VALUE_PRODUCT)
#undef GBCUDA_INST_VALUE_PRODUCT

}  // namespace gbcuda::detail::cuda
