// The GGUF reader over files written by gguf-py (values checked against
// gguf-py's reader and dequantizer via expected.json) and over one crafted
// file per attack, each refused with its expected error code.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/checksum.h"
#include "ztensor/gguf.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

const std::string kDir = std::string(ZT_SOURCE_DIR) + "/tests/formats/gguf/";

nlohmann::json expected() {
  std::ifstream f(kDir + "expected.json");
  return nlohmann::json::parse(f);
}

nlohmann::json to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::boolean: return v.as_bool();
    case Value::Kind::uint: return v.as_uint();
    case Value::Kind::nint: return v.as_int64();
    case Value::Kind::float64: return v.as_double();
    case Value::Kind::text: return v.as_string();
    case Value::Kind::array: {
      auto a = nlohmann::json::array();
      for (const auto& e : v.as_array()) a.push_back(to_json(e));
      return a;
    }
    default: return nullptr;
  }
}

std::string hex_sha(std::span<const uint8_t> b) { return to_hex(sha256(b)); }

std::unique_ptr<TensorSource> open_ok(const std::string& name) {
  auto r = open_gguf(kDir + name);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

TEST(GgufFiles, ProducerFilesMatchGgufPy) {
  const auto exp = expected()["valid"];
  int checked = 0;
  for (const auto& [file, want] : exp.items()) {
    if (want.is_null()) continue;
    SCOPED_TRACE(file);
    auto src = open_ok(file);
    ASSERT_TRUE(src);
    EXPECT_STREQ(src->format_name(), "gguf");
    const auto& m = src->manifest();
    for (const auto& [key, value] : want["attributes"].items()) {
      const Value* v = m.attributes.find(key);
      ASSERT_NE(v, nullptr) << key;
      EXPECT_EQ(to_json(*v), value) << key;
    }
    ASSERT_EQ(m.objects.size(), want["tensors"].size());
    for (const auto& [name, t] : want["tensors"].items()) {
      SCOPED_TRACE(name);
      const Object* o = src->find(name);
      ASSERT_NE(o, nullptr);
      EXPECT_EQ(nlohmann::json(o->shape), t["shape"]);
      const std::string type = t["ggml_type"];
      const bool dense = o->format == "dense";
      const char* role = dense ? "data" : "blocks";
      if (dense) {
        EXPECT_TRUE(type == "F32" || type == "F16" || type == "BF16" || type == "F64" || type[0] == 'I');
      } else {
        EXPECT_EQ(o->format, kGgufQuantizedFormat);
        EXPECT_EQ(o->attributes.find("ggml_type")->as_string(), type);
        EXPECT_EQ(o->find("blocks")->dtype, DType::u8);
      }
      auto bytes = src->read_component(*o, role);
      ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
      EXPECT_TRUE(bytes->zero_copy);
      EXPECT_EQ(bytes->bytes.size(), o->find(role)->length);
      EXPECT_EQ(hex_sha(bytes->bytes), t["sha256"]);
      if (t.contains("dequant_sha256")) {
        auto f = gguf_dequantize_object(*src, *o);
        ASSERT_TRUE(f.ok()) << f.status().to_string();
        std::span<const uint8_t> fb(reinterpret_cast<const uint8_t*>(f->data()), f->size() * 4);
        EXPECT_EQ(hex_sha(fb), t["dequant_sha256"]);
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 20);  // every dequantizer ran against gguf-py at least once
}

TEST(GgufFiles, DenseTypesAndAttributeKinds) {
  auto src = open_ok("dense.gguf");
  ASSERT_TRUE(src);
  EXPECT_EQ(src->find("f32")->find("data")->dtype, DType::f32);
  EXPECT_EQ(src->find("bf16")->find("data")->dtype, DType::bf16);
  EXPECT_EQ(src->find("i64")->find("data")->dtype, DType::i64);
  EXPECT_EQ(src->find("f32")->shape, (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(src->find("vec4d")->shape, (std::vector<uint64_t>{1, 2, 1, 3}));
  const auto& a = src->manifest().attributes;
  EXPECT_EQ(a.find("t.i8")->kind(), Value::Kind::nint);
  EXPECT_EQ(a.find("t.u64")->as_uint(), (uint64_t{1} << 63) + 5);
  EXPECT_EQ(a.find("t.nested")->as_array()[0].as_array().size(), 2u);
  // Offsets are absolute and inside the file; the data section is 32-aligned.
  for (const auto& o : src->manifest().objects) EXPECT_EQ(o.components[0].second.offset % 32, 0u) << o.name;
}

TEST(GgufFiles, CustomAlignmentIsHonoured) {
  auto src = open_ok("quant_align64.gguf");
  ASSERT_TRUE(src);
  EXPECT_EQ(src->manifest().attributes.find("general.alignment")->as_uint(), 64u);
  for (const auto& o : src->manifest().objects) EXPECT_EQ(o.components[0].second.offset % 64, 0u) << o.name;
}

TEST(GgufFiles, QuantizedObjectAttributes) {
  auto src = open_ok("quant.gguf");
  ASSERT_TRUE(src);
  const Object* o = src->find("q6_k");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->attributes.find("ggml_type_id")->as_uint(), 14u);
  EXPECT_EQ(o->attributes.find("block_size")->as_uint(), 256u);
  EXPECT_EQ(o->attributes.find("type_size")->as_uint(), 210u);
  EXPECT_EQ(o->find("blocks")->length, 2u * 2 * 210);
  // IQ4_NL has no dequantizer: its blocks are still readable byte for byte.
  const Object* iq = src->find("iq4_nl");
  ASSERT_NE(iq, nullptr);
  EXPECT_TRUE(src->read_component(*iq, "blocks").ok());
  EXPECT_EQ(gguf_dequantize_object(*src, *iq).status().code(), ErrorCode::unsupported);
}

TEST(GgufFiles, CraftedValidFiles) {
  auto zero = open_ok("ok_zero_dim_tensor.gguf");
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->find("empty")->shape, (std::vector<uint64_t>{4, 0}));
  EXPECT_EQ(zero->find("empty")->find("data")->length, 0u);
  auto w = zero->read_component(*zero->find("w"), "data");
  ASSERT_TRUE(w.ok());
  float v[2];
  std::memcpy(v, w->bytes.data(), 8);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], -2.0f);

  auto none = open_ok("ok_no_tensors_no_kv.gguf");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->manifest().objects.empty());

  auto v2 = open_ok("ok_version_2.gguf");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->manifest().attributes.find("general.name")->as_string(), "v2");

  auto a64 = open_ok("ok_alignment_64.gguf");
  ASSERT_TRUE(a64);
  EXPECT_EQ(a64->find("b")->find("data")->offset % 64, 0u);

  auto bytes = open_ok("ok_string_value_not_utf8.gguf");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->manifest().attributes.find("k")->kind(), Value::Kind::bytes);

  auto empty = open_ok("ok_empty_string_and_array.gguf");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->manifest().attributes.find("s")->as_string(), "");
  EXPECT_TRUE(empty->manifest().attributes.find("a")->as_array().empty());
}

TEST(GgufFiles, EveryAttackIsRefusedWithItsCode) {
  const auto exp = expected()["invalid"];
  ASSERT_GE(exp.size(), 30u);
  for (const auto& [file, code] : exp.items()) {
    auto r = open_gguf(kDir + file);
    ASSERT_FALSE(r.ok()) << file << " was accepted";
    EXPECT_EQ(error_code_name(r.status().code()), code.get<std::string>()) << file << ": " << r.status().to_string();
    EXPECT_NE(r.status().message().find(file.substr(file.find('/') + 1)), std::string::npos)
        << "message should name the file: " << r.status().message();
  }
}

TEST(GgufFiles, OverlapAllowedOnlyWhenAsked) {
  GgufOptions opt;
  opt.allow_overlapping_tensors = true;
  EXPECT_TRUE(open_gguf(kDir + "attacks/tensors_overlap.gguf", opt).ok());
}

// A u8 array of more elements than the metadata cap: refused before the
// reader builds millions of values (the file itself is large enough).
TEST(GgufMemory, MetadataElementCap) {
  const uint64_t n = (uint64_t{1} << 23) + 1;
  std::vector<uint8_t> b = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  auto put = [&](uint64_t v, int w) { for (int i = 0; i < w; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  put(0, 8);  // tensors
  put(1, 8);  // kvs
  put(1, 8); b.push_back('k');
  put(9, 4);  // array
  put(0, 4);  // of u8
  put(n, 8);
  b.resize(b.size() + n, 0);
  auto r = open_gguf_memory(b, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::limit_exceeded) << r.status().to_string();
}

TEST(GgufMemory, ReadComponentOfUnknownObject) {
  auto src = open_ok("dense.gguf");
  ASSERT_TRUE(src);
  Object fake;
  fake.name = "nope";
  EXPECT_EQ(src->read_component(fake, "data").status().code(), ErrorCode::not_found);
  EXPECT_EQ(src->read_component(*src->find("f32"), "blocks").status().code(), ErrorCode::not_found);
}

}  // namespace
}  // namespace zt
