// The ONNX reader over models made by the onnx package (raw_data, typed
// fields, external data), checked value for value against
// onnx.numpy_helper.to_array through tests/formats/onnx/expected.json, and
// the crafted attacks (path traversal, lengths past EOF, varint overflow)
// refused with the recorded error.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace zt
