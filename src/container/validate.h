// The structural rules every object must satisfy before any of its bytes are
// handed out. Shared by the reader (hostile files) and the writer (so we
// never write a file we would refuse).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/names.h"  // check_name, which every format applies too
#include "ztensor/manifest.h"
#include "ztensor/status.h"

namespace zt {

struct ValidationRules {
  // v1.2 §3: "All index components ... MUST use dtype: "u64"". v1.1 files
  // may use narrower integer indices.
  bool require_u64_indices = true;
  // v1.2 §1: uncompressed_length "Required when encoding is "zstd"".
  bool require_uncompressed_length = true;
};

// "object 'w' component 'data'" for messages.
std::string describe(const Object& o, const std::string& role = "");

// offset_out_of_range unless [offset, offset + length) lies within a
// component of `size` decoded bytes (read_component_range's rule).
Status check_component_range(const Object& o, std::string_view role, uint64_t size, uint64_t offset,
                             uint64_t length);

// Element count of the logical shape; shape_overflow on u64 overflow.
Result<uint64_t> element_count(const Object& o);

// Decoded byte length of a component when the manifest states it (raw:
// length; zstd/z4ai: uncompressed_length); nullopt when unknown.
std::optional<uint64_t> decoded_length(const Component& c);

// Our reader's rule (docs/format.md): no two components share a byte. Each
// component is its own blob (§1 "points to a single contiguous blob", §4
// blobs laid out one after another); bytes read by two components could be
// decoded two ways (zstd by one object, raw by another) and a digest or a
// write to one would silently stand for the other. Empty components take
// no bytes. Errors: invalid_structure naming both components.
Status check_components_disjoint(const std::vector<Object>& objects);

// Checks one object: rank, alignment, bounds within [kMagicSize, data_end),
// storage/logical type agreement, compressed-size caps, the components its
// format requires and their sizes. Unknown formats get the per-component
// checks only.
Status validate_object(const Object& o, uint64_t data_end, const ValidationRules& rules);

}  // namespace zt
