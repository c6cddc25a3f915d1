// Graph generators on the GPU: the CSR is built in device memory and never passes through the
// host. kron / urand / rmat / powerlaw / web / road: each thread computes its draws
// (generator_core.hpp), writes them as 64-bit keys (row << bits | col; both directions for the
// symmetric kinds), then CUB radix-sorts the keys, drops duplicates and self loops, and cuts the
// sorted keys into row offsets and column indices. All keys at once when two buffers of them fit
// comfortably; otherwise one group of consecutive rows at a time, every edge drawn again for each
// group (csr_by_row_groups). Either way the CSR is the one of the set of keys, so it is the same.
// grid / randout: every row is written directly where it belongs.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cub/cub.cuh>

#include "cuda/cuda_check.cuh"
#include "gbcuda/context.hpp"
#include "generators/generator_core.hpp"

namespace gbcuda::gen {
namespace {

using detail::Array;
using detail::cuda::global_thread;
using detail::cuda::grid_for;
using detail::cuda::grid_threads;
using detail::cuda::kBlock;
using detail::cuda::read_device;
using detail::cuda::run_cub;

template <class EdgeFn>
__global__ void draw_keys_kernel(std::uint64_t* __restrict__ keys, EdgeFn edge, Index m, int bits, bool symmetric) {
  for (Index k = global_thread(); k < m; k += grid_threads()) {
    const Edge e = edge(static_cast<std::uint64_t>(k));
    if (symmetric) {
      keys[2 * k] = (std::uint64_t(e.u) << bits) | e.v;
      keys[2 * k + 1] = (std::uint64_t(e.v) << bits) | e.u;
    } else {
      keys[k] = (std::uint64_t(e.u) << bits) | e.v;
    }
  }
}

// The row groups of the chunked build are unions of buckets of consecutive rows, a bucket being
// the rows that share their top kBucketBits bits. 4096 buckets: a block counts them in 16 KiB of
// shared memory, and one bucket holds about 1/4096 of the keys, fine enough to balance groups.
constexpr int kBucketBits = 12;
constexpr Index kBuckets = Index(1) << kBucketBits;

// counts[b] += the keys (both directions for the symmetric kinds) whose row >> shift is b, over
// all m edges. Rows are below 2^(shift + kBucketBits). A block's counters are 32-bit: a block
// sees at most 2m / kMaxBlocks keys, and m is bounded by the device memory check before.
template <class EdgeFn>
__global__ void row_bucket_counts_kernel(unsigned long long* __restrict__ counts, EdgeFn edge, Index m, int shift,
                                         bool symmetric) {
  __shared__ unsigned int local[kBuckets];
  for (Index b = threadIdx.x; b < kBuckets; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (Index k = global_thread(); k < m; k += grid_threads()) {
    const Edge e = edge(static_cast<std::uint64_t>(k));
    atomicAdd(&local[e.u >> shift], 1u);
    if (symmetric) atomicAdd(&local[e.v >> shift], 1u);
  }
  __syncthreads();
  for (Index b = threadIdx.x; b < kBuckets; b += blockDim.x)
    if (local[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(local[b]));
}

// Draws all m edges and appends the keys whose row lies in [first_row, first_row + rows) to
// keys[], each warp taking its positions with one atomic on *count. The order of the keys is
// arbitrary (the sort that follows decides it). Nothing is written past `capacity`; *count
// still counts every key, so the caller sees an overflow.
template <class EdgeFn>
__global__ void draw_group_keys_kernel(std::uint64_t* __restrict__ keys, unsigned long long* __restrict__ count,
                                       Index capacity, EdgeFn edge, Index m, int bits, bool symmetric,
                                       std::uint32_t first_row, std::uint32_t rows) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % 32);
  // The block size is a multiple of 32, so k0 is uniform across a warp and all lanes take part.
  for (Index k0 = global_thread() - lane; k0 < m; k0 += grid_threads()) {
    const Index k = k0 + lane;
    std::uint64_t first = 0, second = 0;
    int have = 0;
    if (k < m) {
      const Edge e = edge(static_cast<std::uint64_t>(k));
      if (e.u - first_row < rows) {
        first = (std::uint64_t(e.u) << bits) | e.v;
        have = 1;
      }
      if (symmetric && e.v - first_row < rows) {
        const std::uint64_t back = (std::uint64_t(e.v) << bits) | e.u;
        if (have) second = back;
        else first = back;
        ++have;
      }
    }
    int upto = have;  // inclusive prefix sum over the warp's lanes
    for (int d = 1; d < 32; d <<= 1) {
      const int t = __shfl_up_sync(kAll, upto, d);
      if (lane >= d) upto += t;
    }
    const int total = __shfl_sync(kAll, upto, 31);
    if (total == 0) continue;
    unsigned long long start = 0;
    if (lane == 0) start = atomicAdd(count, static_cast<unsigned long long>(total));
    start = __shfl_sync(kAll, start, 0);
    const unsigned long long p = start + static_cast<unsigned long long>(upto - have);
    const auto cap = static_cast<unsigned long long>(capacity);
    if (have > 0 && p < cap) keys[p] = first;
    if (have > 1 && p + 1 < cap) keys[p + 1] = second;
  }
}

struct NotSelfLoop {
  int bits;
  std::uint64_t mask;
  __device__ bool operator()(std::uint64_t key) const { return (key >> bits) != (key & mask); }
};

__global__ void keys_to_columns_kernel(Vid* __restrict__ col, const std::uint64_t* __restrict__ keys, Offset nnz,
                                       std::uint64_t mask) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) col[p] = static_cast<Vid>(keys[p] & mask);
}

// row_ptr[i] = base + the first position in keys[0, nnz) whose row is >= i, for i in
// [first_row, last_row] (keys sorted ascending, all of rows in [first_row, last_row)).
__global__ void keys_to_offsets_kernel(Offset* __restrict__ row_ptr, const std::uint64_t* __restrict__ keys, Offset nnz,
                                       Index first_row, Index last_row, int bits, Offset base) {
  for (Index i = first_row + global_thread(); i <= last_row; i += grid_threads()) {
    const std::uint64_t first = std::uint64_t(i) << bits;
    Offset lo = 0, hi = nnz;
    while (lo < hi) {
      const Offset mid = lo + (hi - lo) / 2;
      if (keys[mid] < first) lo = mid + 1;
      else hi = mid;
    }
    row_ptr[i] = base + lo;
  }
}

__global__ void grid_degrees_kernel(Offset* __restrict__ deg, Index w, Index h) {
  const Index n = w * h;
  for (Index v = global_thread(); v <= n; v += grid_threads()) deg[v] = v < n ? grid_degree(w, h, v % w, v / w) : 0;
}

__global__ void grid_rows_kernel(Vid* __restrict__ col, const Offset* __restrict__ row_ptr, Index w, Index h) {
  const Index n = w * h;
  for (Index v = global_thread(); v < n; v += grid_threads()) grid_row(w, h, v, col + row_ptr[v]);
}

__global__ void randout_kernel(Offset* __restrict__ row_ptr, Vid* __restrict__ col, RandOutRow row, Index n) {
  const Index d = static_cast<Index>(row.degree);
  for (Index i = global_thread(); i <= n; i += grid_threads()) {
    row_ptr[i] = i * d;
    if (i < n) row(static_cast<std::uint64_t>(i), col + i * d);
  }
}

std::string gib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / double(std::size_t(1) << 30));
  return buf;
}

constexpr std::size_t kMargin = std::size_t(64) << 20;  // CUB launches, allocator granularity

// Throws Error(OutOfMemory) before any work when the GPU cannot hold `need` bytes.
void check_room(const GraphSpec& spec, std::size_t need) {
  const DeviceMemoryInfo info = device_memory_info();
  if (need + kMargin > info.free_bytes)
    throw Error(Status::OutOfMemory, "generating " + spec.text() + " on the GPU needs " + gib(need + kMargin) +
                                         " GiB, " + gib(info.free_bytes) + " GiB free of " + gib(info.total_bytes));
}

// GBCUDA_GENERATOR_WORKING_BYTES: the working memory of the row-group build, in bytes, with an
// optional K, M or G suffix (binary). Set, it forces that build (tests use it to cut small graphs
// into many groups); unset or empty, 0.
std::size_t working_bytes_override() {
  const char* text = std::getenv("GBCUDA_GENERATOR_WORKING_BYTES");
  if (!text || !*text) return 0;
  const std::string v = text;
  std::size_t bytes = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), bytes);
  std::size_t rest = static_cast<std::size_t>(end - v.data());
  int shift = 0;
  if (ec == std::errc() && rest + 1 == v.size()) {
    const char unit = v[rest];
    shift = unit == 'K' || unit == 'k' ? 10 : unit == 'M' || unit == 'm' ? 20 : unit == 'G' || unit == 'g' ? 30 : -1;
    ++rest;
  }
  if (ec != std::errc() || rest != v.size() || shift < 0 || bytes == 0 || bytes > (SIZE_MAX >> shift))
    throw Error(Status::InvalidValue,
                "GBCUDA_GENERATOR_WORKING_BYTES='" + v + "' is not a positive byte count (e.g. 1048576, 512M, 8G)");
  return bytes << shift;
}

// CUB's temporary storage to sort `count` keys of 2*bits bits, then drop duplicates and self loops.
std::size_t key_temp_bytes(Index count, int bits) {
  std::size_t sort_tmp = 0, unique_tmp = 0, select_tmp = 0;
  cub::DoubleBuffer<std::uint64_t> none(nullptr, nullptr);
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_tmp, none, count, 0, 2 * bits));
  std::uint64_t* p = nullptr;
  unsigned long long* cnt = nullptr;
  CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_tmp, p, p, cnt, count));
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_tmp, p, p, cnt, count, NotSelfLoop{bits, mask}));
  return std::max({sort_tmp, unique_tmp, select_tmp});
}

// Sorts the `count` keys in keys.Current() ascending and drops duplicates and self loops;
// returns how many are left, at the front of keys.Current(). `counters`: two device counters.
// Waits for the device (the counts are read back).
Index sort_unique_keys(cub::DoubleBuffer<std::uint64_t>& keys, Index count, int bits, unsigned long long* counters) {
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(t, bytes, keys, count, 0, 2 * bits, detail::cuda::stream());
  });
  // Duplicates out (Current -> Alternate), then self loops out (Alternate -> Current).
  std::uint64_t* cur = keys.Current();
  std::uint64_t* alt = keys.Alternate();
  unsigned long long* uc = counters;
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::Unique(t, bytes, cur, alt, uc, count, detail::cuda::stream());
  });
  const Index unique_items = static_cast<Index>(read_device(uc));
  unsigned long long* nc = counters + 1;
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::If(t, bytes, alt, cur, nc, unique_items, NotSelfLoop{bits, mask}, detail::cuda::stream());
  });
  return static_cast<Index>(read_device(nc));
}

// Writes the CSR rows [first_row, last_row) from their `nnz` sorted keys: the columns at
// col_idx[base, base + nnz), row_ptr[first_row, last_row] (the last one base + nnz, where the
// next rows begin).
void write_rows(Csr<bool>& c, const std::uint64_t* keys, Offset nnz, Index first_row, Index last_row, int bits,
                Offset base) {
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  if (nnz > 0) {
    keys_to_columns_kernel<<<grid_for(nnz), kBlock, 0, detail::cuda::stream()>>>(c.col_idx.data() + base, keys, nnz,
                                                                                 mask);
    CUDA_CHECK_LAUNCH();
  }
  keys_to_offsets_kernel<<<grid_for(last_row - first_row + 1), kBlock, 0, detail::cuda::stream()>>>(
      c.row_ptr.data(), keys, nnz, first_row, last_row, bits, base);
  CUDA_CHECK_LAUNCH();
}

Csr<bool> empty_pattern(Index n) {
  Csr<bool> c;
  c.nrows = c.ncols = n;
  c.iso_value = true;
  return c;
}

// Whether the one-pass build fits comfortably: its peak, max(2 K + T, K + C) (K the bytes of all
// keys, T CUB's temporary storage, C the CSR), within 3/4 of the free device memory. Its two key
// buffers are four times the CSR they leave; once they would take most of the card, the row
// groups' bounded buffers leave room to spare (kron:27:16 on an 80 GB card: K = 32 GiB, built in
// row groups).
bool one_pass_fits(Index vertices, Index items, int bits) {
  const std::size_t key_bytes = static_cast<std::size_t>(items) * sizeof(std::uint64_t);
  const std::size_t limit = device_memory_info().free_bytes / 4 * 3;
  // The key buffers alone first, before asking CUB about sizes it may not handle.
  if (2 * key_bytes + kMargin > limit) return false;
  const std::size_t csr_bytes =
      static_cast<std::size_t>(items) * sizeof(Vid) + (static_cast<std::size_t>(vertices) + 1) * sizeof(Offset);
  return std::max(2 * key_bytes + key_temp_bytes(items, bits), key_bytes + csr_bytes) + kMargin <= limit;
}

// Every key at once: drawn into one buffer, radix-sorted through a second, cut into a CSR of the
// exact size.
template <class EdgeFn>
Csr<bool> csr_in_one_pass(const GraphSpec& spec, const EdgeFn& edge, Index m, bool symmetric) {
  const Index n = spec.vertices;
  const Index items = symmetric ? 2 * m : m;
  const int bits = id_bits(n);

  progress(spec, Backend::Cuda, "drawing edges");
  Array<std::uint64_t> a(static_cast<std::size_t>(items), Backend::Cuda);
  Array<std::uint64_t> b(static_cast<std::size_t>(items), Backend::Cuda);
  draw_keys_kernel<<<grid_for(m), kBlock, 0, detail::cuda::stream()>>>(a.data(), edge, m, bits, symmetric);
  CUDA_CHECK_LAUNCH();

  progress(spec, Backend::Cuda, "sorting");
  cub::DoubleBuffer<std::uint64_t> keys(a.data(), b.data());
  Array<unsigned long long> counters(2, Backend::Cuda);
  const Offset nnz = sort_unique_keys(keys, items, bits, counters.data());
  const std::uint64_t* sorted = keys.Current();
  // The other buffer goes back to the driver (the pool releases at a synchronisation) before the
  // CSR is allocated, so that the CSR is not placed in, and does not keep alive, a block the size
  // of all keys.
  if (sorted == a.data()) b.reset();
  else a.reset();
  detail::synchronize(Backend::Cuda);

  progress(spec, Backend::Cuda, "building CSR");
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  write_rows(c, sorted, nnz, 0, n, bits, 0);
  detail::synchronize(Backend::Cuda);
  return c;
}

// A run of row buckets [first_bucket, end_bucket) and the keys drawn into its rows.
struct RowGroup {
  Index first_bucket = 0, end_bucket = 0;
  Index keys = 0;
};

// Cuts the buckets into consecutive groups of about equal key counts: each holds at most
// max(capacity, 1) keys, or a single bucket that alone holds more. Every bucket lies in exactly
// one group, in order.
std::vector<RowGroup> plan_row_groups(const std::vector<unsigned long long>& per_bucket, Index capacity) {
  Index total = 0;
  for (unsigned long long k : per_bucket) total += static_cast<Index>(k);
  const Index cap = std::max<Index>(capacity, 1);
  const Index parts = std::max<Index>((total + cap - 1) / cap, 1);
  const Index target = (total + parts - 1) / parts;  // at most cap
  std::vector<RowGroup> groups;
  RowGroup g;
  for (Index b = 0; b < static_cast<Index>(per_bucket.size()); ++b) {
    const Index k = static_cast<Index>(per_bucket[static_cast<std::size_t>(b)]);
    if (g.keys > 0 && g.keys + k > target) {
      g.end_bucket = b;
      groups.push_back(g);
      g = RowGroup{b, b, 0};
    }
    g.keys += k;
  }
  g.end_bucket = static_cast<Index>(per_bucket.size());
  groups.push_back(g);
  return groups;
}

// The CSR in groups of consecutive rows, within a working budget. One pass counts the keys per
// row bucket; then, for each group in row order, every edge is drawn again (edge k is a pure
// function of k), the keys of the group's rows are kept and sorted, and the group's columns and
// offsets are written where they belong in the CSR. The columns are first allocated for every
// key (an upper bound of the stored entries, known only at the end), then copied into an array of
// the exact size in the memory the working buffers gave back, or, where that is too small, kept in
// place with the excess unused (Array::shrink). Peak: C + 2 G + T, where C is the CSR with one
// column per key, G the bytes of the largest group's keys and T CUB's temporary storage for them;
// 2 G + T stays within `budget` unless one bucket alone holds more. `budget` 0: the free device
// memory less C and a reserve of 1/16.
template <class EdgeFn>
Csr<bool> csr_by_row_groups(const GraphSpec& spec, const EdgeFn& edge, Index m, bool symmetric, std::size_t budget) {
  const Index n = spec.vertices;
  const Index items = symmetric ? 2 * m : m;
  const int bits = id_bits(n);
  const int shift = std::max(0, bits - kBucketBits);
  const Index buckets = ((n - 1) >> shift) + 1;
  const std::size_t csr_bytes =
      static_cast<std::size_t>(items) * sizeof(Vid) + (static_cast<std::size_t>(n) + 1) * sizeof(Offset);
  const std::size_t count_bytes = static_cast<std::size_t>(kBuckets) * sizeof(unsigned long long);
  check_room(spec, csr_bytes + count_bytes);

  progress(spec, Backend::Cuda, "counting keys per row");
  std::vector<unsigned long long> per_bucket;
  {
    Array<unsigned long long> counts(static_cast<std::size_t>(kBuckets), Backend::Cuda);
    counts.fill_bytes_with(0);
    row_bucket_counts_kernel<<<grid_for(m), kBlock, 0, detail::cuda::stream()>>>(counts.data(), edge, m, shift,
                                                                                 symmetric);
    CUDA_CHECK_LAUNCH();
    per_bucket = counts.to_vector();
  }
  per_bucket.resize(static_cast<std::size_t>(buckets));
  Index counted = 0;
  for (unsigned long long k : per_bucket) counted += static_cast<Index>(k);
  if (counted != items)
    throw Error(Status::CudaError, "generating " + spec.text() + " on the GPU: " + std::to_string(counted) +
                                       " keys counted per row, " + std::to_string(items) + " drawn");

  constexpr std::size_t kPerKey = 2 * sizeof(std::uint64_t);  // the key and its sort buffer
  if (budget == 0) {
    const std::size_t free_bytes = device_memory_info().free_bytes;
    const std::size_t reserve = kMargin + free_bytes / 16;
    budget = free_bytes > csr_bytes + count_bytes + reserve ? free_bytes - csr_bytes - count_bytes - reserve : 0;
  }
  Index capacity = std::min<Index>(static_cast<Index>(budget / kPerKey), items);
  const std::size_t capacity_temp = key_temp_bytes(std::max<Index>(capacity, 1), bits);
  capacity = budget > capacity_temp ? static_cast<Index>((budget - capacity_temp) / kPerKey) : 0;
  const std::vector<RowGroup> groups = plan_row_groups(per_bucket, capacity);
  Index largest = 0;
  for (const RowGroup& g : groups) largest = std::max(largest, g.keys);
  const std::size_t work_bytes =
      static_cast<std::size_t>(largest) * kPerKey + (largest > 0 ? key_temp_bytes(largest, bits) : 0);
  check_room(spec, csr_bytes + work_bytes);

  Csr<bool> c = empty_pattern(n);
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(items), Backend::Cuda);
  Offset nnz = 0;
  {
    Array<std::uint64_t> a(static_cast<std::size_t>(largest), Backend::Cuda);
    Array<std::uint64_t> b(static_cast<std::size_t>(largest), Backend::Cuda);
    Array<unsigned long long> counters(3, Backend::Cuda);
    const std::string of = "/" + std::to_string(groups.size()) + " (" + gib(work_bytes) + " GiB)";
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const RowGroup& g = groups[i];
      const Index first_row = g.first_bucket << shift;
      const Index end_row = std::min(n, g.end_bucket << shift);
      const std::uint64_t* sorted = nullptr;
      Index kept = 0;
      if (g.keys > 0) {
        progress(spec, Backend::Cuda, ("drawing group " + std::to_string(i + 1) + of).c_str());
        counters.fill_bytes_with(0);
        draw_group_keys_kernel<<<grid_for(m), kBlock, 0, detail::cuda::stream()>>>(
            a.data(), counters.data(), largest, edge, m, bits, symmetric, static_cast<std::uint32_t>(first_row),
            static_cast<std::uint32_t>(end_row - first_row));
        CUDA_CHECK_LAUNCH();
        const Index drawn = static_cast<Index>(read_device(counters.data()));
        if (drawn != g.keys)
          throw Error(Status::CudaError, "generating " + spec.text() + " on the GPU: rows " +
                                             std::to_string(first_row) + ".." + std::to_string(end_row - 1) + " drew " +
                                             std::to_string(drawn) + " keys, " + std::to_string(g.keys) + " counted");
        progress(spec, Backend::Cuda, ("sorting group " + std::to_string(i + 1) + of).c_str());
        cub::DoubleBuffer<std::uint64_t> keys(a.data(), b.data());
        kept = sort_unique_keys(keys, g.keys, bits, counters.data() + 1);
        sorted = keys.Current();
      }
      write_rows(c, sorted, kept, first_row, end_row, bits, nnz);
      nnz += kept;
    }
  }
  // The working buffers go back to the driver (the pool releases at a synchronisation) before the
  // columns of the exact size are allocated.
  detail::synchronize(Backend::Cuda);

  progress(spec, Backend::Cuda, "building CSR");
  const std::size_t exact_bytes = static_cast<std::size_t>(nnz) * sizeof(Vid);
  if (nnz < items && exact_bytes <= work_bytes) {
    Array<Vid> col(static_cast<std::size_t>(nnz), Backend::Cuda);
    detail::copy_bytes(col.data(), Backend::Cuda, c.col_idx.data(), Backend::Cuda, exact_bytes);
    c.col_idx = std::move(col);
  } else {
    c.col_idx.shrink(static_cast<std::size_t>(nnz));
  }
  detail::synchronize(Backend::Cuda);
  return c;
}

// The graphs drawn edge by edge: in one pass when that fits comfortably, else in row groups.
template <class EdgeFn>
Csr<bool> csr_from_draws(const GraphSpec& spec, const EdgeFn& edge, Index m, bool symmetric) {
  const std::size_t forced = working_bytes_override();
  const Index items = symmetric ? 2 * m : m;
  if (forced == 0 && one_pass_fits(spec.vertices, items, id_bits(spec.vertices)))
    return csr_in_one_pass(spec, edge, m, symmetric);
  return csr_by_row_groups(spec, edge, m, symmetric, forced);
}

Csr<bool> grid_cuda(const GraphSpec& spec) {
  const Index w = spec.width, h = spec.height, n = spec.vertices;
  const Index nnz = spec.edges_drawn();
  std::size_t scan_tmp = 0;
  {
    Offset* p = nullptr;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_tmp, p, p, n + 1));
  }
  check_room(spec, 2 * (static_cast<std::size_t>(n) + 1) * sizeof(Offset) + scan_tmp +
                       static_cast<std::size_t>(nnz) * sizeof(Vid));
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  {
    Array<Offset> deg(static_cast<std::size_t>(n) + 1, Backend::Cuda);
    grid_degrees_kernel<<<grid_for(n + 1), kBlock, 0, detail::cuda::stream()>>>(deg.data(), w, h);
    CUDA_CHECK_LAUNCH();
    Offset* in = deg.data();
    Offset* out = c.row_ptr.data();
    run_cub([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(t, bytes, in, out, n + 1, detail::cuda::stream());
    });
  }
  c.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  grid_rows_kernel<<<grid_for(n), kBlock, 0, detail::cuda::stream()>>>(c.col_idx.data(), c.row_ptr.data(), w, h);
  CUDA_CHECK_LAUNCH();
  detail::synchronize(Backend::Cuda);
  return c;
}

Csr<bool> randout_cuda(const GraphSpec& spec, std::uint64_t seed) {
  const Index n = spec.vertices, d = spec.degree;
  check_room(spec, (static_cast<std::size_t>(n) + 1) * sizeof(Offset) + static_cast<std::size_t>(n * d) * sizeof(Vid));
  progress(spec, Backend::Cuda, "drawing edges");
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(n * d), Backend::Cuda);
  const RandOutRow row{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(d), stream_key(seed, kRandOut)};
  randout_kernel<<<grid_for(n + 1), kBlock, 0, detail::cuda::stream()>>>(c.row_ptr.data(), c.col_idx.data(), row, n);
  CUDA_CHECK_LAUNCH();
  detail::synchronize(Backend::Cuda);
  return c;
}

}  // namespace

Matrix<bool> generate_cuda(const GraphSpec& spec, std::uint64_t seed) {
  Csr<bool> c;
  switch (spec.kind) {
    case GraphSpec::Kind::Kron:
      c = csr_from_draws(spec, RMatEdges::kron(spec.scale, seed), spec.edges_drawn(), true);
      break;
    case GraphSpec::Kind::Urand:
      c = csr_from_draws(spec, UrandEdges(spec.scale, seed), spec.edges_drawn(), true);
      break;
    case GraphSpec::Kind::Grid: c = grid_cuda(spec); break;
    case GraphSpec::Kind::RandOut: c = randout_cuda(spec, seed); break;
    case GraphSpec::Kind::RMat: c = csr_from_draws(spec, RMatEdges::rmat(spec, seed), spec.edges_drawn(), false); break;
    case GraphSpec::Kind::PowerLaw:
      c = csr_from_draws(spec, PowerLawEdges(spec, id_bits(spec.vertices), seed), spec.edges_drawn(), false);
      break;
    case GraphSpec::Kind::Web: c = csr_from_draws(spec, WebEdges(spec, seed), spec.edges_drawn(), true); break;
    case GraphSpec::Kind::Road: c = csr_from_draws(spec, RoadEdges(spec, seed), spec.edges_drawn(), true); break;
  }
  // Symmetric by construction, or directed (nothing claimed: it is computed when asked).
  const std::optional<bool> symmetric = spec.symmetric() ? std::optional<bool>(true) : std::nullopt;
  return Matrix<bool>::from_valid_csr(std::move(c), symmetric);
}

}  // namespace gbcuda::gen
