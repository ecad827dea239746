// A single .npy file as a TensorSource with one dense object.
#include <filesystem>

#include "ztensor/mapped_file.h"
#include "convert/indexed_source.h"
#include "convert/numpy/npy_array.h"
#include "ztensor/numpy_format.h"

namespace zt {
namespace {

class NpySource final : public IndexedSource {
 public:
  NpySource(std::span<const uint8_t> data, std::shared_ptr<const void> owner, npy::Header h, const std::string& name)
      : IndexedSource("npy:", Miss::joined), data_(data), owner_(std::move(owner)), header_(std::move(h)) {
    manifest_.version = "1.2.0";
    add_object(npy::dense_object(name, header_, header_.data_offset));
  }
  const char* format_name() const override { return "npy"; }
  Result<ComponentBytes> read_data(size_t, const Object&) const override {
    return npy::to_c_order_le(header_, data_, owner_);
  }
  Status verify() const override { return Status::Ok(); }  // .npy carries no checksum

 private:
  std::span<const uint8_t> data_;
  std::shared_ptr<const void> owner_;
  npy::Header header_;
};

}  // namespace

Result<std::unique_ptr<TensorSource>> open_npy_memory(std::span<const uint8_t> bytes,
                                                      std::shared_ptr<const void> owner, const std::string& name) {
  ZT_ASSIGN_OR_RETURN(npy::Header h, npy::parse_header(bytes, "npy '" + name + "'"));
  const uint64_t have = bytes.size() - h.data_offset;
  if (have != h.data_bytes)
    return Status(ErrorCode::length_mismatch, "npy '" + name + "': shape needs " + std::to_string(h.data_bytes) +
                                                  " data bytes but the file holds " + std::to_string(have));
  auto data = bytes.subspan(h.data_offset);
  return std::unique_ptr<TensorSource>(new NpySource(data, std::move(owner), std::move(h), name));
}

Result<std::unique_ptr<TensorSource>> open_npy(const std::string& path) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  auto bytes = mapped->bytes();
  auto r = open_npy_memory(bytes, std::move(mapped), std::filesystem::path(path).stem().string());
  if (!r.ok()) return Status(r.status().code(), r.status().message() + " (in '" + path + "')");
  return r;
}

}  // namespace zt
