// The manifest in v1.2 terms (spec v1.2 §1). Legacy v1.1 and v0.1 files are
// translated into this model by the reader, so callers see one shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ztensor/dtype.h"
#include "ztensor/value.h"

namespace zt {

// `unknown` is an encoding this reader cannot decode; the component stays
// listed (other objects remain readable) and reading it is an error.
enum class Encoding : uint8_t { raw, zstd, z4ai, unknown };
const char* encoding_name(Encoding e);
std::optional<Encoding> encoding_from_name(std::string_view name);

struct Component {
  DType dtype = DType::u8;
  LogicalType type = LogicalType::none;  // none also for unknown names
  std::string type_name;                 // as written, "" when absent
  uint64_t offset = 0;
  uint64_t length = 0;  // bytes on disk
  std::optional<uint64_t> uncompressed_length;
  Encoding encoding = Encoding::raw;
  std::string encoding_text;  // as written (names an unknown encoding)
  std::string digest;   // "sha256:<hex>" / "crc32c:<hex>", "" when absent
  bool big_endian = false;  // v0.1 data_endianness: "big"; swapped on read
};

struct Object {
  std::string name;
  std::vector<uint64_t> shape;
  std::string format;   // dense, sparse_csr, sparse_coo, quantized_group, ...
  Value attributes;     // map, or null when absent
  std::vector<std::pair<std::string, Component>> components;  // role -> component

  const Component* find(std::string_view role) const {
    for (const auto& [r, c] : components)
      if (r == role) return &c;
    return nullptr;
  }
};

// Elements of a tensor of this shape (1 for a scalar); nullopt when the
// product overflows 64 bits.
std::optional<uint64_t> element_count(const std::vector<uint64_t>& shape);
// The shape as "[2, 3]" ("[]" for a scalar): error messages and the `zt`
// tables print shapes the same way.
std::string shape_text(const std::vector<uint64_t>& shape);

struct Manifest {
  std::string version;  // "1.2.0", "1.1.0", or "0.1.0" for legacy files
  Value attributes;     // map, or null when absent
  std::vector<Object> objects;  // file order
};

}  // namespace zt
