// ZSTN v3 reader: validates prefix, footer and index before decoding, then
// decodes FRAME entries in parallel straight into the output and copies REFs.
#include <atomic>
#include <cstring>
#include <new>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/thread_pool.h"
#include "z4ai/zstn.h"

namespace z4ai::zstn {
namespace {

zt::Status corrupt(const std::string& what) { return {zt::ErrorCode::corrupt_stream, "ZSTN container: " + what}; }

}  // namespace

zt::Result<Prefix> parse_prefix(std::span<const uint8_t> head) {
  if (!is_zstn(head)) return zt::Status(zt::ErrorCode::bad_magic, "ZSTN container: magic is not 'ZSTN'");
  detail::ByteReader r(head.subspan(4));
  uint8_t version = 0, flag = 0;
  Prefix p;
  if (!r.u8(version) || !r.u8(flag) || !r.u64(p.header_len))
    return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN container: need 14 bytes for the prefix");
  if (version != kVersion)
    return zt::Status(zt::ErrorCode::unsupported, "ZSTN container: version " + std::to_string(version) + " (want 3)");
  if (flag > 1) return corrupt("contiguous flag must be 0 or 1");
  p.contiguous = flag == 1;
  p.header_offset = 14;
  std::span<const uint8_t> hdr;
  if (p.header_len > kMaxFrameOriginalBytes || !r.bytes(p.header_len, hdr) || !r.u64(p.data_len))
    return zt::Status(zt::ErrorCode::length_mismatch,
                      "ZSTN container: need " + std::to_string(22 + p.header_len) + " bytes for the prefix");
  if (p.data_len > kMaxFrameOriginalBytes) return zt::Status(zt::ErrorCode::limit_exceeded, "ZSTN: data over 1 TiB");
  p.body_offset = 22 + p.header_len;
  return p;
}

zt::Result<uint64_t> prefix_length(std::span<const uint8_t> head) {
  if (!is_zstn(head)) return zt::Status(zt::ErrorCode::bad_magic, "ZSTN container: magic is not 'ZSTN'");
  if (head.size() < 14) return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN container: need 14 bytes for the prefix");
  const uint64_t header_len = detail::load_u64(head.data() + 6);
  if (header_len > kMaxFrameOriginalBytes) return zt::Status(zt::ErrorCode::limit_exceeded, "ZSTN: header over 1 TiB");
  return 22 + header_len;
}

zt::Result<Footer> parse_footer(std::span<const uint8_t> footer, uint64_t size, uint64_t body_offset) {
  if (size < body_offset || size - body_offset < kFooterBytes || footer.size() != kFooterBytes)
    return corrupt("too short for the footer");
  if (std::memcmp(footer.data() + 16, "ZSTN", 4) != 0) return corrupt("footer sentinel missing (truncated file?)");
  const Footer f{detail::load_u64(footer.data()), detail::load_u64(footer.data() + 8)};
  const uint64_t footer_at = size - kFooterBytes;
  if (f.index_offset < body_offset || f.index_offset > footer_at || f.index_len != footer_at - f.index_offset)
    return corrupt("index must sit between the frames and the footer");
  return f;
}

zt::Result<std::vector<IndexEntry>> parse_index(std::span<const uint8_t> index, uint64_t data_len,
                                                uint64_t frames_begin, uint64_t frames_end) {
  detail::ByteReader r(index);
  uint32_t n = 0;
  if (!r.u32(n)) return corrupt("index is truncated");
  // Each entry takes at least 2 + 16 + 1 + 4 bytes: bounds n before reserving.
  if (uint64_t(n) * 23 > r.remaining()) return corrupt("index entry count exceeds the index size");
  std::vector<IndexEntry> entries(n);
  uint64_t pos = 0;
  for (uint32_t i = 0; i < n; ++i) {
    IndexEntry& e = entries[i];
    uint16_t name_len = 0;
    std::span<const uint8_t> name;
    uint8_t kind = 0;
    if (!r.u16(name_len) || !r.bytes(name_len, name) || !r.u64(e.dest_begin) || !r.u64(e.dest_end) || !r.u8(kind))
      return corrupt("index entry " + std::to_string(i) + " is truncated");
    e.name.assign(name.begin(), name.end());
    if (e.dest_begin != pos || e.dest_end < e.dest_begin || e.dest_end > data_len)
      return corrupt("entry '" + e.name + "' does not continue the data buffer without gaps");
    pos = e.dest_end;
    if (kind == 0) {
      e.kind = EntryKind::frame;
      if (!r.u64(e.frame_offset) || !r.u64(e.frame_len)) return corrupt("index entry is truncated");
      if (e.frame_offset < frames_begin || e.frame_offset > frames_end || e.frame_len > frames_end - e.frame_offset)
        return corrupt("frame of '" + e.name + "' lies outside the frames section");
    } else if (kind == 1) {
      e.kind = EntryKind::ref;
      if (!r.u32(e.ref_index)) return corrupt("index entry is truncated");
      if (e.ref_index >= i || entries[e.ref_index].kind != EntryKind::frame ||
          entries[e.ref_index].dest_end - entries[e.ref_index].dest_begin != e.dest_end - e.dest_begin)
        return corrupt("REF '" + e.name + "' must point to an earlier FRAME of the same length");
    } else {
      return corrupt("entry '" + e.name + "' has unknown kind " + std::to_string(kind));
    }
  }
  if (pos != data_len) return corrupt("index does not cover the whole data buffer");
  if (r.remaining() != 0) return corrupt("trailing bytes after the index");
  return entries;
}

zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> z, unsigned workers) {
  ZT_ASSIGN_OR_RETURN(Prefix p, parse_prefix(z));
  const std::span<const uint8_t> header = z.subspan(size_t(p.header_offset), size_t(p.header_len));
  // Validate all structure before allocating data_len bytes.
  std::span<const uint8_t> opaque;
  std::vector<IndexEntry> entries;
  if (!p.contiguous) {
    detail::ByteReader r(z.subspan(size_t(p.body_offset)));
    uint64_t flen = 0;
    if (!r.u64(flen) || !r.bytes(flen, opaque) || r.remaining() != 0) return corrupt("opaque frame length is wrong");
    ZT_ASSIGN_OR_RETURN(FrameInfo info, peek(opaque));
    if (info.original_length != p.data_len || (info.kind != FrameKind::z4ai && info.kind != FrameKind::zara))
      return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN: opaque frame does not decode to data_len bytes");
  } else {
    if (z.size() < p.body_offset + kFooterBytes) return corrupt("too short for the footer");
    ZT_ASSIGN_OR_RETURN(Footer f, parse_footer(z.last(kFooterBytes), z.size(), p.body_offset));
    ZT_ASSIGN_OR_RETURN(entries, parse_index(z.subspan(size_t(f.index_offset), size_t(f.index_len)), p.data_len,
                                             p.body_offset, f.index_offset));
    // Each FRAME must declare its span and hold a chunk table that fits its
    // bytes: the output is allocated only once every frame has said so.
    for (const IndexEntry& e : entries) {
      if (e.kind != EntryKind::frame) continue;
      auto info = peek(z.subspan(size_t(e.frame_offset), size_t(e.frame_len)));
      if (!info.ok())
        return zt::Status(info.status().code(), "ZSTN tensor '" + e.name + "': " + info.status().message());
      if ((info->kind != FrameKind::z4ai && info->kind != FrameKind::zara) ||
          info->original_length != e.dest_end - e.dest_begin)
        return zt::Status(zt::ErrorCode::length_mismatch, "ZSTN tensor '" + e.name + "': frame declares " +
                                                              std::to_string(info->original_length) +
                                                              " bytes, the index " +
                                                              std::to_string(e.dest_end - e.dest_begin));
    }
  }
  std::vector<uint8_t> out;
  try {
    out.reserve(size_t(8 + p.header_len + p.data_len));
  } catch (const std::bad_alloc&) {
    return zt::Status(zt::ErrorCode::limit_exceeded, "ZSTN: cannot allocate the output");
  }
  detail::put_u64(out, p.header_len);
  detail::put_bytes(out, header);
  const size_t data_at = out.size();
  out.resize(data_at + size_t(p.data_len));
  std::span<uint8_t> data(out.data() + data_at, size_t(p.data_len));
  if (!p.contiguous) {
    ZT_RETURN_IF_ERROR(decompress_into(opaque, data, 0));
    return out;
  }
  std::vector<zt::Status> status(entries.size());
  std::atomic<bool> failed{false};  // no frame is started after one fails
  detail::parallel_for(entries.size(), workers, [&](size_t i) {
    const IndexEntry& e = entries[i];
    if (e.kind != EntryKind::frame || failed.load(std::memory_order_relaxed)) return;
    auto dst = data.subspan(size_t(e.dest_begin), size_t(e.dest_end - e.dest_begin));
    status[i] = decompress_into(z.subspan(size_t(e.frame_offset), size_t(e.frame_len)), dst, workers == 1 ? 1 : 0);
    if (!status[i].ok()) failed.store(true, std::memory_order_relaxed);
  });
  for (size_t i = 0; i < entries.size(); ++i)
    if (!status[i].ok())
      return zt::Status(status[i].code(), "ZSTN tensor '" + entries[i].name + "': " + status[i].message());
  for (const IndexEntry& e : entries)
    if (e.kind == EntryKind::ref && e.dest_end > e.dest_begin)
      std::memcpy(data.data() + e.dest_begin, data.data() + entries[e.ref_index].dest_begin,
                  size_t(e.dest_end - e.dest_begin));
  return out;
}

}  // namespace z4ai::zstn
