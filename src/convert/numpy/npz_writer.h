// Writing a NumPy .npz archive from any TensorSource: a zip of stored
// (uncompressed) `<name>.npy` members, one per dense object, that
// numpy.load reads back exactly. Streams one object at a time; the output
// appears atomically. Layout per member:
//   local header | name | alignment extra (+ zip64 extra) | .npy header | data
// then the central directory and the end records (zip64 when needed).
#pragma once

#include <cstdint>
#include <string>

#include "ztensor/convert.h"
#include "ztensor/source.h"

namespace zt::npz {

// numpy.lib.format.ARRAY_ALIGN: "the .npy header is padded so the array data
// starts at a multiple of 64 bytes". We also align each member's .npy start
// to it, so stored data is 64-byte aligned in the archive (zero-copy reads).
inline constexpr uint64_t kArrayAlign = 64;
// APPNOTE 4.4.9/4.4.21: 32-bit sizes/offsets and the 16-bit entry count
// saturate at these values; beyond them the zip64 records are required.
inline constexpr uint64_t kMax32 = 0xFFFFFFFFull;
inline constexpr uint64_t kMax16 = 0xFFFF;
// APPNOTE 4.4.10: file name length is a 16-bit field.
inline constexpr uint64_t kMaxNameBytes = 0xFFFF;

struct NpzWriteOptions {
  // Tests: write zip64 records even for small archives.
  bool force_zip64 = false;
};

// Every object of `source` must be dense with one `data` component whose
// type numpy has: bool, (u)int8..64, f16/f32/f64, complex64/128. bf16 and
// fp8 are refused (numpy has no such dtype; `np.load` could only return
// opaque void bytes), as are non-dense formats and unknown logical types.
// Errors: unsupported (naming the object), shape_overflow, length_mismatch,
// the source's read errors, io_error.
Result<ConvertStats> write_npz(const TensorSource& source, const std::string& out, const ProgressFn& progress = {},
                               const NpzWriteOptions& options = {});

}  // namespace zt::npz
