// CBOR (RFC 7049/8949) decoding into zt::Value under explicit limits.
// libcbor's streaming decoder reads one item header at a time and we keep
// our own explicit stack, so hostile nesting cannot overflow the C stack.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt {

// Decodes exactly one CBOR item spanning all of `bytes` (trailing bytes are
// an error). `what` names the buffer in messages ("manifest").
// Errors: malformed_manifest, limit_exceeded.
Result<Value> cbor_decode(std::span<const uint8_t> bytes, const std::string& what);

}  // namespace zt
