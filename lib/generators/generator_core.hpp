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
enum Stream : std::uint64_t {
  kKronLevels = 1,
  kUrandEdges = 2,
  kRandOut = 3,
  kPermutation = 4,
  kRMatLevels = 5,
  kPowerLaw = 6,
  kWeb = 7,
  kRoad = 8
};

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

// R-MAT: edge k picks one quadrant per bit level from 16 random bits (four levels per 64-bit
// draw) compared with cumulative integer thresholds out of 2^16 (probabilities off by less than
// 2^-16), without branches; endpoints are then relabelled by the permutation. Directed: edge k is
// u -> v (kron symmetrizes afterwards).
struct RMatEdges {
  int scale = 0;
  std::uint64_t key = 0;
  std::uint32_t a = 0, ab = 0, abc = 0;  // cumulative thresholds of quadrants A, B, C out of 2^16
  Permutation perm;

  // Graph500 Kronecker: A=.57, B=C=.19, D=.05 (thresholds truncated, its own random stream).
  static RMatEdges kron(int s, std::uint64_t seed) {
    return {s,
            stream_key(seed, kKronLevels),
            static_cast<std::uint32_t>(0.57 * 65536.0),
            static_cast<std::uint32_t>(0.76 * 65536.0),
            static_cast<std::uint32_t>(0.95 * 65536.0),
            Permutation::make(s, seed)};
  }
  // rmat:S:E:A:B:C (thresholds rounded).
  static RMatEdges rmat(const GraphSpec& spec, std::uint64_t seed) {
    return {spec.scale,
            stream_key(seed, kRMatLevels),
            threshold16(spec.rmat_a),
            threshold16(spec.rmat_a + spec.rmat_b),
            threshold16(spec.rmat_a + spec.rmat_b + spec.rmat_c),
            Permutation::make(spec.scale, seed)};
  }

  // p in [0, 1] -> round(p * 2^16), the one floating-point step, taken once on the host.
  static std::uint32_t threshold16(double p) {
    const double t = p * 65536.0 + 0.5;
    return t >= 65536.0 ? 65536u : static_cast<std::uint32_t>(t);
  }

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    std::uint32_t u = 0, v = 0;
    const std::uint64_t base = k * 8;  // scale <= 30: at most 8 draws per edge
    std::uint64_t bits = 0;
    for (int level = 0; level < scale; ++level) {
      if ((level & 3) == 0) bits = draw(key, base + static_cast<std::uint64_t>(level / 4));
      const std::uint32_t r = static_cast<std::uint32_t>(bits & 0xffff);
      bits >>= 16;
      const std::uint32_t row_bit = r >= ab;                                         // C, D
      const std::uint32_t col_bit = std::uint32_t(r >= a) ^ (r >= ab) ^ (r >= abc);  // B, D
      u = (u << 1) | row_bit;
      v = (v << 1) | col_bit;
    }
    return {static_cast<std::uint32_t>(perm(u)), static_cast<std::uint32_t>(perm(v))};
  }
};

// x^e for a 64-bit fraction x (x / 2^64), truncated at each step; e >= 1.
GBCUDA_HD inline std::uint64_t power_fraction(std::uint64_t x, int e) {
  std::uint64_t p = x;
  for (int i = 1; i < e; ++i) p = scale_to(p, x);
  return p;
}

// A vertex of [0, n) drawn with P(rank r) = ((r+1)/n)^(1/e) - (r/n)^(1/e): rank = floor(n * x^e)
// for x uniform. Rank r then gets a share ~ r^(1/e - 1) of the draws (Zipf with exponent
// 1 - 1/e), so the degrees it produces follow a power law with tail exponent 1 + e/(e-1).
GBCUDA_HD inline std::uint64_t zipf_rank(std::uint64_t x, std::uint64_t n, int e) {
  return scale_to(power_fraction(x, e), n);
}

// A seeded bijection of [0, n) for any n: the power-of-two Permutation, walked until it lands
// in range (cycle walking; fewer than two steps on average since 2^bits < 2n).
struct RangePermutation {
  std::uint64_t n = 0;
  Permutation perm;
  RangePermutation() = default;
  RangePermutation(std::uint64_t count, int bits, std::uint64_t seed) : n(count), perm(Permutation::make(bits, seed)) {}
  GBCUDA_HD std::uint64_t operator()(std::uint64_t x) const {
    do x = perm(x);
    while (x >= n);
    return x;
  }
};

// powerlaw: edge k goes from a uniform source to a target of Zipf rank (zipf_rank with exponent
// e), the ranks relabelled by a permutation so that ids say nothing about in-degree. Directed:
// in-degrees are heavy-tailed, out-degrees Poisson.
struct PowerLawEdges {
  std::uint64_t n = 0;
  int exponent = 1;
  std::uint64_t key = 0;
  RangePermutation perm;

  PowerLawEdges(const GraphSpec& spec, int bits, std::uint64_t seed)
      : n(static_cast<std::uint64_t>(spec.vertices)),
        exponent(spec.exponent),
        key(stream_key(seed, kPowerLaw)),
        perm(static_cast<std::uint64_t>(spec.vertices), bits, seed) {}

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    const std::uint64_t u = scale_to(draw(key, 2 * k), n);
    const std::uint64_t r = zipf_rank(draw(key, 2 * k + 1), n, exponent);
    return {static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(perm(r))};
  }
};

// road: a W x H lattice (vertex y*W + x) thinned like a road map. Three draws per vertex v
// (draw k = 3v + t):
//   t = 0: the tree edge, to the left or the upper neighbour (a draw picks when both exist);
//          every vertex but (0, 0) has one, each pointing one step closer to (0, 0), so they
//          form a spanning tree and the graph is connected;
//   t = 1: the other of left / up, kept with probability kExtra;
//   t = 2: the diagonal to (x+1, y+1), kept with probability kDiagonal.
// About 60% of the lattice's bonds stay: degrees 1 to 6, mean about 2 (1 + kExtra + kDiagonal) = 2.5,
// most vertices of degree 1 to 3; the detours and the diagonals about cancel, so the BFS depth
// stays near the grid's (about W + H from a corner). A dropped draw is a self loop, which the
// builder removes.
struct RoadEdges {
  std::uint64_t w = 0, h = 0;
  std::uint64_t key = 0;
  static constexpr std::uint32_t kExtra = 13107;    // 0.2 * 2^16: loops in about one cell in five
  static constexpr std::uint32_t kDiagonal = 3277;  // 0.05 * 2^16: a few short diagonals

  RoadEdges(const GraphSpec& spec, std::uint64_t seed)
      : w(static_cast<std::uint64_t>(spec.width)),
        h(static_cast<std::uint64_t>(spec.height)),
        key(stream_key(seed, kRoad)) {}

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    const std::uint64_t v = k / 3, t = k % 3;
    const std::uint64_t x = v % w, y = v / w;
    const std::uint64_t r = draw(key, k);
    const std::uint32_t self = static_cast<std::uint32_t>(v);
    const bool has_left = x > 0, has_up = y > 0;
    // The tree edge goes up when there is no left neighbour, or by the draw of slot 0.
    const bool tree_up = has_up && (!has_left || (draw(key, 3 * v) & 1));
    if (t == 0) {
      if (!has_left && !has_up) return {self, self};
      return {self, static_cast<std::uint32_t>(tree_up ? v - w : v - 1)};
    }
    if (t == 1) {
      if (!has_left || !has_up || (r >> 48) >= kExtra) return {self, self};
      return {self, static_cast<std::uint32_t>(tree_up ? v - 1 : v - w)};
    }
    if (x + 1 >= w || y + 1 >= h || (r >> 48) >= kDiagonal) return {self, self};
    return {self, static_cast<std::uint32_t>(v + w + 1)};
  }
};

// web: the shape of a web crawl, symmetric. Vertex ids, in this order:
//   hubs     site hubs, one per site;
//   core     pages linked among themselves (to popular pages: Zipf targets; to nearby pages:
//            within kWindow ids, as the pages of one host link to each other) and to hubs;
//   members  pages of a site: contiguous runs, one run per site, run lengths power-law (site s
//            holds the positions p with floor(S (p/M)^2) = s, so site 0 is the largest); each
//            member links to its hub and to the next two members of its run, and one in a
//            hundred links out to a popular core page;
//   combs    blocks of kCombBlock vertices hanging from an open hub or a core page: a spine (a
//            path) of 1..kMaxSpine vertices, the rest of the block teeth on the spine; the tip of
//            a spine of kLateSpine or more links to a secluded hub, each in turn.
// A secluded site (every third: 1, 4, 7, ..., so the second largest among them) has no other
// link to the rest: its hub is reached only through the tips of long combs, so a BFS meets it
// late (after the wide levels) and its members later, and until then every pull level scans the
// hub's whole row (thousands of members) without meeting the frontier. Seen from hub 0
// (the highest degree), a BFS has a wide first level (site 0), a narrow second, a few wide ones
// through the core and the sites, then a tail of thin levels along the combs and into the
// secluded sites.
// Draws: kHubSlots per open hub, kCoreSlots per core page, kMemberSlots per member, one per comb
// vertex and one per comb tip; a dropped draw is a self loop, which the builder removes. The
// constants below were tuned (by BFS profiles on the host) so that web:325000 has the crawl's
// size (326K vertices, 2.21M entries) and level profile (1, 10721, 173, 7971, 54022, 94198,
// 80766, 32155, then 19 thin levels); the profile keeps its form from 5,000 vertices to 10^6.
struct WebEdges {
  static constexpr std::uint64_t kHubSlots = 4, kCoreSlots = 7, kMemberSlots = 4;
  static constexpr std::uint64_t kCombBlock = 48;       // vertices per comb: spine + teeth
  static constexpr std::uint64_t kMaxSpine = 24;        // the longest tail, in BFS levels
  static constexpr std::uint64_t kLateSpine = 12;       // only spines this long end at a secluded hub
  static constexpr int kSiteExponent = 2;               // run lengths: Zipf exponent 1/2
  static constexpr int kPopularExponent = 2;            // core targets: Zipf exponent 1/2
  static constexpr std::uint32_t kMemberOut = 655;      // 1% of members link out to the core
  static constexpr std::uint32_t kCorePopular = 29491;  // 45% of core links: a Zipf core target
  static constexpr std::uint32_t kCoreLocal = 64881;    // 54% more: a core page at most kWindow ids away; 1% a hub
  static constexpr std::uint64_t kWindow = 1024;        // the neighbourhood of a local link, in core ids

  std::uint64_t hubs = 0, core = 0, members = 0, blocks = 0;
  std::uint64_t core0 = 0, member0 = 0, comb0 = 0;                        // first id of each part
  std::uint64_t hub_end = 0, core_end = 0, member_end = 0, comb_end = 0;  // draw ranges
  std::uint64_t key = 0;

  // The layout of n vertices (n >= kMinVertices): 1/1100 hubs (at least 4), 22% core, 25% combs,
  // members the rest.
  static constexpr std::uint64_t kMinVertices = 1000;
  WebEdges(const GraphSpec& spec, std::uint64_t seed) : key(stream_key(seed, kWeb)) {
    const std::uint64_t n = static_cast<std::uint64_t>(spec.vertices);
    hubs = n / 1100 > 4 ? n / 1100 : 4;
    core = n * 22 / 100;
    blocks = n / 4 / kCombBlock;
    members = n - hubs - core - blocks * kCombBlock;
    core0 = hubs;
    member0 = core0 + core;
    comb0 = member0 + members;
    hub_end = hubs * kHubSlots;
    core_end = hub_end + core * kCoreSlots;
    member_end = core_end + members * kMemberSlots;
    comb_end = member_end + blocks * kCombBlock;
  }
  std::uint64_t draws() const { return comb_end + blocks; }

  GBCUDA_HD static std::uint32_t low16(std::uint64_t r) { return static_cast<std::uint32_t>(r >> 48); }
  GBCUDA_HD static bool secluded(std::uint64_t site) { return site % 3 == 1; }
  // The site of member position p: floor(hubs * (p / members)^3), p / members as a 32-bit fraction.
  GBCUDA_HD std::uint64_t site_of(std::uint64_t p) const {
    const std::uint64_t frac = ((p << 32) / members) << 32;
    return zipf_rank(frac, hubs, kSiteExponent);
  }
  GBCUDA_HD std::uint64_t spine_length(std::uint64_t block) const {
    return 1 + zipf_rank(draw(key ^ 0x5b14eULL, block), kMaxSpine, 2);
  }

  GBCUDA_HD Edge operator()(std::uint64_t k) const {
    const std::uint64_t r = draw(key, k);
    if (k < hub_end) {  // an open hub links to a core page
      const std::uint64_t hub = k / kHubSlots;
      if (secluded(hub)) return loop(hub);
      return edge(hub, core0 + scale_to(r, core));
    }
    if (k < core_end) {
      const std::uint64_t c = core0 + (k - hub_end) / kCoreSlots;
      const std::uint32_t kind = low16(r);
      const std::uint64_t x = draw(key, k + (std::uint64_t(1) << 62));
      if (kind < kCorePopular) return edge(c, core0 + zipf_rank(x, core, kPopularExponent));
      if (kind < kCoreLocal) return edge(c, core0 + (c - core0 + core - kWindow + scale_to(x, 2 * kWindow + 1)) % core);
      const std::uint64_t hub = scale_to(x, hubs);
      return secluded(hub) ? loop(c) : edge(c, hub);
    }
    if (k < member_end) {
      const std::uint64_t p = (k - core_end) / kMemberSlots, t = (k - core_end) % kMemberSlots;
      const std::uint64_t v = member0 + p, site = site_of(p);
      if (t == 0) return edge(v, site);
      if (t == 1 || t == 2) return p + t < members && site_of(p + t) == site ? edge(v, v + t) : loop(v);
      if (secluded(site) || low16(r) >= kMemberOut) return loop(v);
      return edge(v, core0 + zipf_rank(draw(key, k + (std::uint64_t(1) << 62)), core, kPopularExponent));
    }
    if (k < comb_end) {  // comb vertex j of block b: spine j -> spine j-1 or the root; tooth -> spine
      const std::uint64_t i = k - member_end, b = i / kCombBlock, j = i % kCombBlock;
      const std::uint64_t first = comb0 + b * kCombBlock, len = spine_length(b);
      if (j >= len) return edge(first + j, first + (j - len) % len);
      if (j > 0) return edge(first + j, first + j - 1);
      const std::uint64_t root = draw(key ^ 0x2007ULL, b), hub = scale_to(root, hubs);
      return edge(first, (root & 1) && !secluded(hub) ? hub : core0 + scale_to(root, core));
    }
    const std::uint64_t b = k - comb_end;  // the tip of a long comb b -> a secluded hub, in turn
    const std::uint64_t len = spine_length(b), hub = 3 * (b % ((hubs + 1) / 3)) + 1;
    if (len < kLateSpine || hub >= hubs) return loop(comb0 + b * kCombBlock);
    return edge(comb0 + b * kCombBlock + len - 1, hub);
  }

 private:
  GBCUDA_HD static Edge edge(std::uint64_t u, std::uint64_t v) {
    return {static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(v)};
  }
  GBCUDA_HD static Edge loop(std::uint64_t u) { return edge(u, u); }
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
