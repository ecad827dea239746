// Decode-only: arbitrary bytes as a ZSTN v3 container must decode or fail
// cleanly; tiny containers declaring huge data buffers are skipped.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_limits.h"
#include "z4ai/zstn.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> z(data, data + size);
  if (z.size() >= 4) std::memcpy(z.data(), "ZSTN", 4);
  auto p = z4ai::zstn::parse_prefix(z);
  if (!p.ok() || p->data_len > kFuzzMaxOutputBytes) return 0;
  auto r = z4ai::zstn::decompress(z, 1);
  if (r.ok() && r->size() != 8 + p->header_len + p->data_len) __builtin_trap();
  return 0;
}
