// Writing: write_file_atomically (and check_output_path) and the Matrix Market writer.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "gbcuda/io.hpp"

namespace gbcuda {

namespace {

namespace fs = std::filesystem;

// True when `s` is one or more decimal digits.
bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// True for the names of a process's open descriptors: /dev/stdin, /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N. Their links lead to the
// descriptor's object (a pipe's link reads "pipe:[...]", no path), so they are never followed.
bool names_descriptor(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  if (s == "/dev/stdin" || s == "/dev/stdout" || s == "/dev/stderr") return true;
  for (std::string_view dir : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"})
    if (s.starts_with(dir) && all_digits(std::string_view(s).substr(dir.size()))) return true;
  constexpr std::string_view proc = "/proc/";
  if (!s.starts_with(proc)) return false;
  const std::size_t slash = s.find('/', proc.size());
  if (slash == std::string::npos || !all_digits(std::string_view(s).substr(proc.size(), slash - proc.size())))
    return false;
  const std::string_view rest = std::string_view(s).substr(slash);
  return rest.starts_with("/fd/") && all_digits(rest.substr(4));
}

// A stream buffer over a file descriptor it does not own. The first failed write() is kept in
// error(); every later write fails at once.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(std::size_t(1) << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (static_cast<std::size_t>(n) < buf_.size()) return std::streambuf::xsputn(s, n);
    return drain() && write_all(s, static_cast<std::size_t>(n)) ? n : 0;  // large blocks go straight out
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const bool ok = write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buf_.data(), buf_.data() + buf_.size());
    return ok;
  }
  bool write_all(const char* p, std::size_t n) {
    while (error_ == 0 && n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno != EINTR) error_ = errno;
        continue;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return error_ == 0;
  }
  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

// Runs `fill` over the open descriptor `fd` and closes it; throws Error(IoError) naming `path`
// when a write or the close fails. An exception from `fill` propagates (fd closed).
void fill_descriptor(int fd, const std::string& path, const std::function<void(std::ostream&)>& fill) {
  FdBuf buf(fd);
  std::ostream out(&buf);
  try {
    fill(out);
  } catch (...) {
    ::close(fd);
    throw;
  }
  out.flush();
  int err = buf.error();
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err != 0) throw Error(Status::IoError, "cannot write " + path + ": " + std::strerror(err));
  if (!out) throw Error(Status::IoError, "cannot write " + path + ": write failed");
}

}  // namespace

OutputTarget check_output_path(const std::string& path) {
  auto fail = [&](const std::string& why) { return Error(Status::IoError, "cannot write " + path + ": " + why); };
  if (path.empty()) throw Error(Status::IoError, "cannot write a file with an empty name");
  // The directory where a rename lands must take a new file (the temporary).
  auto check_directory = [&](const fs::path& file) {
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
      throw fail(errno == ENOENT ? "no directory " + dir.string() : dir.string() + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) throw fail(dir.string() + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw fail("cannot create files in " + dir.string() + " (" + std::strerror(errno) + ")");
  };
  fs::path p = path;
  for (int links = 0;; ++links) {
    if (links > 40) throw fail(std::strerror(ELOOP));
    if (names_descriptor(p)) {
      struct stat st {};
      if (::stat(p.c_str(), &st) != 0) throw fail(std::strerror(errno));
      if (S_ISDIR(st.st_mode)) throw fail(std::strerror(EISDIR));
      if (::access(p.c_str(), W_OK) != 0) throw fail(std::strerror(errno));
      return {OutputTarget::Kind::WriteThrough, path};
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) throw fail(std::strerror(errno));
      check_directory(p);  // nothing there (or a dangling link's target): a new file
      return {OutputTarget::Kind::Create, p.string()};
    }
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const fs::path target = fs::read_symlink(p, ec);
      if (ec) throw fail(ec.message());
      p = target.is_absolute() ? target : p.parent_path() / target;
      continue;
    }
    if (S_ISREG(st.st_mode)) {
      check_directory(p);
      return {OutputTarget::Kind::Replace, p.string()};
    }
    if (S_ISDIR(st.st_mode)) throw fail(std::strerror(EISDIR));
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      if (::access(p.c_str(), W_OK) != 0) throw fail(std::strerror(errno));
      return {OutputTarget::Kind::WriteThrough, path};
    }
    throw fail(S_ISBLK(st.st_mode) ? "is a block device (not written)" : "is a socket (not written)");
  }
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  const OutputTarget target = check_output_path(path);
  if (target.kind == OutputTarget::Kind::WriteThrough) {
    // In place, never created or truncated; appending keeps what a descriptor's file already holds.
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw Error(Status::IoError, "cannot write " + path + ": " + std::strerror(errno));
    fill_descriptor(fd, path, fill);
    return;
  }
  // The temporary lies in the same directory so that rename() is atomic (same file system).
  const std::string tmp = target.file + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0)  // left by a killed run with our pid
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(Status::IoError, "cannot write " + path + ": " + std::strerror(errno));
  try {
    fill_descriptor(fd, path, fill);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), target.file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(Status::IoError, "cannot write " + path + ": " + std::strerror(err));
  }
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
  template <class I>
  void integer(I v) {  // any integer type (a uint64_t past INT64_MAX stays unsigned)
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
          if constexpr (std::is_same_v<T, std::uint64_t>) {
            w.integer(v);
          } else if constexpr (std::is_integral_v<T>) {
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
