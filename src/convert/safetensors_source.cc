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
      DType dtype = DType::u8;
      LogicalType type = LogicalType::none;
      safetensors_dtype_to_zt(t.st_dtype, &dtype, &type);  // holds for every tensor of an open file
      // offset is within the tensor's own shard
      add_object(dense_object(t.name, t.shape, dtype, type, data_start + t.begin, t.end - t.begin));
      slots_.push_back({&t, shard.get()});
    }
  }
}

std::vector<std::string> SafetensorsTensorSource::shard_paths() const { return src_.paths; }

uint64_t SafetensorsTensorSource::file_size() const {
  uint64_t total = 0;
  for (const auto& shard : src_.shards) total += shard->file_size();
  return total;
}

Result<ComponentBytes> SafetensorsTensorSource::read_component_range(const Object& object, std::string_view role,
                                                                    uint64_t offset, uint64_t length) const {
  const Object* own = find(object.name);
  if (own != &object || role != "data") return TensorSource::read_component_range(object, role, offset, length);
  const Slot& s = slots_[static_cast<size_t>(own - manifest_.objects.data())];
  const uint64_t size = s.tensor->end - s.tensor->begin;
  if (offset > size || length > size - offset)
    return Status(ErrorCode::offset_out_of_range, "safetensors tensor '" + object.name + "': bytes [" +
                                                      std::to_string(offset) + ", +" + std::to_string(length) +
                                                      ") are past its " + std::to_string(size) + " bytes");
  return s.shard->tensor_range(*s.tensor, offset, length);
}

Result<ComponentBytes> SafetensorsTensorSource::read_data(size_t slot, const Object&) const {
  return slots_[slot].shard->tensor_bytes(*slots_[slot].tensor);
}

}  // namespace zt
