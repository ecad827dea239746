// The z4ai codec as a .zt component encoding ("encoding": "z4ai", an
// extension of spec v1.2 documented in docs/format.md). libztensor ships it
// registered: readers and writers find it without any call.
#pragma once

#include <memory>

#include "ztensor/blob_codec.h"

namespace zt {

// The library's z4ai blob codec (one shared, stateless instance).
std::shared_ptr<const BlobCodec> z4ai_blob_codec();
// Puts the shipped codec back after a caller registered another for
// Encoding::z4ai. Not needed otherwise (kept for code written before the
// library registered it itself).
void register_z4ai_encoding();

}  // namespace zt
