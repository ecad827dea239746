// CBOR (RFC 8949) decoding under explicit limits. libcbor's streaming
// decoder tokenises one item header at a time; we record a flat token array
// (strings are views into the input) with our own explicit stack, so hostile
// nesting cannot overflow the C stack and parsing a large manifest costs no
// allocation per item.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt {

struct CborToken {
  Value::Kind kind = Value::Kind::null;
  bool neg_raw = true;  // nint: `u` is the CBOR argument n of -1 - n
  uint32_t next = 0;    // index one past this item's whole subtree
  uint64_t u = 0;       // uint value, nint argument, string length, array items, map pairs
  union {                   // 24-byte tokens: a large manifest touches fewer pages
    const char* s = nullptr;  // text/bytes data (input or CborDoc-owned)
    double d;                 // float64
  };

  std::string_view str() const { return {s, static_cast<size_t>(u)}; }
};

class CborDoc {
 public:
  const CborToken& at(uint32_t i) const { return tokens_[i]; }
  uint32_t size() const { return static_cast<uint32_t>(tokens_.size()); }
  // Map navigation: value token of a text key, or 0 (never a valid child).
  uint32_t find(uint32_t map, std::string_view key) const;
  // Deep copy of the subtree at `i` as a Value (for attributes).
  Value to_value(uint32_t i) const;

 private:
  friend struct CborBuilder;
  std::vector<CborToken> tokens_;
  std::deque<std::string> owned_;  // joined indefinite-length strings
};

// Decodes exactly one CBOR item spanning all of `bytes` (trailing bytes are
// an error). Token string views point into `bytes`, which must outlive the
// document. `what` names the buffer in messages ("manifest").
// Errors: malformed_manifest, limit_exceeded.
Result<CborDoc> cbor_parse(std::span<const uint8_t> bytes, const std::string& what);

// The same, as a Value tree (tests, small buffers).
Result<Value> cbor_decode(std::span<const uint8_t> bytes, const std::string& what);

}  // namespace zt
