// Segmented rANS (ZARA): a stream cut where its statistics change, each
// segment coded on its own (stored, rANS order-0 or order-1). Blocked rANS
// cuts at fixed sizes, so a table straddles two tensors of different scale
// or small tensors pay one table per block; segments follow the tensors.
//   payload: per segment: u32 raw_len (>= 1), u8 method, u32 comp_len, bytes;
//   the raw lengths add up to the stream's length.
#include <cmath>
#include <queue>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/histogram.h"

namespace z4ai::detail {
namespace {

// Segments are unions of units of this size: fine enough to find tensor
// boundaries, coarse enough that the merge stays cheap.
constexpr size_t kUnitBytes = size_t{4} << 10;
// Segments are coded 32-way interleaved whatever their size (128 bytes of
// rANS state): htscodecs' 4-way decoder for small ones took half of a bf16
// frame's decode time.
constexpr double kStateBytes = 128;
// Order 1 is tried on segments from this size (its table is 256 rows).
constexpr size_t kMinOrder1SegmentBytes = size_t{64} << 10;

struct Segment {
  size_t begin = 0, size = 0;
  std::vector<uint32_t> hist;  // 256 counters
  double cost = 0;
  size_t prev = SIZE_MAX, next = SIZE_MAX;  // neighbours in the list
  unsigned version = 0;                      // bumped when the segment changes
  bool alive = true;
};

// Estimated coded bytes of one segment: order-0 entropy, the frequency
// table (~1.2 bytes per symbol), rANS state and the 9-byte segment header.
double segment_cost(const uint32_t* h, size_t n) {
  double bits = 0;
  size_t distinct = 0;
  for (int s = 0; s < 256; ++s)
    if (h[s]) {
      bits -= double(h[s]) * std::log2(double(h[s]) / double(n));
      ++distinct;
    }
  const double coded = bits / 8 + 1.2 * double(distinct) + kStateBytes + 6;
  return std::min(coded, double(n)) + 9;
}

double merged_cost(const Segment& a, const Segment& b) {
  uint32_t h[256];
  for (int s = 0; s < 256; ++s) h[s] = a.hist[s] + b.hist[s];
  return segment_cost(h, a.size + b.size);
}

// Bottom-up: start from units, repeatedly merge the adjacent pair whose
// merge saves the most estimated bytes, until no merge saves any.
std::vector<Segment> plan_segments(std::span<const uint8_t> in) {
  std::vector<Segment> segs;
  for (size_t off = 0; off < in.size(); off += kUnitBytes) {
    Segment s;
    s.begin = off;
    s.size = std::min(kUnitBytes, in.size() - off);
    s.hist.assign(256, 0);
    Histogram4 h = {};
    count_bytes(h, in.data() + off, s.size);
    sum_histogram(h, s.hist.data());
    s.cost = segment_cost(s.hist.data(), s.size);
    s.prev = segs.empty() ? SIZE_MAX : segs.size() - 1;
    if (!segs.empty()) segs.back().next = segs.size();
    segs.push_back(std::move(s));
  }
  struct Merge {
    double gain;
    size_t left;
    unsigned vl, vr;
    bool operator<(const Merge& o) const { return gain < o.gain || (gain == o.gain && left > o.left); }
  };
  std::priority_queue<Merge> q;
  auto push = [&](size_t i) {
    const size_t j = segs[i].next;
    if (j == SIZE_MAX) return;
    const double gain = segs[i].cost + segs[j].cost - merged_cost(segs[i], segs[j]);
    if (gain > 0) q.push({gain, i, segs[i].version, segs[j].version});
  };
  for (size_t i = 0; i < segs.size(); ++i) push(i);
  while (!q.empty()) {
    const Merge m = q.top();
    q.pop();
    Segment& a = segs[m.left];
    if (!a.alive || a.version != m.vl || a.next == SIZE_MAX) continue;
    Segment& b = segs[a.next];
    if (b.version != m.vr) continue;
    for (int s = 0; s < 256; ++s) a.hist[s] += b.hist[s];
    a.size += b.size;
    a.cost = segment_cost(a.hist.data(), a.size);
    ++a.version;
    b.alive = false;
    a.next = b.next;
    if (b.next != SIZE_MAX) segs[b.next].prev = m.left;
    push(m.left);
    if (a.prev != SIZE_MAX) push(a.prev);
  }
  std::vector<Segment> out;
  for (auto& s : segs)
    if (s.alive) out.push_back(std::move(s));
  return out;
}

}  // namespace

bool encode_rans_segments(std::span<const uint8_t> in, std::vector<uint8_t>& out) {
  if (in.empty()) return false;
  std::vector<uint8_t> buf, buf1;
  for (const Segment& s : plan_segments(in)) {
    std::span<const uint8_t> b = in.subspan(s.begin, s.size);
    buf.clear();
    Method m = Method::stored;
    if (encode_rans(b, 0, buf, true) && buf.size() < b.size()) m = Method::rans0;
    if (b.size() >= kMinOrder1SegmentBytes) {
      buf1.clear();
      if (encode_rans(b, 1, buf1, true) && buf1.size() < (m == Method::stored ? b.size() : buf.size())) {
        m = Method::rans1;
        buf.swap(buf1);
      }
    }
    put_u32(out, uint32_t(b.size()));
    put_u8(out, uint8_t(m));
    put_u32(out, uint32_t(m == Method::stored ? b.size() : buf.size()));
    put_bytes(out, m == Method::stored ? b : std::span<const uint8_t>(buf));
  }
  return true;
}

namespace {

// The segments of a segmented rANS stream of n bytes, each checked to
// produce its size before anything is decoded.
zt::Result<std::vector<SubStream>> parse_segments(std::span<const uint8_t> in, uint64_t n) {
  ByteReader r(in);
  std::vector<SubStream> segments;
  for (uint64_t off = 0; off < n;) {
    SubStream s;
    uint32_t raw = 0, len = 0;
    if (!r.u32(raw) || !r.u8(s.method) || !r.u32(len) || !r.bytes(len, s.payload))
      return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: segmented rANS stream is truncated");
    if (raw == 0 || raw > n - off)
      return zt::Status(zt::ErrorCode::corrupt_stream,
                        "z4ai: segmented rANS segment of " + std::to_string(raw) + " bytes does not fit the " +
                            std::to_string(n - off) + " bytes left (segments must be non-empty and tile the stream)");
    s.raw_len = raw;
    ZT_RETURN_IF_ERROR(check_substream(s, "segmented rANS segment"));
    segments.push_back(s);
    off += raw;
  }
  if (r.remaining() != 0)
    return zt::Status(zt::ErrorCode::corrupt_stream, "z4ai: trailing bytes after the last rANS segment");
  return segments;
}

}  // namespace

zt::Status check_rans_segments(std::span<const uint8_t> in, uint64_t n) { return parse_segments(in, n).status(); }

zt::Status decode_rans_segments(std::span<const uint8_t> in, std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(std::vector<SubStream> segments, parse_segments(in, out.size()));
  return decode_substreams(segments, out);
}

}  // namespace z4ai::detail
