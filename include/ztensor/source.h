// One read interface over every weight format zTensor understands. A
// TensorSource presents a file's tensors as v1.2 objects (a Manifest) and
// hands out each component's decoded little-endian bytes, zero-copy where
// the source allows. zt::Reader is one; the parsers of safetensors, GGUF,
// NumPy, PyTorch and ONNX files are the others. All const methods are safe
// to call from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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
  // read_component, decoding on at most `threads` threads (0 = all cores);
  // read_components passes each component its share of the batch's threads.
  // Sources that do not decode in parallel keep this default.
  virtual Result<ComponentBytes> read_component_with_threads(const Object& object, std::string_view role,
                                                             unsigned threads) const;
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
  // A hint that the component is read soon: a .zt, remote or on disk, starts
  // reading its stored bytes now (read_components calls it one component
  // ahead, so the link or the disk works while the cores decode). Sources
  // that cannot read ahead keep this default, which does nothing.
  virtual void prefetch(const Object& object, std::string_view role) const {
    (void)object;
    (void)role;
  }
};

// One component of a batch read.
struct ComponentRef {
  const Object* object;
  std::string_view role;
};

// Reads (fetches and decodes) every component of `refs` on up to `threads`
// threads (0 = all cores), the largest stored components first so a big one
// does not start last. Remote sources fetch the next components while others
// decode. Each result is what read_component returns for it, in `refs`'
// order, whatever the thread count. On any error, the error of the lowest
// failing index (naming its object) and no results; the remaining reads are
// skipped.
Result<std::vector<ComponentBytes>> read_components(const TensorSource& source, std::span<const ComponentRef> refs,
                                                    unsigned threads = 0);

// Components read_components has finished reading in this process. Tests
// watch it advance while one worker is held at the pause point
// "read_components:read" (ztensor/test_pause.h) to see the reads run in
// parallel without timing them.
uint64_t batch_components_read();

}  // namespace zt
