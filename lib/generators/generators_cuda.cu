// Graph generators on the GPU: the CSR is built in device memory and never passes through the
// host. kron / urand / rmat / powerlaw / web / road: each thread computes its draws
// (generator_core.hpp), writes them as 64-bit keys (row << bits | col; both directions for the
// symmetric kinds), then CUB radix-sorts the keys, drops duplicates and self loops, and cuts the
// sorted keys into row offsets and column indices.
// grid / randout: every row is written directly where it belongs.
#include <algorithm>
#include <cstdio>
#include <string>

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

struct NotSelfLoop {
  int bits;
  std::uint64_t mask;
  __device__ bool operator()(std::uint64_t key) const { return (key >> bits) != (key & mask); }
};

__global__ void keys_to_columns_kernel(Vid* __restrict__ col, const std::uint64_t* __restrict__ keys, Offset nnz,
                                       std::uint64_t mask) {
  for (Offset p = global_thread(); p < nnz; p += grid_threads()) col[p] = static_cast<Vid>(keys[p] & mask);
}

// row_ptr[i] = the first key position whose row is >= i (keys sorted ascending).
__global__ void keys_to_offsets_kernel(Offset* __restrict__ row_ptr, const std::uint64_t* __restrict__ keys, Offset nnz,
                                       Index n, int bits) {
  for (Index i = global_thread(); i <= n; i += grid_threads()) {
    const std::uint64_t first = std::uint64_t(i) << bits;
    Offset lo = 0, hi = nnz;
    while (lo < hi) {
      const Offset mid = lo + (hi - lo) / 2;
      if (keys[mid] < first) lo = mid + 1;
      else hi = mid;
    }
    row_ptr[i] = lo;
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

// Throws Error(OutOfMemory) before any work when the GPU cannot hold `need` bytes.
void check_room(const GraphSpec& spec, std::size_t need) {
  const std::size_t margin = std::size_t(64) << 20;  // CUB launches, allocator granularity
  const DeviceMemoryInfo info = device_memory_info();
  if (need + margin > info.free_bytes)
    throw Error(Status::OutOfMemory, "generating " + spec.text() + " on the GPU needs " + gib(need + margin) +
                                         " GiB, " + gib(info.free_bytes) + " GiB free of " + gib(info.total_bytes));
}

Csr<bool> empty_pattern(Index n) {
  Csr<bool> c;
  c.nrows = c.ncols = n;
  c.iso_value = true;
  return c;
}

template <class EdgeFn>
Csr<bool> csr_from_draws(const GraphSpec& spec, const EdgeFn& edge, Index m, bool symmetric) {
  const Index n = spec.vertices;
  const Index items = symmetric ? 2 * m : m;
  const int bits = id_bits(n);
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;

  // Peak: two key buffers and the largest CUB temporary; later one key buffer, the columns
  // and the offsets. The key buffers alone are checked first, before asking CUB about sizes
  // it may not handle.
  const std::size_t key_bytes = static_cast<std::size_t>(items) * sizeof(std::uint64_t);
  check_room(spec, 2 * key_bytes);
  std::size_t sort_tmp = 0, unique_tmp = 0, select_tmp = 0;
  {
    cub::DoubleBuffer<std::uint64_t> none(nullptr, nullptr);
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_tmp, none, items, 0, 2 * bits));
    std::uint64_t* p = nullptr;
    unsigned long long* cnt = nullptr;
    CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_tmp, p, p, cnt, items));
    CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_tmp, p, p, cnt, items, NotSelfLoop{bits, mask}));
  }
  const std::size_t tmp = std::max({sort_tmp, unique_tmp, select_tmp});
  const std::size_t csr_bytes =
      static_cast<std::size_t>(items) * sizeof(Vid) + (static_cast<std::size_t>(n) + 1) * sizeof(Offset);
  check_room(spec, std::max(2 * key_bytes + tmp, key_bytes + csr_bytes));

  progress(spec, Backend::Cuda, "drawing edges");
  Array<std::uint64_t> a(static_cast<std::size_t>(items), Backend::Cuda);
  Array<std::uint64_t> b(static_cast<std::size_t>(items), Backend::Cuda);
  draw_keys_kernel<<<grid_for(m), kBlock, 0, detail::cuda::stream()>>>(a.data(), edge, m, bits, symmetric);
  CUDA_CHECK_LAUNCH();

  progress(spec, Backend::Cuda, "sorting");
  cub::DoubleBuffer<std::uint64_t> keys(a.data(), b.data());
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(t, bytes, keys, items, 0, 2 * bits, detail::cuda::stream());
  });

  // Duplicates out (Current -> Alternate), then self loops out (Alternate -> Current).
  // The counts are read back: the CSR's arrays are sized by them.
  Array<unsigned long long> counts(2, Backend::Cuda);
  std::uint64_t* cur = keys.Current();
  std::uint64_t* alt = keys.Alternate();
  unsigned long long* uc = counts.data();
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::Unique(t, bytes, cur, alt, uc, items, detail::cuda::stream());
  });
  const Index unique_items = static_cast<Index>(read_device(uc));
  unsigned long long* nc = counts.data() + 1;
  run_cub([&](void* t, std::size_t& bytes) {
    return cub::DeviceSelect::If(t, bytes, alt, cur, nc, unique_items, NotSelfLoop{bits, mask}, detail::cuda::stream());
  });
  const Offset nnz = static_cast<Offset>(read_device(nc));
  if (cur == a.data()) b.reset();
  else a.reset();

  progress(spec, Backend::Cuda, "building CSR");
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Cuda);
  c.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  if (nnz > 0) {
    keys_to_columns_kernel<<<grid_for(nnz), kBlock, 0, detail::cuda::stream()>>>(c.col_idx.data(), cur, nnz, mask);
    CUDA_CHECK_LAUNCH();
  }
  keys_to_offsets_kernel<<<grid_for(n + 1), kBlock, 0, detail::cuda::stream()>>>(c.row_ptr.data(), cur, nnz, n, bits);
  CUDA_CHECK_LAUNCH();
  detail::synchronize(Backend::Cuda);
  return c;
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
