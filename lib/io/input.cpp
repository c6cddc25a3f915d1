// Opening and loading inputs once, as streams (see input.hpp): regular files, pipes, FIFOs and
// character devices; the text checks that run while the bytes arrive.
#include "io/input.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <new>
#include <utility>

#include "io/compression.hpp"
#include "io/gbc_magic.hpp"

namespace gbcuda::io_detail {

namespace {

[[noreturn]] void cannot(const char* what, const std::string& path, int err) {
  throw Error(Status::IoError, std::string("cannot ") + what + " " + path + ": " + std::strerror(err));
}

// The descriptor a path names when it is one this process inherited: /dev/stdin, /dev/fd/N,
// /proc/self/fd/N; -1 otherwise.
int inherited_fd(const std::string& path) {
  if (path == "/dev/stdin") return 0;
  std::string_view digits;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) digits = path;
    if (!digits.empty()) {
      digits.remove_prefix(prefix.size());
      break;
    }
  }
  std::int64_t n;
  if (digits.empty() || !parse_int(digits, n) || n < 0 || n > INT_MAX) return -1;
  return static_cast<int>(n);
}

struct Opened {
  int fd = -1;
  struct stat st {};
  bool named_fifo = false;  // a FIFO we opened by name: it may have no writer yet
};

// Opens `path` for reading, without blocking: open() on a FIFO with no writer would wait forever.
// A pipe or socket this process inherited is read through its own descriptor (dup): reopening it
// through /proc works for a pipe but not a socket, and only the original descriptor sees that a
// finished writer has closed it.
Opened open_path(const std::string& path) {
  Opened o;
  if (const int n = inherited_fd(path); n >= 0) {
    struct stat st {};
    if (::fstat(n, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
      o.fd = ::fcntl(n, F_DUPFD_CLOEXEC, 0);
      if (o.fd < 0) cannot("read", path, errno);
      o.st = st;
      return o;
    }
  }
  o.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (o.fd < 0) cannot("open", path, errno);
  if (::fstat(o.fd, &o.st) != 0) {
    const int e = errno;
    ::close(o.fd);
    cannot("read", path, e);
  }
  if (S_ISDIR(o.st.st_mode)) {
    ::close(o.fd);
    cannot("open", path, EISDIR);
  }
  o.named_fifo = S_ISFIFO(o.st.st_mode);
  return o;
}

// Waits until a non-regular input can be read. A FIFO opened by name reports neither data nor
// end of file until a writer comes (read() would say end of file): the first wait says so once
// (a warning) and is bounded.
class Waiter {
 public:
  Waiter(int fd, const std::string& path, const LoadSettings& s) : fd_(fd), path_(path), settings_(s) {}

  // Before a read(): a named FIFO must first see a writer (a read() would return end of file).
  void before_read(const FileText& f) {
    if (settings_.named_fifo && !writer_seen_) wait_for_writer(f);
  }
  // After read() said EAGAIN: no data yet, the writer is still there.
  void wait_for_data() {
    pollfd p{fd_, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0) {
      if (errno != EINTR) cannot("read", path_, errno);
    }
  }

 private:
  void wait_for_writer(const FileText& f) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, 0);
    if (r == 0) {
      const double limit = settings_.fifo_wait_seconds;
      const bool bounded = limit > 0;
      f.warn(path_ + ": a FIFO with nothing written yet; waiting " +
             (bounded ? "up to " + seconds_text(limit) + " " : "") + "for a writer");
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(bounded ? limit : 0);
      for (;;) {
        int timeout = -1;
        if (bounded) {
          const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
          if (left <= 0) {
            throw Error(Status::IoError,
                        "cannot read " + path_ + ": nothing was written to the FIFO within " + seconds_text(limit));
          }
          timeout = static_cast<int>(std::min(std::ceil(left * 1000), double(INT_MAX)));
        }
        r = ::poll(&p, 1, timeout);
        if (r > 0) break;
        if (r < 0 && errno != EINTR) cannot("read", path_, errno);
      }
    } else if (r < 0) {
      cannot("read", path_, errno);
    }
    writer_seen_ = true;
  }

  static std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
  }

  int fd_;
  const std::string& path_;
  const LoadSettings& settings_;
  bool writer_seen_ = false;
};

std::unique_ptr<char[]> allocate(std::size_t bytes, const std::string& path) {
  try {
    return std::unique_ptr<char[]>(new char[bytes]);
  } catch (const std::bad_alloc&) {
    throw Error(Status::OutOfMemory, "cannot read " + path + ": out of memory for " + std::to_string(bytes) + " bytes");
  }
}

}  // namespace

// ---- FileText: loading and the text checks ---------------------------------------------------

void FileText::check_text(std::size_t from, std::size_t to, std::size_t& line_start,
                          const LoadSettings& settings) const {
  const char* base = data_.get();
  if (const void* nul = std::memchr(base + from, '\0', to - from)) {
    const char* p = static_cast<const char*>(nul);
    const char* ls = p;
    while (ls > base && ls[-1] != '\n') --ls;
    fail_at(p, "column " + std::to_string(p - ls + 1) + ": NUL byte (binary data in a text file?)");
  }
  auto too_long = [&](std::size_t start) {
    // METIS lines hold whole adjacency lists: they get a larger limit, when the reader knows.
    constexpr const char* kMetisNote =
        " A METIS file may have longer lines when named *.graph or read with --format metis";
    fail_at(base + start, "line longer than " + std::to_string(settings.max_line) +
                              " bytes (binary data in a text file?" + (settings.metis_limit ? "" : kMetisNote) + ")");
  };
  std::size_t p = from;
  while (p < to) {
    const void* nl = std::memchr(base + p, '\n', to - p);
    if (!nl) break;
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
    if (at - line_start > settings.max_line) too_long(line_start);
    line_start = at + 1;
    p = at + 1;
  }
  if (to - line_start > settings.max_line) too_long(line_start);
}

FileText FileText::load(const std::string& path, int fd, const struct stat& st, const LoadSettings& settings) {
  const bool regular = S_ISREG(st.st_mode);
  if (regular) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Waiter waiter(fd, path, settings);
  auto read_some = [&](const FileText& f, char* dst, std::size_t bytes) -> std::size_t {
    for (;;) {
      if (!regular) waiter.before_read(f);
      const ssize_t r = ::read(fd, dst, bytes);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        waiter.wait_for_data();
        continue;
      }
      cannot("read", path, errno);
    }
  };
  return stream(path, regular ? static_cast<std::size_t>(st.st_size) : 0, settings, read_some);
}

FileText FileText::from_bytes(std::string_view bytes, const std::string& name, const LoadSettings& settings) {
  LoadSettings s = settings;
  s.progress = ReadOptions::Progress::Never;
  std::size_t pos = 0;
  return stream(name, bytes.size(), s, [&](const FileText&, char* dst, std::size_t n) {
    n = std::min(n, bytes.size() - pos);
    if (n > 0) std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return n;
  });
}

FileText FileText::stream(const std::string& path, std::size_t expected, const LoadSettings& settings,
                          const RawRead& read) {
  FileText f;
  f.path_ = path;
  f.warnings_ = settings.warnings;
  if (expected > 0 && want_progress(settings.progress, expected)) f.progress_ = std::make_unique<Progress>(path);
  try {
    f.fill(expected, settings, read);
  } catch (...) {
    f.finish_progress();
    throw;
  }
  return f;
}

void FileText::fill(std::size_t expected, const LoadSettings& settings, const RawRead& read) {
  // Inputs of a known size (regular files, bytes in memory) get one allocation of that size
  // (enough unless compressed); pipes, special files and decompressed data grow it.
  std::size_t cap = std::max(expected + 1, kCompressionMagicBytes);
  data_ = allocate(cap, path_);
  auto make_room = [&] {
    if (size_ < cap) return;
    std::unique_ptr<char[]> bigger = allocate(cap * 2, path_);
    std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    cap *= 2;
  };
  // The (decompressed) bytes at [size_, size_ + n) have arrived: sniffed, and checked as text.
  LoadSettings::Content content = settings.content;
  std::size_t checked = 0, line_start = 0;
  auto arrived = [&](std::size_t n) {
    size_ += n;
    if (content == LoadSettings::Content::Sniff && size_ >= kGbcMagicBytes) {
      content = has_gbc_magic(data_.get(), size_) ? LoadSettings::Content::Binary : LoadSettings::Content::Text;
    }
    if (content == LoadSettings::Content::Text) {
      check_text(checked, size_, line_start, settings);
      checked = size_;
    }
  };
  // Progress counts the bytes read from the input (compressed ones for compressed data).
  std::size_t raw_total = 0;
  auto progressed = [&] {
    if (expected > 0) report(0.5 * static_cast<double>(std::min(raw_total, expected)) / static_cast<double>(expected));
  };

  // The first bytes tell compressed data; a name ending in .gz, .xz or .bz2 must match them.
  char head[kCompressionMagicBytes];
  std::size_t nhead = 0;
  while (nhead < sizeof head) {
    const std::size_t got = read(*this, head + nhead, sizeof head - nhead);
    if (got == 0) break;
    nhead += got;
  }
  raw_total = nhead;
  const Compression compression = compression_of(head, nhead);
  if (const Compression named = named_compression(path_); named != Compression::None && named != compression) {
    throw Error(Status::ParseError,
                path_ + ": named like a " + to_string(named) + " file, but its content is " +
                    (compression == Compression::None ? std::string("not compressed data")
                                                      : std::string(to_string(compression)) + " data") +
                    " (a " + to_string(named) + " file starts with " +
                    (named == Compression::Gzip ? "the bytes 1f 8b"
                     : named == Compression::Xz ? "the bytes fd 37 7a 58 5a 00"
                                                : "'BZh'") +
                    "); rename it to match its content");
  }

  constexpr std::size_t kBlock = std::size_t(16) << 20;
  if (compression == Compression::None) {
    std::memcpy(data_.get(), head, nhead);
    arrived(nhead);
    for (;;) {
      make_room();
      const std::size_t got = read(*this, data_.get() + size_, std::min(cap - size_, kBlock));
      if (got == 0) break;
      raw_total += got;
      arrived(got);
      progressed();
    }
  } else {
    // Streamed through the decoder: the compressed bytes pass through a buffer of kRaw bytes,
    // the decompressed ones go straight into data_.
    const std::unique_ptr<Decoder> decoder = Decoder::make(compression, path_);
    constexpr std::size_t kRaw = std::size_t(1) << 20;
    const std::unique_ptr<char[]> raw = allocate(kRaw, path_);
    std::memcpy(raw.get(), head, nhead);
    std::size_t raw_size = nhead;
    bool at_end = nhead < sizeof head;
    for (;;) {
      const char* in = raw.get();
      std::size_t in_size = raw_size;
      for (;;) {
        make_room();
        char* out = data_.get() + size_;
        const std::size_t room = cap - size_;
        std::size_t out_size = room;
        const bool done = decoder->decode(&in, &in_size, &out, &out_size, at_end);
        arrived(room - out_size);
        if (done || (!at_end && in_size == 0 && out_size > 0)) break;
      }
      progressed();
      if (at_end) break;
      raw_size = read(*this, raw.get(), kRaw);
      raw_total += raw_size;
      at_end = raw_size == 0;
    }
  }
  if (content == LoadSettings::Content::Sniff) content = LoadSettings::Content::Text;  // shorter than the magic
  if (content == LoadSettings::Content::Text) check_text(checked, size_, line_start, settings);
  binary_ = content == LoadSettings::Content::Binary;
}

// ---- Input -----------------------------------------------------------------------------------

Input::Input(Input&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      text_(std::move(other.text_)) {}

Input& Input::operator=(Input&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    text_ = std::move(other.text_);
  }
  return *this;
}

Input::~Input() {
  if (fd_ >= 0) ::close(fd_);
}

bool named_metis(std::string_view path) {
  const std::string_view name = name_without_compression(path);
  return name.ends_with(".graph") || name.ends_with(".metis");
}

namespace {

LoadSettings settings_for(const std::string& path, const ReadOptions& o) {
  LoadSettings s;
  switch (o.format) {
    case FileFormat::Binary: s.content = LoadSettings::Content::Binary; break;
    case FileFormat::Auto:
      s.content = name_without_compression(path).ends_with(".gbc") ? LoadSettings::Content::Binary
                                                                   : LoadSettings::Content::Sniff;
      break;
    default: s.content = LoadSettings::Content::Text;
  }
  s.metis_limit = o.format == FileFormat::Metis || (o.format == FileFormat::Auto && named_metis(path));
  s.max_line = s.metis_limit ? o.max_metis_line_bytes : o.max_line_bytes;
  s.progress = o.progress;
  s.fifo_wait_seconds = o.fifo_wait_seconds;
  s.warnings = Warnings(o);
  return s;
}

}  // namespace

Input open_input(const std::string& path, const ReadOptions& options) {
  LoadSettings s = settings_for(path, options);
  const Opened o = open_path(path);
  Input in;
  in.path_ = path;
  in.fd_ = o.fd;  // owned by `in` from here on; released below unless kept for the binary reader
  if (S_ISREG(o.st.st_mode) && s.content != LoadSettings::Content::Text &&
      named_compression(path) == Compression::None) {
    // A regular file: the .gbc magic can be read without consuming anything. Compressed data
    // (told by its magic, or by its name, which FileText::load checks) is loaded and decompressed.
    char head[kGbcMagicBytes];
    ssize_t got;
    do {
      got = ::pread(o.fd, head, sizeof head, 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) cannot("read", path, errno);
    const bool compressed = compression_of(head, static_cast<std::size_t>(got)) != Compression::None;
    if (!compressed &&
        (s.content == LoadSettings::Content::Binary || has_gbc_magic(head, static_cast<std::size_t>(got)))) {
      in.size_ = static_cast<std::uint64_t>(o.st.st_size);
      return in;
    }
    if (!compressed) s.content = LoadSettings::Content::Text;
  }
  s.named_fifo = o.named_fifo;
  in.text_ = FileText::load(path, o.fd, o.st, s);
  ::close(std::exchange(in.fd_, -1));
  return in;
}

Input input_from_bytes(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  Input in;
  in.path_ = name;
  in.text_ = FileText::from_bytes(bytes, name, settings_for(name, options));
  return in;
}

}  // namespace gbcuda::io_detail
