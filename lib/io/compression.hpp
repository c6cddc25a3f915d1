#pragma once
// Compressed inputs (gzip, xz, bzip2): told by their magic bytes, decompressed as a stream into
// the buffer FileText::load grows, so that the decompressed bytes take the same path as a plain
// file's. Not part of the public API.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gbcuda::io_detail {

enum class Compression { None, Gzip, Xz, Bzip2 };

// "gzip", "xz", "bzip2" ("none").
const char* to_string(Compression c);

// Bytes needed to tell every compression from its magic (xz's is the longest).
inline constexpr std::size_t kCompressionMagicBytes = 6;

// The compression whose magic the first `size` bytes start with: gzip 1f 8b, xz fd 37 7a 58 5a 00,
// bzip2 "BZh" and a block size digit. None when `size` is too short for a magic.
Compression compression_of(const char* bytes, std::size_t size);

// The compression a file's name announces: a name ending in ".gz", ".xz" or ".bz2".
Compression named_compression(std::string_view path);

// The name without a ".gz", ".xz" or ".bz2" ending: what the name-based format rules (*.gbc,
// *.graph, *.rodinia.txt, ...) look at.
std::string_view name_without_compression(std::string_view path);

// A streaming decoder. Concatenated streams (gzip members, xz streams, bzip2 streams one after
// another) are decoded as one, as gunzip, xz -d and bunzip2 do; anything else after the last
// stream is corrupt data.
class Decoder {
 public:
  virtual ~Decoder() = default;
  // Decodes from [*in, *in + *in_size) into [*out, *out + *out_size), advancing the four as it
  // consumes and produces. Returns when the input is used up or the output is full; call again
  // after making room while *out_size is 0 (output may be pending). With `at_end` (no input will
  // follow; *in_size may be 0), returns true once every stream is complete and all output is
  // out. Throws Error(ParseError) "PATH: corrupt|truncated ... data" naming the file.
  virtual bool decode(const char** in, std::size_t* in_size, char** out, std::size_t* out_size, bool at_end) = 0;

  static std::unique_ptr<Decoder> make(Compression c, const std::string& path);
};

}  // namespace gbcuda::io_detail
