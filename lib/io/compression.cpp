// gzip (zlib), xz (liblzma) and bzip2 (libbz2) decoders behind io_detail::Decoder (see
// compression.hpp).
#include "io/compression.hpp"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "gbcuda/types.hpp"

namespace gbcuda::io_detail {

const char* to_string(Compression c) {
  switch (c) {
    case Compression::None: return "none";
    case Compression::Gzip: return "gzip";
    case Compression::Xz: return "xz";
    case Compression::Bzip2: return "bzip2";
  }
  return "?";
}

Compression compression_of(const char* bytes, std::size_t size) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes);
  if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::Gzip;
  static constexpr unsigned char kXz[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (size >= sizeof kXz && std::memcmp(b, kXz, sizeof kXz) == 0) return Compression::Xz;
  // "BZh" and the block size '1'..'9': three letters alone would also start a text line.
  if (size >= 4 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9') return Compression::Bzip2;
  return Compression::None;
}

Compression named_compression(std::string_view path) {
  if (path.ends_with(".gz")) return Compression::Gzip;
  if (path.ends_with(".xz")) return Compression::Xz;
  if (path.ends_with(".bz2")) return Compression::Bzip2;
  return Compression::None;
}

std::string_view name_without_compression(std::string_view path) {
  for (std::string_view suffix : {".gz", ".xz", ".bz2"}) {
    if (path.ends_with(suffix)) return path.substr(0, path.size() - suffix.size());
  }
  return path;
}

namespace {

// zlib and libbz2 count their buffers in unsigned int: one call takes at most this much.
constexpr std::size_t kMaxStep = UINT_MAX;

// The bookkeeping the three decoders share: where the data stands, and the errors they throw.
class DecoderBase : public Decoder {
 protected:
  DecoderBase(Compression c, std::string path) : kind_(c), path_(std::move(path)) {}

  [[noreturn]] void corrupt(const std::string& why) const {
    throw Error(Status::ParseError, path_ + ": corrupt " + to_string(kind_) + " data (" + why + ")" + position());
  }
  [[noreturn]] void truncated() const {
    throw Error(Status::ParseError, path_ + ": truncated " + to_string(kind_) +
                                        " data: the compressed input ends inside a stream" + position() +
                                        "; nothing of it is read");
  }
  [[noreturn]] void out_of_memory() const {
    throw Error(Status::OutOfMemory,
                "cannot read " + path_ + ": out of memory for the " + std::string(to_string(kind_)) + " decoder");
  }
  [[noreturn]] void trailing() const {
    throw Error(Status::ParseError, path_ + ": corrupt " + std::string(to_string(kind_)) +
                                        " data: what follows the end of the compressed stream (" +
                                        std::to_string(produced_) + " bytes decompressed) is not a further " +
                                        to_string(kind_) + " stream");
  }
  std::string position() const {
    return " after " + std::to_string(consumed_) + " compressed bytes, " + std::to_string(produced_) + " decompressed";
  }
  void count(std::size_t in, std::size_t out) {
    consumed_ += in;
    produced_ += out;
  }

 private:
  Compression kind_;
  std::string path_;
  std::uint64_t consumed_ = 0, produced_ = 0;
};

// gzip, with members one after another (gzip -c a >> f; gzip -c b >> f).
class GzipDecoder final : public DecoderBase {
 public:
  explicit GzipDecoder(const std::string& path) : DecoderBase(Compression::Gzip, path) {
    const int r = inflateInit2(&z_, 16 + MAX_WBITS);  // 16: a gzip wrapper, not zlib's
    if (r == Z_MEM_ERROR) out_of_memory();
    if (r != Z_OK) corrupt(z_.msg ? z_.msg : "inflateInit2 failed");
  }
  ~GzipDecoder() override { inflateEnd(&z_); }

  bool decode(const char** in, std::size_t* in_size, char** out, std::size_t* out_size, bool at_end) override {
    for (;;) {
      if (member_done_) {
        if (*in_size == 0) return at_end;
        inflateReset(&z_);  // the next member
        member_done_ = false;
        next_member_ = true;
      }
      if (*out_size == 0 || (*in_size == 0 && !at_end)) return false;
      const std::size_t in_step = std::min(*in_size, kMaxStep), out_step = std::min(*out_size, kMaxStep);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(*in));
      z_.avail_in = static_cast<uInt>(in_step);
      z_.next_out = reinterpret_cast<Bytef*>(*out);
      z_.avail_out = static_cast<uInt>(out_step);
      const int r = inflate(&z_, Z_NO_FLUSH);
      const std::size_t used = in_step - z_.avail_in, made = out_step - z_.avail_out;
      *in += used, *in_size -= used, *out += made, *out_size -= made;
      count(used, made);
      if (made > 0) next_member_ = false;
      switch (r) {
        case Z_STREAM_END: member_done_ = true; continue;
        case Z_OK:
        case Z_BUF_ERROR:  // no progress possible: more input or more room needed
          if (*out_size == 0) return false;
          if (*in_size == 0) {
            if (at_end) truncated();
            return false;
          }
          if (used == 0 && made == 0) corrupt("no progress");  // not expected from zlib
          continue;
        case Z_MEM_ERROR: out_of_memory();
        case Z_DATA_ERROR:
          if (next_member_) trailing();
          corrupt(z_.msg ? z_.msg : "bad data");
        default: corrupt(z_.msg ? z_.msg : "zlib error " + std::to_string(r));
      }
    }
  }

 private:
  z_stream z_{};
  bool member_done_ = false;
  bool next_member_ = false;  // in a member after the first, nothing of it decoded yet
};

// bzip2, with streams one after another (as bunzip2 and pbzip2's output).
class Bzip2Decoder final : public DecoderBase {
 public:
  explicit Bzip2Decoder(const std::string& path) : DecoderBase(Compression::Bzip2, path) { init(); }
  ~Bzip2Decoder() override { BZ2_bzDecompressEnd(&s_); }

  bool decode(const char** in, std::size_t* in_size, char** out, std::size_t* out_size, bool at_end) override {
    for (;;) {
      if (stream_done_) {
        if (*in_size == 0) return at_end;
        BZ2_bzDecompressEnd(&s_);
        init();
        stream_done_ = false;
        next_stream_ = true;
      }
      if (*out_size == 0 || (*in_size == 0 && !at_end)) return false;
      const std::size_t in_step = std::min(*in_size, kMaxStep), out_step = std::min(*out_size, kMaxStep);
      s_.next_in = const_cast<char*>(*in);
      s_.avail_in = static_cast<unsigned>(in_step);
      s_.next_out = *out;
      s_.avail_out = static_cast<unsigned>(out_step);
      const int r = BZ2_bzDecompress(&s_);
      const std::size_t used = in_step - s_.avail_in, made = out_step - s_.avail_out;
      *in += used, *in_size -= used, *out += made, *out_size -= made;
      count(used, made);
      switch (r) {
        case BZ_STREAM_END: stream_done_ = true; continue;
        case BZ_OK:
          if (used > 0 || made > 0) next_stream_ = false;
          if (*out_size == 0) return false;
          if (*in_size == 0) {
            if (at_end) truncated();
            return false;
          }
          if (used == 0 && made == 0) corrupt("no progress");
          continue;
        case BZ_MEM_ERROR: out_of_memory();
        case BZ_DATA_ERROR_MAGIC:
          if (next_stream_) trailing();
          corrupt("not bzip2 data");
        case BZ_DATA_ERROR: corrupt("bad data or a bad checksum");
        default: corrupt("libbz2 error " + std::to_string(r));
      }
    }
  }

 private:
  void init() {
    s_ = bz_stream{};
    const int r = BZ2_bzDecompressInit(&s_, 0, 0);
    if (r == BZ_MEM_ERROR) out_of_memory();
    if (r != BZ_OK) corrupt("BZ2_bzDecompressInit failed");
  }
  bz_stream s_{};
  bool stream_done_ = false;
  bool next_stream_ = false;  // at the start of a stream after the first
};

// xz: liblzma decodes concatenated streams (and their padding) itself (LZMA_CONCATENATED). The
// decoder's memory is capped: a stream's header names its dictionary size, and a few crafted
// bytes could otherwise ask for gigabytes. xz -9 (--extreme too) needs 65 MiB.
constexpr std::uint64_t kXzMemoryLimit = std::uint64_t(512) << 20;

class XzDecoder final : public DecoderBase {
 public:
  explicit XzDecoder(const std::string& path) : DecoderBase(Compression::Xz, path) {
    const lzma_ret r = lzma_stream_decoder(&s_, kXzMemoryLimit, LZMA_CONCATENATED);
    if (r == LZMA_MEM_ERROR) out_of_memory();
    if (r != LZMA_OK) corrupt("lzma_stream_decoder failed");
  }
  ~XzDecoder() override { lzma_end(&s_); }

  bool decode(const char** in, std::size_t* in_size, char** out, std::size_t* out_size, bool at_end) override {
    for (;;) {
      if (done_) return true;
      if (*out_size == 0 || (*in_size == 0 && !at_end)) return false;
      s_.next_in = reinterpret_cast<const std::uint8_t*>(*in);
      s_.avail_in = *in_size;
      s_.next_out = reinterpret_cast<std::uint8_t*>(*out);
      s_.avail_out = *out_size;
      const lzma_ret r = lzma_code(&s_, at_end ? LZMA_FINISH : LZMA_RUN);
      const std::size_t used = *in_size - s_.avail_in, made = *out_size - s_.avail_out;
      *in += used, *in_size -= used, *out += made, *out_size -= made;
      count(used, made);
      switch (r) {
        case LZMA_STREAM_END: done_ = true; return true;
        case LZMA_OK:
          if (*out_size == 0) return false;
          if (*in_size == 0 && !at_end) return false;
          if (used == 0 && made == 0) {
            if (at_end) truncated();
            corrupt("no progress");
          }
          continue;
        case LZMA_BUF_ERROR:
          if (*out_size == 0) return false;
          truncated();
        case LZMA_MEM_ERROR: out_of_memory();
        case LZMA_MEMLIMIT_ERROR:
          corrupt("the stream needs more than " + std::to_string(kXzMemoryLimit >> 20) +
                  " MiB to decompress (a dictionary larger than any xz preset's)");
        case LZMA_FORMAT_ERROR: corrupt("not xz data");
        case LZMA_OPTIONS_ERROR: corrupt("unsupported options");
        case LZMA_DATA_ERROR: corrupt("bad data");
        default: corrupt("liblzma error " + std::to_string(static_cast<int>(r)));
      }
    }
  }

 private:
  lzma_stream s_ = LZMA_STREAM_INIT;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::make(Compression c, const std::string& path) {
  switch (c) {
    case Compression::Gzip: return std::make_unique<GzipDecoder>(path);
    case Compression::Xz: return std::make_unique<XzDecoder>(path);
    case Compression::Bzip2: return std::make_unique<Bzip2Decoder>(path);
    case Compression::None: break;
  }
  return nullptr;
}

}  // namespace gbcuda::io_detail
