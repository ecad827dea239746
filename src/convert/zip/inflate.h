// Raw deflate (zip method 8) decoding into a caller-sized buffer: zlib is
// never given more output space than the member declares, so a lying size
// cannot make it write further.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt::zip {

// Inflates `in` into exactly `out`. Errors: corrupt_stream (bad data),
// length_mismatch (stream ends before `out` is full, or holds more).
Status inflate_exact(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what);
// Inflates only the first out.size() bytes (to read a .npy header without
// decoding the member); returns how many were produced (less at stream end).
Result<uint64_t> inflate_prefix(std::span<const uint8_t> in, std::span<uint8_t> out, const std::string& what);

}  // namespace zt::zip
