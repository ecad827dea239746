// Checks shared by the tests of the format readers that compare a file with
// the expected.json its generator wrote (tensors by sha256, attributes by
// value, attack files by error code and message).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/checksum.h"
#include "ztensor/reader.h"

namespace zt::test {

inline nlohmann::json load_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// `got` equals `want` (JSON null, bool, integer, float, string, array or
// object), with `name` in the failure trace.
inline void expect_value(const Value& got, const nlohmann::json& want, const std::string& name) {
  SCOPED_TRACE(name);
  if (want.is_null()) {
    EXPECT_TRUE(got.is_null());
  } else if (want.is_boolean()) {
    ASSERT_EQ(got.kind(), Value::Kind::boolean);
    EXPECT_EQ(got.as_bool(), want.get<bool>());
  } else if (want.is_number_integer()) {
    ASSERT_TRUE(got.kind() == Value::Kind::uint || got.kind() == Value::Kind::nint);
    EXPECT_EQ(got.as_int64(), want.get<int64_t>());
  } else if (want.is_number_float()) {
    ASSERT_EQ(got.kind(), Value::Kind::float64);
    EXPECT_EQ(got.as_double(), want.get<double>());
  } else if (want.is_string()) {
    ASSERT_TRUE(got.is_text());
    EXPECT_EQ(got.as_string(), want.get<std::string>());
  } else if (want.is_array()) {
    ASSERT_TRUE(got.is_array());
    ASSERT_EQ(got.as_array().size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) expect_value(got.as_array()[i], want[i], name + "[" + std::to_string(i) + "]");
  } else if (want.is_object()) {
    ASSERT_TRUE(got.is_map());
    ASSERT_EQ(got.as_map().size(), want.size());
    for (auto& [k, v] : want.items()) {
      const Value* g = got.find(k);
      ASSERT_NE(g, nullptr) << k;
      expect_value(*g, v, name + "." + k);
    }
  }
}

// The source is a verified `format` source whose objects are exactly
// `tensors` (name -> shape, dtype, type, sha256 of the data, zero_copy).
inline void expect_dense_tensors(const TensorSource& s, const char* format, const nlohmann::json& tensors) {
  EXPECT_STREQ(s.format_name(), format);
  EXPECT_TRUE(s.verify().ok());
  ASSERT_EQ(s.manifest().objects.size(), tensors.size());
  for (auto& [name, t] : tensors.items()) {
    SCOPED_TRACE(name);
    const Object* o = s.find(name);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->format, "dense");
    EXPECT_EQ(o->shape, t["shape"].get<std::vector<uint64_t>>());
    const Component* c = o->find("data");
    ASSERT_NE(c, nullptr);
    EXPECT_STREQ(dtype_name(c->dtype), t["dtype"].get<std::string>().c_str());
    EXPECT_EQ(c->type_name, t["type"].get<std::string>());
    auto bytes = s.read_component(*o, "data");
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    EXPECT_EQ(bytes->bytes.size(), c->length);
    EXPECT_EQ(to_hex(sha256(bytes->bytes)), t["sha256"].get<std::string>());
    EXPECT_EQ(bytes->zero_copy, t["zero_copy"].get<bool>());
  }
}

// Every file of `errors` (name -> code, contains) under `dir` fails to open
// with that error code and a message containing that text.
inline void expect_refused(const std::string& dir, const nlohmann::json& errors,
                           const std::function<Result<std::unique_ptr<TensorSource>>(const std::string&)>& open) {
  for (auto& [file, want] : errors.items()) {
    SCOPED_TRACE(file);
    auto src = open(dir + "/" + file);
    ASSERT_FALSE(src.ok());
    EXPECT_STREQ(error_code_name(src.status().code()), want["code"].get<std::string>().c_str())
        << src.status().to_string();
    EXPECT_NE(src.status().message().find(want["contains"].get<std::string>()), std::string::npos)
        << src.status().message();
  }
}

}  // namespace zt::test
