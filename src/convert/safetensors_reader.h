// SafetensorsFile: a safetensors file (mapped, in memory or over a
// ByteSource) parsed by the one safetensors parser
// (ztensor/safetensors_header.h, which states the layout and the rules), and
// the mapping of its dtype names to zTensor's types.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ztensor/safetensors_header.h"
#include "convert/file_bytes.h"
#include "ztensor/byte_source.h"
#include "ztensor/dtype.h"
#include "ztensor/reader.h"
#include "ztensor/status.h"

namespace zt {

// Mapping between safetensors dtype names and zTensor (dtype, logical type).
// F8_E4M3 / F8_E5M2 are stored as u8 with a logical fp8 type; C64 as f32 with
// logical complex64. Returns false for names zTensor cannot represent.
bool safetensors_dtype_to_zt(std::string_view st, DType* dtype, LogicalType* type);
// nullptr when the pair has no safetensors spelling (e.g. f8_e4m3fnuz).
const char* zt_to_safetensors_dtype(DType dtype, LogicalType type);

class SafetensorsFile {
 public:
  // Maps `path` and validates it. Errors: io_error, and those of
  // parse_safetensors_prefix and parse_safetensors_header.
  // `copy_on_read`: every tensor read is a pread copy (file_bytes.h);
  // otherwise views, checked against truncation first.
  static Result<std::unique_ptr<SafetensorsFile>> open(const std::string& path, bool copy_on_read = false);
  // The same over a file already mapped (open_source maps once to sniff).
  static Result<std::unique_ptr<SafetensorsFile>> open(std::shared_ptr<const MappedFile> mapped, bool copy_on_read);
  // Over positional reads (an HTTP URL): the size prefix and the header are
  // read and validated on open; tensor bytes only by tensor_bytes().
  static Result<std::unique_ptr<SafetensorsFile>> open(std::shared_ptr<const ByteSource> source);
  // Same over bytes in memory; `owner` keeps them alive (may be null).
  static Result<std::unique_ptr<SafetensorsFile>> parse(std::span<const uint8_t> bytes,
                                                        std::shared_ptr<const void> owner);

  // In data-buffer order (the order the bytes appear in the file).
  // A tensor's zTensor types: safetensors_dtype_to_zt(t.st_dtype, ...),
  // which holds for every tensor an open file lists.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  // __metadata__ entries in header order; empty when absent.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  bool has_metadata() const { return has_metadata_; }
  const SafetensorsTensor* find(std::string_view name) const;
  uint64_t header_size() const { return header_size_; }
  uint64_t file_size() const { return size_; }
  // A tensor's bytes: its view of the mapping, or read from the source.
  // Errors: the source's read errors.
  Result<ComponentBytes> tensor_bytes(const SafetensorsTensor& t) const;
  // Bytes [offset, offset + length) of a tensor (the caller checked the range).
  Result<ComponentBytes> tensor_range(const SafetensorsTensor& t, uint64_t offset, uint64_t length) const;
  // Keeps the mapping alive; share it with views handed to other owners.
  const std::shared_ptr<const void>& owner() const { return owner_; }

 private:
  SafetensorsFile() = default;
  Status load();
  // Bytes [offset, offset + length): a view of the mapping, or read from
  // the source into `scratch`.
  Result<std::span<const uint8_t>> read_span(uint64_t offset, uint64_t length, std::vector<uint8_t>& scratch) const;
  std::span<const uint8_t> bytes_;  // the whole file when mapped or in memory
  std::shared_ptr<const ByteSource> source_;  // otherwise
  uint64_t size_ = 0;
  std::shared_ptr<const void> owner_;
  FileByteAccess access_;  // how a mapped file's tensors are handed out
  uint64_t header_size_ = 0;
  std::vector<SafetensorsTensor> tensors_;
  std::unordered_map<std::string_view, size_t> index_;  // name -> tensors_ slot
  std::vector<std::pair<std::string, std::string>> metadata_;
  bool has_metadata_ = false;
};

}  // namespace zt
