// Matrix Market reader: "%%MatrixMarket matrix coordinate|array FIELD SYMMETRY".
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Banner {
  bool coordinate = true;
  int value_columns = 0;  // 0 pattern, 1 real/integer, 2 complex
  Symmetry symmetry = Symmetry::General;
  std::string text;  // "coordinate real symmetric"
};

constexpr const char* kBannerShape =
    "expected '%%MatrixMarket matrix coordinate|array pattern|real|integer|complex "
    "general|symmetric|skew-symmetric|hermitian'";

// Levenshtein distance (short words only).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// A comment (after its '%'s) that looks like a Matrix Market banner without being one.
bool looks_like_banner(std::string_view words) {
  Tokens t(words);
  std::string_view tok;
  if (!t.next(tok)) return false;
  const std::string first = lower(tok);
  constexpr std::string_view kWord = "matrixmarket";
  if (first.size() > kWord.size() && first.compare(0, kWord.size(), kWord) == 0) return true;  // glued
  if (first.size() <= 24 && edit_distance(first, kWord) <= 2) return true;
  // Matrix Market words: three or more, with a format among them ("coordinate real symmetric").
  int keywords = 0;
  bool format = false;
  Tokens all(words);
  while (all.next(tok)) {
    const std::string w = lower(tok);
    for (const char* k : {"matrix", "coordinate", "array", "pattern", "real", "integer", "complex", "double", "general",
                          "symmetric", "skew-symmetric", "hermitian"}) {
      if (w == k) {
        ++keywords;
        format = format || w == "coordinate" || w == "array";
      }
    }
  }
  return keywords >= 3 && format;
}

Banner parse_banner(const FileText& f, const BannerLine& line) {
  const char* at = line.where;
  std::string_view tok[6];
  const int ntok = Tokens(line.words).split(tok, 5);
  if (ntok < 5) f.fail_at(at, "incomplete Matrix Market banner; " + std::string(kBannerShape));
  if (ntok > 5) f.fail_at(at, "too many words in the Matrix Market banner; " + std::string(kBannerShape));
  const std::string object = lower(tok[1]), format = lower(tok[2]), field = lower(tok[3]), sym = lower(tok[4]);
  if (object != "matrix") {
    f.fail_at(at, "unsupported Matrix Market object " + quote(object) + " (only 'matrix' is read)");
  }
  Banner b;
  if (format == "coordinate") {
    b.coordinate = true;
  } else if (format == "array") {
    b.coordinate = false;
  } else {
    f.fail_at(at, "unknown Matrix Market format " + quote(format) + " (expected coordinate or array)");
  }
  if (field == "pattern") {
    b.value_columns = 0;
  } else if (field == "real" || field == "double" || field == "integer") {
    b.value_columns = 1;
  } else if (field == "complex") {
    b.value_columns = 2;
  } else {
    f.fail_at(at, "unknown Matrix Market field " + quote(field) + " (expected pattern, real, integer or complex)");
  }
  if (sym == "general") {
    b.symmetry = Symmetry::General;
  } else if (sym == "symmetric") {
    b.symmetry = Symmetry::Symmetric;
  } else if (sym == "skew-symmetric") {
    b.symmetry = Symmetry::SkewSymmetric;
  } else if (sym == "hermitian") {
    b.symmetry = Symmetry::Hermitian;
  } else {
    f.fail_at(at, "unknown Matrix Market symmetry " + quote(sym) +
                      " (expected general, symmetric, skew-symmetric or hermitian)");
  }
  // Combinations the Matrix Market definition does not allow.
  if (!b.coordinate && field == "pattern") f.fail_at(at, "unsupported combination: array pattern");
  if (b.symmetry == Symmetry::Hermitian && field != "complex") {
    f.fail_at(at, "unsupported combination: " + field + " hermitian (hermitian needs complex values)");
  }
  if (b.symmetry == Symmetry::SkewSymmetric && field == "pattern") {
    f.fail_at(at, "unsupported combination: pattern skew-symmetric");
  }
  b.text = format + " " + field + " " + sym;
  return b;
}

// Reads the size line's integers; returns the position after it.
const char* parse_size_line(const FileText& f, const char* p, int count, Index* out, const char** line_start) {
  const char* end = f.end();
  while (p < end) {
    const char* next;
    std::string_view line = line_at(p, end, &next);
    if (is_data_line(line, "%")) {
      *line_start = p;
      std::string_view tok[4];
      const int ntok = Tokens(line).split(tok, 3);
      const char* shape = count == 3 ? "rows cols entries" : "rows cols";
      if (ntok != count) {
        f.fail_at(p, std::string("bad size line: expected '") + shape + "', found " + quote(line));
      }
      for (int k = 0; k < count; ++k) {
        if (!parse_int(tok[k], out[k])) f.fail_at(p, "bad size line: " + not_an_integer(tok[k]));
        if (out[k] < 0) f.fail_at(p, "bad size line: negative size " + std::to_string(out[k]));
        if (out[k] > kMaxDim) f.fail_at(p, "bad size line: size " + std::to_string(out[k]) + " too large");
      }
      return next;
    }
    p = next;
  }
  f.fail_line(f.last_line(), "unexpected end of file: missing the size line");
}

struct ArrayLocal {
  std::vector<double> values;
};

}  // namespace

BannerLine find_banner(const FileText& f) {
  BannerLine b;
  const char* next;
  for (const char* p = f.begin(); p < f.end(); p = next) {
    const std::string_view line = line_at(p, f.end(), &next);
    const std::string_view t = trim_front(line);
    if (t.empty() || t.front() == '#') continue;
    if (t.front() != '%') break;  // the first data line
    std::size_t percents = 0;
    while (percents < t.size() && t[percents] == '%') ++percents;
    const std::string_view words = trim_front(t.substr(percents));
    const std::string_view word = words.substr(0, std::min(words.size(), std::string_view("MatrixMarket").size()));
    const bool is_word = lower(word) == "matrixmarket" && (words.size() == word.size() || is_blank(words[word.size()]));
    if (!is_word) {
      if (!looks_like_banner(words)) continue;
      b.kind = BannerLine::Kind::Misspelt;
    } else {
      std::vector<std::string> off;
      if (percents != 2)
        off.push_back(percents == 1 ? "it has one '%'" : "it has " + std::to_string(percents) + " '%'");
      if (words.data() != t.data() + percents) off.push_back("blanks follow the '%'");
      if (word != "MatrixMarket") off.push_back(quote(word) + " is not spelt 'MatrixMarket'");
      if (p != f.begin()) off.push_back("it is on line " + std::to_string(f.line_of(p)) + ", after other lines");
      for (std::size_t k = 0; k < off.size(); ++k)
        b.deviations += (k == 0 ? "" : k + 1 == off.size() ? " and " : ", ") + off[k];
      b.kind = off.empty() ? BannerLine::Kind::Exact : BannerLine::Kind::Lenient;
    }
    b.where = p;
    b.line = line;
    b.words = words;
    return b;
  }
  return b;
}

CooData read_matrix_market(const FileText& f) {
  if (f.size() == 0) f.fail_line(1, "empty file; expected a %%MatrixMarket banner");
  const BannerLine banner = find_banner(f);
  switch (banner.kind) {
    case BannerLine::Kind::None: f.fail_line(1, "missing %%MatrixMarket banner; " + std::string(kBannerShape));
    case BannerLine::Kind::Misspelt:
      f.fail_at(banner.where, quote(banner.line) + " looks like a misspelt Matrix Market banner; " + kBannerShape);
    case BannerLine::Kind::Lenient:
      f.warn_at(banner.where, "read " + quote(banner.line) + " as the Matrix Market banner, although " +
                                  banner.deviations + " (a banner is '%%MatrixMarket ...' on line 1)");
      break;
    case BannerLine::Kind::Exact: break;
  }
  const char* next;
  line_at(banner.where, f.end(), &next);
  const Banner b = parse_banner(f, banner);

  CooData coo;
  coo.format = FileFormat::MatrixMarket;
  coo.header = b.text;
  Index size[3] = {0, 0, 0};
  const char* size_line = nullptr;
  const char* body = parse_size_line(f, next, b.coordinate ? 3 : 2, size, &size_line);
  coo.nrows = size[0];
  coo.ncols = size[1];
  if (b.symmetry != Symmetry::General && coo.nrows != coo.ncols) {
    f.fail_at(size_line, "a " + b.text.substr(b.text.rfind(' ') + 1) + " matrix must be square, this one is " +
                             std::to_string(coo.nrows) + " x " + std::to_string(coo.ncols));
  }

  if (b.coordinate) {
    const Index nnz = size[2];
    CoordinateSpec spec;
    spec.nrows = coo.nrows;
    spec.ncols = coo.ncols;
    spec.value_columns = b.value_columns;
    spec.symmetry = b.symmetry;
    spec.columns = b.value_columns == 0 ? "i j" : b.value_columns == 1 ? "i j value" : "i j real imaginary";
    Coordinates c = parse_coordinates(f, body, f.end(), spec);
    if (c.stored < nnz) {
      f.fail_line(f.last_line(), "unexpected end of file: expected " + std::to_string(nnz) + " entries, found " +
                                     std::to_string(c.stored));
    }
    if (c.stored > nnz) {
      f.fail_at(find_data_line(body, f.end(), nnz, "%"), "too many entries: the size line announces " +
                                                             std::to_string(nnz) + ", the file has " +
                                                             std::to_string(c.stored));
    }
    coo.rows = std::move(c.rows);
    coo.cols = std::move(c.cols);
    coo.values = std::move(c.values);
    coo.stored_entries = c.stored;
    return coo;
  }

  // Array: values only, column by column; symmetric kinds store the lower triangle (skew: the
  // strictly lower one). Every stored value is an entry, zeros included.
  const Index n = coo.nrows;
  Index expected = 0;
  if (b.symmetry == Symmetry::General) {
    if (coo.nrows != 0 && coo.ncols > kMaxDim / coo.nrows) f.fail_at(size_line, "array too large");
    expected = coo.nrows * coo.ncols;
  } else {
    if (n > (Index(1) << 31)) f.fail_at(size_line, "array too large");
    expected = b.symmetry == Symmetry::SkewSymmetric ? n * (n - 1) / 2 : n * (n + 1) / 2;
  }
  const int want = b.value_columns;
  auto parse_line = [&](std::string_view line, const char* where, ArrayLocal& out) {
    if (!is_data_line(line, "%")) return;
    std::string_view tok[3];
    const int ntok = Tokens(line).split(tok, 2);
    if (ntok != want) {
      throw LineError{where, "expected " + std::to_string(want) +
                                 (want == 1 ? " column (value)" : " columns (real imaginary)") + ", found " +
                                 (ntok > 2 ? std::string("more") : std::to_string(ntok))};
    }
    double v, im;
    if (!parse_double(tok[0], v)) throw LineError{where, "value " + quote(tok[0]) + " is not a number"};
    if (want == 2 && !parse_double(tok[1], im)) {
      throw LineError{where, "imaginary part " + quote(tok[1]) + " is not a number"};
    }
    out.values.push_back(v);
  };
  std::vector<ArrayLocal> locals = parse_chunks<ArrayLocal>(f, body, f.end(), parse_line);
  std::vector<double> vals = concat(locals, &ArrayLocal::values);
  const Index found = static_cast<Index>(vals.size());
  if (found < expected) {
    f.fail_line(f.last_line(), "unexpected end of file: expected " + std::to_string(expected) + " values, found " +
                                   std::to_string(found));
  }
  if (found > expected) {
    f.fail_at(find_data_line(body, f.end(), expected, "%"), "too many values: a " + std::to_string(coo.nrows) + " x " +
                                                                std::to_string(coo.ncols) + " " + b.text +
                                                                " array has " + std::to_string(expected));
  }
  coo.stored_entries = found;
  if (b.symmetry == Symmetry::General) {
    coo.rows.resize(static_cast<std::size_t>(found));
    coo.cols.resize(static_cast<std::size_t>(found));
#pragma omp parallel for schedule(static) if (found > kParallelMin)
    for (Index k = 0; k < found; ++k) {
      coo.rows[static_cast<std::size_t>(k)] = k % coo.nrows;
      coo.cols[static_cast<std::size_t>(k)] = k / coo.nrows;
    }
    coo.values = std::move(vals);
    return coo;
  }
  const Index first_below = b.symmetry == Symmetry::SkewSymmetric ? 1 : 0;
  const std::size_t total = static_cast<std::size_t>(2 * found - (first_below == 0 ? n : 0));
  coo.rows.reserve(total);
  coo.cols.reserve(total);
  coo.values.reserve(total);
  std::size_t k = 0;
  for (Index j = 0; j < n; ++j) {
    for (Index i = j + first_below; i < n; ++i, ++k) {
      const double v = vals[k];
      coo.rows.push_back(i);
      coo.cols.push_back(j);
      coo.values.push_back(v);
      if (i != j) {
        coo.rows.push_back(j);
        coo.cols.push_back(i);
        coo.values.push_back(b.symmetry == Symmetry::SkewSymmetric ? -v : v);
      }
    }
  }
  return coo;
}

}  // namespace gbcuda::io_detail
