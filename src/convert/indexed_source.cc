#include "convert/indexed_source.h"

#include <utility>

namespace zt {

Object dense_object(std::string name, std::vector<uint64_t> shape, DType dtype, LogicalType type, uint64_t offset,
                    uint64_t length) {
  Object o;
  o.name = std::move(name);
  o.shape = std::move(shape);
  o.format = "dense";
  Component c;
  c.dtype = dtype;
  c.type = type;
  c.type_name = logical_type_name(type);  // "" for LogicalType::none
  c.offset = offset;
  c.length = length;
  o.components.emplace_back("data", std::move(c));
  return o;
}

const Object* IndexedSource::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &manifest_.objects[it->second];
}

Result<ComponentBytes> IndexedSource::read_component(const Object& object, std::string_view role) const {
  auto it = index_.find(object.name);
  const bool found = it != index_.end();
  if (miss_ == Miss::joined) {
    if (!found || role != "data")
      return Status(ErrorCode::not_found,
                    miss_prefix_ + " no object '" + object.name + "' with component '" + std::string(role) + "'");
  } else {
    if (!found) return Status(ErrorCode::not_found, miss_prefix_ + ": no object '" + object.name + "'");
    if (role != "data")
      return Status(ErrorCode::not_found,
                    miss_prefix_ + ": object '" + object.name + "' has no component '" + std::string(role) + "'");
  }
  return read_data(it->second, object);
}

size_t IndexedSource::add_object(Object object) {
  const size_t slot = manifest_.objects.size();
  index_.emplace(object.name, slot);
  manifest_.objects.push_back(std::move(object));
  return slot;
}

}  // namespace zt
