#include "callback_source.h"

#include <cstring>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace ztpy {
namespace {

// Longest first line of a foreign Python exception kept in a status.
constexpr size_t kMaxForeignMessageChars = 200;

zt::ErrorCode code_from_name(const std::string& name) {
  for (int i = 1; i < zt::kErrorCodeCount; ++i)
    if (name == zt::error_code_name(static_cast<zt::ErrorCode>(i))) return static_cast<zt::ErrorCode>(i);
  return zt::ErrorCode::io_error;
}

class CallbackSource final : public zt::ByteSource {
 public:
  CallbackSource(std::string name, uint64_t size, nb::callable read)
      : name_(std::move(name)), size_(size), read_(std::move(read)) {}
  ~CallbackSource() override {
    nb::gil_scoped_acquire gil;  // the last owner may be a thread without it
    read_.reset();
  }
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }

  // Called with the GIL released (the readers run without it).
  zt::Status read_at(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset > size_ || out.size() > size_ - offset)
      return zt::Status(zt::ErrorCode::offset_out_of_range, "'" + name_ + "': bytes " + std::to_string(offset) + "+" +
                                                                std::to_string(out.size()) + " are past its end");
    if (out.empty()) return zt::Status::Ok();
    nb::gil_scoped_acquire gil;
    try {
      nb::object got = read_(offset, out.size());
      if (!nb::isinstance<nb::bytes>(got))
        return zt::Status(zt::ErrorCode::io_error, "'" + name_ + "': the read callback did not return bytes");
      nb::bytes b = nb::borrow<nb::bytes>(got);
      if (b.size() != out.size())
        return zt::Status(zt::ErrorCode::length_mismatch, "'" + name_ + "': got " + std::to_string(b.size()) +
                                                              " of the " + std::to_string(out.size()) +
                                                              " bytes at offset " + std::to_string(offset) +
                                                              " (the file changed or is truncated)");
      std::memcpy(out.data(), b.c_str(), out.size());
      return zt::Status::Ok();
    } catch (const nb::python_error& e) {
      return status_from_python_error(e, name_);
    }
  }

 private:
  std::string name_;
  uint64_t size_;
  nb::callable read_;
};

}  // namespace

zt::Status status_from_python_error(const nb::python_error& e, const std::string& name) {
  nb::handle value = e.value();
  try {
    nb::object ztensor_error = nb::module_::import_("ztensor.errors").attr("ZTensorError");
    if (nb::isinstance(value, ztensor_error))  // already says which URL and what rule, with its code
      return zt::Status(code_from_name(nb::cast<std::string>(value.attr("code"))), nb::cast<std::string>(nb::str(value)));
    std::string text = nb::cast<std::string>(nb::str(value));
    text = text.substr(0, text.find('\n'));
    if (text.size() > kMaxForeignMessageChars) text = text.substr(0, kMaxForeignMessageChars) + "...";
    return zt::Status(zt::ErrorCode::io_error, "'" + name + "': " + Py_TYPE(value.ptr())->tp_name + ": " + text);
  } catch (const std::exception&) {  // the exception's str() or code failed in turn
    return zt::Status(zt::ErrorCode::io_error, "'" + name + "': " + Py_TYPE(value.ptr())->tp_name);
  }
}

std::shared_ptr<const zt::ByteSource> make_callback_source(std::string name, uint64_t size, nb::callable read) {
  return std::make_shared<CallbackSource>(std::move(name), size, std::move(read));
}

}  // namespace ztpy
