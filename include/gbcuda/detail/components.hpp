#pragma once
// What both backends' connected components (components.hpp) share: Afforest's sampling.
#include <cstdint>
#include <vector>

#include "gbcuda/types.hpp"

namespace gbcuda::detail {

inline constexpr int kSampledNeighbours = 2;    // neighbours each vertex links before the sampling
inline constexpr int kComponentSamples = 1024;  // vertices sampled for the giant component

// The i-th sampled vertex of n > 0: a fixed multiplicative hash, the same on every run and backend.
GBCUDA_HD inline Vid component_sample(int i, Index n) {
  return static_cast<Vid>((static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull >> 17) %
                          static_cast<std::uint64_t>(n));
}

// The root that occurs most often (the smallest of those tied) (components.cpp).
Vid most_frequent_root(const std::vector<Vid>& roots);

}  // namespace gbcuda::detail
