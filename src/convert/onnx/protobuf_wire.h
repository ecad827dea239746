// Protocol-buffers wire format, read directly (no protobuf library): a
// message is a sequence of (tag varint, payload) fields. Only the wire types
// of proto3 are accepted; groups (3/4) are refused. Every length is checked
// against the bytes that remain, so a reader never looks past its message.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ztensor/status.h"

namespace zt::pb {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

// "A varint is at most 10 bytes" (protobuf encoding guide).
inline constexpr int kMaxVarintBytes = 10;

struct Field {
  uint32_t number = 0;
  WireType wire = kVarint;
  uint64_t value = 0;               // varint, fixed32 and fixed64 payloads
  std::span<const uint8_t> bytes;   // kLen payload; for the others, the encoded value
};

// Decodes one varint at `*pos`, advancing it. Errors: malformed_manifest
// (truncated, longer than 10 bytes, or over 64 bits).
Result<uint64_t> read_varint(std::span<const uint8_t> buf, size_t* pos);

class Reader {
 public:
  // `what` names the message in error text ("ModelProto", "tensor 'w'").
  Reader(std::span<const uint8_t> buf, std::string what) : buf_(buf), what_(std::move(what)) {}
  bool done() const { return pos_ >= buf_.size(); }
  // The next field. Errors: malformed_manifest (bad tag, truncated payload,
  // field number 0), unsupported (group wire types).
  Result<Field> next();

 private:
  std::span<const uint8_t> buf_;
  size_t pos_ = 0;
  std::string what_;
};

// Values of a repeated scalar field, whether packed (one kLen payload) or
// not (one field per value): `bytes` of each occurrence decoded as a run.
// Counting validates the run; a trailing partial value is malformed.
Result<uint64_t> count_varints(std::span<const uint8_t> run);

}  // namespace zt::pb
