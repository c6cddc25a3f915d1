// cuSPARSE as a backend of the arithmetic products: SpMV (cusparseSpMV) for mxv/vxm and SpGEMM
// (cusparseSpGEMM) for mxm over PlusTimes<float> and PlusTimes<double>. The library's own kernels
// compute every semiring; where cuSPARSE computes the same product it is the faster engine on
// the H100 (docs/performance.md), and the product policy hands the call to it (detail::by_cusparse,
// product_policy.hpp). Operands keep their CSR; only the row offsets are given in 32 bits (cached
// with the matrix), cuSPARSE's fastest index type.
#include <cusparse.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cub/cub.cuh>

#include "gbcuda/context.hpp"
#include "internal.cuh"

namespace gbcuda::detail::cuda {
namespace {

std::atomic<std::uint64_t> calls{0};

[[noreturn]] void throw_cusparse_error(cusparseStatus_t e, const char* what) {
  const std::string msg = std::string("cuSPARSE: ") + what + " failed: " + cusparseGetErrorString(e);
  if (e == CUSPARSE_STATUS_ALLOC_FAILED || e == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES)
    throw Error(Status::OutOfMemory, msg);
  throw Error(Status::CudaError, msg);
}
#define CUSPARSE_CHECK(expr)                                                                    \
  do {                                                                                          \
    const cusparseStatus_t gbcuda_status_ = (expr);                                             \
    if (gbcuda_status_ != CUSPARSE_STATUS_SUCCESS) throw_cusparse_error(gbcuda_status_, #expr); \
  } while (0)

// One handle per host thread and device (a handle's stream is its state: threads must not share
// one), made on first use, and bound to the thread's stream when that is not the one it has.
cusparseHandle_t handle() {
  struct Bound {
    cusparseHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
  };
  struct Handles {
    std::vector<Bound> by_device;
    Handles() = default;
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
    ~Handles() {
      for (const Bound& b : by_device)
        if (b.handle) cusparseDestroy(b.handle);
    }
  };
  thread_local Handles handles;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (handles.by_device.size() <= static_cast<std::size_t>(device)) handles.by_device.resize(device + 1);
  Bound& b = handles.by_device[static_cast<std::size_t>(device)];
  if (!b.handle) CUSPARSE_CHECK(cusparseCreate(&b.handle));
  if (b.stream != stream() || b.stream == nullptr) {
    CUSPARSE_CHECK(cusparseSetStream(b.handle, stream()));
    b.stream = stream();
  }
  return b.handle;
}

template <class Z>
constexpr cudaDataType data_type() {
  static_assert(std::is_same_v<Z, float> || std::is_same_v<Z, double>, "cuSPARSE products: float or double");
  return std::is_same_v<Z, float> ? CUDA_R_32F : CUDA_R_64F;
}

// A matrix descriptor destroyed on every path out.
template <class D>
struct SpMat {
  D d = nullptr;
  SpMat() = default;
  SpMat(const SpMat&) = delete;
  SpMat& operator=(const SpMat&) = delete;
  ~SpMat() {
    if (d) cusparseDestroySpMat(d);
  }
};
using MatDescr = SpMat<cusparseSpMatDescr_t>;
using ConstMatDescr = SpMat<cusparseConstSpMatDescr_t>;

template <class Z>
void describe(ConstMatDescr& m, const CsrView<Z>& a, const std::int32_t* row_ptr32) {
  CUSPARSE_CHECK(cusparseCreateConstCsr(&m.d, a.nrows, a.ncols, a.nnz, row_ptr32, a.col_idx, a.values,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                        data_type<Z>()));
}

void check_operand(const void* row_ptr32, const void* values, Offset nnz, const char* what) {
  if (!row_ptr32 || !values || nnz > Offset(std::numeric_limits<std::int32_t>::max()))
    throw Error(Status::InvalidValue, std::string("internal: ") + what +
                                          " needs stored values, 32-bit row offsets and fewer than 2^31 entries");
}

// present[i] = 1 where row i has an entry, else 0; the count of such rows into *count.
__global__ void rows_present_kernel(std::uint8_t* __restrict__ present, const std::int32_t* __restrict__ row_ptr,
                                    Index n, Index* count) {
  long long local = 0;
  for (Index i = global_thread(); i < n; i += grid_threads()) {
    const bool has = row_ptr[i + 1] > row_ptr[i];
    present[i] = has ? 1 : 0;
    local += has;
  }
  block_count_add(local, count);
}

// *total += the products of A * B: over A's entries (i, k), the length of B's row k.
__global__ void products_kernel(const Vid* __restrict__ a_col, Offset a_nnz, const std::int32_t* __restrict__ b_row_ptr,
                                Index* total) {
  long long local = 0;
  for (Offset p = global_thread(); p < a_nnz; p += grid_threads()) {
    const Vid k = a_col[p];
    local += b_row_ptr[k + 1] - b_row_ptr[k];
  }
  block_count_add(local, total);
}

// *unsorted = 1 when some row's columns are not strictly ascending.
__global__ void rows_unsorted_kernel(const std::int32_t* __restrict__ row_ptr, const Vid* __restrict__ col, Index n,
                                     int* unsorted) {
  for (Index i = global_thread(); i < n; i += grid_threads())
    for (std::int32_t p = row_ptr[i] + 1; p < row_ptr[i + 1]; ++p)
      if (col[p - 1] >= col[p]) {
        *unsorted = 1;
        break;
      }
}

// A matrix's SpMV state: per stream (one host thread each) its descriptor and a work space that
// cusparseSpMV_preprocess filled once, for the repeated products cuSPARSE's preprocessing is
// meant for (it spares ALG1's partition kernel in every call); and the rows holding an entry,
// which are the output's positions whatever the input: found once (a pass over the rows and
// one host wait), so that each product's output gets its count on the host and its flags by
// one copy (no flags when every row has an entry: a Dense output).
struct SpmvEngine {
  struct PerStream {
    cudaStream_t stream = nullptr;
    int device = 0;
    cudaDataType type = CUDA_R_32F;
    cusparseConstSpMatDescr_t matrix = nullptr;
    Array<std::uint8_t> work;
  };
  std::mutex mu;
  std::vector<PerStream> streams;
  bool rows_known = false;
  Index rows_with_entries = 0;
  Array<std::uint8_t> row_present;  // nrows flags; empty when every row has an entry
  SpmvEngine() = default;
  SpmvEngine(const SpmvEngine&) = delete;
  SpmvEngine& operator=(const SpmvEngine&) = delete;
  ~SpmvEngine() {
    for (PerStream& p : streams)
      if (p.matrix) cusparseDestroySpMat(p.matrix);
  }
};

// The rows of `rows_ptr32` (n rows) holding an entry, found on first use (under e.mu).
Index rows_with_entries(SpmvEngine& e, const std::int32_t* row_ptr32, Index n) {
  if (e.rows_known) return e.rows_with_entries;
  Array<std::uint8_t> present(static_cast<std::size_t>(n), Backend::Cuda);
  Index found = 0;
  if (n > 0) {
    Scratch scratch;
    Index* count = scratch.take<Index>(1);
    fill_bytes(count, Backend::Cuda, 0, sizeof(Index));
    rows_present_kernel<<<grid_for(n), kBlock, 0, stream()>>>(present.data(), row_ptr32, n, count);
    CUDA_CHECK_LAUNCH();
    found = read_device(count);  // the flags are complete too: another stream may copy them now
  }
  if (found < n) e.row_present = std::move(present);
  e.rows_with_entries = found;
  e.rows_known = true;
  return found;
}

}  // namespace

std::uint64_t library_calls() noexcept { return calls.load(); }

std::shared_ptr<void> make_spmv_engine() { return std::make_shared<SpmvEngine>(); }

template <class Z>
void library_spmv(VectorStore<Z>& t, const CsrView<Z>& rows, const std::int32_t* row_ptr32, const Z* u, void* engine) {
  check_operand(row_ptr32, rows.values, rows.nnz, "cusparseSpMV");
  if (!engine) throw Error(Status::InvalidValue, "internal: cusparseSpMV without the matrix's engine state");
  ++calls;
  auto* e = static_cast<SpmvEngine*>(engine);
  const Index n = rows.nrows;
  std::lock_guard lock(e->mu);
  const Index present = rows_with_entries(*e, row_ptr32, n);
  VectorStore<Z> out = VectorStore<Z>::empty(n, Backend::Cuda);
  out.values = Array<Z>(static_cast<std::size_t>(n), Backend::Cuda);
  out.form = present == n ? VectorForm::Dense : VectorForm::Bitmap;
  set_nvals(out, present);
  if (rows.nnz > 0) {
    cusparseHandle_t h = handle();
    constexpr cudaDataType dt = data_type<Z>();
    constexpr cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG1;
    constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    cusparseConstDnVecDescr_t x = nullptr;
    cusparseDnVecDescr_t y = nullptr;
    struct Vecs {
      cusparseConstDnVecDescr_t& x;
      cusparseDnVecDescr_t& y;
      ~Vecs() {
        if (x) cusparseDestroyDnVec(x);
        if (y) cusparseDestroyDnVec(y);
      }
    } vecs{x, y};
    CUSPARSE_CHECK(cusparseCreateConstDnVec(&x, rows.ncols, u, dt));
    CUSPARSE_CHECK(cusparseCreateDnVec(&y, n, out.values.data(), dt));
    const Z alpha = 1, beta = 0;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    auto it = std::find_if(e->streams.begin(), e->streams.end(), [&](const SpmvEngine::PerStream& p) {
      return p.stream == stream() && p.device == device && p.type == dt;
    });
    if (it == e->streams.end()) {
      SpmvEngine::PerStream p;
      p.stream = stream();
      p.device = device;
      p.type = dt;
      CUSPARSE_CHECK(cusparseCreateConstCsr(&p.matrix, rows.nrows, rows.ncols, rows.nnz, row_ptr32, rows.col_idx,
                                            rows.values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, dt));
      e->streams.push_back(std::move(p));
      it = e->streams.end() - 1;
      std::size_t bytes = 0;
      CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, op, &alpha, it->matrix, x, &beta, y, dt, alg, &bytes));
      it->work = Array<std::uint8_t>(std::max<std::size_t>(bytes, 1), Backend::Cuda);
      const cusparseStatus_t st =
          cusparseSpMV_preprocess(h, op, &alpha, it->matrix, x, &beta, y, dt, alg, it->work.data());
      if (st != CUSPARSE_STATUS_SUCCESS && st != CUSPARSE_STATUS_NOT_SUPPORTED)
        throw_cusparse_error(st, "cusparseSpMV_preprocess");
    }
    CUSPARSE_CHECK(cusparseSpMV(h, op, &alpha, it->matrix, x, &beta, y, dt, alg, it->work.data()));
  }
  // The flags after the product is enqueued: the GPU starts on the product while the host is here.
  if (present < n) out.bitmap = e->row_present.clone();
  t = std::move(out);
}

namespace {

// C's structure and values by one cuSPARSE SpGEMM algorithm: ALG1 (the default: fastest, its work
// space grows with the number of products) or ALG3 computing `fraction` of the products at a time
// (a bounded work space). C's row offsets in 32 bits into c_row_ptr32.
template <class Z>
void spgemm_by(cusparseSpGEMMAlg_t alg, float fraction, const ConstMatDescr& ad, const ConstMatDescr& bd, Csr<Z>& c,
               Array<std::int32_t>& c_row_ptr32) {
  cusparseHandle_t h = handle();
  constexpr cudaDataType dt = data_type<Z>();
  constexpr cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  MatDescr cd;
  CUSPARSE_CHECK(cusparseCreateCsr(&cd.d, c.nrows, c.ncols, 0, c_row_ptr32.data(), nullptr, nullptr, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
  struct SpGemmDescr {
    cusparseSpGEMMDescr_t d = nullptr;
    ~SpGemmDescr() {
      if (d) cusparseSpGEMM_destroyDescr(d);
    }
  } sd;
  CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&sd.d));
  const Z alpha = 1, beta = 0;
  // Each work space is sized by a first call without it; all live until the copy is enqueued
  // (then freed in stream order).
  std::size_t bytes1 = 0, bytes2 = 0, bytes3 = 0;
  CUSPARSE_CHECK(
      cusparseSpGEMM_workEstimation(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, &bytes1, nullptr));
  Array<std::uint8_t> work1(std::max<std::size_t>(bytes1, 1), Backend::Cuda);
  CUSPARSE_CHECK(
      cusparseSpGEMM_workEstimation(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, &bytes1, work1.data()));
  if (alg == CUSPARSE_SPGEMM_DEFAULT) {
    CUSPARSE_CHECK(cusparseSpGEMM_compute(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, &bytes2, nullptr));
  } else {
    CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, fraction,
                                                 &bytes3, nullptr, nullptr));
    Array<std::uint8_t> work3(std::max<std::size_t>(bytes3, 1), Backend::Cuda);
    CUSPARSE_CHECK(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, fraction,
                                                 &bytes3, work3.data(), &bytes2));
  }
  Array<std::uint8_t> work2(std::max<std::size_t>(bytes2, 1), Backend::Cuda);
  CUSPARSE_CHECK(
      cusparseSpGEMM_compute(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d, &bytes2, work2.data()));
  std::int64_t rows = 0, cols = 0, nnz = 0;
  CUSPARSE_CHECK(cusparseSpMatGetSize(cd.d, &rows, &cols, &nnz));
  c.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Cuda);
  c.values = Array<Z>(static_cast<std::size_t>(nnz), Backend::Cuda);
  CUSPARSE_CHECK(cusparseCsrSetPointers(cd.d, c_row_ptr32.data(), c.col_idx.data(), c.values.data()));
  CUSPARSE_CHECK(cusparseSpGEMM_copy(h, op, op, &alpha, ad.d, bd.d, &beta, cd.d, dt, alg, sd.d));
}

}  // namespace

template <class Z>
Csr<Z> library_spgemm(const CsrView<Z>& a, const std::int32_t* a_row_ptr32, const CsrView<Z>& b,
                      const std::int32_t* b_row_ptr32) {
  check_operand(a_row_ptr32, a.values, a.nnz, "cusparseSpGEMM");
  check_operand(b_row_ptr32, b.values, b.nnz, "cusparseSpGEMM");
  ++calls;
  const Index m = a.nrows, n = b.ncols;
  Csr<Z> c;
  c.nrows = m;
  c.ncols = n;
  if (a.nnz == 0 || b.nnz == 0 || m == 0 || n == 0) {  // cuSPARSE wants entries; C has none
    c.row_ptr = Array<Offset>(static_cast<std::size_t>(m) + 1, Backend::Cuda);
    fill_bytes(c.row_ptr.data(), Backend::Cuda, 0, c.row_ptr.bytes());
    return c;
  }
  ConstMatDescr ad, bd;
  describe(ad, a, a_row_ptr32);
  describe(bd, b, b_row_ptr32);
  Array<std::int32_t> c_row_ptr32(static_cast<std::size_t>(m) + 1, Backend::Cuda);
  // ALG1 where its work space fits, else ALG3 on a fraction of the products at a time. The work
  // space is estimated at kBytesPerProduct a product against half the free memory: kron:16:16
  // squared (1.24e9 products) did not fit ALG1 with 80 GB free, and a failed attempt costs as much
  // as the product. A guess that proves wrong moves on to the next smaller fraction, the pool's
  // cached memory given back first (cuSPARSE allocates outside it).
  constexpr double kBytesPerProduct = 64.0;
  Index products = 0;
  {
    Scratch scratch;
    Index* total = scratch.take<Index>(1);
    fill_bytes(total, Backend::Cuda, 0, sizeof(Index));
    products_kernel<<<grid_for(a.nnz), kBlock, 0, stream()>>>(a.col_idx, a.nnz, b_row_ptr32, total);
    CUDA_CHECK_LAUNCH();
    products = read_device(total);
  }
  const double free_bytes = double(device_memory_info().free_bytes);
  const float fractions[] = {1.0f, 0.2f, 0.05f, 0.01f};  // 1: ALG1
  std::size_t k = 0;
  while (k + 1 < std::size(fractions) && kBytesPerProduct * fractions[k] * double(products) > free_bytes / 2) ++k;
  for (;; ++k) {
    try {
      spgemm_by<Z>(k == 0 ? CUSPARSE_SPGEMM_DEFAULT : CUSPARSE_SPGEMM_ALG3, fractions[k], ad, bd, c, c_row_ptr32);
      break;
    } catch (const Error& e) {
      if (e.status() != Status::OutOfMemory || k + 1 == std::size(fractions)) throw;
      cudaGetLastError();
      release_cached_device_memory();
    }
  }
  const Offset nnz = static_cast<Offset>(c.col_idx.size());
  c.row_ptr = Array<Offset>(static_cast<std::size_t>(m) + 1, Backend::Cuda);
  TypedValues offsets;
  offsets.values = c_row_ptr32.data();
  offsets.type = ValueType::Int32;
  cast_values<Offset>(c.row_ptr.data(), offsets, m + 1);
  // The library's CSR has each row's columns ascending; cuSPARSE does not promise it (its output
  // was sorted on every graph measured), so it is checked, one pass over C's columns, and the rows
  // sorted where needed.
  if (nnz > 0) {
    Scratch scratch;
    int* unsorted = scratch.take<int>(1);
    fill_bytes(unsorted, Backend::Cuda, 0, sizeof(int));
    rows_unsorted_kernel<<<grid_for(m), kBlock, 0, stream()>>>(c_row_ptr32.data(), c.col_idx.data(), m, unsorted);
    CUDA_CHECK_LAUNCH();
    if (read_device(unsorted)) {
      Array<Vid> keys(static_cast<std::size_t>(nnz), Backend::Cuda);
      Array<Z> vals(static_cast<std::size_t>(nnz), Backend::Cuda);
      run_cub([&](void* temp, std::size_t& bytes) {
        return cub::DeviceSegmentedSort::SortPairs(temp, bytes, c.col_idx.data(), keys.data(), c.values.data(),
                                                   vals.data(), nnz, m, c_row_ptr32.data(), c_row_ptr32.data() + 1,
                                                   stream());
      });
      c.col_idx = std::move(keys);
      c.values = std::move(vals);
    }
  }
  return c;
}

#define GBCUDA_INST_LIBRARY_PRODUCTS(Z)                                                                    \
  template void library_spmv<Z>(VectorStore<Z>&, const CsrView<Z>&, const std::int32_t*, const Z*, void*); \
  template Csr<Z> library_spgemm<Z>(const CsrView<Z>&, const std::int32_t*, const CsrView<Z>&, const std::int32_t*);
GBCUDA_INST_LIBRARY_PRODUCTS(float)
GBCUDA_INST_LIBRARY_PRODUCTS(double)
#undef GBCUDA_INST_LIBRARY_PRODUCTS

}  // namespace gbcuda::detail::cuda
