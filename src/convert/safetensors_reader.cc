#include "convert/safetensors_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "common/checked_math.h"
#include "common/mapped_file.h"
#include "container/validate.h"
#include "ztensor/manifest.h"

namespace zt {
namespace {

struct DTypeEntry {
  const char* st_name;
  DType dtype;
  LogicalType type;
  uint64_t element_bytes;  // bytes per logical element
};

// safetensors' dtype names and their zTensor storage + logical types.
constexpr DTypeEntry kDTypes[] = {
    {"F64", DType::f64, LogicalType::none, 8},
    {"F32", DType::f32, LogicalType::none, 4},
    {"F16", DType::f16, LogicalType::none, 2},
    {"BF16", DType::bf16, LogicalType::none, 2},
    {"I64", DType::i64, LogicalType::none, 8},
    {"I32", DType::i32, LogicalType::none, 4},
    {"I16", DType::i16, LogicalType::none, 2},
    {"I8", DType::i8, LogicalType::none, 1},
    {"U64", DType::u64, LogicalType::none, 8},
    {"U32", DType::u32, LogicalType::none, 4},
    {"U16", DType::u16, LogicalType::none, 2},
    {"U8", DType::u8, LogicalType::none, 1},
    {"BOOL", DType::boolean, LogicalType::none, 1},
    {"F8_E4M3", DType::u8, LogicalType::f8_e4m3fn, 1},
    {"F8_E5M2", DType::u8, LogicalType::f8_e5m2, 1},
    {"C64", DType::f32, LogicalType::complex64, 8},
};

const DTypeEntry* find_st_dtype(std::string_view name) {
  for (const auto& e : kDTypes)
    if (name == e.st_name) return &e;
  return nullptr;
}

std::string sq(std::string_view s) {
  std::string r(1, '\'');
  r += s;
  r += '\'';
  return r;
}

// Builds the tensor list from the header in one streaming pass. nlohmann's
// DOM keeps only the last of duplicate keys, so duplicates are caught here;
// the SAX parser is iterative, so hostile nesting cannot overflow the stack.
class HeaderSax {
 public:
  using json = nlohmann::json;

  Status status;
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
  bool has_metadata = false;

  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool number_integer(json::number_integer_t v) {
    if (state_ == State::array && v < 0)
      return fail(ErrorCode::wrong_type, where() + field_ + " must hold non-negative integers, found " + std::to_string(v));
    return scalar("a negative number");
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (state_ == State::array) {
      array_.push_back(v);
      return true;
    }
    return scalar("a number");
  }
  bool number_float(json::number_float_t, const json::string_t& text) {
    if (state_ == State::array)
      return fail(ErrorCode::wrong_type, where() + field_ + " must hold integers that fit in 64 bits, found " + text);
    return scalar("a number");
  }
  bool string(json::string_t& v) {
    if (skip_ > 0) return true;
    if (state_ == State::meta) {
      metadata.emplace_back(std::move(key_), std::move(v));
      return true;
    }
    if (state_ == State::tensor && field_ == "dtype") {
      cur_.st_dtype = std::move(v);
      return true;
    }
    return scalar("a string");
  }
  bool binary(json::binary_t&) { return scalar("binary"); }

  bool start_object(std::size_t) {
    if (skip_ > 0) return enter_skip();
    switch (state_) {
      case State::start:
        state_ = State::top;
        return true;
      case State::top:
        if (key_ == "__metadata__") {
          has_metadata = true;
          state_ = State::meta;
          return true;
        }
        cur_ = SafetensorsTensor{};
        cur_.name = std::move(key_);
        seen_dtype_ = seen_shape_ = seen_offsets_ = false;
        state_ = State::tensor;
        return true;
      case State::tensor:
        if (known_field()) return fail(ErrorCode::wrong_type, where() + field_ + " must be " + expected());
        return enter_skip();  // unknown fields are ignored, as safetensors does
      default:
        return scalar("an object");
    }
  }
  bool end_object() {
    if (skip_ > 0) return leave_skip();
    if (state_ == State::meta) {
      state_ = State::top;
      return true;
    }
    if (state_ == State::tensor) {
      if (!seen_dtype_ || !seen_shape_ || !seen_offsets_) {
        const char* missing = !seen_dtype_ ? "dtype" : !seen_shape_ ? "shape" : "data_offsets";
        return fail(ErrorCode::missing_field, where() + "required field '" + missing + "' is missing");
      }
      tensors.push_back(std::move(cur_));
      state_ = State::top;
      return true;
    }
    state_ = State::done;  // end of the top-level object
    return true;
  }
  bool start_array(std::size_t) {
    if (skip_ > 0) return enter_skip();
    if (state_ == State::tensor && (field_ == "shape" || field_ == "data_offsets")) {
      array_.clear();
      state_ = State::array;
      return true;
    }
    if (state_ == State::tensor && !known_field()) return enter_skip();
    if (state_ == State::array)
      return fail(ErrorCode::wrong_type, where() + field_ + " must be a flat array of integers");
    return scalar("an array");
  }
  bool end_array() {
    if (skip_ > 0) return leave_skip();
    state_ = State::tensor;
    if (field_ == "shape") {
      cur_.shape = std::move(array_);
    } else {
      if (array_.size() != 2)
        return fail(ErrorCode::wrong_type, where() + "data_offsets must be [begin, end], found " +
                                               std::to_string(array_.size()) + " elements");
      cur_.begin = array_[0];
      cur_.end = array_[1];
    }
    array_ = {};
    return true;
  }
  bool key(json::string_t& k) {
    if (skip_ > 0) return true;
    if (state_ == State::top) {
      if (!top_keys_.insert(k).second)
        return fail(ErrorCode::invalid_structure, "safetensors header: name " + sq(k) +
                                                      " appears more than once (duplicate names are refused)");
      key_ = std::move(k);
    } else if (state_ == State::meta) {
      if (!meta_keys_.insert(k).second)
        return fail(ErrorCode::invalid_structure,
                    "safetensors header: __metadata__ key " + sq(k) + " appears more than once");
      key_ = std::move(k);
    } else if (state_ == State::tensor) {
      field_ = std::move(k);
      bool* seen = field_ == "dtype" ? &seen_dtype_ : field_ == "shape" ? &seen_shape_
                 : field_ == "data_offsets" ? &seen_offsets_ : nullptr;
      if (seen) {
        if (*seen) return fail(ErrorCode::invalid_structure, where() + "field " + sq(field_) + " appears more than once");
        *seen = true;
      }
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    if (status.ok())
      status = Status(ErrorCode::malformed_manifest, "safetensors header is not valid JSON (byte " +
                                                         std::to_string(position) + " of the header): " + ex.what());
    return false;
  }

 private:
  enum class State { start, top, meta, tensor, array, done };

  bool fail(ErrorCode code, std::string msg) {
    if (status.ok()) status = Status(code, std::move(msg));
    return false;
  }
  std::string where() const {
    return "safetensors header: tensor " + sq(cur_.name) + ": ";
  }
  bool known_field() const { return field_ == "dtype" || field_ == "shape" || field_ == "data_offsets"; }
  std::string expected() const {
    return field_ == "dtype" ? "a string" : field_ == "shape" ? "an array of integers" : "[begin, end]";
  }
  // A scalar (or a container where a scalar belongs): fine inside skipped
  // unknown fields, otherwise the wrong type for where it appears.
  bool scalar(const char* found) {
    if (skip_ > 0) return true;
    switch (state_) {
      case State::start:
        return fail(ErrorCode::wrong_type, std::string("safetensors header must be a JSON object, found ") + found);
      case State::top:
        if (key_ == "__metadata__" && std::strcmp(found, "null") == 0) return true;  // as safetensors accepts
        if (key_ == "__metadata__")
          return fail(ErrorCode::wrong_type, std::string("safetensors header: __metadata__ must be an object, found ") + found);
        return fail(ErrorCode::wrong_type, "safetensors header: entry " + sq(key_) +
                                               " must be an object {dtype, shape, data_offsets}, found " + found);
      case State::meta:
        return fail(ErrorCode::wrong_type, "safetensors header: __metadata__ key " + sq(key_) +
                                               " must map to a string, found " + found);
      case State::tensor:
        if (known_field()) return fail(ErrorCode::wrong_type, where() + field_ + " must be " + expected() + ", found " + found);
        return true;  // unknown scalar field: ignored
      case State::array:
        return fail(ErrorCode::wrong_type, where() + field_ + " must hold non-negative integers, found " + found);
      case State::done:
        break;
    }
    return fail(ErrorCode::malformed_manifest, "safetensors header: unexpected value after the top-level object");
  }
  bool enter_skip() {
    if (++skip_ + 2 > kMaxSafetensorsJsonDepth)
      return fail(ErrorCode::limit_exceeded, where() + "unknown field " + sq(field_) + " nests deeper than " +
                                                 std::to_string(kMaxSafetensorsJsonDepth) + " levels");
    return true;
  }
  bool leave_skip() {
    --skip_;
    return true;
  }

  State state_ = State::start;
  int skip_ = 0;  // > 0 while inside an unknown field's nested value
  std::string key_;    // current top-level or metadata key
  std::string field_;  // current field inside a tensor entry
  SafetensorsTensor cur_;
  bool seen_dtype_ = false, seen_shape_ = false, seen_offsets_ = false;
  std::vector<uint64_t> array_;
  std::unordered_set<std::string> top_keys_, meta_keys_;
};

// Per-tensor rules: known dtype, begin <= end <= buffer, and
// product(shape) * element size == end - begin, all in checked arithmetic.
Status check_tensor(SafetensorsTensor& t, uint64_t buffer_size) {
  const std::string where = "safetensors tensor " + sq(t.name) + ": ";
  const DTypeEntry* e = find_st_dtype(t.st_dtype);
  if (!e) return Status(ErrorCode::unsupported, where + "dtype " + sq(t.st_dtype) + " is not supported");
  t.dtype = e->dtype;
  t.type = e->type;
  if (t.begin > t.end)
    return Status(ErrorCode::invalid_structure, where + "data_offsets [" + std::to_string(t.begin) + ", " +
                                                    std::to_string(t.end) + "] end before they begin");
  if (t.end > buffer_size)
    return Status(ErrorCode::offset_out_of_range, where + "data_offsets end " + std::to_string(t.end) +
                                                      " lies past the data buffer of " + std::to_string(buffer_size) + " bytes");
  auto count = checked_product(t.shape);
  auto bytes = count ? checked_mul(*count, e->element_bytes) : std::nullopt;
  if (!bytes)
    return Status(ErrorCode::shape_overflow, where + "shape " + shape_text(t.shape) + " x " +
                                                 std::to_string(e->element_bytes) + " bytes overflows 64 bits");
  if (*bytes != t.end - t.begin)
    return Status(ErrorCode::length_mismatch, where + "shape " + shape_text(t.shape) + " of " + t.st_dtype + " needs " +
                                                  std::to_string(*bytes) + " bytes but data_offsets [" +
                                                  std::to_string(t.begin) + ", " + std::to_string(t.end) + "] span " +
                                                  std::to_string(t.end - t.begin));
  return Status::Ok();
}

}  // namespace

bool safetensors_dtype_to_zt(std::string_view st, DType* dtype, LogicalType* type) {
  const DTypeEntry* e = find_st_dtype(st);
  if (!e) return false;
  *dtype = e->dtype;
  *type = e->type;
  return true;
}

const char* zt_to_safetensors_dtype(DType dtype, LogicalType type) {
  for (const auto& e : kDTypes)
    if (e.dtype == dtype && e.type == type) return e.st_name;
  return nullptr;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(const std::string& path, bool copy_on_read) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  auto bytes = mapped->bytes();
  FileByteAccess access(mapped, copy_on_read);
  auto r = parse(bytes, std::move(mapped));
  if (!r.ok()) return Status(r.status().code(), r.status().message() + " (in '" + path + "')");
  r.value()->access_ = std::move(access);
  return r;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::parse(std::span<const uint8_t> bytes,
                                                                std::shared_ptr<const void> owner) {
  std::unique_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->bytes_ = bytes;
  f->size_ = bytes.size();
  f->owner_ = std::move(owner);
  ZT_RETURN_IF_ERROR(f->load());
  return f;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(std::shared_ptr<const ByteSource> source) {
  if (!source) return Status(ErrorCode::invalid_argument, "SafetensorsFile::open: null ByteSource");
  if (auto whole = source->mapped(); !whole.empty()) return parse(whole, source->owner());
  std::unique_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->size_ = source->size();
  f->source_ = source;
  if (Status s = f->load(); !s.ok()) return Status(s.code(), s.message() + " (in '" + source->name() + "')");
  return f;
}

Result<std::span<const uint8_t>> SafetensorsFile::read_span(uint64_t offset, uint64_t length,
                                                           std::vector<uint8_t>& scratch) const {
  if (!source_) return bytes_.subspan(offset, length);
  scratch.resize(length);  // length is capped by the caller (header size limit)
  ZT_RETURN_IF_ERROR(source_->read_at(offset, scratch));
  return std::span<const uint8_t>(scratch);
}

Result<ComponentBytes> SafetensorsFile::tensor_bytes(const SafetensorsTensor& t) const {
  return tensor_range(t, 0, t.end - t.begin);
}

Result<ComponentBytes> SafetensorsFile::tensor_range(const SafetensorsTensor& t, uint64_t offset,
                                                     uint64_t length) const {
  if (!source_) return access_.read(t.data.subspan(static_cast<size_t>(offset), static_cast<size_t>(length)), owner_);
  if (length > SIZE_MAX) return Status(ErrorCode::limit_exceeded, "safetensors tensor " + sq(t.name) + " does not fit in memory");
  auto owned = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(length));
  ZT_RETURN_IF_ERROR(source_->read_at(kSafetensorsPrefixBytes + header_size_ + t.begin + offset, *owned));
  std::span<const uint8_t> view(owned->data(), owned->size());
  return ComponentBytes{view, std::move(owned), false};
}

Status SafetensorsFile::load() {
  if (size_ < kSafetensorsPrefixBytes)
    return Status(ErrorCode::offset_out_of_range, "safetensors file of " + std::to_string(size_) +
                                                      " bytes is too short for the 8-byte header size");
  std::vector<uint8_t> scratch;
  ZT_ASSIGN_OR_RETURN(auto prefix, read_span(0, kSafetensorsPrefixBytes, scratch));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];  // little-endian
  if (n > kMaxSafetensorsHeaderBytes)
    return Status(ErrorCode::limit_exceeded, "safetensors header size " + std::to_string(n) + " exceeds the cap of " +
                                                 std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  const uint64_t after_prefix = size_ - kSafetensorsPrefixBytes;
  if (n > after_prefix)
    return Status(ErrorCode::offset_out_of_range, "safetensors header size " + std::to_string(n) +
                                                      " runs past the end of the file (" + std::to_string(after_prefix) +
                                                      " bytes follow the size field)");
  header_size_ = n;

  ZT_ASSIGN_OR_RETURN(auto header, read_span(kSafetensorsPrefixBytes, n, scratch));
  const auto* first = reinterpret_cast<const char*>(header.data());
  HeaderSax sax;
  bool ok = nlohmann::json::sax_parse(first, first + n, &sax, nlohmann::json::input_format_t::json, true);
  if (!sax.status.ok()) return sax.status;
  if (!ok) return Status(ErrorCode::malformed_manifest, "safetensors header is not valid JSON");

  tensors_ = std::move(sax.tensors);
  metadata_ = std::move(sax.metadata);
  has_metadata_ = sax.has_metadata;

  const uint64_t data_start = kSafetensorsPrefixBytes + n;
  const uint64_t buffer_size = size_ - data_start;
  for (auto& t : tensors_) {
    ZT_RETURN_IF_ERROR(check_name(t.name, "safetensors tensor"));
    ZT_RETURN_IF_ERROR(check_tensor(t, buffer_size));
  }

  // The tensors must tile [0, buffer_size) exactly. Zero-size tensors sort
  // before a tensor starting at the same offset, so they never look like
  // overlaps; stable order keeps ties in header order.
  std::stable_sort(tensors_.begin(), tensors_.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected = 0;
  const SafetensorsTensor* prev = nullptr;
  for (auto& t : tensors_) {
    if (t.begin > expected)
      return Status(ErrorCode::invalid_structure,
                    "safetensors tensor " + sq(t.name) + ": gap of " + std::to_string(t.begin - expected) +
                        " bytes before its data_offsets begin " + std::to_string(t.begin) +
                        " (tensors must cover the data buffer without holes)");
    if (t.begin < expected)
      return Status(ErrorCode::invalid_structure, "safetensors tensor " + sq(t.name) + ": data_offsets [" +
                                                      std::to_string(t.begin) + ", " + std::to_string(t.end) +
                                                      "] overlap tensor " + sq(prev ? prev->name : "") +
                                                      " which ends at " + std::to_string(expected));
    expected = t.end;
    prev = &t;
    index_.emplace(t.name, index_.size());
    if (!source_) t.data = bytes_.subspan(data_start + t.begin, t.end - t.begin);
  }
  if (expected != buffer_size)
    return Status(ErrorCode::invalid_structure, "safetensors data buffer has " + std::to_string(buffer_size - expected) +
                                                    " trailing bytes after the last tensor (offset " +
                                                    std::to_string(expected) + " of " + std::to_string(buffer_size) + ")");
  return Status::Ok();
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace zt
