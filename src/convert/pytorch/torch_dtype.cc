#include "convert/pytorch/torch_dtype.h"

namespace zt::pickle {
namespace {

using L = LogicalType;
// torch dtypes zTensor can hold. complex32, quantized and sub-byte types
// have no v1.2 spelling and are refused by name where they appear.
constexpr TorchScalarInfo kTable[] = {
    {TorchScalar::f64, "float64", "double", "DoubleStorage", DType::f64, L::none, 8},
    {TorchScalar::f32, "float32", "float", "FloatStorage", DType::f32, L::none, 4},
    {TorchScalar::f16, "float16", "half", "HalfStorage", DType::f16, L::none, 2},
    {TorchScalar::bf16, "bfloat16", "", "BFloat16Storage", DType::bf16, L::none, 2},
    {TorchScalar::i64, "int64", "long", "LongStorage", DType::i64, L::none, 8},
    {TorchScalar::i32, "int32", "int", "IntStorage", DType::i32, L::none, 4},
    {TorchScalar::i16, "int16", "short", "ShortStorage", DType::i16, L::none, 2},
    {TorchScalar::i8, "int8", "", "CharStorage", DType::i8, L::none, 1},
    {TorchScalar::u64, "uint64", "", "", DType::u64, L::none, 8},
    {TorchScalar::u32, "uint32", "", "", DType::u32, L::none, 4},
    {TorchScalar::u16, "uint16", "", "", DType::u16, L::none, 2},
    {TorchScalar::u8, "uint8", "", "ByteStorage", DType::u8, L::none, 1},
    {TorchScalar::boolean, "bool", "", "BoolStorage", DType::boolean, L::none, 1},
    {TorchScalar::c64, "complex64", "cfloat", "ComplexFloatStorage", DType::f32, L::complex64, 8},
    {TorchScalar::c128, "complex128", "cdouble", "ComplexDoubleStorage", DType::f64, L::complex128, 16},
    {TorchScalar::f8_e4m3fn, "float8_e4m3fn", "", "", DType::u8, L::f8_e4m3fn, 1},
    {TorchScalar::f8_e5m2, "float8_e5m2", "", "", DType::u8, L::f8_e5m2, 1},
    {TorchScalar::f8_e4m3fnuz, "float8_e4m3fnuz", "", "", DType::u8, L::f8_e4m3fnuz, 1},
    {TorchScalar::f8_e5m2fnuz, "float8_e5m2fnuz", "", "", DType::u8, L::f8_e5m2fnuz, 1},
};

}  // namespace

const TorchScalarInfo& torch_scalar_info(TorchScalar s) {
  for (const auto& e : kTable)
    if (e.scalar == s) return e;
  return kTable[0];  // unreachable: every enumerator has a row
}

const TorchScalarInfo* torch_scalar_by_dtype_name(std::string_view name) {
  for (const auto& e : kTable)
    if (name == e.dtype_name || (e.alias[0] != '\0' && name == e.alias)) return &e;
  return nullptr;
}

const TorchScalarInfo* torch_scalar_by_storage_class(std::string_view name) {
  for (const auto& e : kTable)
    if (e.storage_class[0] != '\0' && name == e.storage_class) return &e;
  return nullptr;
}

}  // namespace zt::pickle
