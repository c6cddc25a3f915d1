// Progress, warnings, line numbers, quoting and chunk splitting for the readers (see
// line_reader.hpp; loading is in input.cpp).
#include "io/line_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gbcuda::io_detail {

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

void Warnings::operator()(const std::string& what) const {
  if (report_) report_->warnings.push_back(what);
  if (callback_) {
    callback_(what);
  } else {
    std::fprintf(stderr, "gbcuda: warning: %s\n", what.c_str());
    std::fflush(stderr);
  }
}

void FileText::warn(const std::string& what) const {
  if (progress_) progress_->finish();  // a warning on a line of its own
  warnings_(what);
}

void FileText::warn_at(const char* p, const std::string& what) const {
  warn(path_ + ":" + std::to_string(line_of(p)) + ": " + what);
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
  constexpr std::size_t kMax = 60;
  std::string out;
  out.reserve(std::min(token.size(), kMax) + 5);
  out.push_back('\'');
  for (const char c : token.substr(0, kMax)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out.push_back(c);
      continue;
    }
    switch (c) {
      case '\0': out += "\\0"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        out += "\\x";
        out.push_back(kHex[u >> 4]);
        out.push_back(kHex[u & 15]);
      }
    }
  }
  if (token.size() > kMax) out.append("...");
  out.push_back('\'');
  return out;
}

std::string not_an_integer(std::string_view token) {
  std::int64_t v;
  if (parse_int_status(token, v) == IntStatus::OutOfRange) return quote(token) + " is out of range (more than 64 bits)";
  return quote(token) + " is not an integer";
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
