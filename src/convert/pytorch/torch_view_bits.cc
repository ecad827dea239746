#include "convert/pytorch/torch_view_bits.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace zt {
namespace {

bool is_float(DType d) { return d == DType::f16 || d == DType::bf16 || d == DType::f32 || d == DType::f64; }
bool is_complex(const TorchTensorRef& t) { return t.type == LogicalType::complex64 || t.type == LogicalType::complex128; }
bool neg_applies(const TorchTensorRef& t) {
  if (t.type != LogicalType::none) return is_complex(t);  // float8 has no torch neg
  return is_float(t.dtype) || t.dtype == DType::i8 || t.dtype == DType::i16 || t.dtype == DType::i32 ||
         t.dtype == DType::i64 || t.dtype == DType::u8;
}

// IEEE negation is a sign-bit flip (NaN payloads included, as torch's neg).
void flip_sign(uint8_t* element, size_t width) { element[width - 1] ^= 0x80; }

template <typename T>
void negate_int(uint8_t* element) {
  T v;
  std::memcpy(&v, element, sizeof v);
  using U = std::make_unsigned_t<T>;
  v = static_cast<T>(U(0) - static_cast<U>(v));  // two's complement, wraps like torch
  std::memcpy(element, &v, sizeof v);
}

// torch negates bfloat16 through float32 and rounds back, and that rounding
// turns every NaN into the canonical 0x7fc0 (c10::BFloat16's NaN rule).
void negate_bf16(uint8_t* e) {
  uint16_t v = static_cast<uint16_t>(e[0] | (e[1] << 8));
  bool nan = (v & 0x7f80) == 0x7f80 && (v & 0x007f) != 0;
  v = nan ? uint16_t{0x7fc0} : static_cast<uint16_t>(v ^ 0x8000);
  e[0] = static_cast<uint8_t>(v);
  e[1] = static_cast<uint8_t>(v >> 8);
}

void negate(DType d, uint8_t* e) {
  switch (d) {
    case DType::bf16: negate_bf16(e); break;
    case DType::i8: negate_int<int8_t>(e); break;
    case DType::u8: negate_int<uint8_t>(e); break;
    case DType::i16: negate_int<int16_t>(e); break;
    case DType::i32: negate_int<int32_t>(e); break;
    case DType::i64: negate_int<int64_t>(e); break;
    default: flip_sign(e, dtype_width(d)); break;
  }
}

}  // namespace

Status check_view_bits(const TorchTensorRef& t) {
  const std::string where = "pytorch: tensor '" + t.name + "' (" + t.torch_dtype + ")";
  if (t.conj && !is_complex(t))
    return {ErrorCode::unsupported, where + " carries the conj bit, which only complex tensors can have"};
  if (t.neg && !neg_applies(t))
    return {ErrorCode::unsupported, where + " carries the neg bit, and torch has no negation for its dtype"};
  return {};
}

void apply_view_bits(const TorchTensorRef& t, std::span<uint8_t> data) {
  // Storage dtype of a complex tensor is its part type: parts alternate re, im.
  const size_t part = dtype_width(t.dtype);
  const size_t parts = data.size() / part;
  for (size_t i = 0; i < parts; ++i) {
    uint8_t* e = data.data() + i * part;
    bool imag = is_complex(t) && (i % 2 == 1);
    bool flip = t.neg != (t.conj && imag);  // conj then neg: an imaginary part flips twice
    if (flip) negate(t.dtype, e);
  }
}

}  // namespace zt
