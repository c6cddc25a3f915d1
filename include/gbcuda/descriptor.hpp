#pragma once
// Descriptors: how an operation reads its mask and inputs (GraphBLAS GrB_Descriptor).
namespace gbcuda {

// Which way a matrix-vector product walks the matrix. Auto lets the backend choose by the
// input vector's density; BFS sets it explicitly per level.
enum class Direction { Auto, Push, Pull };

struct Descriptor {
  bool replace = false;          // GrB_REPLACE: entries of w outside the mask are deleted
  bool mask_complement = false;  // GrB_COMP: use NOT mask
  bool mask_structural = false;  // GrB_STRUCTURE: an entry's presence counts, not its value
  bool transpose_a = false;      // GrB_TRAN on the matrix input
  Direction direction = Direction::Auto;

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
}  // namespace desc

}  // namespace gbcuda
