// Chunk decoding (chunk_codec.h): the body's header and stream table are
// parsed and checked against its bytes (check_chunk: every raw length the
// transform fixes, and every stream able to produce its raw length) before
// any output is touched, then the streams are decoded (stored ones read in
// place) and the transform inverted into the output.
#include <algorithm>
#include <cstring>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/no_init_bytes.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/chunk_codec.h"
#include "codec/transform/paired_split.h"
#include "codec/transform/palette.h"
#include "codec/transform/scale_grid.h"
#include "codec/transform/sparse_path.h"
#include "common/page_advice.h"

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

zt::Status length_error(const std::string& what) { return {zt::ErrorCode::length_mismatch, "z4ai chunk: " + what}; }

// The raw lengths of the stream-per-plane transforms (none, byte planes,
// field and sign splits) for n elements; sparse: for the elements its
// streams claim to hold, which must be at most n (the bitmap, decoded
// later, must then count exactly that many).
zt::Status check_planar_lengths(const ChunkLayout& c, DType dtype, size_t n) {
  size_t first = 0, n_coded = n;
  if (c.sparse) {
    if (c.refs[0].raw_len != bitmap_bytes(n)) return length_error("bitmap length");
    first = 1;
    // The elements the sparse streams hold: the exponent stream's length for
    // the sign split (its stream 0 packs bits), the first stream's otherwise.
    const size_t at = c.transform == Transform::sign_split ? 2 : 1;
    const uint64_t raw = c.refs[at].raw_len;
    n_coded = size_t(c.transform == Transform::none ? raw / dtype_width(dtype) : raw);
    if (n_coded > n) return length_error("sparse streams hold more elements than the chunk");
  }
  for (size_t i = first; i < c.refs.size(); ++i) {
    const size_t want = stream_length_at(c.transform, dtype, n_coded, uint32_t(i - first));
    if (c.refs[i].raw_len != want)
      return length_error("stream " + std::to_string(i) + " raw length " + std::to_string(c.refs[i].raw_len) +
                          ", expected " + std::to_string(want));
  }
  return {};
}

// The scale grid's raw lengths within what any header allows: G >= 2^5 and
// at most n exceptions (grid_check_lengths holds them to the header itself
// once it is decoded; a stored header is read here already).
zt::Status check_grid_lengths(const ChunkLayout& c, DType dtype, size_t n) {
  const uint32_t w = dtype_width(dtype);
  if (c.refs[0].raw_len != kGridHeaderBytes)
    return length_error("scale grid header stream raw length " + std::to_string(c.refs[0].raw_len) + ", expected " +
                        std::to_string(kGridHeaderBytes));
  uint32_t raw_lens[kGridStreams];
  for (size_t i = 0; i < kGridStreams; ++i) raw_lens[i] = c.refs[i].raw_len;
  if (c.refs[0].method == uint8_t(Method::stored) && c.refs[0].payload.size() == kGridHeaderBytes)
    return grid_check_lengths(c.refs[0].payload.data(), raw_lens, n, dtype);
  const uint64_t max_scales = uint64_t(kGridPositionBytes) * ((n + (size_t{1} << kGridMinLog2) - 1) >> kGridMinLog2);
  if (raw_lens[1] > max_scales || raw_lens[2] != n || raw_lens[3] > uint64_t(kGridPositionBytes) * n ||
      raw_lens[3] % kGridPositionBytes != 0 || uint64_t(raw_lens[4]) != uint64_t(raw_lens[3]) / kGridPositionBytes * w)
    return length_error("scale grid stream lengths do not fit " + std::to_string(n) + " elements");
  return {};
}

// Every raw length the transform fixes for a chunk of `out_bytes`, then each
// stream's bytes able to produce its raw length: before anything is decoded
// or any output page touched, so a chunk may cost only what its bytes justify.
zt::Status check_layout(const ChunkLayout& c, DType dtype, bool allow_context_coders, size_t out_bytes) {
  const uint32_t w = dtype_width(dtype);
  const size_t n = out_bytes / w;
  switch (c.transform) {
    case Transform::palette: {
      const size_t entries = c.refs[0].raw_len / w;
      if (c.refs[0].raw_len % w != 0 || entries == 0 || entries > kMaxPaletteEntries)
        return corrupt("palette holds " + std::to_string(c.refs[0].raw_len) + " bytes, not 1..256 elements");
      if (c.refs[1].raw_len != n) return length_error("palette index stream length differs from element count");
      break;
    }
    case Transform::scale_grid: ZT_RETURN_IF_ERROR(check_grid_lengths(c, dtype, n)); break;
    case Transform::paired_field_split: {
      std::vector<uint32_t> raw_lens(c.refs.size());
      for (size_t i = 0; i < raw_lens.size(); ++i) raw_lens[i] = c.refs[i].raw_len;
      ZT_RETURN_IF_ERROR(check_paired_lengths(dtype, raw_lens.data(), n));
      break;
    }
    default: ZT_RETURN_IF_ERROR(check_planar_lengths(c, dtype, n));
  }
  for (size_t i = 0; i < c.refs.size(); ++i) {
    const StreamRef& s = c.refs[i];
    if (s.method == uint8_t(Method::stored)) {
      if (s.payload.size() != s.raw_len) return corrupt("stored stream length differs from its raw length");
      continue;
    }
    zt::Status st = check_stream_produces(s.method, allow_context_coders, s.payload, s.raw_len);
    if (!st.ok()) return {st.code(), "z4ai chunk: stream " + std::to_string(i) + ": " + st.message()};
  }
  return {};
}

// Decodes a stream, or points straight at the frame bytes when it is stored.
// Scratch grows uninitialised: the decoder writes all of it or fails.
zt::Status materialize(const StreamRef& s, bool allow_context_coders, StreamBytes& scratch,
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
  std::vector<StreamBytes>& scratch;
  std::vector<const uint8_t*> ptrs;

  Streams(const ChunkLayout& layout, bool allow, std::vector<StreamBytes>& s)
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
  const size_t entries = s.c.refs[0].raw_len / w;  // check_layout: 1..256 whole elements
  ZT_RETURN_IF_ERROR(s.get(0));
  ZT_RETURN_IF_ERROR(s.get(1));
  if (!palette_decode(s.ptrs[0], entries, s.ptrs[1], n, w, out.data())) return corrupt("palette index out of range");
  return {};
}

zt::Status decode_grid(Streams& s, DType dtype, std::span<uint8_t> out) {
  const size_t n = out.size() / dtype_width(dtype);
  // The header stream first: the other lengths follow from it and n.
  ZT_RETURN_IF_ERROR(s.get(0));
  uint32_t raw_lens[kGridStreams];
  for (size_t i = 0; i < kGridStreams; ++i) raw_lens[i] = s.c.refs[i].raw_len;
  ZT_RETURN_IF_ERROR(grid_check_lengths(s.ptrs[0], raw_lens, n, dtype));
  for (size_t i = 1; i < s.c.refs.size(); ++i) ZT_RETURN_IF_ERROR(s.get(i));
  return grid_decode(s.ptrs.data(), n, dtype, out.data());
}

zt::Status decode_paired(Streams& s, DType dtype, std::span<uint8_t> out, unsigned threads) {
  const size_t n = out.size() / dtype_width(dtype);
  ZT_RETURN_IF_ERROR(s.get_all(0, threads));  // check_layout: check_paired_lengths
  return paired_merge(dtype, s.ptrs.data(), s.c.refs[0].raw_len, n, out.data());
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
    ZT_RETURN_IF_ERROR(s.get(0));
    bitmap = s.ptrs[0];
    if (!bitmap_popcount(bitmap, n, n_coded)) return corrupt("bitmap has bits past the last element");
    first = 1;
    // check_layout held the streams to one element count; the bitmap must count it.
    for (size_t i = first; i < c.refs.size(); ++i) {
      const size_t want = stream_length_at(c.transform, dtype, n_coded, uint32_t(i - first));
      if (c.refs[i].raw_len != want)
        return length_error("stream " + std::to_string(i) + " raw length " + std::to_string(c.refs[i].raw_len) +
                            ", expected " + std::to_string(want));
    }
  }
  ZT_RETURN_IF_ERROR(s.get_all(first, threads));
  if (!c.sparse) {
    inverse_transform(c.transform, dtype, s.ptrs.data() + first, n, out.data());
  } else {
    thread_local StreamBytes packed;
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
    // decoded straight into the output, no scratch buffer and copy
    // (check_layout: its raw length is the chunk's whole elements).
    return decode_stream(c.refs[0].method, allow_context_coders, c.refs[0].payload, out.first(whole));
  }
  thread_local std::vector<StreamBytes> scratch;
  Streams s(c, allow_context_coders, scratch);
  switch (c.transform) {
    case Transform::palette: return decode_palette(s, dtype, out);
    case Transform::scale_grid: return decode_grid(s, dtype, out);
    case Transform::paired_field_split: return decode_paired(s, dtype, out, stream_threads);
    default: return decode_planar(s, dtype, out, stream_threads);
  }
}

}  // namespace

zt::Status check_chunk(std::span<const uint8_t> body, DType dtype, bool allow_context_coders, size_t out_bytes) {
  ChunkLayout c;
  ZT_RETURN_IF_ERROR(parse_chunk(body, dtype, out_bytes, c));
  return check_layout(c, dtype, allow_context_coders, out_bytes);
}

zt::Status decode_chunk(std::span<const uint8_t> body, DType dtype, bool allow_context_coders, std::span<uint8_t> out,
                        unsigned stream_threads, bool prefault) {
  ChunkLayout c;
  ZT_RETURN_IF_ERROR(parse_chunk(body, dtype, out.size(), c));
  ZT_RETURN_IF_ERROR(check_layout(c, dtype, allow_context_coders, out.size()));
  const auto checkable = [](const StreamRef& s) { return stream_checkable(s.method); };
  if (prefault && std::all_of(c.refs.begin(), c.refs.end(), checkable)) zt::prefault_pages(out.data(), out.size());
  ZT_RETURN_IF_ERROR(decode_elements(c, dtype, allow_context_coders, out, stream_threads));
  if (!c.tail.empty()) std::memcpy(out.data() + (out.size() - c.tail.size()), c.tail.data(), c.tail.size());
  return {};
}

}  // namespace z4ai::detail
