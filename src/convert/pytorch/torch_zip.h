// A minimal zip central-directory reader for torch.save archives, which
// store every record uncompressed (64-byte aligned in recent releases), so
// records are handed out as views of the mapped file. Deflated records
// are listed but reading them is `unsupported`. Zip64 is understood.
//
// (src/convert/numpy/zip_reader.* reads deflated members for .npz; this one
// stays separate so the pytorch reader needs no zlib. They may be merged.)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ztensor/status.h"

namespace zt {

// More members than this is not a checkpoint (one record per storage).
inline constexpr uint64_t kMaxZipMembers = uint64_t{1} << 20;
// "The comment ... length 0-65535": the end record is in the last 64 KiB + 22.
inline constexpr uint64_t kZipEndRecordBytes = 22;
inline constexpr uint64_t kZipMaxCommentBytes = 65535;

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint16_t flags = 0;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t data_offset = 0;  // absolute offset of the record's bytes
};

class ZipIndex {
 public:
  // Errors: bad_magic (no end-of-central-directory record), malformed_manifest
  // (records that run past the file or disagree), limit_exceeded,
  // invalid_structure (duplicate member names).
  static Result<ZipIndex> parse(std::span<const uint8_t> file);
  const ZipMember* find(std::string_view name) const;
  const std::vector<ZipMember>& members() const { return members_; }
  // The record's bytes. Errors: unsupported (compressed or encrypted).
  Result<std::span<const uint8_t>> stored_bytes(std::span<const uint8_t> file, const ZipMember& m) const;

 private:
  std::vector<ZipMember> members_;
  std::unordered_map<std::string, size_t> index_;
};

// CRC-32 (ISO 3309, the zip checksum).
uint32_t zip_crc32(std::span<const uint8_t> bytes);

}  // namespace zt
