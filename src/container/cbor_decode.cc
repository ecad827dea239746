#include "container/cbor_decode.h"

#include <cbor.h>

#include <optional>
#include <functional>

#include "container/limits.h"

namespace zt {

namespace {

struct Frame {
  uint32_t token;
  bool is_map;
  bool indefinite;
  uint64_t remaining;  // items still expected (maps count keys and values)
  uint64_t seen;       // items attached so far
};

}  // namespace

// Receives libcbor's streaming callbacks. Callbacks cannot return errors, so
// the first failure is parked in `error` and the driving loop stops.
struct CborBuilder {
  std::string what;
  CborDoc doc;
  std::vector<Frame> stack;
  bool done = false;
  Status error;
  uint64_t bytes_left = 0;  // bytes from the current item header to the end
  bool in_indef_string = false;
  bool indef_is_bytes = false;
  std::string indef_buf;

  std::vector<CborToken>& tokens() { return doc.tokens_; }
  bool failed() const { return !error.ok(); }
  void fail(ErrorCode code, std::string msg) {
    if (!failed()) error = Status(code, what + ": " + msg);
  }

  bool new_item() {
    if (failed()) return false;
    if (in_indef_string) {
      fail(ErrorCode::malformed_manifest, "non-string item inside an indefinite-length string");
      return false;
    }
    if (done) {
      fail(ErrorCode::malformed_manifest, "more than one top-level item");
      return false;
    }
    if (tokens().size() >= limits::kMaxCborItems) {
      fail(ErrorCode::limit_exceeded,
           "more than " + std::to_string(limits::kMaxCborItems) + " CBOR items (kMaxCborItems)");
      return false;
    }
    return true;
  }

  // RFC 8949 §5.6: a map with duplicate keys is not valid; accepting one
  // would let two readers see different manifests in the same bytes.
  bool duplicate_key(uint32_t map) {
    const auto& t = tokens();
    constexpr size_t kSmall = 16;  // manifest maps are tiny: compare on the stack
    if (t[map].u > kSmall) return duplicate_key_large(map);
    std::string_view small[kSmall];
    size_t nsmall = 0;
    for (uint32_t k = map + 1, i = 0; i < t[map].u; ++i) {
      if (t[k].kind == Value::Kind::text) {
        std::string_view key = t[k].str();
        for (size_t j = 0; j < nsmall; ++j)
          if (small[j] == key) return dup_key(key);
        small[nsmall++] = key;
      }
      k = t[t[k].next].next;  // skip key, then value
    }
    return false;
  }

  // The objects map (10,000s of keys): one open-addressing table of key
  // token indices, reused across maps; no allocation per key.
  std::vector<uint32_t> slots;
  bool duplicate_key_large(uint32_t map) {
    const auto& t = tokens();
    size_t cap = 64;
    while (cap < t[map].u * 2) cap <<= 1;  // u <= item cap, so this stays bounded
    slots.assign(cap, 0);
    const size_t mask = cap - 1;
    for (uint32_t k = map + 1, i = 0; i < t[map].u; ++i) {
      if (t[k].kind == Value::Kind::text) {
        std::string_view key = t[k].str();
        for (size_t h = std::hash<std::string_view>{}(key) & mask;; h = (h + 1) & mask) {
          if (slots[h] == 0) {
            slots[h] = k;  // k > map >= 0, so 0 means empty
            break;
          }
          if (t[slots[h]].str() == key) return dup_key(key);
        }
      }
      k = t[t[k].next].next;
    }
    return false;
  }

  bool dup_key(std::string_view key) {
    fail(ErrorCode::malformed_manifest, "map has the key '" + std::string(key) + "' twice");
    return true;
  }

  // A complete item arrived: count it in its parent and close every
  // definite container whose last item it was.
  void item_done() {
    for (;;) {
      if (stack.empty()) {
        done = true;
        return;
      }
      Frame& top = stack.back();
      ++top.seen;
      if (top.indefinite || --top.remaining > 0) return;
      close_top();
      if (failed()) return;
    }
  }

  void close_top() {
    Frame f = stack.back();
    stack.pop_back();
    CborToken& t = tokens()[f.token];
    t.next = static_cast<uint32_t>(tokens().size());
    t.u = f.is_map ? f.seen / 2 : f.seen;
    if (f.is_map) duplicate_key(f.token);
  }

  void scalar(CborToken t) {
    if (!new_item()) return;
    t.next = static_cast<uint32_t>(tokens().size() + 1);
    tokens().push_back(t);
    item_done();
  }

  void open_container(bool is_map, std::optional<uint64_t> size) {
    if (!new_item()) return;
    if (stack.size() >= limits::kMaxCborDepth)
      return fail(ErrorCode::limit_exceeded,
                  "CBOR nesting deeper than " + std::to_string(limits::kMaxCborDepth) + " (kMaxCborDepth)");
    CborToken t;
    t.kind = is_map ? Value::Kind::map : Value::Kind::array;
    uint32_t index = static_cast<uint32_t>(tokens().size());
    if (size) {
      // Every item takes at least one byte, so a claim larger than the
      // remaining input is a lie; refuse it before allocating anything.
      uint64_t per = is_map ? 2 : 1;
      if (*size > bytes_left / per)
        return fail(ErrorCode::malformed_manifest, (is_map ? "map claims " : "array claims ") +
                                                       std::to_string(*size) + " entries but only " +
                                                       std::to_string(bytes_left) + " bytes remain");
      if (*size == 0) {
        t.next = index + 1;
        tokens().push_back(t);
        return item_done();
      }
      tokens().push_back(t);
      stack.push_back({index, is_map, false, *size * per, 0});
    } else {
      tokens().push_back(t);
      stack.push_back({index, is_map, true, 0, 0});
    }
  }

  void string_chunk(bool is_bytes, const uint8_t* data, size_t len) {
    if (failed()) return;
    if (len > limits::kMaxCborStringBytes)
      return fail(ErrorCode::limit_exceeded, "string of " + std::to_string(len) + " bytes over kMaxCborStringBytes");
    if (in_indef_string) {
      if (is_bytes != indef_is_bytes)
        return fail(ErrorCode::malformed_manifest, "mixed chunk types in an indefinite-length string");
      if (indef_buf.size() + len > limits::kMaxCborStringBytes)
        return fail(ErrorCode::limit_exceeded, "indefinite-length string over kMaxCborStringBytes");
      indef_buf.append(reinterpret_cast<const char*>(data), len);
      return;
    }
    CborToken t;
    t.kind = is_bytes ? Value::Kind::bytes : Value::Kind::text;
    t.s = reinterpret_cast<const char*>(data);
    t.u = len;
    scalar(t);
  }

  void start_indef_string(bool is_bytes) {
    if (!new_item()) return;
    in_indef_string = true;
    indef_is_bytes = is_bytes;
    indef_buf.clear();
  }

  void brk() {
    if (failed()) return;
    if (in_indef_string) {
      in_indef_string = false;
      const std::string& s = doc.owned_.emplace_back(std::move(indef_buf));
      indef_buf.clear();
      CborToken t;
      t.kind = indef_is_bytes ? Value::Kind::bytes : Value::Kind::text;
      t.s = s.data();
      t.u = s.size();
      return scalar(t);
    }
    if (stack.empty() || !stack.back().indefinite)
      return fail(ErrorCode::malformed_manifest, "unexpected break code");
    if (stack.back().is_map && stack.back().seen % 2 != 0)
      return fail(ErrorCode::malformed_manifest, "map ends after a key with no value");
    close_top();
    if (!failed()) item_done();
  }
};

namespace {

CborBuilder& B(void* ctx) { return *static_cast<CborBuilder*>(ctx); }

CborToken uint_token(uint64_t v) {
  CborToken t;
  t.kind = Value::Kind::uint;
  t.u = v;
  return t;
}
CborToken neg_token(uint64_t n) {
  CborToken t;
  t.kind = Value::Kind::nint;
  t.u = n;
  return t;
}
CborToken float_token(double d) {
  CborToken t;
  t.kind = Value::Kind::float64;
  t.d = d;
  return t;
}

void on_uint(void* c, uint64_t v) { B(c).scalar(uint_token(v)); }
void on_uint8(void* c, uint8_t v) { on_uint(c, v); }
void on_uint16(void* c, uint16_t v) { on_uint(c, v); }
void on_uint32(void* c, uint32_t v) { on_uint(c, v); }
void on_neg(void* c, uint64_t n) { B(c).scalar(neg_token(n)); }
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
void on_float(void* c, float f) { B(c).scalar(float_token(f)); }
void on_double(void* c, double d) { B(c).scalar(float_token(d)); }
void on_null(void* c) { B(c).scalar(CborToken{}); }
void on_bool(void* c, bool b) {
  CborToken t;
  t.kind = Value::Kind::boolean;
  t.u = b;
  B(c).scalar(t);
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

uint32_t CborDoc::find(uint32_t map, std::string_view key) const {
  const CborToken& m = tokens_[map];
  if (m.kind != Value::Kind::map) return 0;
  for (uint32_t k = map + 1, i = 0; i < m.u; ++i) {
    uint32_t v = tokens_[k].next;
    if (tokens_[k].kind == Value::Kind::text && tokens_[k].str() == key) return v;
    k = tokens_[v].next;
  }
  return 0;
}

Value CborDoc::to_value(uint32_t i) const {
  const CborToken& t = tokens_[i];
  switch (t.kind) {
    case Value::Kind::null: return Value::null();
    case Value::Kind::boolean: return Value::boolean(t.u != 0);
    case Value::Kind::uint: return Value::uint(t.u);
    case Value::Kind::nint: return Value::negative(t.u);
    case Value::Kind::float64: return Value::float64(t.d);
    case Value::Kind::text: return Value::text(std::string(t.str()));
    case Value::Kind::bytes: return Value::bytes(std::string(t.str()));
    case Value::Kind::array: {
      Value::Array a;
      for (uint32_t c = i + 1, n = 0; n < t.u; ++n, c = tokens_[c].next) a.push_back(to_value(c));
      return Value::array(std::move(a));
    }
    case Value::Kind::map: {
      Value::Map m;
      for (uint32_t k = i + 1, n = 0; n < t.u; ++n) {
        uint32_t v = tokens_[k].next;
        m.emplace_back(to_value(k), to_value(v));
        k = tokens_[v].next;
      }
      return Value::map(std::move(m));
    }
  }
  return Value::null();
}

Result<CborDoc> cbor_parse(std::span<const uint8_t> bytes, const std::string& what) {
  static const cbor_callbacks kCallbacks = make_callbacks();
  CborBuilder b;
  b.what = what;
  b.tokens().reserve(std::min<size_t>(bytes.size() / 4 + 1, 1 << 20));
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (b.done)
      return Status(ErrorCode::malformed_manifest,
                    what + ": " + std::to_string(bytes.size() - pos) + " trailing bytes after the CBOR item");
    b.bytes_left = bytes.size() - pos;
    cbor_decoder_result r = cbor_stream_decode(bytes.data() + pos, bytes.size() - pos, &kCallbacks, &b);
    if (b.failed()) return b.error;
    if (r.status == CBOR_DECODER_ERROR)
      return Status(ErrorCode::malformed_manifest, what + ": invalid CBOR at byte " + std::to_string(pos));
    if (r.status == CBOR_DECODER_NEDATA || r.read == 0)
      return Status(ErrorCode::malformed_manifest, what + ": CBOR truncated at byte " + std::to_string(pos));
    pos += r.read;
  }
  if (!b.done || b.in_indef_string || !b.stack.empty())
    return Status(ErrorCode::malformed_manifest, what + ": CBOR item is incomplete (truncated)");
  return std::move(b.doc);
}

Result<Value> cbor_decode(std::span<const uint8_t> bytes, const std::string& what) {
  ZT_ASSIGN_OR_RETURN(CborDoc doc, cbor_parse(bytes, what));
  return doc.to_value(0);
}

}  // namespace zt
