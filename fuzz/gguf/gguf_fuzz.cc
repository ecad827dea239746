// libFuzzer target for the GGUF reader: any input either opens into objects
// whose bytes lie inside the input, or fails with a Status -- never a crash,
// a hang or an allocation out of proportion to the input.
#include <cstdlib>

#include "ztensor/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = zt::open_gguf_memory({data, size}, nullptr);
  if (!r.ok()) return 0;
  const auto& src = *r.value();
  for (const auto& o : src.manifest().objects) {
    if (src.find(o.name) != &o) std::abort();
    const auto& c = o.components.at(0).second;
    auto b = src.read_component(o, o.components[0].first);
    if (!b.ok() || b->bytes.size() != c.length) std::abort();
    if (c.length && (b->bytes.data() < data || b->bytes.data() + c.length > data + size)) std::abort();
    auto f = zt::gguf_dequantize_object(src, o);
    if (f.ok() && f->size() * 1 > size * 64 + 1024) std::abort();  // outputs stay proportional
  }
  return 0;
}
