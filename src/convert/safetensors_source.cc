#include "convert/safetensors_source.h"

namespace zt {

SafetensorsTensorSource::SafetensorsTensorSource(SafetensorsSource src) : src_(std::move(src)) {
  if (src_.has_metadata) {
    manifest_.attributes = Value::map();
    for (const auto& [k, v] : src_.metadata) manifest_.attributes.set(k, Value::text(v));
  }
  manifest_.objects.reserve(src_.tensor_count());
  for (const auto& shard : src_.shards) {
    const uint64_t data_start = kSafetensorsPrefixBytes + shard->header_size();
    for (const auto& t : shard->tensors()) {
      Object o;
      o.name = t.name;
      o.shape = t.shape;
      o.format = "dense";
      Component c;
      c.dtype = t.dtype;
      c.type = t.type;
      if (t.type != LogicalType::none) c.type_name = logical_type_name(t.type);
      c.offset = data_start + t.begin;  // within its own shard
      c.length = t.end - t.begin;
      o.components.emplace_back("data", std::move(c));
      manifest_.objects.push_back(std::move(o));
    }
  }
  size_t i = 0;  // names live in the shards, which never move
  for (const auto& shard : src_.shards)
    for (const auto& t : shard->tensors()) index_.emplace(t.name, Slot{&t, shard.get(), i++});
}

const Object* SafetensorsTensorSource::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &manifest_.objects[it->second.object];
}

Result<ComponentBytes> SafetensorsTensorSource::read_component(const Object& object, std::string_view role) const {
  auto it = index_.find(object.name);
  if (it == index_.end() || role != "data")
    return Status(ErrorCode::not_found, "safetensors has no object '" + object.name + "' with component '" +
                                            std::string(role) + "'");
  return ComponentBytes{it->second.tensor->data, it->second.shard->owner(), true};
}

}  // namespace zt
