// libFuzzer target for torch.save zip checkpoints: zip index, unpickler and
// the view-in-storage checks. Every tensor it accepts must be readable and
// lie inside the input when zero-copy.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ztensor/pytorch_format.h"
#include "ztensor/reader.h"

// Strided views are materialized on read; keep the fuzzer's copies small.
constexpr uint64_t kMaxReadBytes = uint64_t{1} << 24;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto src = zt::open_pytorch_memory(std::span<const uint8_t>(data, size), nullptr);
  if (!src.ok()) return 0;
  (void)(*src)->verify();
  for (const auto& o : (*src)->manifest().objects) {
    if ((*src)->find(o.name) != &o) std::abort();
    if (o.components.front().second.length > kMaxReadBytes) continue;
    auto b = (*src)->read_component(o, "data");
    if (!b.ok()) continue;
    if (b->bytes.size() != o.components.front().second.length) std::abort();
    if (b->zero_copy && !b->bytes.empty() && (b->bytes.data() < data || b->bytes.data() + b->bytes.size() > data + size))
      std::abort();
  }
  return 0;
}
