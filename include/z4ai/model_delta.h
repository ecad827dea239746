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
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"
#include "ztensor/export.h"

ZT_API_BEGIN
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

}  // namespace z4ai
ZT_API_END
