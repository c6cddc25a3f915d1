#pragma once
// Descriptors: how an operation reads its mask and inputs (GraphBLAS GrB_Descriptor), and, for
// matrix-vector products, which way and with which kernel they run (like SuiteSparse's
// GxB_AxB_METHOD).
namespace gbcuda {

// Which way a matrix-vector product walks the matrix. Auto lets the product's policy choose
// (include/gbcuda/detail/product_policy.hpp): push while the input is
// sparse, pull (a gather with early exit) once its out-edges outnumber the unexplored edges / alpha.
enum class Direction { Auto, Push, Pull };

// The kernels of the boolean masked product (vxm/mxv over LorLand, AnyPair, AnySecondI with any
// mask) on the CUDA backend. Auto: the policy chooses per call, on the device, from device-side
// counts. The host backend has one push and one pull: Pull is its pull, every other kernel its push.
//   Pull         bitmap pull: each allowed output gathers over its in-edges, stopping at the first
//                input entry (masked SpMV over the transpose with early exit)
//   QueueWarp    push, new entries appended through per-warp queues in shared memory, merged into
//                block queues, one global atomic per block (masked SpMSpV)
//   QueueBlock   push through one shared-memory queue per block
//   QueueGlobal  push appending each new entry with its own global atomic
//   SingleBlock  push by one block of 1024 threads (narrow inputs; the fused BFS runs many narrow
//                levels in it without a grid barrier)
// Push kernels spread an input of a few very long rows over every block (few-long-rows).
enum class ProductKernel { Auto, Pull, QueueWarp, QueueBlock, QueueGlobal, SingleBlock };
const char* to_string(ProductKernel k);

struct Descriptor {
  bool replace = false;          // GrB_REPLACE: entries of w outside the mask are deleted
  bool mask_complement = false;  // GrB_COMP: use NOT mask
  bool mask_structural = false;  // GrB_STRUCTURE: an entry's presence counts, not its value
  bool transpose_a = false;      // GrB_TRAN on the matrix input
  Direction direction = Direction::Auto;
  ProductKernel kernel = ProductKernel::Auto;  // force one kernel of the boolean product
  // The policy's direction thresholds (see Direction); 0 = the library's (calibrated on the GPU).
  double alpha = 0.0;
  double beta = 0.0;
  bool transpose_b = false;  // GrB_TRAN on the second matrix input (mxm's B)

  constexpr Descriptor with_direction(Direction d) const {
    Descriptor x = *this;
    x.direction = d;
    return x;
  }
  constexpr Descriptor with_transpose(bool t = true) const {
    Descriptor x = *this;
    x.transpose_a = t;
    return x;
  }
  constexpr Descriptor with_transpose_b(bool t = true) const {
    Descriptor x = *this;
    x.transpose_b = t;
    return x;
  }
  constexpr Descriptor with_kernel(ProductKernel k) const {
    Descriptor x = *this;
    x.kernel = k;
    return x;
  }
};

// The GraphBLAS predefined descriptors: R = replace, S = structural, C = complement,
// T0 = transpose the matrix input.
namespace desc {
inline constexpr Descriptor none{};
inline constexpr Descriptor T0{false, false, false, true};
inline constexpr Descriptor R{true, false, false, false};
inline constexpr Descriptor C{false, true, false, false};
inline constexpr Descriptor S{false, false, true, false};
inline constexpr Descriptor SC{false, true, true, false};
inline constexpr Descriptor RC{true, true, false, false};
inline constexpr Descriptor RS{true, false, true, false};
inline constexpr Descriptor RSC{true, true, true, false};
inline constexpr Descriptor RT0{true, false, false, true};
inline constexpr Descriptor RSCT0{true, true, true, true};
inline constexpr Descriptor ST1 = S.with_transpose_b();    // structural mask, B transposed (mxm)
inline constexpr Descriptor RST1 = RS.with_transpose_b();  // the same, C's entries outside the mask deleted
}  // namespace desc

}  // namespace gbcuda
