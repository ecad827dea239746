// Decode-only fuzz target for the .zt reader: open from memory, then read
// and verify every component. Any crash, leak or UB is a bug.
#include <cstddef>
#include <cstdint>

#include "ztensor/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = zt::Reader::open_memory({data, size}, nullptr);
  if (!r.ok()) return 0;
  for (const auto& o : (*r)->manifest().objects) {
    for (const auto& [role, c] : o.components) {
      auto b = (*r)->read_component(o, role);
      (void)b;
    }
  }
  (void)(*r)->verify();
  return 0;
}
