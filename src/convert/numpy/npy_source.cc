// A single .npy file as a TensorSource with one dense object.
#include <algorithm>
#include <filesystem>
#include <vector>

#include "convert/path_open.h"
#include "common/mapped_file.h"
#include "convert/indexed_source.h"
#include "convert/mapped_open.h"
#include "convert/numpy/npy_array.h"
#include "ztensor/numpy_format.h"

namespace zt {
namespace {

class NpySource final : public IndexedSource {
 public:
  // `source` set: the data is read from it when asked (`data` is empty).
  NpySource(std::span<const uint8_t> data, std::shared_ptr<const void> owner, npy::Header h, const std::string& name,
            std::shared_ptr<const ByteSource> source = nullptr, FileByteAccess access = {})
      : IndexedSource("npy:", Miss::joined), data_(data), owner_(std::move(owner)), header_(std::move(h)),
        source_(std::move(source)), access_(std::move(access)) {
    manifest_.version = "1.2.0";
    add_object(npy::dense_object(name, header_, header_.data_offset));
  }
  const char* format_name() const override { return "npy"; }
  Result<ComponentBytes> read_data(size_t, const Object&) const override {
    if (!source_) return npy::read_c_order_le(header_, data_, owner_, access_);
    if (header_.data_bytes > SIZE_MAX)
      return Status(ErrorCode::limit_exceeded, "npy '" + source_->name() + "': data does not fit in memory");
    auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(header_.data_bytes));
    ZT_RETURN_IF_ERROR(source_->read_at(header_.data_offset, *owned));
    std::span<const uint8_t> data(owned->data(), owned->size());
    return npy::to_c_order_le(header_, data, std::move(owned));
  }
  Status verify() const override { return Status::Ok(); }  // .npy carries no checksum

 private:
  std::span<const uint8_t> data_;
  std::shared_ptr<const void> owner_;
  npy::Header header_;
  std::shared_ptr<const ByteSource> source_;
  FileByteAccess access_;
};

// The header checks of a whole .npy in `bytes`.
Result<npy::Header> parse_whole(std::span<const uint8_t> bytes, const std::string& name) {
  ZT_ASSIGN_OR_RETURN(npy::Header h, npy::parse_header(bytes, "npy '" + name + "'"));
  const uint64_t have = bytes.size() - h.data_offset;
  if (have != h.data_bytes)
    return Status(ErrorCode::length_mismatch, "npy '" + name + "': shape needs " + std::to_string(h.data_bytes) +
                                                  " data bytes but the file holds " + std::to_string(have));
  return h;
}

}  // namespace

// The magic, version and header (at most numpy's header cap) now, the data
// when it is read.
Result<std::unique_ptr<TensorSource>> open_npy(std::shared_ptr<const ByteSource> source) {
  if (!source) return Status(ErrorCode::invalid_argument, "open_npy: null ByteSource");
  const std::string name = std::filesystem::path(source->name()).stem().string();
  const std::string what = "npy '" + source->name() + "'";
  std::vector<uint8_t> prefix(static_cast<size_t>(std::min(source->size(), npy::kMaxPrefixBytes)));
  ZT_RETURN_IF_ERROR(source->read_at(0, prefix));
  ZT_ASSIGN_OR_RETURN(npy::Header h, npy::parse_header(prefix, what));
  const uint64_t have = source->size() - h.data_offset;
  if (have != h.data_bytes)
    return Status(ErrorCode::length_mismatch, what + ": shape needs " + std::to_string(h.data_bytes) +
                                                  " data bytes but the file holds " + std::to_string(have));
  return std::unique_ptr<TensorSource>(new NpySource({}, nullptr, std::move(h), name, std::move(source)));
}

Result<std::unique_ptr<TensorSource>> open_npy_memory(std::span<const uint8_t> bytes,
                                                      std::shared_ptr<const void> owner, const std::string& name) {
  ZT_ASSIGN_OR_RETURN(npy::Header h, parse_whole(bytes, name));
  auto data = bytes.subspan(h.data_offset);
  return std::unique_ptr<TensorSource>(new NpySource(data, std::move(owner), std::move(h), name));
}

Result<std::unique_ptr<TensorSource>> open_npy_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read) {
  const std::string name = std::filesystem::path(file->path()).stem().string();
  const auto bytes = file->bytes();
  auto h = parse_whole(bytes, name);
  if (!h.ok()) return Status(h.status().code(), h.status().message() + " (in '" + file->path() + "')");
  const auto data = bytes.subspan(h.value().data_offset);
  FileByteAccess access(file, copy_on_read);
  return std::unique_ptr<TensorSource>(
      new NpySource(data, std::move(file), std::move(h).value(), name, nullptr, std::move(access)));
}

Result<std::unique_ptr<TensorSource>> open_npy(const std::string& path) {
  if (is_url_path(path)) {
    ZT_ASSIGN_OR_RETURN(auto source, open_url(path));
    return open_npy(std::move(source));
  }
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open_npy_mapped(std::move(mapped), /*copy_on_read=*/false);
}

}  // namespace zt
