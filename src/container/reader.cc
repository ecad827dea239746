#include "ztensor/reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "common/byteswap.h"
#include "common/checked_math.h"
#include "common/mapped_file.h"
#include "container/cbor_decode.h"
#include "container/digest.h"
#include "container/limits.h"
#include "container/manifest_parse.h"
#include "container/read_ahead.h"
#include "container/zstd_blob.h"
#include "ztensor/blob_codec.h"

namespace zt {
namespace {

uint64_t load_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool has_magic(std::span<const uint8_t> at, std::string_view magic) {
  return at.size() >= magic.size() && std::memcmp(at.data(), magic.data(), magic.size()) == 0;
}

// An owned, uninitialised buffer (decoded bytes overwrite all of it).
struct OwnedBytes {
  std::shared_ptr<uint8_t[]> data;
  size_t size;
  explicit OwnedBytes(size_t n) : data(new uint8_t[n ? n : 1]), size(n) {}
  std::span<uint8_t> span() { return {data.get(), size}; }
  ComponentBytes as_component() { return ComponentBytes{{data.get(), size}, data, false}; }
};

// The output buffer of a decode. A size that passed every check can still be
// more than this machine holds: that is limit_exceeded with the size, not an
// exception.
Result<OwnedBytes> allocate_output(uint64_t n, const std::string& ctx) {
  if (n > SIZE_MAX)
    return Status(ErrorCode::limit_exceeded, ctx + ": decoded size " + std::to_string(n) + " does not fit in memory");
  try {
    return OwnedBytes(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::limit_exceeded,
                  ctx + ": cannot allocate " + std::to_string(n) + " bytes for the decoded component");
  }
}

}  // namespace

Reader::~Reader() = default;

Result<std::unique_ptr<Reader>> Reader::open(const std::string& path, ReadOptions options) {
  ZT_ASSIGN_OR_RETURN(auto file, MappedFile::open(path));
  return open(std::move(file), options);
}

Result<std::unique_ptr<Reader>> Reader::open(std::shared_ptr<const MappedFile> file, ReadOptions options) {
  if (!file) return Status(ErrorCode::invalid_argument, "Reader::open: null MappedFile");
  auto bytes = file->bytes();
  auto r = open_memory(bytes, file, options);
  if (!r.ok()) return r.status().with_prefix("'" + file->path() + "': ");
  (*r)->read_ahead_ = std::make_unique<ReadAhead>(
      [file](uint64_t offset, std::span<uint8_t> out) { return file->read_at(offset, out); });
  (*r)->file_ = std::move(file);
  return r;
}

Result<std::unique_ptr<Reader>> Reader::open_memory(std::span<const uint8_t> bytes,
                                                    std::shared_ptr<const void> owner, ReadOptions options) {
  std::unique_ptr<Reader> r(new Reader());
  r->bytes_ = bytes;
  r->size_ = bytes.size();
  r->owner_ = std::move(owner);
  ZT_RETURN_IF_ERROR(r->load(options));
  return r;
}

Result<std::unique_ptr<Reader>> Reader::open(std::shared_ptr<const ByteSource> source, ReadOptions options) {
  if (!source) return Status(ErrorCode::invalid_argument, "Reader::open: null ByteSource");
  std::unique_ptr<Reader> r(new Reader());
  r->size_ = source->size();
  if (auto whole = source->mapped(); !whole.empty()) {
    r->bytes_ = whole;
    r->owner_ = source->owner();
  } else {
    r->source_ = source;
    r->read_ahead_ = std::make_unique<ReadAhead>(
        [source](uint64_t offset, std::span<uint8_t> out) { return source->read_at(offset, out); });
    // Bytes crossed a network or a store we do not control: check every digest.
    options.verify_on_read = true;
  }
  if (Status s = r->load(options); !s.ok()) return s.with_prefix("'" + source->name() + "': ");
  return r;
}

Result<ComponentBytes> Reader::fetch(uint64_t offset, uint64_t length) const {
  if (!source_) return ComponentBytes{bytes_.subspan(offset, length), owner_, true};
  if (length > SIZE_MAX) return Status(ErrorCode::limit_exceeded, "a read of " + std::to_string(length) + " bytes does not fit in memory");
  OwnedBytes out(static_cast<size_t>(length));
  ZT_RETURN_IF_ERROR(source_->read_at(offset, out.span()));
  return out.as_component();
}

Status Reader::load(ReadOptions options) {
  options_ = options;
  const uint64_t size = size_;
  ZT_ASSIGN_OR_RETURN(auto head, fetch(0, std::min(size, limits::kMagicSize)));
  bool v01 = has_magic(head.bytes, limits::kMagicV01);
  if (!v01 && !has_magic(head.bytes, limits::kMagicV1))
    return Status(ErrorCode::bad_magic, "file does not start with ZTEN1000 (or legacy ZTEN0001)");
  uint64_t tail = v01 ? limits::kFooterSizeV01 : limits::kFooterSize;
  if (size < limits::kMagicSize + tail)
    return Status(ErrorCode::bad_magic, "file of " + std::to_string(size) + " bytes is too short for header and footer (truncated?)");
  // §4 "The magic footer repeats the header ... so readers can detect truncated files."
  ZT_ASSIGN_OR_RETURN(auto footer, fetch(size - tail, tail));
  if (!v01 && !has_magic(footer.bytes.subspan(tail - limits::kMagicSize), limits::kMagicV1))
    return Status(ErrorCode::bad_magic, "footer magic is not ZTEN1000 (file truncated or not a .zt file)");
  uint64_t manifest_size = load_u64_le(footer.bytes.data());
  // §5 step 4: "If manifest_size > 1 GB, abort".
  if (manifest_size > limits::kMaxManifestBytes)
    return Status(ErrorCode::manifest_too_large,
                  "manifest size " + std::to_string(manifest_size) + " is over the 1 GiB limit");
  if (manifest_size > size - tail - limits::kMagicSize)
    return Status(ErrorCode::malformed_manifest, "manifest size " + std::to_string(manifest_size) +
                                                      " does not fit in a file of " + std::to_string(size) + " bytes");
  const uint64_t data_end = size - tail - manifest_size;
  ZT_ASSIGN_OR_RETURN(auto manifest_bytes, fetch(data_end, manifest_size));
  ZT_ASSIGN_OR_RETURN(CborDoc doc, cbor_parse(manifest_bytes.bytes, "manifest"));
  ZT_ASSIGN_OR_RETURN(ParsedManifest pm, v01 ? parse_manifest_v01(doc) : parse_manifest_v1(doc));
  manifest_ = std::move(pm.manifest);
  index_.reserve(manifest_.objects.size());
  for (size_t i = 0; i < manifest_.objects.size(); ++i) {
    const Object& o = manifest_.objects[i];
    ZT_RETURN_IF_ERROR(validate_object(o, data_end, pm.rules));
    if (!index_.emplace(o.name, i).second)
      return Status(ErrorCode::malformed_manifest, "object '" + o.name + "' appears twice in the manifest");
  }
  return check_components_disjoint(manifest_.objects);
}

const Object* Reader::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &manifest_.objects[it->second];
}

Result<ComponentBytes> Reader::stored_bytes(const Component& c) const {
  if (read_ahead_)
    if (auto ahead = read_ahead_->take(c.offset, c.length)) return std::move(*ahead);
  return fetch(c.offset, c.length);  // bounds checked on open
}

Result<ComponentBytes> Reader::read_component(std::string_view name, std::string_view role) const {
  const Object* o = find(name);
  if (!o) return Status(ErrorCode::not_found, "no object named '" + std::string(name) + "'");
  return read_component(*o, role);
}

Result<ComponentBytes> Reader::read_component(const Object& o, std::string_view role) const {
  return read_component_with_threads(o, role, 0);
}

Result<ComponentBytes> Reader::read_component_with_threads(const Object& o, std::string_view role,
                                                           unsigned threads) const {
  const Component* c = o.find(role);
  if (!c) return Status(ErrorCode::not_found, describe(o) + ": no component '" + std::string(role) + "'");
  ZT_RETURN_IF_ERROR(check_backed(*c));
  ZT_ASSIGN_OR_RETURN(auto stored, read_stored(o, role, *c));
  // Bytes we decode anyway are checked by default (as ztensor 1.2.x did);
  // raw zero-copy views only when asked, since hashing would read them all.
  const bool check = options_.verify_on_read || c->encoding != Encoding::raw;
  if (check && !c->digest.empty())
    ZT_RETURN_IF_ERROR(check_digest(c->digest, stored.bytes, describe(o, std::string(role))));
  return decode_component(o, role, *c, stored, threads);
}

Result<ComponentBytes> Reader::read_component_range(const Object& o, std::string_view role, uint64_t offset,
                                                   uint64_t length) const {
  const Component* c = o.find(role);
  const bool in_place = c && c->encoding == Encoding::raw && (!c->big_endian || dtype_width(c->dtype) == 1) &&
                        !(options_.verify_on_read && !c->digest.empty());
  if (!in_place) return TensorSource::read_component_range(o, role, offset, length);
  ZT_RETURN_IF_ERROR(check_component_range(o, role, c->length, offset, length));
  ZT_RETURN_IF_ERROR(check_backed(*c));
  if (file_ && options_.verify_on_read) {  // as read_stored: never touch the mapping
    ZT_ASSIGN_OR_RETURN(auto out, allocate_output(length, describe(o, std::string(role))));
    ZT_RETURN_IF_ERROR(file_->read_at(c->offset + offset, out.span()));
    return out.as_component();
  }
  return fetch(c->offset + offset, length);
}

Result<ComponentBytes> Reader::decode_component(const Object& o, std::string_view role, const Component& c,
                                                const ComponentBytes& stored_component, unsigned threads) const {
  const std::string ctx = describe(o, std::string(role));
  const auto stored = stored_component.bytes;
  const size_t width = dtype_width(c.dtype);

  if (c.encoding == Encoding::raw) {
    if (!c.big_endian || width == 1) return stored_component;
    OwnedBytes out(stored.size());
    std::memcpy(out.data.get(), stored.data(), stored.size());
    byteswap_elements(out.data.get(), out.size, width);
    return out.as_component();
  }
  std::shared_ptr<const BlobCodec> codec;
  if (c.encoding != Encoding::zstd) {
    codec = c.encoding == Encoding::unknown ? nullptr : find_blob_codec(c.encoding);
    if (!codec)
      return Status(ErrorCode::unknown_encoding,
                    ctx + ": encoding '" + c.encoding_text + "' is not supported by this reader");
    if (!c.uncompressed_length)
      return Status(ErrorCode::missing_field, ctx + ": uncompressed_length is required for encoding " + c.encoding_text);
  }

  uint64_t decoded;
  if (c.uncompressed_length) {
    decoded = *c.uncompressed_length;  // capped on open
  } else {
    // Legacy blob without uncompressed_length: a dense object's size is
    // fixed by its shape; otherwise trust the frame header under the cap.
    std::optional<uint64_t> expected;
    if (o.format == "dense" && role == "data") {
      auto n = checked_product(o.shape);
      auto w = n ? checked_mul(*n, width * logical_type_ratio(c.type)) : std::nullopt;
      if (!w) return Status(ErrorCode::shape_overflow, ctx + ": product(shape) * width overflows u64");
      expected = *w;
    }
    uint64_t cap = expected.value_or(limits::kMaxUncompressedBytes);
    if (auto bound = checked_mul(c.length, limits::kMaxZstdExpansion); bound)
      cap = std::min(cap, *bound + limits::kZstdExpansionSlack);
    if (expected && *expected > cap)
      return Status(ErrorCode::limit_exceeded, ctx + ": shape implies " + std::to_string(*expected) +
                                                   " bytes, implausible for " + std::to_string(c.length) + " stored bytes");
    if (expected) {
      decoded = *expected;
    } else {
      ZT_ASSIGN_OR_RETURN(decoded, zstd_decoded_size(stored, cap, ctx));
    }
  }
  // The stored bytes must be able to produce the decoded size before any of
  // it is allocated.
  ZT_RETURN_IF_ERROR(codec ? codec->check(stored, decoded, ctx) : zstd_check_declared(stored, decoded, ctx));
  ZT_ASSIGN_OR_RETURN(OwnedBytes out, allocate_output(decoded, ctx));
  if (codec) {
    ZT_RETURN_IF_ERROR(codec->decode_with_threads(stored, out.span(), ctx, threads));
  } else {
    ZT_RETURN_IF_ERROR(zstd_decode_exact(stored, out.span(), ctx));
  }
  if (c.big_endian) byteswap_elements(out.data.get(), out.size, width);
  return out.as_component();
}

namespace {

// verify() reads a mapped file's components with pread rather than through
// the mapping, so a file truncated by another process mid-verify is an
// io_error, never SIGBUS. Raw components are hashed a window at a time.
constexpr size_t kVerifyWindowBytes = 8u << 20;

Status verify_raw_with_pread(const MappedFile& file, const Component& c, const std::string& ctx) {
  if (c.digest.empty()) return Status::Ok();  // nothing to check in a raw component without a digest
  ZT_ASSIGN_OR_RETURN(auto check, DigestCheck::parse(c.digest, ctx));
  std::unique_ptr<uint8_t[]> window(new uint8_t[static_cast<size_t>(std::min<uint64_t>(c.length, kVerifyWindowBytes)) + 1]);
  for (uint64_t at = 0; at < c.length;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(c.length - at, kVerifyWindowBytes));
    ZT_RETURN_IF_ERROR(file.read_at(c.offset + at, {window.get(), n}));
    check->update({window.get(), n});
    at += n;
  }
  return check->finish(ctx);
}

Result<ComponentBytes> copy_with_pread(const MappedFile& file, const Component& c, const std::string& ctx) {
  ZT_ASSIGN_OR_RETURN(auto out, allocate_output(c.length, ctx));
  ZT_RETURN_IF_ERROR(file.read_at(c.offset, out.span()));
  return out.as_component();
}

}  // namespace

Status Reader::verify_object(const Object& o) const {
  for (const auto& [role, c] : o.components) {
    if (file_) {
      const std::string ctx = describe(o, role);
      if (c.encoding == Encoding::raw) {
        ZT_RETURN_IF_ERROR(verify_raw_with_pread(*file_, c, ctx));
        continue;
      }
      ZT_ASSIGN_OR_RETURN(auto stored, copy_with_pread(*file_, c, ctx));
      if (!c.digest.empty()) ZT_RETURN_IF_ERROR(check_digest(c.digest, stored.bytes, ctx));
      auto r = decode_component(o, role, c, stored);  // proves the stream decodes to its declared size
      if (!r.ok()) return r.status();
      continue;
    }
    ZT_RETURN_IF_ERROR(check_backed(c));
    ZT_ASSIGN_OR_RETURN(auto stored, stored_bytes(c));
    if (!c.digest.empty()) ZT_RETURN_IF_ERROR(check_digest(c.digest, stored.bytes, describe(o, role)));
    if (c.encoding != Encoding::raw) {
      auto r = decode_component(o, role, c, stored);  // proves the stream decodes to its declared size
      if (!r.ok()) return r.status();
    }
  }
  return Status::Ok();
}

Result<CopyOnWriteBytes> Reader::map_copy_on_write() const {
  if (!file_) return Status(ErrorCode::unsupported, "this reader is not over a mapped file");
  return file_->map_copy_on_write();
}

// From a file, only components read with pread (not a raw view of the
// mapping): a cold z4ai load then reads while both cores decode, where each
// worker's own pread left its core idle (bench/load_bench.py, llama-bf16
// cold: 1.20x safetensors before, 0.60-0.96x with it; docs/benchmarks.md).
// posix_fadvise(WILLNEED) of the next component, tried first, was slower.
void Reader::prefetch(const Object& o, std::string_view role) const {
  if (!read_ahead_) return;
  const Component* c = o.find(role);
  if (!c || (file_ && stored_in_place(*c))) return;
  read_ahead_->start(c->offset, c->length);
}

bool Reader::stored_in_place(const Component& c) const {
  return c.encoding == Encoding::raw && !options_.verify_on_read;
}

Status Reader::check_backed(const Component& c) const {
  // offset + length was checked against the mapping on open.
  return file_ ? file_->check_backed(c.offset + c.length) : Status::Ok();
}

Result<ComponentBytes> Reader::read_stored(const Object& o, std::string_view role, const Component& c) const {
  // Only a raw component read without verification stays a view of the
  // mapping (the zero-copy promise). Everything else is read with pread:
  // decoding or hashing a view would touch every page, and a file truncated
  // meanwhile would kill the process with SIGBUS instead of an io_error.
  // Conversions read with verify_on_read, so they never touch the mapping.
  if (!file_ || stored_in_place(c)) return stored_bytes(c);
  if (auto ahead = read_ahead_->take(c.offset, c.length)) return std::move(*ahead);
  return copy_with_pread(*file_, c, describe(o, std::string(role)));
}

Status Reader::verify() const {
  for (const auto& o : manifest_.objects) ZT_RETURN_IF_ERROR(verify_object(o));
  return Status::Ok();
}

}  // namespace zt
