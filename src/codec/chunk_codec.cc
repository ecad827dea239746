// Chunk encode/decode: transform choice, sparse bitmap, per-stream coding.
#include "codec/chunk_codec.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "codec/byte_io.h"
#include "codec/palette.h"
#include "codec/sparse_path.h"

namespace z4ai::detail {
namespace {

// A chunk with at least this share of all-zero elements tries the sparse path.
constexpr double kSparseMinZeroShare = 0.125;
constexpr size_t kStreamHeaderBytes = 9;  // u8 method, u32 raw_len, u32 comp_len

struct Candidate {
  Transform transform;
  bool sparse;
};

// Streams of `t` applied to n elements of src, each stream_length bytes.
std::vector<std::vector<uint8_t>> make_streams(Transform t, DType dtype, const uint8_t* src, size_t n) {
  uint32_t k = stream_count(t, dtype);
  std::vector<std::vector<uint8_t>> streams(k, std::vector<uint8_t>(stream_length(t, dtype, n)));
  std::vector<uint8_t*> ptrs(k);
  for (uint32_t i = 0; i < k; ++i) ptrs[i] = streams[i].data();
  forward_transform(t, dtype, src, n, ptrs.data());
  return streams;
}

struct Prepared {
  Candidate cand;
  std::vector<std::vector<uint8_t>> streams;  // bitmap first when sparse
};

Prepared prepare(Candidate c, DType dtype, const uint8_t* src, size_t n) {
  Prepared p{c, {}};
  if (c.transform == Transform::palette) {
    p.streams.resize(2);
    if (!palette_encode(src, n, dtype_width(dtype), p.streams[0], p.streams[1])) p.streams.clear();
    return p;
  }
  if (!c.sparse) {
    p.streams = make_streams(c.transform, dtype, src, n);
    return p;
  }
  uint32_t w = dtype_width(dtype);
  std::vector<uint8_t> bitmap(bitmap_bytes(n));
  std::vector<uint8_t> packed(n * w);
  size_t nnz = sparse_pack(src, n, w, bitmap.data(), packed.data());
  p.streams.push_back(std::move(bitmap));
  for (auto& s : make_streams(c.transform, dtype, packed.data(), nnz)) p.streams.push_back(std::move(s));
  return p;
}

// Up to kSampleBlocks evenly spaced runs of kSampleRun elements.
constexpr size_t kSampleBlocks = 32;
constexpr size_t kSampleRun = 2048;

std::vector<uint8_t> sample_elements(const uint8_t* src, size_t n, uint32_t w) {
  if (n <= kSampleBlocks * kSampleRun) return std::vector<uint8_t>(src, src + n * w);
  std::vector<uint8_t> out;
  out.reserve(kSampleBlocks * kSampleRun * w);
  size_t stride = n / kSampleBlocks;
  for (size_t b = 0; b < kSampleBlocks; ++b) {
    const uint8_t* p = src + b * stride * w;
    out.insert(out.end(), p, p + kSampleRun * w);
  }
  return out;
}

double estimate(const Prepared& p) {
  if (p.streams.empty()) return 1e300;  // palette overflowed
  double total = 0;
  for (const auto& s : p.streams) total += estimate_coded_size(s) + kStreamHeaderBytes;
  return total;
}

std::vector<uint8_t> emit(const Prepared& p, std::span<const uint8_t> tail, const EntropyPolicy& policy) {
  std::vector<uint8_t> body;
  // Worst case is every stream stored: reserve it so appends never reallocate.
  size_t worst = 3 + tail.size() + kStreamHeaderBytes * p.streams.size();
  for (const auto& s : p.streams) worst += s.size();
  body.reserve(worst);
  put_u8(body, uint8_t(uint8_t(p.cand.transform) | (p.cand.sparse ? kSparseFlag : 0)));
  put_u8(body, uint8_t(tail.size()));
  put_bytes(body, tail);
  put_u8(body, uint8_t(p.streams.size()));
  size_t table = body.size();
  body.resize(table + kStreamHeaderBytes * p.streams.size());
  for (size_t i = 0; i < p.streams.size(); ++i) {
    size_t before = body.size();
    Method m = encode_best(p.streams[i], policy, body);
    uint8_t* h = body.data() + table + kStreamHeaderBytes * i;
    h[0] = uint8_t(m);
    store_u32(h + 1, uint32_t(p.streams[i].size()));
    store_u32(h + 5, uint32_t(body.size() - before));
  }
  return body;
}

}  // namespace

std::vector<uint8_t> encode_chunk(std::span<const uint8_t> data, DType dtype, const ChunkEncodeOptions& o) {
  uint32_t w = dtype_width(dtype);
  size_t n = data.size() / w;
  std::span<const uint8_t> tail = data.subspan(n * w);
  Transform primary = primary_transform(dtype);

  std::vector<Candidate> cands{{primary, false}};
  if (!o.auto_select) return emit(prepare(cands[0], dtype, data.data(), n), tail, o.policy);
  if (primary != Transform::byte_planes && w > 1) cands.push_back({Transform::byte_planes, false});
  if (primary != Transform::none) cands.push_back({Transform::none, false});
  std::vector<uint8_t> sample = sample_elements(data.data(), n, w);
  const size_t ns = sample.size() / w;
  if (palette_plausible(sample.data(), ns, w)) cands.push_back({Transform::palette, false});
  if (o.allow_sparse && ns >= 64 &&
      double(count_zero_elements(sample.data(), ns, w)) >= kSparseMinZeroShare * double(ns))
    cands.push_back({primary, true});

  // Rank transforms by their estimated size on a sample of the chunk, then
  // transform and encode only the winner (ZARA: also a close runner-up).
  if (cands.size() == 1) return emit(prepare(cands[0], dtype, data.data(), n), tail, o.policy);
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t i = 0; i < cands.size(); ++i)
    ranked.push_back({estimate(prepare(cands[i], dtype, sample.data(), sample.size() / w)), i});
  std::sort(ranked.begin(), ranked.end());
  // A palette built on the sample may overflow on the whole chunk: fall back.
  std::vector<uint8_t> best;
  size_t used = 0;
  for (; used < ranked.size() && best.empty(); ++used) {
    Prepared p = prepare(cands[ranked[used].second], dtype, data.data(), n);
    if (!p.streams.empty()) best = emit(p, tail, o.policy);
  }
  if (o.policy.exhaustive && used < ranked.size() && ranked[used].first < 1.02 * ranked[used - 1].first) {
    Prepared p = prepare(cands[ranked[used].second], dtype, data.data(), n);
    if (!p.streams.empty()) {
      std::vector<uint8_t> alt = emit(p, tail, o.policy);
      if (alt.size() < best.size()) best = std::move(alt);
    }
  }
  return best;
}

namespace {

zt::Status corrupt(const std::string& what) {
  return {zt::ErrorCode::corrupt_stream, "z4ai chunk: " + what};
}

struct StreamRef {
  uint8_t method;
  uint32_t raw_len;
  std::span<const uint8_t> payload;
};

// Decodes a stream, or points straight at the frame bytes when it is stored.
zt::Status materialize(const StreamRef& s, bool ctx, std::vector<uint8_t>& scratch, const uint8_t*& data) {
  if (s.method == uint8_t(Method::stored)) {
    if (s.payload.size() != s.raw_len) return corrupt("stored stream length differs from its raw length");
    data = s.payload.data();
    return {};
  }
  scratch.resize(s.raw_len);
  ZT_RETURN_IF_ERROR(decode_stream(s.method, ctx, s.payload, scratch));
  data = scratch.data();
  return {};
}

}  // namespace

zt::Status decode_chunk(std::span<const uint8_t> body, DType dtype, bool ctx, std::span<uint8_t> out) {
  const uint32_t w = dtype_width(dtype);
  const size_t n = out.size() / w;
  ByteReader r(body);
  uint8_t tbyte = 0, tail_len = 0, n_streams = 0;
  if (!r.u8(tbyte) || !r.u8(tail_len)) return corrupt("truncated chunk header");
  const bool sparse = (tbyte & kSparseFlag) != 0;
  const uint8_t tid = uint8_t(tbyte & ~kSparseFlag);
  if (tid >= kTransformCount) return corrupt("unknown transform " + std::to_string(tid));
  const Transform t = static_cast<Transform>(tid);
  const uint32_t k = stream_count(t, dtype);
  if (k == 0) return corrupt("transform " + std::to_string(tid) + " does not apply to dtype");
  if (tail_len != out.size() % w)
    return {zt::ErrorCode::length_mismatch, "z4ai chunk: tail length " + std::to_string(tail_len) +
                                                " does not match chunk length modulo element width"};
  std::span<const uint8_t> tail;
  if (!r.bytes(tail_len, tail) || !r.u8(n_streams)) return corrupt("truncated chunk header");
  if (n_streams != k + (sparse ? 1 : 0))
    return corrupt("stream count " + std::to_string(n_streams) + " does not match the transform");

  std::vector<StreamRef> refs(n_streams);
  std::vector<uint32_t> comp_len(n_streams);
  for (size_t i = 0; i < n_streams; ++i)
    if (!r.u8(refs[i].method) || !r.u32(refs[i].raw_len) || !r.u32(comp_len[i]))
      return corrupt("truncated stream table");
  for (size_t i = 0; i < n_streams; ++i) {
    if (!r.bytes(comp_len[i], refs[i].payload)) return corrupt("stream payload runs past the chunk");
    if (refs[i].raw_len == 0 && (refs[i].method != uint8_t(Method::stored) || comp_len[i] != 0))
      return corrupt("empty stream must be stored");
  }
  if (r.remaining() != 0) return corrupt("trailing bytes after the last stream");

  thread_local std::vector<std::vector<uint8_t>> scratch;
  if (scratch.size() < n_streams) scratch.resize(n_streams);
  std::vector<const uint8_t*> ptrs(n_streams);

  if (t == Transform::palette) {
    if (sparse) return corrupt("palette chunks cannot be sparse");
    const size_t entries = refs[0].raw_len / w;
    if (refs[0].raw_len % w != 0 || entries == 0 || entries > kMaxPaletteEntries)
      return corrupt("palette holds " + std::to_string(refs[0].raw_len) + " bytes, not 1..256 elements");
    if (refs[1].raw_len != n)
      return {zt::ErrorCode::length_mismatch, "z4ai chunk: palette index stream length differs from element count"};
    ZT_RETURN_IF_ERROR(materialize(refs[0], ctx, scratch[0], ptrs[0]));
    ZT_RETURN_IF_ERROR(materialize(refs[1], ctx, scratch[1], ptrs[1]));
    if (!palette_decode(ptrs[0], entries, ptrs[1], n, w, out.data())) return corrupt("palette index out of range");
    if (tail_len) std::memcpy(out.data() + n * w, tail.data(), tail_len);
    return {};
  }

  size_t n_coded = n;  // elements that went through the transform
  const uint8_t* bitmap = nullptr;
  size_t first = 0;
  if (sparse) {
    if (refs[0].raw_len != bitmap_bytes(n)) return {zt::ErrorCode::length_mismatch, "z4ai chunk: bitmap length"};
    ZT_RETURN_IF_ERROR(materialize(refs[0], ctx, scratch[0], bitmap));
    if (!bitmap_popcount(bitmap, n, n_coded)) return corrupt("bitmap has bits past the last element");
    first = 1;
  }
  const size_t want = stream_length(t, dtype, n_coded);
  for (size_t i = first; i < n_streams; ++i) {
    if (refs[i].raw_len != want)
      return {zt::ErrorCode::length_mismatch, "z4ai chunk: stream " + std::to_string(i) + " raw length " +
                                                  std::to_string(refs[i].raw_len) + ", expected " +
                                                  std::to_string(want)};
    ZT_RETURN_IF_ERROR(materialize(refs[i], ctx, scratch[i], ptrs[i]));
  }
  if (!sparse) {
    inverse_transform(t, dtype, ptrs.data() + first, n, out.data());
  } else {
    thread_local std::vector<uint8_t> packed;
    packed.resize(n_coded * w);
    inverse_transform(t, dtype, ptrs.data() + first, n_coded, packed.data());
    sparse_unpack(bitmap, packed.data(), n, w, out.data());
  }
  if (tail_len) std::memcpy(out.data() + n * w, tail.data(), tail_len);
  return {};
}

}  // namespace z4ai::detail
