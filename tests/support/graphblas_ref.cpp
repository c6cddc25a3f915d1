#include "support/graphblas_ref.hpp"

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gbtest {

void ensure_graphblas() {
  static std::once_flag once;
  std::call_once(once, [] { grb_check(GrB_init(GrB_NONBLOCKING), "GrB_init"); });
}

template <class T>
void to_graphblas_pattern(const gbcuda::Matrix<T>& A, GrbMatrix& out) {
  ensure_graphblas();
  const auto& a = A.csr(gbcuda::Backend::Host);
  std::vector<GrB_Index> I, J;
  I.reserve(static_cast<std::size_t>(a.nvals()));
  J.reserve(static_cast<std::size_t>(a.nvals()));
  for (gbcuda::Index i = 0; i < a.nrows; ++i)
    for (gbcuda::Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      I.push_back(static_cast<GrB_Index>(i));
      J.push_back(static_cast<GrB_Index>(a.col_idx[p]));
    }
  std::unique_ptr<bool[]> X(new bool[I.size() + 1]);
  for (std::size_t k = 0; k < I.size(); ++k) X[k] = true;
  grb_check(GrB_Matrix_new(&out.m, GrB_BOOL, static_cast<GrB_Index>(a.nrows), static_cast<GrB_Index>(a.ncols)),
            "GrB_Matrix_new");
  grb_check(GrB_Matrix_build_BOOL(out.m, I.data(), J.data(), X.get(), I.size(), GrB_LOR), "GrB_Matrix_build_BOOL");
}

template <class T>
std::vector<std::int32_t> graphblas_bfs_levels(const gbcuda::Matrix<T>& A, gbcuda::Index source) {
  GrbMatrix g;
  to_graphblas_pattern(A, g);
  return gbref::bfs_levels(g, A.nrows(), source).values;
}

#define GBTEST_INSTANTIATE(T)                                                  \
  template void to_graphblas_pattern<T>(const gbcuda::Matrix<T>&, GrbMatrix&); \
  template std::vector<std::int32_t> graphblas_bfs_levels<T>(const gbcuda::Matrix<T>&, gbcuda::Index);
GBCUDA_FOR_EACH_TYPE(GBTEST_INSTANTIATE)

}  // namespace gbtest
