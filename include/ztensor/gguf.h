// Reading GGUF files (llama.cpp / ggml, versions 2 and 3) as zTensor objects.
//
// Every GGUF metadata key/value becomes a file attribute under the same key.
// F32/F16/BF16/F64/I8/I16/I32/I64 tensors become `dense` objects whose `data`
// component is a zero-copy view of the file. Quantized tensors (Q4_0, Q8_0,
// Q4_K, IQ*, ...) become objects of the extension format "gguf_quantized"
// (docs/formats/gguf.md): one u8 component "blocks" holding the ggml blocks
// byte for byte, and attributes {ggml_type, ggml_type_id, block_size,
// type_size}. Shapes are in numpy order (ggml's dims reversed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ztensor/dtype.h"
#include "ztensor/reader.h"  // ComponentBytes
#include "ztensor/source.h"
#include "ztensor/status.h"

namespace zt {

// The object format of quantized GGUF tensors.
inline constexpr const char* kGgufQuantizedFormat = "gguf_quantized";

struct GgufOptions {
  // Tensors whose byte ranges overlap are refused unless this is set (ggml
  // itself lays tensors out back to back; an overlap is a crafted file).
  bool allow_overlapping_tensors = false;
};

// One row of ggml's type table.
struct GgmlTypeInfo {
  uint32_t id;              // ggml_type value as stored in the file
  const char* name;         // "Q4_K", "F16", ...
  uint32_t block_size;      // elements per block (1 for plain types)
  uint32_t type_size;       // bytes per block
  std::optional<DType> dense;  // storage dtype when the type is not quantized
  bool dequantizable;       // gguf_dequantize supports it
};

// nullptr for ids this reader does not know (removed Q4_2/Q4_3, future types).
const GgmlTypeInfo* ggml_type_info(uint32_t id);

// Maps and validates a GGUF file. Errors: io_error, bad_magic, unsupported
// (version 1 or > 3), malformed_manifest (lengths/counts that run past the
// data, unknown value types, bad UTF-8 keys), limit_exceeded (n_dims > 4,
// array nesting), invalid_structure (duplicate key or tensor name, bad
// alignment, overlaps, rows not a multiple of the block size), unknown_dtype,
// shape_overflow, misaligned_offset, offset_out_of_range.
Result<std::unique_ptr<TensorSource>> open_gguf(const std::string& path, const GgufOptions& options = {});
// Over positional reads (a URL): the header now (in growing prefixes), each
// tensor when it is read. Errors: those above, limit_exceeded (a header over
// 1 GiB), and the source's read errors.
Result<std::unique_ptr<TensorSource>> open_gguf(std::shared_ptr<const ByteSource> source,
                                                const GgufOptions& options = {});
// Same over bytes in memory; `owner` keeps them alive (may be null).
Result<std::unique_ptr<TensorSource>> open_gguf_memory(std::span<const uint8_t> bytes,
                                                       std::shared_ptr<const void> owner,
                                                       const GgufOptions& options = {});

// Dequantizes `n_elements` values of ggml type `ggml_type` from `blocks` to
// f32, bit for bit as gguf-py's numpy dequantizer computes them. Supported:
// F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K,
// Q8_K. Errors: unknown_dtype, unsupported (known type without a
// dequantizer), length_mismatch (n_elements not whole blocks, or `blocks`
// not exactly that many blocks).
Result<std::vector<float>> gguf_dequantize(uint32_t ggml_type, std::span<const uint8_t> blocks, uint64_t n_elements);

// Dequantizes one object of a GGUF source (a gguf_quantized object, or a
// dense f32/f16/bf16 one) to f32 in numpy order.
// Errors: those of read_component and gguf_dequantize, unknown_format.
Result<std::vector<float>> gguf_dequantize_object(const TensorSource& source, const Object& object);

}  // namespace zt
