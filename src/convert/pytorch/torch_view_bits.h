// torch's conj and neg view bits: x.conj() of a complex tensor and
// torch._neg_view(x) are saved as their base storage plus a bit, and
// torch.load gives the values with the bit applied. These turn the stored
// bytes into those values, or refuse a bit zTensor cannot apply.
#pragma once

#include <cstdint>
#include <span>

#include "ztensor/pytorch_format.h"
#include "ztensor/status.h"

namespace zt {

// Whether `t`'s bits can be applied to its dtype: conj on complex64/128;
// neg on floats, complex, signed integers and uint8 (torch's own neg wraps
// uint8; it has none for bool, float8 or wider unsigned types).
// Errors: unsupported, naming the tensor and the bit.
Status check_view_bits(const TorchTensorRef& t);
// Applies the bits in place to `data` (row-major, little-endian elements
// of t's dtype). Call only after check_view_bits accepted `t`.
void apply_view_bits(const TorchTensorRef& t, std::span<uint8_t> data);

inline bool has_view_bits(const TorchTensorRef& t) { return t.conj || t.neg; }

}  // namespace zt
