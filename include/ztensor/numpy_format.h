// Reading NumPy .npy files and .npz archives as zTensor objects.
//
// Each array becomes a `dense` object with one `data` component in C order
// and little-endian bytes: little-endian C-order data is a zero-copy view of
// the file (stored .npz members too); big-endian data is byte-swapped and
// Fortran-order data transposed into a copy when read. Object, structured,
// string, datetime and void dtypes are refused as unsupported, naming the
// dtype. The .npy header is parsed as the exact Python-literal subset numpy
// writes; nothing is ever evaluated.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/reader.h"  // ComponentBytes
#include "ztensor/source.h"
#include "ztensor/status.h"

namespace zt {

// Caps against zip bombs; reading an archive over them is limit_exceeded.
struct NpzOptions {
  uint64_t max_member_bytes = uint64_t{1} << 36;  // decoded bytes of one member
  uint64_t max_total_bytes = uint64_t{1} << 38;   // decoded bytes of all members
};

// One object, named after the file's stem ("w" for "dir/w.npy").
// Errors: io_error, bad_magic, unsupported (version, dtype), malformed_manifest
// (header literal), limit_exceeded (header size), shape_overflow,
// length_mismatch (data shorter or longer than the shape).
Result<std::unique_ptr<TensorSource>> open_npy(const std::string& path);
// Over positional reads (a URL): the header now, the data when it is read;
// the object is named after the stem of source->name().
Result<std::unique_ptr<TensorSource>> open_npy(std::shared_ptr<const ByteSource> source);
Result<std::unique_ptr<TensorSource>> open_npy_memory(std::span<const uint8_t> bytes,
                                                      std::shared_ptr<const void> owner,
                                                      const std::string& name = "array");

// One object per `<name>.npy` member, named without the suffix. Stored and
// deflated members; zip64 archives. Deflated members are inflated on read,
// never past their declared size. Errors: those of open_npy, plus
// bad_magic / malformed_manifest (zip structure), invalid_structure
// (overlapping or duplicate members, non-.npy members), unsupported
// (encryption, compression methods other than stored/deflate, multi-disk),
// limit_exceeded (caps, impossible compression ratio), corrupt_stream and
// digest_mismatch (CRC-32) when read or verified.
Result<std::unique_ptr<TensorSource>> open_npz(const std::string& path, const NpzOptions& options = {});
Result<std::unique_ptr<TensorSource>> open_npz_memory(std::span<const uint8_t> bytes,
                                                      std::shared_ptr<const void> owner,
                                                      const NpzOptions& options = {});

}  // namespace zt
