// Vertex orderings for locality (degree, reverse Cuthill-McKee) and the relabelling P A P'.
// Everything here runs on the host: an ordering is computed once per graph and saved with it.
#include "gbcuda/reorder.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gbcuda/config.hpp"
#if GBCUDA_HAVE_CUDA
#include "gbcuda/detail/cuda_ops.hpp"
#endif

namespace gbcuda {

namespace detail {
struct RelabellingAccess {
  // Both maps made together by the library (each the other's inverse): no check repeated.
  static Relabelling from_maps(std::vector<Index> original_of_new, std::vector<Index> new_of_original, Ordering o) {
    Relabelling r;
    r.original_of_new_ = std::move(original_of_new);
    r.new_of_original_ = std::move(new_of_original);
    r.ordering_ = o;
    return r;
  }
};
}  // namespace detail

const char* to_string(Ordering o) {
  switch (o) {
    case Ordering::None: return "none";
    case Ordering::Degree: return "degree";
    case Ordering::Rcm: return "rcm";
  }
  return "unknown";
}

Ordering parse_ordering(const std::string& name) {
  for (Ordering o : {Ordering::None, Ordering::Degree, Ordering::Rcm})
    if (name == to_string(o)) return o;
  throw Error(Status::InvalidValue, "unknown ordering '" + name + "' (expected none, degree or rcm)");
}

Relabelling Relabelling::identity(Index n) {
  if (n < 0) throw Error(Status::InvalidValue, "Relabelling::identity: negative size " + std::to_string(n));
  Relabelling r;
  r.original_of_new_.resize(static_cast<std::size_t>(n));
  for (Index v = 0; v < n; ++v) r.original_of_new_[static_cast<std::size_t>(v)] = v;
  r.new_of_original_ = r.original_of_new_;
  return r;
}

Relabelling Relabelling::from_original_ids(std::vector<Index> original_of_new, Ordering ordering) {
  const std::size_t n = original_of_new.size();
  Relabelling r;
  r.new_of_original_.assign(n, -1);
  for (std::size_t k = 0; k < n; ++k) {
    const Index v = original_of_new[k];
    if (v < 0 || static_cast<std::size_t>(v) >= n)
      throw Error(Status::InvalidValue, "relabelling: original id " + std::to_string(v) + " at position " +
                                            std::to_string(k) + " is outside [0, " + std::to_string(n) + ")");
    if (r.new_of_original_[static_cast<std::size_t>(v)] >= 0)
      throw Error(Status::InvalidValue,
                  "relabelling: original id " + std::to_string(v) + " appears twice (not a permutation)");
    r.new_of_original_[static_cast<std::size_t>(v)] = static_cast<Index>(k);
  }
  r.original_of_new_ = std::move(original_of_new);
  r.ordering_ = ordering;
  return r;
}

bool Relabelling::is_identity() const {
  for (std::size_t k = 0; k < original_of_new_.size(); ++k)
    if (original_of_new_[k] != static_cast<Index>(k)) return false;
  return true;
}

Index Relabelling::new_id(Index original) const {
  if (original < 0 || original >= size())
    throw Error(Status::InvalidIndex,
                "vertex " + std::to_string(original) + " is outside [0, " + std::to_string(size()) + ")");
  return new_of_original_[static_cast<std::size_t>(original)];
}

Index Relabelling::original_id(Index relabelled) const {
  if (relabelled < 0 || relabelled >= size())
    throw Error(Status::InvalidIndex,
                "vertex " + std::to_string(relabelled) + " is outside [0, " + std::to_string(size()) + ")");
  return original_of_new_[static_cast<std::size_t>(relabelled)];
}

Relabelling Relabelling::then(const Relabelling& next) const {
  if (next.size() != size())
    throw Error(Status::InvalidValue,
                "relabelling of " + std::to_string(next.size()) + " vertices after one of " + std::to_string(size()));
  // Vertex k of the composite is next's vertex k, which is our vertex next.original_id(k).
  std::vector<Index> original(original_of_new_.size());
  for (std::size_t k = 0; k < original.size(); ++k)
    original[k] = original_of_new_[static_cast<std::size_t>(next.original_of_new_[k])];
  const bool next_is_identity = next.ordering_ == Ordering::None && next.is_identity();
  return from_original_ids(std::move(original), next_is_identity ? ordering_ : next.ordering_);
}

Relabelling Relabelling::inverse() const {
  Relabelling r;
  r.original_of_new_ = new_of_original_;
  r.new_of_original_ = original_of_new_;
  return r;
}

void Relabelling::check_length(std::size_t n) const {
  if (n != original_of_new_.size())
    throw Error(Status::InvalidValue,
                "relabelling of " + std::to_string(size()) + " vertices applied to " + std::to_string(n) + " values");
}

namespace {

// The structure of A + A' as two CSR walks (A's rows, then A''s rows when A is not symmetric).
struct Adjacency {
  const Offset* rp = nullptr;
  const Vid* ci = nullptr;
  const Offset* trp = nullptr;  // null when A's structure is symmetric
  const Vid* tci = nullptr;

  template <class F>
  void for_each(Index v, F&& f) const {
    for (Offset p = rp[v]; p < rp[v + 1]; ++p) f(static_cast<Index>(ci[p]));
    if (trp)
      for (Offset p = trp[v]; p < trp[v + 1]; ++p) f(static_cast<Index>(tci[p]));
  }
};

// The vertices with a non-zero degree, by degree (highest first when `descending`), ties by id:
// a counting sort, O(n + largest degree).
std::vector<Index> by_degree(const std::vector<Index>& degree, bool descending) {
  Index top = 0;
  for (Index d : degree) top = std::max(top, d);
  std::vector<Index> start(static_cast<std::size_t>(top) + 2, 0);
  for (Index d : degree)
    if (d > 0) ++start[static_cast<std::size_t>(descending ? top - d : d) + 1];
  for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  std::vector<Index> order(static_cast<std::size_t>(start.back()));
  for (std::size_t v = 0; v < degree.size(); ++v) {
    const Index d = degree[v];
    if (d > 0) order[static_cast<std::size_t>(start[static_cast<std::size_t>(descending ? top - d : d)]++)] = Index(v);
  }
  return order;
}

// Appends the vertices without edges, in id order.
void append_isolated(const std::vector<Index>& degree, std::vector<Index>& order) {
  for (std::size_t v = 0; v < degree.size(); ++v)
    if (degree[v] == 0) order.push_back(Index(v));
}

// Breadth-first sweeps over one component, for the pseudo-peripheral search.
class Sweeper {
 public:
  Sweeper(const Adjacency& adj, const std::vector<Index>& degree)
      : adj_(adj), degree_(degree), stamp_(degree.size(), 0) {}

  // BFS from s: returns its eccentricity and, in `far`, the vertex of least degree (then least
  // id) in the last level.
  Index sweep(Index s, Index& far) {
    ++epoch_;
    queue_.clear();
    queue_.push_back(s);
    stamp_[static_cast<std::size_t>(s)] = epoch_;
    Index depth = 0;
    std::size_t level_begin = 0;
    while (true) {
      const std::size_t level_end = queue_.size();
      for (std::size_t k = level_begin; k < level_end; ++k) {
        adj_.for_each(queue_[k], [&](Index u) {
          if (stamp_[static_cast<std::size_t>(u)] == epoch_) return;
          stamp_[static_cast<std::size_t>(u)] = epoch_;
          queue_.push_back(u);
        });
      }
      if (queue_.size() == level_end) {  // [level_begin, level_end) is the last level
        far = queue_[level_begin];
        for (std::size_t k = level_begin; k < level_end; ++k) {
          const Index v = queue_[k];
          const Index dv = degree_[static_cast<std::size_t>(v)], df = degree_[static_cast<std::size_t>(far)];
          if (dv < df || (dv == df && v < far)) far = v;
        }
        return depth;
      }
      level_begin = level_end;
      ++depth;
    }
  }

  // George and Liu's pseudo-peripheral vertex from s: move to the far end while the eccentricity
  // grows, at most `max_moves` times (each move is one sweep of the component).
  Index pseudo_peripheral(Index s, int max_moves) {
    Index far = s;
    Index ecc = sweep(s, far);
    Index r = s;
    for (int move = 0; move < max_moves && far != r; ++move) {
      Index next_far = far;
      const Index e = sweep(far, next_far);
      if (e <= ecc) break;
      r = far;
      ecc = e;
      far = next_far;
    }
    return r;
  }

 private:
  const Adjacency& adj_;
  const std::vector<Index>& degree_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  std::vector<Index> queue_;
};

// Cuthill-McKee component by component (starts: vertices by ascending degree, each moved to a
// pseudo-peripheral vertex; neighbours appended by ascending degree), reversed; isolated last.
std::vector<Index> rcm_order(const Adjacency& adj, const std::vector<Index>& degree) {
  const std::size_t n = degree.size();
  std::vector<Index> order;
  order.reserve(n);
  std::vector<std::uint8_t> placed(n, 0);
  Sweeper sweeper(adj, degree);
  std::vector<Index> fresh;
  auto lighter = [&](Index a, Index b) {
    const Index da = degree[static_cast<std::size_t>(a)], db = degree[static_cast<std::size_t>(b)];
    return da != db ? da < db : a < b;
  };
  for (Index s : by_degree(degree, /*descending=*/false)) {
    if (placed[static_cast<std::size_t>(s)]) continue;
    const Index start = sweeper.pseudo_peripheral(s, 2);
    std::size_t head = order.size();
    order.push_back(start);
    placed[static_cast<std::size_t>(start)] = 1;
    while (head < order.size()) {
      fresh.clear();
      adj.for_each(order[head++], [&](Index u) {
        if (placed[static_cast<std::size_t>(u)]) return;
        placed[static_cast<std::size_t>(u)] = 1;
        fresh.push_back(u);
      });
      std::sort(fresh.begin(), fresh.end(), lighter);
      order.insert(order.end(), fresh.begin(), fresh.end());
    }
  }
  std::reverse(order.begin(), order.end());
  append_isolated(degree, order);
  return order;
}

}  // namespace

template <class T>
Relabelling compute_ordering(const Matrix<T>& A, Ordering how) {
  if (A.nrows() != A.ncols())
    throw Error(Status::InvalidValue, "ordering a " + std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()) +
                                          " matrix: the vertices of a graph need a square matrix");
  const Index n = A.nrows();
  if (how == Ordering::None) return Relabelling::identity(n);
  const std::vector<Index>& out = A.out_degrees();
  const std::vector<Index>& in = A.in_degrees();
  std::vector<Index> degree(static_cast<std::size_t>(n));
  for (std::size_t v = 0; v < degree.size(); ++v) degree[v] = out[v] + in[v];

  std::vector<Index> order;
  if (how == Ordering::Degree) {
    order = by_degree(degree, /*descending=*/true);
    order.reserve(static_cast<std::size_t>(n));
    append_isolated(degree, order);
  } else {
    const Csr<T>& c = A.csr(Backend::Host);
    Adjacency adj{c.row_ptr.data(), c.col_idx.data()};
    if (!A.is_symmetric_structure()) {
      const Csr<T>& t = A.transpose().csr(Backend::Host);
      adj.trp = t.row_ptr.data();
      adj.tci = t.col_idx.data();
    }
    order = rcm_order(adj, degree);
  }
  return Relabelling::from_original_ids(std::move(order), how);
}

template <class T>
Matrix<T> relabel(const Matrix<T>& A, const Relabelling& r, Backend where) {
  if (A.nrows() != A.ncols() || r.size() != A.nrows())
    throw Error(Status::InvalidValue, "relabelling of " + std::to_string(r.size()) + " vertices applied to a " +
                                          std::to_string(A.nrows()) + " x " + std::to_string(A.ncols()) + " matrix");
#if GBCUDA_HAVE_CUDA
  if (where == Backend::Cuda) {
    const auto bytes = static_cast<std::size_t>(A.nrows()) * sizeof(Index);
    detail::Array<Index> original(static_cast<std::size_t>(A.nrows()), Backend::Cuda),
        new_id(static_cast<std::size_t>(A.nrows()), Backend::Cuda);
    detail::copy_bytes(original.data(), Backend::Cuda, r.original_ids().data(), Backend::Host, bytes);
    detail::copy_bytes(new_id.data(), Backend::Cuda, r.new_ids().data(), Backend::Host, bytes);
    return Matrix<T>::from_valid_csr(detail::cuda::relabel_csr(A.csr(Backend::Cuda), original.data(), new_id.data()),
                                     A.known_symmetric_structure());
  }
#endif
  (void)where;
  const Csr<T>& a = A.csr(Backend::Host);
  const Index n = A.nrows();
  const std::vector<Index>& original = r.original_ids();
  const std::vector<Index>& new_id = r.new_ids();
  Csr<T> b;
  b.nrows = b.ncols = n;
  b.iso_value = a.iso_value;
  b.row_ptr = detail::Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Host);
  b.col_idx = detail::Array<Vid>(static_cast<std::size_t>(a.nvals()), Backend::Host);
  if (!a.is_iso()) b.values = detail::Array<T>(static_cast<std::size_t>(a.nvals()), Backend::Host);
  Offset* rp = b.row_ptr.data();
  rp[0] = 0;
  for (Index k = 0; k < n; ++k) {
    const Index v = original[static_cast<std::size_t>(k)];
    rp[k + 1] = rp[k] + (a.row_ptr[static_cast<std::size_t>(v) + 1] - a.row_ptr[static_cast<std::size_t>(v)]);
  }
#pragma omp parallel
  {
    std::vector<std::pair<Vid, T>> row;  // a row with values, sorted by its new column ids
#pragma omp for schedule(dynamic, 1024)
    for (Index k = 0; k < n; ++k) {
      const Index v = original[static_cast<std::size_t>(k)];
      const Offset lo = a.row_ptr[static_cast<std::size_t>(v)], hi = a.row_ptr[static_cast<std::size_t>(v) + 1];
      Vid* out = b.col_idx.data() + rp[k];
      if (a.is_iso()) {
        for (Offset p = lo; p < hi; ++p)
          out[p - lo] = static_cast<Vid>(new_id[static_cast<std::size_t>(a.col_idx[static_cast<std::size_t>(p)])]);
        std::sort(out, out + (hi - lo));
      } else {
        row.clear();
        for (Offset p = lo; p < hi; ++p)
          row.emplace_back(static_cast<Vid>(new_id[static_cast<std::size_t>(a.col_idx[static_cast<std::size_t>(p)])]),
                           a.values[static_cast<std::size_t>(p)]);
        std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        T* vals = b.values.data() + rp[k];
        for (std::size_t q = 0; q < row.size(); ++q) {
          out[q] = row[q].first;
          vals[q] = row[q].second;
        }
      }
    }
  }
  // Relabelling keeps a symmetric structure symmetric (and a non-symmetric one not); when A's is
  // not known yet, B's is left to be found when asked (a transpose, not paid here).
  return Matrix<T>::from_valid_csr(std::move(b), A.known_symmetric_structure());
}

template <class T>
RelabelledGraph<T> relabel(const Matrix<T>& A, Ordering how, Backend where) {
  RelabelledGraph<T> g;
#if GBCUDA_HAVE_CUDA
  if (how == Ordering::Degree && where == Backend::Cuda && A.nrows() == A.ncols()) {
    // Ordered and relabelled on the device, the maps copied to the host once for the result.
    const Index n = A.nrows();
    const auto n_sz = static_cast<std::size_t>(n);
    const Offset* in_ptr = A.is_symmetric_structure() ? nullptr : A.transpose().csr(Backend::Cuda).row_ptr.data();
    const Csr<T>& a = A.csr(Backend::Cuda);
    detail::Array<Index> original(n_sz, Backend::Cuda), new_id(n_sz, Backend::Cuda);
    detail::cuda::degree_order(a.row_ptr.data(), in_ptr, n, original.data(), new_id.data());
    g.matrix = Matrix<T>::from_valid_csr(detail::cuda::relabel_csr(a, original.data(), new_id.data()),
                                         A.known_symmetric_structure());
    std::vector<Index> original_host(n_sz), new_id_host(n_sz);
    detail::copy_bytes(original_host.data(), Backend::Host, original.data(), Backend::Cuda, n_sz * sizeof(Index));
    detail::copy_bytes(new_id_host.data(), Backend::Host, new_id.data(), Backend::Cuda, n_sz * sizeof(Index));
    g.relabelling = detail::RelabellingAccess::from_maps(std::move(original_host), std::move(new_id_host), how);
    return g;
  }
#endif
  g.relabelling = compute_ordering(A, how);
  g.matrix = how == Ordering::None ? A : relabel(A, g.relabelling, where);
  return g;
}

#define GBCUDA_INSTANTIATE_REORDER(T)                                           \
  template Relabelling compute_ordering<T>(const Matrix<T>&, Ordering);         \
  template Matrix<T> relabel<T>(const Matrix<T>&, const Relabelling&, Backend); \
  template RelabelledGraph<T> relabel<T>(const Matrix<T>&, Ordering, Backend);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_REORDER)
#undef GBCUDA_INSTANTIATE_REORDER

}  // namespace gbcuda
