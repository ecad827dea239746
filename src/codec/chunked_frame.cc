// Z4AIMF01: the PyPI z4ai chunked layout, byte for byte (docs/codec.md).
//   "Z4AIMF01" | u8 flags=0 | u8 width | u32 n_chunks |
//   per chunk: u32 elems, u8 tail_len, tail, width x (u8 method, u32 comp_len, bytes)
// A chunk holds `elems` whole elements plus the tail_len bytes that do not
// fill an element (only the last chunk has any); plane j = byte j of each
// element; method 0 = stored, 1 = zstd.
#include <atomic>
#include <cstring>
#include <new>
#include <string>

#include "codec/byte_io.h"
#include "codec/entropy.h"
#include "codec/thread_pool.h"
#include "codec/transforms.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"

namespace z4ai::chunked {
namespace {

constexpr uint8_t kMagic[8] = {'Z', '4', 'A', 'I', 'M', 'F', '0', '1'};
constexpr size_t kHeaderBytes = 14;
constexpr uint8_t kStored = 0;
constexpr uint8_t kZstd = 1;

zt::Status corrupt(const std::string& what) { return {zt::ErrorCode::corrupt_stream, "Z4AIMF01 frame: " + what}; }

struct Plane {
  uint8_t method;
  std::span<const uint8_t> payload;
};
struct Chunk {
  uint32_t elems;
  std::span<const uint8_t> tail;
  std::vector<Plane> planes;
  uint64_t out_offset;
};

// Walks the whole frame, validating every length, before anything is decoded.
zt::Status parse(std::span<const uint8_t> frame, uint32_t& width, std::vector<Chunk>& chunks, uint64_t& total) {
  if (!is_chunked_frame(frame)) return {zt::ErrorCode::bad_magic, "Z4AIMF01 frame: magic is not 'Z4AIMF01'"};
  detail::ByteReader r(frame.subspan(8));
  uint8_t flags = 0, w = 0;
  uint32_t n = 0;
  if (!r.u8(flags) || !r.u8(w) || !r.u32(n)) return corrupt("truncated header");
  if (flags != 0) return corrupt("reserved flags byte must be 0");
  if (w == 0) return corrupt("element width must be at least 1");
  // Each chunk needs at least 5 + 5*width bytes: bounds n before reserving.
  if (uint64_t(n) * (5 + 5 * uint64_t(w)) > r.remaining()) return corrupt("chunk count exceeds the frame size");
  width = w;
  chunks.clear();
  chunks.reserve(n);
  total = 0;
  for (uint32_t c = 0; c < n; ++c) {
    Chunk ch;
    uint8_t tail_len = 0;
    if (!r.u32(ch.elems) || !r.u8(tail_len) || !r.bytes(tail_len, ch.tail)) return corrupt("truncated chunk header");
    if (tail_len >= w) return corrupt("tail length must be smaller than the element width");
    ch.planes.resize(w);
    for (auto& p : ch.planes) {
      uint32_t comp = 0;
      if (!r.u8(p.method) || !r.u32(comp) || !r.bytes(comp, p.payload)) return corrupt("truncated plane");
      if (p.method != kStored && p.method != kZstd)
        return corrupt("unknown plane method " + std::to_string(p.method));
      if (p.method == kStored && comp != ch.elems) return corrupt("stored plane length differs from elems");
      // The plane's own zstd headers must be able to produce `elems` bytes:
      // a 74-byte frame cannot make the caller allocate 4 GiB.
      if (p.method == kZstd) {
        zt::Status s = detail::check_zstd_produces(p.payload, ch.elems);
        if (!s.ok()) return {s.code(), "Z4AIMF01 frame: chunk " + std::to_string(c) + ": " + s.message()};
      }
    }
    ch.out_offset = total;
    total += uint64_t(ch.elems) * w + tail_len;
    if (total > kMaxFrameOriginalBytes)
      return {zt::ErrorCode::limit_exceeded, "Z4AIMF01 frame: decoded size over the 1 TiB limit"};
    chunks.push_back(std::move(ch));
  }
  if (r.remaining() != 0) return corrupt("trailing bytes after the last chunk");
  return {};
}

zt::Status decode_one(const Chunk& ch, uint32_t w, uint8_t* out) {
  const size_t n = ch.elems;
  thread_local std::vector<std::vector<uint8_t>> scratch;
  if (scratch.size() < w) scratch.resize(w);
  std::vector<const uint8_t*> ptrs(w);
  for (uint32_t j = 0; j < w; ++j) {
    const Plane& p = ch.planes[j];
    if (p.method == kStored) {
      ptrs[j] = p.payload.data();
      continue;
    }
    uint8_t* dst;
    if (w == 1) {
      dst = out;  // single plane: decode straight into the output
    } else {
      scratch[j].resize(n);
      dst = scratch[j].data();
    }
    zt::Status s = detail::decode_zstd(p.payload, std::span<uint8_t>(dst, n));
    if (!s.ok()) return {s.code(), "Z4AIMF01 plane " + std::to_string(j) + ": " + s.message()};
    ptrs[j] = dst;
  }
  if (w == 1) {
    if (ptrs[0] != out && n) std::memcpy(out, ptrs[0], n);
  } else {
    detail::join_planes(ptrs.data(), n, w, out);
  }
  if (!ch.tail.empty()) std::memcpy(out + n * w, ch.tail.data(), ch.tail.size());
  return {};
}

}  // namespace

bool is_chunked_frame(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data(), kMagic, 8) == 0;
}

zt::Result<uint64_t> decoded_length(std::span<const uint8_t> frame) {
  uint32_t w;
  std::vector<Chunk> chunks;
  uint64_t total;
  ZT_RETURN_IF_ERROR(parse(frame, w, chunks, total));
  return total;
}

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const Options& o) {
  if (o.width == 0 || o.width > 255)
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::invalid_argument, "Z4AIMF01: width must be 1..255");
  if (o.chunk_size == 0)
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::invalid_argument, "Z4AIMF01: chunk_size must be > 0");
  const uint32_t w = o.width;
  const uint64_t step = std::max<uint64_t>(w, o.chunk_size / w * w);
  if (step / w > UINT32_MAX)
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::invalid_argument, "Z4AIMF01: chunk over 2^32 elements");
  const size_t n_chunks = size_t((data.size() + step - 1) / step);
  if (n_chunks > UINT32_MAX)
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "Z4AIMF01: more than 2^32 chunks");
  std::vector<std::vector<uint8_t>> bodies(n_chunks);
  detail::parallel_for(n_chunks, o.threads, [&](size_t c) {
    size_t off = size_t(c * step);
    size_t len = std::min<size_t>(size_t(step), data.size() - off);
    size_t n = len / w, tail = len - n * w;
    std::vector<std::vector<uint8_t>> planes(w, std::vector<uint8_t>(n));
    std::vector<uint8_t*> ptrs(w);
    for (uint32_t j = 0; j < w; ++j) ptrs[j] = planes[j].data();
    detail::split_planes(data.data() + off, n, w, ptrs.data());
    std::vector<uint8_t>& b = bodies[c];
    detail::put_u32(b, uint32_t(n));
    detail::put_u8(b, uint8_t(tail));
    detail::put_bytes(b, data.subspan(off + n * w, tail));
    std::vector<uint8_t> comp;
    for (uint32_t j = 0; j < w; ++j) {
      comp.clear();
      bool z = detail::encode_zstd(planes[j], o.level, comp) && comp.size() < planes[j].size();
      detail::put_u8(b, z ? kZstd : kStored);
      detail::put_u32(b, uint32_t(z ? comp.size() : planes[j].size()));
      detail::put_bytes(b, z ? std::span<const uint8_t>(comp) : std::span<const uint8_t>(planes[j]));
    }
  });
  std::vector<uint8_t> frame(kMagic, kMagic + 8);
  detail::put_u8(frame, 0);
  detail::put_u8(frame, uint8_t(w));
  detail::put_u32(frame, uint32_t(n_chunks));
  for (const auto& b : bodies) detail::put_bytes(frame, b);
  return frame;
}

namespace {

// Chunks are decoded in order and none is started after one fails, so a lie
// in chunk k costs the memory of the chunks up to k, not the declared total.
zt::Status decode_chunks(const std::vector<Chunk>& chunks, uint32_t w, std::span<uint8_t> out, unsigned threads) {
  std::vector<zt::Status> status(chunks.size());
  std::atomic<bool> failed{false};
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    if (failed.load(std::memory_order_relaxed)) return;
    status[c] = decode_one(chunks[c], w, out.data() + chunks[c].out_offset);
    if (!status[c].ok()) failed.store(true, std::memory_order_relaxed);
  });
  for (size_t c = 0; c < status.size(); ++c)
    if (!status[c].ok()) return zt::Status(status[c].code(), "chunk " + std::to_string(c) + ": " + status[c].message());
  return {};
}

}  // namespace

zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads) {
  uint32_t w;
  std::vector<Chunk> chunks;
  uint64_t total;
  ZT_RETURN_IF_ERROR(parse(frame, w, chunks, total));
  if (out.size() != total)
    return {zt::ErrorCode::length_mismatch, "Z4AIMF01 frame: output buffer has " + std::to_string(out.size()) +
                                                " bytes, frame decodes to " + std::to_string(total)};
  return decode_chunks(chunks, w, out, threads);
}

zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads, uint64_t max_output) {
  uint32_t w;
  std::vector<Chunk> chunks;
  uint64_t total;
  ZT_RETURN_IF_ERROR(parse(frame, w, chunks, total));
  ZT_RETURN_IF_ERROR(check_max_output("Z4AIMF01 frame", total, max_output));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(total));
  } catch (const std::bad_alloc&) {
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "Z4AIMF01: cannot allocate " +
                                                                               std::to_string(total) +
                                                                               " bytes for the decoded data");
  }
  ZT_RETURN_IF_ERROR(decode_chunks(chunks, w, out, threads));
  return out;
}

}  // namespace z4ai::chunked
