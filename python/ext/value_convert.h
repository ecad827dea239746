// zt::Value (CBOR data model) <-> Python objects, for file and object
// attributes.
#pragma once

#include <nanobind/nanobind.h>

#include "ztensor/value.h"

namespace ztpy {

// map -> dict, array -> list, text -> str, bytes -> bytes, ints, floats,
// bool, null -> None.
nanobind::object value_to_python(const zt::Value& v);
// The reverse; also numpy scalars/arrays (via tolist) and tuples. Throws
// StatusError(invalid_argument) for anything CBOR cannot hold.
zt::Value python_to_value(nanobind::handle obj);

}  // namespace ztpy
