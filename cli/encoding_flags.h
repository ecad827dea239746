// The options `zt convert` and `zt compress` share for .zt output, in
// ztensor.convert's terms (python/ztensor/_convert.py): the effort of z4ai,
// the level, the checksum and the shard size. Each command picks the
// encoding its own way (convert: --compress, default none; compress:
// --encoding, default z4ai), then reads these the same way.
#pragma once

#include <cstdint>
#include <string>

#include "args.h"
#include "ztensor/convert.h"

namespace zt::cli {

// zstd accepts negative "fast" levels; we expose the useful range. z4ai
// takes zstd levels 1..22 for its zstd stages (z4ai/codec.h).
inline constexpr int kMinZstdLevel = -7;
inline constexpr int kMaxZstdLevel = 22;
inline constexpr int kMinZ4aiLevel = 1;
// Earlier releases named the fast tier `default`; it stays accepted.
inline constexpr const char* kEffortAlias = "default";

struct EncodingFlags {
  Encoding encoding = Encoding::raw;
  uint8_t effort = 0;              // z4ai: 0 fast, 1 balanced, 2 max
  std::string effort_name = "fast";
  bool level_given = false;
  int level = kDefaultLevel;       // kDefaultLevel: the encoding's own
  DigestAlgo digest = DigestAlgo::none;
  uint64_t max_shard_size = 0;     // 0: one file

  // The ConvertOptions these flags ask for (no progress yet).
  ConvertOptions convert_options() const;
};

// "z4ai", "zstd" or "raw".
const char* encoding_text(Encoding e);

// Reads --effort, --level, --checksum and --max-shard-size (those `a` has)
// into `f`, whose encoding is already chosen. Returns "" or the usage
// error's message (an option's bad value, or --effort/--level the encoding
// does not take).
std::string read_encoding_flags(const ParsedArgs& a, EncodingFlags* f);

}  // namespace zt::cli
