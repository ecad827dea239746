// nlohmann::ordered_json keeps document order, which breaks ties between
// equal offsets the way the safetensors reference does.
#include "codec/common/safetensors_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "codec/common/byte_io.h"

namespace z4ai::detail {
namespace {

zt::Status bad(const std::string& what) { return {zt::ErrorCode::invalid_argument, "safetensors buffer: " + what}; }

}  // namespace

zt::Result<SafetensorsLayout> split_safetensors(std::span<const uint8_t> st) {
  if (st.size() < 8) return bad("shorter than 8 bytes");
  SafetensorsLayout l;
  l.header_len = load_u64(st.data());
  if (l.header_len > st.size() - 8) return bad("header length exceeds the buffer");
  l.header = st.subspan(8, size_t(l.header_len));
  l.data = st.subspan(size_t(8 + l.header_len));
  return l;
}

zt::Result<SafetensorsLayout> parse_safetensors(std::span<const uint8_t> st) {
  ZT_ASSIGN_OR_RETURN(SafetensorsLayout l, split_safetensors(st));
  auto json = nlohmann::ordered_json::parse(l.header.begin(), l.header.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) return bad("header is not a JSON object");
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& meta = it.value();
    if (!meta.is_object()) return bad("tensor '" + it.key() + "' is not an object");
    auto offs = meta.find("data_offsets");
    if (offs == meta.end() || !offs->is_array() || offs->size() != 2 || !(*offs)[0].is_number_unsigned() ||
        !(*offs)[1].is_number_unsigned())
      return bad("tensor '" + it.key() + "' has no valid data_offsets");
    SafetensorsTensor t{it.key(), "U8", {}, (*offs)[0].get<uint64_t>(), (*offs)[1].get<uint64_t>()};
    if (auto dt = meta.find("dtype"); dt != meta.end() && dt->is_string()) t.dtype = dt->get<std::string>();
    if (auto sh = meta.find("shape"); sh != meta.end() && sh->is_array())
      for (const auto& d : *sh) {
        if (!d.is_number_unsigned()) return bad("tensor '" + t.name + "' has a non-integer shape");
        t.shape.push_back(d.get<uint64_t>());
      }
    if (t.begin > t.end || t.end > l.data.size()) return bad("tensor '" + t.name + "' data_offsets out of range");
    if (t.name.size() > UINT16_MAX) return bad("tensor name longer than 65535 bytes");
    l.tensors.push_back(std::move(t));
  }
  std::stable_sort(l.tensors.begin(), l.tensors.end(),
                   [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.begin < b.begin; });
  return l;
}

}  // namespace z4ai::detail
