#include "convert/format_sniff.h"

#include <cstring>
#include <string_view>

#include "convert/safetensors_reader.h"
#include "ztensor/convert.h"

namespace zt::sniff {
namespace {

bool starts_with(std::span<const uint8_t> head, std::string_view magic) {
  return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
}

bool name_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_zip(std::span<const uint8_t> head) {
  return starts_with(head, "PK\x03\x04") || starts_with(head, "PK\x05\x06");
}

// A zip is an .npz when its first member is an array, a PyTorch archive when
// it is the pickle (torch.save) or a record of one (torch.jit.save writes
// data/ first, then code/ and constants.pkl; the pytorch reader names and
// refuses those); otherwise the extension decides.
FileFormat zip_kind(std::span<const uint8_t> head, const std::string& path) {
  if (head.size() >= 30) {
    size_t len = head[26] | (head[27] << 8);
    if (30 + len <= head.size()) {
      std::string_view name(reinterpret_cast<const char*>(head.data() + 30), len);
      if (name_ends_with(name, ".npy")) return FileFormat::npz;
      if (name_ends_with(name, "data.pkl") || name_ends_with(name, "constants.pkl")) return FileFormat::pytorch;
      size_t slash = name.find('/');
      if (slash != std::string_view::npos) {
        std::string_view rest = name.substr(slash + 1);
        if (rest.starts_with("data/") || rest.starts_with("code/")) return FileFormat::pytorch;
      }
    }
  }
  FileFormat ext = format_from_extension(path);
  return ext == FileFormat::npz || ext == FileFormat::pytorch ? ext : FileFormat::npz;
}

}  // namespace

bool zt(std::span<const uint8_t> head, uint64_t, const std::string&) {
  return starts_with(head, "ZTEN");  // ZTEN1000, legacy ZTEN0001
}

bool gguf(std::span<const uint8_t> head, uint64_t, const std::string&) { return starts_with(head, "GGUF"); }

bool npy(std::span<const uint8_t> head, uint64_t, const std::string&) { return starts_with(head, "\x93NUMPY"); }

bool npz(std::span<const uint8_t> head, uint64_t, const std::string& path) {
  return is_zip(head) && zip_kind(head, path) == FileFormat::npz;
}

bool pytorch(std::span<const uint8_t> head, uint64_t, const std::string& path) {
  return is_zip(head) && zip_kind(head, path) == FileFormat::pytorch;
}

// A little-endian header size that fits the file and the cap, then '{'.
bool safetensors(std::span<const uint8_t> head, uint64_t size, const std::string&) {
  if (head.size() < 9 || head[8] != '{') return false;
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | head[i];
  return header <= kMaxSafetensorsHeaderBytes && size >= 8 && header <= size - 8;
}

// ONNX has no magic, but every exporter writes ModelProto.ir_version (field
// 1, a small varint) first, followed by another ModelProto field: a tag
// pair that neither of the other headerless formats (safetensors, legacy
// pickles) can start with.
bool onnx(std::span<const uint8_t> head, uint64_t, const std::string&) {
  constexpr uint8_t kIrVersionTag = 0x08;  // field 1, varint
  constexpr uint8_t kMaxIrVersion = 64;    // 13 in 2025; one byte leaves room
  if (head.size() < 4 || head[0] != kIrVersionTag || head[1] == 0 || head[1] >= kMaxIrVersion) return false;
  uint8_t tag = head[2];
  uint8_t field = tag >> 3, wire = tag & 7;
  switch (field) {
    case 2: case 3: case 4: case 6: case 7: case 8: case 14: case 20: case 25:  // strings and messages
      return wire == 2;
    case 5:  // model_version
      return wire == 0;
    default:
      return false;
  }
}

}  // namespace zt::sniff
