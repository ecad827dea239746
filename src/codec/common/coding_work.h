// Work counters of this thread's codings, cumulative. The speed paths keep
// a frame's bytes the same, so only a count shows which passes ran: tests
// pin them with these (a whole-stream zstd trial, a second standalone frame).
#pragma once

#include <cstdint>

namespace z4ai::detail {

struct CodingWork {
  uint64_t frame_input_bytes = 0;      // bytes compress_to() planned a frame for
  uint64_t zstd_long_input_bytes = 0;  // bytes given to encode_zstd_long()
};

inline CodingWork& coding_work() {
  thread_local CodingWork work;
  return work;
}

}  // namespace z4ai::detail
