// Format names, format detection and the read_coo entry point.
#include <cctype>
#include <string>

#include "io/binary.hpp"
#include "io/compression.hpp"
#include "io/input.hpp"
#include "io/line_reader.hpp"

namespace gbcuda {

const char* to_string(FileFormat f) {
  switch (f) {
    case FileFormat::Auto: return "auto";
    case FileFormat::MatrixMarket: return "mtx";
    case FileFormat::Headerless: return "headerless";
    case FileFormat::Rodinia: return "rodinia";
    case FileFormat::EdgeList: return "edgelist";
    case FileFormat::Binary: return "gbc";
    case FileFormat::Metis: return "metis";
    case FileFormat::Dimacs: return "dimacs";
  }
  return "?";
}

FileFormat parse_format(const std::string& name) {
  for (FileFormat f : {FileFormat::Auto, FileFormat::MatrixMarket, FileFormat::Headerless, FileFormat::Rodinia,
                       FileFormat::EdgeList, FileFormat::Binary, FileFormat::Metis, FileFormat::Dimacs}) {
    if (name == to_string(f)) return f;
  }
  throw Error(Status::InvalidValue, "unknown file format '" + name +
                                        "' (expected auto, mtx, headerless, rodinia, edgelist, gbc, metis or dimacs)");
}

namespace io_detail {

namespace {

// Integer tokens of a line (commas separate too); returns the count, -1 when a token is not an
// integer, or max + 1 when there are more than `max`.
int integer_tokens(std::string_view line, std::int64_t* out, int max) {
  std::string_view tok[4];
  const int n = Tokens(line, true).split(tok, max);
  if (n > max) return n;
  for (int k = 0; k < n; ++k)
    if (!parse_int(tok[k], out[k])) return -1;
  return n;
}

// Counts the data lines in [begin, end) (parallel over chunks).
Index count_data_lines(const char* begin, const char* end, std::string_view comments) {
  auto chunks = split_chunks(begin, end, std::size_t(1) << 20);
  Index total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 1) if (chunks.size() > 1)
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const char* p = chunks[c].first;
    while (p < chunks[c].second) {
      const char* next;
      if (is_data_line(line_at(p, chunks[c].second, &next), comments)) ++total;
      p = next;
    }
  }
  return total;
}

}  // namespace

// Detection, in order (comment lines start with '%' or '#'; blank lines are skipped):
//  1. a Matrix Market banner among the leading comment lines (see find_banner; a misspelt one
//     is refused)                                                      -> Matrix Market;
//  2. the first line that is neither blank nor a 'c' comment is a DIMACS problem line
//     "p sp|tw|edge|col n m"                                            -> DIMACS
//     ("p WORD n m" of another kind, such as "p max", or with a bad count: refused, naming the
//     kinds read; a name ending in ".gr" without such a line: a warning, and detection goes on);
//  3. the file name ends in ".rodinia.txt"                              -> Rodinia;
//  4. the name ends in ".graph" or ".metis" and the first data line is a METIS header
//     "n m [fmt [ncon]]"                                                -> METIS
//     (another first line: a warning, and detection goes on from the content);
//  5. the first data line is one integer n, and the next data line is
//     two integers (or n is 0)                                          -> Rodinia;
//  6. the first data line is three non-negative integers "r c k", and the first 1000 data lines
//     after it are "i j [value]" with 1 <= i <= r, 1 <= j <= c: exactly k data lines follow
//                                                                       -> headerless;
//  7. the whole file is a valid METIS file (header, n vertex lines, neighbours in 1..n adding
//     up to 2m)                                                         -> METIS;
//  8. the first data line (after a CSV header line "source,target", if any) is "src dst
//     [weight]" (two non-negative integers, an optional number; blanks or commas between) or
//     networkx's "src dst {attributes}"                                 -> edge list.
// The names are looked at without a compression suffix (".gz", ".xz", ".bz2").
//
// An edge list's first data line "N M" (two non-negative integers, no CSV header before it) is
// then either a header line (N vertices, M edges: many SNAP-derived files) or an edge; the edge
// list reader decides (ReadOptions::edge_list_header: --header yes|no force it), looking at the
// K data lines after it and their ids under the index base in use:
//   a. K == M and every id fits in N (0..N-1, or 1..N with index base 1)  -> a header line,
//      with a warning naming the file, the line and --header no (one line "N 0": the header
//      of a graph without edges);
//   b. K == M and, under index base 0, the ids are 1..N (a 1-based file's header)
//                                                          -> refused, naming --index-base 1
//                                                             and --header no;
//   c. N >= 1 and either K == M (ids beyond N) or K > 0 ids fitting in N (or 1..N) with another
//      count                                               -> an edge, with a warning naming the
//      mismatch and --header yes (refused when the lines after it have weights: two columns
//      are not an edge there either);
//   d. anything else                                       -> an edge, silently (an ordinary
//      edge list: K == M or ids all below the first line's source are both rare by chance).
// A forced header (--header yes) may have another count or larger ids: each is a warning, and
// the matrix grows to the largest id. SNAP's leading comment "# Nodes: N Edges: M" sizes the
// matrix N x N when every id is below N (else by the largest id, with a warning: SNAP ids need
// not be contiguous), and an edge count other than M is a warning.
// What fits two formats is refused with a message naming both and --format: a valid METIS
// file that is also a valid edge list (every line two numbers, say) or headerless file; a
// headerless shape (5) with another count than announced is refused too (a headerless file
// with a wrong count, or an edge list whose first lines look like one). Otherwise ParseError
// "cannot detect the format of FILE (...); use --format".
FileFormat detect_format_of(const FileText& f, bool* by_name) {
  if (by_name) *by_name = false;
  const BannerLine banner = find_banner(f);
  if (banner.kind == BannerLine::Kind::Misspelt) {
    f.fail_at(banner.where, quote(banner.line) +
                                " looks like a misspelt Matrix Market banner: write '%%MatrixMarket matrix "
                                "coordinate|array FIELD SYMMETRY' on line 1 to read the file as Matrix Market, or use "
                                "--format to read it as another format (this line is then a comment)");
  }
  if (banner.kind != BannerLine::Kind::None) return FileFormat::MatrixMarket;
  DimacsProblem dimacs;
  std::string not_dimacs;
  if (parse_dimacs_problem(f, dimacs, &not_dimacs)) return FileFormat::Dimacs;
  if (!not_dimacs.empty()) {
    f.fail_at(dimacs.where, not_dimacs + "; use --format to read the file as another format");
  }
  if (name_without_compression(f.path()).ends_with(".gr")) {
    f.warn(f.path() +
           ": named like a DIMACS or PACE graph (*.gr), but the first line that is not a 'c' comment is not a "
           "problem line 'p sp|tw N M'; detecting the format from the content");
  }
  if (name_without_compression(f.path()).ends_with(".rodinia.txt")) {
    if (by_name) *by_name = true;
    return FileFormat::Rodinia;
  }
  MetisHeader metis;
  std::string not_metis;
  const bool metis_header = parse_metis_header(f, metis, &not_metis);
  if (named_metis(f.path())) {
    if (metis_header) {
      if (by_name) *by_name = true;
      return FileFormat::Metis;
    }
    f.warn((metis.where ? f.path() + ":" + std::to_string(f.line_of(metis.where)) : f.path()) +
           ": named like a METIS file, but " + not_metis + "; detecting the format from the content");
  }

  constexpr std::string_view kComments = "%#";
  auto fail = [&](const char* where, const std::string& why) {
    f.finish_progress();
    const std::string at = where ? "line " + std::to_string(f.line_of(where)) : "line " + std::to_string(f.last_line());
    throw Error(Status::ParseError,
                "cannot detect the format of " + f.path() + " (" + at + ": " + why + "); use --format");
  };
  const char* first = find_data_line(f.begin(), f.end(), 0, kComments);
  if (!first) fail(nullptr, "no data lines");
  const char* body;
  const std::string_view line = line_at(first, f.end(), &body);
  std::int64_t v[4];
  const int nint = integer_tokens(line, v, 3);

  if (nint == 1) {
    const char* second = find_data_line(body, f.end(), 0, kComments);
    std::int64_t w[4];
    const char* next;
    if (v[0] == 0 || (second && integer_tokens(line_at(second, f.end(), &next), w, 3) == 2)) return FileFormat::Rodinia;
    fail(first, "one number, but the next line is not 'start degree' as in a Rodinia file");
  }
  // Headerless: its shape, and whether the count fits.
  bool headerless_shape = false;
  Index headerless_found = 0;
  if (nint == 3 && v[0] >= 0 && v[1] >= 0 && v[2] >= 0) {
    headerless_shape = true;
    const char* p = body;
    for (int k = 0; k < 1000 && p < f.end() && headerless_shape; ++k) {
      const char* q = find_data_line(p, f.end(), 0, kComments);
      if (!q) break;
      const std::string_view entry = line_at(q, f.end(), &p);
      std::string_view tok[4];
      const int ntok = Tokens(entry).split(tok, 3);
      std::int64_t i, j;
      double x;
      headerless_shape = (ntok == 2 || ntok == 3) && parse_int(tok[0], i) && parse_int(tok[1], j) && i >= 1 &&
                         i <= v[0] && j >= 1 && j <= v[1] && (ntok == 2 || parse_double(tok[2], x));
    }
    if (headerless_shape) headerless_found = count_data_lines(body, f.end(), kComments);
  }
  const bool headerless = headerless_shape && headerless_found == v[2];
  // METIS from the content alone: only a whole valid file, and only when nothing else fits.
  const MetisFit fit = metis_header && metis.where == first ? metis_fit(f, metis) : MetisFit{};
  const std::string named_metis = " (or name the file *.graph)";
  if (fit.ok && headerless) {
    f.fail_at(first,
              "the file is both a valid METIS file and a valid headerless file; use --format metis or "
              "--format headerless" +
                  named_metis);
  }
  if (headerless) return FileFormat::Headerless;
  if (fit.ok) {
    if (!fit.edge_list_too) return FileFormat::Metis;
    f.fail_at(first,
              "the file is both a valid METIS file (header 'n m', then one line per vertex) and a valid edge "
              "list; use --format metis or --format edgelist" +
                  named_metis);
  }
  if (headerless_shape) {
    f.fail_at(first, "this looks like a headerless file's size line 'rows cols entries' announcing " +
                         std::to_string(v[2]) + " entries, and the lines after it are 1-based entries in range, but " +
                         std::to_string(headerless_found) + " follow; fix the count, or use --format (edgelist for " +
                         "an edge list whose first line has three numbers)");
  }
  // Edge list: "src dst [weight]" or "src dst {attributes}", after a CSV header line if any.
  const char* edge = first;
  std::string_view edge_line = line;
  if (const char* after = after_csv_header(f, first, kComments)) {
    edge = find_data_line(after, f.end(), 0, kComments);
    const char* next;
    edge_line = line_at(edge, f.end(), &next);
  }
  std::string_view tok[4];
  const std::size_t brace = edge_line.find('{');
  const bool attributes = brace != std::string_view::npos;
  const int ntok = Tokens(edge_line.substr(0, brace), true).split(tok, 3);
  std::int64_t src, dst;
  double w;
  if (parse_int(tok[0], src) && parse_int(tok[1], dst) && src >= 0 && dst >= 0 &&
      (attributes ? ntok == 2 && parse_attributes(edge_line.substr(brace)).ok
                  : ntok == 2 || (ntok == 3 && parse_double(tok[2], w)))) {
    return FileFormat::EdgeList;
  }
  fail(edge, "not a Matrix Market banner, a DIMACS problem line, a Rodinia, headerless, METIS or edge-list line: " +
                 quote(edge_line));
  return FileFormat::Auto;  // not reached
}

FileFormat detect_input_format(const Input& in) {
  if (in.binary()) return FileFormat::Binary;
  return detect_format_of(*in.text());
}

CooData read_coo_input(const Input& in, const ReadOptions& options) {
  if (options.index_base != 0 && options.index_base != 1) {
    throw Error(Status::InvalidValue, "index base " + std::to_string(options.index_base) + " (expected 0 or 1)");
  }
  CooData coo;
  if (in.binary()) {
    coo = read_binary_coo(in);
  } else {
    const FileText& f = *in.text();
    bool by_name = false;
    const FileFormat format = options.format == FileFormat::Auto ? detect_format_of(f, &by_name) : options.format;
    if (options.format != FileFormat::Auto && format != FileFormat::MatrixMarket) {
      // The format was asked for: a banner-like line is a comment, but say so.
      const BannerLine banner = find_banner(f);
      if (banner.kind != BannerLine::Kind::None) {
        f.warn_at(banner.where, "read " + quote(banner.line) +
                                    " as a comment although it looks like a Matrix Market "
                                    "banner, because the format asked for is " +
                                    to_string(format));
      }
    }
    try {
      switch (format) {
        case FileFormat::MatrixMarket: coo = read_matrix_market(f); break;
        case FileFormat::Headerless: coo = read_headerless(f); break;
        case FileFormat::Rodinia: coo = read_rodinia(f, options.rodinia_source); break;
        case FileFormat::EdgeList: coo = read_edge_list(f, options.index_base, options.edge_list_header); break;
        case FileFormat::Metis: coo = read_metis(f); break;
        case FileFormat::Dimacs: coo = read_dimacs(f); break;
        case FileFormat::Binary:  // in.binary() above
        case FileFormat::Auto: break;
      }
    } catch (const Error& e) {
      if (!by_name || e.status() != Status::ParseError) throw;
      throw Error(Status::ParseError, std::string(e.what()) + " (read as " + to_string(format) +
                                          " because of the file's name; --format chooses another format)");
    }
    f.finish_progress();
  }
  finish_read(in, options, coo.format, coo.header);
  return coo;
}

void finish_read(const Input& in, const ReadOptions& options, FileFormat format, const std::string& header) {
  if (options.index_base != 0 && format != FileFormat::EdgeList) {
    const bool zero_based = format == FileFormat::Rodinia || format == FileFormat::Binary;  // else 1-based
    const Warnings warn(options);
    warn(in.path() + ": index base " + std::to_string(options.index_base) +
         " applies to edge lists only; this file is read as " + to_string(format) + ", whose ids are " +
         (zero_based ? "0-based" : "1-based") + " by definition");
  }
  if (options.report) {
    options.report->format = format;
    options.report->header = header;
  }
}

}  // namespace io_detail

FileFormat detect_format(const std::string& path, const ReadOptions& options) {
  ReadOptions o = options;
  o.format = FileFormat::Auto;
  o.progress = ReadOptions::Progress::Never;
  return io_detail::detect_input_format(io_detail::open_input(path, o));
}

CooData read_coo(const std::string& path, const ReadOptions& options) {
  return io_detail::read_coo_input(io_detail::open_input(path, options), options);
}

}  // namespace gbcuda
