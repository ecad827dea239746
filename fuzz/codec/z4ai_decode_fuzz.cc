// Decode-only: arbitrary bytes as a Z4AI frame must decode or fail cleanly.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_limits.h"
#include "z4ai/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(data, data + size);
  if (frame.size() >= 4) std::memcpy(frame.data(), "Z4AI", 4);
  auto r = z4ai::decompress(frame, 1, kFuzzMaxOutputBytes);
  if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::peek(frame)->original_length))
    __builtin_trap();
  return 0;
}
