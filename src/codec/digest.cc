#include "codec/digest.h"

#include <xxhash.h>

namespace z4ai::detail {

uint64_t xxh3_64(std::span<const uint8_t> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace z4ai::detail
