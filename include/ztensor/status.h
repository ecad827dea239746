// The one error model of zTensor: every fallible function returns a Status or
// a Result<T>. The same ErrorCode values reach C (ztensor.h), Python
// (ztensor.ZTensorError subclasses) and the CLI (exit codes), so the numbers
// are part of the ABI: append, never renumber. ZT_API marks the few
// declarations libztensor.so exports (docs/architecture.md, "ABI").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include "ztensor/export.h"

namespace zt {

// The codes, their numbers and meanings: ztensor/error_codes.def, the one
// list that the C enum (ztensor.h) and Python's classes come from too.
enum class ErrorCode : int {
#define ZT_ERROR_CODE(name, number, c_name, python_class, meaning) name = number,
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
};
// Number of codes: one past the last.
inline constexpr int kErrorCodeCount = 0
#define ZT_ERROR_CODE(...) +1
#include "ztensor/error_codes.def"
#undef ZT_ERROR_CODE
    ;

// Stable lower-case name of a code ("digest_mismatch"), for messages and JSON.
ZT_API const char* error_code_name(ErrorCode code);

// `text` with every byte that is not printable UTF-8 (a control character
// other than newline and tab, DEL, or a byte outside a well-formed UTF-8
// sequence) written as \xNN. Idempotent: its output escapes to itself.
std::string escape_text(std::string_view text);

class [[nodiscard]] Status {
 public:
  Status() = default;
  // The message is stored with escape_text applied: it names objects from
  // hostile files, and every edge (C, Python, CLI) needs printable UTF-8.
  ZT_API Status(ErrorCode code, std::string message);
  static Status Ok() { return {}; }
  // A failed system call: `message` + ": " + strerror(err), and `err` kept
  // as sys_errno() so every edge (C, Python) can tell "no such file" from
  // "permission denied" by number instead of by text.
  static Status from_errno(ErrorCode code, std::string message, int err);
  // The same error (code and errno) with `prefix` before its message, for
  // callers adding the object or file it concerns.
  Status with_prefix(std::string_view prefix) const;

  bool ok() const { return code_ == ErrorCode::ok; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // errno of the system call that failed; 0 when the error did not come from one.
  int sys_errno() const { return sys_errno_; }
  // "digest_mismatch: object 'w' component 'data': ..." style text.
  ZT_API std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::ok;
  std::string message_;
  int sys_errno_ = 0;
};

// The Status of every successful Result: one object in the library, not one
// static per Result<T> instantiation.
ZT_API const Status& ok_status();

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}          // NOLINT
  Result(ErrorCode code, std::string msg) : v_(Status(code, std::move(msg))) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const { return ok() ? ok_status() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace zt

// Propagate a failing Status / Result from the current function.
#define ZT_RETURN_IF_ERROR(expr)                  \
  do {                                            \
    ::zt::Status zt_status_ = (expr);             \
    if (!zt_status_.ok()) return zt_status_;      \
  } while (0)

#define ZT_CONCAT_INNER(a, b) a##b
#define ZT_CONCAT(a, b) ZT_CONCAT_INNER(a, b)
#define ZT_ASSIGN_OR_RETURN(lhs, expr) ZT_ASSIGN_OR_RETURN_IMPL(ZT_CONCAT(zt_res_, __LINE__), lhs, expr)
#define ZT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
