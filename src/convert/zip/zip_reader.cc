// Central directory parsing with every size and offset bounds-checked.
#include "convert/zip/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "common/checked_math.h"

namespace zt::zip {
namespace {

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

Status malformed(const std::string& rule) { return Status(ErrorCode::malformed_manifest, "zip: " + rule); }

struct Directory {
  uint64_t entries = 0, size = 0, offset = 0;
  uint64_t end = 0;  // where the central directory must end (next record)
};

Result<Directory> find_directory(std::span<const uint8_t> b) {
  if (b.size() < kEocdBytes) return Status(ErrorCode::bad_magic, "zip: file too short for an end-of-central-directory record");
  // The EOCD is the last record; its comment must reach exactly to EOF.
  const uint64_t lowest = b.size() - kEocdBytes > kMaxCommentBytes ? b.size() - kEocdBytes - kMaxCommentBytes : 0;
  uint64_t pos = b.size() - kEocdBytes;
  for (;; --pos) {
    if (le(&b[pos], 4) == kEocdSig && pos + kEocdBytes + le(&b[pos + 20], 2) == b.size()) break;
    if (pos == lowest) return Status(ErrorCode::bad_magic, "zip: no end-of-central-directory record");
  }
  const uint8_t* e = &b[pos];
  Directory d;
  const uint64_t disk = le(e + 4, 2), cd_disk = le(e + 6, 2), here = le(e + 8, 2);
  d.entries = le(e + 10, 2);
  d.size = le(e + 12, 4);
  d.offset = le(e + 16, 4);
  d.end = pos;
  if (d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF) {
    if (pos < kZip64LocatorBytes || le(&b[pos - kZip64LocatorBytes], 4) != kZip64LocatorSig)
      return malformed("EOCD defers to zip64 but the zip64 locator is missing");
    const uint64_t z = le(&b[pos - kZip64LocatorBytes + 8], 8);
    if (z > pos - kZip64LocatorBytes || pos - kZip64LocatorBytes - z < kZip64EocdBytes || le(&b[z], 4) != kZip64EocdSig)
      return malformed("zip64 end-of-central-directory record is missing or out of place");
    if (le(&b[z + 16], 4) != 0 || le(&b[z + 20], 4) != 0 || le(&b[z + 24], 8) != le(&b[z + 32], 8))
      return Status(ErrorCode::unsupported, "zip: multi-disk archives are not supported");
    d.entries = le(&b[z + 32], 8);
    d.size = le(&b[z + 40], 8);
    d.offset = le(&b[z + 48], 8);
    d.end = z;
  } else if (disk != 0 || cd_disk != 0 || here != d.entries) {
    return Status(ErrorCode::unsupported, "zip: multi-disk archives are not supported");
  }
  auto cd_end = checked_add(d.offset, d.size);
  if (!cd_end || *cd_end > d.end) return malformed("central directory lies outside the archive");
  if (d.entries > kMaxMembers)
    return Status(ErrorCode::limit_exceeded, "zip: " + std::to_string(d.entries) + " members (limit " +
                                                 std::to_string(kMaxMembers) + ")");
  if (d.entries > d.size / kCentralBytes)
    return malformed("central directory claims " + std::to_string(d.entries) + " entries in " + std::to_string(d.size) + " bytes");
  return d;
}

// Zip64 extended information (APPNOTE 4.5.3): the 64-bit values of exactly
// those fields whose 32-bit slot holds 0xFFFFFFFF, in this order.
Status apply_zip64_extra(std::span<const uint8_t> extra, Member* m, bool usize64, bool csize64, bool off64) {
  if (!usize64 && !csize64 && !off64) return Status::Ok();
  size_t p = 0;
  while (p + 4 <= extra.size()) {
    const uint64_t id = le(&extra[p], 2), n = le(&extra[p + 2], 2);
    if (p + 4 + n > extra.size()) break;
    if (id == 0x0001) {
      const uint8_t* f = &extra[p + 4];
      uint64_t need = 8 * (usize64 + csize64 + off64);
      if (n < need) return malformed("member '" + m->name + "': zip64 extra field is too short");
      if (usize64) m->uncompressed_size = le(f, 8), f += 8;
      if (csize64) m->compressed_size = le(f, 8), f += 8;
      if (off64) m->local_offset = le(f, 8);
      return Status::Ok();
    }
    p += 4 + n;
  }
  return malformed("member '" + m->name + "': sizes defer to a zip64 extra field that is absent");
}

Status read_local_header(std::span<const uint8_t> b, uint64_t cd_offset, Member* m) {
  if (m->local_offset > cd_offset || cd_offset - m->local_offset < kLocalBytes || le(&b[m->local_offset], 4) != kLocalSig)
    return malformed("member '" + m->name + "': no local header at offset " + std::to_string(m->local_offset));
  const uint8_t* l = &b[m->local_offset];
  const uint64_t n = le(l + 26, 2), e = le(l + 28, 2);
  m->data_offset = m->local_offset + kLocalBytes + n + e;
  auto end = checked_add(m->data_offset, m->compressed_size);
  if (!end || *end > cd_offset)
    return malformed("member '" + m->name + "': data runs into the central directory");
  if (std::string_view(reinterpret_cast<const char*>(l + kLocalBytes), n) != m->name)
    return Status(ErrorCode::invalid_structure, "zip member '" + m->name + "': local header names a different file");
  return Status::Ok();
}

}  // namespace

Result<std::vector<Member>> read_central_directory(std::span<const uint8_t> b) {
  ZT_ASSIGN_OR_RETURN(Directory d, find_directory(b));
  std::vector<Member> members;
  members.reserve(d.entries);
  uint64_t p = d.offset;
  const uint64_t cd_end = d.offset + d.size;
  for (uint64_t i = 0; i < d.entries; ++i) {
    if (cd_end - p < kCentralBytes || le(&b[p], 4) != kCentralSig)
      return malformed("central directory entry #" + std::to_string(i) + " is truncated or has a bad signature");
    const uint8_t* c = &b[p];
    const uint64_t flags = le(c + 8, 2), n = le(c + 28, 2), e = le(c + 30, 2), k = le(c + 32, 2);
    if (cd_end - p - kCentralBytes < n + e + k)
      return malformed("central directory entry #" + std::to_string(i) + " runs past the directory");
    Member m;
    m.name.assign(reinterpret_cast<const char*>(c + kCentralBytes), n);
    m.method = static_cast<uint16_t>(le(c + 10, 2));
    m.crc32 = static_cast<uint32_t>(le(c + 16, 4));
    m.compressed_size = le(c + 20, 4);
    m.uncompressed_size = le(c + 24, 4);
    m.local_offset = le(c + 42, 4);
    if (flags & 0x41) return Status(ErrorCode::unsupported, "zip member '" + m.name + "' is encrypted");
    if (le(c + 34, 2) != 0) return Status(ErrorCode::unsupported, "zip member '" + m.name + "' starts on another disk");
    ZT_RETURN_IF_ERROR(apply_zip64_extra(b.subspan(p + kCentralBytes + n, e), &m, m.uncompressed_size == 0xFFFFFFFF,
                                         m.compressed_size == 0xFFFFFFFF, m.local_offset == 0xFFFFFFFF));
    if (m.method != kStored && m.method != kDeflated)
      return Status(ErrorCode::unsupported, "zip member '" + m.name + "': compression method " +
                                                std::to_string(m.method) + " (only stored and deflate)");
    if (m.method == kStored && m.compressed_size != m.uncompressed_size)
      return malformed("stored member '" + m.name + "' has different compressed and uncompressed sizes");
    ZT_RETURN_IF_ERROR(read_local_header(b, d.offset, &m));
    members.push_back(std::move(m));
    p += kCentralBytes + n + e + k;
  }
  // One name, one member: readers that take the first or the last of two
  // would see different archives.
  std::unordered_map<std::string_view, size_t> seen;
  for (const auto& m : members)
    if (!seen.emplace(m.name, 0).second)
      return Status(ErrorCode::invalid_structure, "zip: member '" + m.name + "' appears twice");
  // Members must not share bytes: a later header inside an earlier member's
  // data would let one archive show different contents to different readers.
  std::vector<const Member*> order;
  for (const auto& m : members) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](auto* x, auto* y) { return x->local_offset < y->local_offset; });
  for (size_t i = 1; i < order.size(); ++i)
    if (order[i]->local_offset < order[i - 1]->data_offset + order[i - 1]->compressed_size)
      return Status(ErrorCode::invalid_structure, "zip member '" + order[i]->name + "' overlaps member '" +
                                                      order[i - 1]->name + "'");
  return members;
}

Result<Archive> Archive::open(std::span<const uint8_t> bytes) {
  Archive a;
  ZT_ASSIGN_OR_RETURN(a.members_, read_central_directory(bytes));
  for (size_t i = 0; i < a.members_.size(); ++i) a.index_.emplace(a.members_[i].name, i);
  return a;
}

const Member* Archive::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &members_[it->second];
}

Result<std::span<const uint8_t>> Archive::stored_bytes(std::span<const uint8_t> bytes, const Member& m) const {
  if (m.method != kStored)
    return Status(ErrorCode::unsupported, "zip: member '" + m.name + "' is compressed (method " +
                                              std::to_string(m.method) + "); only stored members are read here");
  return bytes.subspan(static_cast<size_t>(m.data_offset), static_cast<size_t>(m.uncompressed_size));
}

uint32_t crc32_update(uint32_t crc, std::span<const uint8_t> data) {
  // zlib's crc32 takes a 32-bit length: feed large buffers in pieces.
  constexpr uint64_t kPiece = std::numeric_limits<uInt>::max();
  for (uint64_t done = 0; done < data.size();) {
    const uint64_t n = std::min<uint64_t>(data.size() - done, kPiece);
    crc = static_cast<uint32_t>(::crc32(crc, data.data() + done, static_cast<uInt>(n)));
    done += n;
  }
  return crc;
}

}  // namespace zt::zip
