// torch element types and their zTensor storage dtype + logical type.
#pragma once

#include <cstdint>
#include <string_view>

#include "ztensor/dtype.h"

namespace zt::pickle {

enum class TorchScalar : uint8_t {
  f64, f32, f16, bf16, i64, i32, i16, i8, u64, u32, u16, u8, boolean,
  c64, c128, f8_e4m3fn, f8_e5m2, f8_e4m3fnuz, f8_e5m2fnuz,
};

struct TorchScalarInfo {
  TorchScalar scalar;
  const char* dtype_name;    // torch.<dtype_name>, also its pickled global
  const char* alias;         // second spelling (torch.float, torch.long), or ""
  const char* storage_class; // torch.<storage_class>, or "" when none exists
  DType dtype;
  LogicalType type;
  uint64_t element_bytes;    // bytes per logical element
};

const TorchScalarInfo& torch_scalar_info(TorchScalar s);
// Lookup by torch.<name> (dtype spelling or alias); nullptr when unknown.
const TorchScalarInfo* torch_scalar_by_dtype_name(std::string_view name);
// Lookup by storage class name ("FloatStorage"); nullptr when unknown.
const TorchScalarInfo* torch_scalar_by_storage_class(std::string_view name);

}  // namespace zt::pickle
