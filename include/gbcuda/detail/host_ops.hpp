#pragma once
// The host backend's primitives (contract: detail/backend_ops.hpp), split like lib/cuda/:
//   host/util.hpp         OpenMP loops, compaction, bitmaps, accumulation, mask_bitmap
//   host/product.hpp      gather (pull) and scatter (push) over any semiring
//   host/merge.hpp        merge, merge_scalar, assign_indexed, extract_indexed
//   host/elementwise.hpp  apply (select through its keep), ewise
//   host/reduce.hpp       reduce
// Header-only templates so that any operator, monoid or semiring works, user-defined ones
// included. Parallelised with OpenMP where the work is a loop over rows, indices or entries.
#include "gbcuda/detail/host/elementwise.hpp"
#include "gbcuda/detail/host/merge.hpp"
#include "gbcuda/detail/host/product.hpp"
#include "gbcuda/detail/host/reduce.hpp"
#include "gbcuda/detail/host/util.hpp"
