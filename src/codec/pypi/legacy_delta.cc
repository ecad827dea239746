// PyPI z4ai 0.2.0's delta frames (layouts in legacy_format.h): the XOR delta
// Z4DL and the whole-checkpoint Z4DM v1. Both pin their reference by BLAKE2b,
// checked before anything is decoded; every entry and inner frame is checked
// against the bytes stored before the output is allocated.
#include <cstring>
#include <map>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/safetensors_input.h"
#include "codec/pypi/blake2b.h"
#include "codec/pypi/legacy_format.h"
#include "z4ai/codec.h"

namespace z4ai::detail {
namespace {

using zt::ErrorCode;

constexpr size_t kDeltaDigestBytes = 16;
constexpr size_t kModelDigestBytes = 8;
constexpr uint8_t kModelVersion = 1;
enum : uint8_t { kFull = 0, kDelta = 1, kCopy = 2 };
// u16 name_len + u64 begin + u64 end + u8 kind: bounds the declared count.
constexpr uint64_t kMinModelEntryBytes = 2 + 8 + 8 + 1;

bool has_magic(std::span<const uint8_t> b, const uint8_t* m) { return b.size() >= 4 && std::memcmp(b.data(), m, 4) == 0; }

zt::Status delta_error(ErrorCode code, const std::string& rule) {
  return {code, "PyPI z4ai 0.x Z4DL delta frame: " + rule};
}
zt::Status model_error(ErrorCode code, const std::string& rule) {
  return {code, "PyPI z4ai 0.x Z4DM v1 frame: " + rule};
}

struct ModelEntry {
  std::string name;
  uint64_t begin = 0, end = 0;
  uint8_t kind = kFull;
  std::span<const uint8_t> frame;
};

struct ModelLayout {
  std::span<const uint8_t> header;
  uint64_t data_len = 0;
  std::span<const uint8_t> base_digest;
  std::vector<ModelEntry> entries;
};

zt::Status check_entry_frame(const ModelEntry& e) {
  const uint64_t want = e.end - e.begin;
  uint64_t got = 0;
  if (e.kind == kDelta) {
    if (!is_legacy_delta(e.frame)) return model_error(ErrorCode::corrupt_stream, "tensor '" + e.name + "': not a Z4DL frame");
    ZT_ASSIGN_OR_RETURN(got, legacy_delta_length(e.frame));
  } else {
    if (!is_legacy_frame(e.frame))
      return model_error(ErrorCode::corrupt_stream, "tensor '" + e.name + "': not a PyPI Z4AI v1 frame");
    ZT_ASSIGN_OR_RETURN(got, legacy_decoded_length(e.frame));
  }
  if (got != want)
    return model_error(ErrorCode::length_mismatch, "tensor '" + e.name + "' spans " + std::to_string(want) +
                                                       " bytes, its frame decodes to " + std::to_string(got));
  return {};
}

zt::Result<ModelLayout> parse_model(std::span<const uint8_t> f) {
  if (!is_legacy_model_delta(f)) return model_error(ErrorCode::bad_magic, "not a PyPI Z4DM v1 frame");
  ByteReader r(f.subspan(5));
  ModelLayout l;
  uint64_t hlen = 0;
  uint32_t n = 0;
  if (!r.u64(hlen) || !r.bytes(hlen, l.header) || !r.u64(l.data_len) || !r.bytes(kModelDigestBytes, l.base_digest) ||
      !r.u32(n))
    return model_error(ErrorCode::corrupt_stream, "header fields run past the end of the frame");
  if (l.data_len > kMaxFrameOriginalBytes) return model_error(ErrorCode::limit_exceeded, "data buffer over 1 TiB");
  if (uint64_t(n) * kMinModelEntryBytes > r.remaining())
    return model_error(ErrorCode::corrupt_stream, std::to_string(n) + " entries cannot fit in the frame");
  l.entries.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    ModelEntry& e = l.entries[i];
    uint16_t name_len = 0;
    std::span<const uint8_t> name;
    if (!r.u16(name_len) || !r.bytes(name_len, name) || !r.u64(e.begin) || !r.u64(e.end) || !r.u8(e.kind))
      return model_error(ErrorCode::corrupt_stream, "entry " + std::to_string(i) + " is truncated");
    e.name.assign(name.begin(), name.end());
    if (e.begin > e.end || e.end > l.data_len)
      return model_error(ErrorCode::corrupt_stream, "tensor '" + e.name + "' lies outside the data buffer");
    if (e.kind > kCopy) return model_error(ErrorCode::corrupt_stream, "tensor '" + e.name + "' has unknown kind");
    if (e.kind == kCopy) continue;
    uint64_t len = 0;
    if (!r.u64(len) || !r.bytes(len, e.frame))
      return model_error(ErrorCode::corrupt_stream, "tensor '" + e.name + "': frame runs past the end");
    ZT_RETURN_IF_ERROR(check_entry_frame(e));
  }
  if (r.remaining() != 0) return model_error(ErrorCode::corrupt_stream, "trailing bytes after the last entry");
  return l;
}

}  // namespace

bool is_legacy_delta(std::span<const uint8_t> b) { return has_magic(b, kMagicLegacyDelta); }

zt::Result<uint64_t> legacy_delta_length(std::span<const uint8_t> f) {
  if (f.size() < kLegacyDeltaHeaderBytes || !is_legacy_delta(f))
    return delta_error(ErrorCode::corrupt_stream, "shorter than its 32-byte header");
  if (f[4] != kLegacyDeltaVersion) return delta_error(ErrorCode::unsupported, "version " + std::to_string(f[4]));
  const uint64_t ref_len = load_u64(f.data() + 8);
  std::span<const uint8_t> inner = f.subspan(kLegacyDeltaHeaderBytes);
  if (!is_legacy_frame(inner)) return delta_error(ErrorCode::corrupt_stream, "inner frame is not a PyPI Z4AI v1 frame");
  ZT_ASSIGN_OR_RETURN(uint64_t n, legacy_decoded_length(inner));
  if (n != ref_len)
    return delta_error(ErrorCode::length_mismatch, "inner frame decodes to " + std::to_string(n) +
                                                       " bytes, the reference has " + std::to_string(ref_len));
  return ref_len;
}

zt::Status decode_legacy_delta_into(std::span<const uint8_t> f, std::span<const uint8_t> reference,
                                    std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(uint64_t n, legacy_delta_length(f));
  if (reference.size() != n || blake2b(reference, kDeltaDigestBytes) !=
                                   std::vector<uint8_t>(f.begin() + 16, f.begin() + 16 + kDeltaDigestBytes))
    return delta_error(ErrorCode::digest_mismatch, "the reference is not the one this delta was made against "
                                                   "(length or BLAKE2b differs)");
  if (out.size() != n) return delta_error(ErrorCode::length_mismatch, "output buffer has the wrong length");
  ZT_RETURN_IF_ERROR(decode_legacy_into(f.subspan(kLegacyDeltaHeaderBytes), out));
  for (size_t i = 0; i < out.size(); ++i) out[i] ^= reference[i];
  return {};
}

bool is_legacy_model_delta(std::span<const uint8_t> b) {
  static constexpr uint8_t kMagic[4] = {'Z', '4', 'D', 'M'};
  return b.size() >= 8 && has_magic(b, kMagic) && b[4] == kModelVersion && (b[5] | b[6] | b[7]) != 0;
}

zt::Result<ModelDeltaLayout> legacy_model_delta_layout(std::span<const uint8_t> f) {
  ZT_ASSIGN_OR_RETURN(ModelLayout l, parse_model(f));
  ModelDeltaLayout out;
  out.pypi_layout = true;
  out.header = l.header;
  out.data_len = l.data_len;
  for (uint8_t b : l.base_digest) out.base_digest = out.base_digest << 8 | b;
  for (const ModelEntry& e : l.entries) {
    ModelDeltaEntry d;
    d.name = e.name;
    d.dest_begin = e.begin;
    d.dest_end = e.end;
    d.kind = e.kind == kCopy ? ModelDeltaKind::copy : e.kind == kDelta ? ModelDeltaKind::delta : ModelDeltaKind::full;
    d.frame = e.frame;
    out.entries.push_back(std::move(d));
  }
  return out;
}

zt::Status decode_legacy_model_delta_into(std::span<const uint8_t> f, std::span<const uint8_t> base_st,
                                          std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(ModelLayout l, parse_model(f));
  if (out.size() != 8 + l.header.size() + l.data_len)
    return model_error(ErrorCode::length_mismatch, "output buffer has the wrong length");
  ZT_ASSIGN_OR_RETURN(zt::SafetensorsLayout base, parse_safetensors_input(base_st));
  if (blake2b(base.data, kModelDigestBytes) != std::vector<uint8_t>(l.base_digest.begin(), l.base_digest.end()))
    return model_error(ErrorCode::digest_mismatch, "the base is not the checkpoint this delta was made against");
  std::map<std::string, std::span<const uint8_t>> by_name;
  for (const auto& t : base.parsed.tensors)
    if (t.begin <= t.end && t.end <= base.data.size())
      by_name[t.name] = base.data.subspan(size_t(t.begin), size_t(t.end - t.begin));
  store_u64(out.data(), l.header.size());
  if (!l.header.empty()) std::memcpy(out.data() + 8, l.header.data(), l.header.size());
  std::span<uint8_t> data = out.subspan(8 + l.header.size());
  std::memset(data.data(), 0, data.size());  // PyPI leaves bytes no entry covers zero
  for (const ModelEntry& e : l.entries) {
    std::span<uint8_t> dst = data.subspan(size_t(e.begin), size_t(e.end - e.begin));
    auto ref = by_name.find(e.name);
    if (e.kind != kFull && ref == by_name.end())
      return model_error(ErrorCode::invalid_argument, "tensor '" + e.name + "' needs the base tensor of that name");
    zt::Status s;
    if (e.kind == kCopy) {
      if (ref->second.size() != dst.size())
        return model_error(ErrorCode::length_mismatch, "base tensor '" + e.name + "' differs in length");
      if (!dst.empty()) std::memcpy(dst.data(), ref->second.data(), dst.size());
    } else if (e.kind == kDelta) {
      s = decode_legacy_delta_into(e.frame, ref->second, dst);
    } else {
      s = decode_legacy_into(e.frame, dst);
    }
    if (!s.ok()) return {s.code(), "tensor '" + e.name + "': " + s.message()};
  }
  return {};
}

}  // namespace z4ai::detail
