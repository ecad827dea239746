// The format registry's invariants: one row per format, names and
// extensions unique, each row's sniff recognising the smallest valid file of
// its format (built here byte by byte), and detect_format and open_source
// agreeing on that file.
#include "convert/format_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "convert/zip/zip_reader.h"
#include "test_util.h"
#include "ztensor/convert.h"

namespace zt {
namespace {

using test::TempDir;
using Bytes = std::vector<uint8_t>;

// A new FileFormat fails to compile here until it is listed, and then the
// tests below ask for its row and its sample file.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
constexpr bool is_enumerator(FileFormat f) {
  switch (f) {
    case FileFormat::unknown:
    case FileFormat::zt:
    case FileFormat::safetensors:
    case FileFormat::safetensors_index:
    case FileFormat::gguf:
    case FileFormat::npy:
    case FileFormat::npz:
    case FileFormat::pytorch:
    case FileFormat::onnx:
    case FileFormat::zt_index: return true;
  }
  return false;
}
#pragma GCC diagnostic pop

std::vector<FileFormat> every_format() {
  std::vector<FileFormat> all;
  for (int v = 1; v <= 255; ++v)
    if (is_enumerator(static_cast<FileFormat>(v))) all.push_back(static_cast<FileFormat>(v));
  return all;
}

// `n` little-endian bytes of `v` (zero past its eighth).
void put_le(Bytes& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0);
}

void put_text(Bytes& out, std::string_view s) { out.insert(out.end(), s.begin(), s.end()); }

Bytes safetensors_file() {
  std::string h = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  h.append((8 - h.size() % 8) % 8, ' ');
  Bytes f;
  put_le(f, h.size(), 8);
  put_text(f, h);
  put_le(f, 0x3f800000, 4);  // 1.0f
  return f;
}

// GGUF v3 with no key-value pairs and no tensors.
Bytes gguf_file() {
  Bytes f;
  put_text(f, "GGUF");
  put_le(f, 3, 4);
  put_le(f, 0, 8);
  put_le(f, 0, 8);
  return f;
}

// NPY 1.0: magic, version, header length, then a dict padded so the data
// starts at a multiple of 64 bytes.
Bytes npy_file() {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  Bytes f;
  put_text(f, "\x93NUMPY");
  f.push_back(1);
  f.push_back(0);
  put_le(f, dict.size(), 2);
  put_text(f, dict);
  put_le(f, 0x3f800000, 4);
  return f;
}

// A zip of one stored member (APPNOTE 4.3.7, 4.3.12, 4.3.16).
Bytes zip_of(const std::string& name, const Bytes& data) {
  const uint32_t crc = zip::crc32_of(data);
  Bytes f;
  put_le(f, 0x04034b50, 4);
  put_le(f, 20, 2);
  put_le(f, 0, 2 + 2 + 2 + 2);  // flags, method (stored), time, date
  put_le(f, crc, 4);
  put_le(f, data.size(), 4);
  put_le(f, data.size(), 4);
  put_le(f, name.size(), 2);
  put_le(f, 0, 2);
  put_text(f, name);
  f.insert(f.end(), data.begin(), data.end());
  const size_t central = f.size();
  put_le(f, 0x02014b50, 4);
  put_le(f, 20, 2);
  put_le(f, 20, 2);
  put_le(f, 0, 2 + 2 + 2 + 2);
  put_le(f, crc, 4);
  put_le(f, data.size(), 4);
  put_le(f, data.size(), 4);
  put_le(f, name.size(), 2);
  put_le(f, 0, 2 + 2 + 2 + 2 + 4);  // extra, comment, disk, internal, external attributes
  put_le(f, 0, 4);                  // the local header's offset
  put_text(f, name);
  const size_t central_size = f.size() - central;
  put_le(f, 0x06054b50, 4);
  put_le(f, 0, 2 + 2);
  put_le(f, 1, 2);
  put_le(f, 1, 2);
  put_le(f, central_size, 4);
  put_le(f, central, 4);
  put_le(f, 0, 2);
  return f;
}

// torch.save of an empty dict: its pickle (protocol 2: PROTO 2, EMPTY_DICT, STOP).
Bytes pytorch_file() { return zip_of("archive/data.pkl", {0x80, 0x02, '}', '.'}); }

// ModelProto: ir_version 7, then an empty graph (field 7, length-delimited).
Bytes onnx_file() { return {0x08, 0x07, 0x3a, 0x00}; }

// Writes the smallest valid file of each format in `dir` (the .zt ones by
// converting the safetensors sample) and returns its path.
std::map<FileFormat, std::string> write_samples(const TempDir& dir) {
  std::map<FileFormat, std::string> at;
  auto put = [&](FileFormat f, const std::string& name, const Bytes& bytes) {
    test::write_file(dir.file(name), bytes);
    at[f] = dir.file(name);
  };
  put(FileFormat::safetensors, "w.safetensors", safetensors_file());
  put(FileFormat::gguf, "w.gguf", gguf_file());
  put(FileFormat::npy, "w.npy", npy_file());
  Bytes npy = npy_file();
  put(FileFormat::npz, "w.npz", zip_of("w.npy", npy));
  put(FileFormat::pytorch, "w.pt", pytorch_file());
  put(FileFormat::onnx, "w.onnx", onnx_file());
  EXPECT_TRUE(convert_to_zt(at[FileFormat::safetensors], dir.file("w.zt")).ok());
  at[FileFormat::zt] = dir.file("w.zt");
  auto text = [](std::string_view s) { return Bytes(s.begin(), s.end()); };
  put(FileFormat::safetensors_index, "w.safetensors.index.json", text(R"({"weight_map":{"w":"w.safetensors"}})"));
  put(FileFormat::zt_index, "w.zt.index.json", text(R"({"weight_map":{"w":"w.zt"}})"));
  return at;
}

TEST(FormatRegistry, EveryFormatHasExactlyOneRow) {
  for (FileFormat f : every_format()) {
    int rows = 0;
    for (const FormatRow& row : format_rows()) rows += row.format == f;
    EXPECT_EQ(rows, 1) << "FileFormat " << static_cast<int>(f);
    EXPECT_TRUE(format_supported(f));
  }
  for (const FormatRow& row : format_rows()) EXPECT_NE(row.format, FileFormat::unknown);
  EXPECT_EQ(find_format_row(FileFormat::unknown), nullptr);
  EXPECT_STREQ(file_format_name(FileFormat::unknown), "unknown");
}

TEST(FormatRegistry, NamesAndExtensionsAreUniqueAndRoundTrip) {
  std::set<std::string> names, extensions;
  for (const FormatRow& row : format_rows()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_STREQ(file_format_name(row.format), row.name);
    EXPECT_FALSE(row.extensions.empty()) << row.name;
    for (std::string_view ext : row.extensions) {
      EXPECT_TRUE(extensions.insert(std::string(ext)).second) << ext;
      EXPECT_EQ(format_from_extension("dir/model" + std::string(ext)), row.format) << ext;
    }
  }
}

// Every row opens a local file from its mapping; at a URL, one file is read
// from its bytes or (an index) opened by its name, never both.
TEST(FormatRegistry, EveryRowOpensOneWay) {
  for (const FormatRow& row : format_rows()) {
    SCOPED_TRACE(row.name);
    EXPECT_NE(row.open_mapped, nullptr);
    EXPECT_FALSE(row.open_named && row.open_bytes);
    if (row.open_named) {
      EXPECT_EQ(row.sniff, nullptr);  // known by name and shards, not content
      EXPECT_EQ(row.open_bytes, nullptr);
    } else {
      EXPECT_NE(row.sniff, nullptr);
    }
  }
}

TEST(FormatRegistry, SniffDetectAndOpenAgreeOnEachFormatsSmallestFile) {
  TempDir dir;
  const auto samples = write_samples(dir);
  for (FileFormat f : every_format()) {
    const FormatRow* row = find_format_row(f);
    ASSERT_NE(row, nullptr);
    SCOPED_TRACE(row->name);
    auto it = samples.find(f);
    ASSERT_NE(it, samples.end()) << "no sample file for this format";
    const std::string& path = it->second;
    const Bytes bytes = test::read_file(path);
    const std::span<const uint8_t> head(bytes.data(), std::min(bytes.size(), kSniffBytes));
    if (row->sniff) {
      EXPECT_TRUE(row->sniff(head, bytes.size(), path));
      EXPECT_EQ(sniff_format(head, bytes.size(), path), f);  // no earlier row claims it
    }
    auto detected = detect_format(path);
    ASSERT_TRUE(detected.ok()) << detected.status().to_string();
    EXPECT_EQ(detected.value(), f);
    auto opened = open_source(path);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    // Both indexes open as their shards' format.
    const char* want = f == FileFormat::safetensors_index ? "safetensors" : row->name;
    EXPECT_STREQ(opened.value()->format_name(), want);
  }
}

}  // namespace
}  // namespace zt
