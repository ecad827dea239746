#include "convert/zt_index_source.h"

#include "convert/path_open.h"
#include "convert/shard_index.h"

namespace zt {
namespace {

// Adds the keys of `from` that `into` lacks (first shard's value wins).
void merge_attributes(Value& into, const Value& from) {
  if (!from.is_map()) return;
  if (!into.is_map()) {
    into = from;
    return;
  }
  Value::Map merged = into.as_map();
  for (const auto& [k, v] : from.as_map())  // attribute keys are text (spec §5)
    if (k.is_text() && !into.find(k.as_string())) merged.emplace_back(k, v);
  into = Value::map(std::move(merged));
}

}  // namespace

Result<std::unique_ptr<ZtIndexSource>> ZtIndexSource::open(const std::string& index_path, ReadOptions options) {
  ZT_ASSIGN_OR_RETURN(ShardIndex index, read_shard_index(index_path, kZtIndexKind, kZtIndexNoun));
  return open(index, std::move(options));
}

Result<std::unique_ptr<ZtIndexSource>> ZtIndexSource::open(const ShardIndex& index, ReadOptions options) {
  ShardAgreement agreement(index);
  std::unique_ptr<ZtIndexSource> src(new ZtIndexSource());
  for (const std::string& f : index.files) {
    const std::string path = index.shard_path(f);
    ZT_ASSIGN_OR_RETURN(auto shard, open_zt_path(path, options));
    for (const auto& o : shard->manifest().objects) ZT_RETURN_IF_ERROR(agreement.check(f, o.name));
    merge_attributes(src->manifest_.attributes, shard->manifest().attributes);
    if (src->manifest_.version.empty()) src->manifest_.version = shard->manifest().version;
    src->paths_.push_back(path);
    src->shards_.push_back(std::move(shard));
  }
  ZT_RETURN_IF_ERROR(agreement.complete());
  size_t total = 0;
  for (const auto& shard : src->shards_) total += shard->manifest().objects.size();
  src->manifest_.objects.reserve(total);  // no reallocation: owner_ keys view these names
  for (size_t i = 0; i < src->shards_.size(); ++i)
    for (const auto& o : src->shards_[i]->manifest().objects) {
      src->manifest_.objects.push_back(o);
      const size_t merged = src->manifest_.objects.size() - 1;
      src->owner_.emplace(src->manifest_.objects[merged].name, Slot{i, merged, &o});
    }
  return src;
}

const Object* ZtIndexSource::find(std::string_view name) const {
  auto it = owner_.find(name);
  return it == owner_.end() ? nullptr : &manifest_.objects[it->second.merged];
}

Result<ComponentBytes> ZtIndexSource::read_component(const Object& object, std::string_view role) const {
  return read_component_with_threads(object, role, 0);
}

void ZtIndexSource::prefetch(const Object& object, std::string_view role) const {
  if (auto it = owner_.find(object.name); it != owner_.end()) shards_[it->second.shard]->prefetch(*it->second.own, role);
}

Result<ComponentBytes> ZtIndexSource::read_component_with_threads(const Object& object, std::string_view role,
                                                                  unsigned threads) const {
  auto it = owner_.find(object.name);
  if (it == owner_.end())
    return Status(ErrorCode::not_found, "zt index: no object '" + object.name + "'");
  return shards_[it->second.shard]->read_component_with_threads(*it->second.own, role, threads);
}

Result<ComponentBytes> ZtIndexSource::read_component_range(const Object& object, std::string_view role,
                                                          uint64_t offset, uint64_t length) const {
  auto it = owner_.find(object.name);
  if (it == owner_.end())
    return Status(ErrorCode::not_found, "zt index: no object '" + object.name + "'");
  return shards_[it->second.shard]->read_component_range(*it->second.own, role, offset, length);
}

uint64_t ZtIndexSource::file_size() const {
  uint64_t total = 0;
  for (const auto& shard : shards_) total += shard->file_size();
  return total;
}

Status ZtIndexSource::verify() const {
  for (size_t i = 0; i < shards_.size(); ++i) {
    Status s = shards_[i]->verify();
    if (!s.ok()) return Status(s.code(), "shard '" + paths_[i] + "': " + s.message());
  }
  return Status::Ok();
}

}  // namespace zt
