// The parallel "i j [value]" body parser shared by Matrix Market coordinate, headerless and
// edge-list files.
#include <cctype>
#include <string>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

struct Local {
  std::vector<Index> rows, cols;
  std::vector<double> values;
  Index stored = 0;
  Index max_id = -1;
  Index min_id = -1;
};

std::string range_text(Index base, Index n) {
  if (n == 0) return "the dimension is 0";
  return "valid: " + std::to_string(base) + ".." + std::to_string(n - 1 + base);
}

}  // namespace

Coordinates parse_coordinates(const FileText& f, const char* begin, const char* end, const CoordinateSpec& spec) {
  const int want = 2 + spec.value_columns;
  auto parse_line = [&](std::string_view line, const char* where, Local& out) {
    if (!is_data_line(line, spec.comments)) return;
    std::string_view tok[4];
    int ntok;
    Attributes attr;
    if (spec.attributes) {
      // "i j {...}": the dictionary holds the value.
      const std::size_t brace = line.find('{');
      if (brace == std::string_view::npos) {
        throw LineError{where, "expected 'src dst {attributes}', like the first edge line, found " + quote(line)};
      }
      attr = parse_attributes(line.substr(brace));
      if (!attr.ok) throw LineError{where, "malformed attribute dictionary " + quote(line.substr(brace))};
      ntok = Tokens(line.substr(0, brace), spec.commas).split(tok, 3);
      if (ntok != 2) {
        throw LineError{where, "expected 2 columns before the attribute dictionary, found " +
                                   (ntok > 3 ? std::string("more") : std::to_string(ntok))};
      }
      if (attr.has_weight != (spec.value_columns > 0)) {
        throw LineError{where, attr.has_weight ? "a 'weight' attribute, but the first edge line has none"
                                               : "no 'weight' attribute, but the first edge line has one"};
      }
      tok[2] = attr.weight;
    } else {
      ntok = Tokens(line, spec.commas).split(tok, 4);
      if (ntok != want) {
        throw LineError{where, "expected " + std::to_string(want) + " columns (" + spec.columns + "), found " +
                                   (ntok > 4 ? std::string("more than 4") : std::to_string(ntok))};
      }
    }
    std::int64_t idx[2];
    for (int k = 0; k < 2; ++k) {
      if (!parse_int(tok[k], idx[k])) {
        throw LineError{where, std::string(k == 0 ? "row" : "column") + " index " + not_an_integer(tok[k])};
      }
    }
    const Index i = idx[0] - spec.base;
    const Index j = idx[1] - spec.base;
    if (spec.bounded) {
      if (i < 0 || i >= spec.nrows) {
        throw LineError{
            where, "row index " + std::to_string(idx[0]) + " out of range (" + range_text(spec.base, spec.nrows) + ")"};
      }
      if (j < 0 || j >= spec.ncols) {
        throw LineError{where, "column index " + std::to_string(idx[1]) + " out of range (" +
                                   range_text(spec.base, spec.ncols) + ")"};
      }
    } else {
      for (int k = 0; k < 2; ++k) {
        if (idx[k] < 0) throw LineError{where, "negative vertex id " + std::to_string(idx[k])};
        if (idx[k] < spec.base) {
          throw LineError{where, "vertex id " + std::to_string(idx[k]) + " in a 1-based edge list (index base 1: ids " +
                                     "start at 1; use index base 0 if they start at 0)"};
        }
        if (idx[k] - spec.base > kMaxEdgeListId) {
          throw LineError{where, "vertex id " + std::to_string(idx[k]) + " too large (the limit is " +
                                     std::to_string(kMaxEdgeListId + spec.base) + ")"};
        }
      }
      out.max_id = std::max(out.max_id, std::max(i, j));
      out.min_id = out.min_id < 0 ? std::min(i, j) : std::min(out.min_id, std::min(i, j));
    }
    double v = 0;
    if (spec.value_columns > 0) {
      if (!parse_double(tok[2], v)) {
        throw LineError{where, std::string(spec.attributes ? "'weight' attribute " : "value ") + quote(tok[2]) +
                                   " is not a number"};
      }
      double im;
      if (spec.value_columns == 2 && !parse_double(tok[3], im)) {
        throw LineError{where, "imaginary part " + quote(tok[3]) + " is not a number"};
      }
    }
    ++out.stored;
    out.rows.push_back(i);
    out.cols.push_back(j);
    if (spec.value_columns > 0) out.values.push_back(v);
    if (spec.symmetry != Symmetry::General && i != j) {
      out.rows.push_back(j);
      out.cols.push_back(i);
      // Hermitian: the mirror is the conjugate, whose real part is the same.
      if (spec.value_columns > 0) out.values.push_back(spec.symmetry == Symmetry::SkewSymmetric ? -v : v);
    }
  };

  std::vector<Local> locals = parse_chunks<Local>(f, begin, end, parse_line);
  Coordinates c;
  for (const Local& l : locals) {
    c.stored += l.stored;
    c.max_id = std::max(c.max_id, l.max_id);
    if (l.min_id >= 0) c.min_id = c.min_id < 0 ? l.min_id : std::min(c.min_id, l.min_id);
  }
  c.rows = concat(locals, &Local::rows);
  c.cols = concat(locals, &Local::cols);
  c.values = concat(locals, &Local::values);
  return c;
}

Attributes parse_attributes(std::string_view d) {
  // {'key': value, "key": value, ...}: keys are quoted; values are numbers, quoted strings or
  // bracketed ([...], (...), {...}) text.
  Attributes a;
  std::size_t p = 0;
  auto skip_blanks = [&] {
    while (p < d.size() && is_blank(d[p])) ++p;
  };
  auto quoted = [&](std::string_view& out) {  // at a quote: the text inside, p after it
    const char q = d[p];
    const std::size_t close = d.find(q, p + 1);
    if (close == std::string_view::npos) return false;
    out = d.substr(p + 1, close - p - 1);
    p = close + 1;
    return true;
  };
  if (d.empty() || d[0] != '{') return a;
  ++p;
  skip_blanks();
  if (p < d.size() && d[p] == '}') {
    ++p;
  } else {
    for (;;) {
      skip_blanks();
      std::string_view key, value;
      if (p >= d.size() || (d[p] != '\'' && d[p] != '"') || !quoted(key)) return a;
      skip_blanks();
      if (p >= d.size() || d[p] != ':') return a;
      ++p;
      skip_blanks();
      const std::size_t start = p;
      if (p < d.size() && (d[p] == '\'' || d[p] == '"')) {
        std::string_view inner;
        if (!quoted(inner)) return a;
      } else {
        int depth = 0;
        for (; p < d.size(); ++p) {
          const char c = d[p];
          if (c == '[' || c == '(' || c == '{') ++depth;
          if (depth == 0 && (c == ',' || c == '}')) break;
          if ((c == ']' || c == ')' || c == '}') && --depth < 0) return a;
        }
      }
      value = d.substr(start, p - start);
      while (!value.empty() && is_blank(value.back())) value.remove_suffix(1);
      if (value.empty()) return a;
      if (key == "weight") {
        if (a.has_weight) return a;  // twice
        a.has_weight = true;
        a.weight = value;
      }
      skip_blanks();
      if (p >= d.size()) return a;
      if (d[p] == '}') {
        ++p;
        break;
      }
      if (d[p] != ',') return a;
      ++p;
    }
  }
  skip_blanks();
  a.ok = p == d.size();
  return a;
}

namespace {

// A CSV header's column name: not a number, starting with a letter or '_' (quotes removed).
bool is_column_name(std::string_view t) {
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  double x;
  if (t.empty() || parse_double(t, x)) return false;
  const auto c = static_cast<unsigned char>(t.front());
  return std::isalpha(c) || c == '_';
}

}  // namespace

const char* after_csv_header(const FileText& f, const char* first, std::string_view comments) {
  const char* next;
  const std::string_view head = line_at(first, f.end(), &next);
  std::string_view names[4];
  const int nnames = Tokens(head, true).split(names, 3);
  if (nnames < 2 || nnames > 3) return nullptr;
  for (int k = 0; k < nnames; ++k)
    if (!is_column_name(names[k])) return nullptr;
  const char* second = find_data_line(next, f.end(), 0, comments);
  if (!second) return nullptr;
  const char* after;
  std::string_view tok[4];
  if (Tokens(line_at(second, f.end(), &after), true).split(tok, 3) != nnames) return nullptr;
  std::int64_t i, j;
  return parse_int(tok[0], i) && parse_int(tok[1], j) ? next : nullptr;
}

}  // namespace gbcuda::io_detail
