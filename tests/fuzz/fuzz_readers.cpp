// libFuzzer target for every reader: the bytes are read as each format (and detected, under
// names that steer detection) through the in-memory entry the readers share with files and
// pipes, which also decompresses gzip, xz and bzip2 bytes. A bad input may only end in gbcuda::Error with status
// ParseError, IoError or InvalidValue; anything else (another exception, a crash, a sanitizer report, coordinates out
// of range, a message carrying raw control bytes) is a bug. Built with -DGBCUDA_FUZZ=ON (clang).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gbcuda/io.hpp"
#include "io/input.hpp"

namespace {

using gbcuda::FileFormat;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_readers: %s\n", what.c_str());
  std::abort();
}

// Text meant for a terminal: no byte below 0x20, no DEL.
void check_printable(const std::string& text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) bug("raw control byte in: " + text.substr(0, 200));
  }
}

void check_coo(const gbcuda::CooData& c) {
  if (c.nrows < 0 || c.ncols < 0) bug("negative dimensions");
  if (c.rows.size() != c.cols.size()) bug("rows and cols differ in length");
  if (!c.values.empty() && c.values.size() != c.rows.size()) bug("values and rows differ in length");
  if (c.stored_entries < 0 || static_cast<std::size_t>(c.stored_entries) > c.rows.size()) bug("bad stored_entries");
  for (std::size_t k = 0; k < c.rows.size(); ++k) {
    if (c.rows[k] < 0 || c.rows[k] >= c.nrows || c.cols[k] < 0 || c.cols[k] >= c.ncols) {
      bug("entry " + std::to_string(k) + " out of range");
    }
  }
  // Building the matrix is the next step of every reader's caller (small graphs only: an edge
  // list "0 2147483646" is valid and has 2^31 vertices).
  if (c.nrows <= (1 << 16) && c.ncols <= (1 << 16)) {
    const auto A = gbcuda::matrix_from_coo<bool>(c);
    if (A.nrows() != c.nrows || A.ncols() != c.ncols) bug("matrix_from_coo changed the dimensions");
  }
}

void read_as(std::string_view bytes, const std::string& name, FileFormat format, int index_base,
             gbcuda::ReadOptions::HeaderLine header = gbcuda::ReadOptions::HeaderLine::Auto) {
  gbcuda::ReadOptions o;
  o.format = format;
  o.index_base = index_base;
  o.edge_list_header = header;
  o.progress = gbcuda::ReadOptions::Progress::Never;
  o.max_line_bytes = 4096;  // small, so that the limit is reached too
  o.max_metis_line_bytes = 1 << 16;
  gbcuda::ReadReport report;
  o.report = &report;
  o.on_warning = [](const std::string& w) { check_printable(w); };
  gbcuda::Index source = -1;
  o.rodinia_source = &source;
  try {
    const gbcuda::io_detail::Input in = gbcuda::io_detail::input_from_bytes(bytes, name, o);
    const gbcuda::CooData c = gbcuda::io_detail::read_coo_input(in, o);
    check_coo(c);
    if (format != FileFormat::Auto && c.format != format) bug("read in another format than asked for");
    if (report.format != c.format) bug("the report names another format");
    if (c.format == FileFormat::Rodinia && c.nrows > 0 && (source < 0 || source >= c.nrows)) bug("bad source");
  } catch (const gbcuda::Error& e) {
    const gbcuda::Status s = e.status();
    if (s != gbcuda::Status::ParseError && s != gbcuda::Status::IoError && s != gbcuda::Status::InvalidValue) {
      bug(std::string("unexpected status ") + gbcuda::to_string(s) + ": " + e.what());
    }
    check_printable(e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Detection, under names that steer it.
  // (Compressed bytes are told by their magic under any name; a name ending in .gz must hold
  // gzip data.)
  for (const char* name : {"fuzz.txt", "fuzz.graph", "fuzz.rodinia.txt", "fuzz.gbc", "fuzz.gr", "fuzz.gbc.gz"}) {
    read_as(bytes, name, FileFormat::Auto, 0);
  }
  // Each reader, asked for by name.
  for (FileFormat f : {FileFormat::MatrixMarket, FileFormat::Headerless, FileFormat::Rodinia, FileFormat::EdgeList,
                       FileFormat::Binary, FileFormat::Metis, FileFormat::Dimacs}) {
    read_as(bytes, "fuzz.txt", f, 0);
  }
  read_as(bytes, "fuzz.txt", FileFormat::EdgeList, 1);
  // An edge list's first line "N M" forced to be a header, or an edge.
  read_as(bytes, "fuzz.txt", FileFormat::EdgeList, 0, gbcuda::ReadOptions::HeaderLine::Yes);
  read_as(bytes, "fuzz.txt", FileFormat::EdgeList, 1, gbcuda::ReadOptions::HeaderLine::No);
  return 0;
}
