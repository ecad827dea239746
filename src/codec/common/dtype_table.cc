// Dtype names, aliases and widths. The aliases cover the reference's
// DTYPE_WIDTHS table, NumPy names and safetensors' upper-case codes.
#include <array>
#include <cctype>
#include <string>

#include "z4ai/codec.h"

namespace z4ai {
namespace {

struct Alias {
  const char* name;
  DType dtype;
};

constexpr Alias kAliases[] = {
    {"", DType::opaque},           {"raw", DType::opaque},          {"bytes", DType::opaque},
    {"opaque", DType::opaque},     {"none", DType::opaque},         {"bf16", DType::bf16},
    {"bfloat16", DType::bf16},     {"fp16", DType::fp16},           {"float16", DType::fp16},
    {"half", DType::fp16},         {"f16", DType::fp16},            {"fp32", DType::fp32},
    {"float32", DType::fp32},      {"float", DType::fp32},          {"f32", DType::fp32},
    {"fp64", DType::fp64},         {"float64", DType::fp64},        {"double", DType::fp64},
    {"f64", DType::fp64},          {"f8_e4m3fn", DType::f8_e4m3fn}, {"f8_e4m3", DType::f8_e4m3fn},
    {"fp8_e4m3", DType::f8_e4m3fn}, {"fp8_e4m3fn", DType::f8_e4m3fn},
    {"float8_e4m3fn", DType::f8_e4m3fn}, {"f8_e5m2", DType::f8_e5m2}, {"fp8_e5m2", DType::f8_e5m2},
    {"float8_e5m2", DType::f8_e5m2}, {"f8_e4m3fnuz", DType::f8_e4m3fnuz},
    {"fp8_e4m3fnuz", DType::f8_e4m3fnuz}, {"float8_e4m3fnuz", DType::f8_e4m3fnuz},
    {"f8_e5m2fnuz", DType::f8_e5m2fnuz}, {"fp8_e5m2fnuz", DType::f8_e5m2fnuz},
    {"float8_e5m2fnuz", DType::f8_e5m2fnuz}, {"int8", DType::int8}, {"i8", DType::int8},
    {"uint8", DType::uint8},       {"u8", DType::uint8},            {"int16", DType::int16},
    {"i16", DType::int16},         {"uint16", DType::uint16},       {"u16", DType::uint16},
    {"int32", DType::int32},       {"i32", DType::int32},           {"uint32", DType::uint32},
    {"u32", DType::uint32},        {"int64", DType::int64},         {"i64", DType::int64},
    {"uint64", DType::uint64},     {"u64", DType::uint64},          {"bool", DType::boolean},
};

struct Info {
  const char* name;
  uint32_t width;
};

constexpr std::array<Info, kDTypeCount> kInfo = {{
    {"", 1}, {"bf16", 2}, {"fp16", 2}, {"fp32", 4}, {"fp64", 8}, {"f8_e4m3fn", 1},
    {"f8_e5m2", 1}, {"f8_e4m3fnuz", 1}, {"f8_e5m2fnuz", 1}, {"int8", 1}, {"uint8", 1},
    {"int16", 2}, {"uint16", 2}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
    {"bool", 1},
}};

}  // namespace

zt::Result<DType> parse_dtype(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const Alias& a : kAliases) {
    if (lower == a.name) return a.dtype;
  }
  return zt::Result<DType>(zt::ErrorCode::invalid_argument,
                           "z4ai: unknown dtype code '" + std::string(name) +
                               "' (known: bf16, fp16, fp32, fp64, f8_e4m3fn, f8_e5m2, f8_e4m3fnuz, "
                               "f8_e5m2fnuz, int8..uint64, bool, raw)");
}

const char* dtype_name(DType dtype) {
  auto i = static_cast<size_t>(dtype);
  return i < kInfo.size() ? kInfo[i].name : "?";
}

uint32_t dtype_width(DType dtype) {
  auto i = static_cast<size_t>(dtype);
  return i < kInfo.size() ? kInfo[i].width : 1;
}

zt::Result<uint32_t> dtype_width(std::string_view name) {
  ZT_ASSIGN_OR_RETURN(DType d, parse_dtype(name));
  return dtype_width(d);
}

zt::Result<Effort> parse_effort(std::string_view name) {
  if (name.empty() || name == "fast") return Effort::fast;
  if (name == "balanced") return Effort::balanced;
  if (name == "max") return Effort::max;
  return zt::Result<Effort>(zt::ErrorCode::invalid_argument,
                            "z4ai: unknown effort '" + std::string(name) + "' (fast, balanced, max)");
}

}  // namespace z4ai
