// Converting between .zt and other weight formats (safetensors for now).
// Conversions stream one tensor at a time: memory does not grow with the
// file, and the output appears atomically (all or nothing) at its path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ztensor/manifest.h"
#include "ztensor/status.h"
#include "ztensor/writer.h"

namespace zt {

enum class FileFormat : uint8_t { unknown, zt, safetensors };
const char* file_format_name(FileFormat f);  // "zt", "safetensors", "unknown"

// Detects a file's format from its first bytes ("ZTEN" magic; a plausible
// safetensors size prefix followed by '{'), falling back to the extension
// when the content is inconclusive. Errors: io_error.
Result<FileFormat> detect_format(const std::string& path);
// Format implied by a path's extension alone (.zt, .safetensors).
FileFormat format_from_extension(const std::string& path);

// Called after each tensor with bytes done so far and the total.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

struct ConvertOptions {
  Encoding encoding = Encoding::raw;  // raw or zstd for .zt output
  int level = 3;                      // zstd level
  DigestAlgo digest = DigestAlgo::none;
  ProgressFn progress;                // optional
};

struct ConvertStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;  // tensor bytes (uncompressed) converted
  std::vector<std::string> warnings;  // e.g. attributes that could not be kept
};

// safetensors -> .zt: one dense object per tensor in file order, with
// `__metadata__` as string file attributes under the same keys.
// Errors: every SafetensorsFile validation error, then the Writer's.
Result<ConvertStats> convert_safetensors_to_zt(const std::string& in, const std::string& out,
                                               const ConvertOptions& options = {});

// .zt -> safetensors: dense objects only (anything else is `unsupported`,
// naming the object and its format); digests are checked while reading.
// String file attributes become `__metadata__`; others are listed in
// ConvertStats::warnings. Errors: Reader errors, unsupported, io_error.
Result<ConvertStats> convert_zt_to_safetensors(const std::string& in, const std::string& out,
                                               const ConvertOptions& options = {});

// .zt -> .zt with new encoding/digest settings (e.g. recompress with zstd).
// Every format is carried over component by component.
Result<ConvertStats> convert_zt_to_zt(const std::string& in, const std::string& out,
                                      const ConvertOptions& options = {});

}  // namespace zt
