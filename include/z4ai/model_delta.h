// Name-aligned deltas between .safetensors checkpoints (Z4DM frame, layout in
// docs/codec.md). Each target tensor is stored as COPY (identical to a base
// tensor), DELTA (a Z4XD frame against the base tensor of the same name,
// dtype and shape) or FULL (a standalone frame), whichever is smallest, so a
// fine-tune stores only what changed even when the tensor layout moved.
//
//   auto frame = z4ai::compress_model_delta(finetuned, base, {});
//   auto back  = z4ai::decompress_model_delta(frame.value(), base);  // == finetuned
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

namespace z4ai {

struct ModelDeltaOptions {
  int level = -1;        // zstd level 1..22 for the inner frames; -1 = codec default
  unsigned threads = 0;  // 0 = all cores; output is identical for any value
};

struct ModelDeltaInfo {
  uint64_t target_length = 0;     // bytes of the reconstructed .safetensors file
  uint64_t base_data_length = 0;  // data buffer length of the base it needs
  uint64_t base_digest = 0;       // XXH3-64 of that data buffer
};

// invalid_argument when either buffer is not a valid safetensors file.
zt::Result<std::vector<uint8_t>> compress_model_delta(std::span<const uint8_t> target_safetensors,
                                                      std::span<const uint8_t> base_safetensors,
                                                      const ModelDeltaOptions& options);

// Byte-identical target. digest_mismatch when `base_safetensors` is not the
// base the frame was made against; corrupt_stream / length_mismatch /
// limit_exceeded for malformed frames (all checked before allocating), and
// for a target over max_output.
zt::Result<std::vector<uint8_t>> decompress_model_delta(std::span<const uint8_t> frame,
                                                        std::span<const uint8_t> base_safetensors,
                                                        unsigned threads = 0,
                                                        uint64_t max_output = kNoOutputLimit);

// Same, into `out`, which must be exactly peek_model_delta()->target_length bytes.
zt::Status decompress_model_delta_into(std::span<const uint8_t> frame, std::span<const uint8_t> base_safetensors,
                                       std::span<uint8_t> out, unsigned threads = 0);

// Validates the whole frame structure and each inner frame's chunk table
// against its bytes (z4ai::peek), not the inner frames' payloads.
zt::Result<ModelDeltaInfo> peek_model_delta(std::span<const uint8_t> frame);

bool is_model_delta(std::span<const uint8_t> bytes);

// One piece of a model delta's target, in data-buffer order: the pieces
// tile the target's data buffer.
struct ModelDeltaPiece {
  enum class Kind : uint8_t { copy, delta, full };
  std::string name;     // the tensor; "" for bytes between tensors
  Kind kind = Kind::full;
  uint64_t length = 0;  // bytes it decodes to
  uint64_t stored = 0;  // bytes of its inner frame (0 for copy)
};

// What a model delta frame holds, for tools that list it (`zt info`, `zt verify`).
struct ModelDeltaContents {
  unsigned version = 0;
  std::span<const uint8_t> header;  // the target's JSON header, a view into the frame
  uint64_t data_length = 0;         // bytes of the target's data buffer
  uint64_t base_data_length = 0;    // of the base it needs (0 in the PyPI layout)
  // XXH3-64 of the base's data buffer; in the PyPI layout the first 8 bytes
  // of a BLAKE2b of it, big-endian.
  uint64_t base_digest = 0;
  bool pypi_layout = false;  // written by PyPI z4ai 0.x: decoded, but no trailer digest
  std::vector<ModelDeltaPiece> pieces;
};

// The frame's structure, checked as peek_model_delta() checks it; no payload
// is decoded. Errors: those of peek_model_delta().
zt::Result<ModelDeltaContents> list_model_delta(std::span<const uint8_t> frame);

}  // namespace z4ai
