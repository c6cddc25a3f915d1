// Matrix<T>: building CSR from coordinates or arrays, the host transpose, the cached properties
// (transpose, degrees, symmetry, per-backend copies), and changes to single entries (pending until
// the next read, copy on write).
#include "gbcuda/matrix.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/duplicates.hpp"

#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif
#include "gbcuda/detail/stream_use.hpp"

namespace gbcuda {
namespace detail {

template <class T>
struct MatrixStore {
  Index nrows = 0;
  Index ncols = 0;
  Index nvals = 0;
  bool iso = true;
  std::mutex mu;  // guards the caches below
  std::optional<Csr<T>> host;
  std::optional<Csr<T>> device;
  std::optional<Array<std::int32_t>> row_ptr32;  // device_row_offsets32's copy, beside `device`
  std::shared_ptr<void> engine;                  // device_engine_state's, beside `device`
  std::optional<Offset> longest_row;             // longest_row's answer
  std::optional<Matrix<T>> transpose;
  std::optional<Matrix<T>> symmetrized;
  std::optional<std::vector<Index>> out_degrees;
  std::optional<std::vector<Index>> in_degrees;
  std::optional<bool> symmetric;
  StreamUse use;  // the threads' streams that built or read `device`
  // set_element / remove_element not yet in the CSR: (i, j) -> the new value, or nothing for a
  // removal; `has_pending` lets a read skip the lock when there are none.
  std::map<std::pair<Index, Index>, std::optional<T>> pending;
  std::atomic<bool> has_pending{false};
  MatrixStore() = default;
  MatrixStore(const MatrixStore&) = delete;
  MatrixStore& operator=(const MatrixStore&) = delete;
  ~MatrixStore() {
    if (device) use.before_free();
  }
};

namespace {

std::string str(Index x) { return std::to_string(x); }

void check_dims(Index nrows, Index ncols) {
  if (nrows < 0 || ncols < 0)
    throw Error(Status::InvalidValue, "matrix dimensions must be >= 0, got " + str(nrows) + " x " + str(ncols));
  if (ncols > Index(std::numeric_limits<Vid>::max()) || nrows > Index(std::numeric_limits<Vid>::max()))
    throw Error(Status::InvalidValue,
                "matrix dimensions " + str(nrows) + " x " + str(ncols) + " exceed 2^31-1 (32-bit indices)");
}

// Sorts each row of a CSR (columns ascending) and merges duplicate columns in place, then
// compacts. `values` may be empty (pattern).
template <class T>
void sort_and_merge_rows(Index nrows, std::vector<Offset>& row_ptr, std::vector<Vid>& col_idx, std::vector<T>& values,
                         DuplicatePolicy dup) {
  const bool has_values = !values.empty();
  std::vector<Offset> kept = host_vector<Offset>(static_cast<std::size_t>(nrows) + 1, 0);
  bool duplicate_found = false;
  // std::vector<bool> packs its elements into shared words: threads writing different rows'
  // values would race on them, so bool values are sorted on one thread.
  const bool parallel = !(std::is_same_v<T, bool> && has_values);
#pragma omp parallel for schedule(dynamic, 1024) reduction(|| : duplicate_found) if (parallel)
  for (Index i = 0; i < nrows; ++i) {
    const Offset lo = row_ptr[i], hi = row_ptr[i + 1];
    const bool sorted = std::is_sorted(col_idx.begin() + lo, col_idx.begin() + hi);
    if (!sorted) {
      if (has_values) {
        std::vector<std::pair<Vid, T>> tmp;
        tmp.reserve(static_cast<std::size_t>(hi - lo));
        for (Offset p = lo; p < hi; ++p) tmp.emplace_back(col_idx[p], values[p]);
        std::stable_sort(tmp.begin(), tmp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (Offset p = lo; p < hi; ++p) {
          col_idx[p] = tmp[p - lo].first;
          values[p] = tmp[p - lo].second;
        }
      } else {
        std::sort(col_idx.begin() + lo, col_idx.begin() + hi);
      }
    }
    Offset out = lo;
    for (Offset p = lo; p < hi; ++p) {
      if (out > lo && col_idx[out - 1] == col_idx[p]) {
        duplicate_found = true;
        if (has_values) values[out - 1] = combine<T>(dup, values[out - 1], values[p]);
      } else {
        col_idx[out] = col_idx[p];
        if (has_values) values[out] = values[p];
        ++out;
      }
    }
    kept[i + 1] = out - lo;
  }
  if (duplicate_found && dup == DuplicatePolicy::Error)
    throw Error(Status::InvalidValue, "duplicate entries found and DuplicatePolicy::Error was asked for");
  if (!duplicate_found) return;
  std::partial_sum(kept.begin(), kept.end(), kept.begin());
  Offset write = 0;
  for (Index i = 0; i < nrows; ++i) {  // compact: rows only move left, so in order is safe
    const Offset lo = row_ptr[i];
    const Offset len = kept[i + 1] - kept[i];
    for (Offset p = 0; p < len; ++p) {
      col_idx[write + p] = col_idx[lo + p];
      if (has_values) values[write + p] = values[lo + p];
    }
    write += len;
  }
  col_idx.resize(static_cast<std::size_t>(write));
  if (has_values) values.resize(static_cast<std::size_t>(write));
  row_ptr = std::move(kept);
}

template <class T>
Csr<T> host_csr(Index nrows, Index ncols, std::vector<Offset>&& row_ptr, std::vector<Vid>&& col_idx,
                std::vector<T>&& values) {
  Csr<T> c;
  c.nrows = nrows;
  c.ncols = ncols;
  c.row_ptr = Array<Offset>::adopt(std::move(row_ptr));  // the vectors' memory, not a copy
  c.col_idx = Array<Vid>::adopt(std::move(col_idx));
  if (!values.empty()) c.values = Array<T>::adopt(std::move(values));
  return c;
}

// a with `changes` applied (each replaces, adds or removes one entry), in host memory. Stays iso
// where every value set equals a's iso value.
template <class T>
Csr<T> with_changes(const Csr<T>& a, const std::map<std::pair<Index, Index>, std::optional<T>>& changes) {
  bool iso = a.is_iso();
  for (const auto& [at, x] : changes)
    if (x && !(*x == a.iso_value)) iso = false;
  const auto nrows = static_cast<std::size_t>(a.nrows);
  std::vector<Offset> row_ptr = host_vector<Offset>(nrows + 1, 0);
  std::vector<Vid> cols;
  std::vector<T> vals;
  cols.reserve(static_cast<std::size_t>(a.nvals()) + changes.size());
  if (!iso) vals.reserve(cols.capacity());
  const Offset* rp = a.row_ptr.data();
  const Vid* ci = a.col_idx.data();
  auto it = changes.begin();
  for (Index i = 0; i < a.nrows; ++i) {
    Offset p = rp[i];
    const Offset end = rp[i + 1];
    for (;;) {
      const bool change_here = it != changes.end() && it->first.first == i;
      if (!change_here && p == end) break;
      if (change_here && (p == end || it->first.second <= Index(ci[p]))) {
        if (p < end && Index(ci[p]) == it->first.second) ++p;  // replaced or removed
        if (it->second) {
          cols.push_back(static_cast<Vid>(it->first.second));
          if (!iso) vals.push_back(*it->second);
        }
        ++it;
      } else {
        cols.push_back(ci[p]);
        if (!iso) vals.push_back(a.is_iso() ? a.iso_value : a.values.data()[p]);
        ++p;
      }
    }
    row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<Offset>(cols.size());
  }
  Csr<T> c = host_csr(a.nrows, a.ncols, std::move(row_ptr), std::move(cols), std::move(vals));
  if (iso) c.iso_value = a.iso_value;
  return c;
}

}  // namespace

// Host transpose: counting sort by column. Rows are visited in order, so each column of the
// result lists its rows ascending.
template <class T>
Csr<T> transpose_csr(const Csr<T>& a) try {
#if GBCUDA_HAVE_CUDA
  if (a.where() == Backend::Cuda) return cuda::transpose_csr(a);
#endif
  Csr<T> t;
  t.nrows = a.ncols;
  t.ncols = a.nrows;
  t.iso_value = a.iso_value;
  const Offset nnz = a.nvals();
  t.row_ptr = Array<Offset>(static_cast<std::size_t>(a.ncols) + 1, Backend::Host);
  t.col_idx = Array<Vid>(static_cast<std::size_t>(nnz), Backend::Host);
  if (!a.is_iso()) t.values = Array<T>(static_cast<std::size_t>(nnz), Backend::Host);
  std::fill(t.row_ptr.begin(), t.row_ptr.end(), Offset{0});
  for (Offset p = 0; p < nnz; ++p) ++t.row_ptr[a.col_idx[p] + 1];
  std::partial_sum(t.row_ptr.begin(), t.row_ptr.end(), t.row_ptr.begin());
  std::vector<Offset> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (Index i = 0; i < a.nrows; ++i) {
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const Offset q = next[a.col_idx[p]]++;
      t.col_idx[q] = static_cast<Vid>(i);
      if (!a.is_iso()) t.values[q] = a.values[p];
    }
  }
  return t;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("a transpose");
}

}  // namespace detail

template <class T>
const std::shared_ptr<detail::MatrixStore<T>>& Matrix<T>::empty_store() noexcept {
  // Made once, before the first move can ask for it (every constructor calls this first).
  static const auto* empty = [] {
    auto s = std::make_shared<detail::MatrixStore<T>>();
    Csr<T> c;
    c.row_ptr = detail::Array<Offset>(1, Backend::Host);
    c.row_ptr[0] = 0;
    s->host.emplace(std::move(c));
    return new std::shared_ptr<detail::MatrixStore<T>>(std::move(s));  // never destroyed
  }();
  return *empty;
}

template <class T>
Matrix<T>::Matrix() : s_(empty_store()) {}

template <class T>
Matrix<T>::Matrix(Index nrows, Index ncols) : s_(empty_store()) {
  detail::check_dims(nrows, ncols);
  *this =
      from_valid_csr(detail::host_csr<T>(nrows, ncols, detail::host_vector<Offset>(std::size_t(nrows) + 1, 0), {}, {}),
                     nrows == ncols ? std::optional<bool>(true) : std::nullopt);
}

template <class T>
void Matrix<T>::own_storage() {
  if (s_.use_count() == 1) return;
  const Csr<T>& a = csr(Backend::Host);
  Matrix<T> own = from_valid_csr(a.clone(Backend::Host), known_symmetric_structure());
  s_ = std::exchange(own.s_, empty_store());
}

template <class T>
void Matrix<T>::change(Index i, Index j, std::optional<T> x, const char* what) try {
  if (i < 0 || i >= nrows() || j < 0 || j >= ncols())
    throw Error(Status::InvalidIndex, std::string(what) + " (" + detail::str(i) + ", " + detail::str(j) +
                                          ") is outside the " + detail::str(nrows()) + " x " + detail::str(ncols()) +
                                          " matrix");
  own_storage();
  std::lock_guard lock(s_->mu);
  s_->pending[{i, j}] = x;
  s_->has_pending.store(true, std::memory_order_release);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in(what);
}

template <class T>
void Matrix<T>::set_element(Index i, Index j, T x) {
  change(i, j, x, "set_element");
}

template <class T>
void Matrix<T>::remove_element(Index i, Index j) {
  change(i, j, std::nullopt, "remove_element");
}

template <class T>
void Matrix<T>::wait() const {
  settle();
}

template <class T>
Index Matrix<T>::pending_changes() const {
  std::lock_guard lock(s_->mu);
  return static_cast<Index>(s_->pending.size());
}

template <class T>
CsrVectors<T> Matrix<T>::unpack_csr() try {
  settle();
  CsrVectors<T> out;
  out.nrows = nrows();
  out.ncols = ncols();
  if (s_.use_count() == 1 && s_->host) {  // this Matrix alone: move the arrays out
    Csr<T>& h = *s_->host;
    out.row_ptr = h.row_ptr.release_vector();
    out.col_idx = h.col_idx.release_vector();
    out.values = h.values.release_vector();
    out.iso_value = h.iso_value;
  } else {
    const Csr<T>& h = csr(Backend::Host);
    out.row_ptr = h.row_ptr.to_vector();
    out.col_idx = h.col_idx.to_vector();
    out.values = h.values.to_vector();
    out.iso_value = h.iso_value;
  }
  *this = Matrix<T>(out.nrows, out.ncols);
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::unpack_csr");
}

template <class T>
CscVectors<T> Matrix<T>::unpack_csc() try {
  settle();
  CscVectors<T> out;
  out.nrows = nrows();
  out.ncols = ncols();
  // A' shares its store with A's cache until A lets go of it: then, held by nobody else, its CSR
  // moves out without a copy.
  Matrix<T> At = transpose();
  *this = Matrix<T>(out.nrows, out.ncols);
  CsrVectors<T> t = At.unpack_csr();
  out.col_ptr = std::move(t.row_ptr);
  out.row_idx = std::move(t.col_idx);
  out.values = std::move(t.values);
  out.iso_value = t.iso_value;
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::unpack_csc");
}

template <class T>
HyperCsrVectors<T> Matrix<T>::unpack_hyper_csr() try {
  settle();
  HyperCsrVectors<T> out;
  {  // room for the list before anything moves out (a host copy made here is what unpack_csr moves)
    const Csr<T>& a = csr(Backend::Host);
    Index listed = 0;
    for (Index i = 0; i < a.nrows; ++i) listed += a.row_ptr[i + 1] > a.row_ptr[i];
    out.rows.reserve(static_cast<std::size_t>(listed));
    out.row_ptr.reserve(static_cast<std::size_t>(listed) + 1);
  }
  CsrVectors<T> c = unpack_csr();
  out.nrows = c.nrows;
  out.ncols = c.ncols;
  out.row_ptr.push_back(0);
  for (Index i = 0; i < c.nrows; ++i) {
    if (c.row_ptr[i + 1] == c.row_ptr[i]) continue;
    out.rows.push_back(i);
    out.row_ptr.push_back(c.row_ptr[i + 1]);
  }
  out.col_idx = std::move(c.col_idx);
  out.values = std::move(c.values);
  out.iso_value = c.iso_value;
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::unpack_hyper_csr");
}

template <class T>
void Matrix<T>::settle() const try {
  if (!s_->has_pending.load(std::memory_order_acquire)) return;
  std::lock_guard lock(s_->mu);
  if (s_->pending.empty()) return;
  auto& st = *s_;
  if (!st.host) {
    st.use.before_read();
    st.host.emplace(st.device->clone(Backend::Host));
  }
  Csr<T> changed = detail::with_changes(*st.host, st.pending);
  // Every cached copy and property described the old entries.
  if (st.device) st.use.before_write();
  st.engine.reset();
  st.row_ptr32.reset();
  st.longest_row.reset();
  st.device.reset();
  st.transpose.reset();
  st.symmetrized.reset();
  st.out_degrees.reset();
  st.in_degrees.reset();
  st.symmetric.reset();
  st.nvals = changed.nvals();
  st.iso = changed.is_iso();
  st.host.emplace(std::move(changed));
  st.pending.clear();
  st.has_pending.store(false, std::memory_order_release);
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::wait (applying set_element / remove_element)");
}

template <class T>
Matrix<T> Matrix<T>::from_coo(Index nrows, Index ncols, std::span<const Index> rows, std::span<const Index> cols,
                              std::span<const T> values, DuplicatePolicy dup) try {
  detail::check_dims(nrows, ncols);
  if (rows.size() != cols.size() || (!values.empty() && values.size() != rows.size()))
    throw Error(Status::InvalidValue, "from_coo: " + std::to_string(rows.size()) + " rows, " +
                                          std::to_string(cols.size()) + " columns and " +
                                          std::to_string(values.size()) + " values differ in length");
  const std::size_t nnz = rows.size();
  for (std::size_t p = 0; p < nnz; ++p) {
    if (rows[p] < 0 || rows[p] >= nrows || cols[p] < 0 || cols[p] >= ncols)
      throw Error(Status::InvalidIndex, "entry " + std::to_string(p) + " (" + detail::str(rows[p]) + ", " +
                                            detail::str(cols[p]) + ") is outside a " + detail::str(nrows) + " x " +
                                            detail::str(ncols) + " matrix");
  }
  // Counting sort by row; stable, so "last wins" keeps file order among duplicates.
  std::vector<Offset> row_ptr = detail::host_vector<Offset>(static_cast<std::size_t>(nrows) + 1, 0);
  for (std::size_t p = 0; p < nnz; ++p) ++row_ptr[rows[p] + 1];
  std::partial_sum(row_ptr.begin(), row_ptr.end(), row_ptr.begin());
  std::vector<Offset> next = detail::host_vector<Offset>(static_cast<std::size_t>(nrows));
  std::copy(row_ptr.begin(), row_ptr.end() - 1, next.begin());
  std::vector<Vid> col_idx = detail::host_vector<Vid>(nnz);
  std::vector<T> vals = detail::host_vector<T>(values.empty() ? 0 : nnz);
  for (std::size_t p = 0; p < nnz; ++p) {
    const Offset q = next[rows[p]]++;
    col_idx[q] = static_cast<Vid>(cols[p]);
    if (!values.empty()) vals[q] = values[p];
  }
  detail::sort_and_merge_rows(nrows, row_ptr, col_idx, vals, dup);
  return from_valid_csr(detail::host_csr(nrows, ncols, std::move(row_ptr), std::move(col_idx), std::move(vals)));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::from_coo");
}

namespace detail {
namespace {
// The names a compressed form's checks use: CSR (rows major) or CSC (columns major).
struct CompressedNames {
  const char* op;     // "from_csr"
  const char* ptr;    // "row_ptr"
  const char* major;  // "row"
  const char* idx;    // "col_idx"
  const char* minor;  // "column"
};
// The checks of a compressed form's arrays: `majors` + 1 offsets from 0 to the entries, never
// decreasing; values absent or one an entry; every index in [0, minors).
template <class T>
void check_compressed(const CompressedNames& n, Index majors, Index minors, const std::vector<Offset>& ptr,
                      const std::vector<Vid>& idx, const std::vector<T>& values) {
  if (ptr.size() != static_cast<std::size_t>(majors) + 1)
    throw Error(Status::InvalidValue, std::string(n.op) + ": " + n.ptr + " has " + std::to_string(ptr.size()) +
                                          " entries, expected " + str(majors + 1));
  if (ptr[0] != 0 || ptr.back() != static_cast<Offset>(idx.size()))
    throw Error(Status::InvalidValue,
                std::string(n.op) + ": " + n.ptr + " must start at 0 and end at the number of entries");
  for (Index i = 0; i < majors; ++i)
    if (ptr[i + 1] < ptr[i])
      throw Error(Status::InvalidValue, std::string(n.op) + ": " + n.ptr + " decreases at " + n.major + " " + str(i));
  if (!values.empty() && values.size() != idx.size())
    throw Error(Status::InvalidValue, std::string(n.op) + ": values and " + n.idx + " differ in length");
  for (std::size_t p = 0; p < idx.size(); ++p)
    if (idx[p] < 0 || idx[p] >= minors)
      throw Error(Status::InvalidIndex, std::string(n.op) + ": " + n.minor + " index " + std::to_string(idx[p]) +
                                            " out of range [0, " + str(minors) + ")");
}
}  // namespace
}  // namespace detail

template <class T>
Matrix<T> Matrix<T>::from_csr(Index nrows, Index ncols, std::vector<Offset> row_ptr, std::vector<Vid> col_idx,
                              std::vector<T> values, DuplicatePolicy dup) try {
  detail::check_dims(nrows, ncols);
  detail::check_compressed({"from_csr", "row_ptr", "row", "col_idx", "column"}, nrows, ncols, row_ptr, col_idx, values);
  detail::sort_and_merge_rows(nrows, row_ptr, col_idx, values, dup);
  return from_valid_csr(detail::host_csr(nrows, ncols, std::move(row_ptr), std::move(col_idx), std::move(values)));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::from_csr");
}

template <class T>
Matrix<T> Matrix<T>::from_csc(Index nrows, Index ncols, std::vector<Offset> col_ptr, std::vector<Vid> row_idx,
                              std::vector<T> values, DuplicatePolicy dup) try {
  detail::check_dims(nrows, ncols);
  detail::check_compressed({"from_csc", "col_ptr", "column", "row_idx", "row"}, ncols, nrows, col_ptr, row_idx, values);
  // The columns are the rows of A': that CSR takes the vectors over, and A's is its transpose.
  detail::sort_and_merge_rows(ncols, col_ptr, row_idx, values, dup);
  Matrix<T> At =
      from_valid_csr(detail::host_csr(ncols, nrows, std::move(col_ptr), std::move(row_idx), std::move(values)));
  Matrix<T> A = from_valid_csr(detail::transpose_csr(*At.s_->host));
  A.s_->transpose.emplace(std::move(At));  // At caches no transpose of its own: no cycle
  return A;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::from_csc");
}

template <class T>
Matrix<T> Matrix<T>::from_hyper_csr(Index nrows, Index ncols, std::vector<Index> rows, std::vector<Offset> row_ptr,
                                    std::vector<Vid> col_idx, std::vector<T> values, DuplicatePolicy dup) try {
  detail::check_dims(nrows, ncols);
  const auto listed = static_cast<Index>(rows.size());
  detail::check_compressed({"from_hyper_csr", "row_ptr", "listed row", "col_idx", "column"}, listed, ncols, row_ptr,
                           col_idx, values);
  for (Index k = 0; k < listed; ++k) {
    if (rows[k] < 0 || rows[k] >= nrows)
      throw Error(Status::InvalidIndex,
                  "from_hyper_csr: row " + detail::str(rows[k]) + " out of range [0, " + detail::str(nrows) + ")");
    if (k > 0 && rows[k] <= rows[k - 1])
      throw Error(Status::InvalidValue, "from_hyper_csr: rows must be strictly ascending (row " + detail::str(rows[k]) +
                                            " after " + detail::str(rows[k - 1]) + ")");
  }
  std::vector<Offset> full = detail::host_vector<Offset>(static_cast<std::size_t>(nrows) + 1, 0);
  for (Index k = 0; k < listed; ++k) full[std::size_t(rows[k]) + 1] = row_ptr[k + 1] - row_ptr[k];
  for (Index i = 0; i < nrows; ++i) full[i + 1] += full[i];
  // The columns and values were checked above and the offsets are whole by construction: no
  // second pass of from_csr's checks.
  detail::sort_and_merge_rows(nrows, full, col_idx, values, dup);
  return from_valid_csr(detail::host_csr(nrows, ncols, std::move(full), std::move(col_idx), std::move(values)));
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::from_hyper_csr");
}

template <class T>
Matrix<T> Matrix<T>::from_valid_csr(Csr<T>&& csr, std::optional<bool> symmetric_structure) {
  (void)empty_store();
  Matrix<T> m(std::make_shared<detail::MatrixStore<T>>());
  auto& s = *m.s_;
  s.symmetric = symmetric_structure;
  s.nrows = csr.nrows;
  s.ncols = csr.ncols;
  s.nvals = csr.nvals();
  s.iso = csr.is_iso();
  if (csr.where() == Backend::Host) {
    s.host.emplace(std::move(csr));
  } else {
    s.device.emplace(std::move(csr));
    s.use.wrote();  // built on this thread's stream
  }
  return m;
}

template <class T>
Index Matrix<T>::nrows() const {
  return s_->nrows;
}
template <class T>
Index Matrix<T>::ncols() const {
  return s_->ncols;
}
template <class T>
Index Matrix<T>::nvals() const {
  settle();
  return s_->nvals;
}
template <class T>
std::optional<T> Matrix<T>::element(Index i, Index j) const {
  if (i < 0 || i >= nrows() || j < 0 || j >= ncols())
    throw Error(Status::InvalidIndex, "element (" + detail::str(i) + ", " + detail::str(j) + ") is outside the " +
                                          detail::str(nrows()) + " x " + detail::str(ncols()) + " matrix");
  if (s_->has_pending.load(std::memory_order_acquire)) {  // a pending change answers without applying them
    std::lock_guard lock(s_->mu);
    if (auto at = s_->pending.find({i, j}); at != s_->pending.end()) return at->second;
  }
  const Csr<T>& a = csr(Backend::Host);
  const Vid* b = a.col_idx.data() + a.row_ptr[i];
  const Vid* e = a.col_idx.data() + a.row_ptr[i + 1];
  const Vid* at = std::lower_bound(b, e, Vid(j));
  if (at == e || *at != Vid(j)) return std::nullopt;
  return a.is_iso() ? a.iso_value : a.values[std::size_t(at - a.col_idx.data())];
}

template <class T>
bool Matrix<T>::is_iso() const {
  settle();
  return s_->iso;
}

template <class T>
const Csr<T>& Matrix<T>::csr(Backend where) const try {
  settle();
  std::lock_guard lock(s_->mu);
  if (where == Backend::Cuda) {
    if (!s_->device) {
      s_->device.emplace(s_->host->clone(Backend::Cuda));
      s_->use.wrote();
    }
    s_->use.before_read();  // another thread may have made the copy, on its stream
    return *s_->device;
  }
  if (!s_->host) {
    s_->use.before_read();
    s_->host.emplace(s_->device->clone(Backend::Host));
  }
  return *s_->host;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::csr");
}

template <class T>
const Matrix<T>& Matrix<T>::transpose() const try {
  settle();
  std::lock_guard lock(s_->mu);
  if (!s_->transpose) {
    // Transpose where the matrix already lives; the device is faster when it has a copy.
    if (s_->device) s_->use.before_read();
    const Csr<T>& src = s_->device ? *s_->device : *s_->host;
    s_->transpose.emplace(from_valid_csr(detail::transpose_csr(src)));
  }
  return *s_->transpose;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("Matrix::transpose");
}

template <class T>
const std::vector<Index>& Matrix<T>::out_degrees() const try {
  settle();
  auto from_offsets = [&](const Offset* row_ptr) {
    std::vector<Index> d(static_cast<std::size_t>(s_->nrows));
    for (Index i = 0; i < s_->nrows; ++i) d[i] = row_ptr[i + 1] - row_ptr[i];
    s_->out_degrees.emplace(std::move(d));
  };
  {
    std::lock_guard lock(s_->mu);
    if (s_->out_degrees) return *s_->out_degrees;
    if (!s_->host && s_->device) {  // only on the GPU: its row offsets suffice, not a host copy of it all
      s_->use.before_read();
      const auto n1 = static_cast<std::size_t>(s_->nrows) + 1;
      std::vector<Offset> row_ptr(n1);
      detail::copy_bytes(row_ptr.data(), Backend::Host, s_->device->row_ptr.data(), Backend::Cuda, n1 * sizeof(Offset));
      from_offsets(row_ptr.data());
      return *s_->out_degrees;
    }
  }
  const Csr<T>& a = csr(Backend::Host);
  std::lock_guard lock(s_->mu);
  if (!s_->out_degrees) from_offsets(a.row_ptr.data());
  return *s_->out_degrees;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("out_degrees");
}

template <class T>
const std::vector<Index>& Matrix<T>::in_degrees() const try {
  settle();
  if (known_symmetric_structure().value_or(false)) return out_degrees();  // no transpose needed
  const Matrix<T>& t = transpose();
  const std::vector<Index>& d = t.out_degrees();
  std::lock_guard lock(s_->mu);
  if (!s_->in_degrees) s_->in_degrees.emplace(d);
  return *s_->in_degrees;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("in_degrees");
}

template <class T>
std::optional<bool> Matrix<T>::known_symmetric_structure() const {
  settle();
  std::lock_guard lock(s_->mu);
  return s_->symmetric;
}

template <class T>
bool Matrix<T>::is_symmetric_structure() const try {
  settle();
  {
    std::lock_guard lock(s_->mu);
    if (s_->symmetric) return *s_->symmetric;
  }
  bool sym = false;
  if (s_->nrows == s_->ncols) {
    // Compare A with A' where A lives: on the GPU when it has a copy, so a large graph built
    // there is never downloaded for this.
    bool on_device = false;
    {
      std::lock_guard lock(s_->mu);
      on_device = s_->device.has_value();
    }
    const Backend where = on_device ? Backend::Cuda : Backend::Host;
    const Csr<T>& a = csr(where);
    const Csr<T>& t = transpose().csr(where);
    if (where == Backend::Host) {
      sym = std::equal(a.row_ptr.begin(), a.row_ptr.end(), t.row_ptr.begin()) &&
            std::equal(a.col_idx.begin(), a.col_idx.end(), t.col_idx.begin());
    } else {
#if GBCUDA_HAVE_CUDA
      sym = detail::cuda::device_bytes_equal(a.row_ptr.data(), t.row_ptr.data(), a.row_ptr.bytes()) &&
            detail::cuda::device_bytes_equal(a.col_idx.data(), t.col_idx.data(), a.col_idx.bytes());
#endif
    }
  }
  std::lock_guard lock(s_->mu);
  s_->symmetric = sym;
  return sym;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("is_symmetric_structure");
}

template <class T>
Matrix<T> Matrix<T>::symmetrized() const try {
  if (s_->nrows != s_->ncols)
    throw Error(Status::DimensionMismatch,
                "symmetrize needs a square matrix, got " + detail::str(s_->nrows) + " x " + detail::str(s_->ncols));
  settle();
  {
    std::lock_guard lock(s_->mu);
    if (s_->symmetrized) return *s_->symmetrized;
  }
  const Csr<T>& a = csr(Backend::Host);
  const Csr<T>& t = transpose().csr(Backend::Host);
  const Index n = s_->nrows;
  const bool iso = a.is_iso() && t.is_iso();
  std::vector<Offset> row_ptr(static_cast<std::size_t>(n) + 1, 0);
  std::vector<Vid> col_idx;
  std::vector<T> vals;
  col_idx.reserve(static_cast<std::size_t>(2 * a.nvals()));
  for (Index i = 0; i < n; ++i) {  // merge row i of A with row i of A' (both sorted)
    Offset p = a.row_ptr[i], q = t.row_ptr[i];
    const Offset pe = a.row_ptr[i + 1], qe = t.row_ptr[i + 1];
    while (p < pe || q < qe) {
      if (q >= qe || (p < pe && a.col_idx[p] <= t.col_idx[q])) {
        if (q < qe && t.col_idx[q] == a.col_idx[p]) ++q;
        col_idx.push_back(a.col_idx[p]);
        if (!iso) vals.push_back(a.is_iso() ? a.iso_value : a.values[p]);
        ++p;
      } else {
        col_idx.push_back(t.col_idx[q]);
        if (!iso) vals.push_back(t.is_iso() ? t.iso_value : t.values[q]);
        ++q;
      }
    }
    row_ptr[i + 1] = static_cast<Offset>(col_idx.size());
  }
  Csr<T> c = detail::host_csr(n, n, std::move(row_ptr), std::move(col_idx), std::move(vals));
  c.iso_value = a.iso_value;
  Matrix<T> m = from_valid_csr(std::move(c), true);  // the structure of A + A' is symmetric
  std::lock_guard lock(s_->mu);
  s_->symmetrized = m;
  return m;
} catch (const std::bad_alloc&) {
  detail::throw_out_of_memory_in("symmetrized");
}

template <class T>
std::size_t Matrix<T>::device_bytes() const {
  settle();
  std::size_t b = 0;
  const Matrix<T>* t = nullptr;
  {
    std::lock_guard lock(s_->mu);
    b = s_->device ? s_->device->bytes() : 0;
    if (s_->row_ptr32) b += s_->row_ptr32->bytes();
    if (s_->transpose) t = &*s_->transpose;  // a cached transpose is never replaced
  }
  if (t) {  // its copy is built under its own lock
    std::lock_guard lock(t->s_->mu);
    if (t->s_->device) b += t->s_->device->bytes();
  }
  return b;
}

template <class T>
void Matrix<T>::release(Backend where) const {
  settle();
  std::lock_guard lock(s_->mu);
  if (where == Backend::Cuda) {
    if (s_->device) s_->use.before_write();
    if (s_->device && !s_->host) s_->host.emplace(s_->device->clone(Backend::Host));
    s_->engine.reset();
    s_->device.reset();
    s_->row_ptr32.reset();
    if (s_->transpose) s_->transpose->release(where);
  } else if (s_->device) {
    s_->host.reset();
    if (s_->transpose) s_->transpose->release(where);
  }
}

template <class T>
const std::int32_t* detail::device_row_offsets32(const Matrix<T>& A) {
#if GBCUDA_HAVE_CUDA
  if (A.nvals() > Index(std::numeric_limits<std::int32_t>::max())) return nullptr;
  const Csr<T>& d = A.csr(Backend::Cuda);
  std::lock_guard lock(A.s_->mu);
  if (!A.s_->row_ptr32) {
    Array<std::int32_t> r(static_cast<std::size_t>(d.nrows) + 1, Backend::Cuda);
    TypedValues offsets;
    offsets.values = d.row_ptr.data();
    offsets.type = ValueType::Int64;
    cuda::cast_values<std::int32_t>(r.data(), offsets, d.nrows + 1);
    A.s_->row_ptr32.emplace(std::move(r));
    A.s_->use.wrote();
  }
  A.s_->use.before_read();
  return A.s_->row_ptr32->data();
#else
  (void)A;
  return nullptr;
#endif
}

template <class T>
std::shared_ptr<void> detail::device_engine_state(const Matrix<T>& A, std::shared_ptr<void> (*make)()) {
  A.settle();
  std::lock_guard lock(A.s_->mu);
  if (!A.s_->engine) A.s_->engine = make();
  return A.s_->engine;
}

template <class T>
Offset detail::longest_row(const Matrix<T>& A) {
  A.settle();
  std::lock_guard lock(A.s_->mu);
  auto& st = *A.s_;
  if (!st.longest_row) {
    Offset longest = 0;
    if (st.host) {
      for (Index i = 0; i < st.host->nrows; ++i)
        longest = std::max(longest, st.host->row_ptr[std::size_t(i) + 1] - st.host->row_ptr[std::size_t(i)]);
    }
#if GBCUDA_HAVE_CUDA
    else if (st.device) {
      st.use.before_read();
      longest = cuda::longest_row(st.device->row_ptr.data(), st.device->nrows);
    }
#endif
    st.longest_row = longest;
  }
  return *st.longest_row;
}

#define GBCUDA_INSTANTIATE_MATRIX(T)                                                                         \
  template struct detail::MatrixStore<T>;                                                                    \
  template class Matrix<T>;                                                                                  \
  template Csr<T> detail::transpose_csr(const Csr<T>&);                                                      \
  template const std::int32_t* detail::device_row_offsets32(const Matrix<T>&);                               \
  template std::shared_ptr<void> detail::device_engine_state(const Matrix<T>&, std::shared_ptr<void> (*)()); \
  template Offset detail::longest_row(const Matrix<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_MATRIX)

}  // namespace gbcuda
