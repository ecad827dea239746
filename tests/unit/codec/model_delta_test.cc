// Z4DM model-aware deltas: byte-identical round trips across fine-tunes and
// layout changes, loud failure on the wrong base, and clean rejection of
// truncated or damaged frames. Safetensors buffers are built by hand here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "test_data.h"
#include "z4ai/codec.h"
#include "z4ai/model_delta.h"

namespace z4ai {
namespace {

struct T {
  std::string name, dtype;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> bytes;
};

// Header in the given order, data in the same order, with an optional gap of
// `pad` bytes after every tensor (bytes not covered by any tensor).
std::vector<uint8_t> safetensors(const std::vector<T>& ts, size_t pad = 0) {
  std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::vector<uint8_t> data;
  for (const T& t : ts) {
    json += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i) json += ',';
      json += std::to_string(t.shape[i]);
    }
    json += "],\"data_offsets\":[" + std::to_string(data.size()) + "," + std::to_string(data.size() + t.bytes.size()) +
            "]}";
    data.insert(data.end(), t.bytes.begin(), t.bytes.end());
    data.insert(data.end(), pad, uint8_t(0xA5));
  }
  json += "}";
  std::vector<uint8_t> out(8 + json.size() + data.size());
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(json.size()) >> (8 * i));
  std::copy(json.begin(), json.end(), out.begin() + 8);
  std::copy(data.begin(), data.end(), out.begin() + 8 + ptrdiff_t(json.size()));
  return out;
}

std::vector<T> base_model() {
  std::vector<T> ts;
  for (int i = 0; i < 6; ++i)
    ts.push_back({"layer" + std::to_string(i) + ".weight", "BF16", {256, 256}, testing::gaussian_bf16(65536, 10 + i)});
  ts.push_back({"norm.weight", "F32", {256}, testing::gaussian_fp32(256, 3)});
  return ts;
}

// Perturbs `fraction` of the bf16 elements slightly, as a fine-tune step does.
void fine_tune(std::vector<uint8_t>& bf16, double fraction, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i + 1 < bf16.size(); i += 2)
    if (u(rng) < fraction) bf16[i] ^= uint8_t(1 + rng() % 7);
}

size_t standalone_size(const std::vector<T>& ts) {
  size_t total = 0;
  for (const T& t : ts) {
    CompressOptions o;
    o.dtype = t.dtype;
    total += compress(t.bytes, o)->size();
  }
  return total;
}

void expect_round_trip(const std::vector<uint8_t>& target, const std::vector<uint8_t>& base,
                       std::vector<uint8_t>* frame_out = nullptr) {
  auto frame = compress_model_delta(target, base, {});
  ASSERT_TRUE(frame.ok()) << frame.status().to_string();
  EXPECT_TRUE(is_model_delta(frame.value()));
  auto back = decompress_model_delta(frame.value(), base);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back.value(), target);
  EXPECT_EQ(peek_model_delta(frame.value())->target_length, target.size());
  if (frame_out) *frame_out = frame.value();
}

TEST(ModelDelta, FineTuneWithTwoPercentChangedIsFarSmallerThanStandalone) {
  auto base_ts = base_model();
  auto target_ts = base_ts;
  for (size_t i = 0; i < 6; ++i) fine_tune(target_ts[i].bytes, 0.02, uint32_t(100 + i));
  auto base = safetensors(base_ts), target = safetensors(target_ts);
  std::vector<uint8_t> frame;
  expect_round_trip(target, base, &frame);
  const size_t standalone = standalone_size(target_ts);
  const double ratio = double(standalone) / double(frame.size());
  std::printf("2%% fine-tune: standalone %zu B, Z4DM %zu B, %.1fx smaller\n", standalone, frame.size(), ratio);
  EXPECT_GE(ratio, 10.0);
}

TEST(ModelDelta, ReUploadIsAllCopy) {
  auto base = safetensors(base_model());
  std::vector<uint8_t> frame;
  expect_round_trip(base, base, &frame);
  EXPECT_LT(frame.size(), 2000u);  // header + entries only, no weights
}

TEST(ModelDelta, AddedDroppedRenamedReshapedAndReorderedTensors) {
  auto base_ts = base_model();
  std::vector<T> target_ts = {base_ts[5], base_ts[0]};          // reordered
  target_ts.push_back({"new.bias", "F32", {64}, testing::gaussian_fp32(64, 77)});  // added
  T renamed = base_ts[1];
  renamed.name = "renamed.weight";  // identical bytes: still a COPY
  target_ts.push_back(renamed);
  T reshaped = base_ts[2];
  reshaped.shape = {65536};
  fine_tune(reshaped.bytes, 0.02, 5);  // no shape match: FULL
  target_ts.push_back(reshaped);
  T changed = base_ts[3];
  fine_tune(changed.bytes, 0.02, 6);
  target_ts.push_back(changed);
  // layer4 and norm dropped.
  auto base = safetensors(base_ts);
  expect_round_trip(safetensors(target_ts), base);
  // Bytes between tensors: the one safetensors parser refuses the target.
  auto gapped = compress_model_delta(safetensors(target_ts, 3), base, {});
  ASSERT_FALSE(gapped.ok());
  EXPECT_EQ(gapped.status().code(), zt::ErrorCode::invalid_argument);
}

TEST(ModelDelta, EmptyAndTensorlessFilesRoundTrip) {
  auto base = safetensors(base_model());
  expect_round_trip(safetensors({}), base);
  expect_round_trip(base, safetensors({}));
}

TEST(ModelDelta, WrongBaseFailsWithDigestMismatch) {
  auto base_ts = base_model();
  auto target_ts = base_ts;
  fine_tune(target_ts[0].bytes, 0.02, 1);
  auto base = safetensors(base_ts);
  auto frame = compress_model_delta(safetensors(target_ts), base, {}).value();
  auto other = base;
  other[other.size() - 100] ^= 1;
  EXPECT_EQ(decompress_model_delta(frame, other).status().code(), zt::ErrorCode::digest_mismatch);
  other = base;
  other.pop_back();
  EXPECT_EQ(decompress_model_delta(frame, other).status().code(), zt::ErrorCode::digest_mismatch);
}

TEST(ModelDelta, TruncatedAndBitFlippedFramesAreRejected) {
  auto base_ts = base_model();
  base_ts.resize(2);
  auto target_ts = base_ts;
  fine_tune(target_ts[0].bytes, 0.02, 1);
  target_ts.push_back({"extra", "F32", {16}, testing::gaussian_fp32(16, 9)});
  auto base = safetensors(base_ts);
  auto frame = compress_model_delta(safetensors(target_ts), base, {}).value();
  for (size_t len = 0; len < frame.size(); len += 97)
    EXPECT_FALSE(decompress_model_delta(std::span<const uint8_t>(frame.data(), len), base).ok()) << len;
  for (size_t at = 0; at < frame.size(); at += 53) {
    auto bad = frame;
    bad[at] ^= 0x10;
    EXPECT_FALSE(decompress_model_delta(bad, base).ok()) << at;
  }
}

TEST(ModelDelta, InvalidSafetensorsInputIsRejected) {
  auto base = safetensors(base_model());
  std::vector<uint8_t> junk = {1, 2, 3};
  EXPECT_EQ(compress_model_delta(junk, base, {}).status().code(), zt::ErrorCode::invalid_argument);
  EXPECT_EQ(compress_model_delta(base, junk, {}).status().code(), zt::ErrorCode::invalid_argument);
}

TEST(ModelDelta, OutputDoesNotDependOnThreads) {
  auto base_ts = base_model();
  auto target_ts = base_ts;
  for (size_t i = 0; i < 3; ++i) fine_tune(target_ts[i].bytes, 0.05, uint32_t(i));
  auto base = safetensors(base_ts), target = safetensors(target_ts);
  ModelDeltaOptions one, many;
  one.threads = 1;
  many.threads = 4;
  EXPECT_EQ(compress_model_delta(target, base, one).value(), compress_model_delta(target, base, many).value());
}

}  // namespace
}  // namespace z4ai
