// Writer::seal / publish: a finished file that appears only when asked, under
// a name chosen at publish time (what ShardedWriter builds its sets on).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::TempDir;

ObjectSpec one_object(const std::vector<float>& data) {
  ObjectSpec o;
  o.name = "w";
  o.shape = {data.size()};
  ComponentSpec c;
  c.role = "data";
  c.dtype = DType::f32;
  c.data = test::as_bytes(data);
  o.components.push_back(c);
  return o;
}

TEST(WriterPublish, SealedFileAppearsOnlyOnPublishUnderTheGivenName) {
  TempDir dir;
  std::vector<float> data = {1, 2, 3};
  auto w = Writer::create(dir.file("provisional.zt"), {}, false);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w.value()->add(one_object(data)).ok());
  ASSERT_TRUE(w.value()->seal().ok());
  EXPECT_EQ(w.value()->add(one_object(data)).code(), ErrorCode::invalid_argument);  // sealed: no more objects
  EXPECT_FALSE(std::filesystem::exists(dir.file("provisional.zt")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("final.zt")));
  ASSERT_TRUE(w.value()->publish(dir.file("final.zt")).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.file("provisional.zt")));
  EXPECT_EQ(dir.entries(), 1u);
  auto r = Reader::open(dir.file("final.zt"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r.value()->find("w"), nullptr);
}

TEST(WriterPublish, SealedButUnpublishedLeavesNothing) {
  TempDir dir;
  std::vector<float> data = {1, 2, 3};
  {
    auto w = Writer::create(dir.file("m.zt"), {}, false);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w.value()->add(one_object(data)).ok());
    ASSERT_TRUE(w.value()->seal().ok());
    EXPECT_EQ(dir.entries(), 1u);  // the sealed temporary
  }
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(WriterPublish, PublishBeforeSealIsRefused) {
  TempDir dir;
  auto w = Writer::create(dir.file("m.zt"), {}, false);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value()->publish().code(), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace zt
