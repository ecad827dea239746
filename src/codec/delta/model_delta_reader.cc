// Z4DM decoder: parses and bounds-checks the whole frame (trailer digest,
// entry tiling, base spans, inner frame sizes) and pins the base by digest
// before allocating the output, then decodes entries in parallel.
#include <atomic>
#include <cstring>
#include <new>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/safetensors_input.h"
#include "codec/common/thread_pool.h"
#include "codec/pypi/legacy_format.h"
#include "codec/delta/model_delta_format.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/model_delta.h"

namespace z4ai {
namespace detail {
namespace {

zt::Status corrupt(const std::string& what) { return {zt::ErrorCode::corrupt_stream, "Z4DM frame: " + what}; }

zt::Status check_inner(const ModelDeltaEntry& e) {
  ZT_ASSIGN_OR_RETURN(FrameInfo info, peek(e.frame));
  const bool want_delta = e.kind == ModelDeltaKind::delta;
  const bool kind_ok = want_delta ? info.kind == FrameKind::delta
                                  : (info.kind == FrameKind::z4ai || info.kind == FrameKind::zara);
  if (!kind_ok) return corrupt("entry '" + e.name + "' holds the wrong kind of inner frame");
  if (info.original_length != e.dest_end - e.dest_begin)
    return zt::Status(zt::ErrorCode::length_mismatch, "Z4DM frame: inner frame of '" + e.name +
                                                          "' does not decode to the entry's span");
  return {};
}

}  // namespace

zt::Result<ModelDeltaLayout> parse_model_delta(std::span<const uint8_t> f) {
  if (!is_model_delta(f)) return zt::Status(zt::ErrorCode::bad_magic, "Z4DM frame: magic is not 'Z4DM'");
  if (is_legacy_model_delta(f)) return legacy_model_delta_layout(f);
  if (f.size() < 8 + kModelDeltaTrailerBytes) return corrupt("shorter than its fixed fields");
  if (f[4] != kModelDeltaVersion)
    return zt::Status(zt::ErrorCode::unsupported, "Z4DM frame: version " + std::to_string(f[4]) + " (want 1)");
  if (f[5] != 0 || f[6] != 0 || f[7] != 0) return corrupt("reserved bytes must be 0");
  const size_t body_end = f.size() - kModelDeltaTrailerBytes;
  if (xxh3_64(f.first(body_end)) != load_u64(f.data() + body_end))
    return corrupt("trailer digest does not match (truncated or damaged frame)");
  ByteReader r(f.subspan(8, body_end - 8));
  ModelDeltaLayout l;
  uint64_t hlen = 0;
  uint32_t n = 0;
  if (!r.u64(hlen) || !r.bytes(hlen, l.header) || !r.u64(l.data_len) || !r.u64(l.base_data_len) ||
      !r.u64(l.base_digest) || !r.u32(n))
    return corrupt("header fields are truncated");
  if (l.data_len > kMaxFrameOriginalBytes || l.base_data_len > kMaxFrameOriginalBytes)
    return zt::Status(zt::ErrorCode::limit_exceeded, "Z4DM frame: data buffer over 1 TiB");
  if (uint64_t(n) * kModelDeltaMinEntryBytes > r.remaining()) return corrupt("entry count exceeds the frame size");
  l.entries.resize(n);
  uint64_t pos = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ModelDeltaEntry& e = l.entries[i];
    uint16_t name_len = 0;
    std::span<const uint8_t> name;
    uint8_t kind = 0;
    if (!r.u16(name_len) || !r.bytes(name_len, name) || !r.u64(e.dest_begin) || !r.u64(e.dest_end) || !r.u8(kind))
      return corrupt("entry " + std::to_string(i) + " is truncated");
    e.name.assign(name.begin(), name.end());
    if (e.dest_begin != pos || e.dest_end < e.dest_begin || e.dest_end > l.data_len)
      return corrupt("entry '" + e.name + "' does not continue the data buffer without gaps");
    pos = e.dest_end;
    if (kind > uint8_t(ModelDeltaKind::full)) return corrupt("entry '" + e.name + "' has unknown kind");
    e.kind = ModelDeltaKind(kind);
    uint64_t frame_len = 0;
    bool ok = true;
    if (e.kind != ModelDeltaKind::full) ok = ok && r.u64(e.base_begin);
    if (e.kind == ModelDeltaKind::copy) e.base_end = e.base_begin + (e.dest_end - e.dest_begin);
    if (e.kind == ModelDeltaKind::delta) ok = ok && r.u64(e.base_end);
    if (e.kind != ModelDeltaKind::copy) ok = ok && r.u64(frame_len) && r.bytes(frame_len, e.frame);
    if (!ok) return corrupt("entry '" + e.name + "' is truncated");
    if (e.kind != ModelDeltaKind::full &&
        (e.base_begin > l.base_data_len || e.base_end < e.base_begin || e.base_end > l.base_data_len))
      return corrupt("entry '" + e.name + "' points outside the base data buffer");
    if (e.kind != ModelDeltaKind::copy) ZT_RETURN_IF_ERROR(check_inner(e));
  }
  if (pos != l.data_len) return corrupt("entries do not cover the whole data buffer");
  if (r.remaining() != 0) return corrupt("trailing bytes after the last entry");
  return l;
}

}  // namespace detail

zt::Result<ModelDeltaInfo> peek_model_delta(std::span<const uint8_t> frame) {
  ZT_ASSIGN_OR_RETURN(detail::ModelDeltaLayout l, detail::parse_model_delta(frame));
  return ModelDeltaInfo{8 + l.header.size() + l.data_len, l.base_data_len, l.base_digest};
}

zt::Status decompress_model_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> base_st,
                                       std::span<uint8_t> out, unsigned threads) {
  if (detail::is_legacy_model_delta(frame)) return detail::decode_legacy_model_delta_into(frame, base_st, out);
  ZT_ASSIGN_OR_RETURN(detail::ModelDeltaLayout l, detail::parse_model_delta(frame));
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout base, detail::split_safetensors_input(base_st));
  if (base.data.size() != l.base_data_len || detail::xxh3_64(base.data) != l.base_digest)
    return {zt::ErrorCode::digest_mismatch, "Z4DM frame: the base is not the checkpoint this delta was made against"};
  if (out.size() != 8 + l.header.size() + l.data_len)
    return {zt::ErrorCode::length_mismatch, "Z4DM frame: output buffer has the wrong length"};
  detail::store_u32(out.data(), uint32_t(l.header.size()));
  detail::store_u32(out.data() + 4, uint32_t(uint64_t(l.header.size()) >> 32));
  if (!l.header.empty()) std::memcpy(out.data() + 8, l.header.data(), l.header.size());
  std::span<uint8_t> data = out.subspan(8 + l.header.size());
  // Few big entries: threads inside each frame; many: one thread per entry.
  const unsigned workers = detail::resolve_threads(threads);
  const unsigned inner = l.entries.size() < workers ? threads : 1;
  std::vector<zt::Status> status(l.entries.size());
  std::atomic<bool> failed{false};  // no entry is started after one fails
  detail::parallel_for(l.entries.size(), workers, [&](size_t i) {
    if (failed.load(std::memory_order_relaxed)) return;
    const detail::ModelDeltaEntry& e = l.entries[i];
    auto dst = data.subspan(size_t(e.dest_begin), size_t(e.dest_end - e.dest_begin));
    auto ref = base.data.subspan(size_t(e.base_begin), size_t(e.base_end - e.base_begin));
    switch (e.kind) {
      case detail::ModelDeltaKind::copy:
        if (!dst.empty()) std::memcpy(dst.data(), ref.data(), dst.size());
        break;
      case detail::ModelDeltaKind::delta: status[i] = decompress_delta_into(e.frame, ref, dst, inner); break;
      case detail::ModelDeltaKind::full: status[i] = decompress_into(e.frame, dst, inner); break;
    }
    if (!status[i].ok()) failed.store(true, std::memory_order_relaxed);
  });
  for (size_t i = 0; i < status.size(); ++i)
    if (!status[i].ok())
      return zt::Status(status[i].code(), "Z4DM tensor '" + l.entries[i].name + "': " + status[i].message());
  return {};
}

zt::Result<std::vector<uint8_t>> decompress_model_delta(std::span<const uint8_t> frame,
                                                        std::span<const uint8_t> base_st, unsigned threads,
                                                        uint64_t max_output) {
  ZT_ASSIGN_OR_RETURN(ModelDeltaInfo info, peek_model_delta(frame));
  ZT_RETURN_IF_ERROR(check_max_output("Z4DM frame", info.target_length, max_output));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(info.target_length));
  } catch (const std::bad_alloc&) {
    return zt::Status(zt::ErrorCode::limit_exceeded, "Z4DM frame: cannot allocate the output");
  }
  ZT_RETURN_IF_ERROR(decompress_model_delta_into(frame, base_st, out, threads));
  return out;
}

}  // namespace z4ai
