// Turning a decoded CBOR manifest into the v1.2 model. Field-level checks
// (presence, CBOR types, dtype names) happen here; cross-field rules
// (sizes, bounds) are in validate.h.
#pragma once

#include "container/cbor_decode.h"
#include "container/validate.h"
#include "ztensor/manifest.h"
#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt {

// Where a field sits, for error messages. Built for free on the hot path;
// the text is only formatted when a message is needed.
struct Where {
  std::string_view label;   // used when no object is named ("manifest")
  std::string_view object;
  std::string_view role;
  std::string str() const;
};

struct ParsedManifest {
  Manifest manifest;
  ValidationRules rules;  // v1.1 files get the relaxed legacy rules
};

// v1.x root map ("ZTEN1000" files). v1.1 storage dtypes f8_e4m3, f8_e5m2,
// complex64, complex128 become storage dtype + logical type.
Result<ParsedManifest> parse_manifest_v1(const CborDoc& doc);

// v0.1 root array ("ZTEN0001" files), presented in v1.2 terms.
Result<ParsedManifest> parse_manifest_v01(const CborDoc& doc);

// Shared field readers over the token document: `ctx` names the place in
// messages. field() returns the value token, or 0 when an optional field is
// absent or null (token 0 is the root, never a field value).
Result<uint32_t> field(const CborDoc& doc, uint32_t map, const char* key, const Where& ctx, Value::Kind kind,
                       bool required);
// field() for a value token already found (0 = absent); same checks, same messages.
Result<uint32_t> check_field(const CborDoc& doc, uint32_t v, const char* key, const Where& ctx, Value::Kind kind,
                             bool required);
// One pass over a map's text keys: out[i] = value token of keys[i], or 0.
// Cheaper than a find() per field; duplicate keys were refused on decode.
template <size_t N>
void pick_fields(const CborDoc& doc, uint32_t map, const std::string_view (&keys)[N], uint32_t (&out)[N]) {
  for (auto& o : out) o = 0;
  const CborToken& m = doc.at(map);
  for (uint32_t k = map + 1, i = 0; i < m.u; ++i) {
    const CborToken& key = doc.at(k);
    uint32_t v = key.next;
    if (key.kind == Value::Kind::text) {
      std::string_view s = key.str();
      for (size_t j = 0; j < N; ++j)
        if (s == keys[j]) {
          out[j] = v;
          break;
        }
    }
    k = doc.at(v).next;
  }
}
Result<std::vector<uint64_t>> parse_shape(const CborDoc& doc, uint32_t array, const Where& ctx);
const char* kind_name(Value::Kind k);

}  // namespace zt
