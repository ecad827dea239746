#include "test_pause.h"

#include "ztensor/test_pause.h"

namespace zt::cli {

void pause_for_test_after_progress(uint64_t done) {
  if (done > 0) zt::test_pause(kProgressPausePoint);
}

}  // namespace zt::cli
