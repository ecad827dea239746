// The .npz writer: archives it writes read back exactly through our own
// .npz reader (plain and forced-zip64 layouts), data is 64-byte aligned,
// and what numpy cannot hold is refused without leaving a file behind.
// (tests/python/test_convert_api.py checks numpy.load on the same output.)
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "../test_util.h"
#include "convert/numpy/npz_writer.h"
#include "ztensor/numpy_format.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::TempDir;

struct Dense {
  std::string name;
  std::vector<uint64_t> shape;
  DType dtype;
  LogicalType type = LogicalType::none;
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> iota_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + 3);
  return v;
}

std::unique_ptr<Reader> make_zt(const std::string& path, const std::vector<Dense>& objects, const std::string& format = "dense") {
  auto w = Writer::create(path, Value::map({{Value::text("k"), Value::text("v")}}));
  EXPECT_TRUE(w.ok()) << w.status().to_string();
  for (const Dense& d : objects) {
    ObjectSpec spec;
    spec.name = d.name;
    spec.shape = d.shape;
    spec.format = format;
    ComponentSpec c;
    c.role = format == "dense" ? "data" : "blocks";
    c.dtype = d.dtype;
    c.type = d.type;
    c.data = d.bytes;
    spec.components.push_back(c);
    Status st = (*w)->add(spec);
    EXPECT_TRUE(st.ok()) << st.to_string();
  }
  EXPECT_TRUE((*w)->finish().ok());
  auto r = Reader::open(path);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return std::move(r).value();
}

std::vector<Dense> sample() {
  return {
      {"f32", {2, 3}, DType::f32, LogicalType::none, iota_bytes(24)},
      {"scalar", {}, DType::f64, LogicalType::none, iota_bytes(8)},
      {"vec", {5}, DType::i16, LogicalType::none, iota_bytes(10)},
      {"empty", {0, 4}, DType::u8, LogicalType::none, {}},
      {"flags", {3}, DType::boolean, LogicalType::none, {1, 0, 1}},
      {"cplx", {2}, DType::f32, LogicalType::complex64, iota_bytes(16)},
      {"dir/nested.name", {1, 1, 2}, DType::u64, LogicalType::none, iota_bytes(16)},
  };
}

void expect_same(const TensorSource& back, const std::vector<Dense>& want) {
  ASSERT_EQ(back.manifest().objects.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].name);
    const Object& o = back.manifest().objects[i];
    EXPECT_EQ(o.name, want[i].name);
    EXPECT_EQ(o.shape, want[i].shape);
    const Component* c = o.find("data");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->dtype, want[i].dtype);
    EXPECT_EQ(c->type, want[i].type);
    auto b = back.read_component(o, "data");
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    EXPECT_EQ(std::vector<uint8_t>(b->bytes.begin(), b->bytes.end()), want[i].bytes);
    if (!b->bytes.empty()) {
      EXPECT_TRUE(b->zero_copy);  // stored members are views of the mapping
      EXPECT_EQ(c->offset % npz::kArrayAlign, 0u) << "data not 64-byte aligned in the archive";
    }
  }
  EXPECT_TRUE(back.verify().ok());  // CRC-32 of every member
}

TEST(NpzWriter, RoundTripsThroughTheReader) {
  TempDir dir;
  auto src = make_zt(dir.file("in.zt"), sample());
  auto stats = npz::write_npz(*src, dir.file("out.npz"));
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats->objects, sample().size());
  EXPECT_EQ(stats->bytes, 24u + 8 + 10 + 0 + 3 + 16 + 16);
  ASSERT_EQ(stats->warnings.size(), 1u);  // the file attribute
  auto back = open_npz(dir.file("out.npz"));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same(**back, sample());
}

TEST(NpzWriter, ForcedZip64RoundTrips) {
  TempDir dir;
  auto src = make_zt(dir.file("in.zt"), sample());
  npz::NpzWriteOptions opt;
  opt.force_zip64 = true;
  ASSERT_TRUE(npz::write_npz(*src, dir.file("out.npz"), {}, opt).ok());
  std::vector<uint8_t> bytes = test::read_file(dir.file("out.npz"));
  // The EOCD defers every field to the zip64 record.
  ASSERT_GE(bytes.size(), 22u);
  const uint8_t* eocd = bytes.data() + bytes.size() - 22;
  EXPECT_EQ(eocd[10], 0xFF);
  EXPECT_EQ(eocd[11], 0xFF);
  auto back = open_npz(dir.file("out.npz"));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same(**back, sample());
}

TEST(NpzWriter, SameInputSameBytes) {
  TempDir dir;
  auto src = make_zt(dir.file("in.zt"), sample());
  ASSERT_TRUE(npz::write_npz(*src, dir.file("a.npz")).ok());
  ASSERT_TRUE(npz::write_npz(*src, dir.file("b.npz")).ok());
  EXPECT_EQ(test::read_file(dir.file("a.npz")), test::read_file(dir.file("b.npz")));
}

TEST(NpzWriter, ProgressReachesTotal) {
  TempDir dir;
  auto src = make_zt(dir.file("in.zt"), sample());
  uint64_t last_done = 0, last_total = 0;
  int calls = 0;
  ASSERT_TRUE(npz::write_npz(*src, dir.file("o.npz"), [&](uint64_t d, uint64_t t) {
                last_done = d;
                last_total = t;
                ++calls;
              }).ok());
  EXPECT_EQ(calls, static_cast<int>(sample().size()));
  EXPECT_EQ(last_done, last_total);
}

void expect_refused(const std::vector<Dense>& objects, const std::string& needle, const std::string& format = "dense") {
  TempDir dir;
  auto src = make_zt(dir.file("in.zt"), objects, format);
  auto r = npz::write_npz(*src, dir.file("out.npz"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::unsupported) << r.status().to_string();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.npz")));
  EXPECT_EQ(dir.entries(), 1u);  // no temporary left behind
}

TEST(NpzWriter, RefusesTypesNumpyLacks) {
  expect_refused({{"ok", {1}, DType::f32, LogicalType::none, iota_bytes(4)},
                  {"half_brain", {2}, DType::bf16, LogicalType::none, iota_bytes(4)}},
                 "object 'half_brain'");
  expect_refused({{"f8", {2}, DType::u8, LogicalType::f8_e4m3fn, iota_bytes(2)}}, "f8_e4m3fn");
}

TEST(NpzWriter, RefusesNonDenseObjects) {
  expect_refused({{"q", {32}, DType::u8, LogicalType::none, iota_bytes(18)}}, "format 'gguf_quantized'",
                 "gguf_quantized");
}

TEST(NpzWriter, RefusesUnsafeMemberNames) {
  expect_refused({{"../escape", {1}, DType::u8, LogicalType::none, {1}}}, "'..'");
  expect_refused({{"/abs", {1}, DType::u8, LogicalType::none, {1}}}, "absolute");
}

}  // namespace
}  // namespace zt
