#include "dtype_convert.h"

namespace nb = nanobind;

namespace ztpy {

nb::dlpack::dtype storage_dlpack_dtype(zt::DType dtype) {
  using C = nb::dlpack::dtype_code;
  auto make = [](C code, size_t bytes) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(code);
    d.bits = static_cast<uint8_t>(bytes * 8);
    d.lanes = 1;
    return d;
  };
  switch (dtype) {
    case zt::DType::f64: return make(C::Float, 8);
    case zt::DType::f32: return make(C::Float, 4);
    case zt::DType::f16: return make(C::Float, 2);
    case zt::DType::bf16: return make(C::UInt, 2);  // viewed as ml_dtypes.bfloat16
    case zt::DType::i64: return make(C::Int, 8);
    case zt::DType::i32: return make(C::Int, 4);
    case zt::DType::i16: return make(C::Int, 2);
    case zt::DType::i8: return make(C::Int, 1);
    case zt::DType::u64: return make(C::UInt, 8);
    case zt::DType::u32: return make(C::UInt, 4);
    case zt::DType::u16: return make(C::UInt, 2);
    case zt::DType::u8: return make(C::UInt, 1);
    case zt::DType::boolean: return make(C::Bool, 1);
  }
  return make(C::UInt, 1);
}

nb::dlpack::dtype logical_dlpack_dtype(zt::DType dtype, zt::LogicalType type) {
  if ((type == zt::LogicalType::complex64 || type == zt::LogicalType::complex128) &&
      dtype == zt::logical_type_storage(type)) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(nb::dlpack::dtype_code::Complex);
    d.bits = static_cast<uint8_t>(zt::dtype_width(dtype) * 16);
    d.lanes = 1;
    return d;
  }
  return storage_dlpack_dtype(dtype);
}

}  // namespace ztpy
