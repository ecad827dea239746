#include <array>
#include <mutex>

#include "ztensor/blob_codec.h"

namespace zt {

// Defined by the assembled core (src/core/builtin_codecs.cc): the codec the
// library ships for `encoding`, or nullptr. The container may not depend on
// the codec, so the library above it supplies them.
std::shared_ptr<const BlobCodec> builtin_blob_codec(Encoding encoding);

namespace {

std::mutex g_mutex;
std::array<std::shared_ptr<const BlobCodec>, 4> g_codecs;  // caller registrations, by Encoding

}  // namespace

void register_blob_codec(Encoding encoding, std::shared_ptr<const BlobCodec> codec) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_codecs.at(static_cast<size_t>(encoding)) = std::move(codec);
}

std::shared_ptr<const BlobCodec> find_blob_codec(Encoding encoding) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (auto codec = g_codecs.at(static_cast<size_t>(encoding))) return codec;
  }
  return builtin_blob_codec(encoding);
}

}  // namespace zt
