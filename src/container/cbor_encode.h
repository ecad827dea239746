// Deterministic CBOR encoding (definite lengths, shortest integer heads,
// map entries in insertion order) into a growing byte buffer.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ztensor/value.h"

namespace zt {

class CborEncoder {
 public:
  void uint(uint64_t v);
  void negative(uint64_t n);  // encodes -1 - n
  void text(std::string_view s);
  void bytes(std::string_view s);
  void array_start(size_t n);
  void map_start(size_t n);
  void boolean(bool b);
  void null();
  void float64(double d);
  void value(const Value& v);

  const std::vector<uint8_t>& data() const { return out_; }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  template <class F>
  void put(F&& f);
  std::vector<uint8_t> out_;
};

}  // namespace zt
