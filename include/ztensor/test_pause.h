// Pause points for tests that must act at an exact step of a running
// process (truncate a file between open and read, kill a writer between two
// renames of a publish), without timing. Test-only: nothing sets these
// variables in real use, where a point costs one getenv.
//
// When ZT_TEST_PAUSE_AT names `point` and ZT_TEST_PAUSE_FIFO a FIFO the test
// holds open for reading, the process writes "<pid> <point>\n" to the FIFO,
// then opens it for reading and blocks until the test has opened and closed
// its write end (resume), or kills the process. Each point pauses once per
// process. tests/python/_pause.py is the test's side.
#pragma once

namespace zt {

inline constexpr const char* kTestPauseAtEnv = "ZT_TEST_PAUSE_AT";
inline constexpr const char* kTestPauseFifoEnv = "ZT_TEST_PAUSE_FIFO";

void test_pause(const char* point);

}  // namespace zt
