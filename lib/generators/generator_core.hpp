#pragma once
// The pieces of the graph generators that decide which edges a graph has: a counter-based hash
// RNG and, for each kind, "edge k" as a pure function of (parameters, seed, k). The host
// (generators.cpp) and the GPU (generators_cuda.cu) include this same code, so both build the
// identical matrix for a spec and seed; only the sorting and deduplication differ, and those
// have one right answer. Integer arithmetic only (no floating point), for the same reason.
// Not part of the public API.
#include <cstdint>

#include "gbcuda/generators.hpp"
#include "gbcuda/types.hpp"

namespace gbcuda::gen {

// splitmix64's output function: a bijective 64-bit mixer.
GBCUDA_HD inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Independent random streams of one seed.
enum Stream : std::uint64_t { kKronLevels = 1, kUrandEdges = 2, kRandOut = 3, kPermutation = 4 };

// The key of one stream of one seed; draw(key, i) is then the i-th value of that stream, i.e.
// splitmix64's generator started at `key`, read at position i without walking there.
inline std::uint64_t stream_key(std::uint64_t seed, Stream s) {
  return mix64(seed ^ mix64(0x6a09e667f3bcc909ULL + static_cast<std::uint64_t>(s)));
}
GBCUDA_HD inline std::uint64_t draw(std::uint64_t key, std::uint64_t i) {
  return mix64(key + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

// floor(x * n / 2^64): a uniform value in [0, n) from 64 random bits (n < 2^32 here, so the
// bias is below 2^-32).
GBCUDA_HD inline std::uint64_t scale_to(std::uint64_t x, std::uint64_t n) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(x, n);
#else
  // The high word of the 128-bit product from 32-bit halves (no __int128: -Wpedantic).
  const std::uint64_t xl = x & 0xffffffffULL, xh = x >> 32, nl = n & 0xffffffffULL, nh = n >> 32;
  const std::uint64_t ll = xl * nl, lh = xl * nh, hl = xh * nl, hh = xh * nh;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

// A seeded bijection of [0, 2^bits): rounds of (multiply by an odd constant, add a key, fold
// the high half into the low half), each a permutation of bits-bit integers. Used to relabel
// Kronecker vertices so that ids carry no information about degree.
struct Permutation {
  int bits = 0;
  std::uint64_t mask = 0;
  std::uint64_t mul[4] = {};
  std::uint64_t add[4] = {};

  static Permutation make(int bits, std::uint64_t seed) {
    Permutation p;
    p.bits = bits;
    p.mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    const std::uint64_t key = stream_key(seed, kPermutation);
    for (int r = 0; r < 4; ++r) {
      p.mul[r] = (draw(key, 2 * r) | 1ULL) & p.mask;  // odd: invertible modulo 2^bits
      if (p.mul[r] == 0) p.mul[r] = 1;
      p.add[r] = draw(key, 2 * r + 1) & p.mask;
    }
    return p;
  }
  GBCUDA_HD std::uint64_t operator()(std::uint64_t x) const {
    const int shift = bits / 2 + 1;
    for (int r = 0; r < 4; ++r) {
      x = (x * mul[r] + add[r]) & mask;
      x ^= x >> shift;  // x ^ (x >> s) with s >= 1 is invertible
    }
    return x;
  }
};

struct Edge {
  std::uint32_t u, v;
};

// Graph500 Kronecker (R-MAT) with A=.57, B=C=.19, D=.05: edge k picks one quadrant per bit
// level from 16 random bits (four levels per 64-bit draw) compared with fixed integer
// thresholds (probabilities off by less than 2^-16). Endpoints are then relabelled by the
// permutation.
struct KronEdges {
  int scale = 0;
  std::uint64_t key = 0;
  Permutation perm;

  static constexpr std::uint32_t kA = static_cast<std::uint32_t>(0.57 * 65536.0);
  static constexpr std::uint32_t kAB = static_cast<std::uint32_t>(0.76 * 65536.0);
  static constexpr std::uint32_t kABC = static_cast<std::uint32_t>(0.95 * 65536.0);

  KronEdges(int s, std::uint64_t seed)
      : scale(s), key(stream_key(seed, kKronLevels)), perm(Permutation::make(s, seed)) {}

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    std::uint32_t u = 0, v = 0;
    const std::uint64_t base = k * 8;  // scale <= 30: at most 8 draws per edge
    std::uint64_t bits = 0;
    for (int level = 0; level < scale; ++level) {
      if ((level & 3) == 0) bits = draw(key, base + static_cast<std::uint64_t>(level / 4));
      const std::uint32_t r = static_cast<std::uint32_t>(bits & 0xffff);
      bits >>= 16;
      // Quadrant A [0, kA), B [kA, kAB), C [kAB, kABC), D [kABC, 2^16); without branches.
      const std::uint32_t row_bit = r >= kAB;                                           // C, D
      const std::uint32_t col_bit = std::uint32_t(r >= kA) ^ (r >= kAB) ^ (r >= kABC);  // B, D
      u = (u << 1) | row_bit;
      v = (v << 1) | col_bit;
    }
    return {static_cast<std::uint32_t>(perm(u)), static_cast<std::uint32_t>(perm(v))};
  }
};

// Uniform random endpoints in [0, 2^scale): the high and low 32 bits of one draw.
struct UrandEdges {
  int scale = 0;
  std::uint64_t key = 0;

  UrandEdges(int s, std::uint64_t seed) : scale(s), key(stream_key(seed, kUrandEdges)) {}

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    const std::uint64_t x = draw(key, k);
    return {static_cast<std::uint32_t>(x >> (64 - scale)),
            static_cast<std::uint32_t>((x & 0xffffffffULL) >> (32 - scale))};
  }
};

// randout: row i's out-neighbours are the first `degree` distinct values of the sequence
// t -> draw(key, i * 2^32 + t) scaled to [0, n) (collisions are redrawn, so every row has
// exactly `degree` entries; self loops are allowed). Written into out[0, degree) ascending, by
// insertion with a binary search: O(degree^2) at worst, meant for small degrees.
struct RandOutRow {
  std::uint64_t n = 0;
  std::uint64_t degree = 0;
  std::uint64_t key = 0;

  GBCUDA_HD void operator()(std::uint64_t row, Vid* out) const {
    std::uint64_t have = 0;
    for (std::uint64_t t = 0; have < degree; ++t) {
      const Vid c = static_cast<Vid>(scale_to(draw(key, (row << 32) + t), n));
      std::uint64_t lo = 0, hi = have;  // first position with out[pos] >= c
      while (lo < hi) {
        const std::uint64_t mid = (lo + hi) / 2;
        if (out[mid] < c) lo = mid + 1;
        else hi = mid;
      }
      if (lo < have && out[lo] == c) continue;  // drawn before: draw again
      for (std::uint64_t q = have; q > lo; --q) out[q] = out[q - 1];
      out[lo] = c;
      ++have;
    }
  }
};

// grid: vertex y*W + x; neighbours in ascending id order: up, left, right, down.
GBCUDA_HD inline int grid_degree(Index w, Index h, Index x, Index y) {
  return (y > 0) + (x > 0) + (x + 1 < w) + (y + 1 < h);
}
GBCUDA_HD inline void grid_row(Index w, Index h, Index v, Vid* out) {
  const Index y = v / w, x = v % w;
  int k = 0;
  if (y > 0) out[k++] = static_cast<Vid>(v - w);
  if (x > 0) out[k++] = static_cast<Vid>(v - 1);
  if (x + 1 < w) out[k++] = static_cast<Vid>(v + 1);
  if (y + 1 < h) out[k++] = static_cast<Vid>(v + w);
}

// Bits needed for ids in [0, n).
inline int id_bits(Index n) {
  int b = 1;
  while (b < 62 && (Index(1) << b) < n) ++b;
  return b;
}

// Progress on stderr for big graphs, only when stderr is a terminal.
void progress(const GraphSpec& spec, Backend where, const char* phase);
void progress_done(const GraphSpec& spec, Backend where);

#if GBCUDA_HAVE_CUDA
// The GPU builder (generators_cuda.cu).
Matrix<bool> generate_cuda(const GraphSpec& spec, std::uint64_t seed);
#endif

}  // namespace gbcuda::gen
