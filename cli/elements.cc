#include "elements.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace zt::cli {
namespace {

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // little-endian hosts only, as the container
  return v;
}

double half_to_double(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

double bf16_to_double(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// OCP FP8 E4M3FN: bias 7, no infinities, S.1111.111 is NaN.
double e4m3fn_to_double(uint8_t b) {
  const int sign = b >> 7, exp = (b >> 3) & 0xF, mant = b & 0x7;
  double v;
  if (exp == 15 && mant == 7) v = std::numeric_limits<double>::quiet_NaN();
  else if (exp == 0) v = std::ldexp(mant, -9);
  else v = std::ldexp(mant + 8, exp - 10);
  return sign ? -v : v;
}

}  // namespace

bool numeric(DType dtype, LogicalType type) {
  switch (type) {
    case LogicalType::none: return true;
    case LogicalType::f8_e4m3fn:
    case LogicalType::f8_e5m2: return dtype == DType::u8;
    case LogicalType::complex64: return dtype == DType::f32;
    case LogicalType::complex128: return dtype == DType::f64;
    default: return false;
  }
}

uint64_t value_width(DType dtype, LogicalType type) {
  return type == LogicalType::f8_e4m3fn || type == LogicalType::f8_e5m2 ? 1 : dtype_width(dtype);
}

double element_at(DType dtype, LogicalType type, const uint8_t* bytes, uint64_t i) {
  if (type == LogicalType::f8_e4m3fn) return e4m3fn_to_double(bytes[i]);
  if (type == LogicalType::f8_e5m2) return half_to_double(static_cast<uint16_t>(bytes[i] << 8));  // E5M2 = top of f16
  const uint8_t* p = bytes + i * dtype_width(dtype);
  switch (dtype) {
    case DType::f64: return load<double>(p);
    case DType::f32: return load<float>(p);
    case DType::f16: return half_to_double(load<uint16_t>(p));
    case DType::bf16: return bf16_to_double(load<uint16_t>(p));
    case DType::i64: return static_cast<double>(load<int64_t>(p));
    case DType::i32: return load<int32_t>(p);
    case DType::i16: return load<int16_t>(p);
    case DType::i8: return load<int8_t>(p);
    case DType::u64: return static_cast<double>(load<uint64_t>(p));
    case DType::u32: return load<uint32_t>(p);
    case DType::u16: return load<uint16_t>(p);
    case DType::u8: return *p;
    case DType::boolean: return *p != 0;
  }
  return 0;
}

}  // namespace zt::cli
