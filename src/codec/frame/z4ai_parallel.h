// The chunk-parallel driver of Z4AI/ZARA frames (z4ai_parallel.cc): chunks
// coded and decoded on worker threads, the bytes the same for any count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <vector>

#include "codec/frame/frame_format.h"
#include "codec/frame/z4ai_plan.h"
#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::detail {

// Workers for `bytes` of data: at most `threads` (0: every core), one per
// kMinBytesPerWorker.
unsigned workers_for(uint64_t bytes, unsigned threads);

// compress()'s frame buffer, and the one candidate frames are built in.
// Capacity reserved up front is address space only: the pages are touched
// as the frame is written.
class VectorFrameBuffer final : public FrameBuffer {
 public:
  explicit VectorFrameBuffer(std::vector<uint8_t>& v) : v_(v) {}
  void reserve(size_t bytes) override {
    try {
      v_.reserve(bytes);
    } catch (const std::exception&) {  // a hint: append still grows the vector
    }
  }
  bool append(std::span<const uint8_t> bytes) override {
    try {
      v_.insert(v_.end(), bytes.begin(), bytes.end());
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  uint8_t* data() override { return v_.data(); }
  size_t size() const override { return v_.size(); }
  void clear() override { v_.clear(); }

 private:
  std::vector<uint8_t>& v_;
};

inline size_t chunk_count(size_t size, uint32_t chunk_bytes) { return size_t((size + chunk_bytes - 1) / chunk_bytes); }

// Chunk i of `data` in chunks of `chunk_bytes`.
inline std::span<const uint8_t> chunk_input(std::span<const uint8_t> data, uint32_t chunk_bytes, size_t i) {
  const size_t off = size_t(uint64_t(i) * chunk_bytes);
  return data.subspan(off, std::min<size_t>(chunk_bytes, data.size() - off));
}

// The chunk coder's options for `data` under `plan`; `ranking` holds the
// shared transform ranking the options point to.
ChunkEncodeOptions chunk_options(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                                 std::vector<uint8_t>& ranking);

// Every chunk of `data` coded under `plan` on up to `threads` workers and
// written into `out` (cleared first) as it is coded: the header and chunk
// table are reserved at the front and filled in last; the workers take
// chunks in order and each body is appended once the ones before it are, no
// worker running more than a few chunks ahead of the last placed one. Memory
// holds those few bodies, not the frame. The digest is left 0 for the caller
// to patch in (kFrameDigestOffset); false when `out` cannot take the bytes.
bool write_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads,
                   FrameBuffer& out);

// write_chunked into a vector, for a candidate built beside the frame
// written (the primary frame beside a repeat frame, the long-stream frame);
// empty when memory runs out.
std::vector<uint8_t> build_chunked(std::span<const uint8_t> data, DType dtype, const Plan& plan, unsigned threads);

// `frame` (a candidate built apart) replaces what `out` holds.
bool put_frame(std::span<const uint8_t> frame, FrameBuffer& out);

// Decodes a mode 0 or 1 frame whose header and chunk table were checked
// (check_frame_body) into `out` (h.original_length bytes).
zt::Status decode_frame(std::span<const uint8_t> frame, const FrameHeader& h, std::span<uint8_t> out,
                        unsigned threads);

}  // namespace z4ai::detail
