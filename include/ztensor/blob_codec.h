// Encodings beyond raw and zstd plug in here. The z4ai codec lives in
// src/codec, which the container must not depend on; the assembled library
// supplies it as a built-in (src/core/builtin_codecs.cc) and the reader and
// writer find it by Encoding value. A caller's registration replaces the
// built-in for that encoding.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "ztensor/manifest.h"
#include "ztensor/status.h"

namespace zt {

struct ComponentSpec;

class BlobCodec {
 public:
  virtual ~BlobCodec() = default;
  // Decode `stored` into exactly out.size() bytes; anything else is an error
  // (corrupt_stream, length_mismatch). `ctx` names the component.
  virtual Status decode(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx) const = 0;
  // The same on at most `threads` threads (0 = all cores): a batch read that
  // already decodes several components at once gives each fewer. Codecs
  // that decode on one thread need not override it.
  virtual Status decode_with_threads(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx,
                                     unsigned threads) const {
    (void)threads;
    return decode(stored, out, ctx);
  }
  // Encode the component's little-endian bytes, handing output to `sink`.
  virtual Status encode(const ComponentSpec& spec, std::span<const uint8_t> data,
                        const std::function<Status(std::span<const uint8_t>)>& sink) const = 0;
  // Called before the reader allocates the `decoded` bytes of output: an
  // error when `stored` cannot produce them (the reader then allocates
  // nothing). Reads headers and tables only; decode() still checks the rest.
  virtual Status check(std::span<const uint8_t> stored, uint64_t decoded, const std::string& ctx) const {
    (void)stored, (void)decoded, (void)ctx;
    return Status::Ok();
  }
};

// Thread-safe; a later registration for the same encoding replaces it.
void register_blob_codec(Encoding encoding, std::shared_ptr<const BlobCodec> codec);
// The caller's registration for `encoding`, else the library's built-in;
// nullptr when there is neither.
std::shared_ptr<const BlobCodec> find_blob_codec(Encoding encoding);

}  // namespace zt
