// A zt::ByteSource whose reads call back into Python: how fsspec URLs
// (s3://, gs://, hf://, memory://, ...) reach the same lazy .zt reader as
// HTTP URLs. read(offset, length) must return exactly `length` bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nanobind/nanobind.h>

#include "ztensor/byte_source.h"
#include "ztensor/status.h"

namespace ztpy {

std::shared_ptr<const zt::ByteSource> make_callback_source(std::string name, uint64_t size, nanobind::callable read);

// The status for an exception a callback about `name` raised (GIL held): a
// ztensor error keeps its code and message (see errors.through_core); any
// other is an io_error with its type and the first line of its text.
zt::Status status_from_python_error(const nanobind::python_error& e, const std::string& name);

}  // namespace ztpy
