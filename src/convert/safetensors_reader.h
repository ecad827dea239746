// Strict reader for safetensors files, validated at least as strictly as the
// safetensors library itself, and additionally refusing duplicate names.
//
// Byte layout (huggingface/safetensors):
//   [0, 8)          u64 LE: N, the size of the JSON header
//   [8, 8 + N)      UTF-8 JSON object: name -> {dtype, shape, data_offsets}
//                   and an optional "__metadata__": {string: string}
//   [8 + N, EOF)    data buffer; data_offsets are relative to its start and
//                   the tensors must tile it exactly (no gaps, no overlaps,
//                   no trailing bytes), so a file cannot hide a polyglot.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert/file_bytes.h"
#include "ztensor/byte_source.h"
#include "ztensor/dtype.h"
#include "ztensor/reader.h"
#include "ztensor/status.h"

namespace zt {

// safetensors: "MAX_HEADER_SIZE = 100_000_000" -- a header size above this is
// refused before any allocation.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;
// Tensor entries nest three levels deep; anything deeper is an unknown field
// that we skip, and this bounds how deep such a field may go.
inline constexpr int kMaxSafetensorsJsonDepth = 64;
// Size of the little-endian header-size prefix.
inline constexpr uint64_t kSafetensorsPrefixBytes = 8;

struct SafetensorsTensor {
  std::string name;
  std::string st_dtype;  // as written in the header: "F32", "F8_E4M3", ...
  DType dtype = DType::u8;                // zTensor storage dtype
  LogicalType type = LogicalType::none;   // fp8 / complex logical type
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;  // data_offsets, relative to the data buffer
  // Zero-copy view into the file; empty when the file is read through a
  // ByteSource (SafetensorsFile::tensor_bytes reads it then).
  std::span<const uint8_t> data;
};

// Mapping between safetensors dtype names and zTensor (dtype, logical type).
// F8_E4M3 / F8_E5M2 are stored as u8 with a logical fp8 type; C64 as f32 with
// logical complex64. Returns false for names zTensor cannot represent.
bool safetensors_dtype_to_zt(std::string_view st, DType* dtype, LogicalType* type);
// nullptr when the pair has no safetensors spelling (e.g. f8_e4m3fnuz).
const char* zt_to_safetensors_dtype(DType dtype, LogicalType type);

class SafetensorsFile {
 public:
  // Maps `path` and validates it. Errors: io_error, limit_exceeded (header
  // size cap, nesting), offset_out_of_range (header past EOF, tensor past the
  // buffer), malformed_manifest (not JSON), wrong_type, missing_field,
  // unsupported (dtype), shape_overflow, length_mismatch (shape vs offsets),
  // invalid_structure (gap, overlap, trailing bytes, duplicate name).
  // `copy_on_read`: every tensor read is a pread copy (file_bytes.h);
  // otherwise views, checked against truncation first.
  static Result<std::unique_ptr<SafetensorsFile>> open(const std::string& path, bool copy_on_read = false);
  // Over positional reads (an HTTP URL): the size prefix and the header are
  // read and validated on open; tensor bytes only by tensor_bytes().
  static Result<std::unique_ptr<SafetensorsFile>> open(std::shared_ptr<const ByteSource> source);
  // Same over bytes in memory; `owner` keeps them alive (may be null).
  static Result<std::unique_ptr<SafetensorsFile>> parse(std::span<const uint8_t> bytes,
                                                        std::shared_ptr<const void> owner);

  // In data-buffer order (the order the bytes appear in the file).
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
