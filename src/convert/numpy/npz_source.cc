// A .npz archive as a TensorSource: one dense object per `<name>.npy`
// member. Stored members are views of the file; deflated ones are inflated
// on read into a buffer of exactly their declared size.

#include <algorithm>

#include "container/validate.h"
#include "common/checked_math.h"
#include "common/mapped_file.h"
#include "convert/file_bytes.h"
#include "convert/indexed_source.h"
#include "convert/mapped_open.h"
#include "convert/zip/inflate.h"
#include "convert/numpy/npy_array.h"
#include "convert/zip/zip_reader.h"
#include "ztensor/numpy_format.h"

namespace zt {
namespace {

// zlib FAQ: "the limit on deflate's compression ratio is 1032:1"; a member
// declaring more is lying about its size (a zip bomb's tell). The slack
// covers block headers of tiny members.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr uint64_t kDeflateRatioSlack = 1024;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Entry {
  zip::Member member;
  npy::Header header;
  Status refusal;  // a member numpy holds but zTensor cannot (object, string dtypes)
};

// A member whose dtype is refused still appears, with its shape and numpy
// descr, so the archive opens and the other members read; reading it gives
// the refusal (np.load behaves the same way for object arrays).
Object refused_object(const std::string& name, const npy::Header& literal, const Status& why) {
  Object o = dense_object(name, literal.shape, DType::u8, LogicalType::none, 0, 0);
  Value attrs = Value::map();
  attrs.set("npy_descr", Value::text(literal.descr));
  attrs.set("refused", Value::text(why.message()));
  o.attributes = std::move(attrs);
  return o;
}

class NpzSource final : public IndexedSource {
 public:
  NpzSource(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner, FileByteAccess access = {})
      : IndexedSource("npz:", Miss::joined), bytes_(bytes), owner_(std::move(owner)), access_(std::move(access)) {
    manifest_.version = "1.2.0";
  }

  Status load(const NpzOptions& options) {
    ZT_ASSIGN_OR_RETURN(std::vector<zip::Member> members, zip::read_central_directory(bytes_));
    uint64_t total = 0;
    for (auto& m : members) {
      if (ends_with(m.name, "/") && m.uncompressed_size == 0) continue;  // directory entry
      if (!ends_with(m.name, ".npy") || m.name.size() == 4)
        return Status(ErrorCode::unsupported, "npz member '" + m.name + "' is not a <name>.npy array");
      const std::string what = "npz member '" + m.name + "'";
      if (m.uncompressed_size > options.max_member_bytes)
        return Status(ErrorCode::limit_exceeded, what + " declares " + std::to_string(m.uncompressed_size) +
                                                     " bytes, over the per-member cap of " +
                                                     std::to_string(options.max_member_bytes));
      total += m.uncompressed_size;  // each term is capped, so no overflow for sane caps
      if (total > options.max_total_bytes)
        return Status(ErrorCode::limit_exceeded, what + ": archive declares more than the total cap of " +
                                                     std::to_string(options.max_total_bytes) + " bytes");
      // compressed_size lies inside the file, so the product cannot overflow.
      if (m.method == zip::kDeflated &&
          m.uncompressed_size > m.compressed_size * kMaxDeflateRatio + kDeflateRatioSlack)
        return Status(ErrorCode::limit_exceeded, what + " declares " + std::to_string(m.uncompressed_size) +
                                                     " bytes from " + std::to_string(m.compressed_size) +
                                                     " compressed: beyond deflate's 1032:1 maximum ratio");
      std::string name = m.name.substr(0, m.name.size() - 4);
      ZT_RETURN_IF_ERROR(check_name(name, "npz member"));
      if (contains(name))
        return Status(ErrorCode::invalid_structure, "npz archive holds '" + name + "' more than once");
      npy::Header literal;
      auto parsed = member_header(m, what, &literal);
      if (!parsed.ok() && parsed.status().code() == ErrorCode::unsupported) {
        add_object(refused_object(name, literal, parsed.status()));
        entries_.push_back({std::move(m), std::move(literal), parsed.status()});
        continue;
      }
      ZT_ASSIGN_OR_RETURN(npy::Header h, std::move(parsed));
      if (h.data_offset + h.data_bytes != m.uncompressed_size)  // both bounded above: no overflow
        return Status(ErrorCode::length_mismatch, what + ": the .npy header implies " +
                                                      std::to_string(h.data_offset + h.data_bytes) +
                                                      " bytes but the archive declares " +
                                                      std::to_string(m.uncompressed_size));
      const uint64_t offset = m.method == zip::kStored ? m.data_offset + h.data_offset : m.data_offset;
      add_object(npy::dense_object(name, h, offset));
      entries_.push_back({std::move(m), std::move(h), {}});
    }
    return Status::Ok();
  }

  const char* format_name() const override { return "npz"; }
  Result<ComponentBytes> read_data(size_t slot, const Object&) const override {
    const Entry& e = entries_[slot];
    if (!e.refusal.ok()) return e.refusal;
    if (e.member.method == zip::kStored)
      return npy::read_c_order_le(e.header, stored(e.member).subspan(e.header.data_offset), owner_, access_);
    ZT_ASSIGN_OR_RETURN(auto buf, inflate_member(e.member));
    std::span<const uint8_t> data = std::span<const uint8_t>(*buf).subspan(e.header.data_offset);
    ComponentBytes out = npy::to_c_order_le(e.header, data, buf);
    out.zero_copy = false;  // a decoded buffer, not a view of the file
    return out;
  }
  // Checks every member's CRC-32 (stored ones read in place).
  Status verify() const override {
    for (const auto& e : entries_) {
      if (e.member.method == zip::kStored) {
        ZT_ASSIGN_OR_RETURN(ComponentBytes bytes, access_.read_to_decode(stored(e.member), owner_));
        ZT_RETURN_IF_ERROR(check_crc(e.member, bytes.bytes));
      } else {
        ZT_ASSIGN_OR_RETURN(auto buf, inflate_member(e.member));
        (void)buf;
      }
    }
    return Status::Ok();
  }

 private:
  std::span<const uint8_t> stored(const zip::Member& m) const { return bytes_.subspan(m.data_offset, m.uncompressed_size); }
  std::span<const uint8_t> compressed(const zip::Member& m) const { return bytes_.subspan(m.data_offset, m.compressed_size); }

  Result<npy::Header> member_header(const zip::Member& m, const std::string& what, npy::Header* literal) const {
    if (m.method == zip::kStored) return npy::parse_header(stored(m), what, literal);
    std::vector<uint8_t> prefix(std::min<uint64_t>(m.uncompressed_size, npy::kMaxPrefixBytes));
    ZT_ASSIGN_OR_RETURN(uint64_t n, zip::inflate_prefix(compressed(m), prefix, what));
    prefix.resize(n);
    return npy::parse_header(prefix, what, literal);
  }

  Result<std::shared_ptr<std::vector<uint8_t>>> inflate_member(const zip::Member& m) const {
    const std::string what = "npz member '" + m.name + "'";
    ZT_ASSIGN_OR_RETURN(ComponentBytes in, access_.read_to_decode(compressed(m), owner_));
    auto buf = std::make_shared<std::vector<uint8_t>>(m.uncompressed_size);
    ZT_RETURN_IF_ERROR(zip::inflate_exact(in.bytes, *buf, what));
    ZT_RETURN_IF_ERROR(check_crc(m, *buf));
    return buf;
  }

  static Status check_crc(const zip::Member& m, std::span<const uint8_t> data) {
    const uint32_t got = zip::crc32_of(data);
    if (got != m.crc32)
      return Status(ErrorCode::digest_mismatch, "npz member '" + m.name + "': CRC-32 is " + std::to_string(got) +
                                                    ", the archive records " + std::to_string(m.crc32));
    return Status::Ok();
  }

  std::span<const uint8_t> bytes_;
  std::shared_ptr<const void> owner_;
  FileByteAccess access_;
  std::vector<Entry> entries_;  // parallel to manifest_.objects
};

}  // namespace

Result<std::unique_ptr<TensorSource>> open_npz_memory(std::span<const uint8_t> bytes,
                                                      std::shared_ptr<const void> owner, const NpzOptions& options) {
  std::unique_ptr<NpzSource> src(new NpzSource(bytes, std::move(owner)));
  ZT_RETURN_IF_ERROR(src->load(options));
  return std::unique_ptr<TensorSource>(std::move(src));
}

Result<std::unique_ptr<TensorSource>> open_npz_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read,
                                                      const NpzOptions& options) {
  const auto bytes = file->bytes();
  const std::string path = file->path();
  FileByteAccess access(file, copy_on_read);
  std::unique_ptr<NpzSource> src(new NpzSource(bytes, std::move(file), std::move(access)));
  if (Status s = src->load(options); !s.ok()) return Status(s.code(), s.message() + " (in '" + path + "')");
  return std::unique_ptr<TensorSource>(std::move(src));
}

Result<std::unique_ptr<TensorSource>> open_npz(const std::string& path, const NpzOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open_npz_mapped(std::move(mapped), /*copy_on_read=*/false, options);
}

}  // namespace zt
