// z4ai: lossless compression for model weights (see docs/codec.md for the
// frame layouts). Every function returns zt::Status / zt::Result and never
// throws or aborts on malformed frames.
//
//   auto frame = z4ai::compress(bytes, {.dtype = "bf16"});
//   auto back  = z4ai::decompress(frame.value());
//
// Output is byte-identical for any `threads` value: chunk boundaries are fixed
// by the frame, threads only share out the chunks.
//
// compress, decompress, decompress_into and peek (ZT_API) are exported by
// libztensor.so as well; the rest of this header is for programs that link
// the static library (docs/architecture.md, "ABI").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ztensor/export.h"
#include "ztensor/status.h"

namespace z4ai {

// Element type codes stored in the frame header (append, never renumber).
enum class DType : uint8_t {
  opaque = 0,
  bf16 = 1,
  fp16 = 2,
  fp32 = 3,
  fp64 = 4,
  f8_e4m3fn = 5,
  f8_e5m2 = 6,
  f8_e4m3fnuz = 7,
  f8_e5m2fnuz = 8,
  int8 = 9,
  uint8 = 10,
  int16 = 11,
  uint16 = 12,
  int32 = 13,
  uint32 = 14,
  int64 = 15,
  uint64 = 16,
  boolean = 17,
};
inline constexpr uint8_t kDTypeCount = 18;

// Parses a dtype name or alias ("bf16", "bfloat16", "float32", "f32",
// "fp8_e4m3", "raw", ...). "" means opaque. invalid_argument if unknown.
zt::Result<DType> parse_dtype(std::string_view name);
// Canonical name ("bf16"; "" for opaque).
const char* dtype_name(DType dtype);
// Bytes per element (1 for opaque and the fp8 types).
uint32_t dtype_width(DType dtype);
// Width of a dtype given by name; invalid_argument if the name is unknown.
zt::Result<uint32_t> dtype_width(std::string_view name);

enum class Effort : uint8_t {
  fast = 0,      // Z4AI frame: multi-GB/s decode
  balanced = 1,  // ZARA frame: every fast-decoding coder (rANS o0/o1, blocked and segmented rANS, zstd-9)
  max = 2,       // ZARA frame: balanced + order-1 rANS blocks, zstd-19; never larger than balanced/fast
};
zt::Result<Effort> parse_effort(std::string_view name);  // "", "fast", "balanced", "max"

struct CompressOptions {
  std::string dtype;            // "" = opaque bytes
  int level = -1;               // zstd level 1..22; -1 = codec default
  unsigned threads = 0;         // 0 = all cores
  bool auto_select = true;      // also try plain zstd / byte planes / sparse
  Effort effort = Effort::fast;
};

enum class FrameKind : uint8_t { z4ai, zara, chunked, delta };

struct FrameInfo {
  FrameKind kind;
  DType dtype;             // opaque for chunked/delta frames
  uint64_t original_length;
  bool pypi_layout = false;  // written by PyPI z4ai 0.x (decode only)
};

// Hard cap on a frame's declared decoded size (1 TiB).
inline constexpr uint64_t kMaxFrameOriginalBytes = uint64_t{1} << 40;

// Compresses `data` into a Z4AI (effort fast) or ZARA frame.
// invalid_argument for an unknown dtype or a bad level; limit_exceeded when
// data is larger than kMaxFrameOriginalBytes.
ZT_API zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> data, const CompressOptions& options);

// Where compress_to() writes a frame: front to back while the chunks are
// coded, the header patched in place through data() once they all are. No
// second copy of the frame is ever held, so a caller's buffer (the Python
// binding's bytes object) is the only one. reserve() is a hint given before
// coding (capacity never written costs no memory); append() grows the buffer
// as needed and returns false when it cannot (limit_exceeded).
class FrameBuffer {
 public:
  virtual ~FrameBuffer() = default;
  virtual void reserve(size_t bytes) = 0;
  virtual bool append(std::span<const uint8_t> bytes) = 0;
  // The bytes appended so far; valid until the next append().
  virtual uint8_t* data() = 0;
  virtual size_t size() const = 0;
  // Back to no bytes (a smaller candidate frame replaces the one written).
  virtual void clear() = 0;
};

// Same as compress() but the frame goes to `out` (cleared first).
zt::Status compress_to(std::span<const uint8_t> data, const CompressOptions& options, FrameBuffer& out);

// A caller's cap on the decoded size one call may allocate (bytes-in /
// bytes-out calls take it like zlib's max_length); the default is only the
// frame limit above.
inline constexpr uint64_t kNoOutputLimit = kMaxFrameOriginalBytes;

// limit_exceeded naming `what`, the declared size and the cap when
// `declared` is over `max_output`; checked before anything is allocated.
zt::Status check_max_output(std::string_view what, uint64_t declared, uint64_t max_output);

// Decodes a Z4AI or ZARA frame. corrupt_stream / length_mismatch /
// limit_exceeded for malformed frames (the chunk table, every chunk's stream
// table and the declared length are checked against the stored bytes before
// the output is allocated), limit_exceeded for a declared length over `max_output`,
// digest_mismatch when the decoded bytes do not hash to the stored XXH3-64.
ZT_API zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> frame, unsigned threads = 0,
                                                   uint64_t max_output = kNoOutputLimit);

// Same as decompress() but writes into `out`, which must be exactly
// peek(frame)->original_length bytes (length_mismatch otherwise).
ZT_API zt::Status decompress_into(std::span<const uint8_t> frame, std::span<uint8_t> out, unsigned threads = 0);

// Reads the header of any z4ai frame (Z4AI, ZARA, Z4AIMF01, delta) and
// checks its chunk table (Z4AI, ZARA: and every chunk's stream table)
// against the bytes it holds, without decoding: a caller may allocate
// original_length bytes once it succeeds. bad_magic if it
// is none of them.
ZT_API zt::Result<FrameInfo> peek(std::span<const uint8_t> frame);

// True if `bytes` starts with the magic of any z4ai frame.
bool is_z4ai_frame(std::span<const uint8_t> bytes);

// True if `bytes` starts like a frame of PyPI z4ai 0.x (docs/codec.md,
// "Reading PyPI z4ai frames"): decoded, but it carries no checksum.
bool is_pypi_z4ai_frame(std::span<const uint8_t> bytes);

}  // namespace z4ai
