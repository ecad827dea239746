// compress_to writes into the caller's FrameBuffer front to back: the bytes
// are compress()'s whatever the buffer does with reserve(), at any thread
// count, and a buffer that cannot grow ends the call with limit_exceeded.
#include <gtest/gtest.h>

#include <vector>

#include "test_data.h"
#include "z4ai/codec.h"

namespace z4ai {
namespace {

using testing::gaussian_bf16;
using testing::random_bytes;

// A buffer that ignores reserve() (so every append may move it) and takes at
// most `limit` bytes.
class GrowingBuffer final : public FrameBuffer {
 public:
  explicit GrowingBuffer(size_t limit = SIZE_MAX) : limit_(limit) {}
  void reserve(size_t) override { ++reserves; }
  bool append(std::span<const uint8_t> bytes) override {
    if (bytes.size() > limit_ - bytes_.size()) return false;
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    bytes_.shrink_to_fit();  // the next append moves the bytes
    return true;
  }
  uint8_t* data() override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }
  void clear() override { bytes_.clear(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  int reserves = 0;

 private:
  std::vector<uint8_t> bytes_;
  size_t limit_;
};

TEST(FrameBuffer, BytesAreCompressesAtEveryThreadCountAndEffort) {
  // Three chunks (4 MiB each at effort fast), opaque bytes, a tiny input,
  // none; ZARA (balanced) on the smaller ones, whose chunks are 8 MiB.
  struct Input {
    std::vector<uint8_t> data;
    const char* dtype;
    std::vector<Effort> efforts;
  };
  const std::vector<Input> inputs = {{gaussian_bf16(9 << 19), "bf16", {Effort::fast}},
                                     {random_bytes(3 << 20), "", {Effort::fast, Effort::balanced}},
                                     {gaussian_bf16(100), "bf16", {Effort::fast, Effort::balanced}},
                                     {{}, "bf16", {Effort::fast, Effort::balanced}}};
  for (const auto& [data, dtype, efforts] : inputs) {
    for (Effort effort : efforts) {
      CompressOptions o;
      o.dtype = dtype;
      o.effort = effort;
      o.threads = 1;
      auto expected = compress(data, o);
      ASSERT_TRUE(expected.ok()) << expected.status().to_string();
      for (unsigned threads : {1u, 2u, 4u, 7u}) {
        o.threads = threads;
        GrowingBuffer out;
        ASSERT_TRUE(compress_to(data, o, out).ok());
        EXPECT_EQ(out.bytes(), expected.value()) << "n=" << data.size() << " threads=" << threads;
        EXPECT_GE(out.reserves, 1);
      }
    }
  }
}

TEST(FrameBuffer, ABufferThatCannotGrowIsLimitExceeded) {
  const auto data = gaussian_bf16(9 << 19);
  for (size_t limit : {size_t{0}, size_t{40}, size_t{1} << 20}) {
    for (unsigned threads : {1u, 2u, 4u}) {
      CompressOptions o;
      o.dtype = "bf16";
      o.threads = threads;
      GrowingBuffer out(limit);
      zt::Status s = compress_to(data, o, out);
      EXPECT_EQ(s.code(), zt::ErrorCode::limit_exceeded) << "limit=" << limit << " threads=" << threads;
    }
  }
}

}  // namespace
}  // namespace z4ai
