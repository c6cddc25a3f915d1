// METIS (and Chaco) adjacency files: a header "n m [fmt [ncon]]", then one line per vertex
// listing its neighbours, 1-based. '%' lines are comments; an empty line is a vertex without
// neighbours. fmt's digits: 1s = edge weights (each neighbour followed by its weight), 10s =
// vertex weights (ncon of them at the line's start), 100s = vertex size (one number first).
// Every undirected edge is listed at both ends, so the neighbours add up to 2m.
#include <algorithm>
#include <string>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

bool is_comment(std::string_view line) {
  const std::string_view t = trim_front(line);
  return !t.empty() && t.front() == '%';
}

// Walks one vertex line: the vertex size and weights (checked, skipped), then the neighbours and
// their edge weights; add(neighbour, weight) gets 0-based neighbours. Returns the token count.
template <class Add>
Index walk_vertex_line(const MetisHeader& h, std::string_view line, const char* where, Add&& add) {
  Tokens t(line);
  std::string_view tok;
  std::int64_t x;
  Index ntok = 0;
  auto leading = [&](const char* what) {
    if (!t.next(tok)) {
      throw LineError{where, std::string("expected ") + what + " at the start of the vertex line (fmt " + h.fmt + ")"};
    }
    ++ntok;
    if (!parse_int(tok, x)) throw LineError{where, std::string(what) + " " + not_an_integer(tok)};
    if (x < 0) throw LineError{where, std::string("negative ") + what + " " + std::to_string(x)};
  };
  if (h.vsize) leading("the vertex size");
  for (Index k = 0; h.vweights && k < h.ncon; ++k) leading(h.ncon == 1 ? "the vertex weight" : "a vertex weight");
  while (t.next(tok)) {
    ++ntok;
    if (!parse_int(tok, x)) throw LineError{where, "neighbour " + not_an_integer(tok)};
    if (x < 1 || x > h.n) {
      throw LineError{
          where, "neighbour " + std::to_string(x) + " out of range (" +
                     (h.n == 0 ? std::string("the header announces no vertices") : "valid: 1.." + std::to_string(h.n)) +
                     ")"};
    }
    double w = 1;
    if (h.eweights) {
      std::int64_t wi;
      if (!t.next(tok)) {
        throw LineError{where, "neighbour " + std::to_string(x) + " has no edge weight (fmt " + h.fmt +
                                   ": each neighbour is followed by its weight)"};
      }
      ++ntok;
      if (!parse_int(tok, wi)) throw LineError{where, "edge weight " + not_an_integer(tok)};
      w = static_cast<double>(wi);
    }
    add(x - 1, w);
  }
  return ntok;
}

struct Local {
  std::vector<Index> rows;  // vertex line index within the chunk
  std::vector<Index> cols;
  std::vector<double> values;
  Index lines = 0;           // vertex lines (blank ones included)
  Index entries = 0;         // neighbours listed
  Index last_nonblank = -1;  // chunk-local vertex line index
  Index first_blank = -1;
  Index min_tokens = -1, max_tokens = -1;  // over non-blank lines
};

// The start of vertex line k (0-based, counting blank lines, not comments) from `body`, or nullptr.
const char* vertex_line(const FileText& f, const char* body, Index k) {
  const char* next;
  for (const char* p = body; p < f.end(); p = next) {
    const std::string_view line = line_at(p, f.end(), &next);
    if (is_comment(line)) continue;
    if (k-- == 0) return p;
  }
  return nullptr;
}

// Parses the vertex lines and checks the whole file; `store`: keep the entries.
CooData parse_metis(const FileText& f, const MetisHeader& h, bool store, MetisFit* fit) {
  auto parse_line = [&](std::string_view line, const char* where, Local& out) {
    if (is_comment(line)) return;
    const Index k = out.lines++;
    if (trim_front(line).empty()) {
      if (out.first_blank < 0) out.first_blank = k;
      return;
    }
    out.last_nonblank = k;
    const Index ntok = walk_vertex_line(h, line, where, [&](Index nbr, double w) {
      ++out.entries;
      if (!store) return;
      out.rows.push_back(k);
      out.cols.push_back(nbr);
      if (h.eweights) out.values.push_back(w);
    });
    out.min_tokens = out.min_tokens < 0 ? ntok : std::min(out.min_tokens, ntok);
    out.max_tokens = std::max(out.max_tokens, ntok);
  };
  std::vector<Local> locals = parse_chunks<Local>(f, h.body, f.end(), parse_line);

  Index lines = 0, entries = 0, min_tokens = -1, max_tokens = -1;
  Index last_nonblank = -1, first_blank = -1;  // global vertex line indices
  for (const Local& l : locals) {
    if (l.last_nonblank >= 0) last_nonblank = lines + l.last_nonblank;
    if (l.first_blank >= 0 && first_blank < 0) first_blank = lines + l.first_blank;
    if (l.min_tokens >= 0) min_tokens = min_tokens < 0 ? l.min_tokens : std::min(min_tokens, l.min_tokens);
    max_tokens = std::max(max_tokens, l.max_tokens);
    lines += l.lines;
    entries += l.entries;
  }
  if (last_nonblank >= h.n) {
    const char* p = vertex_line(f, h.body, h.n);
    for (const char* next; p < f.end(); p = next) {
      const std::string_view line = line_at(p, f.end(), &next);
      if (!trim_front(line).empty() && !is_comment(line)) break;
    }
    f.fail_at(p, "more vertex lines than the " + std::to_string(h.n) + " vertices the header announces");
  }
  if (lines < h.n) {
    f.fail_line(f.last_line(), "unexpected end of file: expected " + std::to_string(h.n) + " vertex lines, found " +
                                   std::to_string(lines) + " (an empty line stands for a vertex without neighbours)");
  }
  if ((h.vsize || h.vweights) && first_blank >= 0 && first_blank < h.n) {
    f.fail_at(vertex_line(f, h.body, first_blank), "vertex " + std::to_string(first_blank + 1) +
                                                       ": an empty line, but fmt " + h.fmt +
                                                       " starts every vertex line with its size or weights");
  }
  if (entries != 2 * h.m) {
    std::string what = "the vertex lines list " + std::to_string(entries) +
                       " neighbours, but the header announces m = " + std::to_string(h.m) +
                       " edges, listed at both ends (2m = " + std::to_string(2 * h.m) + ")";
    if (entries == h.m && h.m > 0) what += "; each edge is listed once: METIS graphs are undirected";
    f.fail_at(h.where, what);
  }
  if (fit) {
    // The same bytes as an edge list: every data line of 2 or 3 numbers, as many as the header.
    fit->ok = true;
    fit->edge_list_too =
        (h.tokens == 2 || h.tokens == 3) && (min_tokens < 0 || (min_tokens == h.tokens && max_tokens == h.tokens));
  }
  CooData coo;
  coo.format = FileFormat::Metis;
  coo.header = h.eweights ? "metis edge-weighted" : "metis";
  coo.nrows = coo.ncols = h.n;
  coo.stored_entries = entries;
  if (!store) return coo;
  // Chunk-local vertex lines become vertex ids.
  Index offset = 0;
  for (Local& l : locals) {
    for (Index& r : l.rows) r += offset;
    offset += l.lines;
  }
  coo.rows = concat(locals, &Local::rows);
  coo.cols = concat(locals, &Local::cols);
  if (h.eweights) coo.values = concat(locals, &Local::values);
  return coo;
}

}  // namespace

bool parse_metis_header(const FileText& f, MetisHeader& h, std::string* why) {
  h = MetisHeader{};
  const char* next;
  std::string_view line;
  const char* p = f.begin();
  for (; p < f.end(); p = next) {
    line = line_at(p, f.end(), &next);
    if (!trim_front(line).empty() && !is_comment(line)) break;
  }
  if (p >= f.end()) {
    if (why) *why = "empty file; expected a METIS header 'n m [fmt [ncon]]'";
    return false;
  }
  h.where = p;
  h.body = next;
  auto no = [&](const std::string& what) {
    if (why) *why = "bad METIS header " + quote(line) + ": " + what + " (expected 'n m [fmt [ncon]]')";
    return false;
  };
  std::string_view tok[5];
  const int ntok = Tokens(line).split(tok, 4);
  if (ntok < 2 || ntok > 4) return no(ntok > 4 ? "more than 4 numbers" : "fewer than 2 numbers");
  h.tokens = ntok;
  std::int64_t v;
  for (int k = 0; k < 2; ++k) {
    if (!parse_int(tok[k], v)) return no(not_an_integer(tok[k]));
    if (v < 0) return no("negative count " + std::to_string(v));
    (k == 0 ? h.n : h.m) = v;
  }
  if (h.n > kMaxEdgeListId + 1) return no("vertex count " + std::to_string(h.n) + " too large");
  if (h.m > kMaxDim / 2) return no("edge count " + std::to_string(h.m) + " too large");
  if (ntok >= 3) {
    const std::string_view fmt = tok[2];
    if (fmt.size() > 3 || fmt.find_first_not_of("01") != std::string_view::npos) {
      return no("fmt " + quote(fmt) + " is not up to three digits 0 or 1");
    }
    h.fmt = std::string(3 - fmt.size(), '0') + std::string(fmt);
    h.vsize = h.fmt[0] == '1';
    h.vweights = h.fmt[1] == '1';
    h.eweights = h.fmt[2] == '1';
  }
  h.ncon = h.vweights ? 1 : 0;
  if (ntok == 4) {
    if (!parse_int(tok[3], v)) return no("ncon " + not_an_integer(tok[3]));
    if (!h.vweights) return no("ncon given, but fmt " + h.fmt + " has no vertex weights");
    if (v < 1 || v > 1024) return no("ncon " + std::to_string(v) + " out of range (1..1024)");
    h.ncon = v;
  }
  return true;
}

MetisFit metis_fit(const FileText& f, const MetisHeader& h) {
  MetisFit fit;
  // Cheap first: n vertex lines, then only blank ones. An edge list whose first line is "u v"
  // has a data line at index u, so this stops after u + 1 lines.
  Index lines = 0;
  const char* next;
  for (const char* p = h.body; p < f.end(); p = next) {
    const std::string_view line = line_at(p, f.end(), &next);
    if (is_comment(line)) continue;
    if (lines >= h.n && !trim_front(line).empty()) return fit;
    ++lines;
  }
  if (lines < h.n) return fit;
  try {
    parse_metis(f, h, false, &fit);
  } catch (const Error&) {
    fit = MetisFit{};
  }
  return fit;
}

CooData read_metis(const FileText& f) {
  MetisHeader h;
  std::string why;
  if (!parse_metis_header(f, h, &why)) {
    if (!h.where) f.fail_line(f.last_line(), why);
    f.fail_at(h.where, why);
  }
  return parse_metis(f, h, true, nullptr);
}

}  // namespace gbcuda::io_detail
