// Chunk encoding (chunk_codec.h): the transform chosen per chunk (lean,
// zstd chunks, or ranked on a sample with the primary coding as fallback),
// the sparse bitmap, and each stream coded by the entropy stage.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "codec/common/byte_io.h"
#include "codec/common/no_init_bytes.h"
#include "codec/common/thread_pool.h"
#include "codec/frame/chunk_codec.h"
#include "codec/transform/paired_split.h"
#include "codec/transform/palette.h"
#include "codec/transform/scale_grid.h"
#include "codec/transform/sparse_path.h"

namespace z4ai::detail {
namespace {

// ZARA also codes the transform ranked second when its estimated size is
// within this factor of the winner's: the ranking estimates entropy on a
// 1/16 sample, which cannot tell transforms that close apart. Set with the
// first encoder (no measurement of its own was kept); the golden frames pin
// what it picks.
constexpr double kRunnerUpReach = 1.02;
// A chunk with at least this share of all-zero elements tries the sparse path.
constexpr double kSparseMinZeroShare = 0.125;
// Above this share of all-zero elements the lean path is not taken.
constexpr double kLeanMaxZeroShare = 0.01;
constexpr size_t kStreamHeaderBytes = 9;  // u8 method, u32 raw_len, u32 comp_len

struct Candidate {
  Transform transform;
  bool sparse;
};

// Streams of `t` applied to n elements of src, stream i stream_length_at bytes.
// Stream buffers are recycled per thread: a fresh multi-MB allocation costs
// page faults on every chunk, more than the transform that fills it.
constexpr size_t kMaxPooledBuffers = 16;
constexpr size_t kMaxPooledBytes = size_t{24} << 20;
std::vector<StreamBytes>& buffer_pool() {
  thread_local std::vector<StreamBytes> pool;
  return pool;
}
StreamBytes take_buffer(size_t size) {
  auto& pool = buffer_pool();
  StreamBytes b;
  if (!pool.empty()) {
    b = std::move(pool.back());
    pool.pop_back();
  }
  b.resize(size);
  return b;
}
void give_buffer(StreamBytes&& b) {
  auto& pool = buffer_pool();
  size_t held = b.capacity();
  for (const auto& x : pool) held += x.capacity();
  if (pool.size() < kMaxPooledBuffers && b.capacity() > 0 && held <= kMaxPooledBytes) pool.push_back(std::move(b));
}

std::vector<StreamBytes> make_streams(Transform t, DType dtype, const uint8_t* src, size_t n) {
  uint32_t k = stream_count(t, dtype);
  std::vector<StreamBytes> streams;
  for (uint32_t i = 0; i < k; ++i) streams.push_back(take_buffer(stream_length_at(t, dtype, n, i)));
  std::vector<uint8_t*> ptrs(k);
  for (uint32_t i = 0; i < k; ++i) ptrs[i] = streams[i].data();
  forward_transform(t, dtype, src, n, ptrs.data());
  return streams;
}

struct Prepared {
  Candidate cand;
  std::vector<StreamBytes> streams;  // bitmap first when sparse
  Prepared(Candidate c) : cand(c) {}
  Prepared(Prepared&&) = default;
  Prepared& operator=(Prepared&&) = default;
  ~Prepared() {
    for (auto& b : streams) give_buffer(std::move(b));
  }
};

Prepared prepare(Candidate c, DType dtype, const uint8_t* src, size_t n);

// The paired split, or the plain field split when the chunk's exponents are
// too spread for a 15-value window.
Prepared prepare_paired(DType dtype, const uint8_t* src, size_t n) {
  uint8_t base = 0;
  if (!choose_pair_base(src, n, dtype, base)) return prepare({Transform::field_split, false}, dtype, src, n);
  Prepared p({Transform::paired_field_split, false});
  const uint32_t k = paired_stream_count(dtype);
  std::vector<uint8_t*> ptrs(k);
  for (uint32_t i = 0; i < k; ++i) {
    p.streams.push_back(take_buffer(i == 0 ? n + 1 : paired_stream_length(i, n)));
    ptrs[i] = p.streams[i].data();
  }
  p.streams[0][0] = base;
  const size_t escapes = paired_split(dtype, src, n, base, ptrs[0] + 1, ptrs.data());
  p.streams[0].resize(1 + escapes);
  return p;
}

Prepared prepare(Candidate c, DType dtype, const uint8_t* src, size_t n) {
  Prepared p(c);
  if (c.transform == Transform::paired_field_split) return prepare_paired(dtype, src, n);
  if (c.transform == Transform::scale_grid) {
    std::vector<std::vector<uint8_t>> grid;  // empty when the chunk is not a grid
    if (grid_encode(src, n, dtype, grid))
      for (const auto& g : grid) p.streams.emplace_back(g.begin(), g.end());
    return p;
  }
  if (c.transform == Transform::palette) {
    std::vector<uint8_t> pal, idx;
    if (palette_encode(src, n, dtype_width(dtype), pal, idx)) {
      p.streams.emplace_back(pal.begin(), pal.end());
      p.streams.emplace_back(idx.begin(), idx.end());
    }
    return p;
  }
  if (!c.sparse) {
    p.streams = make_streams(c.transform, dtype, src, n);
    return p;
  }
  uint32_t w = dtype_width(dtype);
  StreamBytes bitmap = take_buffer(bitmap_bytes(n));
  StreamBytes packed = take_buffer(n * w);
  size_t nnz = sparse_pack(src, n, w, bitmap.data(), packed.data());
  p.streams.push_back(std::move(bitmap));
  for (auto& s : make_streams(c.transform, dtype, packed.data(), nnz)) p.streams.push_back(std::move(s));
  give_buffer(std::move(packed));
  return p;
}

// kSampleBlocks evenly spaced runs, 1/16 of the chunk's elements but at
// least kMinSampleElems and at most kMaxSampleElems: enough to rank
// transforms, and small next to the chunk whatever its size.
constexpr size_t kSampleBlocks = 32;
constexpr size_t kMinSampleElems = 32 * 1024;
constexpr size_t kMaxSampleElems = 64 * 1024;

std::vector<uint8_t> sample_elements(const uint8_t* src, size_t n, uint32_t w) {
  const size_t want = std::clamp(n / 16, kMinSampleElems, kMaxSampleElems);
  if (n <= want) return std::vector<uint8_t>(src, src + n * w);
  const size_t run = want / kSampleBlocks;
  std::vector<uint8_t> out;
  out.reserve(kSampleBlocks * run * w);
  size_t stride = n / kSampleBlocks;
  for (size_t b = 0; b < kSampleBlocks; ++b) {
    const uint8_t* p = src + b * stride * w;
    out.insert(out.end(), p, p + run * w);
  }
  return out;
}

double estimate(const Prepared& p) {
  if (p.streams.empty()) return 1e300;  // palette overflowed
  double total = 0;
  for (const auto& s : p.streams) total += estimate_coded_size(s) + kStreamHeaderBytes;
  return total;
}

// The stream of the lean transform that carries the exponent: the field
// split's first, fp8's only one, or fp16's high byte plane.
size_t lean_exponent_stream(Transform t) {
  return t == Transform::byte_planes || t == Transform::paired_field_split ? 1 : 0;
}

// A stream of a body already coded: its bytes, method and coding.
struct CodedStream {
  std::span<const uint8_t> raw;
  Method method;
  std::span<const uint8_t> coded;
};

// The streams of `body`, emitted from `p` (emit's layout), for another
// candidate of the same chunk that shares some of them: the low byte planes
// are the field split's low mantissa streams, the sign split shares the
// exponent and low mantissa bytes with the field split.
std::vector<CodedStream> coded_streams(const Prepared& p, std::span<const uint8_t> body) {
  std::vector<CodedStream> out;
  size_t pos = 2 + body[1] + 1;  // transform, tail length, tail, stream count
  size_t payload = pos + kStreamHeaderBytes * p.streams.size();
  for (const auto& s : p.streams) {
    const size_t len = load_u32(body.data() + pos + 5);
    out.push_back({s, static_cast<Method>(body[pos]), body.subspan(payload, len)});
    pos += kStreamHeaderBytes;
    payload += len;
  }
  return out;
}

// The chunk body of `p`. Coding stops, returning an empty body, once the body
// reaches `budget` bytes: a candidate that cannot beat a body already coded
// is abandoned without coding its remaining streams. A stream equal to one of
// `reuse` (coded with the same policy and coder) takes that coding: the coders
// are deterministic, so the body is the same, for one coding pass less.
std::vector<uint8_t> emit(const Prepared& p, std::span<const uint8_t> tail, const EntropyPolicy& policy,
                          bool lean = false, unsigned stream_threads = 1, size_t budget = SIZE_MAX,
                          std::span<const CodedStream> reuse = {}) {
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
  auto encode = [&](size_t i, std::vector<uint8_t>& out) {
    const std::span<const uint8_t> in(p.streams[i]);
    for (const CodedStream& c : reuse)
      if (c.raw.size() == in.size() && std::equal(in.begin(), in.end(), c.raw.begin())) {
        out.insert(out.end(), c.coded.begin(), c.coded.end());
        return c.method;
      }
    if (!lean) return encode_best(in, policy, out);
    const bool exponent = i == lean_exponent_stream(p.cand.transform);
    // The rest of the chunk's coded size, from a sample of each other stream.
    size_t others = 0;
    for (size_t j = 0; exponent && j < p.streams.size(); ++j)
      if (j != i) others += size_t(sampled_bits_per_byte(p.streams[j]) / 8 * double(p.streams[j].size()));
    return encode_lean(in, exponent, policy, out, others);
  };
  auto record = [&](size_t i, Method m, size_t coded) {
    uint8_t* h = body.data() + table + kStreamHeaderBytes * i;
    h[0] = uint8_t(m);
    store_u32(h + 1, uint32_t(p.streams[i].size()));
    store_u32(h + 5, uint32_t(coded));
  };
  const size_t k = p.streams.size();
  if (k > 1 && (stream_threads > 1 || budget != SIZE_MAX)) {
    // Each stream into its own buffer, appended in order after: on workers,
    // or (with a budget) the largest-looking streams first, so a losing
    // candidate is abandoned before its costly small streams (the exponents).
    std::vector<std::vector<uint8_t>> coded(k);
    std::vector<Method> methods(k);
    if (stream_threads > 1) {
      parallel_for(k, stream_threads, [&](size_t i) { methods[i] = encode(i, coded[i]); });
      size_t total = body.size();
      for (const auto& c : coded) total += c.size();
      if (total >= budget) return {};
    } else {
      std::vector<double> guess(k);
      for (size_t i = 0; i < k; ++i) guess[i] = sampled_bits_per_byte(p.streams[i]) * double(p.streams[i].size());
      std::vector<size_t> order(k);
      for (size_t i = 0; i < k; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return guess[a] > guess[b]; });
      size_t total = body.size();
      for (size_t i : order) {
        methods[i] = encode(i, coded[i]);
        total += coded[i].size();
        if (total >= budget) return {};
      }
    }
    for (size_t i = 0; i < k; ++i) {
      record(i, methods[i], coded[i].size());
      put_bytes(body, coded[i]);
    }
    return body;
  }
  for (size_t i = 0; i < p.streams.size(); ++i) {
    size_t before = body.size();
    Method m = encode(i, body);
    record(i, m, body.size() - before);
    if (body.size() >= budget) return {};
  }
  return body;
}

}  // namespace

namespace {

std::vector<Candidate> candidates_for(const uint8_t* sample, size_t ns, DType dtype, const ChunkEncodeOptions& o) {
  const uint32_t w = dtype_width(dtype);
  const Transform primary = primary_transform(dtype);
  std::vector<Candidate> cands{{primary, false}};
  if (primary != Transform::byte_planes && w > 1) cands.push_back({Transform::byte_planes, false});
  if (primary != Transform::none) cands.push_back({Transform::none, false});
  if (palette_plausible(sample, ns, w)) cands.push_back({Transform::palette, false});
  if (grid_plausible(sample, ns, dtype)) cands.push_back({Transform::scale_grid, false});
  if (o.allow_sparse && ns >= 64 && double(count_zero_elements(sample, ns, w)) >= kSparseMinZeroShare * double(ns))
    cands.push_back({primary, true});
  return cands;
}

// Candidates with their estimated sizes on `sample`, best first.
std::vector<std::pair<double, Candidate>> rank_on_sample(const std::vector<uint8_t>& sample, DType dtype,
                                                         const ChunkEncodeOptions& o) {
  const size_t ns = sample.size() / dtype_width(dtype);
  std::vector<Candidate> cands = candidates_for(sample.data(), ns, dtype, o);
  std::vector<std::pair<double, Candidate>> ranked;
  for (size_t i = 0; i < cands.size(); ++i) {
    double est = cands.size() == 1 ? 0 : estimate(prepare(cands[i], dtype, sample.data(), ns));
    ranked.push_back({est, cands[i]});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return ranked;
}

// fp16's high byte (sign, 5-bit exponent, top 2 mantissa bits) coded as one
// symbol is at least as small as the exponent and sign+mantissa fields coded
// apart, and it is one coder pass instead of two; likewise fp8's whole byte
// (transform none). bf16/fp32 exponents go in nibble pairs: half the symbols
// for the rANS coder.
Transform lean_transform(DType dtype) {
  if (dtype == DType::fp16) return Transform::byte_planes;
  if (dtype_width(dtype) == 1) return Transform::none;
  if (paired_stream_count(dtype) != 0) return Transform::paired_field_split;
  return primary_transform(dtype);
}

uint8_t candidate_id(Candidate c) { return uint8_t(uint8_t(c.transform) | (c.sparse ? kSparseFlag : 0)); }
Candidate candidate_from(uint8_t id) {
  return {static_cast<Transform>(id & uint8_t(~kSparseFlag)), (id & kSparseFlag) != 0};
}

// Transform none with its one stream zstd-coded (stored when zstd does not
// shrink it), written straight from the input: no stream copy.
std::vector<uint8_t> emit_zstd_chunk(std::span<const uint8_t> elems, std::span<const uint8_t> tail, int level) {
  std::vector<uint8_t> body;
  // Room for the header and zstd's worst case, so nothing reallocates.
  body.reserve(3 + tail.size() + kStreamHeaderBytes + elems.size() + elems.size() / 128 + 1024);
  put_u8(body, uint8_t(Transform::none));
  put_u8(body, uint8_t(tail.size()));
  put_bytes(body, tail);
  put_u8(body, 1);
  const size_t head = body.size();
  body.resize(head + kStreamHeaderBytes);
  Method m = Method::stored;
  if (!elems.empty() && encode_zstd(elems, level, body) && body.size() - head - kStreamHeaderBytes < elems.size()) {
    m = Method::zstd;
  } else {
    body.resize(head + kStreamHeaderBytes);
    put_bytes(body, elems);
  }
  body[head] = uint8_t(m);
  store_u32(body.data() + head + 1, uint32_t(elems.size()));
  store_u32(body.data() + head + 5, uint32_t(body.size() - head - kStreamHeaderBytes));
  return body;
}

}  // namespace

std::vector<uint8_t> rank_transforms(std::span<const uint8_t> data, DType dtype, const ChunkEncodeOptions& o) {
  const uint32_t w = dtype_width(dtype);
  const auto ranked = rank_on_sample(sample_elements(data.data(), data.size() / w, w), dtype, o);
  std::vector<uint8_t> ids;
  for (const auto& r : ranked) ids.push_back(candidate_id(r.second));
  return ids;
}

bool lean_applies(std::span<const uint8_t> data, DType dtype) {
  if (primary_transform(dtype) != Transform::field_split) return false;
  const uint32_t w = dtype_width(dtype);
  const std::vector<uint8_t> sample = sample_elements(data.data(), data.size() / w, w);
  const size_t ns = sample.size() / w;
  // Exact zeros beyond a trace mean quantised or pruned values, whose
  // streams repay the full coder search (trained weights have almost none).
  if (double(count_zero_elements(sample.data(), ns, w)) > kLeanMaxZeroShare * double(ns)) return false;
  // With almost no zeros the sparse variant cannot be a candidate: the
  // palette is the only other structure to rule out.
  return !palette_plausible(sample.data(), ns, w);
}


namespace {

// Effort fast on plain floats: the lean coding. Dequantised weights pass the
// lean rule (few zeros, > 256 values) but sit on a scale grid: with auto, a
// chunk whose windows show one is coded as a grid (same chunks as
// auto=False). The lean coding (what auto=False writes) is coded too,
// stopping once it reaches the grid's size, so the chunk is never larger
// than auto=False's by construction.
std::vector<uint8_t> encode_lean_chunk(std::span<const uint8_t> data, size_t n, std::span<const uint8_t> tail,
                                       DType dtype, const ChunkEncodeOptions& o) {
  if (o.auto_select && grid_plausible(data.data(), n, dtype)) {
    Prepared g = prepare({Transform::scale_grid, false}, dtype, data.data(), n);
    if (!g.streams.empty()) {
      std::vector<uint8_t> grid = emit(g, tail, o.policy);
      std::vector<uint8_t> lean =
          emit(prepare({lean_transform(dtype), false}, dtype, data.data(), n), tail, o.policy, true, 1, grid.size());
      return lean.empty() ? grid : lean;
    }
  }
  return emit(prepare({lean_transform(dtype), false}, dtype, data.data(), n), tail, o.policy, true);
}

// The chunk's bytes as one zstd stream. auto_select=false codes this same
// chunk (zstd chunks keep the primary plan's chunk size) with the primary
// coding: coded too, stopping at zstd's size, so the chunk is never larger
// than auto=False's.
std::vector<uint8_t> encode_zstd_chunk(std::span<const uint8_t> data, size_t n, std::span<const uint8_t> tail,
                                       DType dtype, const ChunkEncodeOptions& o) {
  std::vector<uint8_t> best = emit_zstd_chunk(data.first(n * dtype_width(dtype)), tail, o.policy.zstd_level);
  const Transform primary = o.primary_lean ? lean_transform(dtype) : primary_transform(dtype);
  const Prepared p = prepare({primary, false}, dtype, data.data(), n);
  std::vector<uint8_t> alt = emit(p, tail, o.policy, o.primary_lean, 1, best.size());
  if (!alt.empty()) best = std::move(alt);
  return best;
}

// Ranks transforms by their estimated size on a sample of the chunk (or
// takes the input-wide ranking), then transforms and encodes only the
// winner (ZARA: also a close runner-up).
std::vector<uint8_t> encode_ranked_chunk(std::span<const uint8_t> data, size_t n, std::span<const uint8_t> tail,
                                         DType dtype, const ChunkEncodeOptions& o) {
  const Transform primary = primary_transform(dtype);
  std::vector<std::pair<double, Candidate>> ranked;
  if (o.ranking && !o.ranking->empty()) {
    for (uint8_t id : *o.ranking) ranked.push_back({0.0, candidate_from(id)});
  } else {
    ranked = rank_on_sample(sample_elements(data.data(), n, dtype_width(dtype)), dtype, o);
  }
  // The winner's streams stay for the candidates coded after it (emit's reuse).
  std::optional<Prepared> winner;
  std::vector<CodedStream> reuse;
  // A palette built on the sample may overflow on the whole chunk: fall back.
  auto emit_primary = [&](size_t budget) {
    return emit(prepare({primary, false}, dtype, data.data(), n), tail, o.policy, false, o.stream_threads, budget,
                reuse);
  };
  std::vector<uint8_t> best;
  size_t used = 0;
  bool primary_done = false;
  for (; used < ranked.size() && best.empty(); ++used) {
    winner.emplace(prepare(ranked[used].second, dtype, data.data(), n));
    if (!winner->streams.empty()) best = emit(*winner, tail, o.policy, false, o.stream_threads);
    primary_done = ranked[used].second.transform == primary && !ranked[used].second.sparse;
  }
  if (!best.empty()) reuse = coded_streams(*winner, best);
  if (best.empty()) {
    best = emit_primary(SIZE_MAX);
    primary_done = true;
  }
  // The ranking is an estimate (int4-dequantised bf16: byte planes ranked
  // first, the field split 1 % smaller on the whole chunk). auto_select=false
  // writes the primary coding of this same chunk with the same policy, so
  // coding it too whenever another transform won keeps the auto chunk never
  // larger by construction; it stops once it reaches the winner's size.
  if (!primary_done && o.primary_fallback) {
    std::vector<uint8_t> alt = emit_primary(best.size());
    if (!alt.empty()) {
      reuse.clear();  // they point into the body replaced
      best = std::move(alt);
    }
    primary_done = true;
  }
  const bool runner_up_is_primary =
      used < ranked.size() && ranked[used].second.transform == primary && !ranked[used].second.sparse;
  if (o.policy.exhaustive && !o.ranking && used < ranked.size() && !(runner_up_is_primary && primary_done) &&
      ranked[used].first < kRunnerUpReach * ranked[used - 1].first) {
    Prepared p = prepare(ranked[used].second, dtype, data.data(), n);
    if (!p.streams.empty()) {
      std::vector<uint8_t> alt = emit(p, tail, o.policy, false, o.stream_threads, best.size(), reuse);
      if (!alt.empty()) best = std::move(alt);
    }
  }
  return best;
}

}  // namespace

std::vector<uint8_t> encode_chunk(std::span<const uint8_t> data, DType dtype, const ChunkEncodeOptions& o) {
  const uint32_t w = dtype_width(dtype);
  const size_t n = data.size() / w;
  const std::span<const uint8_t> tail = data.subspan(n * w);
  if (o.lean) return encode_lean_chunk(data, n, tail, dtype, o);
  if (!o.auto_select)
    return emit(prepare({primary_transform(dtype), false}, dtype, data.data(), n), tail, o.policy, false,
                o.stream_threads);
  if (o.zstd_chunks) return encode_zstd_chunk(data, n, tail, dtype, o);
  return encode_ranked_chunk(data, n, tail, dtype, o);
}

}  // namespace z4ai::detail
