#include "container/cbor_encode.h"

#include <cbor.h>

#include <cstring>

namespace zt {

// libcbor's encoders write a head into a caller buffer; 9 bytes fit any head.
template <class F>
void CborEncoder::put(F&& f) {
  unsigned char head[9];
  size_t n = f(head, sizeof head);
  out_.insert(out_.end(), head, head + n);
}

void CborEncoder::uint(uint64_t v) { put([&](unsigned char* b, size_t s) { return cbor_encode_uint(v, b, s); }); }
void CborEncoder::negative(uint64_t n) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_negint(n, b, s); });
}
void CborEncoder::text(std::string_view str) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_string_start(str.size(), b, s); });
  out_.insert(out_.end(), str.begin(), str.end());
}
void CborEncoder::bytes(std::string_view str) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_bytestring_start(str.size(), b, s); });
  out_.insert(out_.end(), str.begin(), str.end());
}
void CborEncoder::array_start(size_t n) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_array_start(n, b, s); });
}
void CborEncoder::map_start(size_t n) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_map_start(n, b, s); });
}
void CborEncoder::boolean(bool v) { put([&](unsigned char* b, size_t s) { return cbor_encode_bool(v, b, s); }); }
void CborEncoder::null() { put([&](unsigned char* b, size_t s) { return cbor_encode_null(b, s); }); }
void CborEncoder::float64(double d) {
  put([&](unsigned char* b, size_t s) { return cbor_encode_double(d, b, s); });
}

void CborEncoder::value(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::null: return null();
    case Value::Kind::boolean: return boolean(v.as_bool());
    case Value::Kind::uint: return uint(v.as_uint());
    case Value::Kind::nint: return negative(v.negative_arg());
    case Value::Kind::float64: return float64(v.as_double());
    case Value::Kind::text: return text(v.as_string());
    case Value::Kind::bytes: return bytes(v.as_string());
    case Value::Kind::array:
      array_start(v.as_array().size());
      for (const auto& item : v.as_array()) value(item);
      return;
    case Value::Kind::map:
      map_start(v.as_map().size());
      for (const auto& [k, item] : v.as_map()) {
        value(k);
        value(item);
      }
      return;
  }
}

}  // namespace zt
