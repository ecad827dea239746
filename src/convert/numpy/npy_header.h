// The .npy header (numpy/lib/format.py, versions 1.0, 2.0, 3.0):
//   "\x93NUMPY" | u8 major | u8 minor | header length (u16 LE in 1.0,
//   u32 LE in 2.0/3.0) | header: a Python dict literal
//   {'descr': <dtype str>, 'fortran_order': <bool>, 'shape': <tuple of ints>}
//   padded with spaces and a final '\n' | array data
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ztensor/dtype.h"
#include "ztensor/status.h"

namespace zt::npy {

inline constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// numpy.lib.format.read_array_header: "max_header_size=10000 -- header
// larger than this is refused" (guards the literal parser against huge input).
inline constexpr uint64_t kMaxHeaderBytes = 10000;
// Magic, version and the widest (u32) length field.
inline constexpr uint64_t kMaxPreludeBytes = 6 + 2 + 4;
inline constexpr uint64_t kMaxPrefixBytes = kMaxPreludeBytes + kMaxHeaderBytes;
// numpy dimensions are npy_intp: each must fit in a signed 64-bit integer.
inline constexpr uint64_t kMaxDim = static_cast<uint64_t>(INT64_MAX);
// Dimensions numpy supports (NPY_MAXDIMS in numpy 2).
inline constexpr size_t kMaxRank = 64;

struct Header {
  std::string descr;  // as written: "<f4"
  DType dtype = DType::u8;
  LogicalType type = LogicalType::none;
  uint64_t item_bytes = 1;   // bytes per array element (8 for complex64)
  uint64_t swap_width = 1;   // width of the byte-swapped unit (4 for complex64)
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // prelude + header: where the array data starts
  uint64_t data_bytes = 0;   // product(shape) * item_bytes
};

// Parses the prelude and header at the start of `bytes` (which may be only a
// prefix of the file). `what` names the file or member in messages.
// Errors: bad_magic, unsupported (version, dtype), limit_exceeded (header over
// kMaxHeaderBytes), malformed_manifest (truncated or bad literal),
// shape_overflow.
// When the dict literal parses but the dtype is refused, `*literal` (if
// given) still receives descr, fortran_order and shape, so an archive can
// describe the member it refuses.
Result<Header> parse_header(std::span<const uint8_t> bytes, const std::string& what, Header* literal = nullptr);

// The dict literal alone (npy_literal.cc): fills descr, fortran_order, shape.
Status parse_literal(std::string_view text, const std::string& what, Header* out);

}  // namespace zt::npy
