// Byte order and memory order conversions of .npy data.
#include "convert/numpy/npy_array.h"

#include <cstring>
#include <vector>

#include "common/byteswap.h"
#include "convert/indexed_source.h"

namespace zt::npy {
namespace {

// Fortran and C order coincide when at most one dimension exceeds 1.
bool layout_is_c(const Header& h) {
  if (!h.fortran_order) return true;
  int big = 0;
  for (uint64_t d : h.shape) big += d > 1;
  return big <= 1;
}

// Column-major -> row-major: walk the output in C order while tracking the
// source offset with per-axis Fortran strides.
void transpose(const Header& h, const uint8_t* src, uint8_t* dst) {
  const size_t rank = h.shape.size();
  const uint64_t w = h.item_bytes;
  std::vector<uint64_t> stride(rank), idx(rank, 0);
  uint64_t s = w;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= h.shape[k];
  }
  const uint64_t n = h.data_bytes / w;
  uint64_t off = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * w, src + off, w);
    for (size_t k = rank; k-- > 0;) {  // increment the C-order index, last axis fastest
      if (++idx[k] < h.shape[k]) {
        off += stride[k];
        break;
      }
      off -= stride[k] * (h.shape[k] - 1);
      idx[k] = 0;
    }
  }
}

}  // namespace

Object dense_object(const std::string& name, const Header& h, uint64_t offset) {
  return zt::dense_object(name, h.shape, h.dtype, h.type, offset, h.data_bytes);
}

ComponentBytes to_c_order_le(const Header& h, std::span<const uint8_t> data, std::shared_ptr<const void> owner) {
  ComponentBytes out;
  if (!h.big_endian && layout_is_c(h)) {
    out.bytes = data;
    out.owner = std::move(owner);
    out.zero_copy = true;
    return out;
  }
  auto buf = std::make_shared<std::vector<uint8_t>>(data.size());
  if (layout_is_c(h)) {
    if (!data.empty()) std::memcpy(buf->data(), data.data(), data.size());
  } else if (!data.empty()) {
    transpose(h, data.data(), buf->data());
  }
  if (h.big_endian) byteswap_elements(buf->data(), buf->size(), h.swap_width);
  out.bytes = *buf;
  out.owner = std::move(buf);
  return out;
}

Result<ComponentBytes> read_c_order_le(const Header& h, std::span<const uint8_t> data,
                                       std::shared_ptr<const void> owner, const FileByteAccess& access) {
  if (!h.big_endian && layout_is_c(h)) return access.read(data, std::move(owner));
  ZT_ASSIGN_OR_RETURN(ComponentBytes raw, access.read_to_decode(data, std::move(owner)));
  return to_c_order_le(h, raw.bytes, raw.owner);  // a fresh buffer: never zero-copy
}

}  // namespace zt::npy
