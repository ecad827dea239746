// ZSTN files in bounded memory (z4ai::zstn::compress_file / decompress_file /
// verify_file): the same bytes as the in-memory calls, and a container cut
// short is an error naming the truncation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "codec/frame/frame_format.h"
#include "test_data.h"
#include "z4ai/zstn.h"

namespace z4ai::zstn {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

void write_all(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// 40 float tensors of 64 KiB (several windows) with one tied pair.
std::vector<uint8_t> model() {
  std::vector<testing::TensorSpec> ts;
  for (int i = 0; i < 40; ++i)
    ts.emplace_back("t" + std::to_string(i), "F32", testing::gaussian_fp32(16384, i == 9 ? 4 : uint32_t(i + 1)));
  return testing::safetensors(ts);
}

class ZstnFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zstn_file_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ZstnFile, StreamedBytesEqualTheInMemoryCallsBothWays) {
  const auto st = model();
  write_all(dir_ / "m.safetensors", st);
  for (unsigned workers : {1u, 3u}) {
    Options o;
    o.workers = workers;
    auto stats = compress_file((dir_ / "m.safetensors").string(), (dir_ / "m.zstn").string(), o);
    ASSERT_TRUE(stats.ok()) << stats.status().to_string();
    const auto z = read_all(dir_ / "m.zstn");
    EXPECT_EQ(z, compress(st, o).value());
    EXPECT_EQ(stats->output_bytes, z.size());
    auto back = decompress_file((dir_ / "m.zstn").string(), (dir_ / "back.safetensors").string(), workers);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->tensors, 40u);
    EXPECT_EQ(read_all(dir_ / "back.safetensors"), st);
    EXPECT_TRUE(verify_file((dir_ / "m.zstn").string(), workers).ok());
  }
}

TEST_F(ZstnFile, TruncatedContainerIsAnErrorAndWritesNothing) {
  write_all(dir_ / "m.safetensors", model());
  ASSERT_TRUE(compress_file((dir_ / "m.safetensors").string(), (dir_ / "m.zstn").string(), {}).ok());
  auto z = read_all(dir_ / "m.zstn");
  for (size_t keep : {size_t(0), size_t(10), z.size() / 2, z.size() - 1}) {
    write_all(dir_ / "cut.zstn", std::vector<uint8_t>(z.begin(), z.begin() + keep));
    auto v = verify_file((dir_ / "cut.zstn").string());
    EXPECT_FALSE(v.ok()) << keep;
    auto d = decompress_file((dir_ / "cut.zstn").string(), (dir_ / "out.safetensors").string());
    EXPECT_FALSE(d.ok()) << keep;
    EXPECT_FALSE(fs::exists(dir_ / "out.safetensors")) << keep;
  }
}

TEST_F(ZstnFile, TensorsThatDoNotTileAreRefusedButOpaqueContainersStillDecode) {
  // Bytes between the tensors: the one safetensors parser refuses the file,
  // so the writer does (earlier writers made a contiguous = 0 container).
  const std::string header = R"({"a":{"dtype":"F32","shape":[1000],"data_offsets":[0,4000]},)"
                             R"("b":{"dtype":"U8","shape":[16],"data_offsets":[4008,4024]}})";
  std::vector<uint8_t> st(8, 0);
  for (int i = 0; i < 8; ++i) st[i] = uint8_t(uint64_t(header.size()) >> (8 * i));
  st.insert(st.end(), header.begin(), header.end());
  const auto data = testing::random_bytes(4024);
  st.insert(st.end(), data.begin(), data.end());
  write_all(dir_ / "gap.safetensors", st);
  auto c = compress_file((dir_ / "gap.safetensors").string(), (dir_ / "gap.zstn").string(), {});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), zt::ErrorCode::invalid_argument);
  EXPECT_NE(c.status().message().find("gap of 8 bytes"), std::string::npos) << c.status().to_string();
  EXPECT_FALSE(fs::exists(dir_ / "gap.zstn"));
  // Such a container, pinned as a golden frame, still decodes.
  const fs::path opaque = fs::path(ZT_SOURCE_DIR) / "tests/golden/codec/zstn_opaque.zstn";
  EXPECT_FALSE(parse_prefix(read_all(opaque))->contiguous);
  auto d = decompress_file(opaque.string(), (dir_ / "back.safetensors").string());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tensors, 2u);
}

// The streamed frame coder behind compress_file's large tensors: the same
// bytes as compress() for lean floats, other dtypes and a buffer where
// whole-buffer zstd wins; a single-chunk input is left to compress().
TEST(FrameStream, SameBytesAsCompress) {
  std::vector<uint8_t> zeros(3u << 20, 0);
  std::vector<uint8_t> text(3u << 20);
  for (size_t i = 0; i < text.size(); ++i) text[i] = uint8_t("weights "[i % 8]);
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> cases = {
      {"fp32", testing::gaussian_fp32(1u << 20)}, {"bf16", testing::gaussian_bf16(3u << 20)},
      {"", testing::random_bytes(5u << 20)}, {"", zeros}, {"", text}};
  for (const auto& [dtype, data] : cases) {
    for (Effort effort : {Effort::fast, Effort::balanced}) {
      CompressOptions o;
      o.dtype = dtype;
      o.effort = effort;
      std::vector<uint8_t> streamed;
      auto r = detail::compress_streamed(data, o, [&](std::span<const uint8_t> b) {
        streamed.insert(streamed.end(), b.begin(), b.end());
        return zt::Status();
      });
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      if (!r.value()) {
        EXPECT_TRUE(streamed.empty());
        continue;
      }
      EXPECT_EQ(streamed, compress(data, o).value()) << dtype << " " << data.size();
    }
  }
  CompressOptions o;
  EXPECT_FALSE(detail::compress_streamed(testing::random_bytes(1000), o, [](auto) { return zt::Status(); }).value());
}

// The progress callback sees data bytes done rising to the total (tied
// copies count at once), and does not change a byte of the output.
TEST_F(ZstnFile, ProgressReportsTensorBytesUpToTheTotalWithoutChangingTheOutput) {
  const auto st = model();
  write_all(dir_ / "m.safetensors", st);
  for (unsigned workers : {1u, 3u}) {
    Options o;
    o.workers = workers;
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    o.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
    ASSERT_TRUE(compress_file((dir_ / "m.safetensors").string(), (dir_ / "m.zstn").string(), o).ok());
    ASSERT_GE(calls.size(), 40u);
    const uint64_t total = 40u * 16384u * 4u;  // the data buffer: every tensor, tied ones too
    for (size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i].second, total);
      if (i > 0) { EXPECT_GE(calls[i].first, calls[i - 1].first); }
    }
    EXPECT_EQ(calls.front().first, 0u);
    EXPECT_EQ(calls.back().first, total);
    Options plain;
    plain.workers = workers;
    EXPECT_EQ(read_all(dir_ / "m.zstn"), compress(st, plain).value());
  }
}

TEST_F(ZstnFile, DecompressAndVerifyReportProgressUpToTheFileSize) {
  const auto st = model();
  write_all(dir_ / "m.safetensors", st);
  ASSERT_TRUE(compress_file((dir_ / "m.safetensors").string(), (dir_ / "m.zstn").string(), Options{}).ok());
  for (bool verify : {false, true}) {
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    const ProgressFn progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
    const auto r = verify ? verify_file((dir_ / "m.zstn").string(), 0, progress)
                          : decompress_file((dir_ / "m.zstn").string(), (dir_ / "b.safetensors").string(), 0, progress);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_FALSE(calls.empty());
    for (size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
    EXPECT_EQ(calls.back().first, st.size());
    EXPECT_EQ(calls.back().second, st.size());
  }
  EXPECT_EQ(read_all(dir_ / "b.safetensors"), st);
}

}  // namespace
}  // namespace z4ai::zstn
