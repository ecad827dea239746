// What `zt info` and `zt ls` show for the codec's own containers, which are
// not tensor sources: ZSTN v3 (.zstn) and model deltas (Z4DM). Only the
// structure is read (headers, index); no frame is decoded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ztensor/status.h"

namespace zt::cli {

struct CodecTensor {
  std::string name, dtype;  // dtype as the safetensors header spells it
  std::vector<uint64_t> shape;
  std::string kind;          // zstn: frame, ref; z4dm: copy, delta, full
  uint64_t stored = 0;       // bytes of its frame in the file (0 for ref/copy)
  uint64_t length = 0;       // bytes it decodes to
  std::string ref;           // zstn ref: the tensor whose frame it shares
};

struct CodecFile {
  std::string format;  // "zstn" or "z4dm"
  unsigned version = 0;
  uint64_t file_size = 0, data_length = 0;
  nlohmann::ordered_json metadata;  // the safetensors __metadata__, or null
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // format-specific keys
  std::vector<CodecTensor> tensors;  // in data-buffer order
};

// nullopt when `path` is neither a ZSTN container nor a Z4DM frame (or
// cannot be read: the caller's own open reports that). An error when it has
// the magic but its structure is invalid.
std::optional<Result<CodecFile>> describe_codec_file(const std::string& path);

// `zt info` output for a codec container; returns the exit code.
int print_codec_info(const std::string& path, const CodecFile& f, bool json);

}  // namespace zt::cli
