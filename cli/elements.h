// Element values as double, for comparing tensors of any numeric dtype.
#pragma once

#include <cstdint>
#include <span>

#include "ztensor/dtype.h"

namespace zt::cli {

// True when elements of (dtype, type) can be read as numbers: every storage
// dtype, plus fp8 e4m3fn / e5m2 and complex (read as their float parts).
bool numeric(DType dtype, LogicalType type);
// Bytes per value read by element_at: 1 for fp8, the dtype width otherwise
// (a complex number is two values).
uint64_t value_width(DType dtype, LogicalType type);
// Value `i` of little-endian storage `bytes`. Caller checks bounds.
double element_at(DType dtype, LogicalType type, const uint8_t* bytes, uint64_t i);

}  // namespace zt::cli
