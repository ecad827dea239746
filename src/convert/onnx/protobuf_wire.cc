#include "convert/onnx/protobuf_wire.h"

namespace zt::pb {

Result<uint64_t> read_varint(std::span<const uint8_t> buf, size_t* pos) {
  uint64_t v = 0;
  for (int i = 0; i < kMaxVarintBytes; ++i) {
    if (*pos >= buf.size()) return Status(ErrorCode::malformed_manifest, "protobuf: varint runs past the end of its message");
    uint8_t b = buf[(*pos)++];
    // The 10th byte may only carry the 64th bit.
    if (i == kMaxVarintBytes - 1 && b > 1) return Status(ErrorCode::malformed_manifest, "protobuf: varint overflows 64 bits");
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return v;
  }
  return Status(ErrorCode::malformed_manifest, "protobuf: varint longer than 10 bytes");
}

Result<Field> Reader::next() {
  auto fail = [&](const std::string& rule) {
    return Status(ErrorCode::malformed_manifest, "protobuf " + what_ + " at byte " + std::to_string(pos_) + ": " + rule);
  };
  auto tag = read_varint(buf_, &pos_);
  if (!tag.ok()) return fail("bad field tag (" + tag.status().message() + ")");
  Field f;
  uint64_t number = *tag >> 3;
  f.wire = static_cast<WireType>(*tag & 7);
  if (number == 0 || number > 0x1fffffff) return fail("field number " + std::to_string(number) + " is out of range");
  f.number = static_cast<uint32_t>(number);
  size_t start = pos_;
  switch (f.wire) {
    case kVarint: {
      auto v = read_varint(buf_, &pos_);
      if (!v.ok()) return fail("field " + std::to_string(number) + ": " + v.status().message());
      f.value = *v;
      break;
    }
    case kFixed64:
    case kFixed32: {
      size_t n = f.wire == kFixed64 ? 8 : 4;
      if (buf_.size() - pos_ < n) return fail("field " + std::to_string(number) + " runs past the end");
      for (size_t i = n; i-- > 0;) f.value = (f.value << 8) | buf_[pos_ + i];
      pos_ += n;
      break;
    }
    case kLen: {
      auto n = read_varint(buf_, &pos_);
      if (!n.ok()) return fail("field " + std::to_string(number) + " length: " + n.status().message());
      if (*n > buf_.size() - pos_)
        return fail("field " + std::to_string(number) + " of " + std::to_string(*n) + " bytes runs past the end (" +
                    std::to_string(buf_.size() - pos_) + " left)");
      f.bytes = buf_.subspan(pos_, static_cast<size_t>(*n));
      pos_ += static_cast<size_t>(*n);
      return f;
    }
    case kStartGroup:
    case kEndGroup:
      return Status(ErrorCode::unsupported, "protobuf " + what_ + ": field " + std::to_string(number) +
                                                " uses the deprecated group encoding (not read)");
    default:
      return fail("field " + std::to_string(number) + " has unknown wire type " + std::to_string(f.wire));
  }
  f.bytes = buf_.subspan(start, pos_ - start);
  return f;
}

Result<uint64_t> count_varints(std::span<const uint8_t> run) {
  uint64_t n = 0;
  size_t pos = 0;
  while (pos < run.size()) {
    ZT_RETURN_IF_ERROR(read_varint(run, &pos).status());
    ++n;
  }
  return n;
}

}  // namespace zt::pb
