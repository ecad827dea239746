// ZSTN v3: a .safetensors checkpoint with every tensor compressed by z4ai,
// plus a tensor index and a 20-byte footer so one tensor can be read without
// touching the others (layout in docs/codec.md and the z4ai API reference).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai::zstn {

inline constexpr uint8_t kVersion = 3;
inline constexpr size_t kFooterBytes = 20;  // u64 index_offset, u64 index_len, "ZSTN"

// Progress of a long call: bytes done so far of `total`.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

struct Options {
  int level = -1;         // zstd level for the inner frames (-1 = default)
  unsigned threads = 0;   // threads inside one tensor's frame (0 = all cores)
  unsigned workers = 0;   // tensors compressed concurrently (0 = all cores)
  Effort effort = Effort::fast;
  // Called on the writing thread after each tensor's frame is written, with
  // the safetensors data bytes done so far and in all (tied copies count as
  // done at once), so a caller can show a percentage. Empty: not called.
  ProgressFn progress;
};

// invalid_argument when `safetensors` is not a valid safetensors buffer.
zt::Result<std::vector<uint8_t>> compress(std::span<const uint8_t> safetensors, const Options& options);

// Receives a container's bytes in file order; an error stops the writer.
using ByteSink = std::function<zt::Status(std::span<const uint8_t> bytes)>;

// compress() handing the container to `sink` piece by piece: only one window
// of tensors' frames (a few per worker, about 64 MiB of input) is in memory
// at a time. The bytes are exactly compress()'s.
zt::Status compress_to(std::span<const uint8_t> safetensors, const Options& options, const ByteSink& sink);

// Byte-identical safetensors buffer; corrupt_stream / length_mismatch /
// digest_mismatch for malformed containers.
zt::Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> zstn, unsigned workers = 0);

// The file forms, in bounded memory: IN is read with positional reads
// (pread), OUT is written atomically, and at most one window of tensors is
// held at a time, so peak memory does not grow with the model. A file
// truncated or changed under a read gives length_mismatch (compress_file:
// io_error, its input), never SIGBUS.
// A container holding one opaque frame (a safetensors data buffer with
// gaps) is decoded whole. verify_file decodes and checks every frame
// without writing anything.
struct FileStats {
  uint64_t input_bytes = 0, output_bytes = 0;
  uint64_t tensors = 0;  // tensors in the safetensors header
};
zt::Result<FileStats> compress_file(const std::string& in_path, const std::string& out_path, const Options& options);
// `progress` (decompress_file, verify_file) sees the decoded safetensors
// bytes so far of the original file's size.
zt::Result<FileStats> decompress_file(const std::string& in_path, const std::string& out_path, unsigned workers = 0,
                                      const ProgressFn& progress = {});
zt::Result<FileStats> verify_file(const std::string& in_path, unsigned workers = 0, const ProgressFn& progress = {});

enum class EntryKind : uint8_t { frame = 0, ref = 1 };

struct IndexEntry {
  std::string name;
  uint64_t dest_begin = 0, dest_end = 0;  // span in the original data buffer
  EntryKind kind = EntryKind::frame;
  uint64_t frame_offset = 0, frame_len = 0;  // absolute in the file (frame)
  uint32_t ref_index = 0;                    // earlier FRAME entry (ref)
};

struct Prefix {
  bool contiguous = false;
  uint64_t header_offset = 0, header_len = 0;  // the verbatim JSON header
  uint64_t data_len = 0;
  uint64_t body_offset = 0;  // first byte after data_len
};

// Parses magic, version, flag, header length and data_len from the first
// bytes of a container (at least 14 + header_len + 8 bytes, or fewer to
// learn how many are needed: length_mismatch names the count).
zt::Result<Prefix> parse_prefix(std::span<const uint8_t> head);

// The number of bytes parse_prefix needs, from the first 14 of a container.
// Errors: bad_magic, length_mismatch (fewer than 14 bytes), limit_exceeded.
zt::Result<uint64_t> prefix_length(std::span<const uint8_t> head);

// Where the index of a contiguous container lies, from its last kFooterBytes
// bytes (`footer`) in a container of `size` bytes whose frames start at
// `body_offset`. Errors: corrupt_stream (too short, sentinel missing, the
// index not between the frames and the footer).
struct Footer {
  uint64_t index_offset = 0, index_len = 0;
};
zt::Result<Footer> parse_footer(std::span<const uint8_t> footer, uint64_t size, uint64_t body_offset);

// Parses and validates an index section: entries tile [0, data_len) in order,
// frames lie inside [frames_begin, frames_end), refs point to earlier frames
// of the same length.
zt::Result<std::vector<IndexEntry>> parse_index(std::span<const uint8_t> index, uint64_t data_len,
                                                uint64_t frames_begin, uint64_t frames_end);

bool is_zstn(std::span<const uint8_t> bytes);

}  // namespace z4ai::zstn
