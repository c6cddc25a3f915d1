// Writing: write_file_atomically and the Matrix Market writer.
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "gbcuda/io.hpp"

namespace gbcuda {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  // The temporary lies in the same directory so that rename() is atomic (same file system).
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const std::string& why) {
    std::remove(tmp.c_str());
    throw Error(Status::IoError, "cannot write " + path + ": " + why);
  };
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    try {
      fill(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    errno = 0;
    out.flush();
    if (!out) fail(errno != 0 ? std::strerror(errno) : "write failed");
    out.close();
    if (out.fail()) fail(errno != 0 ? std::strerror(errno) : "close failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(std::strerror(errno));
}

namespace {

// Appends text to a buffer flushed to the stream in large blocks (faster than operator<<).
class Writer {
 public:
  explicit Writer(std::ostream& os) : os_(os) { buf_.reserve(kFlush + 128); }
  ~Writer() = default;
  void text(std::string_view s) {
    buf_.append(s);
    maybe_flush();
  }
  void integer(std::int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
  }
  void real(double v) {
    char tmp[40];
    // Same text as printf("%.17g"): enough digits to read back the same double.
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::general, 17);
    buf_.append(tmp, r.ptr);
  }
  void ch(char c) {
    buf_.push_back(c);
    maybe_flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr std::size_t kFlush = std::size_t(1) << 20;
  void maybe_flush() {
    if (buf_.size() >= kFlush) flush();
  }
  std::ostream& os_;
  std::string buf_;
};

}  // namespace

template <class T>
void write_matrix_market(const std::string& path, const Matrix<T>& A) {
  const Csr<T>& csr = A.csr(Backend::Host);
  const bool pattern = std::is_same_v<T, bool> && csr.is_iso();
  const char* field = pattern ? "pattern" : std::is_integral_v<T> ? "integer" : "real";
  write_file_atomically(path, [&](std::ostream& os) {
    Writer w(os);
    w.text("%%MatrixMarket matrix coordinate ");
    w.text(field);
    w.text(" general\n");
    w.text("% written by gbcuda\n");
    w.integer(csr.nrows);
    w.ch(' ');
    w.integer(csr.ncols);
    w.ch(' ');
    w.integer(csr.nvals());
    w.ch('\n');
    for (Index i = 0; i < csr.nrows; ++i) {
      for (Offset k = csr.row_ptr[static_cast<std::size_t>(i)]; k < csr.row_ptr[static_cast<std::size_t>(i + 1)]; ++k) {
        w.integer(i + 1);
        w.ch(' ');
        w.integer(static_cast<Index>(csr.col_idx[static_cast<std::size_t>(k)]) + 1);
        if (!pattern) {
          const T v = csr.is_iso() ? csr.iso_value : csr.values[static_cast<std::size_t>(k)];
          w.ch(' ');
          if constexpr (std::is_integral_v<T>) {
            w.integer(static_cast<std::int64_t>(v));
          } else {
            w.real(static_cast<double>(v));
          }
        }
        w.ch('\n');
      }
    }
    w.flush();
  });
}

#define GBCUDA_INSTANTIATE_WRITE(T) template void write_matrix_market<T>(const std::string&, const Matrix<T>&);
GBCUDA_FOR_EACH_TYPE(GBCUDA_INSTANTIATE_WRITE)
#undef GBCUDA_INSTANTIATE_WRITE

}  // namespace gbcuda
