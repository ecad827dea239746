// libFuzzer target for the ONNX initializer reader (protobuf wire format,
// TensorProto validation, typed-field decoding). External data is refused
// in memory, so no file outside the input is touched.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ztensor/onnx_format.h"
#include "ztensor/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto src = zt::open_onnx_memory(std::span<const uint8_t>(data, size), nullptr);
  if (!src.ok()) return 0;
  for (const auto& o : (*src)->manifest().objects) {
    if ((*src)->find(o.name) != &o) std::abort();
    auto b = (*src)->read_component(o, "data");
    // Every accepted tensor's value count was checked at open: reads succeed.
    if (!b.ok() || b->bytes.size() != o.components.front().second.length) std::abort();
    if (b->zero_copy && !b->bytes.empty() && (b->bytes.data() < data || b->bytes.data() + b->bytes.size() > data + size))
      std::abort();
  }
  return 0;
}
