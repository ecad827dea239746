// Our own frames pinned: tests/golden/codec holds a frame of every kind and
// coding path the encoder writes (made by make_frames.py there). Each must
// decode to its input (the manifest keeps the input's SHA-256, not the
// input), and encoding that input again, at one thread and at two, must give
// the frame byte for byte: a change to the encoder shows up as a golden diff
// even when the decoder changed with it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/checksum.h"
#include "test_util.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/model_delta.h"
#include "z4ai/zstn.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using nlohmann::json;

const fs::path kDir = fs::path(ZT_SOURCE_DIR) / "tests/golden/codec";

Bytes read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

const json& manifest() {
  static const json m = [] {
    std::ifstream f(kDir / "manifest.json");
    return json::parse(f);
  }();
  return m;
}

const json& case_named(const std::string& name) {
  for (const json& c : manifest()["cases"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no golden case " + name);
}

std::string hex_sha256(std::span<const uint8_t> b) { return zt::to_hex(zt::sha256(b)); }

z4ai::CompressOptions codec_options(const json& o, unsigned threads) {
  z4ai::CompressOptions co;
  co.dtype = o.value("dtype", "");
  co.level = o.value("level", -1);
  co.auto_select = o.value("auto", true);
  co.effort = z4ai::parse_effort(o.value("effort", "fast")).value();
  co.threads = threads;
  return co;
}

Bytes decode(const json& c);

// The input a reference or base names: the decoded bytes of that case.
Bytes input_of(const std::string& name) { return decode(case_named(name)); }

// The .zt case's objects, each {name, effort}, read back in that order.
Bytes decode_zt(const json& c) {
  auto r = zt::Reader::open((kDir / c["frame"].get<std::string>()).string());
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  Bytes out;
  for (const json& o : c["options"]["objects"]) {
    auto b = (*r)->read_component(o[0].get<std::string>(), "data");
    if (!b.ok()) throw std::runtime_error(b.status().to_string());
    out.insert(out.end(), b->bytes.begin(), b->bytes.end());
  }
  return out;
}

Bytes decode(const json& c) {
  const Bytes frame = read_bytes(kDir / c["frame"].get<std::string>());
  const std::string kind = c["kind"];
  zt::Result<Bytes> r = Bytes{};
  if (kind == "z4ai") r = z4ai::decompress(frame, 1);
  if (kind == "delta") r = z4ai::decompress_delta(frame, input_of(c["reference"]), 1);
  if (kind == "zstn") r = z4ai::zstn::decompress(frame, 1);
  if (kind == "model_delta") r = z4ai::decompress_model_delta(frame, input_of(c["base"]), 1);
  if (kind == "chunked") r = z4ai::chunked::decompress(frame, 1);
  if (kind == "zt") return decode_zt(c);
  if (!r.ok()) throw std::runtime_error(c["name"].get<std::string>() + ": " + r.status().to_string());
  return std::move(r).value();
}

// The .zt written again from the decoded objects, as make_frames.py wrote it.
Bytes encode_zt(const json& c, unsigned threads) {
  auto golden = zt::Reader::open((kDir / c["frame"].get<std::string>()).string());
  if (!golden.ok()) throw std::runtime_error(golden.status().to_string());
  zt::test::TempDir dir;
  const std::string path = dir.file("again.zt");
  auto w = zt::Writer::create(path, (*golden)->manifest().attributes);
  if (!w.ok()) throw std::runtime_error(w.status().to_string());
  std::vector<zt::ComponentBytes> keep;
  for (const json& o : c["options"]["objects"]) {
    const zt::Object* obj = (*golden)->find(o[0].get<std::string>());
    zt::ObjectSpec spec{obj->name, obj->shape, obj->format, obj->attributes, {}};
    for (const auto& [role, comp] : obj->components) {
      keep.push_back((*golden)->read_component(*obj, role).value());
      zt::ComponentSpec cs;
      cs.role = role;
      cs.dtype = comp.dtype;
      cs.type = comp.type;
      cs.data = keep.back().bytes;
      cs.encoding = zt::Encoding::z4ai;
      cs.level = -1;
      cs.effort = uint8_t(z4ai::parse_effort(o[1].get<std::string>()).value());
      cs.threads = threads;
      cs.digest = zt::DigestAlgo::sha256;
      spec.components.push_back(cs);
    }
    zt::Status s = (*w)->add(spec);
    if (!s.ok()) throw std::runtime_error(s.to_string());
  }
  zt::Status s = (*w)->finish();
  if (!s.ok()) throw std::runtime_error(s.to_string());
  return read_bytes(path);
}

Bytes encode(const json& c, const Bytes& input, unsigned threads) {
  const std::string kind = c["kind"];
  const json& o = c["options"];
  zt::Result<Bytes> r = Bytes{};
  if (kind == "z4ai") r = z4ai::compress(input, codec_options(o, threads));
  if (kind == "delta") r = z4ai::compress_delta(input, input_of(c["reference"]), codec_options(o, threads));
  if (kind == "zstn") {
    z4ai::zstn::Options zo;
    zo.level = o["level"];
    zo.effort = z4ai::parse_effort(o["effort"].get<std::string>()).value();
    zo.threads = threads;
    zo.workers = threads;
    r = z4ai::zstn::compress(input, zo);
    // The file writer's streaming path must write the same bytes.
    Bytes streamed;
    zt::Status s = z4ai::zstn::compress_to(input, zo, [&](std::span<const uint8_t> b) {
      streamed.insert(streamed.end(), b.begin(), b.end());
      return zt::Status();
    });
    if (!s.ok() || !r.ok() || streamed != r.value()) throw std::runtime_error("zstn: compress_to differs");
  }
  if (kind == "model_delta") {
    z4ai::ModelDeltaOptions mo;
    mo.level = o["level"];
    mo.threads = threads;
    r = z4ai::compress_model_delta(input, input_of(c["base"]), mo);
  }
  if (kind == "chunked") {
    z4ai::chunked::Options co;
    co.width = o["width"];
    co.level = o["level"];
    co.chunk_size = o["chunk_size"];
    co.threads = threads;
    r = z4ai::chunked::compress(input, co);
  }
  if (kind == "zt") return encode_zt(c, threads);
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return std::move(r).value();
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const json& c : manifest()["cases"])
    if (c["kind"] != "z4na") names.push_back(c["name"]);  // Z4NA is the Python package's wrapper
  return names;
}

class GoldenFrame : public testing::TestWithParam<std::string> {};

TEST_P(GoldenFrame, DecodesToItsInputAndEncodesToItself) {
  const json& c = case_named(GetParam());
  const Bytes frame = read_bytes(kDir / c["frame"].get<std::string>());
  ASSERT_FALSE(frame.empty());
  const Bytes input = decode(c);
  ASSERT_EQ(input.size(), c["input_bytes"].get<size_t>());
  ASSERT_EQ(hex_sha256(input), c["input_sha256"].get<std::string>()) << "decoded bytes differ from the input";
  if (c.contains("encoder_refuses")) {  // pinned for the readers: today's writer refuses its input
    ASSERT_EQ(c["kind"], "zstn");
    auto r = z4ai::zstn::compress(input, {});
    ASSERT_FALSE(r.ok()) << c["path"];
    EXPECT_EQ(zt::error_code_name(r.status().code()), c["encoder_refuses"].get<std::string>());
    return;
  }
  for (unsigned threads : {1u, 2u}) {
    const Bytes again = encode(c, input, threads);
    EXPECT_EQ(again.size(), frame.size()) << "threads " << threads << ": " << c["path"];
    EXPECT_TRUE(again == frame) << "threads " << threads << ": the encoder no longer writes this golden frame ("
                                << c["path"] << "); if the change is deliberate, regenerate "
                                << "(tests/golden/README.md)";
  }
}

INSTANTIATE_TEST_SUITE_P(Codec, GoldenFrame, testing::ValuesIn(case_names()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

// What one Z4AI/ZARA frame holds: its magic, mode, and per chunk the
// transform byte and stream methods (docs/codec.md), read here without the
// codec's own parser.
void collect(std::span<const uint8_t> f, std::set<std::string>& magics, std::set<int>& modes,
             std::set<int>& transforms, std::set<int>& methods) {
  ASSERT_GE(f.size(), 32u);
  magics.insert(std::string(f.begin(), f.begin() + 4));
  modes.insert(f[6]);
  if (f[6] != 0) return;
  auto u32 = [&](size_t at) { return uint32_t(f[at]) | uint32_t(f[at + 1]) << 8 | uint32_t(f[at + 2]) << 16 |
                                     uint32_t(f[at + 3]) << 24; };
  const uint32_t n = u32(28);
  size_t body = 32 + 4 * size_t(n);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t len = u32(32 + 4 * i), tail = f[body + 1], k = f[body + 2 + tail];
    transforms.insert(f[body]);
    for (size_t s = 0; s < k; ++s) methods.insert(f[body + 3 + tail + 9 * s]);
    body += len;
  }
}

TEST(GoldenFrames, CoverEveryFrameKindTransformAndMethodWeWrite) {
  std::set<std::string> kinds, magics;
  std::set<int> modes, transforms, methods;
  for (const json& c : manifest()["cases"]) {
    kinds.insert(c["kind"]);
    const Bytes frame = read_bytes(kDir / c["frame"].get<std::string>());
    if (c["kind"] == "z4ai") collect(frame, magics, modes, transforms, methods);
    if (c["kind"] == "delta") collect(std::span<const uint8_t>(frame).subspan(32), magics, modes, transforms, methods);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"z4ai", "delta", "zstn", "model_delta", "chunked", "zt", "z4na"}));
  EXPECT_EQ(magics, (std::set<std::string>{"Z4AI", "ZARA"}));
  EXPECT_EQ(modes, (std::set<int>{0, 1}));
  // Every transform (0 none ... 6 scale grid) and the sparse flag on the field split.
  EXPECT_EQ(transforms, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 0x82}));
  // Every stream method the encoders write; 4-6 (brotli, arithmetic) are decode-only.
  EXPECT_EQ(methods, (std::set<int>{0, 1, 2, 3, 7, 8, 9, 10}));
}

}  // namespace
