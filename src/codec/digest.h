// XXH3-64 of decoded data, stored in Z4AI/ZARA/delta frames (libxxhash).
#pragma once

#include <cstdint>
#include <span>

namespace z4ai::detail {

uint64_t xxh3_64(std::span<const uint8_t> bytes);

}  // namespace z4ai::detail
