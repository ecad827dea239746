// torch tensors over a local .zt file without a copy: one copy-on-write
// mapping of the inode the reader validated, made on first use and shared
// by every torch view the reader hands out (load_file, get_slice), as
// safetensors shares one per safe_open. torch cannot view the read-only
// mapping numpy views; this one is writable and writes never reach the file.
#pragma once

#include <cstdint>

#include <nanobind/nanobind.h>

#include "py_reader.h"

namespace ztpy {

// The whole file as a torch uint8 tensor; None when the reader is not over a
// mapped .zt file. Raises when the reader is closed or the mapping fails.
nanobind::object torch_file_bytes(PyReader& reader);

// The file's first size / item * item bytes as a flat torch tensor of
// `torch_dtype` (cached per dtype); None as torch_file_bytes. Element i of
// it starts at byte i * item of the file.
nanobind::object torch_file_elements(PyReader& reader, nanobind::handle torch_dtype, int64_t item);

}  // namespace ztpy
