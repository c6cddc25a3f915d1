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

void grb_check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw std::runtime_error(std::string("GraphBLAS call failed: ") + what + " (info " + std::to_string(int(info)) +
                             ")");
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
  const GrB_Index n = static_cast<GrB_Index>(A.nrows());
  GrbVector q, level;
  grb_check(GrB_Vector_new(&q.v, GrB_BOOL, n), "GrB_Vector_new q");
  grb_check(GrB_Vector_new(&level.v, GrB_INT32, n), "GrB_Vector_new level");
  grb_check(GrB_Vector_setElement_BOOL(q.v, true, static_cast<GrB_Index>(source)), "setElement q");
  grb_check(GrB_Vector_setElement_INT32(level.v, 0, static_cast<GrB_Index>(source)), "setElement level");
  for (std::int32_t d = 1;; ++d) {
    grb_check(GrB_vxm(q.v, level.v, nullptr, GxB_ANY_PAIR_BOOL, q.v, g.m, GrB_DESC_RSC), "GrB_vxm");
    GrB_Index nq = 0;
    grb_check(GrB_Vector_nvals(&nq, q.v), "GrB_Vector_nvals");
    if (nq == 0) break;
    grb_check(GrB_Vector_assign_INT32(level.v, q.v, nullptr, d, GrB_ALL, n, GrB_DESC_S), "GrB_assign");
  }
  std::vector<std::int32_t> out(n, -1);
  GrB_Index nv = 0;
  grb_check(GrB_Vector_nvals(&nv, level.v), "nvals");
  std::vector<GrB_Index> I(nv + 1);
  std::vector<std::int32_t> X(nv + 1);
  grb_check(GrB_Vector_extractTuples_INT32(I.data(), X.data(), &nv, level.v), "extractTuples");
  for (GrB_Index k = 0; k < nv; ++k) out[I[k]] = X[k];
  return out;
}

#define GBTEST_INSTANTIATE(T)                                                  \
  template void to_graphblas_pattern<T>(const gbcuda::Matrix<T>&, GrbMatrix&); \
  template std::vector<std::int32_t> graphblas_bfs_levels<T>(const gbcuda::Matrix<T>&, gbcuda::Index);
GBCUDA_FOR_EACH_TYPE(GBTEST_INSTANTIATE)

}  // namespace gbtest
