// The parsed, validated structure of a GGUF file (internal to zt_gguf).
//
// Byte layout (ggml docs/gguf.md), all integers little-endian:
//   u32 magic "GGUF" | u32 version | u64 tensor_count | u64 kv_count
//   kv_count x { string key | u32 value_type | value }
//   tensor_count x { string name | u32 n_dims | u64 dims[n_dims]
//                    | u32 ggml_type | u64 offset }
//   padding to general.alignment (default 32)
//   data section: tensor bytes at `offset` (relative, aligned)
// A string is a u64 byte length followed by UTF-8 bytes (no terminator); an
// array value is u32 element_type | u64 count | elements.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "convert/gguf/gguf_cursor.h"
#include "convert/gguf/gguf_limits.h"
#include "ztensor/gguf.h"
#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt::gguf {

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> ggml_dims;  // ggml order: dims[0] varies fastest
  const GgmlTypeInfo* type = nullptr;
  uint64_t offset = 0;  // relative to the data section
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;
};

struct File {
  uint32_t version = 0;
  Value attributes = Value::map();
  uint64_t alignment = kDefaultAlignment;
  uint64_t data_start = 0;  // absolute offset of the data section
  std::vector<TensorInfo> tensors;  // file order
};

// Whole-file parse and validation (gguf_header.cc).
Result<File> parse_file(std::span<const uint8_t> bytes, const GgufOptions& options);
// The same from the first bytes of a file of `file_size` bytes; on error,
// `*needs_more` says whether the header ran past `prefix` (retry longer).
Result<File> parse_file(std::span<const uint8_t> prefix, uint64_t file_size, const GgufOptions& options,
                        bool* needs_more);
// kv_count key/values into `file->attributes`; sets file->alignment
// (gguf_kv.cc).
Status read_kvs(Cursor& cur, uint64_t kv_count, File* file);
// tensor_count tensor infos, shape and type checks only (gguf_tensors.cc).
Status read_tensor_infos(Cursor& cur, uint64_t tensor_count, File* file);
// Placement rules once the data section is known (gguf_tensors.cc).
Status check_tensor_placement(File* file, uint64_t file_size, const GgufOptions& options);

// A GGUF string: u64 length, then that many bytes, checked against what
// remains before anything is copied (CVE-2024-21825 class).
Status read_string(Cursor& cur, std::string* out, const char* what);
bool valid_utf8(std::string_view s);
std::string quoted(std::string_view s);

}  // namespace zt::gguf
