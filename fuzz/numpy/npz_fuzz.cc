// libFuzzer target for the .npz reader (zip central directory, inflate,
// caps). Caps are lowered so hostile declared sizes cannot exhaust memory.
#include <cstdlib>

#include "ztensor/numpy_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  zt::NpzOptions opt;
  opt.max_member_bytes = uint64_t{1} << 24;
  opt.max_total_bytes = uint64_t{1} << 26;
  auto r = zt::open_npz_memory({data, size}, nullptr, opt);
  if (!r.ok()) return 0;
  const auto& src = *r.value();
  for (const auto& o : src.manifest().objects) {
    auto b = src.read_component(o, "data");
    if (b.ok() && b->bytes.size() != o.components.at(0).second.length) std::abort();
  }
  (void)src.verify();
  return 0;
}
