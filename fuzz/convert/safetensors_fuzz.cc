// libFuzzer target for the safetensors header parser: any input must either
// parse into tensors that lie inside the buffer, or fail with a Status --
// never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "convert/safetensors_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  auto r = zt::SafetensorsFile::parse(bytes, nullptr);
  if (!r.ok()) return 0;
  uint64_t covered = 0;
  for (const auto& t : r.value()->tensors()) {
    // The tiling rule: every view lies inside the input, back to back.
    if (t.data.size() != 0 && (t.data.data() < data || t.data.data() + t.data.size() > data + size)) std::abort();
    covered += t.data.size();
    if (r.value()->find(t.name) == nullptr) std::abort();
  }
  if (covered != size - 8 - r.value()->header_size()) std::abort();
  return 0;
}
