// Sharded .zt sets: NAME.zt.index.json + .zt shards read as one source.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::TempDir;

// A .zt file holding one f32 object per name, each [2] = {i, i + 0.5}, with
// sha256 digests and a file attribute naming the shard.
void write_shard(const std::string& path, const std::vector<std::string>& names, const std::string& tag) {
  Value::Map attrs;
  attrs.emplace_back(Value::text("shard"), Value::text(tag));
  attrs.emplace_back(Value::text("model"), Value::text("m"));
  auto w = Writer::create(path, Value::map(attrs));
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  std::vector<std::vector<float>> keep;
  for (size_t i = 0; i < names.size(); ++i) {
    keep.push_back({static_cast<float>(names[i][0]), static_cast<float>(names[i][0]) + 0.5f});
    ObjectSpec o;
    o.name = names[i];
    o.shape = {2};
    ComponentSpec c;
    c.role = "data";
    c.dtype = DType::f32;
    c.data = test::as_bytes(keep.back());
    c.digest = DigestAlgo::sha256;
    o.components.push_back(c);
    ASSERT_TRUE(w.value()->add(o).ok());
  }
  ASSERT_TRUE(w.value()->finish().ok());
}

// m-00001-of-00002.zt holds a, b; m-00002-of-00002.zt holds c.
void write_set(const TempDir& dir, const std::string& index_json) {
  write_shard(dir.file("m-00001-of-00002.zt"), {"a", "b"}, "1");
  write_shard(dir.file("m-00002-of-00002.zt"), {"c"}, "2");
  std::ofstream(dir.file("m.zt.index.json")) << index_json;
}

const char* kGoodIndex =
    R"({"metadata":{"total_size":24},"weight_map":{"c":"m-00002-of-00002.zt","a":"m-00001-of-00002.zt",)"
    R"("b":"m-00001-of-00002.zt"}})";

Status open_status(const std::string& index_json) {
  TempDir dir;
  write_set(dir, index_json);
  auto s = open_source(dir.file("m.zt.index.json"));
  return s.ok() ? Status::Ok() : s.status();
}

TEST(ZtIndex, OpensAsOneSourceInShardOrder) {
  TempDir dir;
  write_set(dir, kGoodIndex);
  const std::string index = dir.file("m.zt.index.json");
  ASSERT_EQ(detect_format(index).value(), FileFormat::zt_index);
  auto src = open_source(index, /*verify_on_read=*/true);
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  const TensorSource& s = *src.value();
  EXPECT_STREQ(s.format_name(), "zt_index");
  ASSERT_EQ(s.manifest().objects.size(), 3u);
  EXPECT_EQ(s.manifest().objects[0].name, "a");
  EXPECT_EQ(s.manifest().objects[1].name, "b");
  EXPECT_EQ(s.manifest().objects[2].name, "c");
  EXPECT_EQ(s.shard_paths(), (std::vector<std::string>{dir.file("m-00001-of-00002.zt"), dir.file("m-00002-of-00002.zt")}));
  ASSERT_NE(s.manifest().attributes.find("shard"), nullptr);
  EXPECT_EQ(s.manifest().attributes.find("shard")->as_string(), "1");  // first shard wins
  for (const char* name : {"a", "b", "c"}) {
    const Object* o = s.find(name);
    ASSERT_NE(o, nullptr) << name;
    auto bytes = s.read_component(*o, "data");
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    ASSERT_EQ(bytes.value().bytes.size(), 8u);
    float v[2];
    std::memcpy(v, bytes.value().bytes.data(), 8);
    EXPECT_EQ(v[0], static_cast<float>(name[0]));
    EXPECT_EQ(v[1], static_cast<float>(name[0]) + 0.5f);
  }
  EXPECT_EQ(s.find("zz"), nullptr);
  EXPECT_TRUE(s.verify().ok());
}

TEST(ZtIndex, ConvertsToOneZtFile) {
  TempDir dir;
  write_set(dir, kGoodIndex);
  auto st = convert_to_zt(dir.file("m.zt.index.json"), dir.file("one.zt"));
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  EXPECT_EQ(st.value().objects, 3u);
  auto r = Reader::open(dir.file("one.zt"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->manifest().objects.size(), 3u);
}

TEST(ZtIndex, VerifyNamesTheCorruptShard) {
  TempDir dir;
  write_set(dir, kGoodIndex);
  auto src = open_source(dir.file("m.zt.index.json"));
  ASSERT_TRUE(src.ok());
  // Flip a byte of c's data (the first blob, at the 64-byte alignment).
  std::fstream f(dir.file("m-00002-of-00002.zt"), std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(64);
  f.put('\x7f');
  f.close();
  auto reopened = open_source(dir.file("m.zt.index.json"));
  ASSERT_TRUE(reopened.ok());
  Status s = reopened.value()->verify();
  EXPECT_EQ(s.code(), ErrorCode::digest_mismatch) << s.to_string();
  EXPECT_NE(s.message().find("m-00002-of-00002.zt"), std::string::npos) << s.message();
}

TEST(ZtIndex, ObjectMissingFromItsListedShard) {
  Status s = open_status(
      R"({"weight_map":{"a":"m-00001-of-00002.zt","b":"m-00001-of-00002.zt","c":"m-00002-of-00002.zt",)"
      R"("d":"m-00002-of-00002.zt"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure);
  EXPECT_NE(s.message().find("'d'"), std::string::npos) << s.message();
}

TEST(ZtIndex, ObjectInAnotherShardThanListed) {
  Status s = open_status(
      R"({"weight_map":{"a":"m-00001-of-00002.zt","b":"m-00002-of-00002.zt","c":"m-00002-of-00002.zt"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure);
  EXPECT_NE(s.message().find("places in 'm-00002-of-00002.zt'"), std::string::npos) << s.message();
}

TEST(ZtIndex, ObjectTheMapDoesNotList) {
  Status s = open_status(R"({"weight_map":{"a":"m-00001-of-00002.zt","c":"m-00002-of-00002.zt"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure);
  EXPECT_NE(s.message().find("does not list"), std::string::npos) << s.message();
}

TEST(ZtIndex, ObjectInTwoShards) {
  TempDir dir;
  write_shard(dir.file("m-00001-of-00002.zt"), {"a", "b"}, "1");
  write_shard(dir.file("m-00002-of-00002.zt"), {"b"}, "2");
  std::ofstream(dir.file("m.zt.index.json"))
      << R"({"weight_map":{"a":"m-00001-of-00002.zt","b":"m-00002-of-00002.zt"}})";
  auto s = open_source(dir.file("m.zt.index.json"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::invalid_structure);
}

TEST(ZtIndex, ShardOutsideTheFolderIsRefused) {
  Status s = open_status(R"({"weight_map":{"a":"../m-00001-of-00002.zt","c":"m-00002-of-00002.zt"}})");
  EXPECT_EQ(s.code(), ErrorCode::invalid_structure);
  EXPECT_NE(s.message().find("plain file name"), std::string::npos) << s.message();
}

TEST(ZtIndex, MissingShardFileIsAnIoError) {
  TempDir dir;
  write_shard(dir.file("m-00001-of-00002.zt"), {"a"}, "1");
  std::ofstream(dir.file("m.zt.index.json"))
      << R"({"weight_map":{"a":"m-00001-of-00002.zt","c":"m-00002-of-00002.zt"}})";
  auto s = open_source(dir.file("m.zt.index.json"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::io_error) << s.status().to_string();
}

TEST(ZtIndex, ContentDecidesOverTheName) {
  TempDir dir;
  write_set(dir, kGoodIndex);
  std::ofstream(dir.file("weights.json")) << kGoodIndex;  // an index not called *.zt.index.json
  EXPECT_EQ(detect_format(dir.file("weights.json")).value(), FileFormat::zt_index);
  std::ofstream(dir.file("st.json")) << R"({"weight_map":{"a":"m.safetensors"}})";
  EXPECT_EQ(detect_format(dir.file("st.json")).value(), FileFormat::safetensors_index);
  std::ofstream(dir.file("bad.zt.index.json")) << "{";
  EXPECT_EQ(detect_format(dir.file("bad.zt.index.json")).value(), FileFormat::zt_index);
  auto s = open_source(dir.file("bad.zt.index.json"));
  EXPECT_EQ(s.status().code(), ErrorCode::malformed_manifest);
}

}  // namespace
}  // namespace zt
