#pragma once
// SuiteSparse:GraphBLAS as the reference the tests compare against: bench/graphblas_algorithms.hpp's
// wrapper and algorithms, with the tests' own entry points.
#include <cstdint>
#include <vector>

#include "gbcuda/matrix.hpp"
#include "graphblas_algorithms.hpp"  // bench/: the one GraphBLAS wrapper (gbref), GraphBLAS.h

namespace gbtest {

// Calls GrB_init once per process (safe to call many times).
void ensure_graphblas();

// Throws std::runtime_error naming the call when a GraphBLAS call fails (GrB_NO_VALUE passes).
inline void grb_check(GrB_Info info, const char* what) { gbref::check(info, what); }

using GrbMatrix = gbref::Matrix;
using GrbVector = gbref::Vector;

// The pattern of A as a GraphBLAS boolean matrix.
template <class T>
void to_graphblas_pattern(const gbcuda::Matrix<T>& A, GrbMatrix& out);

// BFS levels from `source` computed with GraphBLAS (GrB_vxm, ANY_PAIR, complemented structural
// mask, replace): level[v], -1 when unreachable.
template <class T>
std::vector<std::int32_t> graphblas_bfs_levels(const gbcuda::Matrix<T>& A, gbcuda::Index source);

}  // namespace gbtest
