// zt::Reader over a ByteSource that is not a mapping (the path HTTP URLs
// take): only the header magic, the footer, the manifest and the requested
// components are read, digests are always checked, and a failing or
// truncated source is reported, never read past.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "container/read_ahead.h"
#include "test_util.h"
#include "ztensor/byte_source.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::as_bytes;
using test::TempDir;

// Bytes in memory handed out only through read_at, each read recorded.
class RecordingSource final : public ByteSource {
 public:
  explicit RecordingSource(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  Status read_at(uint64_t offset, std::span<uint8_t> out) const override {
    if (fail) return Status(ErrorCode::io_error, "store unavailable");
    if (offset > bytes_.size() || out.size() > bytes_.size() - offset)
      return Status(ErrorCode::offset_out_of_range, "past the end");
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(offset), out.size(), out.begin());
    std::lock_guard lock(mu_);
    reads.emplace_back(offset, out.size());
    return Status::Ok();
  }
  const std::string& name() const override { return name_; }

  bool fail = false;
  mutable std::vector<std::pair<uint64_t, uint64_t>> reads;  // (offset, length)

 private:
  std::vector<uint8_t> bytes_;
  std::string name_ = "mem://test.zt";
  mutable std::mutex mu_;
};

ObjectSpec dense(const std::string& name, DType dt, std::span<const uint8_t> data, uint64_t count, Encoding enc) {
  ObjectSpec o;
  o.name = name;
  o.shape = {count};
  ComponentSpec c;
  c.role = "data";
  c.dtype = dt;
  c.data = data;
  c.encoding = enc;
  c.digest = DigestAlgo::sha256;
  o.components.push_back(c);
  return o;
}

std::vector<uint8_t> two_objects(std::vector<float>& big, std::vector<int16_t>& small) {
  TempDir dir;
  const std::string path = dir.file("m.zt");
  auto w = Writer::create(path);
  EXPECT_TRUE((*w)->add(dense("big", DType::f32, as_bytes(big), big.size(), Encoding::zstd)).ok());
  EXPECT_TRUE((*w)->add(dense("small", DType::i16, as_bytes(small), small.size(), Encoding::raw)).ok());
  EXPECT_TRUE((*w)->finish().ok());
  return test::read_file(path);
}

TEST(ByteSourceReader, ReadsOnlyWhatIsAsked) {
  std::vector<float> big(1 << 16);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 977);
  std::vector<int16_t> small = {1, -2, 3, -4, 5};
  auto source = std::make_shared<RecordingSource>(two_objects(big, small));
  auto r = Reader::open(std::shared_ptr<const ByteSource>(source));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Component& big_c = *(*r)->find("big")->find("data");
  EXPECT_EQ((*r)->file_size(), source->size());

  auto got = (*r)->read_component("small", "data");
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_FALSE(got->zero_copy);
  ASSERT_EQ(got->bytes.size(), sizeof(int16_t) * small.size());
  EXPECT_EQ(0, std::memcmp(got->bytes.data(), small.data(), got->bytes.size()));
  for (auto [offset, length] : source->reads)
    EXPECT_TRUE(offset + length <= big_c.offset || offset >= big_c.offset + big_c.length) << offset << "+" << length;

  auto decoded = (*r)->read_component("big", "data");
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ(0, std::memcmp(decoded->bytes.data(), big.data(), decoded->bytes.size()));
  EXPECT_TRUE((*r)->verify().ok());
}

TEST(ByteSourceReader, ChecksDigestsWithoutBeingAsked) {
  std::vector<float> big(256, 1.5f);
  std::vector<int16_t> small = {7, 8, 9};
  auto bytes = two_objects(big, small);
  auto clean = Reader::open(std::make_shared<RecordingSource>(bytes));
  ASSERT_TRUE(clean.ok());
  bytes[(*clean)->find("small")->find("data")->offset] ^= 0x01;
  auto r = Reader::open(std::make_shared<RecordingSource>(bytes));  // verify_on_read left false
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->read_component("small", "data").status().code(), ErrorCode::digest_mismatch);
}

TEST(ByteSourceReader, TruncatedAndFailingSources) {
  std::vector<float> big(64, 2.0f);
  std::vector<int16_t> small = {1};
  auto bytes = two_objects(big, small);
  for (size_t cut : {size_t{0}, size_t{7}, size_t{20}, bytes.size() - 1, bytes.size() - 9}) {
    auto r = Reader::open(std::make_shared<RecordingSource>(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut)));
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.status().code(), ErrorCode::bad_magic) << cut;
    EXPECT_NE(r.status().message().find("mem://test.zt"), std::string::npos) << r.status().message();
  }
  auto source = std::make_shared<RecordingSource>(bytes);
  auto r = Reader::open(std::shared_ptr<const ByteSource>(source));
  ASSERT_TRUE(r.ok());
  source->fail = true;
  EXPECT_EQ((*r)->read_component("small", "data").status().code(), ErrorCode::io_error);
  EXPECT_EQ(Reader::open(std::shared_ptr<const ByteSource>()).status().code(), ErrorCode::invalid_argument);
}

// Three raw components just over kMinReadAheadBytes each, objects "t0".."t2".
std::vector<uint8_t> three_big(std::vector<float>& values) {
  values.resize((kMinReadAheadBytes / 4) + 16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1013);
  TempDir dir;
  const std::string path = dir.file("m.zt");
  auto w = Writer::create(path);
  for (const char* name : {"t0", "t1", "t2"})
    EXPECT_TRUE((*w)->add(dense(name, DType::f32, as_bytes(values), values.size(), Encoding::raw)).ok());
  EXPECT_TRUE((*w)->finish().ok());
  return test::read_file(path);
}

// read_components asks for the next component ahead: it is fetched once, on
// its own thread, and read_component hands over those bytes.
TEST(ByteSourceReader, ReadAheadIsFetchedOnceAndTaken) {
  std::vector<float> values;
  auto source = std::make_shared<RecordingSource>(three_big(values));
  auto r = Reader::open(std::shared_ptr<const ByteSource>(source));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Object& t1 = *(*r)->find("t1");
  const Component& c = *t1.find("data");
  source->reads.clear();
  (*r)->prefetch(t1, "data");
  auto got = (*r)->read_component(t1, "data");
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  ASSERT_EQ(got->bytes.size(), values.size() * 4);
  EXPECT_EQ(std::memcmp(got->bytes.data(), values.data(), got->bytes.size()), 0);
  ASSERT_EQ(source->reads.size(), 1u);
  EXPECT_EQ(source->reads[0], std::make_pair(c.offset, c.length));
  // Taken once: a second read fetches again.
  ASSERT_TRUE((*r)->read_component(t1, "data").ok());
  EXPECT_EQ(source->reads.size(), 2u);
}

// The window holds kMaxReadsAhead reads; a failed one is read again by the
// caller, which reports the source's error; untaken reads end with the reader.
TEST(ByteSourceReader, ReadAheadIsBoundedAndFailuresAreTheCallersToReport) {
  static_assert(kMaxReadsAhead == 2, "the test prefetches one more than the window");
  std::vector<float> values;
  auto source = std::make_shared<RecordingSource>(three_big(values));
  {
    auto r = Reader::open(std::shared_ptr<const ByteSource>(source));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    source->reads.clear();
    for (const char* name : {"t0", "t1", "t2"}) (*r)->prefetch(*(*r)->find(name), "data");
  }  // the reader waits for its reads ahead, never taken
  EXPECT_EQ(source->reads.size(), kMaxReadsAhead);

  auto r = Reader::open(std::shared_ptr<const ByteSource>(source));
  ASSERT_TRUE(r.ok());
  source->fail = true;  // before the read-ahead thread starts, so it sees it
  const Object& t0 = *(*r)->find("t0");
  (*r)->prefetch(t0, "data");
  auto failed = (*r)->read_component(t0, "data");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::io_error);
  EXPECT_NE(failed.status().message().find("store unavailable"), std::string::npos) << failed.status().to_string();
  source->fail = false;  // the read-ahead thread was joined by the failed read
  auto again = (*r)->read_component(t0, "data");
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(std::memcmp(again->bytes.data(), values.data(), again->bytes.size()), 0);
}

}  // namespace
}  // namespace zt
