// Opening each format from a file open_source has already mapped (it maps
// once to sniff the format). `copy_on_read` makes every read a pread copy
// (file_bytes.h): open_source asks for it with verify_on_read, as every
// conversion does. The public open_*(path) functions map the file and call
// these with copy_on_read false. Errors: each format's open errors, with the
// path named.
#pragma once

#include <memory>
#include <string>

#include "ztensor/gguf.h"
#include "common/mapped_file.h"
#include "ztensor/numpy_format.h"
#include "ztensor/pytorch_format.h"
#include "ztensor/source.h"

namespace zt {

Result<std::unique_ptr<TensorSource>> open_gguf_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read,
                                                       const GgufOptions& options = {});
Result<std::unique_ptr<TensorSource>> open_npy_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read);
Result<std::unique_ptr<TensorSource>> open_npz_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read,
                                                      const NpzOptions& options = {});
Result<std::unique_ptr<TensorSource>> open_pytorch_mapped(
    std::shared_ptr<const MappedFile> file, bool copy_on_read,
    const PytorchOptions& options = pytorch_options_from_environment());
// External data files named by the model are read the same way.
Result<std::unique_ptr<TensorSource>> open_onnx_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read);

}  // namespace zt
