// A Reader over a file reads ahead the components it would read with pread
// (TensorSource::prefetch): the bytes handed over are the file's, a raw
// component viewed in the mapping is not read at all, and a file truncated
// under a read ahead still fails with io_error.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
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

// A file of "zstd0", "zstd1" (zstd) and "raw" (raw), each over
// kMinReadAheadBytes stored, and a reader of it.
class FileReadAhead : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("m.zt");
    auto w = Writer::create(path_);
    ASSERT_TRUE(w.ok());
    const size_t n = kMinReadAheadBytes / 3;  // 4/3 of the bound: zstd takes ~7 % off
    values_ = {noise(n, 1), noise(n, 2), noise(n, 3)};
    ASSERT_TRUE((*w)->add(dense("zstd0", values_[0], Encoding::zstd)).ok());
    ASSERT_TRUE((*w)->add(dense("zstd1", values_[1], Encoding::zstd)).ok());
    ASSERT_TRUE((*w)->add(dense("raw", values_[2], Encoding::raw)).ok());
    ASSERT_TRUE((*w)->finish().ok());
    reader_ = open(ReadOptions{});
  }
  std::unique_ptr<Reader> open(ReadOptions options) {
    auto r = Reader::open(path_, options);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // Prefetches the object's data, then reads it: the bytes must be the
  // values written.
  void prefetch_and_read(Reader& r, const std::string& name, const std::vector<float>& want) {
    const Object& o = *r.find(name);
    r.prefetch(o, "data");
    auto got = r.read_component(o, "data");
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    ASSERT_EQ(got->bytes.size(), want.size() * 4);
    EXPECT_EQ(std::memcmp(got->bytes.data(), want.data(), got->bytes.size()), 0);
  }

  TempDir dir_;
  std::string path_;
  std::vector<std::vector<float>> values_;
  std::unique_ptr<Reader> reader_;
};

TEST_F(FileReadAhead, DecodedComponentsAreReadAheadAndTaken) {
  ASSERT_TRUE(reader_);
  const Object& z1 = *reader_->find("zstd1");
  ASSERT_GE(z1.find("data")->length, kMinReadAheadBytes);
  const uint64_t before = reads_ahead_taken();
  prefetch_and_read(*reader_, "zstd1", values_[1]);
  EXPECT_EQ(reads_ahead_taken(), before + 1);
  // Taken once: read again, it is the caller's own read.
  ASSERT_TRUE(reader_->read_component(z1, "data").ok());
  EXPECT_EQ(reads_ahead_taken(), before + 1);
}

TEST_F(FileReadAhead, RawViewsAreNotReadAheadUnlessVerified) {
  ASSERT_TRUE(reader_);
  const uint64_t before = reads_ahead_taken();
  prefetch_and_read(*reader_, "raw", values_[2]);
  EXPECT_EQ(reads_ahead_taken(), before);

  ReadOptions verify;
  verify.verify_on_read = true;  // raw components are then read with pread, so ahead too
  auto rv = open(verify);
  ASSERT_TRUE(rv);
  prefetch_and_read(*rv, "raw", values_[2]);
  EXPECT_EQ(reads_ahead_taken(), before + 1);
}

TEST_F(FileReadAhead, TruncatedUnderAReadAheadIsAnIoError) {
  ASSERT_TRUE(reader_);
  const Object& z1 = *reader_->find("zstd1");
  reader_->prefetch(z1, "data");
  // Whether the read ahead ran before or after this, the read fails cleanly.
  std::filesystem::resize_file(path_, z1.find("data")->offset + 16);
  auto got = reader_->read_component(z1, "data");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), ErrorCode::io_error) << got.status().to_string();
}

}  // namespace
}  // namespace zt
