// Many threads share one Reader (the contract of ztensor/reader.h: every
// const method is safe from many threads). Run under ThreadSanitizer by
// `make test` (build-tsan), and under ASan with the other unit tests.
#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace zt
