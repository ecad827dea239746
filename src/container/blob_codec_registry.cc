#include <array>
#include <mutex>

#include "ztensor/blob_codec.h"

namespace zt {
namespace {

std::mutex g_mutex;
std::array<std::shared_ptr<const BlobCodec>, 4> g_codecs;  // indexed by Encoding

}  // namespace

void register_blob_codec(Encoding encoding, std::shared_ptr<const BlobCodec> codec) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_codecs.at(static_cast<size_t>(encoding)) = std::move(codec);
}

std::shared_ptr<const BlobCodec> find_blob_codec(Encoding encoding) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_codecs.at(static_cast<size_t>(encoding));
}

}  // namespace zt
