#include "callback_source.h"

#include <cstring>

namespace nb = nanobind;

namespace ztpy {
namespace {

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
      return zt::Status(zt::ErrorCode::io_error, "'" + name_ + "': " + e.what());
    }
  }

 private:
  std::string name_;
  uint64_t size_;
  nb::callable read_;
};

}  // namespace

std::shared_ptr<const zt::ByteSource> make_callback_source(std::string name, uint64_t size, nb::callable read) {
  return std::make_shared<CallbackSource>(std::move(name), size, std::move(read));
}

}  // namespace ztpy
