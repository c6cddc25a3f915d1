#pragma once
// Index lists as the operations take them (assign, extract, subassign): an IndexRange of any
// integer type, or `all` for GrB_ALL.
#include <span>
#include <type_traits>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda {

// GrB_ALL: given for an index list, every index of that dimension in order, 0, 1, ..., n - 1.
struct AllIndices {};
inline constexpr AllIndices all{};

// What an operation takes for an index list: an IndexRange, or `all`.
template <class R>
concept IndexList = IndexRange<R> || std::is_same_v<R, AllIndices>;

namespace detail {

// True for an index-list type the operations read as std::span<const Index>, without a copy.
template <class R>
inline constexpr bool is_index_span_v = std::is_convertible_v<const R&, std::span<const Index>>;

// 0, 1, ..., n - 1: GrB_ALL as a list.
inline std::vector<Index> every_index(Index n) {
  std::vector<Index> list(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) list[std::size_t(k)] = k;
  return list;
}

// An index-list argument as Index values, for a dimension of n: a list that converts to
// std::span<const Index> as it is (no copy), one of another integer type converted (to_index
// names `what` for a value past 2^63 - 1), `all` as every_index(n). Not copyable: the span may
// point into the object itself.
class Indices {
 public:
  template <IndexList R>
  Indices(const R& list, [[maybe_unused]] Index n, [[maybe_unused]] const char* what) {
    if constexpr (std::is_same_v<R, AllIndices>) own_ = every_index(n);
    else if constexpr (is_index_span_v<R>) view_ = list;
    else own_ = to_indices(list, what);
    if constexpr (!is_index_span_v<R>) view_ = own_;
  }
  Indices(const Indices&) = delete;
  Indices& operator=(const Indices&) = delete;
  std::span<const Index> span() const noexcept { return view_; }
  Index size() const noexcept { return Index(view_.size()); }

 private:
  std::vector<Index> own_;
  std::span<const Index> view_;
};

}  // namespace detail
}  // namespace gbcuda
