// The encodings the assembled library ships, found by the container's
// registry (src/container/blob_codec_registry.cc) without any registration
// call, so a front end cannot forget one: the C API once read no z4ai
// component for that reason.
#include "ztensor/blob_codec.h"
#include "ztensor/z4ai_encoding.h"

namespace zt {

std::shared_ptr<const BlobCodec> builtin_blob_codec(Encoding encoding) {
  return encoding == Encoding::z4ai ? z4ai_blob_codec() : nullptr;
}

}  // namespace zt
