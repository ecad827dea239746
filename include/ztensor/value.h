// A CBOR data-model value: what attributes (file and per object) can hold.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zt {

class Value {
 public:
  enum class Kind : uint8_t { null, boolean, uint, nint, float64, text, bytes, array, map };
  using Array = std::vector<Value>;
  using Map = std::vector<std::pair<Value, Value>>;  // insertion order kept

  Value() = default;
  static Value null() { return {}; }
  static Value boolean(bool b) { Value v; v.kind_ = Kind::boolean; v.u_ = b; return v; }
  static Value uint(uint64_t x) { Value v; v.kind_ = Kind::uint; v.u_ = x; return v; }
  // Any int64; non-negative values are stored as uint.
  static Value integer(int64_t x) {
    if (x >= 0) return uint(static_cast<uint64_t>(x));
    Value v; v.kind_ = Kind::nint; v.i_ = x; return v;
  }
  // CBOR negative integer -1 - n (may be below INT64_MIN); stored as n.
  static Value negative(uint64_t n) { Value v; v.kind_ = Kind::nint; v.u_ = n; v.neg_raw_ = true; return v; }
  static Value float64(double d) { Value v; v.kind_ = Kind::float64; v.d_ = d; return v; }
  static Value text(std::string s) { Value v; v.kind_ = Kind::text; v.s_ = std::move(s); return v; }
  static Value bytes(std::string s) { Value v; v.kind_ = Kind::bytes; v.s_ = std::move(s); return v; }
  static Value array(Array a = {}) { Value v; v.kind_ = Kind::array; v.a_ = std::make_shared<Array>(std::move(a)); return v; }
  static Value map(Map m = {}) { Value v; v.kind_ = Kind::map; v.m_ = std::make_shared<Map>(std::move(m)); return v; }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_text() const { return kind_ == Kind::text; }
  bool is_map() const { return kind_ == Kind::map; }
  bool is_array() const { return kind_ == Kind::array; }
  bool is_uint() const { return kind_ == Kind::uint; }

  bool as_bool() const { return u_ != 0; }
  uint64_t as_uint() const { return u_; }
  // For nint: the int64 value when representable (check fits_int64()).
  bool fits_int64() const { return kind_ == Kind::nint ? !neg_raw_ || u_ <= INT64_MAX : u_ <= INT64_MAX; }
  int64_t as_int64() const {
    if (kind_ == Kind::nint) return neg_raw_ ? -1 - static_cast<int64_t>(u_) : i_;
    return static_cast<int64_t>(u_);
  }
  // The CBOR argument n of a negative integer (-1 - n).
  uint64_t negative_arg() const { return neg_raw_ ? u_ : static_cast<uint64_t>(-1 - i_); }
  double as_double() const { return d_; }
  const std::string& as_string() const { return s_; }  // text or bytes
  const Array& as_array() const { return *a_; }
  Array& mutable_array() { return *a_; }
  const Map& as_map() const { return *m_; }
  Map& mutable_map() { return *m_; }

  // Map lookup by text key; nullptr when absent or not a map.
  const Value* find(std::string_view key) const {
    if (kind_ != Kind::map) return nullptr;
    for (const auto& [k, v] : *m_)
      if (k.kind_ == Kind::text && k.s_ == key) return &v;
    return nullptr;
  }
  // Append a text-keyed entry to a map value.
  void set(std::string key, Value v) { m_->emplace_back(text(std::move(key)), std::move(v)); }

 private:
  Kind kind_ = Kind::null;
  bool neg_raw_ = false;
  uint64_t u_ = 0;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::shared_ptr<Array> a_;
  std::shared_ptr<Map> m_;
};

}  // namespace zt
