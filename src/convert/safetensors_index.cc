#include "convert/safetensors_index.h"

#include <algorithm>

#include "convert/path_open.h"
#include "convert/shard_index.h"

namespace zt {
namespace {

void merge_metadata(SafetensorsSource& src, const SafetensorsFile& shard, const std::string& shard_path) {
  if (!shard.has_metadata()) return;
  src.has_metadata = true;
  for (const auto& entry : shard.metadata()) {
    const std::string& k = entry.first;
    const std::string& v = entry.second;
    auto it = std::find_if(src.metadata.begin(), src.metadata.end(), [&k](const auto& e) { return e.first == k; });
    if (it == src.metadata.end())
      src.metadata.emplace_back(k, v);
    else if (it->second != v)
      src.warnings.push_back("shard '" + shard_path + "' has __metadata__ '" + k + "' = '" + v +
                             "', differing from an earlier shard; the first value was kept");
  }
}

SafetensorsSource one_shard(std::unique_ptr<SafetensorsFile> f, const std::string& path) {
  SafetensorsSource src;
  merge_metadata(src, *f, path);
  src.paths.push_back(path);
  src.shards.push_back(std::move(f));
  return src;
}

}  // namespace

uint64_t SafetensorsSource::tensor_count() const {
  uint64_t n = 0;
  for (const auto& s : shards) n += s->tensors().size();
  return n;
}

uint64_t SafetensorsSource::tensor_bytes() const {
  uint64_t n = 0;  // each shard's tensors tile a file, so no overflow
  for (const auto& s : shards)
    for (const auto& t : s->tensors()) n += t.end - t.begin;  // t.data is empty for a remote shard
  return n;
}

Result<SafetensorsSource> open_safetensors_file(const std::string& path, bool copy_on_read) {
  ZT_ASSIGN_OR_RETURN(auto f, open_safetensors_path(path, copy_on_read));
  return one_shard(std::move(f), path);
}

Result<SafetensorsSource> open_safetensors_file(std::shared_ptr<const MappedFile> file, bool copy_on_read) {
  const std::string path = file->path();
  ZT_ASSIGN_OR_RETURN(auto f, SafetensorsFile::open(std::move(file), copy_on_read));
  return one_shard(std::move(f), path);
}

Result<SafetensorsSource> open_safetensors_file(std::shared_ptr<const ByteSource> source) {
  if (!source) return Status(ErrorCode::invalid_argument, "open_safetensors_file: null ByteSource");
  const std::string name = source->name();
  ZT_ASSIGN_OR_RETURN(auto f, SafetensorsFile::open(std::move(source)));
  return one_shard(std::move(f), name);
}

Result<SafetensorsSource> open_safetensors_index(const std::string& index_path, bool copy_on_read) {
  ZT_ASSIGN_OR_RETURN(ShardIndex index, read_shard_index(index_path, kSafetensorsIndexKind, kSafetensorsIndexNoun));
  return open_safetensors_index(index, copy_on_read);
}

Result<SafetensorsSource> open_safetensors_index(const ShardIndex& index, bool copy_on_read) {
  ShardAgreement agreement(index);
  SafetensorsSource src;
  for (const std::string& f : index.files) {
    const std::string path = index.shard_path(f);
    ZT_ASSIGN_OR_RETURN(auto shard, open_safetensors_path(path, copy_on_read));
    for (const auto& t : shard->tensors()) ZT_RETURN_IF_ERROR(agreement.check(f, t.name));
    merge_metadata(src, *shard, path);
    src.paths.push_back(path);
    src.shards.push_back(std::move(shard));
  }
  ZT_RETURN_IF_ERROR(agreement.complete());
  return src;
}

}  // namespace zt
