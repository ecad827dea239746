#include "ztensor/status.h"

#include <cstring>

namespace zt {

namespace {

// error_codes.def lists the codes in number order from 0 with no gap, so
// kErrorCodeCount (its row count) is one past the last number, and every
// number below it has a name.
constexpr int kCodeNumbers[] = {
#define ZT_ERROR_CODE(name, number, c_name, python_class, meaning) number,
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
};
constexpr bool numbered_in_order() {
  for (int i = 0; i < kErrorCodeCount; ++i)
    if (kCodeNumbers[i] != i) return false;
  return true;
}
static_assert(numbered_in_order(), "error_codes.def: rows must be numbered 0, 1, 2, ... in order");

}  // namespace

const char* error_code_name(ErrorCode code) {
  switch (code) {
#define ZT_ERROR_CODE(name, number, c_name, python_class, meaning) \
  case ErrorCode::name:                                            \
    return #name;
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
  }
  return "unknown_error";
}

const Status& ok_status() {
  static const Status kOk;
  return kOk;
}

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no
// overlongs, no surrogates, nothing past U+10FFFF), or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = at(i);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b == 0xE0) lo = 0xA0;
  if (b == 0xED) hi = 0x9F;
  if (b == 0xF0) lo = 0x90;
  if (b == 0xF4) hi = 0x8F;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string escape_text(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    if (b >= 0x80) {
      if (size_t n = utf8_sequence(text, i)) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    } else if ((b >= 0x20 && b != 0x7F) || b == '\n' || b == '\t') {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    out += "\\x";
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
    ++i;
  }
  return out;
}

Status::Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {
  // Most messages are plain ASCII: check before copying.
  for (char ch : message_) {
    auto b = static_cast<unsigned char>(ch);
    if (b >= 0x80 || (b < 0x20 && b != '\n' && b != '\t') || b == 0x7F) {
      message_ = escape_text(message_);
      break;
    }
  }
}

Status Status::from_errno(ErrorCode code, std::string message, int err) {
  message += ": ";
  message += std::strerror(err);
  Status s(code, std::move(message));
  s.sys_errno_ = err;
  return s;
}

Status Status::with_prefix(std::string_view prefix) const {
  Status s(code_, std::string(prefix) + message_);
  s.sys_errno_ = sys_errno_;
  return s;
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

}  // namespace zt
