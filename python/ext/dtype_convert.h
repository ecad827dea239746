// Storage/logical types -> the DLPack dtype of the numpy array we hand out.
// numpy has no bfloat16/fp8, so those come out as unsigned ints of the same
// width and ztensor/_dtypes.py views them as ml_dtypes types.
#pragma once

#include <nanobind/ndarray.h>

#include "ztensor/dtype.h"

namespace ztpy {

nanobind::dlpack::dtype storage_dlpack_dtype(zt::DType dtype);
// Element type of the logical array: complex for complex64/128, otherwise
// the storage type.
nanobind::dlpack::dtype logical_dlpack_dtype(zt::DType dtype, zt::LogicalType type);

}  // namespace ztpy
