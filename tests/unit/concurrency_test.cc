// Many threads share one Reader (the contract of ztensor/reader.h: every
// const method is safe from many threads). Run under ThreadSanitizer by
// `make test` (build-tsan), and under ASan with the other unit tests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

constexpr int kThreads = 8;
constexpr int kRoundsPerThread = 40;  // bounded: a few thousand reads in all
constexpr size_t kElements = 64 * 1024;

std::vector<float> pattern(float scale) {
  std::vector<float> v(kElements);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 251) * scale - 1.0f;
  return v;
}

TEST(Concurrency, EightThreadsReadRawZstdAndZ4aiFromOneReader) {
  test::TempDir dir;
  const std::string path = dir.file("shared.zt");
  const std::vector<std::vector<float>> data = {pattern(0.5f), pattern(0.25f), pattern(0.125f)};
  const Encoding encodings[] = {Encoding::raw, Encoding::zstd, Encoding::z4ai};
  const char* names[] = {"raw", "zstd", "z4ai"};
  {
    auto w = Writer::create(path);
    ASSERT_TRUE(w.ok()) << w.status().to_string();
    for (int i = 0; i < 3; ++i) {
      ComponentSpec c{"data", DType::f32, LogicalType::none, test::as_bytes(data[i]), encodings[i]};
      c.digest = DigestAlgo::sha256;
      ASSERT_TRUE((*w)->add({names[i], {kElements}, "dense", {}, {c}}).ok());
    }
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto reader = Reader::open(path, ReadOptions{.verify_on_read = true});
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  const Reader& r = **reader;

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRoundsPerThread; ++round) {
        const int which = (t + round) % 3;
        auto bytes = r.read_component(names[which], "data");
        if (!bytes.ok() || bytes->bytes.size() != kElements * sizeof(float) ||
            std::memcmp(bytes->bytes.data(), data[which].data(), bytes->bytes.size()) != 0)
          failures.fetch_add(1);
        if (round % 10 == 0 && !r.verify().ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// read_components: the same bytes as one-at-a-time reads for every thread
// count, in the callers' order; a corrupt component fails the batch with
// that component's own error.
TEST(Concurrency, ReadComponentsEqualsSequentialReadsAndReportsTheCorruptOne) {
  test::TempDir dir;
  const std::string path = dir.file("batch.zt");
  constexpr int kObjects = 9;
  std::vector<std::vector<float>> data;
  for (int i = 0; i < kObjects; ++i) data.push_back(pattern(0.5f / static_cast<float>(i + 1)));
  const Encoding encodings[] = {Encoding::raw, Encoding::zstd, Encoding::z4ai};
  {
    auto w = Writer::create(path);
    ASSERT_TRUE(w.ok()) << w.status().to_string();
    for (int i = 0; i < kObjects; ++i) {
      const size_t n = kElements / static_cast<size_t>(i + 1);  // sizes differ: largest-first order differs
      ComponentSpec c{"data", DType::f32, LogicalType::none,
                      test::as_bytes(data[i]).first(n * sizeof(float)), encodings[i % 3]};
      ASSERT_TRUE((*w)->add({"o" + std::to_string(i), {n}, "dense", {}, {c}}).ok());
    }
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  std::vector<ComponentRef> refs;
  for (const Object& o : (*reader)->manifest().objects) refs.push_back({&o, "data"});
  for (unsigned threads : {1u, 2u, 4u, 0u}) {
    auto batch = read_components(**reader, refs, threads);
    ASSERT_TRUE(batch.ok()) << batch.status().to_string();
    ASSERT_EQ(batch->size(), refs.size());
    for (size_t i = 0; i < refs.size(); ++i) {
      auto one = (*reader)->read_component(*refs[i].object, "data");
      ASSERT_TRUE(one.ok());
      ASSERT_EQ((*batch)[i].bytes.size(), one->bytes.size());
      EXPECT_EQ(std::memcmp((*batch)[i].bytes.data(), one->bytes.data(), one->bytes.size()), 0) << i;
    }
  }

  // Corrupt the zstd object o4's stream in the middle.
  const Component& victim = *(*reader)->find("o4")->find("data");
  auto bytes = test::read_file(path);
  std::memset(bytes.data() + victim.offset + victim.length / 2, 0x55, 16);
  const std::string bad = dir.file("bad.zt");
  test::write_file(bad, bytes);
  auto damaged = Reader::open(bad);
  ASSERT_TRUE(damaged.ok()) << damaged.status().to_string();
  auto alone = (*damaged)->read_component("o4", "data");
  ASSERT_FALSE(alone.ok());
  refs.clear();
  for (const Object& o : (*damaged)->manifest().objects) refs.push_back({&o, "data"});
  for (unsigned threads : {1u, 3u}) {
    auto batch = read_components(**damaged, refs, threads);
    ASSERT_FALSE(batch.ok());
    EXPECT_EQ(batch.status().code(), alone.status().code());
    EXPECT_NE(batch.status().message().find("'o4'"), std::string::npos) << batch.status().to_string();
  }
}

}  // namespace
}  // namespace zt
