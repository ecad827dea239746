#include "encoding_flags.h"

#include <cstdlib>

#include "z4ai/codec.h"
#include "ztensor/sharded_writer.h"

namespace zt::cli {

ConvertOptions EncodingFlags::convert_options() const {
  ConvertOptions o;
  o.encoding = encoding;
  o.level = level_given ? level : kDefaultLevel;
  o.effort = effort;
  o.digest = digest;
  o.max_shard_size = max_shard_size;
  return o;
}

const char* encoding_text(Encoding e) {
  return e == Encoding::z4ai ? "z4ai" : e == Encoding::zstd ? "zstd" : "raw";
}

namespace {

std::string read_effort(const std::string& text, EncodingFlags* f) {
  const std::string name = text == kEffortAlias ? "fast" : text;  // the older name, kept as an alias
  auto effort = z4ai::parse_effort(name);
  if (!effort.ok() || text.empty())
    return "--effort must be fast, balanced or max (or default = fast), not '" + text + "'";
  if (f->encoding != Encoding::z4ai) return "--effort applies to the z4ai encoding only";
  f->effort = static_cast<uint8_t>(effort.value());
  f->effort_name = name;
  return "";
}

std::string read_level(const std::string& text, EncodingFlags* f) {
  if (f->encoding == Encoding::raw) return "--level does not apply to raw";
  const int lo = f->encoding == Encoding::zstd ? kMinZstdLevel : kMinZ4aiLevel;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > kMaxZstdLevel)
    return "--level must be an integer from " + std::to_string(lo) + " to " + std::to_string(kMaxZstdLevel) +
           " for " + encoding_text(f->encoding) + ", not '" + text + "'";
  f->level_given = true;
  f->level = static_cast<int>(v);
  return "";
}

}  // namespace

std::string read_encoding_flags(const ParsedArgs& a, EncodingFlags* f) {
  if (const auto* e = a.get("effort"))
    if (std::string err = read_effort(*e, f); !err.empty()) return err;
  if (const auto* l = a.get("level"))
    if (std::string err = read_level(*l, f); !err.empty()) return err;
  if (const auto* c = a.get("checksum")) {
    if (*c == "sha256") f->digest = DigestAlgo::sha256;
    else if (*c == "crc32c") f->digest = DigestAlgo::crc32c;
    else if (*c != "none") return "--checksum must be sha256, crc32c or none, not '" + *c + "'";
  }
  if (const auto* m = a.get("max-shard-size")) {
    auto size = parse_byte_size(*m);
    if (!size.ok()) return "--max-shard-size: " + size.status().message();
    f->max_shard_size = size.value();
  }
  return "";
}

}  // namespace zt::cli
