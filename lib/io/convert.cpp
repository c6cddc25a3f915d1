// Coordinates to Matrix<T>: read_matrix and matrix_from_coo.
#include <span>
#include <type_traits>

#include "gbcuda/io.hpp"
#include "io/binary.hpp"
#include "io/input.hpp"

namespace gbcuda {

template <class T>
Matrix<T> matrix_from_coo(const CooData& coo) {
  const std::span<const Index> rows(coo.rows), cols(coo.cols);
  // Bool matrices are structure only: every stored entry is an edge, explicit zeros included,
  // so values are dropped. Pattern files (no values) give an iso T(1) matrix.
  if constexpr (std::is_same_v<T, bool>) {
    return Matrix<T>::from_coo(coo.nrows, coo.ncols, rows, cols, {}, DuplicatePolicy::Sum);
  } else {
    if (coo.values.empty()) return Matrix<T>::from_coo(coo.nrows, coo.ncols, rows, cols, {}, DuplicatePolicy::Sum);
    std::vector<T> vals(coo.values.size());
#pragma omp parallel for schedule(static) if (vals.size() > (std::size_t(1) << 16))
    for (std::size_t k = 0; k < vals.size(); ++k) vals[k] = cast_to<T>(coo.values[k]);
    return Matrix<T>::from_coo(coo.nrows, coo.ncols, rows, cols, std::span<const T>(vals), DuplicatePolicy::Sum);
  }
}

template <class T>
Matrix<T> read_matrix(const std::string& path, const ReadOptions& options) {
  const io_detail::Input in = io_detail::open_input(path, options);
  if (!in.binary()) return matrix_from_coo<T>(io_detail::read_coo_input(in, options));
  std::string header;
  Matrix<T> A = io_detail::read_binary_input<T>(in, &header);
  io_detail::finish_read(in, options, FileFormat::Binary, header);
  return A;
}

#define GBCUDA_INSTANTIATE_READ(T)                                           \
  template Matrix<T> read_matrix<T>(const std::string&, const ReadOptions&); \
  template Matrix<T> matrix_from_coo<T>(const CooData&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_READ)
#undef GBCUDA_INSTANTIATE_READ

}  // namespace gbcuda
