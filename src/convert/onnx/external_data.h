// ONNX external data: tensor bytes kept in a file beside the model. Only
// files inside the model's folder are read: absolute locations and ".."
// components are refused outright, and the resolved path (symlinks
// followed) must still lie under the folder's resolved path.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "convert/onnx/onnx_tensor.h"
#include "ztensor/status.h"

namespace zt {
class MappedFile;
}

namespace zt::onnx {

struct ExternalSpan {
  std::span<const uint8_t> bytes;
  std::shared_ptr<const MappedFile> file;  // the mapping of the data file, which `bytes` lie in
};

// Maps each data file once; safe to use from one thread (at open).
class ExternalFiles {
 public:
  // `base_dir` is the model's folder; empty refuses all external data.
  explicit ExternalFiles(std::string base_dir) : base_dir_(std::move(base_dir)) {}
  // Resolves a tensor's external_data entries (location, offset, length)
  // to its bytes. Errors: unsupported (no folder known), invalid_structure
  // (location missing, absolute, with "..", or resolving outside the
  // folder), malformed_manifest (offset/length not decimal), io_error,
  // offset_out_of_range (past the file's end), length_mismatch.
  Result<ExternalSpan> resolve(const OnnxTensor& t);

 private:
  std::string base_dir_;
  std::string real_base_;  // realpath of base_dir_, computed on first use
  std::map<std::string, std::shared_ptr<const MappedFile>> files_;
};

}  // namespace zt::onnx
