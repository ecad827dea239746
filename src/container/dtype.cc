#include "ztensor/dtype.h"
#include "ztensor/manifest.h"

#include <array>

namespace zt {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t width;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypes = {{
    {DType::f64, "f64", 8},  {DType::f32, "f32", 4},  {DType::f16, "f16", 2},
    {DType::bf16, "bf16", 2}, {DType::i64, "i64", 8},  {DType::i32, "i32", 4},
    {DType::i16, "i16", 2},  {DType::i8, "i8", 1},    {DType::u64, "u64", 8},
    {DType::u32, "u32", 4},  {DType::u16, "u16", 2},  {DType::u8, "u8", 1},
    {DType::boolean, "bool", 1},
}};

struct LogicalInfo {
  LogicalType type;
  const char* name;
  DType storage;
  uint64_t ratio;
};

constexpr std::array<LogicalInfo, 6> kLogical = {{
    {LogicalType::f8_e4m3fn, "f8_e4m3fn", DType::u8, 1},
    {LogicalType::f8_e5m2, "f8_e5m2", DType::u8, 1},
    {LogicalType::f8_e4m3fnuz, "f8_e4m3fnuz", DType::u8, 1},
    {LogicalType::f8_e5m2fnuz, "f8_e5m2fnuz", DType::u8, 1},
    {LogicalType::complex64, "complex64", DType::f32, 2},
    {LogicalType::complex128, "complex128", DType::f64, 2},
}};

}  // namespace

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& d : kDTypes)
    if (name == d.name) return d.dtype;
  return std::nullopt;
}

const char* dtype_name(DType dtype) { return kDTypes[static_cast<size_t>(dtype)].name; }
size_t dtype_width(DType dtype) { return kDTypes[static_cast<size_t>(dtype)].width; }

std::optional<LogicalType> logical_type_from_name(std::string_view name) {
  for (const auto& l : kLogical)
    if (name == l.name) return l.type;
  return std::nullopt;
}

const char* logical_type_name(LogicalType type) {
  for (const auto& l : kLogical)
    if (l.type == type) return l.name;
  return "";
}

DType logical_type_storage(LogicalType type) {
  for (const auto& l : kLogical)
    if (l.type == type) return l.storage;
  return DType::u8;
}

uint64_t logical_type_ratio(LogicalType type) {
  for (const auto& l : kLogical)
    if (l.type == type) return l.ratio;
  return 1;
}

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::raw: return "raw";
    case Encoding::zstd: return "zstd";
    case Encoding::z4ai: return "z4ai";
    case Encoding::unknown: return "unknown";
  }
  return "raw";
}

std::optional<Encoding> encoding_from_name(std::string_view name) {
  if (name == "raw") return Encoding::raw;
  if (name == "zstd") return Encoding::zstd;
  if (name == "z4ai") return Encoding::z4ai;
  return std::nullopt;
}

}  // namespace zt
