// A strict reader of a zip archive's central directory (PKWARE APPNOTE
// 6.3): the end-of-central-directory record (and its zip64 form), then one
// central entry per member, each checked against its local header.
//
//   [local header | name | extra | data]...  central directory  [zip64 EOCD
//   + locator]  EOCD (22 bytes + comment, at the very end)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ztensor/status.h"

namespace zt::zip {

inline constexpr uint32_t kLocalSig = 0x04034b50;
inline constexpr uint32_t kCentralSig = 0x02014b50;
inline constexpr uint32_t kEocdSig = 0x06054b50;
inline constexpr uint32_t kZip64EocdSig = 0x06064b50;
inline constexpr uint32_t kZip64LocatorSig = 0x07064b50;
inline constexpr uint64_t kEocdBytes = 22;
inline constexpr uint64_t kZip64LocatorBytes = 20;
inline constexpr uint64_t kZip64EocdBytes = 56;
inline constexpr uint64_t kCentralBytes = 46;  // fixed part of a central entry
inline constexpr uint64_t kLocalBytes = 30;    // fixed part of a local header
// APPNOTE 4.4.12: the archive comment is at most 65535 bytes, which bounds
// the backwards search for the EOCD record.
inline constexpr uint64_t kMaxCommentBytes = 0xFFFF;
// Compression methods (APPNOTE 4.4.5) this reader decodes.
inline constexpr uint16_t kStored = 0;
inline constexpr uint16_t kDeflated = 8;

struct Member {
  std::string name;
  uint16_t method = kStored;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_offset = 0;  // local header
  uint64_t data_offset = 0;   // first byte of the (compressed) data
};

// Errors: bad_magic (no EOCD), malformed_manifest (truncated or inconsistent
// records), unsupported (multi-disk, encryption, other methods),
// invalid_structure (overlapping members, local/central name mismatch).
Result<std::vector<Member>> read_central_directory(std::span<const uint8_t> bytes);

}  // namespace zt::zip
