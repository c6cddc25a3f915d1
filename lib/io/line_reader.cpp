// File loading, progress and chunk splitting for the readers (see line_reader.hpp).
#include "io/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gbcuda::io_detail {

namespace {

// Closes a file descriptor on every path out of load().
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool want_progress(ReadOptions::Progress p, std::size_t bytes) {
  switch (p) {
    case ReadOptions::Progress::Always: return true;
    case ReadOptions::Progress::Never: return false;
    case ReadOptions::Progress::Auto: return bytes > (std::size_t(64) << 20) && ::isatty(2) == 1;
  }
  return false;
}

void Progress::show(int percent) {
  std::lock_guard<std::mutex> lock(mu_);
  percent = std::clamp(percent, 0, 100);
  if (percent == last_) return;
  last_ = percent;
  std::fprintf(stderr, "\rreading %s: %d%%", path_.c_str(), percent);
  std::fflush(stderr);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ < 0) return;
  if (last_ != 100) std::fprintf(stderr, "\rreading %s: 100%%", path_.c_str());
  std::fputc('\n', stderr);
  std::fflush(stderr);
  last_ = -1;
}

FileText FileText::load(const std::string& path, ReadOptions::Progress progress) {
  FileText f;
  f.path_ = path;
  Fd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) throw Error(Status::IoError, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw Error(Status::IoError, "cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(Status::IoError, "cannot open " + path + ": " + std::strerror(EISDIR));
  if (want_progress(progress, static_cast<std::size_t>(st.st_size))) f.progress_ = std::make_unique<Progress>(path);

  // Regular files are read in one allocation of the stat size; pipes and special files grow.
  std::size_t cap = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) + 1 : std::size_t(1) << 16;
  const std::size_t expected = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
  try {
    f.data_.reset(new char[cap]);
  } catch (const std::bad_alloc&) {
    throw Error(Status::OutOfMemory, "cannot read " + path + ": out of memory for " + std::to_string(cap) + " bytes");
  }
  std::size_t n = 0;
  constexpr std::size_t kBlock = std::size_t(16) << 20;
  for (;;) {
    if (n == cap) {
      std::size_t ncap = cap * 2;
      std::unique_ptr<char[]> bigger(new char[ncap]);
      std::memcpy(bigger.get(), f.data_.get(), n);
      f.data_ = std::move(bigger);
      cap = ncap;
    }
    ssize_t r = ::read(fd.fd, f.data_.get() + n, std::min(cap - n, kBlock));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(Status::IoError, "cannot read " + path + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    n += static_cast<std::size_t>(r);
    if (expected > 0) f.report(0.5 * static_cast<double>(std::min(n, expected)) / static_cast<double>(expected));
  }
  f.size_ = n;
  return f;
}

Index FileText::line_of(const char* p) const {
  Index line = 1;
  const char* q = begin();
  while (q < p) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(p - q)));
    if (!nl) break;
    ++line;
    q = nl + 1;
  }
  return line;
}

Index FileText::last_line() const {
  if (size_ == 0) return 1;
  // A final '\n' ends the last line rather than starting a new one.
  const char* e = end();
  if (e[-1] == '\n') --e;
  return line_of(e);
}

void FileText::fail_at(const char* p, const std::string& what) const { fail_line(line_of(p), what); }

void FileText::fail_line(Index line, const std::string& what) const {
  finish_progress();
  throw Error(Status::ParseError, path_ + ":" + std::to_string(line) + ": " + what);
}

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string out;
  out.reserve(std::min(token.size(), kMax) + 5);
  out.push_back('\'');
  out.append(token.substr(0, kMax));
  if (token.size() > kMax) out.append("...");
  out.push_back('\'');
  return out;
}

std::vector<std::pair<const char*, const char*>> split_chunks(const char* begin, const char* end,
                                                              std::size_t min_chunk_bytes) {
  std::vector<std::pair<const char*, const char*>> chunks;
  const std::size_t bytes = static_cast<std::size_t>(end - begin);
  // Several chunks per thread so that dynamic scheduling balances and progress moves.
  const std::size_t threads = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  std::size_t target = std::max(min_chunk_bytes, bytes / (threads * 8) + 1);
  const char* p = begin;
  while (p < end) {
    const char* q = p + std::min(target, static_cast<std::size_t>(end - p));
    if (q < end) {
      const char* nl = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)));
      q = nl ? nl + 1 : end;
    }
    chunks.emplace_back(p, q);
    p = q;
  }
  return chunks;
}

const char* find_data_line(const char* begin, const char* end, Index k, std::string_view comment_chars) {
  const char* p = begin;
  while (p < end) {
    const char* next;
    std::string_view line = line_at(p, end, &next);
    if (is_data_line(line, comment_chars)) {
      if (k == 0) return p;
      --k;
    }
    p = next;
  }
  return nullptr;
}

}  // namespace gbcuda::io_detail
