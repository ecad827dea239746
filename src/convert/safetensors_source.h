// safetensors files and sharded indexes behind the TensorSource interface:
// every tensor is a dense object whose `data` is a zero-copy view of its
// (memory-mapped) shard.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "convert/safetensors_index.h"
#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace zt {

class SafetensorsTensorSource final : public TensorSource {
 public:
  explicit SafetensorsTensorSource(SafetensorsSource src);

  const char* format_name() const override { return "safetensors"; }
  const Manifest& manifest() const override { return manifest_; }
  const Object* find(std::string_view name) const override;
  // Only role "data" exists. Errors: not_found.
  Result<ComponentBytes> read_component(const Object& object, std::string_view role) const override;
  Status verify() const override { return Status::Ok(); }  // the format has no digests

  const SafetensorsSource& source() const { return src_; }

 private:
  struct Slot {
    const SafetensorsTensor* tensor;
    const SafetensorsFile* shard;
    size_t object;
  };
  SafetensorsSource src_;
  Manifest manifest_;
  std::unordered_map<std::string_view, Slot> index_;
};

}  // namespace zt
