// XOR delta against a reference checkpoint; keeps the smaller of the delta
// and the plain frame, and pins the reference by length and XXH3-64.
#include "z4ai/delta.h"

#include <cstring>
#include <new>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/delta/delta_format.h"
#include "codec/pypi/legacy_format.h"

namespace z4ai {
namespace detail {

zt::Result<DeltaHeader> read_delta_header(std::span<const uint8_t> f) {
  using zt::ErrorCode;
  if (f.size() < kDeltaHeaderBytes) return {ErrorCode::corrupt_stream, "z4ai delta frame: shorter than its header"};
  if (std::memcmp(f.data(), kMagicDelta, 4) != 0) return {ErrorCode::bad_magic, "z4ai delta frame: magic is not 'Z4XD'"};
  if (f[4] != kDeltaVersion) return {ErrorCode::unsupported, "z4ai delta frame: unsupported version"};
  if (f[5] > 1) return {ErrorCode::corrupt_stream, "z4ai delta frame: unknown mode " + std::to_string(f[5])};
  if (f[6] != 0 || f[7] != 0) return {ErrorCode::corrupt_stream, "z4ai delta frame: reserved bytes must be 0"};
  DeltaHeader h;
  h.mode = f[5];
  h.reference_length = load_u64(f.data() + 8);
  h.reference_digest = load_u64(f.data() + 16);
  h.original_length = load_u64(f.data() + 24);
  return h;
}

}  // namespace detail

bool is_delta_frame(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), detail::kMagicDelta, 4) == 0;
}

zt::Result<std::vector<uint8_t>> compress_delta(std::span<const uint8_t> current, std::span<const uint8_t> reference,
                                                const CompressOptions& options) {
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> full_frame, compress(current, options));
  return detail::compress_delta_given_full(current, reference, options, full_frame);
}

zt::Result<std::vector<uint8_t>> detail::compress_delta_given_full(std::span<const uint8_t> current,
                                                                   std::span<const uint8_t> reference,
                                                                   const CompressOptions& options,
                                                                   std::span<const uint8_t> full_frame) {
  std::vector<uint8_t> x(current.begin(), current.end());
  size_t common = std::min(current.size(), reference.size());
  for (size_t i = 0; i < common; ++i) x[i] ^= reference[i];
  ZT_ASSIGN_OR_RETURN(std::vector<uint8_t> delta_frame, compress(x, options));
  const bool use_delta = delta_frame.size() <= full_frame.size();
  const std::span<const uint8_t> inner = use_delta ? std::span<const uint8_t>(delta_frame) : full_frame;
  std::vector<uint8_t> out(detail::kMagicDelta, detail::kMagicDelta + 4);
  detail::put_u8(out, detail::kDeltaVersion);
  detail::put_u8(out, use_delta ? 0 : 1);
  detail::put_u16(out, 0);
  detail::put_u64(out, reference.size());
  detail::put_u64(out, detail::xxh3_64(reference));
  detail::put_u64(out, current.size());
  detail::put_bytes(out, inner);
  return out;
}

zt::Status decompress_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> reference,
                                 std::span<uint8_t> out, unsigned threads) {
  if (detail::is_legacy_delta(frame)) return detail::decode_legacy_delta_into(frame, reference, out);
  ZT_ASSIGN_OR_RETURN(detail::DeltaHeader h, detail::read_delta_header(frame));
  if (reference.size() != h.reference_length || detail::xxh3_64(reference) != h.reference_digest)
    return {zt::ErrorCode::digest_mismatch,
            "z4ai delta frame: the reference is not the one this delta was made against"};
  if (out.size() != h.original_length)
    return {zt::ErrorCode::length_mismatch, "z4ai delta frame: output buffer has the wrong length"};
  ZT_RETURN_IF_ERROR(decompress_into(frame.subspan(detail::kDeltaHeaderBytes), out, threads));
  if (h.mode == 0) {
    size_t common = std::min(out.size(), reference.size());
    for (size_t i = 0; i < common; ++i) out[i] ^= reference[i];
  }
  return {};
}

zt::Result<std::vector<uint8_t>> decompress_delta(std::span<const uint8_t> frame, std::span<const uint8_t> reference,
                                                  unsigned threads, uint64_t max_output) {
  // peek checks the inner frame against the header and the bytes it holds.
  ZT_ASSIGN_OR_RETURN(FrameInfo info, peek(frame));
  if (info.kind != FrameKind::delta)
    return zt::Status(zt::ErrorCode::bad_magic, "z4ai delta frame: magic is not 'Z4XD'");
  ZT_RETURN_IF_ERROR(check_max_output("z4ai delta frame", info.original_length, max_output));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(info.original_length));
  } catch (const std::bad_alloc&) {
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "z4ai delta frame: cannot allocate output");
  }
  ZT_RETURN_IF_ERROR(decompress_delta_into(frame, reference, out, threads));
  return out;
}

}  // namespace z4ai
