// Readers for the header-less triplet, Rodinia BFS and edge-list formats.
#include <algorithm>
#include <limits>
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

namespace {

// SNAP's counts, in a comment before the first data line: "# Nodes: 875713 Edges: 5105039".
struct SnapCounts {
  const char* where = nullptr;  // the comment line (nullptr: none)
  Index nodes = 0, edges = 0;
};

SnapCounts snap_counts(const FileText& f, std::string_view comments) {
  SnapCounts s;
  const char* p = f.begin();
  while (p < f.end()) {
    const char* next;
    const std::string_view line = line_at(p, f.end(), &next);
    if (is_data_line(line, comments)) break;
    const std::string_view t = trim_front(line);
    if (!t.empty()) {
      Tokens tokens(t.substr(1));
      std::string_view tok;
      std::int64_t nodes = -1, edges = -1;
      std::string_view key;
      while (tokens.next(tok)) {
        std::int64_t v;
        if ((key == "Nodes:" || key == "Edges:") && parse_int(tok, v) && v >= 0) (key == "Nodes:" ? nodes : edges) = v;
        key = tok;
      }
      if (nodes >= 0 && edges >= 0) {
        s.where = p;
        s.nodes = nodes;
        s.edges = edges;
        return s;
      }
    }
    p = next;
  }
  return s;
}

// The columns of an edge line (the first one, which the others must agree with): weights or
// networkx attributes.
void edge_columns(const FileText& f, const char* at, std::string_view line, CoordinateSpec& spec) {
  const std::size_t brace = line.find('{');
  if (brace != std::string_view::npos) {
    // networkx: "u v {'weight': w}" or "u v {}".
    const Attributes a = parse_attributes(line.substr(brace));
    if (!a.ok) f.fail_at(at, "malformed attribute dictionary " + quote(line.substr(brace)));
    spec.attributes = true;
    spec.value_columns = a.has_weight ? 1 : 0;
    return;
  }
  std::string_view tok[4];
  const int ntok = Tokens(line, true).split(tok, 3);
  if (ntok != 2 && ntok != 3) {
    f.fail_at(at, "expected 2 or 3 columns (src dst [weight]), found " +
                      (ntok > 3 ? std::string("more") : std::to_string(ntok)));
  }
  spec.value_columns = ntok - 2;
}

// Puts the entries of `first` (the first edge line) before those of `c`.
void merge_first(Coordinates& c, Coordinates&& first) {
  c.rows.insert(c.rows.begin(), first.rows.begin(), first.rows.end());
  c.cols.insert(c.cols.begin(), first.cols.begin(), first.cols.end());
  c.values.insert(c.values.begin(), first.values.begin(), first.values.end());
  c.stored += first.stored;
  c.max_id = std::max(c.max_id, first.max_id);
  if (first.min_id >= 0) c.min_id = c.min_id < 0 ? first.min_id : std::min(c.min_id, first.min_id);
}

}  // namespace

CooData read_edge_list(const FileText& f, int base, ReadOptions::HeaderLine header_line) {
  using HeaderLine = ReadOptions::HeaderLine;
  constexpr std::string_view kComments = "#%";
  CoordinateSpec spec;
  spec.bounded = false;
  spec.base = base;
  spec.comments = kComments;
  spec.commas = true;
  std::string_view line;
  const char* next;
  const char* body = f.begin();
  // A header line "N M" (see detect.cpp for when it is one): where it is and its numbers.
  const char* header_at = nullptr;
  std::string_view header_text;
  Index hn = 0, hm = 0;
  // A CSV header line is skipped (and said); weights are optional: the first edge line decides,
  // and every line must agree.
  if (const char* first = first_data_line(f, f.begin(), kComments, line, &next)) {
    if (const char* after = after_csv_header(f, first, kComments)) {
      f.warn_at(first, "skipped the header line " + quote(line));
      body = after;
      first = first_data_line(f, body, kComments, line, &next);
    } else if (header_line != HeaderLine::No) {
      std::string_view tok[3];
      std::int64_t v[2];
      const bool numbers = line.find('{') == std::string_view::npos && Tokens(line, true).split(tok, 2) == 2 &&
                           parse_int(tok[0], v[0]) && parse_int(tok[1], v[1]) && v[0] >= 0 && v[1] >= 0;
      if (numbers) {
        header_at = first;
        header_text = line;
        hn = v[0];
        hm = v[1];
        body = next;
        first = first_data_line(f, body, kComments, line, &next);  // the first edge line, if any
      } else if (header_line == HeaderLine::Yes) {
        f.fail_at(first, "expected a header line 'VERTICES EDGES' (--header yes), found " + quote(line));
      }
    }
    if (first) edge_columns(f, first, line, spec);
  } else if (header_line == HeaderLine::Yes) {
    f.fail_line(f.last_line(), "no data lines: expected a header line 'VERTICES EDGES' (--header yes)");
  }
  spec.columns =
      spec.value_columns == 0 ? "src dst, like the first edge line" : "src dst weight, like the first edge line";
  // A first line "N M" that can be an edge like the lines after it (no weights there, ids in
  // range) is parsed with them, as entry 0, so that an ordinary edge list is parsed once and
  // its arrays are not copied; `rest` describes the lines after it.
  const bool first_included = header_at && spec.value_columns == 0 && !spec.attributes && hn >= base && hm >= base &&
                              hn - base <= kMaxEdgeListId && hm - base <= kMaxEdgeListId;
  Coordinates c = parse_coordinates(f, first_included ? header_at : body, f.end(), spec);
  struct {
    Index stored, max_id, min_id;
  } rest{c.stored, c.max_id, c.min_id};
  if (first_included) {
    Index max_id = -1, min_id = std::numeric_limits<Index>::max();
    const Index entries = static_cast<Index>(c.rows.size());
#pragma omp parallel for reduction(max : max_id) reduction(min : min_id) schedule(static) if (entries > kParallelMin)
    for (Index e = 1; e < entries; ++e) {
      const auto k = static_cast<std::size_t>(e);
      max_id = std::max(max_id, std::max(c.rows[k], c.cols[k]));
      min_id = std::min(min_id, std::min(c.rows[k], c.cols[k]));
    }
    rest = {c.stored - 1, max_id, entries > 1 ? min_id : -1};
  }

  // The first line "N M": a header, or an edge after all.
  bool header = false;
  if (header_at) {
    if (hn > kMaxEdgeListId + 1) {
      // More vertices than an edge list may have (32-bit columns): not a header.
      if (header_line == HeaderLine::Yes) {
        f.fail_at(header_at, "the header line " + quote(header_text) + " announces more vertices than the limit, " +
                                 std::to_string(kMaxEdgeListId + 1));
      }
    } else if (header_line == HeaderLine::Yes) {
      header = true;
    } else {
      const Index k = rest.stored;
      const bool count_fits = k == hm;
      const bool ids_fit = rest.max_id < hn;
      // Under index base 0: ids 1..N, as a 1-based file with this header would have.
      const bool ids_fit_one_based = base == 0 && !ids_fit && rest.min_id >= 1 && rest.max_id <= hn;
      const std::string at = f.path() + ":" + std::to_string(f.line_of(header_at)) + ": ";
      if (count_fits && ids_fit) {
        header = true;
        f.warn(at + "read " + quote(header_text) + " as a header line (" + std::to_string(hn) + " vertices, " +
               std::to_string(hm) + " edges), not as an edge: exactly " + std::to_string(hm) +
               " edge lines follow and their ids fit in " + std::to_string(hn) +
               " vertices; --header no reads it as an edge");
      } else if (count_fits && ids_fit_one_based) {
        f.fail_at(header_at,
                  quote(header_text) + " looks like the header line of a 1-based edge list: exactly " +
                      std::to_string(hm) + " edge lines follow, with ids 1.." + std::to_string(hn) +
                      "; use --index-base 1 to read it so, or --header no to read this line as an edge of a 0-based "
                      "edge list");
      } else if (hn >= 1 && (count_fits || (k > 0 && (ids_fit || ids_fit_one_based)))) {
        // A near miss (ids fitting in N are evidence only when there are ids).
        const std::string mismatch =
            count_fits ? "exactly " + std::to_string(hm) + " edge lines follow as announced, but their ids go up to " +
                             std::to_string(rest.max_id + base) + ", beyond " + std::to_string(hn) + " vertices"
                       : "the ids after it fit in " + std::to_string(hn) + " vertices, but " + std::to_string(k) +
                             " edge lines follow, not " + std::to_string(hm);
        if (spec.value_columns > 0 || spec.attributes) {
          f.fail_at(header_at, quote(header_text) +
                                   " has two columns and the edge lines after it have weights, so it " +
                                   "is not an edge; nor does it fit as a header line 'VERTICES EDGES': " + mismatch +
                                   "; fix the file, or use --header yes to read it as a header anyway");
        }
        f.warn(at + "read " + quote(header_text) + " as an edge, although it may be a header line 'VERTICES EDGES': " +
               mismatch + "; --header yes reads it as a header");
      }
    }
    if (header && first_included) {
      // Entry 0 was the header line.
      c.rows.erase(c.rows.begin());
      c.cols.erase(c.cols.begin());
      c.stored = rest.stored;
      c.max_id = rest.max_id;
      c.min_id = rest.min_id;
    }
    if (!header && !first_included) {
      // An edge: parsed as one (its errors are an edge's), first. As the first edge line it
      // decides the columns: when the lines after it have weights, they are what is wrong.
      if (spec.value_columns > 0 || spec.attributes) {
        CoordinateSpec as_first = spec;
        as_first.value_columns = 0;
        as_first.attributes = false;
        as_first.columns = "src dst, like the first edge line";
        parse_coordinates(f, header_at, f.end(), as_first);  // throws at the first line with weights
      }
      merge_first(c, parse_coordinates(f, header_at, body, spec));
    }
  }
  Index n = c.max_id + 1;
  if (header) {
    n = hn;
    const std::string at = f.path() + ":" + std::to_string(f.line_of(header_at)) + ": ";
    if (c.stored != hm) {
      f.warn(at + "the header line " + quote(header_text) + " announces " + std::to_string(hm) + " edges, but " +
             std::to_string(c.stored) + " edge lines follow");
    }
    if (c.max_id >= hn) {
      n = c.max_id + 1;
      f.warn(at + "the header line " + quote(header_text) + " announces " + std::to_string(hn) +
             " vertices, but the ids go up to " + std::to_string(c.max_id + base) + ": the matrix has " +
             std::to_string(n) + " vertices");
    }
  }
  // SNAP's "# Nodes: N Edges: M": N sizes the matrix when every id fits, M is checked.
  if (const SnapCounts snap = snap_counts(f, kComments); snap.where) {
    const std::string at = f.path() + ":" + std::to_string(f.line_of(snap.where)) + ": ";
    const std::string said = "the comment " + quote(trim_front(line_at(snap.where, f.end(), &next)));
    if (c.stored != snap.edges) {
      f.warn(at + said + " announces " + std::to_string(snap.edges) + " edges, but the file has " +
             std::to_string(c.stored) + " edge lines");
    }
    if (!header) {
      if (c.max_id < snap.nodes && snap.nodes <= kMaxEdgeListId + 1) {
        n = snap.nodes;
      } else {
        f.warn(at + said + " announces " + std::to_string(snap.nodes) + " nodes, but the ids go up to " +
               std::to_string(c.max_id + base) + " (ids need not be contiguous): the matrix has " + std::to_string(n) +
               " vertices, some of them without edges");
      }
    }
  }
  if (base == 0 && c.min_id > 0) {
    f.warn(f.path() +
           ": no edge uses vertex 0, the first id of a 0-based edge list (vertex 0 is isolated); if the ids "
           "start at 1, use index base 1 (--index-base 1)");
  }
  CooData coo;
  coo.format = FileFormat::EdgeList;
  coo.header = spec.value_columns == 0 ? "edgelist" : "edgelist weighted";
  if (base == 1) coo.header += " 1-based";
  if (header) coo.header += ", header line";
  coo.nrows = coo.ncols = n;
  coo.rows = std::move(c.rows);
  coo.cols = std::move(c.cols);
  coo.values = std::move(c.values);
  coo.stored_entries = c.stored;
  return coo;
}

}  // namespace gbcuda::io_detail
