// A strict parser for exactly the Python literal numpy writes as a .npy
// header: a dict of three keys with a str, a bool and a tuple of ints.
// Nothing is evaluated; anything outside that subset is malformed.
#include <cctype>

#include "convert/numpy/npy_header.h"

namespace zt::npy {
namespace {

class LiteralParser {
 public:
  LiteralParser(std::string_view s, const std::string& what) : s_(s), what_(what) {}

  Status parse(Header* out) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip_ws();
    if (!eat('{')) return bad("must start with '{'");
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      ZT_RETURN_IF_ERROR(string(&key));
      skip_ws();
      if (!eat(':')) return bad("expected ':' after key '" + key + "'");
      skip_ws();
      if (key == "descr") {
        if (seen_descr) return bad("key 'descr' appears twice");
        seen_descr = true;
        if (peek() == '[')
          return Status(ErrorCode::unsupported, what_ + ": structured dtypes (a list 'descr') are not supported");
        ZT_RETURN_IF_ERROR(string(&out->descr));
      } else if (key == "fortran_order") {
        if (seen_fortran) return bad("key 'fortran_order' appears twice");
        seen_fortran = true;
        if (word("True")) out->fortran_order = true;
        else if (word("False")) out->fortran_order = false;
        else return bad("'fortran_order' must be True or False");
      } else if (key == "shape") {
        if (seen_shape) return bad("key 'shape' appears twice");
        seen_shape = true;
        ZT_RETURN_IF_ERROR(tuple(&out->shape));
      } else {
        return bad("unexpected key '" + key + "' (numpy writes only descr, fortran_order, shape)");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return bad("expected ',' or '}' at byte " + std::to_string(pos_));
    }
    if (!seen_descr || !seen_fortran || !seen_shape)
      return bad(std::string("missing key '") + (!seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape") + "'");
    skip_ws();
    if (pos_ != s_.size()) return bad("unexpected text after the dict at byte " + std::to_string(pos_));
    return Status::Ok();
  }

 private:
  Status bad(const std::string& rule) const {
    return Status(ErrorCode::malformed_manifest, what_ + ": npy header literal: " + rule);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  // '...' or "..." without escapes (numpy's descr and key strings have none).
  Status string(std::string* out) {
    const char q = peek();
    if (q != '\'' && q != '"') return bad("expected a quoted string at byte " + std::to_string(pos_));
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) return bad("unterminated string");
    std::string_view body = s_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos || body.find('\n') != std::string_view::npos)
      return bad("escape sequences and newlines in strings are not part of the header subset");
    out->assign(body);
    pos_ = end + 1;
    return Status::Ok();
  }
  // A non-negative decimal int, as Python writes it (optional legacy 'L').
  Status integer(uint64_t* out) {
    const size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      const uint64_t d = static_cast<uint64_t>(s_[pos_] - '0');
      if (v > (kMaxDim - d) / 10)
        return Status(ErrorCode::shape_overflow, what_ + ": npy header: a dimension exceeds 2^63 - 1");
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ == start) return bad("expected a non-negative integer in 'shape' at byte " + std::to_string(pos_));
    if (pos_ - start > 1 && s_[start] == '0') return bad("integer with a leading zero in 'shape'");
    eat('L');
    *out = v;
    return Status::Ok();
  }
  // () | (n,) | (n, m, ...) with an optional trailing comma.
  Status tuple(std::vector<uint64_t>* out) {
    if (!eat('(')) return bad("'shape' must be a tuple");
    out->clear();
    for (;;) {
      skip_ws();
      if (eat(')')) break;
      if (out->size() == kMaxRank) return bad("'shape' has more than " + std::to_string(kMaxRank) + " dimensions");
      uint64_t d = 0;
      ZT_RETURN_IF_ERROR(integer(&d));
      out->push_back(d);
      skip_ws();
      if (eat(',')) continue;
      if (!eat(')')) return bad("expected ',' or ')' in 'shape'");
      // "(3)" is the int 3 in Python, not a tuple.
      if (out->size() == 1) return bad("a one-element 'shape' needs a trailing comma: (n,)");
      break;
    }
    return Status::Ok();
  }

  std::string_view s_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

Status parse_literal(std::string_view text, const std::string& what, Header* out) {
  return LiteralParser(text, what).parse(out);
}

}  // namespace zt::npy
