// TensorSource over a torch.save zip checkpoint: the restricted unpickler
// names the tensors, the zip index finds each storage record, and each
// tensor's byte range inside its storage is checked before it is exposed.
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "container/validate.h"
#include "common/byteswap.h"
#include "common/checked_math.h"
#include "common/mapped_file.h"
#include "convert/file_bytes.h"
#include "convert/indexed_source.h"
#include "convert/mapped_open.h"
#include "convert/pytorch/torch_view_bits.h"
#include "convert/zip/zip_reader.h"
#include "ztensor/pytorch_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

// A strided view larger than its storage (expand()) would be materialized in
// full; beyond this many bytes it is refused rather than allocated.
inline constexpr uint64_t kMaxGatheredBytes = uint64_t{1} << 34;
// Start of every legacy (pre-1.6) torch.save file: PROTO 2, LONG1 magic.
constexpr uint8_t kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

struct TensorSlot {
  TorchTensorRef ref;
  std::span<const uint8_t> storage;  // the storage's bytes as declared
  const zip::Member* member = nullptr;
  bool contiguous = true;
  uint64_t nbytes = 0;
  uint64_t reach_end = 0;  // bytes of the storage the view reaches: [storage_offset * width, reach_end)
};

bool is_contiguous(const TorchTensorRef& t) {
  uint64_t expected = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    if (t.shape[i] != 1 && t.stride[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

// Copies a strided view element by element in row-major order; `first` is
// the view's first element (at its storage offset).
void gather(const TensorSlot& s, const uint8_t* first, uint8_t* out) {
  const auto& t = s.ref;
  const uint64_t w = t.element_bytes;
  const size_t rank = t.shape.size();
  std::vector<uint64_t> idx(rank, 0);
  uint64_t n = s.nbytes / w;
  for (uint64_t e = 0; e < n; ++e) {
    uint64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += idx[d] * t.stride[d];
    std::memcpy(out + e * w, first + src * w, w);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
}

class TorchSource final : public IndexedSource {
 public:
  TorchSource() : IndexedSource("pytorch", Miss::split) {}
  const char* format_name() const override { return "pytorch"; }

  Result<ComponentBytes> read_data(size_t slot, const Object& object) const override {
    const TensorSlot& s = slots_[slot];
    ComponentBytes out;
    if (s.nbytes == 0) {  // empty tensors may name any offset; expose no bytes
      out.owner = owner_;
      out.zero_copy = true;
      return out;
    }
    const bool view_bits = has_view_bits(s.ref);
    if (view_bits) ZT_RETURN_IF_ERROR(check_view_bits(s.ref));  // refused when read; other tensors stay readable
    const size_t first = static_cast<size_t>(s.ref.storage_offset * s.ref.element_bytes);
    if (s.contiguous && !big_endian_ && !view_bits) return access_.read(s.storage.subspan(first, static_cast<size_t>(s.nbytes)), owner_);
    if (s.nbytes > kMaxGatheredBytes)
      return Status(ErrorCode::limit_exceeded, "pytorch: tensor '" + object.name + "' is a view (strided or sign-flipped) of " +
                                                   std::to_string(s.nbytes) + " bytes (copy limit " + std::to_string(kMaxGatheredBytes) + ")");
    // Only the storage bytes the view reaches, read with pread.
    ZT_ASSIGN_OR_RETURN(ComponentBytes reach,
                        access_.read_to_decode(s.storage.subspan(first, static_cast<size_t>(s.reach_end) - first), owner_));
    auto buf = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(s.nbytes));
    if (s.contiguous)
      std::memcpy(buf->data(), reach.bytes.data(), static_cast<size_t>(s.nbytes));
    else
      gather(s, reach.bytes.data(), buf->data());
    if (big_endian_) byteswap_elements(buf->data(), buf->size(), dtype_width(s.ref.dtype));
    if (view_bits) apply_view_bits(s.ref, {buf->data(), buf->size()});
    out.bytes = {buf->data(), buf->size()};
    out.owner = buf;
    return out;
  }

  Status verify() const override {
    for (const zip::Member* m : checked_members_) {
      auto stored = zip_.stored_bytes(file_, *m);
      if (!stored.ok()) return stored.status();
      ZT_ASSIGN_OR_RETURN(ComponentBytes bytes, access_.read_to_decode(*stored, owner_));
      uint32_t crc = zip::crc32_of(bytes.bytes);
      if (crc != m->crc32)
        return {ErrorCode::digest_mismatch, "pytorch: zip member '" + m->name + "' fails its CRC-32"};
    }
    return {};
  }

  static Result<std::unique_ptr<TensorSource>> load(std::span<const uint8_t> file, std::shared_ptr<const void> owner,
                                                    const PytorchOptions& options, FileByteAccess access = {});

 private:
  Status build(const UnpickledCheckpoint& ckpt, const std::string& prefix, const PytorchOptions& options);

  std::span<const uint8_t> file_;
  std::shared_ptr<const void> owner_;
  FileByteAccess access_;
  zip::Archive zip_;
  bool big_endian_ = false;
  std::vector<TensorSlot> slots_;  // parallel to manifest_.objects
  std::vector<const zip::Member*> checked_members_;
};

bool has_member_under(const zip::Archive& archive, const std::string& folder) {
  for (const auto& m : archive.members())
    if (m.name.starts_with(folder)) return true;
  return false;
}

// Checks one tensor's view against its storage record and fills the slot.
Result<TensorSlot> place(const TorchTensorRef& t, const zip::Archive& archive, std::span<const uint8_t> file, const std::string& prefix) {
  TensorSlot s;
  s.ref = t;
  const std::string where = "pytorch: tensor '" + t.name + "'";
  std::string record = prefix + "/data/" + t.storage_key;
  s.member = archive.find(record);
  if (!s.member) return Status(ErrorCode::missing_component, where + ": storage record '" + record + "' is not in the archive");
  ZT_ASSIGN_OR_RETURN(auto bytes, archive.stored_bytes(file, *s.member));
  if (t.storage_bytes > bytes.size())
    return Status(ErrorCode::length_mismatch, where + ": storage '" + t.storage_key + "' declares " + std::to_string(t.storage_bytes) +
                                                  " bytes but its record holds " + std::to_string(bytes.size()));
  s.storage = bytes.first(static_cast<size_t>(t.storage_bytes));
  auto numel = checked_product(t.shape);
  auto nbytes = numel ? checked_mul(*numel, t.element_bytes) : std::nullopt;
  if (!nbytes) return Status(ErrorCode::shape_overflow, where + ": shape product overflows 64 bits");
  s.nbytes = *nbytes;
  s.contiguous = is_contiguous(t);
  if (s.nbytes == 0) return s;  // an empty tensor touches no storage bytes
  // Highest element index the view reaches must lie inside the storage.
  std::optional<uint64_t> last = t.storage_offset;
  for (size_t d = 0; d < t.shape.size() && last; ++d) {
    auto step = checked_mul(t.shape[d] - 1, t.stride[d]);
    last = step ? checked_add(*last, *step) : std::nullopt;
  }
  auto end = last ? checked_add(*last, 1) : std::nullopt;
  auto end_bytes = end ? checked_mul(*end, t.element_bytes) : std::nullopt;
  if (!end_bytes || *end_bytes > s.storage.size())
    return Status(ErrorCode::offset_out_of_range, where + ": view (offset " + std::to_string(t.storage_offset) +
                                                      ", shape and stride) reaches past storage '" + t.storage_key + "' of " +
                                                      std::to_string(s.storage.size()) + " bytes");
  s.reach_end = *end_bytes;
  return s;
}

Status TorchSource::build(const UnpickledCheckpoint& ckpt, const std::string& prefix, const PytorchOptions& options) {
  manifest_.version = "1.2.0";
  manifest_.attributes = ckpt.attributes;
  std::unordered_map<std::string, bool> members_seen;
  // Saturating: the bound is what matters, not the product.
  const uint64_t budget = options.max_expansion == 0 ? UINT64_MAX
                          : checked_add(checked_mul(file_.size(), options.max_expansion).value_or(UINT64_MAX),
                                        kPytorchExpansionSlack).value_or(UINT64_MAX);
  uint64_t decoded = 0;
  for (const auto& t : ckpt.tensors) {
    ZT_RETURN_IF_ERROR(check_name(t.name, "pytorch tensor"));
    ZT_ASSIGN_OR_RETURN(TensorSlot s, place(t, zip_, file_, prefix));
    decoded = checked_add(decoded, s.nbytes).value_or(UINT64_MAX);
    if (decoded > budget)
      return Status(ErrorCode::limit_exceeded,
                    "pytorch: tensor '" + t.name + "' takes the checkpoint's decoded tensors to " +
                        (decoded == UINT64_MAX ? std::string("over 2^64") : std::to_string(decoded)) +
                        " bytes, more than " + std::to_string(options.max_expansion) + " x its " +
                        std::to_string(file_.size()) + " bytes + 1 MiB (kMaxPytorchExpansion): views that repeat "
                        "their storage (expand(), stride 0) would be materialised in full; set " +
                        kPytorchMaxExpansionEnv + " to a larger ratio, or 0, to read it anyway");
    const uint64_t offset = s.member->data_offset + (s.contiguous ? t.storage_offset * t.element_bytes : 0);
    add_object(dense_object(t.name, t.shape, t.dtype, t.type, offset, s.nbytes));
    if (!members_seen[s.member->name]) {
      members_seen[s.member->name] = true;
      checked_members_.push_back(s.member);
    }
    slots_.push_back(std::move(s));
  }
  return {};
}

Result<std::unique_ptr<TensorSource>> TorchSource::load(std::span<const uint8_t> file, std::shared_ptr<const void> owner,
                                                       const PytorchOptions& options, FileByteAccess access) {
  if (file.size() >= sizeof kLegacyMagic && std::memcmp(file.data(), kLegacyMagic, sizeof kLegacyMagic) == 0)
    return Status(ErrorCode::unsupported,
                  "pytorch: legacy (pre-1.6, non-zip) torch.save format is not read; re-save it with a current torch.save");
  auto archive = zip::Archive::open(file);
  if (!archive.ok()) {
    if (archive.status().code() == ErrorCode::bad_magic)
      return Status(ErrorCode::bad_magic, "pytorch: not a torch.save zip archive (" + archive.status().message() + ")");
    return archive.status();
  }
  auto src = std::unique_ptr<TorchSource>(new TorchSource());
  src->file_ = file;
  src->owner_ = std::move(owner);
  src->access_ = std::move(access);
  src->zip_ = std::move(archive).value();
  // Records live under one top-level folder named after the saved file.
  const auto& members = src->zip_.members();
  if (members.empty()) return Status(ErrorCode::bad_magic, "pytorch: empty zip archive");
  const std::string& first = members.front().name;
  std::string prefix = first.substr(0, first.find('/'));
  // torch.jit.save archives hold a pickle too, but of scripted modules
  // (__torch__ globals) with their code beside it: name them, not the global.
  if (src->zip_.find(prefix + "/constants.pkl") || has_member_under(src->zip_, prefix + "/code/"))
    return Status(ErrorCode::unsupported,
                  "pytorch: TorchScript archive (torch.jit.save, code/ and constants.pkl records): not supported; "
                  "save the module's state_dict() with torch.save to read its tensors");
  const zip::Member* pkl = src->zip_.find(prefix + "/data.pkl");
  if (!pkl) return Status(ErrorCode::bad_magic, "pytorch: zip has no '" + prefix + "/data.pkl' record (not a torch.save checkpoint)");
  if (const zip::Member* bo = src->zip_.find(prefix + "/byteorder")) {
    ZT_ASSIGN_OR_RETURN(auto b, src->zip_.stored_bytes(file, *bo));
    std::string_view order(reinterpret_cast<const char*>(b.data()), b.size());
    if (order == "big")
      src->big_endian_ = true;
    else if (order != "little")
      return Status(ErrorCode::malformed_manifest, "pytorch: byteorder record must be 'little' or 'big'");
  }
  ZT_ASSIGN_OR_RETURN(auto pickle_bytes, src->zip_.stored_bytes(file, *pkl));
  src->checked_members_.push_back(pkl);
  ZT_ASSIGN_OR_RETURN(UnpickledCheckpoint ckpt, unpickle_restricted(pickle_bytes));
  ZT_RETURN_IF_ERROR(src->build(ckpt, prefix, options));
  return std::unique_ptr<TensorSource>(std::move(src));
}

}  // namespace

PytorchOptions pytorch_options_from_environment() {
  PytorchOptions options;
  const char* ratio = std::getenv(kPytorchMaxExpansionEnv);
  if (!ratio || !*ratio) return options;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(ratio, &end, 10);
  if (*end == '\0' && ratio[0] != '-') options.max_expansion = v;
  return options;
}

Result<std::unique_ptr<TensorSource>> open_pytorch_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read,
                                                          const PytorchOptions& options) {
  const auto bytes = file->bytes();
  FileByteAccess access(file, copy_on_read);
  return TorchSource::load(bytes, std::move(file), options, std::move(access));
}

Result<std::unique_ptr<TensorSource>> open_pytorch(const std::string& path, const PytorchOptions& options) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open_pytorch_mapped(std::move(mapped), /*copy_on_read=*/false, options);
}

Result<std::unique_ptr<TensorSource>> open_pytorch_memory(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                                          const PytorchOptions& options) {
  return TorchSource::load(bytes, std::move(owner), options);
}

}  // namespace zt
