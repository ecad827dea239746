// The .npy/.npz reader over files numpy wrote (values checked against
// numpy's own reading via expected.json) and one crafted file per attack.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/checksum.h"
#include "ztensor/numpy_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

const std::string kDir = std::string(ZT_SOURCE_DIR) + "/tests/formats/numpy/";

nlohmann::json expected() {
  std::ifstream f(kDir + "expected.json");
  return nlohmann::json::parse(f);
}

bool is_npz(const std::string& f) { return f.size() > 4 && f.compare(f.size() - 4, 4, ".npz") == 0; }

Result<std::unique_ptr<TensorSource>> open_any(const std::string& file, const NpzOptions& opt = {}) {
  return is_npz(file) ? open_npz(kDir + file, opt) : open_npy(kDir + file);
}

void check_object(const TensorSource& src, const std::string& name, const nlohmann::json& want) {
  SCOPED_TRACE(name);
  const Object* o = src.find(name);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->format, "dense");
  EXPECT_EQ(nlohmann::json(o->shape), want["shape"]);
  const Component* c = o->find("data");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(dtype_name(c->dtype), want["dtype"].get<std::string>());
  EXPECT_EQ(logical_type_name(c->type), want.value("type", std::string()));
  auto b = src.read_component(*o, "data");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->bytes.size(), c->length);
  EXPECT_EQ(to_hex(sha256(b->bytes)), want["sha256"]);
  EXPECT_EQ(b->zero_copy, want["zero_copy"].get<bool>());
}

TEST(NumpyFiles, NpyFilesMatchNumpy) {
  const auto exp = expected()["npy"];
  ASSERT_GE(exp.size(), 15u);
  for (const auto& [file, want] : exp.items()) {
    auto r = open_npy(kDir + file);
    ASSERT_TRUE(r.ok()) << file << ": " << r.status().to_string();
    EXPECT_STREQ((*r)->format_name(), "npy");
    ASSERT_EQ((*r)->manifest().objects.size(), 1u);
    check_object(**r, file.substr(0, file.size() - 4), want);  // named after the file stem
    EXPECT_TRUE((*r)->verify().ok());
  }
}

TEST(NumpyFiles, NpzArchivesMatchNumpy) {
  const auto exp = expected()["npz"];
  for (const auto& [file, members] : exp.items()) {
    SCOPED_TRACE(file);
    auto r = open_npz(kDir + file);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_STREQ((*r)->format_name(), "npz");
    EXPECT_EQ((*r)->manifest().objects.size(), members.size());
    for (const auto& [name, want] : members.items()) check_object(**r, name, want);
    EXPECT_TRUE((*r)->verify().ok()) << (*r)->verify().to_string();
  }
}

TEST(NumpyFiles, EveryAttackIsRefusedWithItsCode) {
  const auto exp = expected()["invalid"];
  ASSERT_GE(exp.size(), 40u);
  for (const auto& [file, want] : exp.items()) {
    SCOPED_TRACE(file);
    const std::string stage = want["stage"], code = want["code"];
    auto r = open_any(file);
    if (stage == "open") {
      ASSERT_FALSE(r.ok()) << "accepted";
      EXPECT_EQ(error_code_name(r.status().code()), code) << r.status().to_string();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    Status s;
    if (stage == "read") {
      const auto& o = (*r)->manifest().objects.at(0);
      s = (*r)->read_component(o, "data").status();
    } else {
      s = (*r)->verify();
    }
    EXPECT_EQ(error_code_name(s.code()), code) << s.to_string();
  }
}

TEST(NumpyFiles, MessagesNameTheRule) {
  auto obj = open_npy(kDir + "attacks/object_dtype.npy");
  EXPECT_NE(obj.status().message().find("'|O'"), std::string::npos) << obj.status().message();
  auto bf = open_npy(kDir + "attacks/bfloat16_void_dtype.npy");
  EXPECT_NE(bf.status().message().find("bfloat16"), std::string::npos) << bf.status().message();
  auto bomb = open_npz(kDir + "attacks/deflate_ratio_over_1032.npz");
  EXPECT_NE(bomb.status().message().find("1032:1"), std::string::npos) << bomb.status().message();
}

TEST(NumpyFiles, CapsAreConfigurable) {
  NpzOptions small;
  small.max_member_bytes = 100;  // the 3x4x5 f4 member is 240 bytes of data
  auto r = open_npz(kDir + "savez.npz", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::limit_exceeded);
  NpzOptions total;
  total.max_total_bytes = 1000;
  EXPECT_EQ(open_npz(kDir + "savez_compressed.npz", total).status().code(), ErrorCode::limit_exceeded);
}

TEST(NumpyFiles, StoredMembersAreViewsOfTheFile) {
  auto r = open_npz(kDir + "savez.npz");
  ASSERT_TRUE(r.ok());
  const Object* o = (*r)->find("f4");
  auto b = (*r)->read_component(*o, "data");
  ASSERT_TRUE(b.ok());
  std::ifstream f(kDir + "savez.npz", std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // The component offset is where numpy's data bytes sit in the archive.
  EXPECT_EQ(file.compare(o->find("data")->offset, b->bytes.size(),
                         std::string(reinterpret_cast<const char*>(b->bytes.data()), b->bytes.size())), 0);
}

TEST(NumpyFiles, UnknownObjectOrRole) {
  auto r = open_npy(kDir + "f4.npy");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->find("nope"), nullptr);
  EXPECT_EQ((*r)->read_component(*(*r)->find("f4"), "values").status().code(), ErrorCode::not_found);
}

}  // namespace
}  // namespace zt
