// Chunk decoding (chunk_codec.h): the body's header and stream table are
// parsed and checked against its bytes, then the streams are decoded (stored
// ones read in place) and the transform inverted into the output.
#include <cstring>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/chunk_codec.h"
#include "codec/transform/paired_split.h"
#include "codec/transform/palette.h"
#include "codec/transform/scale_grid.h"
#include "codec/transform/sparse_path.h"

namespace z4ai::detail {
namespace {

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "z4ai chunk: " + what};
}

struct StreamRef {
  uint8_t method;
  uint32_t raw_len;
  std::span<const uint8_t> payload;
};

// A chunk body after its header and stream table (docs/codec.md, "Chunk
// body"): each payload lies inside the body and they end with it.
struct ChunkLayout {
  Transform transform = Transform::none;
  bool sparse = false;
  std::span<const uint8_t> tail;
  std::vector<StreamRef> refs;
};

// Parses the header and stream table of a chunk that decodes to `out_bytes`.
zt::Status parse_chunk(std::span<const uint8_t> body, DType dtype, size_t out_bytes, ChunkLayout& c) {
  const uint32_t w = dtype_width(dtype);
  ByteReader r(body);
  uint8_t tbyte = 0, tail_len = 0, n_streams = 0;
  if (!r.u8(tbyte) || !r.u8(tail_len)) return corrupt("truncated chunk header");
  c.sparse = (tbyte & kSparseFlag) != 0;
  const uint8_t tid = uint8_t(tbyte & ~kSparseFlag);
  if (tid >= kTransformCount) return corrupt("unknown transform " + std::to_string(tid));
  c.transform = static_cast<Transform>(tid);
  const uint32_t k = stream_count(c.transform, dtype);
  if (k == 0) return corrupt("transform " + std::to_string(tid) + " does not apply to dtype");
  if (c.sparse && (c.transform == Transform::palette || c.transform == Transform::paired_field_split ||
                   c.transform == Transform::scale_grid))
    return corrupt("transform " + std::to_string(tid) + " chunks cannot be sparse");
  if (tail_len != out_bytes % w)
    return {zt::ErrorCode::length_mismatch, "z4ai chunk: tail length " + std::to_string(tail_len) +
                                                " does not match chunk length modulo element width"};
  if (!r.bytes(tail_len, c.tail) || !r.u8(n_streams)) return corrupt("truncated chunk header");
  if (n_streams != k + (c.sparse ? 1 : 0))
    return corrupt("stream count " + std::to_string(n_streams) + " does not match the transform");
  c.refs.assign(n_streams, StreamRef{});
  std::vector<uint32_t> comp_len(n_streams);
  for (size_t i = 0; i < n_streams; ++i)
    if (!r.u8(c.refs[i].method) || !r.u32(c.refs[i].raw_len) || !r.u32(comp_len[i]))
      return corrupt("truncated stream table");
  for (size_t i = 0; i < n_streams; ++i) {
    if (!r.bytes(comp_len[i], c.refs[i].payload)) return corrupt("stream payload runs past the chunk");
    if (c.refs[i].raw_len == 0 && (c.refs[i].method != uint8_t(Method::stored) || comp_len[i] != 0))
      return corrupt("empty stream must be stored");
  }
  if (r.remaining() != 0) return corrupt("trailing bytes after the last stream");
  return {};
}

// Decodes a stream, or points straight at the frame bytes when it is stored.
zt::Status materialize(const StreamRef& s, bool allow_context_coders, std::vector<uint8_t>& scratch,
                       const uint8_t*& data) {
  if (s.method == uint8_t(Method::stored)) {
    if (s.payload.size() != s.raw_len) return corrupt("stored stream length differs from its raw length");
    data = s.payload.data();
    return {};
  }
  scratch.resize(s.raw_len);
  ZT_RETURN_IF_ERROR(decode_stream(s.method, allow_context_coders, s.payload, scratch));
  data = scratch.data();
  return {};
}

// The decoded streams of one chunk: per-thread scratch for coded ones.
struct Streams {
  const ChunkLayout& c;
  bool allow_context_coders;
  std::vector<std::vector<uint8_t>>& scratch;
  std::vector<const uint8_t*> ptrs;

  Streams(const ChunkLayout& layout, bool allow, std::vector<std::vector<uint8_t>>& s)
      : c(layout), allow_context_coders(allow), scratch(s), ptrs(layout.refs.size()) {
    if (scratch.size() < c.refs.size()) scratch.resize(c.refs.size());
  }
  zt::Status get(size_t i) { return materialize(c.refs[i], allow_context_coders, scratch[i], ptrs[i]); }
  // Streams [first, end), on up to `threads` threads when more than one of
  // them is coded (stored ones are pointers, no work).
  zt::Status get_all(size_t first, unsigned threads) {
    size_t coded = 0;
    for (size_t i = first; i < c.refs.size(); ++i) coded += c.refs[i].method != uint8_t(Method::stored);
    if (threads <= 1 || coded < 2) {
      for (size_t i = first; i < c.refs.size(); ++i) ZT_RETURN_IF_ERROR(get(i));
      return {};
    }
    std::vector<zt::Status> status(c.refs.size() - first);
    parallel_for(status.size(), threads, [&](size_t k) { status[k] = get(first + k); });
    for (const auto& s : status) ZT_RETURN_IF_ERROR(s);
    return {};
  }
};

zt::Status decode_palette(Streams& s, DType dtype, std::span<uint8_t> out) {
  const uint32_t w = dtype_width(dtype);
  const size_t n = out.size() / w;
  const size_t entries = s.c.refs[0].raw_len / w;
  if (s.c.refs[0].raw_len % w != 0 || entries == 0 || entries > kMaxPaletteEntries)
    return corrupt("palette holds " + std::to_string(s.c.refs[0].raw_len) + " bytes, not 1..256 elements");
  if (s.c.refs[1].raw_len != n)
    return {zt::ErrorCode::length_mismatch, "z4ai chunk: palette index stream length differs from element count"};
  ZT_RETURN_IF_ERROR(s.get(0));
  ZT_RETURN_IF_ERROR(s.get(1));
  if (!palette_decode(s.ptrs[0], entries, s.ptrs[1], n, w, out.data())) return corrupt("palette index out of range");
  return {};
}

zt::Status decode_grid(Streams& s, DType dtype, std::span<uint8_t> out) {
  const size_t n = out.size() / dtype_width(dtype);
  // The header stream first: the other lengths follow from it and n.
  if (s.c.refs[0].raw_len != kGridHeaderBytes)
    return {zt::ErrorCode::length_mismatch, "z4ai chunk: scale grid header stream raw length " +
                                                std::to_string(s.c.refs[0].raw_len) + ", expected " +
                                                std::to_string(kGridHeaderBytes)};
  ZT_RETURN_IF_ERROR(s.get(0));
  uint32_t raw_lens[kGridStreams];
  for (size_t i = 0; i < kGridStreams; ++i) raw_lens[i] = s.c.refs[i].raw_len;
  ZT_RETURN_IF_ERROR(grid_check_lengths(s.ptrs[0], raw_lens, n, dtype));
  for (size_t i = 1; i < s.c.refs.size(); ++i) ZT_RETURN_IF_ERROR(s.get(i));
  return grid_decode(s.ptrs.data(), n, dtype, out.data());
}

zt::Status decode_paired(Streams& s, DType dtype, std::span<uint8_t> out, unsigned threads) {
  const size_t n = out.size() / dtype_width(dtype);
  std::vector<uint32_t> raw_lens(s.c.refs.size());
  for (size_t i = 0; i < raw_lens.size(); ++i) raw_lens[i] = s.c.refs[i].raw_len;
  ZT_RETURN_IF_ERROR(check_paired_lengths(dtype, raw_lens.data(), n));
  ZT_RETURN_IF_ERROR(s.get_all(0, threads));
  return paired_merge(dtype, s.ptrs.data(), raw_lens[0], n, out.data());
}

// The stream-per-plane transforms (none, byte planes, field and sign
// splits), sparse or not.
zt::Status decode_planar(Streams& s, DType dtype, std::span<uint8_t> out, unsigned threads) {
  const ChunkLayout& c = s.c;
  const uint32_t w = dtype_width(dtype);
  const size_t n = out.size() / w;
  size_t n_coded = n;  // elements that went through the transform
  const uint8_t* bitmap = nullptr;
  size_t first = 0;
  if (c.sparse) {
    if (c.refs[0].raw_len != bitmap_bytes(n)) return {zt::ErrorCode::length_mismatch, "z4ai chunk: bitmap length"};
    ZT_RETURN_IF_ERROR(s.get(0));
    bitmap = s.ptrs[0];
    if (!bitmap_popcount(bitmap, n, n_coded)) return corrupt("bitmap has bits past the last element");
    first = 1;
  }
  for (size_t i = first; i < c.refs.size(); ++i) {
    const size_t want = stream_length_at(c.transform, dtype, n_coded, uint32_t(i - first));
    if (c.refs[i].raw_len != want)
      return {zt::ErrorCode::length_mismatch, "z4ai chunk: stream " + std::to_string(i) + " raw length " +
                                                  std::to_string(c.refs[i].raw_len) + ", expected " +
                                                  std::to_string(want)};
  }
  ZT_RETURN_IF_ERROR(s.get_all(first, threads));
  if (!c.sparse) {
    inverse_transform(c.transform, dtype, s.ptrs.data() + first, n, out.data());
  } else {
    thread_local std::vector<uint8_t> packed;
    packed.resize(n_coded * w);
    inverse_transform(c.transform, dtype, s.ptrs.data() + first, n_coded, packed.data());
    sparse_unpack(bitmap, packed.data(), n, w, out.data());
  }
  return {};
}

zt::Status decode_elements(const ChunkLayout& c, DType dtype, bool allow_context_coders, std::span<uint8_t> out,
                           unsigned stream_threads) {
  const size_t whole = out.size() / dtype_width(dtype) * dtype_width(dtype);
  if (c.transform == Transform::none && !c.sparse && c.refs[0].method != uint8_t(Method::stored)) {
    // One coded stream that is the chunk's bytes (zstd chunks, fp8 lean):
    // decoded straight into the output, no scratch buffer and copy.
    if (c.refs[0].raw_len != whole)
      return {zt::ErrorCode::length_mismatch, "z4ai chunk: stream 0 raw length " +
                                                  std::to_string(c.refs[0].raw_len) + ", expected " +
                                                  std::to_string(whole)};
    return decode_stream(c.refs[0].method, allow_context_coders, c.refs[0].payload, out.first(whole));
  }
  thread_local std::vector<std::vector<uint8_t>> scratch;
  Streams s(c, allow_context_coders, scratch);
  switch (c.transform) {
    case Transform::palette: return decode_palette(s, dtype, out);
    case Transform::scale_grid: return decode_grid(s, dtype, out);
    case Transform::paired_field_split: return decode_paired(s, dtype, out, stream_threads);
    default: return decode_planar(s, dtype, out, stream_threads);
  }
}

}  // namespace

zt::Status decode_chunk(std::span<const uint8_t> body, DType dtype, bool allow_context_coders, std::span<uint8_t> out,
                        unsigned stream_threads) {
  ChunkLayout c;
  ZT_RETURN_IF_ERROR(parse_chunk(body, dtype, out.size(), c));
  ZT_RETURN_IF_ERROR(decode_elements(c, dtype, allow_context_coders, out, stream_threads));
  if (!c.tail.empty()) std::memcpy(out.data() + (out.size() - c.tail.size()), c.tail.data(), c.tail.size());
  return {};
}

}  // namespace z4ai::detail
