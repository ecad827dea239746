// A Reader over a file reads ahead the components it would read with pread
// (TensorSource::prefetch): the bytes handed over are the file's, a raw
// component viewed in the mapping is not read at all, and a file truncated
// under a read ahead still fails with io_error.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "container/read_ahead.h"
#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::as_bytes;
using test::TempDir;

// Noise floats: zstd keeps them near their size, over kMinReadAheadBytes.
std::vector<float> noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  return v;
}

ObjectSpec dense(const std::string& name, const std::vector<float>& v, Encoding enc) {
  ObjectSpec o;
  o.name = name;
  o.shape = {v.size()};
  ComponentSpec c;
  c.role = "data";
  c.dtype = DType::f32;
  c.data = as_bytes(v);
  c.encoding = enc;
  o.components.push_back(c);
  return o;
}

// "zstd0", "zstd1" (zstd) and "raw" (raw), each over kMinReadAheadBytes stored.
std::string write_three(TempDir& dir, std::vector<std::vector<float>>& values) {
  const std::string path = dir.file("m.zt");
  auto w = Writer::create(path);
  EXPECT_TRUE(w.ok());
  const size_t n = kMinReadAheadBytes / 3;  // 4/3 of the bound: zstd takes ~7 % off
  values = {noise(n, 1), noise(n, 2), noise(n, 3)};
  EXPECT_TRUE((*w)->add(dense("zstd0", values[0], Encoding::zstd)).ok());
  EXPECT_TRUE((*w)->add(dense("zstd1", values[1], Encoding::zstd)).ok());
  EXPECT_TRUE((*w)->add(dense("raw", values[2], Encoding::raw)).ok());
  EXPECT_TRUE((*w)->finish().ok());
  return path;
}

TEST(FileReadAhead, DecodedComponentsAreReadAheadAndTaken) {
  TempDir dir;
  std::vector<std::vector<float>> values;
  auto r = Reader::open(write_three(dir, values));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Object& z1 = *(*r)->find("zstd1");
  ASSERT_GE(z1.find("data")->length, kMinReadAheadBytes);
  const uint64_t before = reads_ahead_taken();
  (*r)->prefetch(z1, "data");
  auto got = (*r)->read_component(z1, "data");
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(reads_ahead_taken(), before + 1);
  ASSERT_EQ(got->bytes.size(), values[1].size() * 4);
  EXPECT_EQ(std::memcmp(got->bytes.data(), values[1].data(), got->bytes.size()), 0);
  // Taken once: read again, it is the caller's own read.
  ASSERT_TRUE((*r)->read_component(z1, "data").ok());
  EXPECT_EQ(reads_ahead_taken(), before + 1);
}

TEST(FileReadAhead, RawViewsAreNotReadAheadUnlessVerified) {
  TempDir dir;
  std::vector<std::vector<float>> values;
  const std::string path = write_three(dir, values);
  auto r = Reader::open(path);
  ASSERT_TRUE(r.ok());
  const Object& raw = *(*r)->find("raw");
  const uint64_t before = reads_ahead_taken();
  (*r)->prefetch(raw, "data");
  auto view = (*r)->read_component(raw, "data");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(reads_ahead_taken(), before);
  EXPECT_EQ(std::memcmp(view->bytes.data(), values[2].data(), view->bytes.size()), 0);

  ReadOptions verify;
  verify.verify_on_read = true;  // raw components are then read with pread, so ahead too
  auto rv = Reader::open(path, verify);
  ASSERT_TRUE(rv.ok());
  (*rv)->prefetch(*(*rv)->find("raw"), "data");
  auto copy = (*rv)->read_component(*(*rv)->find("raw"), "data");
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(reads_ahead_taken(), before + 1);
  EXPECT_EQ(std::memcmp(copy->bytes.data(), values[2].data(), copy->bytes.size()), 0);
}

TEST(FileReadAhead, TruncatedUnderAReadAheadIsAnIoError) {
  TempDir dir;
  std::vector<std::vector<float>> values;
  const std::string path = write_three(dir, values);
  auto r = Reader::open(path);
  ASSERT_TRUE(r.ok());
  const Object& z1 = *(*r)->find("zstd1");
  (*r)->prefetch(z1, "data");
  // Whether the read ahead ran before or after this, the read fails cleanly.
  std::filesystem::resize_file(path, z1.find("data")->offset + 16);
  auto got = (*r)->read_component(z1, "data");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), ErrorCode::io_error) << got.status().to_string();
}

}  // namespace
}  // namespace zt
