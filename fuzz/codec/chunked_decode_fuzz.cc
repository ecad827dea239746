// Decode-only: arbitrary bytes as a Z4AIMF01 frame must decode or fail cleanly.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_limits.h"
#include "z4ai/chunked.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(data, data + size);
  if (frame.size() >= 8) std::memcpy(frame.data(), "Z4AIMF01", 8);
  auto r = z4ai::chunked::decompress(frame, 1, kFuzzMaxOutputBytes);
  if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::chunked::decoded_length(frame).value()))
    __builtin_trap();
  return 0;
}
