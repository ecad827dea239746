// Z4AIMF01: the PyPI z4ai chunked layout, byte for byte (docs/codec.md).
//   "Z4AIMF01" | u8 flags=0 | u8 width | u32 n_chunks |
//   per chunk: u32 elems, u8 tail_len, tail, width x (u8 method, u32 comp_len, bytes)
// A chunk holds `elems` whole elements plus the tail_len bytes that do not
// fill an element (only the last chunk has any); plane j = byte j of each
// element; method 0 = stored, 1 = zstd.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "codec/common/byte_io.h"
#include "codec/common/thread_pool.h"
#include "codec/entropy/entropy.h"
#include "codec/transform/transforms.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "common/page_advice.h"

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

namespace {

// Chunks are cut at `step` bytes; chunk c codes to at most slot_bytes(c)
// (every plane stored). The bound is the frame with every chunk that large:
// a chunk coded at the frame's end never passes it.
struct Layout {
  uint32_t width;
  uint64_t step;
  uint64_t size;
  size_t n_chunks;
  uint64_t bound;  // header + every slot: what compress_into needs

  uint64_t chunk_bytes(size_t c) const { return std::min<uint64_t>(step, size - c * step); }
  uint64_t slot_bytes(size_t c) const {
    uint64_t len = chunk_bytes(c), n = len / width;
    return 5 + (len - n * width) + width * (5 + n);
  }
};

zt::Result<Layout> plan(uint64_t size, const Options& o) {
  if (o.width == 0 || o.width > 255)
    return zt::Result<Layout>(zt::ErrorCode::invalid_argument, "Z4AIMF01: width must be 1..255");
  if (o.chunk_size == 0) return zt::Result<Layout>(zt::ErrorCode::invalid_argument, "Z4AIMF01: chunk_size must be > 0");
  Layout l{o.width, std::max<uint64_t>(o.width, o.chunk_size / o.width * o.width), size, 0, kHeaderBytes};
  if (l.step / l.width > UINT32_MAX)
    return zt::Result<Layout>(zt::ErrorCode::invalid_argument, "Z4AIMF01: chunk over 2^32 elements");
  const uint64_t n_chunks = (size + l.step - 1) / l.step;
  if (n_chunks > UINT32_MAX)
    return zt::Result<Layout>(zt::ErrorCode::limit_exceeded, "Z4AIMF01: more than 2^32 chunks");
  l.n_chunks = size_t(n_chunks);
  // All chunks but the last have the same slot size.
  if (l.n_chunks) l.bound = kHeaderBytes + (l.n_chunks - 1) * l.slot_bytes(0) + l.slot_bytes(l.n_chunks - 1);
  return l;
}

// Per-thread buffer for one plane's zstd frame, grown without zero-filling
// and kept across chunks.
uint8_t* zstd_scratch(size_t bytes) {
  thread_local std::unique_ptr<uint8_t[]> buf;
  thread_local size_t cap = 0;
  if (cap < bytes) {
    buf.reset(new uint8_t[bytes]);
    cap = bytes;
  }
  return buf.get();
}

// Writes one plane's entry (u8 method, u32 len, bytes) at `at`: zstd when its
// frame is strictly shorter than the plane, else the plane stored (PyPI's
// rule). zstd codes into a scratch of its full bound, not into the n - 1
// bytes a kept frame could take: with less room it fails frames that end
// just under n (they come out stored, unlike PyPI's). `plane` may lie at or
// after at + 5; returns the entry's length.
size_t put_plane(const uint8_t* plane, size_t n, int level, uint8_t* at) {
  size_t z = 0;
  if (n) {
    uint8_t* zbuf = zstd_scratch(detail::zstd_bound(n));
    z = detail::encode_zstd_plain_into({plane, n}, level, {zbuf, detail::zstd_bound(n)});
    if (z >= n) z = 0;
    if (z) std::memcpy(at + 5, zbuf, z);
  }
  at[0] = z ? kZstd : kStored;
  detail::store_u32(at + 1, uint32_t(z ? z : n));
  if (!z && at + 5 != plane) std::memmove(at + 5, plane, n);
  return 5 + (z ? z : n);
}

// Codes chunk `c` at `slot` (slot_bytes(c) of room); returns the bytes
// written. The planes are split straight into the slot, each where it
// would sit were every plane stored; the coded chunk is then written over
// them front to back. Plane j's entry starts at or before its split copy
// and ends before plane j + 1's, so nothing is overwritten before it is
// read, and a stored plane moves only when an earlier one shrank (fp32: the
// stored low mantissa planes come first and never move).
size_t encode_chunk(const Layout& l, size_t c, std::span<const uint8_t> data, int level, uint8_t* slot) {
  const uint32_t w = l.width;
  const size_t len = size_t(l.chunk_bytes(c)), n = len / w, tail = len - n * w;
  const uint8_t* src = data.data() + c * l.step;
  detail::store_u32(slot, uint32_t(n));
  slot[4] = uint8_t(tail);
  if (tail) std::memcpy(slot + 5, src + n * w, tail);
  uint8_t* const first = slot + 5 + tail;
  if (w == 1) return 5 + tail + put_plane(src, n, level, first);  // the plane is the input
  uint8_t* planes[255] = {};
  for (uint32_t j = 0; j < w; ++j) planes[j] = first + j * (5 + n) + 5;
  detail::split_planes(src, n, w, planes);
  uint8_t* p = first;
  for (uint32_t j = 0; j < w; ++j) p += put_plane(planes[j], n, level, p);
  return size_t(p - slot);
}

// Packs the coded chunks into one frame, in order, as they are coded, so the
// output is written (and paged in) only where the frame ends up. A chunk
// started when every chunk before it is packed is coded straight at the
// frame's end (always so with one thread: nothing is copied). Any other is
// coded into a staging buffer of one slot and, once its predecessors are
// packed, copied to its place while still in cache. A thread that finishes
// before its predecessor waits for it instead of parking its chunk: chunks
// are started in order, so that wait is short and rare. Staging takes at
// most workers - 1 buffers: a thread that would need one more waits until
// its chunk can be coded in place or a buffer comes back. Unbounded, two
// threads alternating would stage every chunk in two buffers (one slot each,
// 2 MiB by default: minilm-bf16 compress at 2 threads had 7.7 MB over its
// frame, PyPI 6.6 MB).
class Packer {
 public:
  Packer(const Layout& l, uint8_t* base, size_t workers)
      : l_(l),
        base_(base),
        stage_bytes_(l.n_chunks ? l.slot_bytes(0) : 0),
        max_stages_(std::max<size_t>(workers, 1) - 1) {}

  // Where chunk c is to be coded: the frame itself, or `stage`; nullptr
  // once a chunk has failed. The lowest unpacked chunk never waits here, so
  // the wait ends: stages are held only by chunks above it.
  uint8_t* start(size_t c, std::unique_ptr<uint8_t[]>& stage) {
    std::unique_lock<std::mutex> lock(mu_);
    packed_cv_.wait(lock, [&] { return failed_ || c == packed_ || !spare_.empty() || stages_ < max_stages_; });
    if (failed_) return nullptr;
    if (c == packed_) return base_ + pos_;
    if (!spare_.empty()) {
      stage = std::move(spare_.back());
      spare_.pop_back();
    } else {
      ++stages_;
      lock.unlock();
      stage.reset(new uint8_t[stage_bytes_]);
    }
    return stage.get();
  }

  void finish(size_t c, const uint8_t* at, size_t len, std::unique_ptr<uint8_t[]> stage) {
    std::unique_lock<std::mutex> lock(mu_);
    // The thread coding chunk packed_ never waits here, so this ends.
    packed_cv_.wait(lock, [&] { return c == packed_ || failed_; });
    if (failed_) return;
    if (at != base_ + pos_) std::memcpy(base_ + pos_, at, len);
    pos_ += len;
    ++packed_;
    if (stage) spare_.push_back(std::move(stage));
    packed_cv_.notify_all();
  }

  // A chunk that cannot be coded (out of memory) ends the call: no chunk
  // after it is packed, and the threads waiting on it are let go.
  void fail() {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = true;
    packed_cv_.notify_all();
  }
  bool failed() const { return failed_; }

  size_t end() const { return pos_; }

 private:
  const Layout& l_;
  uint8_t* base_;
  const size_t stage_bytes_;
  const size_t max_stages_;
  std::mutex mu_;
  std::condition_variable packed_cv_;
  size_t packed_ = 0;          // chunks [0, packed_) are in place
  size_t pos_ = kHeaderBytes;  // where chunk packed_ goes
  bool failed_ = false;
  size_t stages_ = 0;  // staging buffers allocated
  std::vector<std::unique_ptr<uint8_t[]>> spare_;
};

}  // namespace

zt::Result<uint64_t> compressed_bound(uint64_t size, const Options& options) {
  ZT_ASSIGN_OR_RETURN(Layout l, plan(size, options));
  return l.bound;
}

zt::Result<size_t> compress_into(std::span<const uint8_t> data, const Options& o, std::span<uint8_t> out) {
  ZT_ASSIGN_OR_RETURN(Layout l, plan(data.size(), o));
  if (out.size() < l.bound)
    return zt::Result<size_t>(zt::ErrorCode::invalid_argument,
                              "Z4AIMF01: output buffer has " + std::to_string(out.size()) + " bytes, compress needs " +
                                  std::to_string(l.bound) + " (compressed_bound)");
  uint8_t* base = out.data();
  std::memcpy(base, kMagic, 8);
  base[8] = 0;
  base[9] = uint8_t(l.width);
  detail::store_u32(base + 10, uint32_t(l.n_chunks));
  Packer packer(l, base, std::min<size_t>(detail::resolve_threads(o.threads), l.n_chunks));
  const bool prefault = l.bound >= zt::kPrefaultMinBytes;
  detail::parallel_for(l.n_chunks, o.threads, [&](size_t c) {
    try {
      std::unique_ptr<uint8_t[]> stage;
      uint8_t* at = packer.start(c, stage);
      if (!at) return;
      // Coded at the frame's end: the slot's pages (which its split planes
      // fill) are faulted in by one call, not one trap each (page_advice.h).
      if (prefault && !stage) zt::prefault_pages(at, size_t(l.slot_bytes(c)));
      const size_t len = encode_chunk(l, c, data, o.level, at);
      packer.finish(c, at, len, std::move(stage));
    } catch (const std::bad_alloc&) {  // never out of a worker thread
      packer.fail();
    }
  });
  if (packer.failed())
    return zt::Result<size_t>(zt::ErrorCode::limit_exceeded, "Z4AIMF01: out of memory for a chunk's scratch (" +
                                                                 std::to_string(l.slot_bytes(0)) + " bytes)");
  return packer.end();
}

zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const Options& o) {
  ZT_ASSIGN_OR_RETURN(uint64_t bound, compressed_bound(data.size(), o));
  // Uninitialised: the room past the frame is never paged in.
  std::unique_ptr<uint8_t[]> buf(new uint8_t[size_t(bound)]);
  ZT_ASSIGN_OR_RETURN(size_t n, compress_into(data, o, std::span<uint8_t>(buf.get(), size_t(bound))));
  return std::vector<uint8_t>(buf.get(), buf.get() + n);
}

namespace {

// Chunks are decoded in order and none is started after one fails, so a lie
// in chunk k costs the memory of the chunks up to k, not the declared total.
zt::Status decode_chunks(const std::vector<Chunk>& chunks, uint32_t w, std::span<uint8_t> out, unsigned threads) {
  std::vector<zt::Status> status(chunks.size());
  std::atomic<bool> failed{false};
  // A large output is usually fresh memory: each chunk's pages are faulted
  // in by the thread that decodes it, in one call (page_advice.h).
  const bool prefault = out.size() >= zt::kPrefaultMinBytes;
  detail::parallel_for(chunks.size(), threads, [&](size_t c) {
    if (failed.load(std::memory_order_relaxed)) return;
    if (prefault) zt::prefault_pages(out.data() + chunks[c].out_offset, size_t(chunks[c].elems) * w + chunks[c].tail.size());
    try {
      status[c] = decode_one(chunks[c], w, out.data() + chunks[c].out_offset);
    } catch (const std::bad_alloc&) {  // plane scratch; never out of a worker thread
      status[c] = zt::Status(zt::ErrorCode::limit_exceeded, "out of memory for plane scratch");
    }
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
