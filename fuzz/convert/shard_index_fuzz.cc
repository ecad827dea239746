// libFuzzer target for the Hugging Face shard index parser (sharded
// safetensors and .zt): any input either parses into a weight_map of plain
// shard names or fails with a Status, and checking shards against a parsed
// map never crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "convert/shard_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = zt::parse_shard_index(std::span<const uint8_t>(data, size), "/fuzz/m.zt.index.json", "zt index", "object");
  if (!r.ok()) return 0;
  const zt::ShardIndex& index = r.value();
  for (const auto& [name, file] : index.shard_of) {
    if (!index.files.count(file) || file.find('/') != std::string::npos) std::abort();
  }
  // Every object reported by the shard the map names: complete() must agree.
  zt::ShardAgreement agreement(index);
  for (const auto& [name, file] : index.shard_of)
    if (!agreement.check(file, name).ok()) std::abort();
  if (!agreement.complete().ok()) std::abort();
  if (!index.shard_of.empty() && agreement.check("other.zt", index.shard_of.begin()->first).ok()) std::abort();
  return 0;
}
