// Graph generators: spec parsing and the host (OpenMP) builders. The GPU builders are in
// generators_cuda.cu; which edges a graph has is decided in generator_core.hpp for both.
#include "gbcuda/generators.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <vector>

#include "gbcuda/context.hpp"
#include "generators/generator_core.hpp"

namespace gbcuda {
namespace {

constexpr Index kMaxVertices = std::numeric_limits<Vid>::max();  // 32-bit column indices
constexpr int kMaxScale = 30;                                    // 2^31 would exceed kMaxVertices
constexpr Index kMaxEdgesDrawn = Index(1) << 40;

[[noreturn]] void bad_spec(const std::string& text, const std::string& why) {
  throw Error(Status::InvalidValue,
              "bad graph spec '" + text + "': " + why +
                  " (expected kron:SCALE:EDGEFACTOR, urand:SCALE:DEGREE, grid:WIDTH:HEIGHT, "
                  "randout:VERTICES:DEGREE, rmat:SCALE:EDGEFACTOR[:A:B:C], "
                  "powerlaw:VERTICES:DEGREE[:K], web:VERTICES or road:WIDTH:HEIGHT, e.g. kron:22:16)");
}

// A non-negative integer written as digits ("100000000") or with an exponent ("1e8", "2.5e6").
Index parse_count(const std::string& text, std::string_view field, const char* what) {
  if (field.empty()) bad_spec(text, std::string(what) + " is missing");
  Index v = 0;
  auto r = std::from_chars(field.data(), field.data() + field.size(), v);
  if (r.ec == std::errc() && r.ptr == field.data() + field.size()) {
    if (v < 0) bad_spec(text, std::string(what) + " must not be negative");
    return v;
  }
  double d = 0;
  auto rd = std::from_chars(field.data(), field.data() + field.size(), d);
  const bool digits_first = field[0] >= '0' && field[0] <= '9';
  if (!digits_first || rd.ec != std::errc() || rd.ptr != field.data() + field.size() || !std::isfinite(d))
    bad_spec(text, std::string(what) + " '" + std::string(field) + "' is not a number");
  if (d != std::floor(d)) bad_spec(text, std::string(what) + " '" + std::string(field) + "' is not a whole number");
  if (d > 9.0e15) bad_spec(text, std::string(what) + " '" + std::string(field) + "' is too large");
  return static_cast<Index>(d);
}

// A probability in [0, 1] written as a decimal ("0.55", ".1", "1e-2").
double parse_probability(const std::string& text, std::string_view field, const char* what) {
  if (field.empty()) bad_spec(text, std::string(what) + " is missing");
  double d = 0;
  const char* first = field.data() + (field[0] == '+' ? 1 : 0);
  auto r = std::from_chars(first, field.data() + field.size(), d);
  if (r.ec != std::errc() || r.ptr != field.data() + field.size() || !std::isfinite(d))
    bad_spec(text, std::string(what) + " '" + std::string(field) + "' is not a number");
  if (d < 0 || d > 1) bad_spec(text, std::string(what) + " '" + std::string(field) + "' is not in [0, 1]");
  return d;
}

// The shortest decimal that reads back as `d`.
std::string shortest(double d) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

bool stderr_is_terminal() {
  static const bool tty = ::isatty(2) == 1;
  return tty;
}

bool show_progress(const GraphSpec& spec) { return spec.edges_drawn() >= (Index(1) << 24) && stderr_is_terminal(); }

// Exclusive scan in place of a[0..n] where a[0] = 0 and a[i+1] holds the count of item i:
// afterwards a[i] is where item i starts and a[n] the total. Parallel over thread chunks.
void counts_to_offsets(Offset* a, Index n) {
  const Index len = n + 1;
  if (len < (Index(1) << 16)) {
    for (Index i = 1; i < len; ++i) a[i] += a[i - 1];
    return;
  }
  const int nt = omp_get_max_threads();
  std::vector<Offset> part(static_cast<std::size_t>(nt) + 1, 0);
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    const int team = omp_get_num_threads();
    const Index lo = len * t / team, hi = len * (t + 1) / team;
    Offset s = 0;
    for (Index i = lo; i < hi; ++i) s += a[i];
    part[static_cast<std::size_t>(t) + 1] = s;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= team; ++k) part[static_cast<std::size_t>(k)] += part[static_cast<std::size_t>(k) - 1];
    Offset run = part[static_cast<std::size_t>(t)];
    for (Index i = lo; i < hi; ++i) {
      run += a[i];
      a[i] = run;
    }
  }
}

Csr<bool> empty_pattern(Index n) {
  Csr<bool> c;
  c.nrows = c.ncols = n;
  c.iso_value = true;
  return c;
}

// Every kind but grid and randout: m edge draws -> the edges (both directions when `symmetric`,
// else u -> v only), without self loops (a generator drops a draw by returning one), sorted and
// deduplicated. No atomics (they serialize the cache misses of a random scatter):
//  1. each thread draws a fixed slice of the edges into `drawn` and counts them per bucket of
//     rows (the high bits of the row id);
//  2. each thread scatters its slice into `pairs`, bucket by bucket, at offsets known from the
//     counts of step 1 (a radix partition, so writes go to few streams);
//  3. per bucket (in parallel): a counting sort by row inside the bucket's own range, then a
//     sort and unique within each row;
//  4. the kept rows are packed into the final column array.
// The order inside a row before its sort depends on the thread count; the result does not.
template <class EdgeFn>
Csr<bool> csr_from_draws(const GraphSpec& spec, const EdgeFn& edge, Index m, bool symmetric) {
  const Index n = spec.vertices;
  const int bits = gen::id_bits(n);
  const int bucket_bits = std::min(bits, 10);
  const int row_shift = bits - bucket_bits;  // bucket of row r = r >> row_shift
  const Index rows_per_bucket = Index(1) << row_shift;
  const Index nb = (n + rows_per_bucket - 1) / rows_per_bucket;

  // 1. Draw and count per (thread, bucket).
  gen::progress(spec, Backend::Host, "drawing edges");
  detail::Array<gen::Edge> drawn(static_cast<std::size_t>(m), Backend::Host);
  const int max_threads = omp_get_max_threads();
  std::vector<Offset> hist(static_cast<std::size_t>(max_threads) * static_cast<std::size_t>(nb), 0);
  int team = 1;
#pragma omp parallel num_threads(max_threads)
  {
    const int t = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    Offset* h = hist.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(nb);
    const Index lo = m * t / team, hi = m * (t + 1) / team;
    for (Index k = lo; k < hi; ++k) {
      const gen::Edge e = edge(static_cast<std::uint64_t>(k));
      drawn[static_cast<std::size_t>(k)] = e;
      if (e.u == e.v) continue;
      ++h[e.u >> row_shift];
      if (symmetric) ++h[e.v >> row_shift];
    }
  }
  // Bucket b's slice of thread t starts after every bucket < b and, in b, after threads < t.
  std::vector<Offset> bucket_start(static_cast<std::size_t>(nb) + 1, 0);
  std::vector<Offset> cursor(hist.size(), 0);
  {
    Offset run = 0;
    for (Index b = 0; b < nb; ++b) {
      bucket_start[static_cast<std::size_t>(b)] = run;
      for (int t = 0; t < team; ++t) {
        const std::size_t at = static_cast<std::size_t>(t) * static_cast<std::size_t>(nb) + static_cast<std::size_t>(b);
        cursor[at] = run;
        run += hist[at];
      }
    }
    bucket_start[static_cast<std::size_t>(nb)] = run;
  }
  const Offset total = bucket_start[static_cast<std::size_t>(nb)];

  // 2. Scatter into the buckets: row in the high half, column in the low half.
  gen::progress(spec, Backend::Host, "partitioning");
  detail::Array<std::uint64_t> pairs(static_cast<std::size_t>(total), Backend::Host);
#pragma omp parallel num_threads(team)
  {
    // Slices as in step 1, whatever team this region got.
    for (int t = omp_get_thread_num(); t < team; t += omp_get_num_threads()) {
      Offset* cur = cursor.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(nb);
      const Index lo = m * t / team, hi = m * (t + 1) / team;
      for (Index k = lo; k < hi; ++k) {
        const gen::Edge e = drawn[static_cast<std::size_t>(k)];
        if (e.u == e.v) continue;
        pairs[static_cast<std::size_t>(cur[e.u >> row_shift]++)] = (std::uint64_t(e.u) << 32) | e.v;
        if (symmetric) pairs[static_cast<std::size_t>(cur[e.v >> row_shift]++)] = (std::uint64_t(e.v) << 32) | e.u;
      }
    }
  }
  drawn.reset();

  // 3. Per bucket: rows in order, then each row sorted and deduplicated in place. start[i] is
  // where row i begins in `buf`; rp[i + 1] how many distinct columns it keeps.
  gen::progress(spec, Backend::Host, "sorting rows");
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = detail::Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Host);
  detail::Array<Offset> start(static_cast<std::size_t>(n) + 1, Backend::Host);
  detail::Array<Vid> buf(static_cast<std::size_t>(total), Backend::Host);
  Offset* rp = c.row_ptr.data();
  Offset* st = start.data();
  rp[0] = 0;
  st[n] = total;
#pragma omp parallel
  {
    std::vector<Offset> local(static_cast<std::size_t>(rows_per_bucket) + 1);
#pragma omp for schedule(dynamic, 1)
    for (Index b = 0; b < nb; ++b) {
      const Offset lo = bucket_start[static_cast<std::size_t>(b)], hi = bucket_start[static_cast<std::size_t>(b) + 1];
      const Index row0 = b << row_shift;
      const Index rows = std::min(rows_per_bucket, n - row0);  // the last bucket may be short
      std::fill(local.begin(), local.end(), Offset{0});
      for (Offset p = lo; p < hi; ++p)
        ++local[static_cast<std::size_t>((pairs[static_cast<std::size_t>(p)] >> 32) - row0) + 1];
      for (Index r = 0; r < rows; ++r) {
        local[static_cast<std::size_t>(r) + 1] += local[static_cast<std::size_t>(r)];
        st[row0 + r] = lo + local[static_cast<std::size_t>(r)];
      }
      for (Offset p = lo; p < hi; ++p) {
        const std::uint64_t x = pairs[static_cast<std::size_t>(p)];
        buf[static_cast<std::size_t>(lo + local[static_cast<std::size_t>((x >> 32) - row0)]++)] =
            static_cast<Vid>(x & 0xffffffffULL);
      }
      for (Index r = row0; r < row0 + rows; ++r) {
        Vid* first = buf.data() + st[r];
        Vid* last = buf.data() + (r + 1 < row0 + rows ? st[r + 1] : hi);
        std::sort(first, last);
        rp[r + 1] = std::unique(first, last) - first;
      }
    }
  }
  pairs.reset();
  counts_to_offsets(rp, n);

  // 4. Pack.
  c.col_idx = detail::Array<Vid>(static_cast<std::size_t>(rp[n]), Backend::Host);
  Vid* col = c.col_idx.data();
#pragma omp parallel for schedule(dynamic, 1024)
  for (Index i = 0; i < n; ++i) std::copy(buf.data() + st[i], buf.data() + st[i] + (rp[i + 1] - rp[i]), col + rp[i]);
  return c;
}

Csr<bool> grid_host(const GraphSpec& spec) {
  const Index w = spec.width, h = spec.height, n = spec.vertices;
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = detail::Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Host);
  Offset* rp = c.row_ptr.data();
  rp[0] = 0;
#pragma omp parallel for schedule(static)
  for (Index v = 0; v < n; ++v) rp[v + 1] = gen::grid_degree(w, h, v % w, v / w);
  counts_to_offsets(rp, n);
  c.col_idx = detail::Array<Vid>(static_cast<std::size_t>(rp[n]), Backend::Host);
  Vid* col = c.col_idx.data();
#pragma omp parallel for schedule(static)
  for (Index v = 0; v < n; ++v) gen::grid_row(w, h, v, col + rp[v]);
  return c;
}

Csr<bool> randout_host(const GraphSpec& spec, std::uint64_t seed) {
  const Index n = spec.vertices, d = spec.degree;
  Csr<bool> c = empty_pattern(n);
  c.row_ptr = detail::Array<Offset>(static_cast<std::size_t>(n) + 1, Backend::Host);
  c.col_idx = detail::Array<Vid>(static_cast<std::size_t>(n * d), Backend::Host);
  Offset* rp = c.row_ptr.data();
  Vid* col = c.col_idx.data();
  const gen::RandOutRow row{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(d),
                            gen::stream_key(seed, gen::kRandOut)};
#pragma omp parallel for schedule(dynamic, 4096)
  for (Index i = 0; i <= n; ++i) {
    rp[i] = i * d;
    if (i < n) row(static_cast<std::uint64_t>(i), col + i * d);
  }
  return c;
}

}  // namespace

namespace gen {

void progress(const GraphSpec& spec, Backend where, const char* phase) {
  if (!show_progress(spec)) return;
  std::fprintf(stderr, "\rgenerating %s (%s): %-36s", spec.text().c_str(), to_string(where), phase);
  std::fflush(stderr);
}

void progress_done(const GraphSpec& spec, Backend where) {
  if (!show_progress(spec)) return;
  std::fprintf(stderr, "\rgenerating %s (%s): %-36s\n", spec.text().c_str(), to_string(where), "done");
}

}  // namespace gen

Index GraphSpec::edges_drawn() const {
  switch (kind) {
    case Kind::Kron:
    case Kind::Urand: return edge_factor << scale;
    case Kind::Grid: return 2 * (width - 1) * height + 2 * width * (height - 1);
    case Kind::RandOut: return vertices * degree;
    case Kind::RMat: return edge_factor << scale;
    case Kind::PowerLaw: return vertices * degree;
    case Kind::Web:  // the layout needs kMinVertices (parse_graph_spec checks it)
      return vertices < static_cast<Index>(gen::WebEdges::kMinVertices)
                 ? 0
                 : static_cast<Index>(gen::WebEdges(*this, 0).draws());
    case Kind::Road: return 3 * width * height;
  }
  return 0;
}

bool GraphSpec::symmetric() const { return kind != Kind::RandOut && kind != Kind::RMat && kind != Kind::PowerLaw; }

std::string GraphSpec::text() const {
  switch (kind) {
    case Kind::Kron: return "kron:" + std::to_string(scale) + ":" + std::to_string(edge_factor);
    case Kind::Urand: return "urand:" + std::to_string(scale) + ":" + std::to_string(edge_factor);
    case Kind::Grid: return "grid:" + std::to_string(width) + ":" + std::to_string(height);
    case Kind::RandOut: return "randout:" + std::to_string(vertices) + ":" + std::to_string(degree);
    case Kind::RMat:
      return "rmat:" + std::to_string(scale) + ":" + std::to_string(edge_factor) + ":" + shortest(rmat_a) + ":" +
             shortest(rmat_b) + ":" + shortest(rmat_c);
    case Kind::PowerLaw:
      return "powerlaw:" + std::to_string(vertices) + ":" + std::to_string(degree) + ":" + std::to_string(exponent);
    case Kind::Web: return "web:" + std::to_string(vertices);
    case Kind::Road: return "road:" + std::to_string(width) + ":" + std::to_string(height);
  }
  return "?";
}

bool is_graph_spec(const std::string& text) {
  for (std::string_view prefix : {"kron:", "urand:", "grid:", "randout:", "rmat:", "powerlaw:", "web:", "road:"})
    if (std::string_view(text).substr(0, prefix.size()) == prefix) return true;
  return false;
}

GraphSpec parse_graph_spec(const std::string& text) {
  std::vector<std::string_view> f;
  std::string_view rest(text);
  for (;;) {
    const std::size_t colon = rest.find(':');
    f.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  GraphSpec s;
  const std::string_view kind = f[0];
  if (kind == "kron") s.kind = GraphSpec::Kind::Kron;
  else if (kind == "urand") s.kind = GraphSpec::Kind::Urand;
  else if (kind == "grid") s.kind = GraphSpec::Kind::Grid;
  else if (kind == "randout") s.kind = GraphSpec::Kind::RandOut;
  else if (kind == "rmat") s.kind = GraphSpec::Kind::RMat;
  else if (kind == "powerlaw") s.kind = GraphSpec::Kind::PowerLaw;
  else if (kind == "web") s.kind = GraphSpec::Kind::Web;
  else if (kind == "road") s.kind = GraphSpec::Kind::Road;
  else bad_spec(text, "unknown generator '" + std::string(kind) + "'");
  const std::size_t given = f.size() - 1;
  const auto fields = [&](std::size_t a, std::size_t b, const char* takes) {
    if (given != a && given != b)
      bad_spec(text, std::string(kind) + " takes " + takes + ", " + std::to_string(given) + " given");
  };
  switch (s.kind) {
    case GraphSpec::Kind::RMat: fields(2, 5, "two numbers or five"); break;
    case GraphSpec::Kind::PowerLaw: fields(2, 3, "two numbers or three"); break;
    case GraphSpec::Kind::Web: fields(1, 1, "one number"); break;
    default: fields(2, 2, "two numbers"); break;
  }
  // randout:N:D and powerlaw:N:D[:K]: the vertex count and the degree, each at least 1.
  const auto vertices_and_degree = [&] {
    s.vertices = parse_count(text, f[1], "vertex count");
    s.degree = parse_count(text, f[2], "degree");
    if (s.vertices < 1) bad_spec(text, "the vertex count must be at least 1");
    if (s.vertices > kMaxVertices) bad_spec(text, "more than 2^31-1 vertices (32-bit vertex ids)");
    if (s.degree < 1) bad_spec(text, "the degree must be at least 1");
  };

  switch (s.kind) {
    case GraphSpec::Kind::Kron:
    case GraphSpec::Kind::Urand:
    case GraphSpec::Kind::RMat: {
      const Index scale = parse_count(text, f[1], "scale");
      const Index ef = parse_count(text, f[2], s.kind == GraphSpec::Kind::Kron ? "edge factor" : "degree");
      if (scale < 1) bad_spec(text, "scale must be at least 1");
      if (scale > kMaxScale)
        bad_spec(text, "scale " + std::to_string(scale) + " is too large: 2^" + std::to_string(scale) +
                           " vertices do not fit 32-bit vertex ids (scale <= " + std::to_string(kMaxScale) + ")");
      if (ef < 1) bad_spec(text, "the edge factor must be at least 1");
      if (ef > (kMaxEdgesDrawn >> scale)) bad_spec(text, "more than 2^40 edges");
      s.scale = static_cast<int>(scale);
      s.edge_factor = ef;
      s.vertices = Index(1) << scale;
      if (s.kind == GraphSpec::Kind::RMat && given == 5) {
        s.rmat_a = parse_probability(text, f[3], "A");
        s.rmat_b = parse_probability(text, f[4], "B");
        s.rmat_c = parse_probability(text, f[5], "C");
        if (s.rmat_a + s.rmat_b + s.rmat_c > 1.0 + 1e-9) bad_spec(text, "A + B + C exceeds 1 (D = 1 - A - B - C)");
      }
      break;
    }
    case GraphSpec::Kind::Grid:
    case GraphSpec::Kind::Road: {
      s.width = parse_count(text, f[1], "width");
      s.height = parse_count(text, f[2], "height");
      if (s.width < 1 || s.height < 1) bad_spec(text, "width and height must be at least 1");
      if (s.width > kMaxVertices || s.height > kMaxVertices / s.width)
        bad_spec(text, "more than 2^31-1 vertices (32-bit vertex ids)");
      s.vertices = s.width * s.height;
      break;
    }
    case GraphSpec::Kind::RandOut: {
      vertices_and_degree();
      if (s.degree > s.vertices)
        bad_spec(text, "degree " + std::to_string(s.degree) +
                           " exceeds the vertex count: no row can have that many distinct out-edges");
      if (s.degree > kMaxEdgesDrawn / s.vertices) bad_spec(text, "more than 2^40 edges");
      break;
    }
    case GraphSpec::Kind::PowerLaw: {
      vertices_and_degree();
      if (s.degree > kMaxEdgesDrawn / s.vertices) bad_spec(text, "more than 2^40 edges");
      if (given == 3) {
        const Index k = parse_count(text, f[3], "exponent K");
        if (k < 1 || k > 8) bad_spec(text, "the exponent K must be 1..8");
        s.exponent = static_cast<int>(k);
      }
      break;
    }
    case GraphSpec::Kind::Web: {
      s.vertices = parse_count(text, f[1], "vertex count");
      if (s.vertices < static_cast<Index>(gen::WebEdges::kMinVertices))
        bad_spec(text, "web needs at least " + std::to_string(gen::WebEdges::kMinVertices) + " vertices");
      if (s.vertices > kMaxVertices) bad_spec(text, "more than 2^31-1 vertices (32-bit vertex ids)");
      break;
    }
  }
  return s;
}

namespace {
template <class EdgeFn>
Index count_drawn_within(const EdgeFn& edge, Index m, const std::vector<std::int32_t>& level) {
  Index count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
  for (Index k = 0; k < m; ++k) {
    const gen::Edge e = edge(std::uint64_t(k));
    count += level[e.u] >= 0 && level[e.v] >= 0;
  }
  return count;
}
}  // namespace

Index count_drawn_edges_within(const GraphSpec& given, const std::vector<std::int32_t>& level, std::uint64_t seed) {
  const GraphSpec spec = parse_graph_spec(given.text());
  if (Index(level.size()) != spec.vertices)
    throw Error(Status::InvalidValue, "count_drawn_edges_within: " + std::to_string(level.size()) + " levels for " +
                                          spec.text() + "'s " + std::to_string(spec.vertices) + " vertices");
  switch (spec.kind) {
    case GraphSpec::Kind::Kron:
      return count_drawn_within(gen::RMatEdges::kron(spec.scale, seed), spec.edges_drawn(), level);
    case GraphSpec::Kind::Urand:
      return count_drawn_within(gen::UrandEdges(spec.scale, seed), spec.edges_drawn(), level);
    case GraphSpec::Kind::RMat: return count_drawn_within(gen::RMatEdges::rmat(spec, seed), spec.edges_drawn(), level);
    default:
      throw Error(Status::InvalidValue, "count_drawn_edges_within: " + spec.text() +
                                            " does not draw its edges independently (kron, urand, rmat do)");
  }
}

Matrix<bool> generate_graph(const GraphSpec& given, Backend where, std::uint64_t seed) {
  const GraphSpec spec = parse_graph_spec(given.text());  // checks a hand-made spec too
  if (where == Backend::Cuda) {
    resolve_device(Device::Cuda);  // Error(NoDevice) without a GPU or without the CUDA backend
#if GBCUDA_HAVE_CUDA
    Matrix<bool> m = gen::generate_cuda(spec, seed);
    gen::progress_done(spec, where);
    return m;
#endif
  }
  Csr<bool> c;
  switch (spec.kind) {
    case GraphSpec::Kind::Kron:
      c = csr_from_draws(spec, gen::RMatEdges::kron(spec.scale, seed), spec.edges_drawn(), true);
      break;
    case GraphSpec::Kind::Urand:
      c = csr_from_draws(spec, gen::UrandEdges(spec.scale, seed), spec.edges_drawn(), true);
      break;
    case GraphSpec::Kind::Grid: c = grid_host(spec); break;
    case GraphSpec::Kind::RandOut: c = randout_host(spec, seed); break;
    case GraphSpec::Kind::RMat:
      c = csr_from_draws(spec, gen::RMatEdges::rmat(spec, seed), spec.edges_drawn(), false);
      break;
    case GraphSpec::Kind::PowerLaw:
      c = csr_from_draws(spec, gen::PowerLawEdges(spec, gen::id_bits(spec.vertices), seed), spec.edges_drawn(), false);
      break;
    case GraphSpec::Kind::Web: c = csr_from_draws(spec, gen::WebEdges(spec, seed), spec.edges_drawn(), true); break;
    case GraphSpec::Kind::Road: c = csr_from_draws(spec, gen::RoadEdges(spec, seed), spec.edges_drawn(), true); break;
  }
  gen::progress_done(spec, where);
  // Symmetric by construction, or directed (nothing claimed: it is computed when asked).
  const std::optional<bool> symmetric = spec.symmetric() ? std::optional<bool>(true) : std::nullopt;
  return Matrix<bool>::from_valid_csr(std::move(c), symmetric);
}

}  // namespace gbcuda
