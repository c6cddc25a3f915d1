#pragma once
// Internal helpers shared by the readers: loading a whole file, walking its lines, parsing
// numbers with std::from_chars, and parsing line ranges in parallel chunks with exact line
// numbers in error messages. Not part of the public API.
#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gbcuda/io.hpp"

namespace gbcuda::io_detail {

// Shows "reading FILE: N%" on stderr as a single updating line. Thread-safe; prints only when
// the percentage changes.
class Progress {
 public:
  explicit Progress(std::string path) : path_(std::move(path)) {}
  void show(int percent);
  void finish();  // ends the line

 private:
  std::string path_;
  int last_ = -1;
  std::mutex mu_;
};

// Whether progress should be shown for a file of `bytes` bytes: Always, or Auto when stderr is
// a terminal and the file is larger than 64 MiB.
bool want_progress(ReadOptions::Progress p, std::size_t bytes);

// Where a reader's warnings go: ReadOptions::report and ReadOptions::on_warning, or stderr as
// "gbcuda: warning: ..." when no callback is set, so that no warning is ever lost.
class Warnings {
 public:
  Warnings() = default;
  explicit Warnings(const ReadOptions& o) : report_(o.report), callback_(o.on_warning) {}
  void operator()(const std::string& what) const;

 private:
  ReadReport* report_ = nullptr;
  std::function<void(const std::string&)> callback_;
};

// How FileText::load treats the bytes it reads.
struct LoadSettings {
  // Text: checked while they arrive (no NUL byte, no line longer than max_line); Binary: a .gbc,
  // not checked; Sniff: Binary when the first 8 bytes are the .gbc magic, else Text.
  enum class Content { Text, Binary, Sniff } content = Content::Sniff;
  std::size_t max_line = std::size_t(1) << 20;
  bool metis_limit = false;  // max_line is ReadOptions::max_metis_line_bytes (messages say so)
  ReadOptions::Progress progress = ReadOptions::Progress::Auto;
  // A FIFO opened by name: wait this long for a writer before Error(IoError) (<= 0: no limit).
  bool named_fifo = false;
  double fifo_wait_seconds = 60;
  Warnings warnings;
};

// A whole input in memory; line ends stay as written.
class FileText {
 public:
  // Reads everything from `fd` (open on `path`; `st` is its fstat), once, as a stream: pipes,
  // FIFOs and character devices work like files. Error(IoError) "cannot read FILE: ..."; text
  // is checked as it arrives, so a binary file or /dev/zero fails at once with Error(ParseError)
  // rather than filling memory. When progress is on (see want_progress), the read is the first
  // half of "reading FILE: N%".
  // Compressed data (gzip, xz, bzip2: told by the magic in its first bytes, see compression.hpp)
  // is decompressed as it arrives, and the decompressed bytes are what the FileText holds, are
  // checked and sniffed (a .gbc inside a .gz is binary); progress then counts compressed bytes.
  // A name ending in .gz, .xz or .bz2 whose content is not that compression is Error(ParseError);
  // so is corrupt or truncated compressed data (never a partial read).
  static FileText load(const std::string& path, int fd, const struct stat& st, const LoadSettings& settings);
  // The same from bytes already in memory (copied, or decompressed), as if read from a file named
  // `name`.
  static FileText from_bytes(std::string_view bytes, const std::string& name, const LoadSettings& settings);

  const std::string& path() const { return path_; }
  const char* begin() const { return data_.get(); }
  const char* end() const { return data_.get() + size_; }
  std::size_t size() const { return size_; }
  // The bytes are a .gbc file (LoadSettings::Content Binary, or sniffed), not text.
  bool binary() const { return binary_; }

  // Progress, when enabled: `fraction` of the whole job (read + parse) done.
  bool progress_enabled() const { return progress_ != nullptr; }
  void report(double fraction) const {
    if (progress_) progress_->show(static_cast<int>(100.0 * fraction));
  }
  void finish_progress() const {
    if (progress_) progress_->finish();
  }

  // A warning, as it is ("FILE: ..." is up to the caller), or about the line holding `p`.
  void warn(const std::string& what) const;
  void warn_at(const char* p, const std::string& what) const;

  // 1-based number of the line that contains `p` (counts newlines before it).
  Index line_of(const char* p) const;
  // The number of the file's last line (for "unexpected end of file").
  Index last_line() const;

  [[noreturn]] void fail_at(const char* p, const std::string& what) const;
  [[noreturn]] void fail_line(Index line, const std::string& what) const;

 private:
  // Checks the text in [from, to) of the bytes read so far, `line_start` being where the line
  // that holds `from` starts; advances it. Throws Error(ParseError) for a NUL byte or a line
  // longer than the limit.
  void check_text(std::size_t from, std::size_t to, std::size_t& line_start, const LoadSettings& settings) const;

  // Where load() and from_bytes() get their bytes: up to `n` of them into `dst`; 0 at the end.
  using RawRead = std::function<std::size_t(const FileText&, char* dst, std::size_t n)>;
  // The FileText of the bytes `read` gives (`expected` of them when known, else 0).
  static FileText stream(const std::string& path, std::size_t expected, const LoadSettings& settings,
                         const RawRead& read);
  // Reads, decompresses when the first bytes say so, checks and sniffs, into data_.
  void fill(std::size_t expected, const LoadSettings& settings, const RawRead& read);

  std::string path_;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  bool binary_ = false;
  std::unique_ptr<Progress> progress_;
  Warnings warnings_;
};

// ---- lines -------------------------------------------------------------------------------

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// The line starting at `p` (without '\n', trailing '\r' and blanks), and where the next begins.
inline std::string_view line_at(const char* p, const char* end, const char** next) {
  const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  const char* stop = nl ? nl : end;
  *next = nl ? nl + 1 : end;
  while (stop > p && is_blank(stop[-1])) --stop;
  return {p, static_cast<std::size_t>(stop - p)};
}

// Leading blanks removed.
inline std::string_view trim_front(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}

// A line that holds no data: empty/blank, or a comment starting with one of `comment_chars`.
inline bool is_data_line(std::string_view line, std::string_view comment_chars) {
  std::string_view t = trim_front(line);
  return !t.empty() && comment_chars.find(t.front()) == std::string_view::npos;
}

// Splits a line into tokens at blanks (and at commas when `commas`).
class Tokens {
 public:
  Tokens(std::string_view line, bool commas = false)
      : p_(line.data()), e_(line.data() + line.size()), commas_(commas) {}
  bool next(std::string_view& tok) {
    while (p_ < e_ && sep(*p_)) ++p_;
    if (p_ == e_) return false;
    const char* s = p_;
    while (p_ < e_ && !sep(*p_)) ++p_;
    tok = {s, static_cast<std::size_t>(p_ - s)};
    return true;
  }
  // Splits up to `max` tokens into `out`; returns how many there were (max + 1 if more).
  int split(std::string_view* out, int max) {
    int n = 0;
    std::string_view t;
    while (next(t)) {
      if (n == max) return max + 1;
      out[n++] = t;
    }
    return n;
  }

 private:
  bool sep(char c) const { return is_blank(c) || (commas_ && c == ','); }
  const char* p_;
  const char* e_;
  bool commas_;
};

// ---- numbers -----------------------------------------------------------------------------

// Why a token is not a usable integer.
enum class IntStatus { Ok, NotInteger, OutOfRange };

inline IntStatus parse_int_status(std::string_view s, std::int64_t& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return IntStatus::NotInteger;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ptr != s.data() + s.size()) return IntStatus::NotInteger;
  if (r.ec == std::errc::result_out_of_range) return IntStatus::OutOfRange;
  return r.ec == std::errc() ? IntStatus::Ok : IntStatus::NotInteger;
}

inline bool parse_int(std::string_view s, std::int64_t& v) { return parse_int_status(s, v) == IntStatus::Ok; }

// "'tok' is not an integer" or "'tok' is out of range (more than 64 bits)", for a token that
// parse_int rejected.
std::string not_an_integer(std::string_view token);

inline bool parse_double(std::string_view s, double& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  // Out-of-range values (denormal underflow, overflow) are kept as from_chars leaves them.
  return (r.ec == std::errc() || r.ec == std::errc::result_out_of_range) && r.ptr == s.data() + s.size();
}

// 'token', shortened when very long; control bytes (NUL, tab, ...) are written as escapes
// (\0, \t, \x1b), so that a message never carries raw binary data.
std::string quote(std::string_view token);

// Loops shorter than this run on one thread (starting a team costs more than it saves).
inline constexpr Index kParallelMin = Index(1) << 16;

// ---- parallel chunked parsing ------------------------------------------------------------

// Thrown by per-line parsers inside a chunk; carries where the bad line starts.
struct LineError {
  const char* where;
  std::string what;
};

// Splits [begin, end) into pieces that start at line starts.
std::vector<std::pair<const char*, const char*>> split_chunks(const char* begin, const char* end,
                                                              std::size_t min_chunk_bytes);

// Parses the lines in [begin, end) in parallel chunks. `parse_line(line, line_start, local)`
// handles one line (including blank and comment lines) and throws LineError on bad input.
// Returns one Local per chunk, in file order. The earliest error in the file is rethrown as
// Error(ParseError, "FILE:LINE: what"). Progress covers [50%, 100%] when shown.
template <class Local, class Fn>
std::vector<Local> parse_chunks(const FileText& file, const char* begin, const char* end, Fn parse_line) {
  auto chunks = split_chunks(begin, end, std::size_t(1) << 20);
  const std::size_t nchunks = chunks.size();
  std::vector<Local> locals(nchunks);
  std::vector<const char*> err_where(nchunks, nullptr);
  std::vector<std::string> err_what(nchunks);
  const double total = static_cast<double>(std::max<std::size_t>(end - begin, 1));
  std::size_t done_bytes = 0;

#pragma omp parallel for schedule(dynamic, 1) if (nchunks > 1)
  for (std::size_t c = 0; c < nchunks; ++c) {
    const char* p = chunks[c].first;
    const char* e = chunks[c].second;
    try {
      while (p < e) {
        const char* next;
        std::string_view line = line_at(p, e, &next);
        parse_line(line, p, locals[c]);
        p = next;
      }
    } catch (const LineError& err) {
      err_where[c] = err.where;
      err_what[c] = err.what;
    } catch (const std::bad_alloc&) {
      err_where[c] = p;
      err_what[c] = "out of memory while parsing";
    }
    if (file.progress_enabled()) {
      std::size_t now;
#pragma omp atomic capture
      now = done_bytes += static_cast<std::size_t>(e - chunks[c].first);
      file.report(0.5 + 0.5 * static_cast<double>(now) / total);
    }
  }
  for (std::size_t c = 0; c < nchunks; ++c)
    if (err_where[c]) file.fail_at(err_where[c], err_what[c]);
  return locals;
}

// Byte position of the start of the k-th (0-based) data line in [begin, end), or nullptr.
const char* find_data_line(const char* begin, const char* end, Index k, std::string_view comment_chars);

// Moves the per-chunk vectors `member` of `locals` into one vector, in chunk order (parallel
// copy; each chunk's vector is freed once copied).
template <class T, class Local>
std::vector<T> concat(std::vector<Local>& locals, std::vector<T> Local::*member) {
  std::vector<std::size_t> offset(locals.size() + 1, 0);
  for (std::size_t c = 0; c < locals.size(); ++c) offset[c + 1] = offset[c] + (locals[c].*member).size();
  std::vector<T> out(offset.back());
#pragma omp parallel for schedule(dynamic, 1) if (offset.back() > std::size_t(kParallelMin))
  for (std::size_t c = 0; c < locals.size(); ++c) {
    std::vector<T>& v = locals[c].*member;
    std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(offset[c]));
    std::vector<T>().swap(v);
  }
  return out;
}

// How symmetric Matrix Market kinds are expanded.
enum class Symmetry { General, Symmetric, SkewSymmetric, Hermitian };

// One "i j [value [imag]]" line per entry, for Matrix Market coordinate, headerless and edge
// list bodies.
struct CoordinateSpec {
  Index nrows = 0, ncols = 0;  // bounds (when `bounded`)
  bool bounded = true;         // false: edge lists, where n = largest id + 1
  int base = 1;                // 1 in Matrix Market and headerless files; 0 or 1 in edge lists
  int value_columns = 0;       // 0 pattern, 1 real/integer, 2 complex (real part kept)
  Symmetry symmetry = Symmetry::General;
  std::string_view comments = "%";
  bool commas = false;  // commas separate columns too
  // Edge lists written by networkx: "i j {'weight': w, ...}" (value_columns 1: every line's
  // dictionary has a 'weight'; 0: none has).
  bool attributes = false;
  const char* columns = "i j";  // how a line looks, for messages
};

struct Coordinates {
  std::vector<Index> rows, cols;
  std::vector<double> values;  // empty when value_columns == 0
  Index stored = 0;            // data lines read
  Index max_id = -1;           // largest 0-based id seen (row or column)
  Index min_id = -1;           // smallest (-1 when there are no entries)
};

// A networkx attribute dictionary "{'weight': 2.5, 'color': 'red'}" (the text from '{' to the
// line's end): whether it is well formed, and its 'weight' value's text when it has one.
struct Attributes {
  bool ok = false;
  bool has_weight = false;
  std::string_view weight;
};
Attributes parse_attributes(std::string_view dict);

// Edge lists: when the first data line (at `first`) is a CSV header ("source,target" or
// "src dst weight": 2 or 3 names, not numbers) followed by a data line of as many numbers, the
// start of the line after it; else nullptr.
const char* after_csv_header(const FileText& f, const char* first, std::string_view comments);

// Parses the data lines of [begin, end) in parallel. Checks indices (bounded) or that ids are
// non-negative and below kMaxEdgeListId; symmetric kinds add the mirror of off-diagonal entries.
Coordinates parse_coordinates(const FileText& f, const char* begin, const char* end, const CoordinateSpec& spec);

// Largest size a size line may announce (keeps sums and products of sizes checkable).
inline constexpr Index kMaxDim = Index(1) << 62;

// Largest vertex id an edge list may use: the columns are stored as 32-bit integers.
inline constexpr Index kMaxEdgeListId = 2147483646;

// ---- the Matrix Market banner -------------------------------------------------------------

// The Matrix Market banner of a file, looked for among its leading lines (blank lines and '%' or
// '#' comments before the first data line). Exact: "%%MatrixMarket ..." on line 1 (any case for
// the words after it). Lenient: meant as a banner, but with one or 3+ '%', blanks after them,
// "MatrixMarket" in another case, or after other leading lines; read with a warning. Misspelt:
// a comment that looks like a banner but is not one (the word close to "MatrixMarket", glued to
// the next word, or a comment of Matrix Market words such as "matrix coordinate real"); refused,
// never read as a comment silently.
struct BannerLine {
  enum class Kind { None, Exact, Lenient, Misspelt } kind = Kind::None;
  const char* where = nullptr;  // the line's start
  std::string_view line;        // the whole line
  std::string_view words;       // from the "MatrixMarket" word on
  std::string deviations;       // Lenient: what is off, e.g. "it has one '%'"
};
BannerLine find_banner(const FileText& f);

// ---- METIS ---------------------------------------------------------------------------------

// A METIS header "n m [fmt [ncon]]" (the first line that is neither blank nor a '%' comment).
struct MetisHeader {
  Index n = 0, m = 0;
  std::string fmt = "000";  // three digits: vertex size, vertex weights, edge weights
  bool vsize = false, vweights = false, eweights = false;
  Index ncon = 0;               // vertex weights per vertex
  int tokens = 0;               // numbers on the header line
  const char* where = nullptr;  // the header line (nullptr: no data line at all)
  const char* body = nullptr;   // the line after it
};
// Parses the header; false (with *why) when the first data line is not one.
bool parse_metis_header(const FileText& f, MetisHeader& h, std::string* why);

// Whether a file with header `h` is a whole, valid METIS file, and whether the same bytes are
// also a valid edge list (every data line as many numbers as the header, 2 or 3).
struct MetisFit {
  bool ok = false;
  bool edge_list_too = false;
};
MetisFit metis_fit(const FileText& f, const MetisHeader& h);

// ---- DIMACS and PACE ------------------------------------------------------------------------

// A DIMACS problem line "p KIND n m": the first line that is neither blank nor a 'c' comment.
struct DimacsProblem {
  enum class Kind { None, ShortestPath, Treewidth, Edge } kind = Kind::None;  // p sp, p tw, p edge|col
  Index n = 0, m = 0;
  const char* where = nullptr;  // the problem line
  const char* body = nullptr;   // the line after it
};
// True when that line is "p sp|tw|edge|col n m" with valid counts. False otherwise: *why (when
// not null) is left empty when the line is not of the shape "p WORD n m" at all, and says what
// is wrong when it is (another kind, such as "p max", or a bad count).
bool parse_dimacs_problem(const FileText& f, DimacsProblem& p, std::string* why);

// Per-format readers (the text is already loaded). Each sets every field of CooData.
CooData read_matrix_market(const FileText& f);
CooData read_headerless(const FileText& f);
CooData read_rodinia(const FileText& f, Index* source);
// Edge lists: `header` says whether a first line "N M" is a header (ReadOptions::edge_list_header).
CooData read_edge_list(const FileText& f, int base, ReadOptions::HeaderLine header);
CooData read_metis(const FileText& f);
CooData read_dimacs(const FileText& f);
// The format of a text input; *by_name (when not null) tells whether the name decided it.
FileFormat detect_format_of(const FileText& f, bool* by_name = nullptr);

}  // namespace gbcuda::io_detail
