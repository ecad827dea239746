// Storage dtypes (the closed set of 13 in spec v1.2 §2) and logical types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zt {

enum class DType : uint8_t { f64, f32, f16, bf16, i64, i32, i16, i8, u64, u32, u16, u8, boolean };
inline constexpr int kNumDTypes = 13;

// v1.2 spelling: "f32", "bf16", "bool", ...; nullopt for anything else.
std::optional<DType> dtype_from_name(std::string_view name);
const char* dtype_name(DType dtype);
size_t dtype_width(DType dtype);

// Logical types of spec v1.2 §2. `none` means "same as the storage dtype".
enum class LogicalType : uint8_t {
  none,
  f8_e4m3fn,
  f8_e5m2,
  f8_e4m3fnuz,
  f8_e5m2fnuz,
  complex64,
  complex128,
};

// nullopt when the name is not a known logical type (readers then fall back
// to the storage dtype, as the spec allows).
std::optional<LogicalType> logical_type_from_name(std::string_view name);
const char* logical_type_name(LogicalType type);  // "" for none
// Storage dtype a logical type requires (u8 for fp8, f32/f64 for complex).
DType logical_type_storage(LogicalType type);
// Storage elements per logical element: 2 for complex, else 1.
uint64_t logical_type_ratio(LogicalType type);

}  // namespace zt
