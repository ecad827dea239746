// safetensors <-> .zt conversion through the container's Reader and Writer.
#include "ztensor/convert.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "convert/safetensors_reader.h"
#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::TempDir;

// A safetensors file laid out exactly as the safetensors library writes it:
// compact JSON, widest dtype first, header padded with spaces to 8 bytes.
std::vector<uint8_t> sample_safetensors() {
  std::string h =
      R"({"__metadata__":{"format":"pt","note":"a \"quoted\" value"},)"
      R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("h":{"dtype":"BF16","shape":[2],"data_offsets":[24,28]},)"
      R"("f8":{"dtype":"F8_E5M2","shape":[3],"data_offsets":[28,31]},)"
      R"("z":{"dtype":"U8","shape":[0,4],"data_offsets":[31,31]},)"
      R"("s":{"dtype":"BOOL","shape":[],"data_offsets":[31,32]}})";
  h.append((8 - h.size() % 8) % 8, ' ');
  std::vector<uint8_t> f;
  for (int i = 0; i < 8; ++i) f.push_back(static_cast<uint8_t>(static_cast<uint64_t>(h.size()) >> (8 * i)));
  for (char c : h) f.push_back(static_cast<uint8_t>(c));
  for (int i = 0; i < 31; ++i) f.push_back(static_cast<uint8_t>(i * 13 + 5));
  f.push_back(1);
  return f;
}

TEST(Convert, SafetensorsToZtKeepsEveryTensorAndMetadata) {
  TempDir dir;
  test::write_file(dir.file("in.safetensors"), sample_safetensors());
  auto stats = convert_safetensors_to_zt(dir.file("in.safetensors"), dir.file("out.zt"));
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats.value().objects, 5u);
  EXPECT_EQ(stats.value().bytes, 32u);

  auto st = SafetensorsFile::open(dir.file("in.safetensors"));
  ASSERT_TRUE(st.ok());
  auto r = Reader::open(dir.file("out.zt"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const Manifest& m = r.value()->manifest();
  ASSERT_EQ(m.objects.size(), 5u);
  ASSERT_NE(m.attributes.find("format"), nullptr);
  EXPECT_EQ(m.attributes.find("format")->as_string(), "pt");
  EXPECT_EQ(m.attributes.find("note")->as_string(), "a \"quoted\" value");
  for (const auto& t : st.value()->tensors()) {
    const Object* o = r.value()->find(t.name);
    ASSERT_NE(o, nullptr) << t.name;
    EXPECT_EQ(o->format, "dense");
    EXPECT_EQ(o->shape, t.shape);
    ASSERT_NE(o->find("data"), nullptr);
    DType dtype;
    LogicalType type;
    ASSERT_TRUE(safetensors_dtype_to_zt(t.st_dtype, &dtype, &type));
    EXPECT_EQ(o->find("data")->dtype, dtype);
    EXPECT_EQ(o->find("data")->type, type);
    auto bytes = r.value()->read_component(*o, "data");
    ASSERT_TRUE(bytes.ok());
    auto want = st.value()->tensor_bytes(t);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(std::vector<uint8_t>(bytes.value().bytes.begin(), bytes.value().bytes.end()),
              std::vector<uint8_t>(want->bytes.begin(), want->bytes.end()))
        << t.name;
  }
  EXPECT_EQ(r.value()->find("f8")->find("data")->type, LogicalType::f8_e5m2);
}

TEST(Convert, RoundTripIsByteIdenticalRawAndZstd) {
  TempDir dir;
  const auto original = sample_safetensors();
  test::write_file(dir.file("in.safetensors"), original);
  for (Encoding e : {Encoding::raw, Encoding::zstd}) {
    ConvertOptions o;
    o.encoding = e;
    o.digest = DigestAlgo::sha256;
    ASSERT_TRUE(convert_safetensors_to_zt(dir.file("in.safetensors"), dir.file("mid.zt"), o).ok());
    auto back = convert_zt_to_safetensors(dir.file("mid.zt"), dir.file("back.safetensors"));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_TRUE(back.value().warnings.empty());
    EXPECT_EQ(test::read_file(dir.file("back.safetensors")), original) << encoding_name(e);
  }
}

TEST(Convert, ZtToZtRecompressesEveryComponent) {
  TempDir dir;
  test::write_file(dir.file("in.safetensors"), sample_safetensors());
  ASSERT_TRUE(convert_safetensors_to_zt(dir.file("in.safetensors"), dir.file("a.zt")).ok());
  ConvertOptions o;
  o.encoding = Encoding::zstd;
  o.digest = DigestAlgo::crc32c;
  ASSERT_TRUE(convert_zt_to_zt(dir.file("a.zt"), dir.file("b.zt"), o).ok());
  auto r = Reader::open(dir.file("b.zt"));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value()->verify().ok());
  EXPECT_EQ(r.value()->find("w")->find("data")->encoding, Encoding::zstd);
  EXPECT_EQ(r.value()->find("w")->find("data")->digest.rfind("crc32c:", 0), 0u);
  ASSERT_TRUE(convert_zt_to_safetensors(dir.file("b.zt"), dir.file("back.safetensors")).ok());
  EXPECT_EQ(test::read_file(dir.file("back.safetensors")), sample_safetensors());
}

TEST(Convert, NonDenseObjectIsRefusedAndLeavesNoOutput) {
  TempDir dir;
  auto w = Writer::create(dir.file("sparse.zt"));
  ASSERT_TRUE(w.ok());
  std::vector<float> values = {1, 2};
  std::vector<uint64_t> indices = {0, 2}, indptr = {0, 1, 2};
  ObjectSpec s;
  s.name = "sp";
  s.shape = {2, 3};
  s.format = "sparse_csr";
  s.components = {{"values", DType::f32, LogicalType::none, test::as_bytes(values)},
                  {"indices", DType::u64, LogicalType::none, test::as_bytes(indices)},
                  {"indptr", DType::u64, LogicalType::none, test::as_bytes(indptr)}};
  ASSERT_TRUE(w.value()->add(s).ok());
  ASSERT_TRUE(w.value()->finish().ok());
  auto r = convert_zt_to_safetensors(dir.file("sparse.zt"), dir.file("out.safetensors"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::unsupported);
  EXPECT_NE(r.status().message().find("'sp'"), std::string::npos);
  EXPECT_NE(r.status().message().find("sparse_csr"), std::string::npos);
  EXPECT_EQ(dir.entries(), 1u);  // no output, no temporary
}

TEST(Convert, NonStringAttributesAreReportedNotSilentlyDropped) {
  TempDir dir;
  Value attrs = Value::map();
  attrs.set("name", Value::text("m"));
  attrs.set("epochs", Value::uint(3));
  auto w = Writer::create(dir.file("a.zt"), attrs);
  ASSERT_TRUE(w.ok());
  std::vector<int32_t> v = {1, -2, 3};
  ObjectSpec s;
  s.name = "v";
  s.shape = {3};
  s.components = {{"data", DType::i32, LogicalType::none, test::as_bytes(v)}};
  ASSERT_TRUE(w.value()->add(s).ok());
  ASSERT_TRUE(w.value()->finish().ok());
  auto r = convert_zt_to_safetensors(dir.file("a.zt"), dir.file("a.safetensors"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find("'epochs'"), std::string::npos);
  auto st = SafetensorsFile::open(dir.file("a.safetensors"));
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  ASSERT_EQ(st.value()->metadata().size(), 1u);
  EXPECT_EQ(st.value()->metadata()[0].second, "m");
  EXPECT_EQ(st.value()->find("v")->st_dtype, "I32");
}

TEST(Convert, BadSafetensorsInputFailsWithItsOwnErrorAndNoOutput) {
  TempDir dir;
  auto bytes = sample_safetensors();
  bytes.push_back(0);  // one trailing byte
  test::write_file(dir.file("bad.safetensors"), bytes);
  auto r = convert_safetensors_to_zt(dir.file("bad.safetensors"), dir.file("out.zt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::invalid_structure);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.zt")));
}

TEST(Convert, DetectsFormatByContentThenExtension) {
  TempDir dir;
  test::write_file(dir.file("model.bin"), sample_safetensors());
  auto f = detect_format(dir.file("model.bin"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value(), FileFormat::safetensors);
  ASSERT_TRUE(convert_safetensors_to_zt(dir.file("model.bin"), dir.file("x.data")).ok());
  EXPECT_EQ(detect_format(dir.file("x.data")).value(), FileFormat::zt);
  test::write_file(dir.file("empty.zt"), {});
  EXPECT_EQ(detect_format(dir.file("empty.zt")).value(), FileFormat::zt);
  test::write_file(dir.file("junk"), {1, 2, 3});
  EXPECT_EQ(detect_format(dir.file("junk")).value(), FileFormat::unknown);
  EXPECT_EQ(detect_format(dir.file("missing")).status().code(), ErrorCode::io_error);
}

}  // namespace
}  // namespace zt

namespace zt {
namespace {

// Two shards and an index as `transformers` writes them.
void write_sharded(const test::TempDir& dir, const std::string& index_json) {
  auto shard = [](const std::string& h, size_t n) {
    std::vector<uint8_t> f;
    for (int i = 0; i < 8; ++i) f.push_back(static_cast<uint8_t>(static_cast<uint64_t>(h.size()) >> (8 * i)));
    for (char c : h) f.push_back(static_cast<uint8_t>(c));
    for (size_t i = 0; i < n; ++i) f.push_back(static_cast<uint8_t>(i + 1));
    return f;
  };
  test::write_file(dir.file("m-1.safetensors"),
                   shard(R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8));
  test::write_file(dir.file("m-2.safetensors"),
                   shard(R"({"__metadata__":{"format":"pt"},"b":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})", 3));
  std::ofstream(dir.file("m.safetensors.index.json")) << index_json;
}

constexpr const char* kGoodIndex =
    R"({"metadata":{"total_size":11},"weight_map":{"b":"m-2.safetensors","a":"m-1.safetensors"}})";

TEST(ConvertSharded, IndexConvertsEveryShardInFileNameOrder) {
  TempDir dir;
  write_sharded(dir, kGoodIndex);
  EXPECT_EQ(detect_format(dir.file("m.safetensors.index.json")).value(), FileFormat::safetensors_index);
  auto r = convert_safetensors_to_zt(dir.file("m.safetensors.index.json"), dir.file("out.zt"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r.value().objects, 2u);
  auto z = Reader::open(dir.file("out.zt"));
  ASSERT_TRUE(z.ok());
  ASSERT_EQ(z.value()->manifest().objects.size(), 2u);
  EXPECT_EQ(z.value()->manifest().objects[0].name, "a");
  EXPECT_EQ(z.value()->manifest().objects[1].name, "b");
  EXPECT_EQ(z.value()->manifest().attributes.find("format")->as_string(), "pt");
}

Status sharded_status(const std::string& index_json) {
  TempDir dir;
  write_sharded(dir, index_json);
  auto r = convert_safetensors_to_zt(dir.file("m.safetensors.index.json"), dir.file("out.zt"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.zt")));
  return r.ok() ? Status::Ok() : r.status();
}

TEST(ConvertSharded, ShardPathLeavingTheFolderIsRefused) {
  Status s = sharded_status(R"({"weight_map":{"a":"../m-1.safetensors","b":"m-2.safetensors"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure) << s.to_string();
  EXPECT_NE(s.message().find("plain file name"), std::string::npos);
  EXPECT_EQ(sharded_status(R"({"weight_map":{"a":"/etc/passwd"}})").code(), ErrorCode::invalid_structure);
}

TEST(ConvertSharded, TensorMissingFromItsShard) {
  Status s = sharded_status(
      R"({"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","c":"m-2.safetensors"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure) << s.to_string();
  EXPECT_NE(s.message().find("'c'"), std::string::npos);
}

TEST(ConvertSharded, ShardTensorNotInTheMap) {
  Status s = sharded_status(R"({"weight_map":{"a":"m-1.safetensors","x":"m-2.safetensors"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure) << s.to_string();
  EXPECT_NE(s.message().find("'b'"), std::string::npos);
}

TEST(ConvertSharded, DuplicateKeyInWeightMap) {
  Status s = sharded_status(
      R"({"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","a":"m-2.safetensors"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure) << s.to_string();
  EXPECT_NE(s.message().find("more than once"), std::string::npos);
}

TEST(ConvertSharded, MalformedIndex) {
  EXPECT_EQ(sharded_status(R"({"weight_map":)").code(), ErrorCode::malformed_manifest);
  EXPECT_EQ(sharded_status(R"({"metadata":{}})").code(), ErrorCode::missing_field);
  EXPECT_EQ(sharded_status(R"({"weight_map":{"a":1}})").code(), ErrorCode::wrong_type);
  EXPECT_EQ(sharded_status(R"([])").code(), ErrorCode::wrong_type);
}

TEST(ConvertSharded, MissingShardIsAnIoError) {
  EXPECT_EQ(sharded_status(R"({"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","c":"m-3.safetensors"}})").code(),
            ErrorCode::io_error);
}

}  // namespace
}  // namespace zt

namespace zt {
namespace {

TEST(SafetensorsSource, PresentsTensorsAsZeroCopyDenseObjects) {
  auto bytes = sample_safetensors();
  auto owner = std::make_shared<std::vector<uint8_t>>(bytes);
  auto src = open_safetensors_memory(*owner, owner);
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  const TensorSource& s = *src.value();
  EXPECT_STREQ(s.format_name(), "safetensors");
  ASSERT_EQ(s.manifest().objects.size(), 5u);
  const Object* w = s.find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->format, "dense");
  EXPECT_EQ(w->shape, (std::vector<uint64_t>{2, 3}));
  auto data = s.read_component(*w, "data");
  ASSERT_TRUE(data.ok());
  EXPECT_TRUE(data.value().zero_copy);
  EXPECT_EQ(data.value().bytes.size(), 24u);
  EXPECT_GE(data.value().bytes.data(), owner->data());
  EXPECT_EQ(s.read_component(*w, "scales").status().code(), ErrorCode::not_found);
  EXPECT_EQ(s.find("f8")->find("data")->type_name, "f8_e5m2");
  EXPECT_TRUE(s.verify().ok());
}

TEST(SafetensorsSource, OpenSourceDispatchesByContent) {
  TempDir dir;
  test::write_file(dir.file("weights.dat"), sample_safetensors());
  auto s = open_source(dir.file("weights.dat"));
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_STREQ(s.value()->format_name(), "safetensors");
  ASSERT_TRUE(convert_source_to_zt(*s.value(), dir.file("w.zt")).ok());
  auto z = open_source(dir.file("w.zt"));
  ASSERT_TRUE(z.ok());
  EXPECT_STREQ(z.value()->format_name(), "zt");
  test::write_file(dir.file("junk.dat"), {1, 2, 3});
  EXPECT_EQ(open_source(dir.file("junk.dat")).status().code(), ErrorCode::unsupported);
}

}  // namespace
}  // namespace zt
