// Turning .npy array data into zTensor's little-endian C-order bytes.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "convert/file_bytes.h"
#include "convert/numpy/npy_header.h"
#include "ztensor/reader.h"

namespace zt::npy {

// `data` must be exactly h.data_bytes long. Little-endian C-order data (or
// Fortran data whose layout equals C order) is returned as a view kept alive
// by `owner`; otherwise a byte-swapped and/or transposed copy.
// A `dense` object for the array: its data component sits at `offset` in
// the file (for information) and holds h.data_bytes decoded bytes.
Object dense_object(const std::string& name, const Header& h, uint64_t offset);

ComponentBytes to_c_order_le(const Header& h, std::span<const uint8_t> data, std::shared_ptr<const void> owner);
// to_c_order_le over bytes of a mapped file: a view through `access`, or
// the bytes read with pread first when they must be converted.
// Errors: those of FileByteAccess.
Result<ComponentBytes> read_c_order_le(const Header& h, std::span<const uint8_t> data,
                                       std::shared_ptr<const void> owner, const FileByteAccess& access);

}  // namespace zt::npy
