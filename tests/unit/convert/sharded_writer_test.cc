// Writing sharded .zt sets: transformers' shard rule, names, the index, and
// an all-or-nothing publish.
#include "ztensor/sharded_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

using test::TempDir;

struct Bytes {
  std::string name;
  std::vector<uint8_t> data;
};

// Objects of the given byte sizes named a, b, c, ... filled with their index.
std::vector<Bytes> objects(const std::vector<size_t>& sizes) {
  std::vector<Bytes> out;
  for (size_t i = 0; i < sizes.size(); ++i)
    out.push_back({std::string(1, static_cast<char>('a' + i)), std::vector<uint8_t>(sizes[i], static_cast<uint8_t>(i))});
  return out;
}

ObjectSpec spec(const Bytes& b) {
  ObjectSpec o;
  o.name = b.name;
  o.shape = {b.data.size()};
  ComponentSpec c;
  c.role = "data";
  c.dtype = DType::u8;
  c.data = b.data;
  o.components.push_back(c);
  return o;
}

std::set<std::string> listing(const TempDir& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("")))
    names.insert(e.path().filename().string());
  return names;
}

Result<std::vector<std::string>> write(const std::string& path, const std::vector<Bytes>& objs, uint64_t limit) {
  ZT_ASSIGN_OR_RETURN(auto w, ShardedWriter::create(path, {}, limit, /*durable=*/false));
  for (const auto& o : objs) ZT_RETURN_IF_ERROR(w->add(spec(o)));
  return w->finish();
}

std::vector<std::string> object_names(const std::string& path) {
  auto r = Reader::open(path);
  EXPECT_TRUE(r.ok()) << path << ": " << r.status().to_string();
  std::vector<std::string> names;
  if (r.ok())
    for (const auto& o : r.value()->manifest().objects) names.push_back(o.name);
  return names;
}

TEST(ShardedWriter, TransformersRuleInOrderAndOversizedAlone) {
  TempDir dir;
  // limit 10: [a4 b4] [c4] (8+4 > 10) [d12] (alone: larger than the limit) [e4]
  auto files = write(dir.file("m.zt"), objects({4, 4, 4, 12, 4}), 10);
  ASSERT_TRUE(files.ok()) << files.status().to_string();
  EXPECT_EQ(files.value(), (std::vector<std::string>{dir.file("m-00001-of-00004.zt"), dir.file("m-00002-of-00004.zt"),
                                                     dir.file("m-00003-of-00004.zt"), dir.file("m-00004-of-00004.zt"),
                                                     dir.file("m.zt.index.json")}));
  EXPECT_EQ(object_names(files.value()[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(object_names(files.value()[1]), (std::vector<std::string>{"c"}));
  EXPECT_EQ(object_names(files.value()[2]), (std::vector<std::string>{"d"}));
  EXPECT_EQ(object_names(files.value()[3]), (std::vector<std::string>{"e"}));
  EXPECT_EQ(listing(dir).size(), 5u);  // no temporaries left

  std::ifstream in(dir.file("m.zt.index.json"));
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["metadata"]["total_size"], 28);
  EXPECT_EQ(j["weight_map"]["a"], "m-00001-of-00004.zt");
  EXPECT_EQ(j["weight_map"]["d"], "m-00003-of-00004.zt");
  EXPECT_EQ(j["weight_map"].size(), 5u);

  auto src = open_source(dir.file("m.zt.index.json"));
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  ASSERT_EQ(src.value()->manifest().objects.size(), 5u);
  auto d = src.value()->read_component(*src.value()->find("d"), "data");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::vector<uint8_t>(d.value().bytes.begin(), d.value().bytes.end()), std::vector<uint8_t>(12, 3));
}

TEST(ShardedWriter, ExactlyAtTheLimitStaysInTheShard) {
  TempDir dir;
  auto files = write(dir.file("m.zt"), objects({4, 6, 1}), 10);  // [a4 b6] [c1]
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files.value().size(), 3u);
  EXPECT_EQ(object_names(files.value()[0]), (std::vector<std::string>{"a", "b"}));
}

TEST(ShardedWriter, OneShardIsAPlainFileWithoutIndex) {
  TempDir dir;
  auto files = write(dir.file("m.zt"), objects({4, 4}), 100);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files.value(), std::vector<std::string>{dir.file("m.zt")});
  EXPECT_EQ(listing(dir), (std::set<std::string>{"m.zt"}));
  EXPECT_EQ(object_names(dir.file("m.zt")), (std::vector<std::string>{"a", "b"}));
  // No limit at all: the same.
  auto unlimited = write(dir.file("n.zt"), objects({4, 4, 400}), 0);
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(listing(dir), (std::set<std::string>{"m.zt", "n.zt"}));
}

TEST(ShardedWriter, NothingVisibleBeforeFinishNorAfterAbort) {
  TempDir dir;
  auto w = ShardedWriter::create(dir.file("m.zt"), {}, 4, false);
  ASSERT_TRUE(w.ok());
  for (const auto& o : objects({4, 4, 4})) ASSERT_TRUE(w.value()->add(spec(o)).ok());
  for (const auto& name : listing(dir)) EXPECT_NE(name.find(".tmp-"), std::string::npos) << name;
  // Two sealed shards wait under temporary names; the third, still being
  // written, is unnamed where the filesystem has O_TMPFILE.
  EXPECT_GE(listing(dir).size(), 2u);
  EXPECT_LE(listing(dir).size(), 3u);
  w.value()->abort();
  EXPECT_TRUE(listing(dir).empty());
}

TEST(ShardedWriter, FailedPublishLeavesNoShard) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("m.zt.index.json"));  // the index rename must fail
  auto files = write(dir.file("m.zt"), objects({4, 4, 4}), 4);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), ErrorCode::io_error);
  EXPECT_EQ(listing(dir), (std::set<std::string>{"m.zt.index.json"}));
}

TEST(ShardedWriter, DuplicateNameAcrossShardsIsRefused) {
  TempDir dir;
  auto w = ShardedWriter::create(dir.file("m.zt"), {}, 4, false);
  ASSERT_TRUE(w.ok());
  auto objs = objects({4, 4});
  ASSERT_TRUE(w.value()->add(spec(objs[0])).ok());
  ASSERT_TRUE(w.value()->add(spec(objs[1])).ok());
  Status s = w.value()->add(spec(objs[0]));  // "a" again, in a third shard
  EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
  EXPECT_NE(s.message().find("'a'"), std::string::npos);
}

TEST(ShardedWriter, StaleShardsOfAnEarlierSetAreRemoved) {
  TempDir dir;
  ASSERT_TRUE(write(dir.file("m.zt"), objects({4, 4, 4}), 4).ok());  // 3 shards
  std::ofstream(dir.file("m-notes.zt")) << "x";                       // not a shard name
  std::ofstream(dir.file("other-00001-of-00003.zt")) << "x";          // another set
  ASSERT_TRUE(write(dir.file("m.zt"), objects({4, 4}), 4).ok());      // 2 shards
  EXPECT_EQ(listing(dir), (std::set<std::string>{"m-00001-of-00002.zt", "m-00002-of-00002.zt", "m.zt.index.json",
                                                 "m-notes.zt", "other-00001-of-00003.zt"}));
  auto src = open_source(dir.file("m.zt.index.json"));
  ASSERT_TRUE(src.ok()) << src.status().to_string();
  EXPECT_EQ(src.value()->manifest().objects.size(), 2u);
}

TEST(ShardedWriter, IndexPathNamesTheSetToo) {
  TempDir dir;
  auto files = write(dir.file("m.zt.index.json"), objects({4, 4}), 4);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files.value().back(), dir.file("m.zt.index.json"));
  EXPECT_EQ(files.value().front(), dir.file("m-00001-of-00002.zt"));
}

TEST(ShardedWriter, ConvertWithMaxShardSizeRoundTrips) {
  TempDir dir;
  ASSERT_TRUE(write(dir.file("one.zt"), objects({4, 4, 4, 12, 4}), 0).ok());
  ConvertOptions options;
  options.max_shard_size = 8;
  options.encoding = Encoding::zstd;  // the size rule counts decoded bytes, not compressed ones
  auto st = convert_to_zt(dir.file("one.zt"), dir.file("out.zt"), options);
  ASSERT_TRUE(st.ok()) << st.status().to_string();
  ASSERT_EQ(st.value().files.size(), 5u);  // [a b] [c] [d] [e] + index
  EXPECT_EQ(st.value().files.back(), dir.file("out.zt.index.json"));
  auto src = open_source(dir.file("out.zt.index.json"));
  ASSERT_TRUE(src.ok());
  auto orig = Reader::open(dir.file("one.zt"));
  ASSERT_TRUE(orig.ok());
  for (const auto& o : orig.value()->manifest().objects) {
    auto a = orig.value()->read_component(o, "data");
    auto b = src.value()->read_component(*src.value()->find(o.name), "data");
    ASSERT_TRUE(a.ok() && b.ok()) << o.name;
    EXPECT_TRUE(std::equal(a.value().bytes.begin(), a.value().bytes.end(), b.value().bytes.begin(),
                           b.value().bytes.end()));
  }
}

TEST(PlanShards, SameRuleAsTheWriter) {
  // limit 10: [a4 b4] [c4] [d12] [e4], as TransformersRuleInOrderAndOversizedAlone.
  EXPECT_EQ(plan_shards({4, 4, 4, 12, 4}, 10),
            (std::vector<std::vector<size_t>>{{0, 1}, {2}, {3}, {4}}));
  EXPECT_EQ(plan_shards({4, 6, 1}, 10), (std::vector<std::vector<size_t>>{{0, 1}, {2}}));
  EXPECT_EQ(plan_shards({4, 400}, 0), (std::vector<std::vector<size_t>>{{0, 1}}));
  EXPECT_EQ(plan_shards({UINT64_MAX, 1}, UINT64_MAX - 1), (std::vector<std::vector<size_t>>{{0}, {1}}));
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Each shard written on its own (as a Dask worker does: ConvertOptions::
// objects into a staging folder), then published with the index.
Result<std::vector<std::string>> write_staged(const TempDir& dir, const std::string& src, const std::string& out,
                                              uint64_t limit, const ConvertOptions& base) {
  ZT_ASSIGN_OR_RETURN(auto source, open_source(src));
  std::vector<uint64_t> sizes;
  for (const auto& o : source->manifest().objects) sizes.push_back(object_decoded_size(o));
  std::vector<std::string> staged;
  std::vector<std::vector<std::string>> names;
  uint64_t total = 0;
  std::filesystem::create_directory(dir.file("staging"));
  for (const auto& shard : plan_shards(sizes, limit)) {
    ConvertOptions o = base;
    o.objects = shard;
    staged.push_back(dir.file("staging/" + std::to_string(staged.size()) + ".zt"));
    ZT_ASSIGN_OR_RETURN(auto stats, convert_source_to_zt(*source, staged.back(), o));
    total += stats.bytes;
    names.emplace_back();
    for (size_t i : shard) names.back().push_back(source->manifest().objects[i].name);
  }
  return publish_staged_shards(out, staged, names, total, /*durable=*/false);
}

TEST(PublishStagedShards, ByteIdenticalToTheWritersSet) {
  TempDir dir;
  ASSERT_TRUE(write(dir.file("one.zt"), objects({4, 4, 4, 12, 4}), 0).ok());
  ConvertOptions options;
  options.encoding = Encoding::zstd;
  options.digest = DigestAlgo::sha256;
  options.durable = false;
  std::filesystem::create_directory(dir.file("local"));
  options.max_shard_size = 10;
  auto local = convert_to_zt(dir.file("one.zt"), dir.file("local/m.zt"), options);
  ASSERT_TRUE(local.ok()) << local.status().to_string();
  options.max_shard_size = 0;
  std::filesystem::create_directory(dir.file("staged"));
  auto staged = write_staged(dir, dir.file("one.zt"), dir.file("staged/m.zt"), 10, options);
  ASSERT_TRUE(staged.ok()) << staged.status().to_string();
  ASSERT_EQ(staged.value().size(), local.value().files.size());  // 4 shards + index
  for (size_t i = 0; i < staged.value().size(); ++i) {
    EXPECT_EQ(staged.value()[i], dir.file("staged/" + std::filesystem::path(local.value().files[i]).filename().string()));
    EXPECT_EQ(file_bytes(staged.value()[i]), file_bytes(local.value().files[i])) << staged.value()[i];
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.file("staging")));  // every staged file moved
}

TEST(PublishStagedShards, FailedIndexPublishTakesBackTheShards) {
  TempDir dir;
  ASSERT_TRUE(write(dir.file("one.zt"), objects({4, 4, 4}), 0).ok());
  std::filesystem::create_directory(dir.file("out"));
  std::filesystem::create_directory(dir.file("out/m.zt.index.json"));  // the index rename must fail
  ConvertOptions options;
  options.durable = false;
  auto r = write_staged(dir, dir.file("one.zt"), dir.file("out/m.zt"), 4, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::io_error);
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("out"))) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"m.zt.index.json"}));
}

TEST(PublishStagedShards, CountsMustAgree) {
  TempDir dir;
  auto r = publish_staged_shards(dir.file("m.zt"), {dir.file("a.zt")}, {}, 0, false);
  EXPECT_EQ(r.status().code(), ErrorCode::invalid_argument);
}

TEST(ConvertObjects, IndicesMustAscendWithinTheSource) {
  TempDir dir;
  ASSERT_TRUE(write(dir.file("one.zt"), objects({4, 4}), 0).ok());
  ConvertOptions options;
  options.objects = {1, 0};
  EXPECT_EQ(convert_to_zt(dir.file("one.zt"), dir.file("o.zt"), options).status().code(), ErrorCode::invalid_argument);
  options.objects = {2};
  EXPECT_EQ(convert_to_zt(dir.file("one.zt"), dir.file("o.zt"), options).status().code(), ErrorCode::invalid_argument);
  options.objects = {1};
  ASSERT_TRUE(convert_to_zt(dir.file("one.zt"), dir.file("o.zt"), options).ok());
  EXPECT_EQ(object_names(dir.file("o.zt")), std::vector<std::string>{"b"});
}

}  // namespace
}  // namespace zt

namespace zt {
namespace {

TEST(ParseByteSize, IntegersAndHuggingFaceUnits) {
  EXPECT_EQ(parse_byte_size("123").value(), 123u);
  EXPECT_EQ(parse_byte_size("5GB").value(), 5'000'000'000u);
  EXPECT_EQ(parse_byte_size("500MB").value(), 500'000'000u);
  EXPECT_EQ(parse_byte_size("10KB").value(), 10'000u);
  EXPECT_EQ(parse_byte_size("2GiB").value(), 2ull << 30);
  EXPECT_EQ(parse_byte_size("3mib").value(), 3ull << 20);
  EXPECT_EQ(parse_byte_size("7 KiB").value(), 7ull << 10);
  EXPECT_EQ(parse_byte_size("1TB").value(), 1'000'000'000'000u);
  EXPECT_EQ(parse_byte_size("5Gb").value(), 625'000'000u);  // bits, as transformers reads it
  for (const char* bad : {"", "GB", "1.5GB", "-1", "5XB", "5 G", "99999999999999999999", "20000000000TB"}) {
    auto r = parse_byte_size(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) { EXPECT_EQ(r.status().code(), ErrorCode::invalid_argument) << bad; }
  }
}

}  // namespace
}  // namespace zt
