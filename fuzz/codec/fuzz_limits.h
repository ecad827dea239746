// Decoders are called with max_output = kFuzzMaxOutputBytes, so a frame
// declaring more is rejected by the decoder before it allocates; run_smoke.sh
// runs with -malloc_limit_mb=256, so any allocation driven by a declared
// size past the checks is a finding.
#pragma once

#include <cstdint>

inline constexpr uint64_t kFuzzMaxOutputBytes = uint64_t{64} << 20;
