#pragma once
// Relabelling a graph's vertices for locality. A search over a graph whose neighbours have nearby
// ids reads the frontier and visited bitmaps from fewer cache lines: on skewed graphs most of the
// gain is in putting the hubs together (degree), on meshes and road-like graphs in a bandwidth-
// reducing order (reverse Cuthill-McKee). The relabelled graph is an ordinary Matrix; the
// Relabelling maps ids both ways, so that sources are given and results reported in the user's
// original ids. A .gbc file can hold both (write_binary_graph / read_relabelled_graph in io.hpp),
// so that the ordering is paid for once.
#include <string>
#include <vector>

#include "gbcuda/matrix.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda {

namespace detail {
struct RelabellingAccess;  // the library's own constructions of maps it has checked by construction
}

enum class Ordering {
  None,    // the ids as given
  Degree,  // by out-degree + in-degree, highest first (ties: the lower id in the matrix ordered)
  Rcm,     // reverse Cuthill-McKee over A + A', each component from a pseudo-peripheral vertex
};
const char* to_string(Ordering o);
// "none", "degree" or "rcm"; throws Error(InvalidValue) naming the choices otherwise.
Ordering parse_ordering(const std::string& name);

// A permutation of the vertex ids 0..n-1: vertex v of the original graph is new_id(v) in the
// relabelled one, and original_id(new_id(v)) == v.
class Relabelling {
 public:
  Relabelling() = default;  // of 0 vertices
  static Relabelling identity(Index n);
  // From the original id of each relabelled vertex, in relabelled order. Throws
  // Error(InvalidValue) unless it is a permutation of 0..n-1.
  static Relabelling from_original_ids(std::vector<Index> original_of_new, Ordering ordering);

  Index size() const { return static_cast<Index>(original_of_new_.size()); }
  // How the relabelling was made (None for the identity).
  Ordering ordering() const { return ordering_; }
  bool is_identity() const;
  // Both throw Error(InvalidIndex) for an id outside 0..size()-1.
  Index new_id(Index original) const;
  Index original_id(Index relabelled) const;
  const std::vector<Index>& original_ids() const { return original_of_new_; }  // by relabelled id
  const std::vector<Index>& new_ids() const { return new_of_original_; }       // by original id

  // This relabelling, then `next` over its ids: the relabelling of the composite. Throws
  // Error(InvalidValue) when the sizes differ. The result names next's ordering unless next is
  // the identity.
  Relabelling then(const Relabelling& next) const;
  // The relabelling that takes each relabelled vertex back to its original id (ordering None).
  Relabelling inverse() const;

  // Values indexed by relabelled id, reordered to be indexed by original id.
  template <class V>
  std::vector<V> to_original_order(const std::vector<V>& by_new_id) const {
    check_length(by_new_id.size());
    std::vector<V> out(by_new_id.size());
    for (std::size_t k = 0; k < out.size(); ++k) out[static_cast<std::size_t>(original_of_new_[k])] = by_new_id[k];
    return out;
  }

 private:
  friend struct detail::RelabellingAccess;
  void check_length(std::size_t n) const;
  Ordering ordering_ = Ordering::None;
  std::vector<Index> original_of_new_;
  std::vector<Index> new_of_original_;
};

// A graph relabelled for locality: the matrix in relabelled ids and the map back.
template <class T>
struct RelabelledGraph {
  Matrix<T> matrix;
  Relabelling relabelling;
};

// The ordering `how` of the square matrix A's vertices, computed on the host from the structure
// of A + A' (values ignored). Vertices without any edge come last in every ordering but None.
// Throws Error(InvalidValue) for a non-square matrix.
template <class T>
Relabelling compute_ordering(const Matrix<T>& A, Ordering how);

// P A P': the entry A(i,j) becomes B(new_id(i), new_id(j)), values kept. Built in the backend
// `where` (on the GPU: A's rows gathered and each sorted by its new columns there; the result in
// GPU memory), as any matrix copied to the other backend when first used there. Throws
// Error(InvalidValue) when the relabelling's size is not A's (square) dimension.
template <class T>
Matrix<T> relabel(const Matrix<T>& A, const Relabelling& r, Backend where = Backend::Host);

// compute_ordering, then relabel in `where`. On the GPU the degree ordering is computed there too
// (the same ordering as the host's), and only the two maps are copied to the host.
template <class T>
RelabelledGraph<T> relabel(const Matrix<T>& A, Ordering how, Backend where = Backend::Host);

#define GBCUDA_EXTERN_REORDER(T)                                                       \
  extern template Relabelling compute_ordering<T>(const Matrix<T>&, Ordering);         \
  extern template Matrix<T> relabel<T>(const Matrix<T>&, const Relabelling&, Backend); \
  extern template RelabelledGraph<T> relabel<T>(const Matrix<T>&, Ordering, Backend);
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_REORDER)
#undef GBCUDA_EXTERN_REORDER

}  // namespace gbcuda
