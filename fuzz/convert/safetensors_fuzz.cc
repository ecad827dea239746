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
  const uint64_t data_size = size - 8 - r.value()->header_size();
  uint64_t covered = 0;
  for (const auto& t : r.value()->tensors()) {
    // The tiling rule: every tensor lies inside the data buffer, back to back.
    if (t.begin > t.end || t.end > data_size) std::abort();
    covered += t.end - t.begin;
    if (r.value()->find(t.name) == nullptr) std::abort();
    auto view = r.value()->tensor_bytes(t);
    if (!view.ok() || view->bytes.size() != t.end - t.begin) std::abort();
    if (!view->bytes.empty() && (view->bytes.data() < data || view->bytes.data() + view->bytes.size() > data + size))
      std::abort();
  }
  if (covered != data_size) std::abort();
  return 0;
}
