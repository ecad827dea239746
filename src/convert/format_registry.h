// The formats open_source reads, one row each: its name, its extensions,
// how its first bytes show it, and how it is opened. file_format_name,
// format_from_extension, format_supported, detect_format and open_source all
// read this table, so adding a format is adding a row (format_registry.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/mapped_file.h"
#include "ztensor/byte_source.h"
#include "ztensor/convert.h"
#include "ztensor/source.h"

namespace zt {

// Bytes read to sniff a format: magics, the safetensors prefix, and the
// first zip entry's name (zip local header is 30 bytes + name).
inline constexpr size_t kSniffBytes = 30 + 256;

using OpenedSource = Result<std::unique_ptr<TensorSource>>;

struct FormatRow {
  FileFormat format;
  const char* name;  // file_format_name()
  // Names ending so are this format (the longest match over all rows wins:
  // ".zt.index.json" over ".json").
  std::span<const std::string_view> extensions;
  // Whether the first min(size, kSniffBytes) bytes of a file of `size` bytes
  // named `path` show this format. Rows are tried in table order and the
  // first yes wins. Null: content never shows it (an index, known by its
  // name and its shards).
  bool (*sniff)(std::span<const uint8_t> head, uint64_t size, const std::string& path);
  // A local file `path`, which open_source has mapped once to sniff (a
  // sharded index is parsed from the mapping; its shards are opened beside it).
  OpenedSource (*open_mapped)(std::shared_ptr<const MappedFile> file, const std::string& path, bool verify_on_read);
  // One file over positional reads (a URL). Null: not remotely readable.
  OpenedSource (*open_bytes)(std::shared_ptr<const ByteSource> bytes, bool verify_on_read);
  // A sharded index at a URL: its shards are found beside it by URL, so it
  // is opened by its name rather than its bytes. Null for one file.
  OpenedSource (*open_named)(const std::string& url, bool verify_on_read);
};

// Every row, in sniffing order.
std::span<const FormatRow> format_rows();
// The row of `format`, or null (unknown).
const FormatRow* find_format_row(FileFormat format);
// The first row whose sniff recognises `head` (see FormatRow::sniff).
std::optional<FileFormat> sniff_format(std::span<const uint8_t> head, uint64_t size, const std::string& path);

}  // namespace zt
