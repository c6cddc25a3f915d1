#pragma once
// SuiteSparse:GraphBLAS as the reference the tests compare against.
#include <cstdint>
#include <vector>

#include "gbcuda/matrix.hpp"

extern "C" {
#if __has_include(<suitesparse/GraphBLAS.h>)
#include <suitesparse/GraphBLAS.h>
#else
#include <GraphBLAS.h>
#endif
}

namespace gbtest {

// Calls GrB_init once per process (safe to call many times).
void ensure_graphblas();

// Throws std::runtime_error naming the call when a GraphBLAS call fails.
void grb_check(GrB_Info info, const char* what);

// A GrB_Matrix (BOOL, pattern of A) that frees itself.
struct GrbMatrix {
  GrB_Matrix m = nullptr;
  GrbMatrix() = default;
  GrbMatrix(const GrbMatrix&) = delete;
  GrbMatrix& operator=(const GrbMatrix&) = delete;
  ~GrbMatrix() {
    if (m) GrB_Matrix_free(&m);
  }
};
struct GrbVector {
  GrB_Vector v = nullptr;
  GrbVector() = default;
  GrbVector(const GrbVector&) = delete;
  GrbVector& operator=(const GrbVector&) = delete;
  ~GrbVector() {
    if (v) GrB_Vector_free(&v);
  }
};

// The pattern of A as a GraphBLAS boolean matrix.
template <class T>
void to_graphblas_pattern(const gbcuda::Matrix<T>& A, GrbMatrix& out);

// BFS levels from `source` computed with GraphBLAS (GrB_vxm, ANY_PAIR, complemented structural
// mask, replace): level[v], -1 when unreachable.
template <class T>
std::vector<std::int32_t> graphblas_bfs_levels(const gbcuda::Matrix<T>& A, gbcuda::Index source);

}  // namespace gbtest
