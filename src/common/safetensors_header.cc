// One streaming pass over the JSON (nlohmann's SAX interface), then the
// per-tensor and tiling rules. Messages name the tensor and the rule.
#include "ztensor/safetensors_header.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "common/checked_math.h"
#include "common/names.h"

namespace zt {
namespace {

struct DTypeWidth {
  const char* st_name;
  uint64_t element_bytes;  // bytes per logical element
};

// The dtype names of the safetensors format that zTensor reads.
constexpr DTypeWidth kDTypes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
    {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"C64", 8},
};

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

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Per-tensor rules: known dtype, no NUL in the name, begin <= end <= buffer,
// and product(shape) * element size == end - begin, in checked arithmetic.
Status check_tensor(const SafetensorsTensor& t, uint64_t buffer_size) {
  ZT_RETURN_IF_ERROR(check_name(t.name, "safetensors tensor"));
  const std::string where = "safetensors tensor " + sq(t.name) + ": ";
  const uint64_t width = safetensors_dtype_bytes(t.st_dtype);
  if (width == 0) return Status(ErrorCode::unsupported, where + "dtype " + sq(t.st_dtype) + " is not supported");
  if (t.begin > t.end)
    return Status(ErrorCode::invalid_structure, where + "data_offsets [" + std::to_string(t.begin) + ", " +
                                                    std::to_string(t.end) + "] end before they begin");
  if (t.end > buffer_size)
    return Status(ErrorCode::offset_out_of_range, where + "data_offsets end " + std::to_string(t.end) +
                                                      " lies past the data buffer of " + std::to_string(buffer_size) + " bytes");
  auto count = checked_product(t.shape);
  auto bytes = count ? checked_mul(*count, width) : std::nullopt;
  if (!bytes)
    return Status(ErrorCode::shape_overflow, where + "shape " + shape_text(t.shape) + " x " + std::to_string(width) +
                                                 " bytes overflows 64 bits");
  if (*bytes != t.end - t.begin)
    return Status(ErrorCode::length_mismatch, where + "shape " + shape_text(t.shape) + " of " + t.st_dtype + " needs " +
                                                  std::to_string(*bytes) + " bytes but data_offsets [" +
                                                  std::to_string(t.begin) + ", " + std::to_string(t.end) + "] span " +
                                                  std::to_string(t.end - t.begin));
  return Status::Ok();
}

// The tensors, taken in `order` (by span), must cover [0, buffer_size)
// without holes, overlaps or trailing bytes. Zero-size tensors sort before a
// tensor starting at the same offset, so they never look like overlaps.
Status check_tiling(const std::vector<SafetensorsTensor>& tensors, const std::vector<size_t>& order,
                    uint64_t buffer_size) {
  uint64_t expected = 0;
  const SafetensorsTensor* prev = nullptr;
  for (size_t i : order) {
    const SafetensorsTensor& t = tensors[i];
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
  }
  if (expected != buffer_size)
    return Status(ErrorCode::invalid_structure, "safetensors data buffer has " + std::to_string(buffer_size - expected) +
                                                    " trailing bytes after the last tensor (offset " +
                                                    std::to_string(expected) + " of " + std::to_string(buffer_size) + ")");
  return Status::Ok();
}

bool before_by_span(const SafetensorsTensor& a, const SafetensorsTensor& b) {
  return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
}

}  // namespace

uint64_t safetensors_dtype_bytes(std::string_view st_dtype) {
  for (const auto& e : kDTypes)
    if (st_dtype == e.st_name) return e.element_bytes;
  return 0;
}

Result<uint64_t> parse_safetensors_prefix(std::span<const uint8_t> prefix, uint64_t file_size) {
  if (file_size < kSafetensorsPrefixBytes || prefix.size() < kSafetensorsPrefixBytes)
    return Status(ErrorCode::offset_out_of_range, "safetensors file of " + std::to_string(file_size) +
                                                      " bytes is too short for the 8-byte header size");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[size_t(i)];  // little-endian
  if (n > kMaxSafetensorsHeaderBytes)
    return Status(ErrorCode::limit_exceeded, "safetensors header size " + std::to_string(n) + " exceeds the cap of " +
                                                 std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  const uint64_t after_prefix = file_size - kSafetensorsPrefixBytes;
  if (n > after_prefix)
    return Status(ErrorCode::offset_out_of_range, "safetensors header size " + std::to_string(n) +
                                                      " runs past the end of the file (" + std::to_string(after_prefix) +
                                                      " bytes follow the size field)");
  return n;
}

Result<SafetensorsHeader> parse_safetensors_header(std::span<const uint8_t> json, uint64_t buffer_size,
                                                   const SafetensorsRules& rules) {
  const auto* first = reinterpret_cast<const char*>(json.data());
  HeaderSax sax;
  bool ok = nlohmann::json::sax_parse(first, first + json.size(), &sax, nlohmann::json::input_format_t::json, true);
  if (!sax.status.ok()) return sax.status;
  if (!ok) return Status(ErrorCode::malformed_manifest, "safetensors header is not valid JSON");

  SafetensorsHeader h;
  h.header_len = json.size();
  h.tensors = std::move(sax.tensors);  // header order
  h.metadata = std::move(sax.metadata);
  h.has_metadata = sax.has_metadata;
  for (const auto& t : h.tensors) ZT_RETURN_IF_ERROR(check_tensor(t, buffer_size));
  if (rules.require_tiling) {
    std::vector<size_t> by_span(h.tensors.size());
    std::iota(by_span.begin(), by_span.end(), size_t{0});
    std::stable_sort(by_span.begin(), by_span.end(),
                     [&](size_t a, size_t b) { return before_by_span(h.tensors[a], h.tensors[b]); });
    ZT_RETURN_IF_ERROR(check_tiling(h.tensors, by_span, buffer_size));
  }
  // Stable: what the order leaves tied stays in header order.
  if (rules.order == SafetensorsOrder::by_span)
    std::stable_sort(h.tensors.begin(), h.tensors.end(), before_by_span);
  else
    std::stable_sort(h.tensors.begin(), h.tensors.end(),
                     [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.begin < b.begin; });
  return h;
}

Result<SafetensorsLayout> split_safetensors(std::span<const uint8_t> file) {
  ZT_ASSIGN_OR_RETURN(uint64_t n, parse_safetensors_prefix(file, file.size()));
  SafetensorsLayout l;
  l.parsed.header_len = n;
  l.header = file.subspan(kSafetensorsPrefixBytes, size_t(n));
  l.data = file.subspan(size_t(kSafetensorsPrefixBytes + n));
  return l;
}

Result<SafetensorsLayout> parse_safetensors(std::span<const uint8_t> file, const SafetensorsRules& rules) {
  ZT_ASSIGN_OR_RETURN(SafetensorsLayout l, split_safetensors(file));
  ZT_ASSIGN_OR_RETURN(l.parsed, parse_safetensors_header(l.header, l.data.size(), rules));
  return l;
}

}  // namespace zt
