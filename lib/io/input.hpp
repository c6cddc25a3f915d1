#pragma once
// Opening an input once: every reader goes through open_input, which reads the input exactly
// once (a pipe cannot be read twice) and keeps the fast path of a regular .gbc file. Not part
// of the public API.
#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gbcuda/io.hpp"
#include "io/line_reader.hpp"

namespace gbcuda::io_detail {

// An input, opened once: either a regular .gbc file left open for the binary reader (fd), or
// everything it holds in memory (text, or a .gbc that came through a pipe: text->binary()).
class Input {
 public:
  Input() = default;
  Input(Input&& other) noexcept;
  Input& operator=(Input&& other) noexcept;
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input();

  const std::string& path() const { return path_; }
  bool binary() const { return fd_ >= 0 || (text_ && text_->binary()); }
  // A regular .gbc file, open at offset 0 (-1 otherwise), and its size.
  int binary_fd() const { return fd_; }
  std::uint64_t binary_size() const { return size_; }
  // The bytes read (null for a regular .gbc file).
  const FileText* text() const { return text_ ? &*text_ : nullptr; }

 private:
  friend Input open_input(const std::string& path, const ReadOptions& options);
  friend Input input_from_bytes(std::string_view bytes, const std::string& name, const ReadOptions& options);
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::optional<FileText> text_;
};

// Opens `path` and, unless it is a regular .gbc file (options.format Binary, a name ending in
// ".gbc", or the .gbc magic in its first bytes, with format Auto), reads it whole. A path naming
// an inherited pipe (/dev/stdin, /dev/fd/N, /proc/self/fd/N) reads that descriptor; a FIFO with
// no writer is waited for (options.fifo_wait_seconds, with a warning). Error(IoError) when it
// cannot be opened or read; Error(ParseError) for text that is not text (a NUL byte, an endless
// line).
Input open_input(const std::string& path, const ReadOptions& options);

// The same for bytes in memory (as if read from a file named `name`): the fuzz target's entry.
Input input_from_bytes(std::string_view bytes, const std::string& name, const ReadOptions& options);

// Coordinates from an opened input, in options.format or the detected one; fills
// options.report. read_coo is open_input + read_coo_input.
CooData read_coo_input(const Input& in, const ReadOptions& options);

// After a read: the warning for an index base that does not apply, and options.report.
void finish_read(const Input& in, const ReadOptions& options, FileFormat format, const std::string& header);

// Whether a file's name says METIS (*.graph, *.metis).
bool named_metis(std::string_view path);

// The format of an opened input (options.format is ignored).
FileFormat detect_input_format(const Input& in);

}  // namespace gbcuda::io_detail
