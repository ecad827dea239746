// libFuzzer target for the restricted unpickler: any byte string must build
// plain objects or fail with a Status -- never crash, hang, recurse without
// bound or call anything.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ztensor/pytorch_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = zt::unpickle_restricted(std::span<const uint8_t>(data, size));
  if (!r.ok()) return 0;
  for (const auto& t : r->tensors) {
    if (t.shape.size() != t.stride.size()) std::abort();
    if (t.element_bytes == 0) std::abort();
  }
  return 0;
}
