// Whether the lean coding's exponent streams should also try rANS order-1:
// decided once per input on a sample, so inputs where it cannot pay (most
// transformer weights) cost nothing per chunk.
#pragma once

#include <cstdint>
#include <span>

#include "z4ai/codec.h"

namespace z4ai::detail {

// True when, on spread windows of `data` (bf16, fp16 or fp32), the exponent
// symbol the lean transform codes (bf16/fp32: the exponent; fp16: the high
// byte) takes under kOrder1Share of its order-0 bits with the previous
// element's symbol as context.
bool lean_order1_pays(std::span<const uint8_t> data, DType dtype);

// True when the same exponent symbol's order-0 statistics barely differ
// between spread windows of `data` (one histogram fits them all, e.g.
// i.i.d. values): a chunk's rANS table then gains nothing from locality.
bool lean_exponents_stationary(std::span<const uint8_t> data, DType dtype);

}  // namespace z4ai::detail
