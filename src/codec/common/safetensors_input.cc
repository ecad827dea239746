#include "codec/common/safetensors_input.h"

#include <string>

namespace z4ai::detail {
namespace {

zt::Status as_argument_error(const zt::Status& s) {
  return {zt::ErrorCode::invalid_argument,
          "safetensors buffer (" + std::string(zt::error_code_name(s.code())) + "): " + s.message()};
}

}  // namespace

zt::Result<zt::SafetensorsLayout> parse_safetensors_input(std::span<const uint8_t> st, bool require_tiling) {
  auto l = zt::parse_safetensors(st, {zt::SafetensorsOrder::verbatim, require_tiling});
  if (!l.ok()) return as_argument_error(l.status());
  for (const zt::SafetensorsTensor& t : l->parsed.tensors)
    if (t.name.size() > kMaxFrameNameBytes)
      return zt::Status(zt::ErrorCode::invalid_argument, "safetensors buffer: tensor name longer than 65535 bytes");
  return l;
}

zt::Result<zt::SafetensorsLayout> split_safetensors_input(std::span<const uint8_t> st) {
  auto l = zt::split_safetensors(st);
  if (!l.ok()) return as_argument_error(l.status());
  return l;
}

}  // namespace z4ai::detail
