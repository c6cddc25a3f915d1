#pragma once
// Reading and writing graphs. All readers produce 0-based coordinates; Matrix Market
// symmetric / skew-symmetric / hermitian files are expanded to both directions (the diagonal
// once). Errors are Error(ParseError) naming the file and line, or Error(IoError).
//
// No input is ever guessed silently: what a reader accepts although it is not quite the format
// (a Matrix Market banner with one '%', a CSV header line, ...) it reports as a warning (see
// ReadOptions::on_warning), and what it cannot tell apart it refuses with a message that names
// the choices. Each input is read once, as a stream, so pipes (/dev/stdin, <(...), FIFOs) work
// like files.
//
// Compressed inputs (gzip, xz, bzip2; several streams one after another read as one) are
// decompressed as they are read, in every format: they are told by their magic bytes, so pipes
// work too, and the name rules below look at the name without ".gz", ".xz" or ".bz2". A name
// with one of those endings whose content is not that compression, and corrupt or truncated
// compressed data, are Error(ParseError) naming the file; nothing of such an input is read.
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gbcuda/matrix.hpp"
#include "gbcuda/reorder.hpp"

namespace gbcuda {

enum class FileFormat {
  Auto,          // detect from the content (and the name: *.rodinia.txt, *.graph, *.metis, *.gbc, *.gr)
  MatrixMarket,  // %%MatrixMarket matrix coordinate|array ...
  Headerless,    // first line "rows cols nnz", then 1-based "i j [value]" triplets
  Rodinia,       // Rodinia BFS text: n, n lines "start degree", source, m, m lines "dest cost"
  EdgeList,      // "src dst [weight]" per line, 0-based (see ReadOptions::index_base); '#' or '%'
                 // comments; spaces, tabs or commas; a CSV header line ("source,target") is
                 // skipped; networkx's "u v {'weight': w}" and "u v {}" lines are read; a first
                 // line "N M" may be a header line (ReadOptions::edge_list_header); SNAP's comment
                 // "# Nodes: N Edges: M" sizes the matrix N x N when every id is below N, and its
                 // edge count is checked (a warning)
  Binary,        // gbcuda's binary CSR file (*.gbc, see write_binary_graph)
  Metis,         // METIS/Chaco adjacency file: "n m [fmt [ncon]]", then one line per vertex
                 // listing its 1-based neighbours (an empty line: none); '%' comments
  Dimacs,        // DIMACS/PACE graph: 'c' comments, a problem line "p KIND n m", then m 1-based
                 // lines: "p sp" (shortest paths, *.gr): arcs "a u v w", directed, w the value;
                 // "p tw" (PACE, *.gr): edges "u v"; "p edge" or "p col" (coloring): edges
                 // "e u v"; edges are undirected (both directions stored)
};
const char* to_string(FileFormat f);
// "auto", "mtx", "headerless", "rodinia", "edgelist", "gbc", "metis", "dimacs"; throws
// Error(InvalidValue) otherwise.
FileFormat parse_format(const std::string& name);

struct CooData {
  Index nrows = 0;
  Index ncols = 0;
  std::vector<Index> rows;               // 0-based
  std::vector<Index> cols;               // 0-based
  std::vector<double> values;            // one per entry, or empty for a pattern (structure-only) file
  FileFormat format = FileFormat::Auto;  // the format actually read
  std::string header;                    // e.g. "coordinate real symmetric"
  Index stored_entries = 0;              // entries as written in the file, before symmetric expansion
};

// What a read found, for callers that want to show it (ReadOptions::report).
struct ReadReport {
  FileFormat format = FileFormat::Auto;  // the format read (detected, or the one asked for)
  std::string header;                    // as CooData::header, e.g. "coordinate real symmetric"
  std::vector<std::string> warnings;     // every warning, in order ("FILE:LINE: what" for a line)
};

struct ReadOptions {
  FileFormat format = FileFormat::Auto;
  // Progress on stderr for large files; by default only when stderr is a terminal.
  enum class Progress { Auto, Always, Never } progress = Progress::Auto;
  // Rodinia files name a source vertex; it is stored here when read.
  Index* rodinia_source = nullptr;
  // Edge lists only: the smallest vertex id, 0 or 1 (a 1-based file names its first vertex 1;
  // an id 0 is then an error naming its line). Other formats have their own base; a 1 there is
  // warned about.
  int index_base = 0;
  // Edge lists only: whether a first data line of two integers "N M" is a header line (N
  // vertices, M edges: the matrix is N x N and the count is checked) or an edge. Auto: a header
  // when exactly M edge lines follow and their ids fit in N under index_base, with a warning; a
  // near miss is read as an edge with a warning naming the mismatch, and a 1-based file's header
  // read with index base 0 is refused (the rules: lib/io/detect.cpp). Yes: the first line must be
  // "N M" and is the header (a count that differs, or ids beyond N, are warned about; the matrix
  // then grows to the largest id). No: it is an edge.
  enum class HeaderLine { Auto, Yes, No } edge_list_header = HeaderLine::Auto;
  // Filled in when not null: the format read, its header, the warnings.
  ReadReport* report = nullptr;
  // Called with each warning as it happens (before a long wait, for instance). Empty: the
  // warning is printed on stderr as "gbcuda: warning: ...". Warnings also go to `report`.
  std::function<void(const std::string&)> on_warning;
  // A text line longer than this stops the read with Error(ParseError) naming the file and line,
  // as soon as it is read (a binary file or /dev/zero is not loaded whole first). METIS files
  // (named *.graph or *.metis, or format Metis) list a vertex's whole adjacency on one line and
  // get max_metis_line_bytes instead.
  std::size_t max_line_bytes = std::size_t(1) << 20;
  std::size_t max_metis_line_bytes = std::size_t(1) << 30;
  // A FIFO given by name that has no writer yet is waited for this long (a warning says so
  // first), then Error(IoError). 0 or less: wait without a limit.
  double fifo_wait_seconds = 60;
};

// Detects the format of a file from its first lines (and name). A name ending in ".gbc" or a
// file starting with the .gbc magic is Binary. Throws when it cannot tell. Reads the input (a
// pipe is consumed); warnings go as in `options` (whose `format` is ignored).
FileFormat detect_format(const std::string& path, const ReadOptions& options = {});

// Reads coordinates from any supported format.
CooData read_coo(const std::string& path, const ReadOptions& options = {});

// Reads a matrix (duplicates summed; pattern files give an iso matrix of T(1)).
template <class T>
Matrix<T> read_matrix(const std::string& path, const ReadOptions& options = {});

// Builds a matrix from coordinates read by read_coo.
template <class T>
Matrix<T> matrix_from_coo(const CooData& coo);

// Writes a Matrix Market coordinate file ("pattern" for iso bool matrices, else real/integer
// general). A file appears whole or not at all (see write_file_atomically).
template <class T>
void write_matrix_market(const std::string& path, const Matrix<T>& A);

// Binary graph file (*.gbc): the CSR arrays as they lie in memory, so a large graph loads at disk
// speed. Layout (little-endian): a 64-byte header -- magic "GBCUDA\0\1", uint32 version (1; 2: relabelled, below),
// uint32 flags (bit 0: iso, no values section; bit 2: the structure is symmetric, set when the
// writer's matrix knew it (known_symmetric_structure) and trusted by the reader, which then needs
// no transpose for it; bits 8-15: value type 1 bool, 2 int32, 3 int64, 4 float, 5 double), int64 nrows, ncols, nvals,
// the iso value's bytes (8), 8 reserved zero bytes, a 64-bit FNV-1a checksum of the 56 bytes before it -- then row_ptr
// (nrows+1 int64), col_idx (nvals int32) and, unless iso, the values (nvals of the value type). The writer makes the
// file whole or not at all (write_file_atomically). The reader checks the header, the file size and the CSR structure
// (offsets, column range, sorted rows) and throws Error(ParseError) naming the file and what is wrong; Error(IoError)
// when it cannot read. Values of another type are converted to T (for bool: dropped, structure only). A relabelled
// graph (reorder.hpp) is saved as version 2: flags bit 1 set, bits 16-23 the Ordering (1 degree, 2 rcm), the matrix in
// relabelled ids, then the original id of each vertex (nrows int64, in relabelled order). read_binary_graph and the
// generic readers give such a file back in the original ids (relabelled once more on loading); read_relabelled_graph
// keeps the relabelled matrix and its relabelling (an identity one for a version 1 file), so that an ordering is paid
// for once.
template <class T>
void write_binary_graph(const std::string& path, const Matrix<T>& A);
template <class T>
void write_binary_graph(const std::string& path, const RelabelledGraph<T>& g);
template <class T>
Matrix<T> read_binary_graph(const std::string& path);
template <class T>
RelabelledGraph<T> read_relabelled_graph(const std::string& path);
// The same image in memory (GxB_Matrix_serialize / GxB_Matrix_deserialize): serialize gives the
// bytes write_binary_graph writes, deserialize reads them back with the same checks (errors
// name "deserialize") and the same conversion of another value type.
template <class T>
std::vector<char> serialize(const Matrix<T>& A);
template <class T>
Matrix<T> deserialize(std::span<const char> bytes);
// True when `path` is a regular file that starts with the .gbc magic. Reads its first 8 bytes
// only (detect_format reads a text file whole); false for pipes, directories and files that
// cannot be opened.
bool is_binary_graph_file(const std::string& path);

// How write_file_atomically writes a path.
struct OutputTarget {
  enum class Kind {
    Create,        // nothing there yet: a new file, made whole by a rename
    Replace,       // a regular file, replaced whole by a rename; symlinks leading to it stay symlinks
    WriteThrough,  // a FIFO, a character device (/dev/null, a terminal) or the name of an open descriptor
                   // (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/PID/fd/N): opened and written in place
  };
  Kind kind = Kind::Create;
  std::string file;  // Create, Replace: the name the rename lands on (symlinks followed); WriteThrough: the path
};

// Finds how `path` would be written, without opening or creating anything (a FIFO is not opened,
// so this never waits). Throws Error(IoError) naming the path and the reason when it cannot be
// written: a directory, a block device or a socket, a missing directory or one that takes no new
// file (for Create and Replace), no write permission (WriteThrough), a loop of symlinks.
OutputTarget check_output_path(const std::string& path);

// Writes a file through `fill`, as check_output_path finds it. A regular file or a new one (also
// at the end of symlinks) goes into a temporary beside it, renamed over it on success: a failure
// leaves the old file (or none) and no temporary. A FIFO, a character device or a descriptor's
// name is opened for appending and written in place, never replaced: opening a FIFO waits for a
// reader, and a failure midway leaves what was already written. Throws Error(IoError) naming the
// path; an exception from `fill` propagates.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& fill);

#define GBCUDA_EXTERN_IO(T)                                                                  \
  extern template Matrix<T> read_matrix<T>(const std::string&, const ReadOptions&);          \
  extern template Matrix<T> matrix_from_coo<T>(const CooData&);                              \
  extern template void write_matrix_market<T>(const std::string&, const Matrix<T>&);         \
  extern template void write_binary_graph<T>(const std::string&, const Matrix<T>&);          \
  extern template void write_binary_graph<T>(const std::string&, const RelabelledGraph<T>&); \
  extern template Matrix<T> read_binary_graph<T>(const std::string&);                        \
  extern template RelabelledGraph<T> read_relabelled_graph<T>(const std::string&);           \
  extern template std::vector<char> serialize<T>(const Matrix<T>&);                          \
  extern template Matrix<T> deserialize<T>(std::span<const char>);
GBCUDA_FOR_EACH_TYPE(GBCUDA_EXTERN_IO)
#undef GBCUDA_EXTERN_IO

}  // namespace gbcuda
