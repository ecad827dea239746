// The one safetensors header parser: the converter's reader, the codec's
// ZSTN and Z4DM paths and Python's z4ai.safetensors (through the binding)
// all take their verdict on a safetensors file from here. Validated at least
// as strictly as the safetensors library itself, and additionally refusing
// duplicate names and names holding a NUL byte.
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
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;  // data_offsets, relative to the data buffer
};

// How the tensor list is ordered. Both sort by data offset; they differ only
// for tensors that begin at one offset (zero-size ones beside another):
// by_span puts the shorter first, verbatim keeps header order, as the
// safetensors reference and the ZSTN and Z4DM frames do.
enum class SafetensorsOrder { by_span, verbatim };

struct SafetensorsRules {
  SafetensorsOrder order = SafetensorsOrder::by_span;
  // Whether the tensors must tile the data buffer. Only the reader of ZSTN
  // containers that older writers made of non-tiling files turns it off.
  bool require_tiling = true;
};

struct SafetensorsHeader {
  uint64_t header_len = 0;  // JSON bytes after the u64 prefix
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;  // header order
  bool has_metadata = false;
};

// A safetensors file in memory, split by its prefix and parsed.
struct SafetensorsLayout {
  SafetensorsHeader parsed;
  std::span<const uint8_t> header;  // the JSON, verbatim
  std::span<const uint8_t> data;    // the data buffer (after the header)
};

// Bytes per element of a safetensors dtype name ("BF16" -> 2, "C64" -> 8);
// 0 for a name this parser does not accept.
uint64_t safetensors_dtype_bytes(std::string_view st_dtype);

// The header size from the 8-byte prefix of a file of `file_size` bytes.
// Errors: offset_out_of_range (prefix past EOF, header past EOF),
// limit_exceeded (over kMaxSafetensorsHeaderBytes).
Result<uint64_t> parse_safetensors_prefix(std::span<const uint8_t> prefix, uint64_t file_size);

// The JSON header, for a data buffer of `buffer_size` bytes. Errors:
// limit_exceeded (nesting), malformed_manifest (not JSON), wrong_type,
// missing_field, unsupported (dtype), shape_overflow, length_mismatch (shape
// vs offsets), offset_out_of_range (tensor past the buffer),
// invalid_structure (gap, overlap, trailing bytes, duplicate name or field,
// a NUL in a name).
Result<SafetensorsHeader> parse_safetensors_header(std::span<const uint8_t> json, uint64_t buffer_size,
                                                   const SafetensorsRules& rules = {});

// Both over a whole file in memory; the errors of both.
Result<SafetensorsLayout> parse_safetensors(std::span<const uint8_t> file, const SafetensorsRules& rules = {});

// Only the prefix: header and data spans, the JSON left unparsed.
Result<SafetensorsLayout> split_safetensors(std::span<const uint8_t> file);

}  // namespace zt
