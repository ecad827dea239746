#include "convert/safetensors_source.h"

namespace zt {

SafetensorsTensorSource::SafetensorsTensorSource(SafetensorsSource src)
    : IndexedSource("safetensors has", Miss::joined), src_(std::move(src)) {
  if (src_.has_metadata) {
    manifest_.attributes = Value::map();
    for (const auto& [k, v] : src_.metadata) manifest_.attributes.set(k, Value::text(v));
  }
  manifest_.objects.reserve(src_.tensor_count());
  slots_.reserve(src_.tensor_count());
  for (const auto& shard : src_.shards) {
    const uint64_t data_start = kSafetensorsPrefixBytes + shard->header_size();
    for (const auto& t : shard->tensors()) {
      // offset is within the tensor's own shard
      add_object(dense_object(t.name, t.shape, t.dtype, t.type, data_start + t.begin, t.end - t.begin));
      slots_.push_back({&t, shard.get()});
    }
  }
}

std::vector<std::string> SafetensorsTensorSource::shard_paths() const { return src_.paths; }

Result<ComponentBytes> SafetensorsTensorSource::read_data(size_t slot, const Object&) const {
  return slots_[slot].shard->tensor_bytes(*slots_[slot].tensor);
}

}  // namespace zt
