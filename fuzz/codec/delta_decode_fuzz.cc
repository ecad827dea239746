// Decode-only: arbitrary bytes as a Z4XD delta frame against a fixed
// reference must decode or fail cleanly. The fuzzer can only pass the
// reference digest check by copying it from the seeds, which hold it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_limits.h"
#include "z4ai/delta.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> frame(data, data + size);
  if (frame.size() >= 4) std::memcpy(frame.data(), "Z4XD", 4);
  std::vector<uint8_t> reference(4096);
  for (size_t i = 0; i < reference.size(); ++i) reference[i] = uint8_t(i * 7);
  auto r = z4ai::decompress_delta(frame, reference, 1, kFuzzMaxOutputBytes);
  if (r.ok() && (r->size() > kFuzzMaxOutputBytes || r->size() != z4ai::peek(frame)->original_length))
    __builtin_trap();
  return 0;
}
