// The binary graph file (*.gbc): a 64-byte header and the CSR arrays as they lie in memory.
// The layout is documented at write_binary_graph in io.hpp. Reading is a handful of large
// read() calls straight into the matrix's arrays, then one parallel pass that checks the CSR.
#include "io/binary.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>

namespace gbcuda {
namespace {

constexpr char kMagic[8] = {'G', 'B', 'C', 'U', 'D', 'A', '\0', '\1'};
constexpr std::uint32_t kVersion = 1;            // a graph
constexpr std::uint32_t kVersionRelabelled = 2;  // a relabelled graph: version 1 plus the original ids
constexpr std::uint32_t kIsoFlag = 1;
constexpr std::uint32_t kRelabelledFlag = 2;
constexpr std::uint32_t kSymmetricFlag = 4;  // the writer knew the structure to be symmetric

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t flags;  // bit 0 iso; bit 1 relabelled; bit 2 symmetric; bits 8-15 value type code; 16-23 ordering
  std::int64_t nrows;
  std::int64_t ncols;
  std::int64_t nvals;
  std::uint64_t iso_bits;  // the iso value's bytes, zero padded
  std::uint64_t reserved;
  std::uint64_t checksum;  // FNV-1a of the bytes above
};
static_assert(sizeof(Header) == 64 && std::is_trivially_copyable_v<Header>);

std::uint64_t fnv1a(const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
std::uint64_t header_checksum(const Header& h) { return fnv1a(&h, offsetof(Header, checksum)); }

// The value type's code in the header (codes of files already written never change).
template <class T>
constexpr std::uint32_t type_code() {
  if constexpr (std::is_same_v<T, bool>) return 1;
  else if constexpr (std::is_same_v<T, std::int32_t>) return 2;
  else if constexpr (std::is_same_v<T, std::int64_t>) return 3;
  else if constexpr (std::is_same_v<T, float>) return 4;
  else if constexpr (std::is_same_v<T, double>) return 5;
  else if constexpr (std::is_same_v<T, std::int8_t>) return 6;
  else if constexpr (std::is_same_v<T, std::int16_t>) return 7;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return 8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return 9;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return 10;
  else {
    static_assert(std::is_same_v<T, std::uint64_t>);
    return 11;
  }
}

[[noreturn]] void corrupt(const std::string& path, const std::string& what) {
  throw Error(Status::ParseError, path + ": " + what);
}

// Where a .gbc file's bytes come from: a regular file, read with large read() calls straight
// into the arrays, or the bytes of an input already in memory (a .gbc read from a pipe).
class ByteSource {
 public:
  // Bytes in memory (deserialize), named `path` in messages.
  ByteSource(const char* bytes, std::size_t size, std::string path)
      : path_(std::move(path)), mem_(bytes), size_(size) {}
  explicit ByteSource(const io_detail::Input& in) : path_(in.path()) {
    if (const io_detail::FileText* t = in.text()) {
      mem_ = t->begin();
      size_ = t->size();
    } else {
      fd_ = in.binary_fd();
      size_ = in.binary_size();
      ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }

  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }
  // Reads exactly `bytes` into `dst` (the size was checked, so a short read means the file
  // changed under us: reported as truncated).
  void read(void* dst, std::size_t bytes, const char* what) {
    if (!mem_) return read_fd(dst, bytes, what);
    if (bytes > size_ - pos_) corrupt(path_, std::string("truncated file: it ends inside ") + what);
    if (bytes > 0) std::memcpy(dst, mem_ + pos_, bytes);
    pos_ += bytes;
  }
  // Moves past `bytes` without keeping them (a section the reader drops).
  void skip(std::uint64_t bytes, const char* what) {
    if (mem_) {
      if (bytes > size_ - pos_) corrupt(path_, std::string("truncated file: it ends inside ") + what);
      pos_ += bytes;
    } else if (::lseek(fd_, static_cast<off_t>(bytes), SEEK_CUR) < 0) {
      throw Error(Status::IoError, "cannot read " + path_ + ": " + std::strerror(errno));
    }
  }

 private:
  void read_fd(void* dst, std::size_t bytes, const char* what) {
    auto* p = static_cast<char*>(dst);
    while (bytes > 0) {
      const std::size_t chunk = std::min<std::size_t>(bytes, std::size_t(1) << 30);
      const ssize_t got = ::read(fd_, p, chunk);
      if (got < 0) {
        if (errno == EINTR) continue;
        throw Error(Status::IoError, "cannot read " + path_ + ": " + std::strerror(errno));
      }
      if (got == 0) corrupt(path_, std::string("truncated file: it ends inside ") + what);
      p += got;
      bytes -= static_cast<std::size_t>(got);
    }
  }

  std::string path_;
  int fd_ = -1;
  const char* mem_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
};

// Checks the CSR arrays read from a file: offsets from 0 to nvals, never decreasing, columns in
// range and strictly ascending within each row. Parallel; the first bad row is reported.
void check_csr(const std::string& path, Index nrows, Index ncols, const Offset* rp, const Vid* col, Offset nvals) {
  if (rp[0] != 0) corrupt(path, "corrupt data: row_ptr[0] is " + std::to_string(rp[0]) + ", not 0");
  if (rp[nrows] != nvals)
    corrupt(path,
            "corrupt data: row_ptr ends at " + std::to_string(rp[nrows]) + ", not at nvals " + std::to_string(nvals));
  auto row_ok = [&](Index i) {
    const Offset lo = rp[i], hi = rp[i + 1];
    if (lo < 0 || hi < lo || hi > nvals) return false;
    for (Offset p = lo; p < hi; ++p)
      if (col[p] < 0 || col[p] >= ncols || (p > lo && col[p] <= col[p - 1])) return false;
    return true;
  };
  Index first_bad = nrows;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : first_bad)
  for (Index i = 0; i < nrows; ++i)
    if (i < first_bad && !row_ok(i)) first_bad = std::min(first_bad, i);
  if (first_bad == nrows) return;
  const Index i = first_bad;
  const Offset lo = rp[i], hi = rp[i + 1];
  if (lo < 0 || hi < lo || hi > nvals)
    corrupt(path, "corrupt data: row_ptr decreases or leaves [0, nvals] at row " + std::to_string(i));
  for (Offset p = lo; p < hi; ++p) {
    if (col[p] < 0 || col[p] >= ncols)
      corrupt(path, "corrupt data: column index " + std::to_string(col[p]) + " in row " + std::to_string(i) +
                        " is outside [0, " + std::to_string(ncols) + ")");
  }
  corrupt(path, "corrupt data: row " + std::to_string(i) + " is not sorted or holds a duplicate column");
}

// Reads `n` values of the file's type U into an Array<T>.
template <class T, class U>
detail::Array<T> read_values_as(ByteSource& in, std::size_t n) {
  detail::Array<T> out(n, Backend::Host);
  if constexpr (std::is_same_v<T, U> && !std::is_same_v<T, bool>) {
    in.read(out.data(), n * sizeof(T), "the values");
  } else {
    using Stored = std::conditional_t<std::is_same_v<U, bool>, std::uint8_t, U>;  // any byte is a valid bool
    detail::Array<Stored> raw(n, Backend::Host);
    in.read(raw.data(), n * sizeof(Stored), "the values");
#pragma omp parallel for schedule(static) if (n > (std::size_t(1) << 16))
    for (std::size_t k = 0; k < n; ++k) {
      if constexpr (std::is_same_v<T, bool>) out[k] = raw[k] != 0;
      else out[k] = cast_to<T>(raw[k]);  // GraphBLAS's typecast (a float past T's range saturates)
    }
  }
  return out;
}

template <class T, class U>
T iso_as(std::uint64_t bits) {
  if constexpr (std::is_same_v<U, bool>) {
    unsigned char byte;
    std::memcpy(&byte, &bits, 1);
    return static_cast<T>(byte != 0);
  } else {
    U u;
    std::memcpy(&u, &bits, sizeof(U));
    return cast_to<T>(u);
  }
}

// Calls f(U{}) with the C++ type of a value type code.
template <class F>
decltype(auto) with_type(std::uint32_t code, F&& f) {
  switch (code) {
    case 1: return f(bool{});
    case 2: return f(std::int32_t{});
    case 3: return f(std::int64_t{});
    case 4: return f(float{});
    case 6: return f(std::int8_t{});
    case 7: return f(std::int16_t{});
    case 8: return f(std::uint8_t{});
    case 9: return f(std::uint16_t{});
    case 10: return f(std::uint32_t{});
    case 11: return f(std::uint64_t{});
    default: return f(double{});
  }
}
// Bytes a value of the type code takes; 0 for a code no type has.
std::size_t type_size(std::uint32_t code) {
  if (code < 1 || code > 11) return 0;
  return with_type(code, [](auto u) { return sizeof(u); });
}

}  // namespace

namespace {

// A .gbc file of A; with `r`, a relabelled graph (version 2): A in relabelled ids, then the
// original id of each vertex.
template <class T>
void write_gbc(const std::string& path, const Matrix<T>& A, const Relabelling* r, std::ostream* out = nullptr) {
  const Csr<T>& c = A.csr(Backend::Host);
  if (r && (A.nrows() != A.ncols() || r->size() != A.nrows()))
    throw Error(Status::InvalidValue, path + ": a relabelling of " + std::to_string(r->size()) +
                                          " vertices cannot be saved with a " + std::to_string(A.nrows()) + " x " +
                                          std::to_string(A.ncols()) + " matrix");
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = r ? kVersionRelabelled : kVersion;
  h.flags = (c.is_iso() ? kIsoFlag : 0u) | (type_code<T>() << 8);
  if (r) h.flags |= kRelabelledFlag | (static_cast<std::uint32_t>(r->ordering()) << 16);
  if (A.known_symmetric_structure().value_or(false)) h.flags |= kSymmetricFlag;
  h.nrows = c.nrows;
  h.ncols = c.ncols;
  h.nvals = c.nvals();
  std::memcpy(&h.iso_bits, &c.iso_value, sizeof(T));
  h.checksum = header_checksum(h);
  auto write = [&](std::ostream& os) {
    os.write(reinterpret_cast<const char*>(&h), sizeof h);
    // Large blocks straight from the arrays (a 0 x 0 matrix may have no row_ptr array at all).
    auto block = [&](const void* p, std::size_t bytes) {
      const auto* q = static_cast<const char*>(p);
      for (std::size_t done = 0; done < bytes;) {
        const std::size_t n = std::min<std::size_t>(bytes - done, std::size_t(1) << 30);
        os.write(q + done, static_cast<std::streamsize>(n));
        done += n;
      }
    };
    if (c.row_ptr.size() == static_cast<std::size_t>(c.nrows) + 1) {
      block(c.row_ptr.data(), c.row_ptr.bytes());
    } else {
      const Offset zero = 0;
      for (Index i = 0; i <= c.nrows; ++i) os.write(reinterpret_cast<const char*>(&zero), sizeof zero);
    }
    block(c.col_idx.data(), c.col_idx.bytes());
    if (!c.is_iso()) block(c.values.data(), c.values.bytes());
    if (r) {
      static_assert(sizeof(Index) == sizeof(std::int64_t));
      block(r->original_ids().data(), r->original_ids().size() * sizeof(Index));
    }
  };
  if (out) write(*out);
  else write_file_atomically(path, write);
}

}  // namespace

template <class T>
void write_binary_graph(const std::string& path, const Matrix<T>& A) {
  write_gbc(path, A, nullptr);
}

template <class T>
std::vector<char> serialize(const Matrix<T>& A) {
  std::ostringstream os(std::ios::binary);
  write_gbc("serialize", A, nullptr, &os);
  const std::string s = std::move(os).str();
  return std::vector<char>(s.begin(), s.end());
}

template <class T>
void write_binary_graph(const std::string& path, const RelabelledGraph<T>& g) {
  write_gbc(path, g.matrix, &g.relabelling);
}

namespace {

// Reads a .gbc file. A relabelled one (version 2) gives its relabelling in `relabelling` when that
// is not null (the matrix in relabelled ids), else the matrix back in the original ids.
template <class T>
Matrix<T> read_binary(ByteSource& in, std::string* header, Relabelling* relabelling) {
  const std::string& path = in.path();
  Header h{};
  const std::uint64_t size = in.size();
  in.read(&h, static_cast<std::size_t>(std::min<std::uint64_t>(size, sizeof h)), "the header");
  if (size < sizeof kMagic || std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    corrupt(path, "not a gbcuda binary graph (.gbc) file: bad magic (expected \"GBCUDA\\0\\1\" in the first 8 bytes)");
  if (size < sizeof h)
    corrupt(path, "truncated file: " + std::to_string(size) + " bytes, shorter than the " + std::to_string(sizeof h) +
                      "-byte .gbc header");
  if (h.checksum != header_checksum(h)) corrupt(path, "corrupt header: checksum mismatch");
  if (h.version != kVersion && h.version != kVersionRelabelled)
    corrupt(path, "unsupported .gbc version " + std::to_string(h.version) + " (this gbcuda reads versions " +
                      std::to_string(kVersion) + " and " + std::to_string(kVersionRelabelled) + ")");
  const std::uint32_t code = (h.flags >> 8) & 0xff;
  const bool iso = (h.flags & kIsoFlag) != 0;
  const bool relabelled = (h.flags & kRelabelledFlag) != 0;
  const bool symmetric = (h.flags & kSymmetricFlag) != 0;
  const std::uint32_t ordering_code = (h.flags >> 16) & 0xff;
  if (relabelled != (h.version == kVersionRelabelled))
    corrupt(path, "corrupt header: version " + std::to_string(h.version) + " with the relabelled flag " +
                      (relabelled ? "set" : "clear"));
  if (ordering_code > static_cast<std::uint32_t>(Ordering::Rcm) || (!relabelled && ordering_code != 0))
    corrupt(path, "corrupt header: unknown ordering code " + std::to_string(ordering_code));
  const auto ordering = static_cast<Ordering>(ordering_code);
  if (header) {
    *header = iso ? "gbc pattern" : "gbc values";
    if (relabelled) *header += std::string(", relabelled (") + to_string(ordering) + ")";
  }
  if (type_size(code) == 0) corrupt(path, "corrupt header: unknown value type code " + std::to_string(code));
  if (relabelled && h.nrows != h.ncols)
    corrupt(path, "corrupt header: a relabelled graph of " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  if (symmetric && h.nrows != h.ncols)
    corrupt(path,
            "corrupt header: a symmetric structure of " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  constexpr Index kMaxDim = std::numeric_limits<Vid>::max();
  if (h.nrows < 0 || h.ncols < 0 || h.nrows > kMaxDim || h.ncols > kMaxDim || h.nvals < 0 ||
      h.nvals > (std::numeric_limits<std::int64_t>::max() / 16))
    corrupt(path, "corrupt header: impossible sizes " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                      ", " + std::to_string(h.nvals) + " entries");
  const std::uint64_t nvals = static_cast<std::uint64_t>(h.nvals);
  const std::uint64_t expected = sizeof h + (static_cast<std::uint64_t>(h.nrows) + 1) * sizeof(Offset) +
                                 nvals * sizeof(Vid) + (iso ? 0 : nvals * type_size(code)) +
                                 (relabelled ? static_cast<std::uint64_t>(h.nrows) * sizeof(Index) : 0);
  if (size < expected)
    corrupt(path,
            "truncated file: " + std::to_string(size) + " bytes, the header announces " + std::to_string(expected));
  if (size > expected)
    corrupt(path, std::to_string(size - expected) + " unexpected bytes after the data (" + std::to_string(expected) +
                      " expected)");

  Csr<T> c;
  c.nrows = h.nrows;
  c.ncols = h.ncols;
  c.row_ptr = detail::Array<Offset>(static_cast<std::size_t>(h.nrows) + 1, Backend::Host);
  c.col_idx = detail::Array<Vid>(static_cast<std::size_t>(nvals), Backend::Host);
  in.read(c.row_ptr.data(), c.row_ptr.bytes(), "row_ptr");
  in.read(c.col_idx.data(), c.col_idx.bytes(), "col_idx");
  check_csr(path, c.nrows, c.ncols, c.row_ptr.data(), c.col_idx.data(), h.nvals);
  with_type(code, [&](auto u) {
    using U = decltype(u);
    if (iso) {
      c.iso_value = iso_as<T, U>(h.iso_bits);
    } else if constexpr (std::is_same_v<T, bool> && !std::is_same_v<U, bool>) {
      c.iso_value = true;                        // bool matrices are structure only: other values are dropped
      in.skip(nvals * sizeof(U), "the values");  // what follows them (original ids) is still read
    } else {
      c.values = read_values_as<T, U>(in, static_cast<std::size_t>(nvals));
    }
  });
  // The symmetry the writer knew is taken as the rest of the header is (checksummed), not checked
  // again: checking it costs the transpose it spares.
  Matrix<T> A = Matrix<T>::from_valid_csr(std::move(c), symmetric ? std::optional<bool>(true) : std::nullopt);
  if (!relabelled) {
    if (relabelling) *relabelling = Relabelling::identity(A.nrows());
    return A;
  }
  std::vector<Index> original(static_cast<std::size_t>(h.nrows));
  in.read(original.data(), original.size() * sizeof(Index), "the original ids");
  Relabelling r;
  try {
    r = Relabelling::from_original_ids(std::move(original), ordering);
  } catch (const Error& e) {
    corrupt(path, std::string("corrupt data: ") + e.what());
  }
  if (relabelling) {
    *relabelling = std::move(r);
    return A;
  }
  return relabel(A, r.inverse());  // back to the original ids
}

}  // namespace

template <class T>
Matrix<T> read_binary_graph(const std::string& path) {
  ReadOptions o;
  o.format = FileFormat::Binary;
  return io_detail::read_binary_input<T>(io_detail::open_input(path, o), nullptr);
}

bool is_binary_graph_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[sizeof kMagic] = {};
  std::size_t got = 0;
  while (got < sizeof head) {
    const ssize_t r = ::read(fd, head + got, sizeof head - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  return io_detail::has_gbc_magic(head, got);
}

template <class T>
RelabelledGraph<T> read_relabelled_graph(const std::string& path) {
  ReadOptions o;
  o.format = FileFormat::Binary;
  const io_detail::Input in = io_detail::open_input(path, o);  // outlives src, which reads its descriptor
  ByteSource src(in);
  RelabelledGraph<T> g;
  g.matrix = read_binary<T>(src, nullptr, &g.relabelling);
  return g;
}

template <class T>
Matrix<T> deserialize(std::span<const char> bytes) {
  ByteSource src(bytes.data(), bytes.size(), "deserialize");
  return read_binary<T>(src, nullptr, nullptr);
}

namespace io_detail {

bool has_gbc_magic(const char* bytes, std::size_t size) {
  return size >= sizeof kMagic && std::memcmp(bytes, kMagic, sizeof kMagic) == 0;
}

template <class T>
Matrix<T> read_binary_input(const Input& in, std::string* header) {
  ByteSource src(in);
  return read_binary<T>(src, header, nullptr);
}

CooData read_binary_coo(const Input& in) {
  const Matrix<double> A = read_binary_input<double>(in, nullptr);
  const Csr<double>& c = A.csr(Backend::Host);
  CooData coo;
  coo.nrows = c.nrows;
  coo.ncols = c.ncols;
  coo.format = FileFormat::Binary;
  coo.header = c.is_iso() ? "gbc pattern" : "gbc values";
  coo.stored_entries = c.nvals();
  coo.rows.resize(static_cast<std::size_t>(c.nvals()));
  coo.cols.resize(static_cast<std::size_t>(c.nvals()));
  if (!c.is_iso()) coo.values.assign(c.values.begin(), c.values.end());
#pragma omp parallel for schedule(dynamic, 4096)
  for (Index i = 0; i < c.nrows; ++i) {
    for (Offset p = c.row_ptr[static_cast<std::size_t>(i)]; p < c.row_ptr[static_cast<std::size_t>(i) + 1]; ++p) {
      coo.rows[static_cast<std::size_t>(p)] = i;
      coo.cols[static_cast<std::size_t>(p)] = c.col_idx[static_cast<std::size_t>(p)];
    }
  }
  return coo;
}

}  // namespace io_detail

#define GBCUDA_INSTANTIATE_BINARY(T)                                                  \
  template void write_binary_graph<T>(const std::string&, const Matrix<T>&);          \
  template void write_binary_graph<T>(const std::string&, const RelabelledGraph<T>&); \
  template Matrix<T> read_binary_graph<T>(const std::string&);                        \
  template RelabelledGraph<T> read_relabelled_graph<T>(const std::string&);           \
  template std::vector<char> serialize<T>(const Matrix<T>&);                          \
  template Matrix<T> deserialize<T>(std::span<const char>);                           \
  template Matrix<T> io_detail::read_binary_input<T>(const io_detail::Input&, std::string*);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_BINARY)
#undef GBCUDA_INSTANTIATE_BINARY

}  // namespace gbcuda
