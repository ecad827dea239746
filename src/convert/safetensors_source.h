// safetensors files and sharded indexes behind the TensorSource interface:
// every tensor is a dense object whose `data` is a zero-copy view of its
// (memory-mapped) shard, or read by range from a remote one.
#pragma once

#include <memory>
#include <vector>

#include "convert/indexed_source.h"
#include "convert/safetensors_index.h"
#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace zt {

class SafetensorsTensorSource final : public IndexedSource {
 public:
  explicit SafetensorsTensorSource(SafetensorsSource src);

  const char* format_name() const override { return "safetensors"; }
  Status verify() const override { return Status::Ok(); }  // the format has no digests
  std::vector<std::string> shard_paths() const override;
  uint64_t file_size() const override;  // every shard's, summed
  // Reads only the range from the shard (safetensors tensors are stored as-is).
  Result<ComponentBytes> read_component_range(const Object& object, std::string_view role, uint64_t offset,
                                              uint64_t length) const override;

  const SafetensorsSource& source() const { return src_; }

 private:
  // Only role "data" exists: a view of the shard, or its bytes read from the
  // shard's ByteSource. Errors: the source's read errors.
  Result<ComponentBytes> read_data(size_t slot, const Object& object) const override;

  struct Slot {
    const SafetensorsTensor* tensor;  // tensors live in the shards, which never move
    const SafetensorsFile* shard;
  };
  SafetensorsSource src_;
  std::vector<Slot> slots_;  // parallel to manifest_.objects
};

}  // namespace zt
