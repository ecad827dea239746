// A test-only pause point, so the CLI tests act (send SIGINT, truncate the
// input, resize the terminal) while the work is known to be in flight
// instead of after a sleep that a loaded machine outruns.
//
// Only when the environment variable ZT_TEST_PAUSE_FIFO names a FIFO: the
// first progress report after some work is done opens it for reading and
// blocks until the test has opened it for writing and closed it again
// (tests/python/_waits.py: PausePoint). Unset, or not a FIFO, it does
// nothing; no option or documented setting reaches it.
#pragma once

#include <cstdint>

namespace zt::cli {

inline constexpr const char* kTestPauseEnv = "ZT_TEST_PAUSE_FIFO";

// Call after reporting `done` bytes (or units) of work. Pauses once per
// process, on the first call with done > 0; safe from any thread.
void pause_for_test_after_progress(uint64_t done);

}  // namespace zt::cli
