// v1.2 manifest -> CBOR bytes (deterministic: fields in a fixed order,
// objects and attributes in insertion order, optional fields only when set).
#pragma once

#include <cstdint>
#include <vector>

#include "ztensor/manifest.h"

namespace zt {

inline constexpr const char* kWriterVersion = "1.2.0";

std::vector<uint8_t> encode_manifest(const Manifest& m);

}  // namespace zt
