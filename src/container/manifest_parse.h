// Turning a decoded CBOR manifest into the v1.2 model. Field-level checks
// (presence, CBOR types, dtype names) happen here; cross-field rules
// (sizes, bounds) are in validate.h.
#pragma once

#include "container/validate.h"
#include "ztensor/manifest.h"
#include "ztensor/status.h"
#include "ztensor/value.h"

namespace zt {

struct ParsedManifest {
  Manifest manifest;
  ValidationRules rules;  // v1.1 files get the relaxed legacy rules
};

// v1.x root map ("ZTEN1000" files). v1.1 storage dtypes f8_e4m3, f8_e5m2,
// complex64, complex128 become storage dtype + logical type.
Result<ParsedManifest> parse_manifest_v1(const Value& root);

// v0.1 root array ("ZTEN0001" files), presented in v1.2 terms.
Result<ParsedManifest> parse_manifest_v01(const Value& root);

// Shared field readers: `ctx` names the place in messages.
Result<const Value*> field(const Value& map, const char* key, const std::string& ctx, Value::Kind kind,
                           bool required);
Result<std::vector<uint64_t>> parse_shape(const Value& v, const std::string& ctx);

}  // namespace zt
