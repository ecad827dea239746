#include "convert/zip/inflate.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace zt::zip {
namespace {

constexpr uint64_t kChunk = std::numeric_limits<uInt>::max();  // zlib counts in uInt

// Runs inflate until `out` is full or the stream ends. `ended` reports
// whether the deflate stream finished.
Result<uint64_t> run(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what, bool* ended) {
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK)  // negative: raw deflate, as in zip
    return Status(ErrorCode::corrupt_stream, what + ": zlib could not start");
  uint64_t in_done = 0, out_done = 0;
  int rc = Z_OK;
  *ended = false;
  while (out_done < out.size()) {
    if (z.avail_in == 0 && in_done < in.size()) {
      const uint64_t n = std::min<uint64_t>(kChunk, in.size() - in_done);
      z.next_in = const_cast<Bytef*>(in.data() + in_done);
      z.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    const uint64_t room = std::min<uint64_t>(kChunk, out.size() - out_done);
    z.next_out = out.data() + out_done;
    z.avail_out = static_cast<uInt>(room);
    const uInt before_in = z.avail_in;
    rc = inflate(&z, Z_NO_FLUSH);
    out_done += room - z.avail_out;
    if (rc == Z_STREAM_END) {
      *ended = true;
      break;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && in_done == in.size()) break;  // input exhausted
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&z);
      return Status(ErrorCode::corrupt_stream, what + ": deflate data is corrupt (" + (z.msg ? z.msg : "zlib error") + ")");
    }
    if (rc == Z_BUF_ERROR && before_in == z.avail_in && room == z.avail_out) break;  // no progress
  }
  if (!*ended && out_done == out.size()) {
    // Output is full: probe one more byte to tell "ends here" from "holds more".
    uint8_t extra;
    z.next_out = &extra;
    z.avail_out = 1;
    if (z.avail_in == 0 && in_done < in.size()) {
      const uint64_t n = std::min<uint64_t>(kChunk, in.size() - in_done);
      z.next_in = const_cast<Bytef*>(in.data() + in_done);
      z.avail_in = static_cast<uInt>(n);
      in_done += n;
    }
    rc = inflate(&z, Z_NO_FLUSH);
    *ended = rc == Z_STREAM_END && z.avail_out == 1;
  }
  inflateEnd(&z);
  return out_done;
}

}  // namespace

Status inflate_exact(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what) {
  bool ended = false;
  ZT_ASSIGN_OR_RETURN(uint64_t n, run(in, out, what, &ended));
  if (n < out.size())
    return Status(ErrorCode::length_mismatch, what + ": deflate stream ends after " + std::to_string(n) +
                                                  " bytes, the archive declares " + std::to_string(out.size()));
  if (!ended)
    return Status(ErrorCode::length_mismatch, what + ": deflate stream does not end at the declared size of " +
                                                  std::to_string(out.size()) + " bytes");
  return Status::Ok();
}

Result<uint64_t> inflate_prefix(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what) {
  bool ended = false;
  return run(in, out, what, &ended);
}

}  // namespace zt::zip
