// Reading PyTorch checkpoints (torch.save zip files: .pt, .pth, .bin) as
// zTensor objects, through a restricted unpickler that executes nothing.
//
// The pickle in <archive>/data.pkl is run by a small stack machine that knows
// only the opcodes plain containers need (protocols 2-5) and an allowlist of
// globals: collections.OrderedDict, torch._utils._rebuild_tensor{,_v2,_v3},
// _rebuild_parameter{,_with_state}, torch._tensor._rebuild_from_type_v2, the
// torch.<T>Storage classes, torch.storage.UntypedStorage and torch dtypes.
// Any other global is refused with `unsupported` naming it ("refused global
// 'os.system'") before anything could be called. No Python is involved.
//
// Each tensor becomes a `dense` object with one `data` component; nested
// dicts/lists are flattened with "." ({'model': {'w': t}} -> "model.w"), and
// simple non-tensor leaves (numbers, strings, bools, None, lists of those)
// become file attributes under their flattened name. Contiguous
// little-endian tensors are zero-copy views into the mapped file; strided
// views are gathered into a copy. docs/formats/pytorch.md has the details.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ztensor/dtype.h"
#include "ztensor/source.h"
#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt {

// One tensor as the pickle describes it (before the zip is consulted).
struct TorchTensorRef {
  std::string name;          // flattened name ("model.layers.0.weight")
  std::string storage_key;   // <archive>/data/<storage_key>
  std::string torch_dtype;   // "float32", "bfloat16", "float8_e4m3fn", ...
  DType dtype = DType::u8;   // zTensor storage dtype
  LogicalType type = LogicalType::none;
  uint64_t element_bytes = 0;        // bytes per logical element
  uint64_t storage_offset = 0;       // in elements of this tensor's dtype
  uint64_t storage_bytes = 0;        // storage size the pickle declares
  std::vector<uint64_t> shape;
  std::vector<uint64_t> stride;      // in elements
  // torch's lazy view bits (x.conj(), torch._neg_view): the storage holds the
  // values before the view; reading applies the bits as torch.load does.
  bool conj = false;
  bool neg = false;
};

struct UnpickledCheckpoint {
  std::vector<TorchTensorRef> tensors;  // pickle order
  Value attributes;                     // map of flattened non-tensor leaves
};

// Runs `pickle` through the restricted machine and flattens the result.
// Errors: unsupported (a refused global or opcode, legacy formats, a dtype
// zTensor cannot hold), malformed_manifest (truncated pickle, stack
// underflow, wrong argument shapes), limit_exceeded (memo, stack, object or
// nesting caps), invalid_structure (two leaves flatten to one name, negative
// sizes/strides). Nothing in the pickle is ever executed.
Result<UnpickledCheckpoint> unpickle_restricted(std::span<const uint8_t> pickle);

// The tensors of a checkpoint may decode to at most kMaxPytorchExpansion
// times the file's bytes, plus kPytorchExpansionSlack. A view that repeats
// its storage (expand(), stride 0) is materialised in full on read, where
// torch keeps it at its storage's size: without a bound, 617 bytes can
// claim gigabytes. Checked on open (limit_exceeded, naming the tensor that
// crosses it); ordinary checkpoints, tied weights included, stay far below.
inline constexpr uint64_t kMaxPytorchExpansion = 16;
inline constexpr uint64_t kPytorchExpansionSlack = uint64_t{1} << 20;
// The opt-in past the bound for every front end (zt, Python, C): a ratio
// in decimal, or 0 for none, e.g. ZT_PYTORCH_MAX_EXPANSION=0.
inline constexpr const char* kPytorchMaxExpansionEnv = "ZT_PYTORCH_MAX_EXPANSION";

struct PytorchOptions {
  uint64_t max_expansion = kMaxPytorchExpansion;  // 0: no bound
};
// The defaults, with max_expansion from $ZT_PYTORCH_MAX_EXPANSION when it
// holds a decimal number.
PytorchOptions pytorch_options_from_environment();

// Maps and opens a torch.save zip checkpoint. Errors: io_error, bad_magic
// (not a zip; the legacy pre-1.6 format is `unsupported`), those of
// unpickle_restricted, missing_component (a storage record absent),
// offset_out_of_range (a tensor past its storage), unsupported (deflated or
// encrypted records, big-endian byteorder is accepted and swapped on read),
// limit_exceeded (the expansion bound above).
Result<std::unique_ptr<TensorSource>> open_pytorch(const std::string& path,
                                                   const PytorchOptions& options = pytorch_options_from_environment());
// Same over bytes in memory (fuzzing, tests); `owner` keeps them alive.
Result<std::unique_ptr<TensorSource>> open_pytorch_memory(
    std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
    const PytorchOptions& options = pytorch_options_from_environment());

}  // namespace zt
