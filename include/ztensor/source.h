// One read interface over every weight format zTensor understands. A
// TensorSource presents a file's tensors as v1.2 objects (a Manifest) and
// hands out each component's decoded little-endian bytes, zero-copy where
// the source allows. zt::Reader is one; the parsers of safetensors, GGUF,
// NumPy, PyTorch and ONNX files are the others. All const methods are safe
// to call from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ztensor/manifest.h"
#include "ztensor/status.h"

namespace zt {

struct ComponentBytes;

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  // "zt", "safetensors", "gguf", "npy", "npz", "pytorch", "onnx".
  virtual const char* format_name() const = 0;
  virtual const Manifest& manifest() const = 0;
  // nullptr when there is no object of that name.
  virtual const Object* find(std::string_view name) const = 0;
  // Errors: not_found, and each format's decoding errors.
  virtual Result<ComponentBytes> read_component(const Object& object, std::string_view role) const = 0;
  // Bytes [offset, offset + length) of a component's decoded bytes (rows of
  // a dense tensor, for get_slice). Sources holding the component stored
  // as-is read only that range (a view locally, one range request remotely);
  // this default decodes the whole component and returns a view of the
  // range. Errors: offset_out_of_range, and read_component's.
  virtual Result<ComponentBytes> read_component_range(const Object& object, std::string_view role, uint64_t offset,
                                                      uint64_t length) const;
  // Checks whatever integrity data the format carries (digests, CRCs);
  // ok when it carries none.
  virtual Status verify() const = 0;
  // The shard files behind a sharded index, in index order; empty for a
  // source that is one file.
  virtual std::vector<std::string> shard_paths() const { return {}; }
  // Bytes of the file behind the source, summed over every shard of an
  // index; 0 when the source does not know it.
  virtual uint64_t file_size() const { return 0; }
};

}  // namespace zt
