// A zt::ByteSource whose reads call back into Python: how fsspec URLs
// (s3://, gs://, hf://, memory://, ...) reach the same lazy .zt reader as
// HTTP URLs. read(offset, length) must return exactly `length` bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nanobind/nanobind.h>

#include "ztensor/byte_source.h"

namespace ztpy {

std::shared_ptr<const zt::ByteSource> make_callback_source(std::string name, uint64_t size, nanobind::callable read);

}  // namespace ztpy
