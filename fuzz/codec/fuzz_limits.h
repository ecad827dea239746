// Decoders allocate the declared output size, which a 40-byte frame may set
// to gigabytes legitimately; fuzzers skip such frames to stay in memory.
#pragma once

#include <cstdint>

inline constexpr uint64_t kFuzzMaxOutputBytes = uint64_t{64} << 20;
