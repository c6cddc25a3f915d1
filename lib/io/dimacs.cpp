// DIMACS and PACE graph files: 'c' comment lines, a problem line "p KIND n m", then m lines of
// 1-based arcs or edges:
//   p sp n m     "a u v w": the 9th DIMACS challenge's shortest-path graphs (*.gr); directed
//                arcs u -> v, the weight w their value
//   p tw n m     "u v": PACE's treewidth graphs (*.gr); undirected, both directions stored
//   p edge n m   "e u v": DIMACS coloring and clique graphs (*.col, *.clq; "p col" is an older
//                spelling); undirected, both directions stored
// 'c' lines may come anywhere; blank lines are skipped.
#include <string>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

constexpr std::string_view kComments = "c";

// What each kind's lines look like, for messages and the parser.
struct KindInfo {
  const char* word;   // the problem line's second token
  const char* line;   // a data line, e.g. "a u v w"
  const char* what;   // "arcs" or "edges"
  const char* lead;   // the data line's first token ("a", "e"), or "" for none
  bool undirected;    // both directions stored
  bool weighted;      // a value per line
  const char* label;  // CooData::header
};

KindInfo info(DimacsProblem::Kind k) {
  switch (k) {
    case DimacsProblem::Kind::ShortestPath: return {"sp", "a u v w", "arcs", "a", false, true, "dimacs sp"};
    case DimacsProblem::Kind::Treewidth: return {"tw", "u v", "edges", "", true, false, "pace tw"};
    case DimacsProblem::Kind::Edge: return {"edge", "e u v", "edges", "e", true, false, "dimacs edge"};
    case DimacsProblem::Kind::None: break;
  }
  return {"", "", "", "", false, false, ""};
}

struct Local {
  std::vector<Index> rows, cols;
  std::vector<double> values;
  Index stored = 0;
};

}  // namespace

bool parse_dimacs_problem(const FileText& f, DimacsProblem& p, std::string* why) {
  p = DimacsProblem{};
  const char* at = find_data_line(f.begin(), f.end(), 0, kComments);
  if (!at) return false;
  const std::string_view line = line_at(at, f.end(), &p.body);
  std::string_view tok[5];
  const int ntok = Tokens(line).split(tok, 4);
  if (ntok != 4 || tok[0] != "p") return false;
  std::int64_t n, m;
  if (!parse_int(tok[2], n) || !parse_int(tok[3], m)) return false;
  p.where = at;
  auto refuse = [&](const std::string& what) {
    if (why) *why = what;
    return false;
  };
  if (tok[1] == "sp") {
    p.kind = DimacsProblem::Kind::ShortestPath;
  } else if (tok[1] == "tw") {
    p.kind = DimacsProblem::Kind::Treewidth;
  } else if (tok[1] == "edge" || tok[1] == "col") {
    p.kind = DimacsProblem::Kind::Edge;
  } else {
    return refuse("the problem line " + quote(line) +
                  " names a kind of DIMACS file that is not read (read are 'p sp' shortest-path graphs, 'p tw' "
                  "PACE graphs and 'p edge' coloring graphs)");
  }
  if (n < 0 || m < 0) return refuse("the problem line " + quote(line) + " has a negative count");
  if (n > kMaxEdgeListId + 1) return refuse("the problem line " + quote(line) + " announces too many vertices");
  if (m > kMaxDim) return refuse("the problem line " + quote(line) + " announces too many " + info(p.kind).what);
  p.n = n;
  p.m = m;
  return true;
}

CooData read_dimacs(const FileText& f) {
  DimacsProblem p;
  std::string why;
  if (!parse_dimacs_problem(f, p, &why)) {
    if (!why.empty()) f.fail_at(p.where, why);
    const char* first = find_data_line(f.begin(), f.end(), 0, kComments);
    if (!first)
      f.fail_line(f.last_line(), "no problem line: expected 'p sp|tw|edge VERTICES COUNT' after 'c' comments");
    const char* next;
    f.fail_at(first, "expected the problem line 'p sp|tw|edge VERTICES COUNT' (after 'c' comment lines), found " +
                         quote(line_at(first, f.end(), &next)));
  }
  const KindInfo k = info(p.kind);
  const int want = (k.lead[0] ? 1 : 0) + 2 + (k.weighted ? 1 : 0);
  const Index n = p.n;
  auto parse_line = [&](std::string_view line, const char* where, Local& out) {
    if (!is_data_line(line, kComments)) return;
    std::string_view tok[5];
    const int ntok = Tokens(line).split(tok, 4);
    if (ntok > 0 && tok[0] == "p") throw LineError{where, "a second problem line"};
    if (ntok != want || (k.lead[0] && tok[0] != k.lead)) {
      throw LineError{where, std::string("expected '") + k.line + "' (the lines of a 'p " + k.word + "' file), found " +
                                 quote(line)};
    }
    const int first = k.lead[0] ? 1 : 0;
    std::int64_t id[2];
    for (int t = 0; t < 2; ++t) {
      const std::string_view s = tok[first + t];
      if (!parse_int(s, id[t])) throw LineError{where, "vertex id " + not_an_integer(s)};
      if (id[t] < 1 || id[t] > n) {
        throw LineError{where, "vertex id " + std::to_string(id[t]) + " out of range (" +
                                   (n == 0 ? std::string("the problem line announces no vertices")
                                           : "valid: 1.." + std::to_string(n)) +
                                   ")"};
      }
    }
    double w = 0;
    if (k.weighted && !parse_double(tok[first + 2], w)) {
      throw LineError{where, "weight " + quote(tok[first + 2]) + " is not a number"};
    }
    const Index u = id[0] - 1, v = id[1] - 1;
    ++out.stored;
    out.rows.push_back(u);
    out.cols.push_back(v);
    if (k.weighted) out.values.push_back(w);
    if (k.undirected && u != v) {
      out.rows.push_back(v);
      out.cols.push_back(u);
    }
  };
  std::vector<Local> locals = parse_chunks<Local>(f, p.body, f.end(), parse_line);
  Index stored = 0;
  for (const Local& l : locals) stored += l.stored;
  if (stored < p.m) {
    f.fail_line(f.last_line(), std::string("unexpected end of file: the problem line announces ") +
                                   std::to_string(p.m) + " " + k.what + ", found " + std::to_string(stored));
  }
  if (stored > p.m) {
    f.fail_at(find_data_line(p.body, f.end(), p.m, kComments),
              std::string("too many ") + k.what + ": the problem line (line " + std::to_string(f.line_of(p.where)) +
                  ") announces " + std::to_string(p.m) + ", the file has " + std::to_string(stored));
  }
  CooData coo;
  coo.format = FileFormat::Dimacs;
  coo.header = k.label;
  coo.nrows = coo.ncols = n;
  coo.rows = concat(locals, &Local::rows);
  coo.cols = concat(locals, &Local::cols);
  coo.values = concat(locals, &Local::values);
  coo.stored_entries = stored;
  return coo;
}

}  // namespace gbcuda::io_detail
