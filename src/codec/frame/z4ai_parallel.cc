// Z4AI / ZARA frames on worker threads (z4ai_parallel.h): chunks coded in
// parallel and assembled in order; decoded in order with none started after
// one fails, the checksum fed beside; the decoding entry points.
#include "codec/frame/z4ai_parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <new>
#include <string>
#include <thread>

#include "codec/common/byte_io.h"
#include "codec/common/digest.h"
#include "codec/common/thread_pool.h"
#include "codec/pypi/legacy_format.h"
#include "common/page_advice.h"

namespace z4ai {
namespace detail {
namespace {

// A worker thread is only worth starting for this much data: below it the
// start-up and scheduling latency (worst on a loaded machine) eat the gain.
constexpr size_t kMinBytesPerWorker = size_t{512} << 10;
// write_chunked lets workers run this many chunks per worker ahead of the
// last body placed: enough that a slow chunk rarely idles the others, few
// enough that the bodies waiting for it stay a small share of the input.
constexpr size_t kReorderChunksPerWorker = 2;

// The frame's header and chunk table, digest 0.
std::vector<uint8_t> chunked_head(std::span<const uint8_t> data, DType dtype, const Plan& plan,
                                  std::span<const uint32_t> lengths) {
  FrameHeader h{plan.zara, dtype, FrameMode::chunked, data.size(), 0, plan.chunk_bytes, uint32_t(lengths.size())};
  std::vector<uint8_t> head(kFrameHeaderBytes + 4 * lengths.size());
  write_frame_header(h, head.data());
  for (size_t i = 0; i < lengths.size(); ++i) store_u32(head.data() + kFrameHeaderBytes + 4 * i, lengths[i]);
  return head;
}

}  // namespace

unsigned workers_for(uint64_t bytes, unsigned threads) {
  uint64_t by_size = std::max<uint64_t>(1, bytes / kMinBytesPerWorker);
  return unsigned(std::min<uint64_t>(resolve_threads(threads), by_size));
}

ChunkEncodeOptions chunk_options(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                 std::vector<uint8_t>& ranking) {
  const size_t n_chunks = chunk_count(data.size(), plan.chunk_bytes);
  ChunkEncodeOptions opts = plan.chunk;
  if (opts.auto_select && !opts.lean && n_chunks > 1 && plan.chunk_bytes < kChunkBytesFast) {
    // Chunks shrunk to share a mid-sized input across cores: rank the
    // transforms once for the input instead of sampling every chunk.
    ranking = plan.input_ranking.empty() ? rank_transforms(data, dtype, opts) : plan.input_ranking;
    opts.ranking = &ranking;
  }
  // One chunk (the repeat path): the threads share out its streams instead.
  if (n_chunks == 1) opts.stream_threads = workers_for(data.size(), threads);
  return opts;
}

namespace {

// Chunk bodies coded on several threads, appended to a FrameBuffer in
// chunk order (see write_chunked).
class OrderedChunks {
 public:
  OrderedChunks(size_t n, size_t window, FrameBuffer& out) : bodies_(n), lengths_(n), window_(window), out_(out) {}

  // Index of the next chunk to code, once it is within the window of the
  // last placed one; nullopt when every chunk is taken or a write failed.
  std::optional<size_t> take() {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return failed_ || next_ >= bodies_.size() || next_ < placed_ + window_; });
    if (failed_ || next_ >= bodies_.size()) return std::nullopt;
    return next_++;
  }

  // Hands in chunk i's body; appends it and every waiting body after it
  // that it unblocks.
  void give(size_t i, std::vector<uint8_t> body) {
    std::lock_guard lock(mutex_);
    bodies_[i] = std::move(body);
    for (; placed_ < bodies_.size() && bodies_[placed_]; ++placed_) {
      lengths_[placed_] = uint32_t(bodies_[placed_]->size());
      if (!failed_ && !out_.append(*bodies_[placed_])) failed_ = true;
      bodies_[placed_].reset();
    }
    room_.notify_all();
  }

  void fail() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    room_.notify_all();
  }

  bool ok() const { return !failed_; }
  std::span<const uint32_t> lengths() const { return lengths_; }

 private:
  std::mutex mutex_;
  std::condition_variable room_;
  std::vector<std::optional<std::vector<uint8_t>>> bodies_;  // coded, not yet placed
  std::vector<uint32_t> lengths_;
  size_t next_ = 0, placed_ = 0;
  const size_t window_;
  bool failed_ = false;
  FrameBuffer& out_;
};

}  // namespace

bool write_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                   FrameBuffer& out) {
  const size_t n_chunks = chunk_count(data.size(), plan.chunk_bytes);
  std::vector<uint8_t> ranking;
  const ChunkEncodeOptions opts = chunk_options(data, dtype, plan, threads, ranking);
  const unsigned workers = workers_for(data.size(), threads);
  const size_t head_bytes = kFrameHeaderBytes + 4 * n_chunks;
  out.clear();
  // Room for the frame as large as its input; most frames need less.
  out.reserve(head_bytes + data.size() + n_chunks * kMinChunkBodyBytes);
  if (!out.append(std::vector<uint8_t>(head_bytes))) return false;
  OrderedChunks chunks(n_chunks, std::max<size_t>(1, kReorderChunksPerWorker * workers), out);
  auto work = [&] {
    try {
      while (std::optional<size_t> i = chunks.take())
        chunks.give(*i, encode_chunk(chunk_input(data, plan.chunk_bytes, *i), dtype, opts));
    } catch (const std::bad_alloc&) {  // never out of a worker thread: limit_exceeded instead
      chunks.fail();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers && t < n_chunks; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (!chunks.ok()) return false;
  const std::vector<uint8_t> head = chunked_head(data, dtype, plan, chunks.lengths());
  std::memcpy(out.data(), head.data(), head.size());
  return true;
}

std::vector<uint8_t> build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads) {
  std::vector<uint8_t> frame;
  VectorFrameBuffer out(frame);
  if (!write_chunked(data, dtype, plan, threads, out)) frame.clear();
  return frame;
}

bool put_frame(std::span<const uint8_t> frame, FrameBuffer& out) {
  out.clear();
  out.reserve(frame.size());
  return out.append(frame);
}

namespace {

zt::Status digest_error() {
  return {zt::ErrorCode::digest_mismatch, "z4ai frame: decoded bytes do not match the stored XXH3-64 checksum"};
}

}  // namespace

zt::Status decode_frame(std::span<const uint8_t> frame, const FrameHeader& h, std::span<uint8_t> out,
                        unsigned threads) {
  using zt::ErrorCode;
  if (out.size() != h.original_length)
    return {ErrorCode::length_mismatch, "z4ai frame: output buffer has " + std::to_string(out.size()) +
                                            " bytes, frame decodes to " + std::to_string(h.original_length)};
  if (h.mode == FrameMode::whole_zstd) {
    ZT_RETURN_IF_ERROR(decode_zstd(frame.subspan(kFrameHeaderBytes), out));
  } else {
    const size_t n = h.n_chunks;
    const uint8_t* table = frame.data() + kFrameHeaderBytes;
    std::vector<size_t> offsets(n + 1);  // check_frame_body: they tile the frame
    offsets[0] = kFrameHeaderBytes + 4 * n;
    for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + load_u32(table + 4 * i);
    auto chunk_of = [&](size_t i) {
      const uint64_t off = uint64_t(i) * h.chunk_bytes;
      return out.subspan(size_t(off), size_t(std::min<uint64_t>(h.chunk_bytes, h.original_length - off)));
    };
    // A large output is usually fresh memory: each chunk's pages are faulted
    // in by the thread that decodes it, in one call, once its streams are
    // known able to fill them (decode_chunk).
    const bool prefault = out.size() >= zt::kPrefaultMinBytes;
    const unsigned workers = workers_for(h.original_length, threads);
    // A frame of one chunk (repeat and long-stream frames) decodes its
    // streams on the workers instead: the same bytes, any thread count.
    const unsigned stream_threads = n == 1 ? workers : 1;
    auto decode_one = [&](size_t i) {
      zt::Status s = decode_chunk(frame.subspan(offsets[i], offsets[i + 1] - offsets[i]), h.dtype, h.zara,
                                  chunk_of(i), stream_threads, prefault);
      if (!s.ok()) return zt::Status(s.code(), "chunk " + std::to_string(i) + ": " + s.message());
      return zt::Status();
    };
    // The checksum is fed chunk by chunk in order while the chunks are still
    // in cache: by the only thread, or by the calling thread between its own
    // chunks as the decoded prefix grows; the rest after the others finish.
    std::vector<zt::Status> status(n);
    std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[n]);
    for (size_t i = 0; i < n; ++i) done[i].store(false, std::memory_order_relaxed);
    // Chunks are taken in order and none is started after one fails: a frame
    // whose chunk k lies costs the memory of chunks up to k (plus one per
    // other worker), not its declared length.
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto decode_next = [&] {
      if (failed.load(std::memory_order_relaxed)) return false;
      const size_t i = next.fetch_add(1);
      if (i >= n) return false;
      status[i] = decode_one(i);
      if (!status[i].ok()) failed.store(true, std::memory_order_relaxed);
      done[i].store(true, std::memory_order_release);
      return true;
    };
    Xxh3Stream hash;
    size_t hashed = 0;
    auto hash_ready = [&] {
      for (; hashed < n && done[hashed].load(std::memory_order_acquire) && status[hashed].ok(); ++hashed)
        hash.update(chunk_of(hashed));
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < workers && t < n; ++t) pool.emplace_back([&] { while (decode_next()) {} });
    while (decode_next()) hash_ready();
    for (auto& th : pool) th.join();
    for (size_t i = 0; i < n; ++i) ZT_RETURN_IF_ERROR(status[i]);
    hash_ready();
    if (hash.digest() != h.digest) return digest_error();
    return {};
  }
  if (xxh3_64(out) != h.digest) return digest_error();  // whole-buffer zstd
  return {};
}


}  // namespace detail

zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads) {
  if (detail::is_legacy_frame(frame)) return detail::decode_legacy_into(frame, out);
  ZT_ASSIGN_OR_RETURN(detail::FrameHeader h, detail::read_frame_header(frame));
  ZT_RETURN_IF_ERROR(detail::check_frame_body(frame, h));
  return detail::decode_frame(frame, h, out, threads);
}

zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads, uint64_t max_output) {
  uint64_t length = 0;
  if (detail::is_legacy_frame(frame)) {
    ZT_ASSIGN_OR_RETURN(length, detail::legacy_decoded_length(frame));
  } else {
    ZT_ASSIGN_OR_RETURN(detail::FrameHeader h, detail::read_frame_header(frame));
    ZT_RETURN_IF_ERROR(detail::check_frame_body(frame, h));
    length = h.original_length;
  }
  ZT_RETURN_IF_ERROR(check_max_output("z4ai frame", length, max_output));
  std::vector<uint8_t> out;
  try {
    out.resize(size_t(length));
  } catch (const std::bad_alloc&) {
    return zt::Result<std::vector<uint8_t>>(zt::ErrorCode::limit_exceeded, "z4ai frame: cannot allocate " +
                                                                               std::to_string(length) +
                                                                               " bytes for the decoded data");
  }
  ZT_RETURN_IF_ERROR(decompress_into(frame, out, threads));
  return out;
}

}  // namespace z4ai
