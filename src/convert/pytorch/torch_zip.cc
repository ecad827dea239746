#include "convert/pytorch/torch_zip.h"

#include <array>

#include "common/checked_math.h"

namespace zt {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint64_t kCentralFixed = 46;
constexpr uint64_t kLocalFixed = 30;
constexpr uint16_t kZip64ExtraId = 0x0001;

uint64_t le(std::span<const uint8_t> b, uint64_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[at + static_cast<uint64_t>(i)];
  return v;
}

Status bad(const std::string& what) { return {ErrorCode::malformed_manifest, "zip: " + what}; }

bool fits(std::span<const uint8_t> f, uint64_t at, uint64_t n) {
  auto end = checked_add(at, n);
  return end && *end <= f.size();
}

// Replaces 0xFFFFFFFF fields by their zip64 extended-information values.
Status apply_zip64(std::span<const uint8_t> extra, ZipMember& m, uint64_t& local_offset, bool need_u, bool need_c,
                   bool need_o) {
  uint64_t at = 0;
  while (at + 4 <= extra.size()) {
    uint16_t id = static_cast<uint16_t>(le(extra, at, 2));
    uint64_t len = le(extra, at + 2, 2);
    at += 4;
    if (len > extra.size() - at) return bad("member '" + m.name + "': extra field runs past its header");
    if (id == kZip64ExtraId) {
      uint64_t p = at, end = at + len;
      auto next = [&](uint64_t& out) -> Status {
        if (p + 8 > end) return bad("member '" + m.name + "': zip64 extra field too short");
        out = le(extra, p, 8);
        p += 8;
        return {};
      };
      if (need_u) ZT_RETURN_IF_ERROR(next(m.size));
      if (need_c) ZT_RETURN_IF_ERROR(next(m.compressed_size));
      if (need_o) ZT_RETURN_IF_ERROR(next(local_offset));
      return {};
    }
    at += len;
  }
  if (need_u || need_c || need_o) return bad("member '" + m.name + "': 32-bit field saturated but no zip64 extra field");
  return {};
}

}  // namespace

Result<ZipIndex> ZipIndex::parse(std::span<const uint8_t> f) {
  if (f.size() < kZipEndRecordBytes) return Status(ErrorCode::bad_magic, "zip: file of " + std::to_string(f.size()) + " bytes is too small");
  // Find the end-of-central-directory record, scanning back over a comment.
  uint64_t lowest = f.size() - kZipEndRecordBytes > kZipMaxCommentBytes ? f.size() - kZipEndRecordBytes - kZipMaxCommentBytes : 0;
  uint64_t eocd = f.size();
  for (uint64_t at = f.size() - kZipEndRecordBytes + 1; at-- > lowest;) {
    if (le(f, at, 4) == kEndSig && at + kZipEndRecordBytes + le(f, at + 20, 2) == f.size()) {
      eocd = at;
      break;
    }
  }
  if (eocd == f.size()) return Status(ErrorCode::bad_magic, "zip: no end-of-central-directory record");
  uint64_t count = le(f, eocd + 10, 2);
  uint64_t cd_size = le(f, eocd + 12, 4);
  uint64_t cd_offset = le(f, eocd + 16, 4);
  if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
    if (eocd < 20 || le(f, eocd - 20, 4) != kEnd64LocatorSig) return bad("zip64 sizes without a zip64 end locator");
    uint64_t e64 = le(f, eocd - 20 + 8, 8);
    if (!fits(f, e64, 56) || le(f, e64, 4) != kEnd64Sig) return bad("zip64 end record missing or past the file");
    count = le(f, e64 + 32, 8);
    cd_size = le(f, e64 + 40, 8);
    cd_offset = le(f, e64 + 48, 8);
  }
  if (!fits(f, cd_offset, cd_size)) return bad("central directory runs past the file");
  if (count > kMaxZipMembers)
    return Status(ErrorCode::limit_exceeded, "zip: " + std::to_string(count) + " members (limit " + std::to_string(kMaxZipMembers) + ")");
  if (count > cd_size / kCentralFixed) return bad(std::to_string(count) + " members do not fit a central directory of " + std::to_string(cd_size) + " bytes");

  ZipIndex z;
  z.members_.reserve(static_cast<size_t>(count));
  uint64_t at = cd_offset, cd_end = cd_offset + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (at + kCentralFixed > cd_end || le(f, at, 4) != kCentralSig) return bad("central directory entry " + std::to_string(i) + " is malformed");
    ZipMember m;
    m.flags = static_cast<uint16_t>(le(f, at + 8, 2));
    m.method = static_cast<uint16_t>(le(f, at + 10, 2));
    m.crc32 = static_cast<uint32_t>(le(f, at + 16, 4));
    m.compressed_size = le(f, at + 20, 4);
    m.size = le(f, at + 24, 4);
    uint64_t nlen = le(f, at + 28, 2), elen = le(f, at + 30, 2), clen = le(f, at + 32, 2);
    uint64_t local = le(f, at + 42, 4);
    if (at + kCentralFixed + nlen + elen + clen > cd_end) return bad("central directory entry " + std::to_string(i) + " runs past the directory");
    m.name.assign(reinterpret_cast<const char*>(f.data() + at + kCentralFixed), static_cast<size_t>(nlen));
    ZT_RETURN_IF_ERROR(apply_zip64(f.subspan(static_cast<size_t>(at + kCentralFixed + nlen), static_cast<size_t>(elen)), m, local,
                                   m.size == 0xFFFFFFFF, m.compressed_size == 0xFFFFFFFF, local == 0xFFFFFFFF));
    at += kCentralFixed + nlen + elen + clen;
    // The data follows the local header, whose name/extra lengths may differ
    // from the central copy (torch pads with an "FB" extra field).
    if (!fits(f, local, kLocalFixed) || le(f, local, 4) != kLocalSig) return bad("member '" + m.name + "': local header missing or past the file");
    m.data_offset = local + kLocalFixed + le(f, local + 26, 2) + le(f, local + 28, 2);
    if (!fits(f, m.data_offset, m.compressed_size)) return bad("member '" + m.name + "': data runs past the file");
    if (!z.index_.emplace(m.name, z.members_.size()).second)
      return Status(ErrorCode::invalid_structure, "zip: member '" + m.name + "' appears twice");
    z.members_.push_back(std::move(m));
  }
  return z;
}

const ZipMember* ZipIndex::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &members_[it->second];
}

Result<std::span<const uint8_t>> ZipIndex::stored_bytes(std::span<const uint8_t> f, const ZipMember& m) const {
  if (m.flags & 1) return Status(ErrorCode::unsupported, "zip: member '" + m.name + "' is encrypted");
  if (m.method != 0)
    return Status(ErrorCode::unsupported, "zip: member '" + m.name + "' is compressed (method " + std::to_string(m.method) +
                                              "); torch.save stores records uncompressed and only those are read");
  if (m.size != m.compressed_size) return bad("member '" + m.name + "' is stored but its sizes differ");
  return f.subspan(static_cast<size_t>(m.data_offset), static_cast<size_t>(m.size));
}

uint32_t zip_crc32(std::span<const uint8_t> bytes) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace zt
