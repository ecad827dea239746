// Reading the initializers (weights) of ONNX models as zTensor objects. The
// protobuf wire format is read directly; no protobuf library, no graph.
//
// Each initializer of the main graph becomes a `dense` object with one
// `data` component: raw_data is a zero-copy view of the model file, typed
// fields (float_data, int32_data, ...) are decoded on read, and external
// data is a zero-copy view of a file beside the model -- never one outside
// its folder. FLOAT8 types are u8 storage with a logical f8_* type; COMPLEX
// types f32/f64 with logical complex64/128. STRING and 4-bit types are
// refused. Model fields become file attributes: ir_version, producer_name,
// producer_version, domain, model_version, doc_string, graph_name,
// opset_import (map domain -> version; "" is "ai.onnx") and metadata_props.
// docs/formats/onnx.md has the details.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/source.h"
#include "ztensor/status.h"

namespace zt {

// Maps a .onnx model; external data is looked up beside it. Errors:
// io_error, malformed_manifest (bad varints, lengths past the message, wrong
// wire types), unsupported (groups, STRING/4-bit tensors, segments),
// unknown_dtype, shape_overflow, length_mismatch, invalid_structure
// (duplicate or missing names, data in two places, external paths leaving
// the folder), offset_out_of_range (external data past its file's end).
Result<std::unique_ptr<TensorSource>> open_onnx(const std::string& path);
// Same over bytes in memory; `owner` keeps them alive. External data is read
// from `base_dir` when given, and refused (`unsupported`) when empty.
Result<std::unique_ptr<TensorSource>> open_onnx_memory(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                                       const std::string& base_dir = "");

}  // namespace zt
