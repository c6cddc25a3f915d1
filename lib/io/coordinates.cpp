// The parallel "i j [value]" body parser shared by Matrix Market coordinate, headerless and
// edge-list files.
#include <string>

#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

namespace {

struct Local {
  std::vector<Index> rows, cols;
  std::vector<double> values;
  Index stored = 0;
  Index max_id = -1;
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
    const int ntok = Tokens(line, spec.commas).split(tok, 4);
    if (ntok != want) {
      throw LineError{where, "expected " + std::to_string(want) + " columns (" + spec.columns + "), found " +
                                 (ntok > 4 ? std::string("more than 4") : std::to_string(ntok))};
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
        throw LineError{where, "row index " + std::to_string(idx[0]) + " out of range (" +
                                   range_text(spec.base, spec.nrows) + ")"};
      }
      if (j < 0 || j >= spec.ncols) {
        throw LineError{where, "column index " + std::to_string(idx[1]) + " out of range (" +
                                   range_text(spec.base, spec.ncols) + ")"};
      }
    } else {
      for (int k = 0; k < 2; ++k) {
        if (idx[k] < spec.base) throw LineError{where, "negative vertex id " + std::to_string(idx[k])};
        if (idx[k] - spec.base > kMaxEdgeListId) {
          throw LineError{where, "vertex id " + std::to_string(idx[k]) + " too large (the limit is " +
                                     std::to_string(kMaxEdgeListId + spec.base) + ")"};
        }
      }
      out.max_id = std::max(out.max_id, std::max(i, j));
    }
    double v = 0;
    if (spec.value_columns > 0) {
      if (!parse_double(tok[2], v)) throw LineError{where, "value " + quote(tok[2]) + " is not a number"};
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
  }
  c.rows = concat(locals, &Local::rows);
  c.cols = concat(locals, &Local::cols);
  c.values = concat(locals, &Local::values);
  return c;
}

}  // namespace gbcuda::io_detail
