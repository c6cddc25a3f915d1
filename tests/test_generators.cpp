// Graph generators (kron, urand, grid, randout, and the real shapes rmat, powerlaw, web, road):
// sizes, structure, the shapes they claim, determinism, independence of the thread count, host vs
// GPU, spec parsing; and the binary graph file (.gbc): round trips,
// truncated / corrupt files, bad magic, the atomic writer.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gbcuda/bfs.hpp"
#include "gbcuda/context.hpp"
#include "gbcuda/generators.hpp"
#include "gbcuda/io.hpp"
#include "gbcuda/matrix.hpp"

namespace {

// The generators declare kron/urand/grid symmetric; recompute it from a copy that carries no
// such claim, so the test checks the structure rather than the declaration.
bool symmetry_computed_afresh(const gbcuda::Matrix<bool>& m) {
  auto copy = gbcuda::Matrix<bool>::from_valid_csr(m.csr(gbcuda::Backend::Host).clone(gbcuda::Backend::Host));
  return copy.is_symmetric_structure();
}

namespace fs = std::filesystem;

// A small pattern (iso) matrix.
gbcuda::Matrix<bool> gbtest_pattern() {
  const std::vector<gbcuda::Index> r{0, 1, 2}, c{1, 2, 0};
  return gbcuda::Matrix<bool>::from_coo(3, 3, r, c);
}
using gbcuda::Backend;
using gbcuda::Error;
using gbcuda::FileFormat;
using gbcuda::GraphSpec;
using gbcuda::Index;
using gbcuda::Matrix;
using gbcuda::Offset;
using gbcuda::Status;
using gbcuda::Vid;

struct Arrays {
  Index nrows = 0, ncols = 0;
  std::vector<Offset> row_ptr;
  std::vector<Vid> col_idx;
  bool operator==(const Arrays&) const = default;
};

template <class T>
Arrays arrays(const Matrix<T>& m) {
  const auto& c = m.csr(Backend::Host);
  return {c.nrows, c.ncols, c.row_ptr.to_vector(), c.col_idx.to_vector()};
}

Matrix<bool> host(const std::string& spec, std::uint64_t seed = gbcuda::kDefaultGraphSeed) {
  return gbcuda::generate_graph(spec, Backend::Host, seed);
}

// Rows strictly ascending (no duplicates), columns in range, and no i -> i when `no_loops`.
void expect_clean(const Arrays& a, bool no_loops) {
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.nrows) + 1);
  ASSERT_EQ(a.row_ptr.front(), 0);
  ASSERT_EQ(a.row_ptr.back(), static_cast<Offset>(a.col_idx.size()));
  for (Index i = 0; i < a.nrows; ++i) {
    for (Offset p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      ASSERT_GE(a.col_idx[p], 0);
      ASSERT_LT(a.col_idx[p], a.ncols);
      if (p > a.row_ptr[i]) {
        ASSERT_LT(a.col_idx[p - 1], a.col_idx[p]) << "row " << i;
      }
      if (no_loops) {
        ASSERT_NE(a.col_idx[p], i) << "self loop at " << i;
      }
    }
  }
}

struct DegreeStats {
  Index max = 0;
  double mean = 0;
};
DegreeStats degrees(const Arrays& a) {
  DegreeStats s;
  for (Index i = 0; i < a.nrows; ++i) s.max = std::max<Index>(s.max, a.row_ptr[i + 1] - a.row_ptr[i]);
  s.mean = static_cast<double>(a.col_idx.size()) / static_cast<double>(a.nrows);
  return s;
}

// Out- and in-degrees of the stored structure.
std::vector<Index> out_degrees(const Arrays& a) {
  std::vector<Index> d(static_cast<std::size_t>(a.nrows));
  for (Index i = 0; i < a.nrows; ++i) d[static_cast<std::size_t>(i)] = a.row_ptr[i + 1] - a.row_ptr[i];
  return d;
}
std::vector<Index> in_degrees(const Arrays& a) {
  std::vector<Index> d(static_cast<std::size_t>(a.ncols), 0);
  for (Vid c : a.col_idx) ++d[static_cast<std::size_t>(c)];
  return d;
}
Index max_of(const std::vector<Index>& d) { return *std::max_element(d.begin(), d.end()); }
// The vertex with the most out-edges, lowest id on ties (bfs_bench's and bfs_spmv's source).
Index max_degree_vertex(const Arrays& a) {
  const std::vector<Index> d = out_degrees(a);
  return std::max_element(d.begin(), d.end()) - d.begin();
}

// BFS levels along the stored edges from `source` (-1: unreached).
std::vector<int> bfs_levels(const Arrays& a, Index source) {
  std::vector<int> level(static_cast<std::size_t>(a.nrows), -1);
  std::vector<Index> frontier{source}, next;
  level[static_cast<std::size_t>(source)] = 0;
  for (int depth = 1; !frontier.empty(); ++depth) {
    next.clear();
    for (Index u : frontier)
      for (Offset p = a.row_ptr[u]; p < a.row_ptr[u + 1]; ++p) {
        const Vid v = a.col_idx[p];
        if (level[static_cast<std::size_t>(v)] < 0) {
          level[static_cast<std::size_t>(v)] = depth;
          next.push_back(v);
        }
      }
    frontier.swap(next);
  }
  return level;
}

// Level sizes of a BFS along the stored edges from `source` (level 0 = {source}).
std::vector<Index> level_sizes(const Arrays& a, Index source) {
  std::vector<Index> sizes;
  for (int l : bfs_levels(a, source)) {
    if (l < 0) continue;
    if (static_cast<std::size_t>(l) >= sizes.size()) sizes.resize(static_cast<std::size_t>(l) + 1, 0);
    ++sizes[static_cast<std::size_t>(l)];
  }
  return sizes;
}

// ---- spec parsing ----------------------------------------------------------------------------

TEST(GraphSpecs, Parse) {
  GraphSpec k = gbcuda::parse_graph_spec("kron:22:16");
  EXPECT_EQ(k.kind, GraphSpec::Kind::Kron);
  EXPECT_EQ(k.scale, 22);
  EXPECT_EQ(k.edge_factor, 16);
  EXPECT_EQ(k.vertices, Index(1) << 22);
  EXPECT_EQ(k.edges_drawn(), Index(16) << 22);
  EXPECT_EQ(k.text(), "kron:22:16");

  GraphSpec g = gbcuda::parse_graph_spec("grid:2048:1024");
  EXPECT_EQ(g.kind, GraphSpec::Kind::Grid);
  EXPECT_EQ(g.width, 2048);
  EXPECT_EQ(g.height, 1024);
  EXPECT_EQ(g.vertices, 2048 * 1024);

  GraphSpec r = gbcuda::parse_graph_spec("randout:1e8:4");
  EXPECT_EQ(r.kind, GraphSpec::Kind::RandOut);
  EXPECT_EQ(r.vertices, 100000000);
  EXPECT_EQ(r.degree, 4);
  EXPECT_EQ(r.text(), "randout:100000000:4");
  EXPECT_EQ(gbcuda::parse_graph_spec("randout:100000000:4").vertices, 100000000);
  EXPECT_EQ(gbcuda::parse_graph_spec("randout:2.5e3:4").vertices, 2500);
  EXPECT_EQ(gbcuda::parse_graph_spec("urand:26:8").edges_drawn(), Index(8) << 26);
}

TEST(GraphSpecs, ParseRealShapes) {
  const GraphSpec rd = gbcuda::parse_graph_spec("rmat:20:16");  // the default parameters
  EXPECT_EQ(rd.kind, GraphSpec::Kind::RMat);
  EXPECT_EQ(rd.vertices, Index(1) << 20);
  EXPECT_EQ(rd.edges_drawn(), Index(16) << 20);
  EXPECT_EQ(rd.text(), "rmat:20:16:0.55:0.1:0.3");
  EXPECT_FALSE(rd.symmetric());
  const GraphSpec r = gbcuda::parse_graph_spec("rmat:10:4:.25:0.25:2.5e-1");
  EXPECT_EQ(r.text(), "rmat:10:4:0.25:0.25:0.25");
  EXPECT_EQ(gbcuda::parse_graph_spec(r.text()).text(), r.text());
  EXPECT_EQ(gbcuda::parse_graph_spec("rmat:10:4:0.5:0.5:0").text(), "rmat:10:4:0.5:0.5:0");  // D = 0

  const GraphSpec p = gbcuda::parse_graph_spec("powerlaw:1e6:8");
  EXPECT_EQ(p.kind, GraphSpec::Kind::PowerLaw);
  EXPECT_EQ(p.vertices, 1000000);
  EXPECT_EQ(p.edges_drawn(), 8000000);
  EXPECT_EQ(p.exponent, 3);
  EXPECT_EQ(p.text(), "powerlaw:1000000:8:3");
  EXPECT_EQ(gbcuda::parse_graph_spec("powerlaw:100:2:1").exponent, 1);

  const GraphSpec w = gbcuda::parse_graph_spec("web:325000");
  EXPECT_EQ(w.kind, GraphSpec::Kind::Web);
  EXPECT_EQ(w.vertices, 325000);
  EXPECT_EQ(w.text(), "web:325000");
  EXPECT_TRUE(w.symmetric());
  EXPECT_GT(w.edges_drawn(), 3 * w.vertices);

  const GraphSpec d = gbcuda::parse_graph_spec("road:1000:1500");
  EXPECT_EQ(d.kind, GraphSpec::Kind::Road);
  EXPECT_EQ(d.vertices, 1500000);
  EXPECT_EQ(d.edges_drawn(), 3 * 1500000);
  EXPECT_EQ(d.text(), "road:1000:1500");
  EXPECT_TRUE(d.symmetric());
}

TEST(GraphSpecs, IsGraphSpec) {
  for (const char* s : {"kron:22:16", "urand:1:1", "grid:3:3", "randout:10:2", "kron:", "rmat:10:4", "powerlaw:9:2",
                        "web:5000", "road:3:3", "web:"})
    EXPECT_TRUE(gbcuda::is_graph_spec(s)) << s;
  for (const char* s : {"graph.mtx", "kron.mtx", "./kron:22:16", "", "grid", "Kron:1:1", "web", "road.gr", "Rmat:1:1"})
    EXPECT_FALSE(gbcuda::is_graph_spec(s)) << s;
}

TEST(GraphSpecs, BadSpecs) {
  for (const char* s : {"kron:",
                        "kron:a:b",
                        "grid:0:5",
                        "grid:5:0",
                        "urand:40:16",
                        "kron:31:1",
                        "kron:22",
                        "kron:22:16:3",
                        "foo:1:2",
                        "randout:10:11",
                        "randout:-5:2",
                        "randout:0:1",
                        "randout:1.5:1",
                        "grid:70000:70000",
                        "kron:0:16",
                        "urand:10:0",
                        "kron:22:1x",
                        "randout:1e40:2",
                        "grid::",
                        "rmat:10:4:0.5:0.5:0.5",
                        "rmat:10:4:0.5",
                        "rmat:10:4:1.5:0:0",
                        "rmat:10:4:-0.1:0.5:0.5",
                        "rmat:10:4:a:0.1:0.1",
                        "rmat:31:1",
                        "rmat:10:0",
                        "rmat:10:4:0.5:0.1:0.1:0.1",
                        "powerlaw:10:2:9",
                        "powerlaw:10:2:0",
                        "powerlaw:10:0",
                        "powerlaw:0:2",
                        "powerlaw:1e40:2",
                        "powerlaw:10",
                        "web:999",
                        "web:1000:5",
                        "web:3e9",
                        "web:x",
                        "road:0:5",
                        "road:5:0",
                        "road:70000:70000",
                        "road:5"}) {
    try {
      gbcuda::parse_graph_spec(s);
      ADD_FAILURE() << s << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidValue) << s;
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
    }
  }
  try {
    gbcuda::parse_graph_spec("urand:40:16");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("32-bit"), std::string::npos) << e.what();
  }
}

TEST(GraphSpecs, HandMadeSpecIsChecked) {
  GraphSpec s;
  s.kind = GraphSpec::Kind::Grid;
  s.width = 0;
  s.height = 3;
  EXPECT_THROW(gbcuda::generate_graph(s, Backend::Host), Error);
}

// ---- the generators --------------------------------------------------------------------------

TEST(Generators, Grid) {
  for (auto [w, h] : {std::pair<Index, Index>{5, 3}, {1, 7}, {7, 1}, {1, 1}, {16, 16}}) {
    const std::string spec = "grid:" + std::to_string(w) + ":" + std::to_string(h);
    const Matrix<bool> m = host(spec);
    const Arrays a = arrays(m);
    EXPECT_EQ(a.nrows, w * h) << spec;
    EXPECT_EQ(m.nvals(), 2 * (w - 1) * h + 2 * w * (h - 1)) << spec;
    EXPECT_TRUE(m.is_iso());
    expect_clean(a, true);
    EXPECT_TRUE(symmetry_computed_afresh(m)) << spec;
  }
  // grid:5:3, vertex (x=2, y=1) = 7: up 2, left 6, right 8, down 12.
  const Arrays a = arrays(host("grid:5:3"));
  std::vector<Vid> row7(a.col_idx.begin() + a.row_ptr[7], a.col_idx.begin() + a.row_ptr[8]);
  EXPECT_EQ(row7, (std::vector<Vid>{2, 6, 8, 12}));
  std::vector<Vid> row0(a.col_idx.begin() + a.row_ptr[0], a.col_idx.begin() + a.row_ptr[1]);
  EXPECT_EQ(row0, (std::vector<Vid>{1, 5}));
}

TEST(Generators, Urand) {
  const Matrix<bool> m = host("urand:12:16");
  const Arrays a = arrays(m);
  EXPECT_EQ(a.nrows, 4096);
  EXPECT_EQ(a.ncols, 4096);
  EXPECT_LE(m.nvals(), 2 * 16 * 4096);
  EXPECT_GE(m.nvals(), 2 * 16 * 4096 * 99 / 100);  // few duplicates or loops at this density
  expect_clean(a, true);
  EXPECT_TRUE(symmetry_computed_afresh(m));
  const DegreeStats d = degrees(a);
  EXPECT_NEAR(d.mean, 32.0, 1.0);
  EXPECT_LT(static_cast<double>(d.max), 2.0 * d.mean) << "max degree " << d.max;  // Poisson-like
}

TEST(Generators, Kron) {
  const Matrix<bool> m = host("kron:12:16");
  const Arrays a = arrays(m);
  EXPECT_EQ(a.nrows, 4096);
  EXPECT_LT(m.nvals(), 2 * 16 * 4096);  // many duplicates in a Kronecker graph
  EXPECT_GT(m.nvals(), 4 * 4096);
  expect_clean(a, true);
  EXPECT_TRUE(symmetry_computed_afresh(m));
  const DegreeStats d = degrees(a);
  EXPECT_GT(static_cast<double>(d.max), 20.0 * d.mean) << "max " << d.max << " mean " << d.mean;
  // Isolated vertices are common; the permutation spreads the hubs (the hub is not vertex 0).
  Index isolated = 0, hub = 0;
  for (Index i = 0; i < a.nrows; ++i) {
    if (a.row_ptr[i + 1] == a.row_ptr[i]) ++isolated;
    if (a.row_ptr[i + 1] - a.row_ptr[i] == d.max) hub = i;
  }
  EXPECT_GT(isolated, 0);
  EXPECT_NE(hub, 0);
}

TEST(Generators, TinyScales) {
  for (const char* spec : {"kron:1:4", "urand:1:1", "kron:2:1", "urand:3:2"}) {
    const Matrix<bool> m = host(spec);
    expect_clean(arrays(m), true);
    EXPECT_TRUE(symmetry_computed_afresh(m)) << spec;
    EXPECT_LE(m.nvals(), m.nrows() * (m.nrows() - 1)) << spec;
  }
}

TEST(Generators, RandOut) {
  for (const char* spec : {"randout:1000:8", "randout:1e3:8", "randout:777:1", "randout:40:40"}) {
    const GraphSpec s = gbcuda::parse_graph_spec(spec);
    const Matrix<bool> m = host(spec);
    const Arrays a = arrays(m);
    EXPECT_EQ(a.nrows, s.vertices) << spec;
    EXPECT_EQ(m.nvals(), s.vertices * s.degree) << spec;
    for (Index i = 0; i < a.nrows; ++i) ASSERT_EQ(a.row_ptr[i + 1] - a.row_ptr[i], s.degree) << spec << " row " << i;
    expect_clean(a, false);
  }
  EXPECT_EQ(arrays(host("randout:1000:8")), arrays(host("randout:1e3:8")));
  // D = N: every row is every vertex.
  const Arrays full = arrays(host("randout:40:40"));
  for (Index i = 0; i < 40; ++i)
    for (Index j = 0; j < 40; ++j) ASSERT_EQ(full.col_idx[i * 40 + j], j);
  // Targets are spread over all vertices.
  const Arrays a = arrays(host("randout:10000:4"));
  std::vector<int> hit(10000, 0);
  for (Vid c : a.col_idx) hit[c] = 1;
  EXPECT_GT(std::count(hit.begin(), hit.end(), 1), 9000);
}

// rmat (default parameters): directed, in-degrees far more skewed than out-degrees.
TEST(Generators, RMat) {
  const Matrix<bool> m = host("rmat:14:16");
  const Arrays a = arrays(m);
  EXPECT_EQ(a.nrows, Index(1) << 14);
  EXPECT_LT(m.nvals(), Index(16) << 14);  // duplicates removed
  EXPECT_GT(m.nvals(), Index(4) << 14);
  expect_clean(a, true);
  EXPECT_FALSE(symmetry_computed_afresh(m));
  const double mean = static_cast<double>(m.nvals()) / static_cast<double>(a.nrows);
  const Index max_in = max_of(in_degrees(a)), max_out = max_of(out_degrees(a));
  EXPECT_GT(static_cast<double>(max_in), 50.0 * mean) << "max in-degree " << max_in << ", mean " << mean;
  EXPECT_GT(max_in, 3 * max_out) << "in " << max_in << " out " << max_out;
  // Graph500's parameters skew both sides alike.
  const Arrays g = arrays(host("rmat:14:16:0.57:0.19:0.19"));
  const Index g_in = max_of(in_degrees(g)), g_out = max_of(out_degrees(g));
  EXPECT_LT(g_in, 2 * g_out) << "in " << g_in << " out " << g_out;
  EXPECT_LT(g_out, 2 * g_in) << "in " << g_in << " out " << g_out;
}

// powerlaw: directed; a few targets with in-degrees in the thousands, most below the mean;
// out-degrees Poisson around D.
TEST(Generators, PowerLaw) {
  const Matrix<bool> m = host("powerlaw:20000:8");
  const Arrays a = arrays(m);
  EXPECT_EQ(a.nrows, 20000);
  EXPECT_LE(m.nvals(), 160000);
  EXPECT_GT(m.nvals(), 150000);  // few duplicates: only the hubs' sources repeat
  expect_clean(a, true);
  EXPECT_FALSE(symmetry_computed_afresh(m));
  std::vector<Index> in = in_degrees(a);
  const double mean = static_cast<double>(m.nvals()) / 20000.0;
  EXPECT_GT(static_cast<double>(max_of(in)), 100.0 * mean) << "max in-degree " << max_of(in);
  EXPECT_LT(max_of(out_degrees(a)), 4 * 8);
  std::nth_element(in.begin(), in.begin() + 10000, in.end());
  EXPECT_LT(static_cast<double>(in[10000]), mean) << "median in-degree";
  // K = 1: uniform targets, no hubs.
  const Arrays u = arrays(host("powerlaw:20000:8:1"));
  EXPECT_LT(max_of(in_degrees(u)), 4 * 8);
}

// web: the level profile of a crawl from its highest-degree vertex (a hub whose row is its
// site's low-degree members): one wide level, a narrow one, a few wide ones, then a tail of
// at least a dozen thin levels; 20 to 34 levels at any size.
TEST(Generators, Web) {
  for (Index n : {Index(50000), Index(120000)}) {
    const std::string spec = "web:" + std::to_string(n);
    const Matrix<bool> m = host(spec);
    const Arrays a = arrays(m);
    EXPECT_EQ(a.nrows, n);
    expect_clean(a, true);
    EXPECT_TRUE(symmetry_computed_afresh(m)) << spec;
    const double mean = static_cast<double>(m.nvals()) / static_cast<double>(n);
    EXPECT_GT(mean, 5.5) << spec;
    EXPECT_LT(mean, 8.0) << spec;
    const Index hub = max_degree_vertex(a);
    const Index hub_degree = a.row_ptr[hub + 1] - a.row_ptr[hub];
    EXPECT_GT(static_cast<double>(hub_degree), 0.02 * static_cast<double>(n)) << spec;
    // The hub's neighbours are mostly small: their median degree is below the mean.
    std::vector<Index> nd;
    for (Offset p = a.row_ptr[hub]; p < a.row_ptr[hub + 1]; ++p)
      nd.push_back(a.row_ptr[a.col_idx[p] + 1] - a.row_ptr[a.col_idx[p]]);
    std::nth_element(nd.begin(), nd.begin() + nd.size() / 2, nd.end());
    EXPECT_LT(static_cast<double>(nd[nd.size() / 2]), mean) << spec;

    const std::vector<Index> L = level_sizes(a, hub);
    Index reached = 0;
    for (Index s : L) reached += s;
    EXPECT_GE(L.size(), 20u) << spec;
    EXPECT_LE(L.size(), 34u) << spec;
    EXPECT_GT(reached, n * 8 / 10) << spec;
    ASSERT_GT(L.size(), 4u);
    EXPECT_GT(L[1], 5 * L[2]) << spec << ": level 1 wide, level 2 narrow";
    const Index widest = *std::max_element(L.begin() + 2, L.end());
    EXPECT_GT(widest, n / 5) << spec << ": the body's wide levels";
    const std::size_t at = std::max_element(L.begin() + 2, L.end()) - L.begin();
    std::size_t thin = 0;
    for (std::size_t i = at + 1; i < L.size(); ++i) thin += L[i] < n / 50;
    EXPECT_GE(thin, 12u) << spec << ": the tail of thin levels";
    // What makes its pull slow: when the frontier is widest, long rows (an eighth of the top hub's
    // or more) of vertices still unvisited that meet no frontier vertex, so a pull scans them whole.
    const std::vector<int> level = bfs_levels(a, hub);
    const int wide = static_cast<int>(at);
    Index futile = 0;
    for (Index v = 0; v < n; ++v) {
      if (level[v] >= 0 && level[v] <= wide + 1) continue;
      if (a.row_ptr[v + 1] - a.row_ptr[v] < hub_degree / 8) continue;
      bool meets = false;
      for (Offset p = a.row_ptr[v]; p < a.row_ptr[v + 1] && !meets; ++p) meets = level[a.col_idx[p]] == wide;
      futile += !meets;
    }
    EXPECT_GE(futile, 3) << spec << ": long rows a pull scans in vain at the widest level";
  }
}

// road: connected, sparse (mean degree ~2.5, most vertices of degree 1 or 2 or 3), and about as
// deep as the grid it thins (the detours and the diagonals about cancel).
TEST(Generators, Road) {
  for (auto [w, h] : {std::pair<Index, Index>{120, 80}, {1, 30}, {30, 1}, {1, 1}, {2, 2}}) {
    const std::string spec = "road:" + std::to_string(w) + ":" + std::to_string(h);
    const Matrix<bool> m = host(spec);
    const Arrays a = arrays(m);
    EXPECT_EQ(a.nrows, w * h) << spec;
    expect_clean(a, true);
    EXPECT_TRUE(symmetry_computed_afresh(m)) << spec;
    const std::vector<Index> L = level_sizes(a, 0);
    Index reached = 0;
    for (Index s : L) reached += s;
    EXPECT_EQ(reached, w * h) << spec << " is not connected";
    EXPECT_LE(max_of(out_degrees(a)), 6) << spec;
    // Every edge joins lattice neighbours or (x, y)-(x+1, y+1).
    for (Index v = 0; v < a.nrows; ++v)
      for (Offset p = a.row_ptr[v]; p < a.row_ptr[v + 1]; ++p) {
        const Index u = a.col_idx[p], dx = std::abs(u % w - v % w), dy = std::abs(u / w - v / w);
        ASSERT_TRUE((dx + dy == 1) || (dx == 1 && dy == 1 && (u - v) == (w + 1) * (u > v ? 1 : -1)))
            << spec << ": " << v << " - " << u;
      }
  }
  const Arrays a = arrays(host("road:120:80"));
  const double mean = static_cast<double>(a.col_idx.size()) / (120.0 * 80.0);
  EXPECT_GT(mean, 2.3);
  EXPECT_LT(mean, 2.7);
  const std::vector<Index> d = out_degrees(a);
  const auto low = std::count_if(d.begin(), d.end(), [](Index x) { return x <= 2; });
  EXPECT_GT(low, 120 * 80 / 2) << "vertices of degree 1 or 2";
  const Index src = max_degree_vertex(a);
  const Arrays g = arrays(host("grid:120:80"));
  const std::size_t road_levels = level_sizes(a, src).size(), grid_levels = level_sizes(g, src).size();
  EXPECT_GT(road_levels, grid_levels * 8 / 10);
  EXPECT_LT(road_levels, grid_levels * 3 / 2);
}

// Graph500's nedge: the drawn edges with both ends reached. Everything reached: every drawn edge;
// nothing: none; a search's component: at least its distinct undirected edges, at most all.
TEST(Generators, DrawnEdgesWithinAComponent) {
  for (const char* text : {"kron:10:16", "urand:10:8", "rmat:10:8"}) {
    SCOPED_TRACE(text);
    const gbcuda::GraphSpec spec = gbcuda::parse_graph_spec(text);
    const Index n = spec.vertices;
    EXPECT_EQ(gbcuda::count_drawn_edges_within(spec, std::vector<std::int32_t>(std::size_t(n), 0)), spec.edges_drawn());
    EXPECT_EQ(gbcuda::count_drawn_edges_within(spec, std::vector<std::int32_t>(std::size_t(n), -1)), 0);
    if (!spec.symmetric()) continue;
    const auto A = gbcuda::generate_graph(spec, gbcuda::Backend::Host);
    gbcuda::BfsOptions o;
    o.device = gbcuda::Device::Host;
    const auto r = gbcuda::bfs(A, 0, o);
    const Index within = gbcuda::count_drawn_edges_within(spec, r.level);
    EXPECT_GE(within, r.edges_traversed / 2);  // no self loops stored: each undirected edge twice
    EXPECT_LE(within, spec.edges_drawn());
    std::vector<std::int32_t> half(std::size_t(n), -1);
    for (Index v = 0; v < n / 2; ++v) half[std::size_t(v)] = 0;
    EXPECT_LT(gbcuda::count_drawn_edges_within(spec, half), spec.edges_drawn());
  }
  EXPECT_THROW(gbcuda::count_drawn_edges_within(gbcuda::parse_graph_spec("grid:4:4"), std::vector<std::int32_t>(16, 0)),
               gbcuda::Error);
  EXPECT_THROW(gbcuda::count_drawn_edges_within(gbcuda::parse_graph_spec("kron:4:4"), std::vector<std::int32_t>(3, 0)),
               gbcuda::Error);
}

TEST(Generators, DeterministicForASeed) {
  for (const char* spec :
       {"kron:10:8", "urand:10:8", "randout:500:6", "rmat:10:8", "powerlaw:3000:6", "web:5000", "road:40:30"}) {
    EXPECT_EQ(arrays(host(spec, 7)), arrays(host(spec, 7))) << spec;
    EXPECT_NE(arrays(host(spec, 7)), arrays(host(spec, 8))) << spec;
    EXPECT_EQ(arrays(host(spec)), arrays(host(spec, gbcuda::kDefaultGraphSeed))) << spec;
  }
}

TEST(Generators, IndependentOfThreadCount) {
  const int threads = omp_get_max_threads();
  for (const char* spec : {"kron:11:8", "urand:11:8", "randout:3000:5", "grid:33:17", "rmat:11:8", "powerlaw:3001:5",
                           "web:7777", "road:33:17"}) {
    omp_set_num_threads(1);
    const Arrays one = arrays(host(spec, 3));
    omp_set_num_threads(std::max(threads, 3));
    const Arrays many = arrays(host(spec, 3));
    omp_set_num_threads(threads);
    EXPECT_EQ(one, many) << spec;
  }
}

TEST(Generators, HostAndGpuIdentical) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: host vs GPU comparison needs one";
  for (const char* spec :
       {"kron:12:16", "urand:12:8", "grid:37:21", "randout:5000:8", "randout:64:64", "kron:1:4", "urand:1:1",
        "grid:1:1", "rmat:12:16", "rmat:9:4:0.25:0.25:0.25", "rmat:1:2", "powerlaw:5000:8", "powerlaw:777:3:1",
        "powerlaw:1:1", "web:20000", "web:1000", "road:37:21", "road:1:1", "road:1:9"}) {
    for (std::uint64_t seed : {std::uint64_t{1}, gbcuda::kDefaultGraphSeed}) {
      const Matrix<bool> g = gbcuda::generate_graph(spec, Backend::Cuda, seed);
      EXPECT_EQ(g.csr(Backend::Cuda).where(), Backend::Cuda);
      EXPECT_EQ(arrays(g), arrays(host(spec, seed))) << spec << " seed " << seed;
    }
  }
}

// Sets an environment variable for one scope, restoring what was there before.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The GPU build in row groups (forced by GBCUDA_GENERATOR_WORKING_BYTES) gives the same CSR as
// the one-pass build and the host. With 1 byte every group holds one non-empty row bucket (one
// row, at these sizes); with 64 KiB the larger graphs take tens of groups and keep their columns
// in the array sized for every key (shrunk); with 1 MiB they take one to four groups and their
// columns are copied into an array of the exact size.
TEST(Generators, GpuRowGroupsMatchOnePass) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the GPU builder needs one";
  for (const char* spec : {"kron:12:16", "urand:12:8", "rmat:12:8", "rmat:9:4:0.25:0.25:0.25", "powerlaw:5000:8",
                           "web:5000", "road:37:21", "kron:1:4", "urand:1:1", "powerlaw:1:1", "road:1:1"}) {
    for (std::uint64_t seed : {std::uint64_t{1}, gbcuda::kDefaultGraphSeed}) {
      const Arrays expected = arrays(host(spec, seed));
      EXPECT_EQ(arrays(gbcuda::generate_graph(spec, Backend::Cuda, seed)), expected) << spec << " seed " << seed;
      for (const char* budget : {"1", "64K", "1M"}) {
        const ScopedEnv env("GBCUDA_GENERATOR_WORKING_BYTES", budget);
        const Matrix<bool> g = gbcuda::generate_graph(spec, Backend::Cuda, seed);
        EXPECT_EQ(g.csr(Backend::Cuda).where(), Backend::Cuda);
        EXPECT_EQ(arrays(g), expected) << spec << " seed " << seed << " working bytes " << budget;
      }
    }
  }
}

// GBCUDA_GENERATOR_WORKING_BYTES: a positive count of bytes, with an optional K, M or G.
TEST(Generators, GpuWorkingBytesMustBeAByteCount) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device: the GPU builder needs one";
  for (const char* bad : {"0", "12x", "-5", "1.5G", "K", "99999999999999999999"}) {
    const ScopedEnv env("GBCUDA_GENERATOR_WORKING_BYTES", bad);
    try {
      gbcuda::generate_graph("kron:6:4", Backend::Cuda);
      ADD_FAILURE() << bad << ": no throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::InvalidValue) << bad;
      EXPECT_NE(std::string(e.what()).find("GBCUDA_GENERATOR_WORKING_BYTES"), std::string::npos) << e.what();
    }
  }
  const ScopedEnv env("GBCUDA_GENERATOR_WORKING_BYTES", "8k");
  EXPECT_EQ(arrays(gbcuda::generate_graph("kron:6:4", Backend::Cuda)), arrays(host("kron:6:4")));
}

TEST(Generators, GpuOutOfMemoryIsReportedBeforehand) {
  if (!gbcuda::cuda_available()) GTEST_SKIP() << "no CUDA device";
  try {
    gbcuda::generate_graph("urand:30:1000", Backend::Cuda);  // ~32 TB of keys
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("GiB free"), std::string::npos) << e.what();
  }
}

TEST(Generators, CudaWithoutGpu) {
  if (gbcuda::cuda_available()) GTEST_SKIP() << "a GPU is present";
  try {
    gbcuda::generate_graph("grid:3:3", Backend::Cuda);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::NoDevice);
  }
}

// ---- the binary graph file -------------------------------------------------------------------

class BinaryFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "gbcuda_test_gen_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  template <class T>
  static void expect_read_error(const std::string& file, Status status, const std::vector<std::string>& parts) {
    try {
      gbcuda::read_binary_graph<T>(file);
      ADD_FAILURE() << "reading " << file << " did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), status) << e.what();
      for (const auto& p : parts)
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
    }
  }
  static std::string bytes_of(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void put(const std::string& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }
  fs::path dir_;
};

TEST_F(BinaryFile, RoundTripPattern) {
  const Matrix<bool> m = host("kron:9:8");
  const std::string f = path("kron.gbc");
  gbcuda::write_binary_graph(f, m);
  EXPECT_EQ(fs::file_size(f), 64 + (m.nrows() + 1) * 8 + m.nvals() * 4);
  const Matrix<bool> r = gbcuda::read_binary_graph<bool>(f);
  EXPECT_TRUE(r.is_iso());
  EXPECT_EQ(arrays(r), arrays(m));
  // A generated undirected graph knows it is symmetric, and so does what is read back; a directed
  // one is not known to be, and the flag stays clear.
  EXPECT_EQ(r.known_symmetric_structure(), std::optional<bool>(true));
  const Matrix<bool> directed = host("randout:300:4");
  ASSERT_FALSE(directed.known_symmetric_structure().has_value());
  gbcuda::write_binary_graph(path("randout.gbc"), directed);
  EXPECT_FALSE(gbcuda::read_binary_graph<bool>(path("randout.gbc")).known_symmetric_structure().has_value());
  std::string bytes = bytes_of(path("randout.gbc"));
  EXPECT_EQ(bytes[12] & 4, 0);
  // Through the generic entry points, by name and by content.
  EXPECT_EQ(gbcuda::detect_format(f), FileFormat::Binary);
  EXPECT_EQ(arrays(gbcuda::read_matrix<bool>(f)), arrays(m));
  const std::string renamed = path("kron.bin");
  fs::copy_file(f, renamed);
  EXPECT_EQ(gbcuda::detect_format(renamed), FileFormat::Binary);
  EXPECT_EQ(arrays(gbcuda::read_matrix<bool>(renamed)), arrays(m));
  gbcuda::ReadOptions o;
  o.format = gbcuda::parse_format("gbc");
  EXPECT_EQ(arrays(gbcuda::read_matrix<bool>(renamed, o)), arrays(m));
  const gbcuda::CooData coo = gbcuda::read_coo(f);
  EXPECT_EQ(coo.format, FileFormat::Binary);
  EXPECT_EQ(static_cast<Index>(coo.rows.size()), m.nvals());
  EXPECT_TRUE(coo.values.empty());
  EXPECT_EQ(arrays(gbcuda::matrix_from_coo<bool>(coo)), arrays(m));
}

// serialize / deserialize: the file's bytes in memory, read back with the file's checks.
TEST_F(BinaryFile, SerializeToMemory) {
  const std::vector<Index> rows{0, 0, 1, 3, 3, 2};
  const std::vector<Index> cols{1, 4, 0, 2, 3, 4};
  const std::vector<double> vals{1.5, -2.0, 3.25, 1e300, 0.0, -7.125};
  const Matrix<double> m = Matrix<double>::from_coo(4, 5, rows, cols, vals);
  const std::vector<char> bytes = gbcuda::serialize(m);
  gbcuda::write_binary_graph(path("same.gbc"), m);
  std::ifstream in(path("same.gbc"), std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, file);  // the same image as the file
  const Matrix<double> r = gbcuda::deserialize<double>(bytes);
  EXPECT_EQ(arrays(r), arrays(m));
  EXPECT_EQ(r.csr().values.to_vector(), m.csr().values.to_vector());
  EXPECT_EQ(gbcuda::deserialize<float>(bytes).csr().values.to_vector()[0], 1.5f);  // converted
  const Matrix<bool> p = gbcuda::deserialize<bool>(gbcuda::serialize(gbtest_pattern()));
  EXPECT_TRUE(p.is_iso());
  // Truncated, corrupted or foreign bytes are ParseErrors naming "deserialize".
  auto parse_error = [](std::span<const char> b) {
    try {
      (void)gbcuda::deserialize<double>(b);
    } catch (const Error& e) {
      return e.status() == Status::ParseError && std::string(e.what()).find("deserialize") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(parse_error(std::span<const char>(bytes.data(), bytes.size() - 3)));
  std::vector<char> bad = bytes;
  bad[20] ^= 0x40;  // inside the header: the checksum no longer matches
  EXPECT_TRUE(parse_error(bad));
  const std::string text = "1 2\n";
  EXPECT_TRUE(parse_error(std::span<const char>(text.data(), text.size())));
  EXPECT_TRUE(parse_error({}));
}

TEST_F(BinaryFile, RoundTripValues) {
  const std::vector<Index> rows{0, 0, 1, 3, 3, 2};
  const std::vector<Index> cols{1, 4, 0, 2, 3, 4};
  const std::vector<double> vals{1.5, -2.0, 3.25, 1e300, 0.0, -7.125};
  const Matrix<double> m = Matrix<double>::from_coo(4, 5, rows, cols, vals);
  const std::string f = path("values.gbc");
  gbcuda::write_binary_graph(f, m);
  const Matrix<double> r = gbcuda::read_binary_graph<double>(f);
  EXPECT_FALSE(r.is_iso());
  EXPECT_EQ(r.nrows(), 4);
  EXPECT_EQ(r.ncols(), 5);
  EXPECT_EQ(arrays(r), arrays(m));
  EXPECT_EQ(r.csr().values.to_vector(), m.csr().values.to_vector());
  // Other value types convert; bool keeps the structure only.
  const Matrix<float> rf = gbcuda::read_binary_graph<float>(f);
  EXPECT_EQ(rf.csr().values.to_vector()[0], 1.5f);
  const Matrix<bool> rb = gbcuda::read_binary_graph<bool>(f);
  EXPECT_TRUE(rb.is_iso());
  EXPECT_EQ(arrays(rb), arrays(m));
  const gbcuda::CooData coo = gbcuda::read_coo(f);
  ASSERT_EQ(coo.values.size(), 6u);
  EXPECT_EQ(coo.values[0], 1.5);  // row 0 col 1

  // int64 values and an empty matrix.
  const std::vector<std::int64_t> ivals{1, -2, 3, std::int64_t(1) << 40, 5, 6};
  const Matrix<std::int64_t> mi = Matrix<std::int64_t>::from_coo(4, 5, rows, cols, ivals);
  gbcuda::write_binary_graph(path("int.gbc"), mi);
  const Matrix<std::int64_t> ri = gbcuda::read_binary_graph<std::int64_t>(path("int.gbc"));
  EXPECT_EQ(ri.csr().values.to_vector(), mi.csr().values.to_vector());
  const Matrix<std::int32_t> empty;
  gbcuda::write_binary_graph(path("empty.gbc"), empty);
  const Matrix<std::int32_t> re = gbcuda::read_binary_graph<std::int32_t>(path("empty.gbc"));
  EXPECT_EQ(re.nrows(), 0);
  EXPECT_EQ(re.nvals(), 0);
}

TEST_F(BinaryFile, TruncatedFile) {
  const std::string f = path("t.gbc");
  gbcuda::write_binary_graph(f, host("grid:10:10"));
  const std::string all = bytes_of(f);
  put(f, all.substr(0, all.size() - 5));
  expect_read_error<bool>(f, Status::ParseError, {f, "truncated"});
  put(f, all.substr(0, 40));
  expect_read_error<bool>(f, Status::ParseError, {f, "truncated", "header"});
  put(f, all + "xyz");
  expect_read_error<bool>(f, Status::ParseError, {f, "unexpected bytes"});
}

TEST_F(BinaryFile, BadMagicAndCorruption) {
  const std::string f = path("bad.gbc");
  put(f, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
  expect_read_error<bool>(f, Status::ParseError, {f, "bad magic"});
  EXPECT_THROW(gbcuda::read_matrix<bool>(f), Error);  // named .gbc: read as binary, not as text
  put(f, "GB");
  expect_read_error<bool>(f, Status::ParseError, {f, "bad magic"});

  gbcuda::write_binary_graph(f, host("grid:4:4"));
  const std::string good = bytes_of(f);
  std::string s = good;
  s[20] ^= 1;  // nrows: the header checksum catches it
  put(f, s);
  expect_read_error<bool>(f, Status::ParseError, {f, "checksum"});
  s = good;
  s[64 + 17 * 8 + 4 * 3] = 100;  // a column index out of range
  put(f, s);
  expect_read_error<bool>(f, Status::ParseError, {f, "corrupt data", "column index 100"});
  s = good;
  s[64 + 8 * 3] = 1;  // row_ptr[3] lowered below row_ptr[2]
  put(f, s);
  expect_read_error<bool>(f, Status::ParseError, {f, "corrupt data"});
  expect_read_error<bool>(path("missing.gbc"), Status::IoError, {"missing.gbc"});
  // A symmetric structure that is not square, with a checksum that matches: corrupt.
  gbcuda::write_binary_graph(f, Matrix<bool>::from_coo(4, 5, std::vector<Index>{0, 3}, std::vector<Index>{4, 1}));
  s = bytes_of(f);
  s[12] = char(s[12] | 4);
  std::uint64_t h = 0xcbf29ce484222325ULL;  // the header's FNV-1a over its first 56 bytes
  for (int i = 0; i < 56; ++i) h = (h ^ static_cast<unsigned char>(s[std::size_t(i)])) * 0x100000001b3ULL;
  std::memcpy(s.data() + 56, &h, sizeof h);
  put(f, s);
  expect_read_error<bool>(f, Status::ParseError, {f, "symmetric structure of 4 x 5"});
}

TEST_F(BinaryFile, AtomicWriteLeavesNothingOnFailure) {
  const Matrix<bool> m = host("grid:8:8");
  // The target is a directory: the rename fails, the temporary is removed.
  fs::create_directory(path("taken.gbc"));
  try {
    gbcuda::write_binary_graph(path("taken.gbc"), m);
    ADD_FAILURE() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::IoError);
    EXPECT_NE(std::string(e.what()).find("taken.gbc"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"taken.gbc"});
  EXPECT_TRUE(fs::is_directory(path("taken.gbc")));
  // A missing directory.
  EXPECT_THROW(gbcuda::write_binary_graph(path("no/such/dir.gbc"), m), Error);
  EXPECT_EQ(entries(), std::vector<std::string>{"taken.gbc"});
  // Overwriting a good file replaces it whole.
  const std::string f = path("g.gbc");
  gbcuda::write_binary_graph(f, host("grid:3:3"));
  gbcuda::write_binary_graph(f, m);
  EXPECT_EQ(arrays(gbcuda::read_binary_graph<bool>(f)), arrays(m));
  EXPECT_EQ(entries(), (std::vector<std::string>{"g.gbc", "taken.gbc"}));
}

TEST(BinaryFormatName, ParseAndPrint) {
  EXPECT_EQ(gbcuda::parse_format("gbc"), FileFormat::Binary);
  EXPECT_STREQ(gbcuda::to_string(FileFormat::Binary), "gbc");
}

}  // namespace
