// Readers for the header-less triplet, Rodinia BFS and edge-list formats.
#include <string>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

// The first data line at or after `p`, or nullptr; `line` receives it.
const char* first_data_line(const FileText& f, const char* p, std::string_view comments, std::string_view& line,
                            const char** next) {
  while (p < f.end()) {
    line = line_at(p, f.end(), next);
    if (is_data_line(line, comments)) return p;
    p = *next;
  }
  return nullptr;
}

}  // namespace

// ---- headerless: "rows cols nnz", then 1-based "i j [value]" -----------------------------

CooData read_headerless(const FileText& f) {
  constexpr std::string_view kComments = "%#";
  std::string_view line;
  const char* body;
  const char* head = first_data_line(f, f.begin(), kComments, line, &body);
  if (!head) f.fail_line(f.last_line(), "empty file; expected a size line 'rows cols entries'");
  std::string_view tok[4];
  Index size[3];
  if (Tokens(line).split(tok, 3) != 3)
    f.fail_at(head, "bad size line: expected 'rows cols entries', found " + quote(line));
  for (int k = 0; k < 3; ++k) {
    if (!parse_int(tok[k], size[k])) f.fail_at(head, "bad size line: " + not_an_integer(tok[k]));
    if (size[k] < 0) f.fail_at(head, "bad size line: negative size " + std::to_string(size[k]));
    if (size[k] > kMaxDim) f.fail_at(head, "bad size line: size " + std::to_string(size[k]) + " too large");
  }
  // Values are optional; the first entry line decides, and every line must agree.
  CoordinateSpec spec;
  spec.nrows = size[0];
  spec.ncols = size[1];
  spec.comments = kComments;
  const char* after;
  if (first_data_line(f, body, kComments, line, &after)) {
    const int ntok = Tokens(line).split(tok, 3);
    spec.value_columns = ntok == 2 ? 0 : 1;
  } else {
    spec.value_columns = 1;
  }
  spec.columns = spec.value_columns == 0 ? "i j, like the first entry line" : "i j value, like the first entry line";
  Coordinates c = parse_coordinates(f, body, f.end(), spec);
  const Index nnz = size[2];
  if (c.stored < nnz) {
    f.fail_line(f.last_line(), "unexpected end of file: expected " + std::to_string(nnz) + " entries, found " +
                                   std::to_string(c.stored));
  }
  if (c.stored > nnz) {
    f.fail_at(find_data_line(body, f.end(), nnz, kComments), "too many entries: the size line announces " +
                                                                 std::to_string(nnz) + ", the file has " +
                                                                 std::to_string(c.stored));
  }
  CooData coo;
  coo.format = FileFormat::Headerless;
  coo.header = spec.value_columns == 0 ? "headerless pattern" : "headerless real";
  coo.nrows = size[0];
  coo.ncols = size[1];
  coo.rows = std::move(c.rows);
  coo.cols = std::move(c.cols);
  coo.values = std::move(c.values);
  coo.stored_entries = c.stored;
  return coo;
}

// ---- Rodinia BFS text ----------------------------------------------------------------------
//   n
//   n lines "start degree"   (vertex v's edges are edge lines start .. start+degree-1)
//   source
//   m
//   m lines "dest cost"      (cost ignored)
// Blank lines may separate the sections. Every data line is parsed in parallel as one or two
// integers ("records"); the sections are then found by counting records.

namespace {

struct RodiniaLocal {
  std::vector<Index> a, b;
  std::vector<std::uint8_t> ntok;
};

}  // namespace

CooData read_rodinia(const FileText& f, Index* source_out) {
  constexpr std::string_view kComments = "#%";
  auto parse_line = [&](std::string_view line, const char* where, RodiniaLocal& out) {
    if (!is_data_line(line, kComments)) return;
    std::string_view tok[3];
    const int ntok = Tokens(line).split(tok, 2);
    if (ntok > 2) throw LineError{where, "expected one or two integers, found more"};
    std::int64_t v[2] = {0, 0};
    for (int k = 0; k < ntok; ++k) {
      if (!parse_int(tok[k], v[k])) throw LineError{where, not_an_integer(tok[k])};
    }
    out.a.push_back(v[0]);
    out.b.push_back(v[1]);
    out.ntok.push_back(static_cast<std::uint8_t>(ntok));
  };
  std::vector<RodiniaLocal> locals = parse_chunks<RodiniaLocal>(f, f.begin(), f.end(), parse_line);
  const std::vector<Index> a = concat(locals, &RodiniaLocal::a);
  const std::vector<Index> b = concat(locals, &RodiniaLocal::b);
  const std::vector<std::uint8_t> ntok = concat(locals, &RodiniaLocal::ntok);
  const Index nrec = static_cast<Index>(a.size());
  auto where = [&](Index r) { return find_data_line(f.begin(), f.end(), r, kComments); };
  auto eof = [&](const std::string& what) { f.fail_line(f.last_line(), "unexpected end of file: " + what); };

  if (nrec == 0) eof("expected the vertex count n");
  if (ntok[0] != 1) f.fail_at(where(0), "expected the vertex count n alone on the first line");
  const Index n = a[0];
  if (n < 0) f.fail_at(where(0), "negative vertex count " + std::to_string(n));
  if (n > kMaxEdgeListId + 1) f.fail_at(where(0), "vertex count " + std::to_string(n) + " too large");
  if (nrec < n + 1) {
    eof("expected " + std::to_string(n) + " vertex lines 'start degree', found " + std::to_string(nrec - 1));
  }
  // Vertex lines: find the first bad one (parallel min-reduction keeps the report deterministic).
  Index bad = nrec;
#pragma omp parallel for reduction(min : bad) schedule(static) if (n > kParallelMin)
  for (Index r = 1; r <= n; ++r) {
    if (ntok[static_cast<std::size_t>(r)] != 2 || a[static_cast<std::size_t>(r)] < 0 ||
        b[static_cast<std::size_t>(r)] < 0)
      bad = std::min(bad, r);
  }
  if (bad < nrec) {
    const std::size_t r = static_cast<std::size_t>(bad);
    if (ntok[r] != 2) f.fail_at(where(bad), "expected 'start degree' for vertex " + std::to_string(bad - 1));
    f.fail_at(where(bad), "vertex " + std::to_string(bad - 1) + ": negative start or degree");
  }
  if (nrec < n + 2) eof("missing the source vertex line");
  if (ntok[static_cast<std::size_t>(n + 1)] != 1)
    f.fail_at(where(n + 1), "expected the source vertex alone on its line");
  const Index source = a[static_cast<std::size_t>(n + 1)];
  if (source < 0 || (n > 0 && source >= n)) {
    f.fail_at(where(n + 1),
              "source vertex " + std::to_string(source) + " out of range (valid: 0.." + std::to_string(n - 1) + ")");
  }
  if (nrec < n + 3) eof("missing the edge count m");
  if (ntok[static_cast<std::size_t>(n + 2)] != 1)
    f.fail_at(where(n + 2), "expected the edge count m alone on its line");
  const Index m = a[static_cast<std::size_t>(n + 2)];
  if (m < 0) f.fail_at(where(n + 2), "negative edge count " + std::to_string(m));

  // Each vertex's edge range must lie inside the m edges, and the degrees must add up to m.
  Index degree_sum = 0;
  bad = nrec;
#pragma omp parallel for reduction(+ : degree_sum) reduction(min : bad) schedule(static) if (n > kParallelMin)
  for (Index r = 1; r <= n; ++r) {
    const Index start = a[static_cast<std::size_t>(r)], deg = b[static_cast<std::size_t>(r)];
    if (start > m || deg > m - start) bad = std::min(bad, r);
    degree_sum += deg;
  }
  if (bad < nrec) {
    const std::size_t r = static_cast<std::size_t>(bad);
    f.fail_at(where(bad), "vertex " + std::to_string(bad - 1) + ": edges " + std::to_string(a[r]) + ".." +
                              std::to_string(a[r] + b[r] - 1) + " lie outside the " + std::to_string(m) +
                              " edges announced");
  }
  if (degree_sum != m) {
    f.fail_at(where(n + 2), "the vertex degrees add up to " + std::to_string(degree_sum) + ", but the edge count is " +
                                std::to_string(m));
  }
  const Index first_edge = n + 3;
  if (nrec < first_edge + m) {
    eof("expected " + std::to_string(m) + " edge lines 'dest cost', found " + std::to_string(nrec - first_edge));
  }
  if (nrec > first_edge + m) {
    f.fail_at(where(first_edge + m),
              "too many lines: expected " + std::to_string(m) + " edge lines after the edge count");
  }
  bad = nrec;
#pragma omp parallel for reduction(min : bad) schedule(static) if (m > kParallelMin)
  for (Index r = first_edge; r < first_edge + m; ++r) {
    const Index d = a[static_cast<std::size_t>(r)];
    if (d < 0 || d >= n) bad = std::min(bad, r);
  }
  if (bad < nrec) {
    f.fail_at(where(bad), "destination vertex " + std::to_string(a[static_cast<std::size_t>(bad)]) +
                              " out of range (valid: 0.." + std::to_string(n - 1) + ")");
  }

  CooData coo;
  coo.format = FileFormat::Rodinia;
  coo.header = "rodinia";
  coo.nrows = coo.ncols = n;
  coo.stored_entries = m;
  coo.rows.resize(static_cast<std::size_t>(m));
  coo.cols.resize(static_cast<std::size_t>(m));
  // Output position of each vertex's edges: prefix sums of the degrees.
  std::vector<Index> pos(static_cast<std::size_t>(n) + 1, 0);
  for (Index v = 0; v < n; ++v)
    pos[static_cast<std::size_t>(v + 1)] = pos[static_cast<std::size_t>(v)] + b[static_cast<std::size_t>(v + 1)];
#pragma omp parallel for schedule(dynamic, 1024) if (m > kParallelMin)
  for (Index v = 0; v < n; ++v) {
    const Index start = a[static_cast<std::size_t>(v + 1)], deg = b[static_cast<std::size_t>(v + 1)];
    Index out = pos[static_cast<std::size_t>(v)];
    for (Index e = start; e < start + deg; ++e, ++out) {
      coo.rows[static_cast<std::size_t>(out)] = v;
      coo.cols[static_cast<std::size_t>(out)] = a[static_cast<std::size_t>(first_edge + e)];
    }
  }
  if (source_out) *source_out = source;
  return coo;
}

// ---- edge lists: "src dst [weight]", 0-based (or 1-based: `base`) ---------------------------

CooData read_edge_list(const FileText& f, int base) {
  constexpr std::string_view kComments = "#%";
  CoordinateSpec spec;
  spec.bounded = false;
  spec.base = base;
  spec.comments = kComments;
  spec.commas = true;
  std::string_view line;
  const char* next;
  const char* body = f.begin();
  // A CSV header line is skipped (and said); weights are optional: the first edge line decides,
  // and every line must agree.
  if (const char* first = first_data_line(f, f.begin(), kComments, line, &next)) {
    if (const char* after = after_csv_header(f, first, kComments)) {
      f.warn_at(first, "skipped the header line " + quote(line));
      body = after;
      first = first_data_line(f, body, kComments, line, &next);
    }
    const std::size_t brace = line.find('{');
    if (brace != std::string_view::npos) {
      // networkx: "u v {'weight': w}" or "u v {}".
      const Attributes a = parse_attributes(line.substr(brace));
      if (!a.ok) f.fail_at(first, "malformed attribute dictionary " + quote(line.substr(brace)));
      spec.attributes = true;
      spec.value_columns = a.has_weight ? 1 : 0;
    } else {
      std::string_view tok[4];
      const int ntok = Tokens(line, true).split(tok, 3);
      if (ntok != 2 && ntok != 3) {
        f.fail_at(first, "expected 2 or 3 columns (src dst [weight]), found " +
                             (ntok > 3 ? std::string("more") : std::to_string(ntok)));
      }
      spec.value_columns = ntok - 2;
    }
  }
  spec.columns =
      spec.value_columns == 0 ? "src dst, like the first edge line" : "src dst weight, like the first edge line";
  Coordinates c = parse_coordinates(f, body, f.end(), spec);
  if (base == 0 && c.min_id > 0) {
    f.warn(f.path() +
           ": no edge uses vertex 0, the first id of a 0-based edge list (vertex 0 is isolated); if the ids "
           "start at 1, use index base 1 (--index-base 1)");
  }
  CooData coo;
  coo.format = FileFormat::EdgeList;
  coo.header = spec.value_columns == 0 ? "edgelist" : "edgelist weighted";
  if (base == 1) coo.header += " 1-based";
  coo.nrows = coo.ncols = c.max_id + 1;
  coo.rows = std::move(c.rows);
  coo.cols = std::move(c.cols);
  coo.values = std::move(c.values);
  coo.stored_entries = c.stored;
  return coo;
}

}  // namespace gbcuda::io_detail
