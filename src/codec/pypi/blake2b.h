// BLAKE2b (RFC 7693), unkeyed, 1..64-byte digests: PyPI z4ai 0.x guards its
// delta references with it (legacy_delta.cc), so reading those frames needs
// the same digest to reject a wrong reference.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace z4ai::detail {

std::vector<uint8_t> blake2b(std::span<const uint8_t> data, size_t digest_bytes);

}  // namespace z4ai::detail
