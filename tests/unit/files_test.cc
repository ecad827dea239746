// The committed golden files read exactly, and every crafted corrupt file is
// refused with the error code tests/corrupt/expected.json names, at the
// stage it names (open, read or verify); the hostile safetensors files also by
// the ZSTN writer. Shared with the Python tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/checksum.h"
#include "z4ai/zstn.h"
#include "ztensor/convert.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = ZT_SOURCE_DIR;

nlohmann::json load_json(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

std::vector<uint8_t> file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(GoldenFiles, ReadExactly) {
  auto expected = load_json(kRoot / "tests/golden/expected.json");
  ASSERT_FALSE(expected.empty());
  for (auto& [file, want] : expected.items()) {
    SCOPED_TRACE(file);
    auto r = Reader::open((kRoot / "tests/golden" / file).string());
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ((*r)->manifest().objects.size(), want["objects"].size());
    for (auto& [name, wo] : want["objects"].items()) {
      SCOPED_TRACE(name);
      const Object* o = (*r)->find(name);
      ASSERT_NE(o, nullptr);
      EXPECT_EQ(o->format, wo["format"].get<std::string>());
      EXPECT_EQ(o->shape, wo["shape"].get<std::vector<uint64_t>>());
      for (auto& [role, wc] : wo["components"].items()) {
        const Component* c = o->find(role);
        ASSERT_NE(c, nullptr) << role;
        EXPECT_EQ(dtype_name(c->dtype), wc["dtype"].get<std::string>()) << role;
        if (wc["type"].is_string()) { EXPECT_EQ(c->type_name, wc["type"].get<std::string>()) << role; }
        auto b = (*r)->read_component(*o, role);
        ASSERT_TRUE(b.ok()) << b.status().to_string();
        EXPECT_EQ(b->bytes.size(), wc["nbytes"].get<uint64_t>()) << role;
        EXPECT_EQ(to_hex(sha256(b->bytes)), wc["sha256"].get<std::string>()) << role;
      }
    }
    EXPECT_TRUE((*r)->verify().ok()) << (*r)->verify().to_string();
  }
}

TEST(CorruptFiles, RefusedWithTheExpectedCode) {
  auto expected = load_json(kRoot / "tests/corrupt/expected.json");
  ASSERT_FALSE(expected.empty());
  for (auto& [file, want] : expected.items()) {
    SCOPED_TRACE(file);
    // A null code marks a file that looks odd but is valid by the spec.
    const std::string code = want["code"].is_null() ? "ok" : want["code"].get<std::string>();
    const std::string stage = want["stage"].get<std::string>();
    if (!file.ends_with(".zt")) {  // safetensors, .npz, PyTorch: all refused on open
      ASSERT_EQ(stage, "open");
      auto src = open_source((kRoot / "tests/corrupt" / file).string());
      EXPECT_EQ(error_code_name(src.status().code()), code) << src.status().to_string();
      if (want.contains("zstn")) {  // the ZSTN writer takes its verdict from the same parser
        auto z = z4ai::zstn::compress(file_bytes(kRoot / "tests/corrupt" / file), {});
        EXPECT_EQ(error_code_name(z.status().code()), want["zstn"].get<std::string>()) << z.status().to_string();
      }
      continue;
    }
    auto r = Reader::open((kRoot / "tests/corrupt" / file).string());
    if (stage == "open") {
      EXPECT_EQ(error_code_name(r.status().code()), code) << r.status().to_string();
      continue;
    }
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) continue;
    Status s;
    if (stage == "verify") {
      s = (*r)->verify();
    } else {
      auto b = (*r)->read_component(want["object"].get<std::string>(), want["role"].get<std::string>());
      s = b.status();
      // An accepted file names the bytes it reads as, not only that it reads.
      if (b.ok() && want["code"].is_null()) {
        EXPECT_EQ(b->bytes.size(), want["nbytes"].get<uint64_t>());
        EXPECT_EQ(to_hex(sha256(b->bytes)), want["sha256"].get<std::string>());
      }
    }
    EXPECT_EQ(error_code_name(s.code()), code) << s.to_string();
  }
}

}  // namespace
}  // namespace zt
