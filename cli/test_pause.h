// The CLI's test-only pause point, so the CLI tests act (send SIGINT,
// truncate the input, resize the terminal) while the work is known to be in
// flight instead of after a sleep that a loaded machine outruns. It is the
// library's point "progress" (ztensor/test_pause.h): nothing happens unless
// ZT_TEST_PAUSE_AT=progress and ZT_TEST_PAUSE_FIFO are set.
#pragma once

#include <cstdint>

namespace zt::cli {

inline constexpr const char* kProgressPausePoint = "progress";

// Call after reporting `done` bytes (or units) of work: pauses at the first
// call with done > 0; safe from any thread.
void pause_for_test_after_progress(uint64_t done);

}  // namespace zt::cli
