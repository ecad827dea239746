#include "container/cbor_decode.h"

#include <cbor.h>

#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "container/limits.h"

namespace zt {
namespace {

struct Frame {
  Value container;
  bool is_map = false;
  bool indefinite = false;
  uint64_t remaining = 0;  // items still expected (maps count keys and values)
  std::optional<Value> key;
};

// Receives libcbor's streaming callbacks and assembles the value tree.
// Callbacks cannot return errors, so the first failure is parked in `error`
// and the driving loop stops before the next item.
struct Builder {
  std::string what;
  std::vector<Frame> stack;
  std::optional<Value> root;
  Status error;
  uint64_t items = 0;
  uint64_t bytes_left = 0;  // bytes from the current item header to the end
  bool in_indef_string = false;
  bool indef_is_bytes = false;
  std::string indef_buf;

  bool failed() const { return !error.ok(); }
  void fail(ErrorCode code, std::string msg) {
    if (!failed()) error = Status(code, what + ": " + msg);
  }
  bool count_item() {
    if (++items > limits::kMaxCborItems) {
      fail(ErrorCode::limit_exceeded, "more than " + std::to_string(limits::kMaxCborItems) +
                                          " CBOR items (kMaxCborItems)");
      return false;
    }
    return true;
  }
  bool guard_scalar() {
    if (failed()) return false;
    if (in_indef_string) {
      fail(ErrorCode::malformed_manifest, "non-string item inside an indefinite-length string");
      return false;
    }
    return count_item();
  }

  // RFC 8949 §5.6: a map with duplicate keys is not valid; accepting one
  // would let two readers see different manifests in the same bytes.
  bool has_duplicate_text_key(const Value& map) {
    const auto& entries = map.as_map();
    std::unordered_set<std::string_view> seen;
    seen.reserve(entries.size());
    for (const auto& [k, v] : entries)
      if (k.is_text() && !seen.insert(k.as_string()).second) {
        fail(ErrorCode::malformed_manifest, "map has the key '" + k.as_string() + "' twice");
        return true;
      }
    return false;
  }

  // Attach a finished value to its parent, closing definite containers whose
  // last item it was.
  void emit(Value v) {
    for (;;) {
      if (stack.empty()) {
        if (root) return fail(ErrorCode::malformed_manifest, "more than one top-level item");
        root = std::move(v);
        return;
      }
      Frame& top = stack.back();
      if (top.is_map) {
        if (!top.key) {
          top.key = std::move(v);
        } else {
          top.container.mutable_map().emplace_back(std::move(*top.key), std::move(v));
          top.key.reset();
        }
      } else {
        top.container.mutable_array().push_back(std::move(v));
      }
      if (top.indefinite) return;
      if (--top.remaining > 0) return;
      if (top.is_map && has_duplicate_text_key(top.container)) return;
      v = std::move(top.container);
      stack.pop_back();
    }
  }

  void open_container(bool is_map, std::optional<uint64_t> size) {
    if (!guard_scalar()) return;
    if (stack.size() >= limits::kMaxCborDepth) {
      return fail(ErrorCode::limit_exceeded, "CBOR nesting deeper than " +
                                                 std::to_string(limits::kMaxCborDepth) + " (kMaxCborDepth)");
    }
    Frame f;
    f.is_map = is_map;
    f.container = is_map ? Value::map() : Value::array();
    if (size) {
      // Every item takes at least one byte, so a claim larger than the
      // remaining input is a lie; refuse it before allocating anything.
      uint64_t per = is_map ? 2 : 1;
      if (*size > bytes_left / per) {
        return fail(ErrorCode::malformed_manifest,
                    (is_map ? "map claims " : "array claims ") + std::to_string(*size) +
                        " entries but only " + std::to_string(bytes_left) + " bytes remain");
      }
      if (*size == 0) return emit(std::move(f.container));
      f.remaining = *size * per;
    } else {
      f.indefinite = true;
    }
    stack.push_back(std::move(f));
  }

  void string_chunk(bool is_bytes, const uint8_t* data, size_t len) {
    if (failed()) return;
    if (len > limits::kMaxCborStringBytes) {
      return fail(ErrorCode::limit_exceeded, "string of " + std::to_string(len) +
                                                 " bytes over kMaxCborStringBytes");
    }
    if (in_indef_string) {
      if (is_bytes != indef_is_bytes)
        return fail(ErrorCode::malformed_manifest, "mixed chunk types in an indefinite-length string");
      if (indef_buf.size() + len > limits::kMaxCborStringBytes)
        return fail(ErrorCode::limit_exceeded, "indefinite-length string over kMaxCborStringBytes");
      indef_buf.append(reinterpret_cast<const char*>(data), len);
      return;
    }
    if (!count_item()) return;
    std::string s(reinterpret_cast<const char*>(data), len);
    emit(is_bytes ? Value::bytes(std::move(s)) : Value::text(std::move(s)));
  }

  void start_indef_string(bool is_bytes) {
    if (!guard_scalar()) return;
    in_indef_string = true;
    indef_is_bytes = is_bytes;
    indef_buf.clear();
  }

  void brk() {
    if (failed()) return;
    if (in_indef_string) {
      in_indef_string = false;
      std::string s = std::move(indef_buf);
      indef_buf.clear();
      return emit(indef_is_bytes ? Value::bytes(std::move(s)) : Value::text(std::move(s)));
    }
    if (stack.empty() || !stack.back().indefinite)
      return fail(ErrorCode::malformed_manifest, "unexpected break code");
    if (stack.back().key) return fail(ErrorCode::malformed_manifest, "map ends after a key with no value");
    if (stack.back().is_map && has_duplicate_text_key(stack.back().container)) return;
    Value v = std::move(stack.back().container);
    stack.pop_back();
    emit(std::move(v));
  }
};

Builder& B(void* ctx) { return *static_cast<Builder*>(ctx); }

void on_uint(void* c, uint64_t v) {
  if (B(c).guard_scalar()) B(c).emit(Value::uint(v));
}
void on_uint8(void* c, uint8_t v) { on_uint(c, v); }
void on_uint16(void* c, uint16_t v) { on_uint(c, v); }
void on_uint32(void* c, uint32_t v) { on_uint(c, v); }
void on_neg(void* c, uint64_t n) {
  if (B(c).guard_scalar()) B(c).emit(Value::negative(n));
}
void on_neg8(void* c, uint8_t v) { on_neg(c, v); }
void on_neg16(void* c, uint16_t v) { on_neg(c, v); }
void on_neg32(void* c, uint32_t v) { on_neg(c, v); }
void on_text(void* c, cbor_data d, size_t n) { B(c).string_chunk(false, d, n); }
void on_bytes(void* c, cbor_data d, size_t n) { B(c).string_chunk(true, d, n); }
void on_text_start(void* c) { B(c).start_indef_string(false); }
void on_bytes_start(void* c) { B(c).start_indef_string(true); }
void on_array(void* c, size_t n) { B(c).open_container(false, n); }
void on_indef_array(void* c) { B(c).open_container(false, std::nullopt); }
void on_map(void* c, size_t n) { B(c).open_container(true, n); }
void on_indef_map(void* c) { B(c).open_container(true, std::nullopt); }
void on_tag(void* c, uint64_t) {
  // Tags only annotate the next item; the manifest schema uses none.
  if (B(c).in_indef_string) B(c).fail(ErrorCode::malformed_manifest, "tag inside an indefinite-length string");
}
void on_float(void* c, float f) {
  if (B(c).guard_scalar()) B(c).emit(Value::float64(f));
}
void on_double(void* c, double d) {
  if (B(c).guard_scalar()) B(c).emit(Value::float64(d));
}
void on_null(void* c) {
  if (B(c).guard_scalar()) B(c).emit(Value::null());
}
void on_bool(void* c, bool b) {
  if (B(c).guard_scalar()) B(c).emit(Value::boolean(b));
}
void on_break(void* c) { B(c).brk(); }

cbor_callbacks make_callbacks() {
  cbor_callbacks cb = cbor_empty_callbacks;
  cb.uint8 = on_uint8;
  cb.uint16 = on_uint16;
  cb.uint32 = on_uint32;
  cb.uint64 = on_uint;
  cb.negint8 = on_neg8;
  cb.negint16 = on_neg16;
  cb.negint32 = on_neg32;
  cb.negint64 = on_neg;
  cb.string = on_text;
  cb.string_start = on_text_start;
  cb.byte_string = on_bytes;
  cb.byte_string_start = on_bytes_start;
  cb.array_start = on_array;
  cb.indef_array_start = on_indef_array;
  cb.map_start = on_map;
  cb.indef_map_start = on_indef_map;
  cb.tag = on_tag;
  cb.float2 = on_float;
  cb.float4 = on_float;
  cb.float8 = on_double;
  cb.undefined = on_null;
  cb.null = on_null;
  cb.boolean = on_bool;
  cb.indef_break = on_break;
  return cb;
}

}  // namespace

Result<Value> cbor_decode(std::span<const uint8_t> bytes, const std::string& what) {
  static const cbor_callbacks kCallbacks = make_callbacks();
  Builder b;
  b.what = what;
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (b.root) {
      return Status(ErrorCode::malformed_manifest,
                    what + ": " + std::to_string(bytes.size() - pos) + " trailing bytes after the CBOR item");
    }
    b.bytes_left = bytes.size() - pos;
    cbor_decoder_result r = cbor_stream_decode(bytes.data() + pos, bytes.size() - pos, &kCallbacks, &b);
    if (b.failed()) return b.error;
    if (r.status == CBOR_DECODER_ERROR)
      return Status(ErrorCode::malformed_manifest, what + ": invalid CBOR at byte " + std::to_string(pos));
    if (r.status == CBOR_DECODER_NEDATA || r.read == 0)
      return Status(ErrorCode::malformed_manifest, what + ": CBOR truncated at byte " + std::to_string(pos));
    pos += r.read;
  }
  if (!b.root || b.in_indef_string || !b.stack.empty())
    return Status(ErrorCode::malformed_manifest, what + ": CBOR item is incomplete (truncated)");
  return std::move(*b.root);
}

}  // namespace zt
