#include "convert/onnx/onnx_tensor.h"

#include <bit>
#include <cstring>

#include "common/checked_math.h"
#include "convert/onnx/protobuf_wire.h"

namespace zt::onnx {
namespace {

static_assert(std::endian::native == std::endian::little, "typed ONNX values are written as little-endian host values");

using L = LogicalType;
using F = TypedField;
// TensorProto.DataType values zTensor can hold, with the typed field the
// ONNX rules put non-raw values in (int32_data carries every type of 16 bits
// or fewer, float16/bfloat16/float8 as their bit patterns).
constexpr OnnxType kTypes[] = {
    {1, "FLOAT", DType::f32, L::none, 4, F::float_data, 1},
    {2, "UINT8", DType::u8, L::none, 1, F::int32_data, 1},
    {3, "INT8", DType::i8, L::none, 1, F::int32_data, 1},
    {4, "UINT16", DType::u16, L::none, 2, F::int32_data, 1},
    {5, "INT16", DType::i16, L::none, 2, F::int32_data, 1},
    {6, "INT32", DType::i32, L::none, 4, F::int32_data, 1},
    {7, "INT64", DType::i64, L::none, 8, F::int64_data, 1},
    {9, "BOOL", DType::boolean, L::none, 1, F::int32_data, 1},
    {10, "FLOAT16", DType::f16, L::none, 2, F::int32_data, 1},
    {11, "DOUBLE", DType::f64, L::none, 8, F::double_data, 1},
    {12, "UINT32", DType::u32, L::none, 4, F::uint64_data, 1},
    {13, "UINT64", DType::u64, L::none, 8, F::uint64_data, 1},
    {14, "COMPLEX64", DType::f32, L::complex64, 8, F::float_data, 2},
    {15, "COMPLEX128", DType::f64, L::complex128, 16, F::double_data, 2},
    {16, "BFLOAT16", DType::bf16, L::none, 2, F::int32_data, 1},
    {17, "FLOAT8E4M3FN", DType::u8, L::f8_e4m3fn, 1, F::int32_data, 1},
    {18, "FLOAT8E4M3FNUZ", DType::u8, L::f8_e4m3fnuz, 1, F::int32_data, 1},
    {19, "FLOAT8E5M2", DType::u8, L::f8_e5m2, 1, F::int32_data, 1},
    {20, "FLOAT8E5M2FNUZ", DType::u8, L::f8_e5m2fnuz, 1, F::int32_data, 1},
};

const char* unsupported_type_name(int32_t id) {
  switch (id) {
    case 8: return "STRING";
    case 21: return "UINT4";
    case 22: return "INT4";
    case 23: return "FLOAT4E2M1";
    case 24: return "FLOAT8E8M0";
    case 25: return "UINT2";
    case 26: return "INT2";
    default: return nullptr;
  }
}

// Width of one value of a typed field as stored (0: varint).
size_t fixed_width(TypedField f) {
  return f == F::float_data ? 4 : f == F::double_data ? 8 : 0;
}

bool wire_ok(TypedField f, pb::WireType w) {
  if (w == pb::kLen) return true;  // packed
  switch (f) {
    case F::float_data: return w == pb::kFixed32;
    case F::double_data: return w == pb::kFixed64;
    default: return w == pb::kVarint;
  }
}

}  // namespace

const OnnxType* onnx_type(int32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

Result<OnnxTensor> parse_tensor(std::span<const uint8_t> message, size_t index, const std::string& name) {
  OnnxTensor t;
  t.name = name;
  std::string what = "initializer #" + std::to_string(index);
  pb::Reader r(message, what);
  int64_t data_type = 0;
  int64_t data_location = 0;
  auto bad = [&](ErrorCode code, const std::string& rule) {
    return Status(code, "onnx: " + (t.name.empty() ? what : "tensor '" + t.name + "'") + ": " + rule);
  };
  while (!r.done()) {
    ZT_ASSIGN_OR_RETURN(pb::Field f, r.next());
    auto need = [&](pb::WireType w, const char* field) -> Status {
      if (f.wire != w) return bad(ErrorCode::malformed_manifest, std::string(field) + " has wire type " + std::to_string(f.wire));
      return {};
    };
    switch (f.number) {
      case 1: {  // dims: repeated int64, packed or not
        auto add = [&](uint64_t v) -> Status {
          if (static_cast<int64_t>(v) < 0) return bad(ErrorCode::invalid_structure, "negative dimension " + std::to_string(static_cast<int64_t>(v)));
          if (t.dims.size() >= kMaxOnnxRank)
            return bad(ErrorCode::limit_exceeded, "more than " + std::to_string(kMaxOnnxRank) + " dimensions");
          t.dims.push_back(v);
          return {};
        };
        if (f.wire == pb::kVarint) {
          ZT_RETURN_IF_ERROR(add(f.value));
        } else if (f.wire == pb::kLen) {
          size_t pos = 0;
          while (pos < f.bytes.size()) {
            ZT_ASSIGN_OR_RETURN(uint64_t v, pb::read_varint(f.bytes, &pos));
            ZT_RETURN_IF_ERROR(add(v));
          }
        } else {
          return bad(ErrorCode::malformed_manifest, "dims has wire type " + std::to_string(f.wire));
        }
        break;
      }
      case 2: ZT_RETURN_IF_ERROR(need(pb::kVarint, "data_type")); data_type = static_cast<int64_t>(f.value); break;
      case 3: return bad(ErrorCode::unsupported, "segmented tensors (field 'segment') are not read");
      case 6: return bad(ErrorCode::unsupported, "string_data: STRING tensors have no zTensor dtype");
      case 8:
        ZT_RETURN_IF_ERROR(need(pb::kLen, "name"));
        if (name.empty()) t.name.assign(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
        break;
      case 9:
        ZT_RETURN_IF_ERROR(need(pb::kLen, "raw_data"));
        t.has_raw = true;
        t.raw = f.bytes;
        break;
      case 13: {  // external_data: StringStringEntryProto {key = 1, value = 2}
        ZT_RETURN_IF_ERROR(need(pb::kLen, "external_data"));
        pb::Reader e(f.bytes, what + " external_data");
        std::string key, value;
        while (!e.done()) {
          ZT_ASSIGN_OR_RETURN(pb::Field kv, e.next());
          if ((kv.number == 1 || kv.number == 2) && kv.wire == pb::kLen)
            (kv.number == 1 ? key : value).assign(reinterpret_cast<const char*>(kv.bytes.data()), kv.bytes.size());
        }
        t.external_data.emplace_back(std::move(key), std::move(value));
        break;
      }
      case 14: ZT_RETURN_IF_ERROR(need(pb::kVarint, "data_location")); data_location = static_cast<int64_t>(f.value); break;
      case 4: case 5: case 7: case 10: case 11: {
        auto field = static_cast<TypedField>(f.number);
        if (!wire_ok(field, f.wire)) return bad(ErrorCode::malformed_manifest, "typed field " + std::to_string(f.number) + " has wire type " + std::to_string(f.wire));
        if (t.typed != F::none && t.typed != field)
          return bad(ErrorCode::invalid_structure, "values in two typed fields (" + std::to_string(static_cast<uint32_t>(t.typed)) +
                                                       " and " + std::to_string(f.number) + ")");
        t.typed = field;
        t.typed_runs.push_back(f.bytes);
        break;
      }
      default:
        break;  // doc_string, metadata_props and unknown fields are skipped
    }
  }
  if (t.name.empty()) return bad(ErrorCode::invalid_structure, "initializer without a name");
  if (data_type < INT32_MIN || data_type > INT32_MAX || !onnx_type(static_cast<int32_t>(data_type))) {
    if (const char* n = unsupported_type_name(static_cast<int32_t>(data_type)))
      return bad(ErrorCode::unsupported, std::string("data type ") + n + " has no zTensor dtype");
    return bad(ErrorCode::unknown_dtype, "unknown data type " + std::to_string(data_type));
  }
  t.type = onnx_type(static_cast<int32_t>(data_type));
  auto numel = checked_product(t.dims);
  auto nbytes = numel ? checked_mul(*numel, t.type->element_bytes) : std::nullopt;
  if (!nbytes) return bad(ErrorCode::shape_overflow, "shape product overflows 64 bits");
  t.nbytes = *nbytes;

  if (data_location != 0 && data_location != 1) return bad(ErrorCode::malformed_manifest, "unknown data_location " + std::to_string(data_location));
  t.external = data_location == 1;
  int sources = t.has_raw + (t.typed != F::none) + t.external;
  if (sources > 1) return bad(ErrorCode::invalid_structure, "data in more than one of raw_data, a typed field and external data");
  if (!t.external && !t.external_data.empty()) return bad(ErrorCode::invalid_structure, "external_data entries without data_location EXTERNAL");
  if (t.has_raw && t.raw.size() != t.nbytes)
    return bad(ErrorCode::length_mismatch, "raw_data holds " + std::to_string(t.raw.size()) + " bytes, shape and " +
                                               t.type->name + " need " + std::to_string(t.nbytes));
  if (t.typed != F::none) {
    if (t.typed != t.type->field)
      return bad(ErrorCode::invalid_structure, std::string(t.type->name) + " values in field " +
                                                   std::to_string(static_cast<uint32_t>(t.typed)) + "; the ONNX rules put them in field " +
                                                   std::to_string(static_cast<uint32_t>(t.type->field)));
    uint64_t count = 0;
    size_t w = fixed_width(t.typed);
    for (auto run : t.typed_runs) {
      if (w) {
        if (run.size() % w) return bad(ErrorCode::malformed_manifest, "packed fixed-width values of a partial size");
        count += run.size() / w;
      } else {
        ZT_ASSIGN_OR_RETURN(uint64_t n, pb::count_varints(run));
        count += n;
      }
    }
    uint64_t want = *numel * t.type->values_per_element;  // cannot overflow: nbytes did not
    if (count != want)
      return bad(ErrorCode::length_mismatch, "holds " + std::to_string(count) + " typed values, shape needs " + std::to_string(want));
  }
  if (sources == 0 && t.nbytes != 0) return bad(ErrorCode::length_mismatch, "has no data for " + std::to_string(t.nbytes) + " bytes");
  return t;
}

Status decode_typed(const OnnxTensor& t, uint8_t* out) {
  const size_t w = static_cast<size_t>(dtype_width(t.type->dtype));
  size_t fw = fixed_width(t.typed);
  uint8_t* p = out;
  uint8_t* const end = out + t.nbytes;
  auto overflow = [&] {
    return Status(ErrorCode::length_mismatch, "onnx: tensor '" + t.name + "': typed values decode past the tensor's size");
  };
  for (auto run : t.typed_runs) {
    if (fw) {
      if (run.size() > static_cast<size_t>(end - p)) return overflow();  // float/double fields already hold the little-endian values
      std::memcpy(p, run.data(), run.size());
      p += run.size();
      continue;
    }
    size_t pos = 0;
    while (pos < run.size()) {
      ZT_ASSIGN_OR_RETURN(uint64_t v, pb::read_varint(run, &pos));
      if (w > static_cast<size_t>(end - p)) return overflow();
      if (t.type->dtype == DType::boolean) v = v != 0;  // v1.2 bools are 0x00 / 0x01
      // Narrower types keep the low bytes: int32_data carries int8/uint16/
      // float16 bit patterns, uint64_data carries uint32.
      std::memcpy(p, &v, w);
      p += w;
    }
  }
  if (static_cast<uint64_t>(p - out) != t.nbytes)
    return {ErrorCode::length_mismatch, "onnx: tensor '" + t.name + "': typed values decode to the wrong size"};
  return {};
}

}  // namespace zt::onnx
