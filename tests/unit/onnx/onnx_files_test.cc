// The ONNX reader over models made by the onnx package (raw_data, typed
// fields, external data), checked value for value against
// onnx.numpy_helper.to_array through tests/formats/onnx/expected.json, and
// the crafted attacks (path traversal, lengths past EOF, varint overflow)
// refused with the recorded error.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "format_test_util.h"
#include "test_util.h"
#include "ztensor/onnx_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

using nlohmann::json;
using test::load_json;
namespace fs = std::filesystem;

const std::string kDir = std::string(ZT_SOURCE_DIR) + "/tests/formats/onnx";

TEST(OnnxFiles, EveryModelMatchesNumpyHelper) {
  json expected = load_json(kDir + "/expected.json");
  ASSERT_GE(expected["files"].size(), 5u);
  for (auto& [file, want] : expected["files"].items()) {
    SCOPED_TRACE(file);
    auto src = open_onnx(kDir + "/" + file);
    ASSERT_TRUE(src.ok()) << src.status().to_string();
    const TensorSource& s = **src;
    test::expect_dense_tensors(s, "onnx", want["tensors"]);
    for (auto& [k, v] : want["attributes"].items()) {
      const Value* g = s.manifest().attributes.find(k);
      ASSERT_NE(g, nullptr) << k;
      test::expect_value(*g, v, k);
    }
  }
}

TEST(OnnxFiles, AttacksAndCorruptModelsAreRefusedWithTheirCode) {
  json expected = load_json(kDir + "/expected.json");
  ASSERT_GE(expected["errors"].size(), 15u);
  test::expect_refused(kDir, expected["errors"], [](const std::string& path) { return open_onnx(path); });
}

// A symlink beside the model that points out of its folder passes the
// lexical checks; the realpath check must still refuse it.
TEST(OnnxFiles, SymlinkEscapingTheFolderIsRefused) {
  test::TempDir dir;
  fs::create_directory(dir.file("model"));
  test::write_file(dir.file("secret.bin"), std::vector<uint8_t>(16, 0xAB));
  // A model whose external location is "data.bin"; that name is the link.
  fs::copy_file(kDir + "/attacks/external_length_mismatch.onnx", dir.file("model/m.onnx"));
  fs::create_symlink(dir.file("secret.bin"), dir.file("model/data.bin"));
  auto src = open_onnx(dir.file("model/m.onnx"));
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().code(), ErrorCode::invalid_structure) << src.status().to_string();
  EXPECT_NE(src.status().message().find("outside the model's folder"), std::string::npos);

  // A symlink that stays inside the folder is fine.
  fs::remove(dir.file("model/data.bin"));
  test::write_file(dir.file("model/real.bin"), std::vector<uint8_t>(16, 0));
  fs::create_symlink(dir.file("model/real.bin"), dir.file("model/data.bin"));
  auto inside = open_onnx(dir.file("model/m.onnx"));
  // That model's length entry (8) disagrees with its shape: the path passed.
  EXPECT_EQ(inside.status().code(), ErrorCode::length_mismatch) << inside.status().to_string();
}

TEST(OnnxFiles, ExternalDataZeroCopyAndMemoryVariant) {
  std::string model = kDir + "/external/model.onnx";
  auto bytes = std::make_shared<std::vector<uint8_t>>(test::read_file(model));
  std::span<const uint8_t> span(bytes->data(), bytes->size());
  // Without a folder, external data is refused rather than guessed.
  auto no_dir = open_onnx_memory(span, bytes);
  EXPECT_EQ(no_dir.status().code(), ErrorCode::unsupported);
  auto with_dir = open_onnx_memory(span, bytes, kDir + "/external");
  ASSERT_TRUE(with_dir.ok()) << with_dir.status().to_string();
  const Object* w = (*with_dir)->find("big.w");
  ASSERT_NE(w, nullptr);
  auto data = (*with_dir)->read_component(*w, "data");
  ASSERT_TRUE(data.ok());
  EXPECT_TRUE(data->zero_copy);
  EXPECT_EQ(data->bytes.size(), 8u * 8u * 4u);
  EXPECT_EQ((*with_dir)->read_component(*w, "scales").status().code(), ErrorCode::not_found);
}

// Protobuf length-delimited field (field numbers and lengths below 128).
std::string len_field(int number, const std::string& payload) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  size_t n = payload.size();
  do {
    out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n);
  return out + payload;
}

// graph { node { op_type "If", attribute { g: <graph> } } }, `levels` deep,
// with a Constant float tensor at the bottom.
std::string nested_graph(int levels) {
  std::string tensor = std::string("\x08\x02", 2) + std::string("\x10\x01", 2) +  // dims 2, FLOAT
                       len_field(9, std::string("\x00\x00\xc0\x3f\x00\x00\x20\x40", 8));  // 1.5, 2.5
  std::string constant = len_field(2, "deep_w") + len_field(4, "Constant") + len_field(5, len_field(1, "value") + len_field(5, tensor));
  std::string graph = len_field(1, constant);
  for (int i = 0; i < levels; ++i)
    graph = len_field(1, len_field(2, "y") + len_field(4, "If") + len_field(5, len_field(1, "then_branch") + len_field(6, graph)));
  return std::string("\x08\x08", 2) + len_field(7, graph);
}

TEST(OnnxFiles, ConstantInsideNestedSubgraphsIsFoundUpToTheDepthLimit) {
  auto open = [](const std::string& model) {
    auto bytes = std::make_shared<std::vector<uint8_t>>(model.begin(), model.end());
    return open_onnx_memory({bytes->data(), bytes->size()}, bytes);
  };
  auto ok = open(nested_graph(8));
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  const Object* w = (*ok)->find("deep_w");
  ASSERT_NE(w, nullptr);
  auto data = (*ok)->read_component(*w, "data");
  ASSERT_TRUE(data.ok());
  float v[2];
  ASSERT_EQ(data->bytes.size(), sizeof v);
  std::memcpy(v, data->bytes.data(), sizeof v);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 2.5f);
  auto deep = open(nested_graph(40));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), ErrorCode::limit_exceeded);
  EXPECT_NE(deep.status().message().find("subgraphs nest deeper"), std::string::npos);
}

}  // namespace
}  // namespace zt
