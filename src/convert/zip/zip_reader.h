// The one zip reader (.npz and torch.save archives): a strict reader of the
// central directory (PKWARE APPNOTE 6.3): the end-of-central-directory
// record (and its zip64 form), then one central entry per member, each
// checked against its local header. Deflated members are decoded with zlib
// (inflate.h); stored ones are views of the file.
//
//   [local header | name | extra | data]...  central directory  [zip64 EOCD
//   + locator]  EOCD (22 bytes + comment, at the very end)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
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
// More members than this is not an archive of arrays or a checkpoint (one
// member per array or storage); refused before the entries are read.
inline constexpr uint64_t kMaxMembers = uint64_t{1} << 20;
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
// records), limit_exceeded (over kMaxMembers), unsupported (multi-disk,
// encryption, other methods), invalid_structure (overlapping members,
// local/central name mismatch, a name twice).
Result<std::vector<Member>> read_central_directory(std::span<const uint8_t> bytes);

// The members of an archive by name.
class Archive {
 public:
  // read_central_directory's errors.
  static Result<Archive> open(std::span<const uint8_t> bytes);
  const Member* find(std::string_view name) const;
  const std::vector<Member>& members() const { return members_; }
  // A stored member's bytes, a view of `bytes`. Errors: unsupported for a
  // deflated member (callers that take them inflate with inflate.h).
  Result<std::span<const uint8_t>> stored_bytes(std::span<const uint8_t> bytes, const Member& m) const;

 private:
  std::vector<Member> members_;
  std::unordered_map<std::string, size_t> index_;
};

// CRC-32 (ISO 3309, the zip checksum) of `data` continued from `crc` (0 to start).
uint32_t crc32_update(uint32_t crc, std::span<const uint8_t> data);
inline uint32_t crc32_of(std::span<const uint8_t> data) { return crc32_update(0, data); }

}  // namespace zt::zip
