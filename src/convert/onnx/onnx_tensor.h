// One ONNX TensorProto (an initializer): its type, shape and where its bytes
// are -- raw_data (zero-copy), a typed repeated field (decoded on read), or
// an external file (external_data.h).
//
// TensorProto fields read (onnx.proto): dims 1, data_type 2, segment 3
// (refused), float_data 4, int32_data 5, string_data 6 (refused), int64_data
// 7, name 8, raw_data 9, double_data 10, uint64_data 11, external_data 13
// (StringStringEntryProto: key 1, value 2), data_location 14.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ztensor/dtype.h"
#include "ztensor/status.h"

namespace zt::onnx {

// A tensor with more dimensions than this is not a model weight.
inline constexpr size_t kMaxOnnxRank = 64;

// Typed repeated fields of TensorProto, by field number.
enum class TypedField : uint32_t { none = 0, float_data = 4, int32_data = 5, int64_data = 7, double_data = 10, uint64_data = 11 };

struct OnnxType {
  int32_t id;              // TensorProto.DataType
  const char* name;        // "FLOAT", "BFLOAT16", ...
  DType dtype;             // zTensor storage dtype
  LogicalType type;
  uint64_t element_bytes;  // bytes per logical element
  TypedField field;        // where typed (non-raw) values live
  uint64_t values_per_element;  // 2 for complex in float_data/double_data
};

// nullptr for ids zTensor cannot hold (STRING, 4-bit and 2-bit types, ...).
const OnnxType* onnx_type(int32_t id);

struct OnnxTensor {
  std::string name;
  const OnnxType* type = nullptr;
  std::vector<uint64_t> dims;
  uint64_t nbytes = 0;  // decoded little-endian bytes
  bool has_raw = false;
  std::span<const uint8_t> raw;
  TypedField typed = TypedField::none;
  std::vector<std::span<const uint8_t>> typed_runs;  // packed payloads or single encoded values
  bool external = false;
  std::vector<std::pair<std::string, std::string>> external_data;  // key -> value
};

// Parses and validates one TensorProto; `index` names it in errors until its
// name is known. A non-empty `name` replaces the stored one (a Constant
// node's tensor is named by the node's output). Errors: malformed_manifest, unsupported (STRING, segments,
// 4-bit types), unknown_dtype, shape_overflow, length_mismatch (raw_data or
// value count disagrees with the shape), invalid_structure (data in two
// places or in the wrong typed field), limit_exceeded (rank).
Result<OnnxTensor> parse_tensor(std::span<const uint8_t> message, size_t index, const std::string& name = {});

// Decodes typed repeated values into `out` (exactly t.nbytes bytes).
Status decode_typed(const OnnxTensor& t, uint8_t* out);

}  // namespace zt::onnx
