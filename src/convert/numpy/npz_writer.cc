#include "convert/numpy/npz_writer.h"


#include <algorithm>
#include <vector>

#include "common/atomic_file.h"
#include "common/checked_math.h"
#include "convert/numpy/npy_header.h"
#include "convert/zip/zip_reader.h"
#include "ztensor/reader.h"  // ComponentBytes

namespace zt::npz {
namespace {

// APPNOTE 4.4.3: "version needed to extract" 2.0 for stored members, 4.5
// when zip64 records are used. The high byte of "version made by" is the
// host system (3 = Unix).
constexpr uint16_t kVersionStored = 20;
constexpr uint16_t kVersionZip64 = 45;
constexpr uint16_t kMadeByUnix = 3 << 8;
// APPNOTE 4.4.4 bit 11: names are UTF-8.
constexpr uint16_t kFlagUtf8 = 0x0800;
// MS-DOS date of 1980-01-01 00:00 (the zip epoch): fixed so that the same
// input always gives the same bytes.
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
constexpr uint16_t kDosTime = 0;
// APPNOTE 4.5.3: zip64 extended information extra field.
constexpr uint16_t kZip64ExtraId = 0x0001;
// Alignment padding extra field (the id Android's zipalign uses): u16
// alignment followed by zero bytes. Unknown ids are skipped by every reader.
constexpr uint16_t kAlignExtraId = 0xD935;
constexpr uint64_t kAlignExtraMin = 4 + 2;
// .npy format 1.0 stores the header length in a u16.
constexpr uint64_t kNpyV1MaxHeader = 0xFFFF;

class Bytes {
 public:
  void u16(uint64_t v) { put(v, 2); }
  void u32(uint64_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void str(const std::string& s) { buf_.insert(buf_.end(), s.begin(), s.end()); }
  void zeros(size_t n) { buf_.insert(buf_.end(), n, 0); }
  std::span<const uint8_t> span() const { return buf_; }
  size_t size() const { return buf_.size(); }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> buf_;
};

struct Planned {
  const Object* object;
  std::string member;  // "<name>.npy"
  std::string npy_header;  // magic .. padding '\n'
  uint64_t data_bytes;
};

struct CentralEntry {
  std::string member;
  uint32_t crc;
  uint64_t size;  // stored: compressed == uncompressed
  uint64_t local_offset;
};

// numpy's descr for each storage type (byte order '<' except one-byte types).
const char* numpy_descr(DType dtype, LogicalType type) {
  if (type == LogicalType::complex64 && dtype == DType::f32) return "<c8";
  if (type == LogicalType::complex128 && dtype == DType::f64) return "<c16";
  if (type != LogicalType::none) return nullptr;  // fp8: no numpy dtype
  switch (dtype) {
    case DType::f64: return "<f8";
    case DType::f32: return "<f4";
    case DType::f16: return "<f2";
    case DType::i64: return "<i8";
    case DType::i32: return "<i4";
    case DType::i16: return "<i2";
    case DType::i8: return "|i1";
    case DType::u64: return "<u8";
    case DType::u32: return "<u4";
    case DType::u16: return "<u2";
    case DType::u8: return "|u1";
    case DType::boolean: return "|b1";
    case DType::bf16: return nullptr;  // no numpy dtype
  }
  return nullptr;
}

// The header numpy.lib.format writes: keys sorted, ", " after each entry,
// Python tuple repr of the shape, padded with spaces and '\n' so that the
// data starts at a multiple of kArrayAlign.
std::string npy_header(const char* descr, const std::vector<uint64_t>& shape) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ",";
  dict += "), }";
  const uint64_t prelude = sizeof npy::kMagic + 2 + 2;  // version 1.0: u16 length
  uint64_t total = align_up(prelude + dict.size() + 1, kArrayAlign);
  dict.append(total - prelude - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(reinterpret_cast<const char*>(npy::kMagic), sizeof npy::kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

// Member names become paths when the archive is unzipped: refuse the ones
// that would escape the target directory or that zip cannot hold.
Status check_name(const std::string& name) {
  const std::string where = "object '" + name + "'";
  if (name.empty()) return Status(ErrorCode::unsupported, "an object with an empty name cannot be an .npz member");
  if (name.find('\0') != std::string::npos)
    return Status(ErrorCode::unsupported, where + ": names with NUL bytes cannot be .npz members");
  if (name.front() == '/' || name.find('\\') != std::string::npos)
    return Status(ErrorCode::unsupported, where + ": absolute paths and backslashes are not allowed in .npz member names");
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = std::min(name.find('/', start), name.size());
    if (name.compare(start, end - start, "..") == 0)
      return Status(ErrorCode::unsupported, where + ": '..' path segments are not allowed in .npz member names");
    start = end + 1;
  }
  if (name.size() + 4 > kMaxNameBytes)
    return Status(ErrorCode::unsupported, where + ": name is longer than a zip member name can be (65531 bytes)");
  return Status::Ok();
}

Result<Planned> plan_object(const Object& o) {
  const std::string where = "object '" + o.name + "'";
  if (o.format != "dense")
    return Status(ErrorCode::unsupported,
                  where + " has format '" + o.format + "'; only dense objects can be written to .npz");
  const Component* c = o.find("data");
  if (!c || o.components.size() != 1)
    return Status(ErrorCode::unsupported, where + ": a dense object for .npz needs exactly one component 'data'");
  ZT_RETURN_IF_ERROR(check_name(o.name));
  bool unknown_type = c->type == LogicalType::none && !c->type_name.empty() && c->type_name != dtype_name(c->dtype);
  const char* descr = unknown_type ? nullptr : numpy_descr(c->dtype, c->type);
  if (!descr) {
    std::string t = dtype_name(c->dtype);
    if (!c->type_name.empty() && c->type_name != t) t += " (logical type " + c->type_name + ")";
    return Status(ErrorCode::unsupported, where + " component 'data': " + t +
                                              " has no NumPy dtype (numpy.load could only return raw void bytes); "
                                              "convert to .zt or safetensors instead");
  }
  auto count = checked_product(o.shape);
  auto bytes = count ? checked_mul(*count, dtype_width(c->dtype) * logical_type_ratio(c->type)) : std::nullopt;
  if (!bytes) return Status(ErrorCode::shape_overflow, where + ": shape product overflows 64 bits");
  std::string header = npy_header(descr, o.shape);
  if (header.size() - 10 > kNpyV1MaxHeader)
    return Status(ErrorCode::limit_exceeded, where + ": .npy header would exceed 65535 bytes");
  if (!checked_add(*bytes, header.size()))
    return Status(ErrorCode::shape_overflow, where + ": member size overflows 64 bits");
  return Planned{&o, o.name + ".npy", std::move(header), *bytes};
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Local header + name + extras, padded so the member data starts aligned.
Bytes local_header(const CentralEntry& e, bool zip64) {
  uint64_t fixed = zip::kLocalBytes + e.member.size() + (zip64 ? 4 + 16 : 0) + kAlignExtraMin;
  uint64_t pad = align_up(e.local_offset + fixed, kArrayAlign) - (e.local_offset + fixed);
  Bytes b;
  b.u32(zip::kLocalSig);
  b.u16(zip64 ? kVersionZip64 : kVersionStored);
  b.u16(kFlagUtf8);
  b.u16(zip::kStored);
  b.u16(kDosTime);
  b.u16(kDosDate);
  b.u32(e.crc);
  b.u32(zip64 ? kMax32 : e.size);
  b.u32(zip64 ? kMax32 : e.size);
  b.u16(e.member.size());
  b.u16((zip64 ? 4 + 16 : 0) + kAlignExtraMin + pad);
  b.str(e.member);
  if (zip64) {
    b.u16(kZip64ExtraId);
    b.u16(16);
    b.u64(e.size);
    b.u64(e.size);
  }
  b.u16(kAlignExtraId);
  b.u16(2 + pad);
  b.u16(kArrayAlign);
  b.zeros(pad);
  return b;
}

void central_entry(Bytes& b, const CentralEntry& e, bool force_zip64) {
  const bool big_size = force_zip64 || e.size >= kMax32;
  const bool big_offset = force_zip64 || e.local_offset >= kMax32;
  const uint16_t extra = (big_size ? 16 : 0) + (big_offset ? 8 : 0);
  const uint16_t version = big_size || big_offset ? kVersionZip64 : kVersionStored;
  b.u32(zip::kCentralSig);
  b.u16(kMadeByUnix | version);
  b.u16(version);
  b.u16(kFlagUtf8);
  b.u16(zip::kStored);
  b.u16(kDosTime);
  b.u16(kDosDate);
  b.u32(e.crc);
  b.u32(big_size ? kMax32 : e.size);
  b.u32(big_size ? kMax32 : e.size);
  b.u16(e.member.size());
  b.u16(extra ? 4 + extra : 0);
  b.u16(0);  // comment
  b.u16(0);  // disk number start
  b.u16(0);  // internal attributes
  b.u32(0100644u << 16);  // external attributes: a regular file, rw-r--r--
  b.u32(big_offset ? kMax32 : e.local_offset);
  b.str(e.member);
  if (extra) {
    b.u16(kZip64ExtraId);
    b.u16(extra);
    if (big_size) {
      b.u64(e.size);
      b.u64(e.size);
    }
    if (big_offset) b.u64(e.local_offset);
  }
}

Bytes end_records(uint64_t entries, uint64_t cd_offset, uint64_t cd_size, bool force_zip64) {
  const bool zip64 = force_zip64 || entries >= kMax16 || cd_offset >= kMax32 || cd_size >= kMax32;
  Bytes b;
  if (zip64) {
    const uint64_t record = cd_offset + cd_size;
    b.u32(zip::kZip64EocdSig);
    b.u64(zip::kZip64EocdBytes - 12);  // size of the rest of the record
    b.u16(kMadeByUnix | kVersionZip64);
    b.u16(kVersionZip64);
    b.u32(0);
    b.u32(0);
    b.u64(entries);
    b.u64(entries);
    b.u64(cd_size);
    b.u64(cd_offset);
    b.u32(zip::kZip64LocatorSig);
    b.u32(0);
    b.u64(record);
    b.u32(1);  // total disks
  }
  b.u32(zip::kEocdSig);
  b.u16(0);
  b.u16(0);
  b.u16(zip64 ? kMax16 : entries);
  b.u16(zip64 ? kMax16 : entries);
  b.u32(zip64 ? kMax32 : cd_size);
  b.u32(zip64 ? kMax32 : cd_offset);
  b.u16(0);  // comment
  return b;
}

}  // namespace

Result<ConvertStats> write_npz(const TensorSource& source, const std::string& out, const ProgressFn& progress,
                               const NpzWriteOptions& options) {
  const Manifest& m = source.manifest();
  ConvertStats stats;
  std::vector<Planned> plan;
  plan.reserve(m.objects.size());
  uint64_t total = 0;
  for (const Object& o : m.objects) {
    ZT_ASSIGN_OR_RETURN(Planned p, plan_object(o));
    total += p.data_bytes;
    plan.push_back(std::move(p));
  }
  if (m.attributes.is_map() && !m.attributes.as_map().empty())
    stats.warnings.push_back("file attributes were not kept: .npz archives hold arrays only");
  for (const Planned& p : plan)
    if (p.object->attributes.is_map() && !p.object->attributes.as_map().empty())
      stats.warnings.push_back("object '" + p.object->name + "': attributes were not kept (.npz holds arrays only)");

  ZT_ASSIGN_OR_RETURN(auto file, AtomicFile::create(out));
  std::vector<CentralEntry> central;
  central.reserve(plan.size());
  uint64_t done = 0;
  for (const Planned& p : plan) {
    ZT_ASSIGN_OR_RETURN(ComponentBytes data, source.read_component(*p.object, "data"));
    if (data.bytes.size() != p.data_bytes)
      return Status(ErrorCode::length_mismatch, "object '" + p.object->name + "' component 'data': decoded " +
                                                    std::to_string(data.bytes.size()) + " bytes, shape needs " +
                                                    std::to_string(p.data_bytes));
    CentralEntry e{p.member, 0, p.npy_header.size() + p.data_bytes, file->position()};
    e.crc = zip::crc32_update(zip::crc32_of(as_bytes(p.npy_header)), data.bytes);
    const bool zip64 = options.force_zip64 || e.size >= kMax32;
    ZT_RETURN_IF_ERROR(file->write(local_header(e, zip64).span()));
    ZT_RETURN_IF_ERROR(file->write(as_bytes(p.npy_header)));
    ZT_RETURN_IF_ERROR(file->write(data.bytes));
    central.push_back(std::move(e));
    done += p.data_bytes;
    ++stats.objects;
    if (progress) progress(done, total);
  }
  const uint64_t cd_offset = file->position();
  Bytes cd;
  for (const CentralEntry& e : central) central_entry(cd, e, options.force_zip64);
  ZT_RETURN_IF_ERROR(file->write(cd.span()));
  ZT_RETURN_IF_ERROR(file->write(end_records(central.size(), cd_offset, cd.size(), options.force_zip64).span()));
  ZT_RETURN_IF_ERROR(file->commit());
  stats.bytes = done;
  return stats;
}

}  // namespace zt::npz
