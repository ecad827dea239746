// Opens any supported file for `info`, `ls`, `verify` and `diff`: the
// convert layer's TensorSource plus what the CLI shows about the file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/source.h"

namespace zt::cli {

struct OpenedFile {
  FileFormat format = FileFormat::unknown;
  std::unique_ptr<TensorSource> source;
  uint64_t file_size = 0;            // all shards for an index
  std::vector<std::string> shards;   // safetensors or .zt index only

  const Manifest& manifest() const { return source->manifest(); }
  Result<ComponentBytes> read(const Object& object, std::string_view role) const {
    return source->read_component(object, role);
  }
};

// Errors: io_error, unsupported (unknown format), and the format's own
// validation errors.
Result<OpenedFile> open_any(const std::string& path);

}  // namespace zt::cli
