// The safetensors parser: one valid file, then one crafted header per rule,
// each expecting its own error code.
#include "convert/safetensors_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace zt {
namespace {

std::vector<uint8_t> make_file(const std::string& header, size_t data_bytes, uint64_t declared_size) {
  std::vector<uint8_t> f;
  f.reserve(8 + header.size() + data_bytes);
  for (int i = 0; i < 8; ++i) f.push_back(static_cast<uint8_t>(declared_size >> (8 * i)));
  for (char c : header) f.push_back(static_cast<uint8_t>(c));
  for (size_t i = 0; i < data_bytes; ++i) f.push_back(static_cast<uint8_t>(i * 7 + 1));
  return f;
}
std::vector<uint8_t> make_file(const std::string& header, size_t data_bytes) {
  return make_file(header, data_bytes, header.size());
}

Status parse_status(const std::vector<uint8_t>& bytes) {
  auto r = SafetensorsFile::parse(bytes, nullptr);
  return r.ok() ? Status::Ok() : r.status();
}

#define EXPECT_CODE(bytes, expected_code, fragment)                           \
  do {                                                                        \
    Status s_ = parse_status(bytes);                                          \
    EXPECT_EQ(s_.code(), ErrorCode::expected_code) << s_.to_string();         \
    EXPECT_NE(s_.message().find(fragment), std::string::npos) << s_.message(); \
  } while (0)

TEST(SafetensorsReader, ValidFileGivesZeroCopyTensorsInDataOrder) {
  const std::string h =
      R"({"__metadata__":{"format":"pt","b":"x"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[4,28]},)"
      R"("m":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]},"e":{"dtype":"BF16","shape":[0],"data_offsets":[28,28]}}  )";
  auto bytes = make_file(h, 28);
  auto r = SafetensorsFile::parse(bytes, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& f = *r.value();
  ASSERT_EQ(f.tensors().size(), 3u);
  DType dtype;
  LogicalType type;
  EXPECT_EQ(f.tensors()[0].name, "m");
  ASSERT_TRUE(safetensors_dtype_to_zt(f.tensors()[0].st_dtype, &dtype, &type));
  EXPECT_EQ(dtype, DType::u8);
  EXPECT_EQ(type, LogicalType::f8_e4m3fn);
  EXPECT_EQ(f.tensors()[1].name, "w");
  ASSERT_TRUE(safetensors_dtype_to_zt(f.tensors()[1].st_dtype, &dtype, &type));
  EXPECT_EQ(dtype, DType::f32);
  EXPECT_EQ(f.tensors()[1].shape, (std::vector<uint64_t>{2, 3}));
  auto w = f.tensor_bytes(f.tensors()[1]);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->bytes.data(), bytes.data() + 8 + h.size() + 4);  // zero copy
  EXPECT_EQ(w->bytes.size(), 24u);
  EXPECT_EQ(f.tensors()[2].name, "e");
  EXPECT_TRUE(f.tensor_bytes(f.tensors()[2])->bytes.empty());
  ASSERT_TRUE(f.has_metadata());
  ASSERT_EQ(f.metadata().size(), 2u);
  EXPECT_EQ(f.metadata()[0], (std::pair<std::string, std::string>{"format", "pt"}));
  EXPECT_EQ(f.metadata()[1].first, "b");
  EXPECT_NE(f.find("w"), nullptr);
  EXPECT_EQ(f.find("nope"), nullptr);
}

TEST(SafetensorsReader, EmptyObjectAndNullMetadataAreValid) {
  EXPECT_TRUE(parse_status(make_file("{}", 0)).ok());
  EXPECT_TRUE(parse_status(make_file(R"({"__metadata__":null})", 0)).ok());
}

TEST(SafetensorsReader, UnknownTensorFieldsAreIgnoredAsSafetensorsDoes) {
  EXPECT_TRUE(parse_status(make_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":{"y":[1]}}})", 1)).ok());
}

TEST(SafetensorsReader, FileShorterThanSizePrefix) {
  std::vector<uint8_t> bytes = {1, 2, 3};
  EXPECT_CODE(bytes, offset_out_of_range, "too short");
}

TEST(SafetensorsReader, OversizedHeaderSize) {
  EXPECT_CODE(make_file("{}", 0, kMaxSafetensorsHeaderBytes + 1), limit_exceeded, "exceeds the cap");
}

TEST(SafetensorsReader, HeaderSizePastEndOfFile) {
  EXPECT_CODE(make_file("{}", 0, 1000), offset_out_of_range, "past the end of the file");
}

TEST(SafetensorsReader, HeaderNotJson) {
  EXPECT_CODE(make_file(R"({"a":)", 0), malformed_manifest, "not valid JSON");
  EXPECT_CODE(make_file("", 0), malformed_manifest, "not valid JSON");
}

TEST(SafetensorsReader, HeaderNotAnObject) {
  EXPECT_CODE(make_file("[1,2]", 0), wrong_type, "must be a JSON object");
  EXPECT_CODE(make_file("\"x\"", 0), wrong_type, "must be a JSON object");
}

TEST(SafetensorsReader, TensorEntryNotAnObject) {
  EXPECT_CODE(make_file(R"({"a":[1]})", 0), wrong_type, "'a'");
}

TEST(SafetensorsReader, UnsupportedDtype) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})", 16), unsupported, "'F128'");
}

TEST(SafetensorsReader, MissingField) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"F32","shape":[1]}})", 0), missing_field, "data_offsets");
}

TEST(SafetensorsReader, NegativeOrFractionalShape) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", 1), wrong_type, "shape");
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", 1), wrong_type, "shape");
}

TEST(SafetensorsReader, DataOffsetsNotAPair) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,1]}})", 1), wrong_type,
              "[begin, end]");
}

TEST(SafetensorsReader, ShapeDisagreesWithOffsets) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 20), length_mismatch,
              "tensor 'a'");
}

TEST(SafetensorsReader, ShapeProductOverflows) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4),
              shape_overflow, "tensor 'a'");
}

TEST(SafetensorsReader, OffsetsEndBeforeBegin) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}})", 4), invalid_structure, "'a'");
}

TEST(SafetensorsReader, TensorPastDataBuffer) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", 4), offset_out_of_range,
              "past the data buffer");
}

TEST(SafetensorsReader, GapBetweenTensors) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                        R"("b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})", 5),
              invalid_structure, "gap");
}

TEST(SafetensorsReader, OverlappingTensors) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4),
              invalid_structure, "overlap");
}

TEST(SafetensorsReader, TrailingBytesAfterLastTensor) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 5), invalid_structure,
              "trailing");
}

TEST(SafetensorsReader, DuplicateName) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                        R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2),
              invalid_structure, "duplicate");
}

TEST(SafetensorsReader, DuplicateFieldInsideTensor) {
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
              invalid_structure, "more than once");
}

TEST(SafetensorsReader, NonStringMetadataValue) {
  EXPECT_CODE(make_file(R"({"__metadata__":{"k":1}})", 0), wrong_type, "__metadata__ key 'k'");
  EXPECT_CODE(make_file(R"({"__metadata__":{"k":{"x":"y"}}})", 0), wrong_type, "__metadata__ key 'k'");
  EXPECT_CODE(make_file(R"({"__metadata__":[]})", 0), wrong_type, "__metadata__ must be an object");
}

TEST(SafetensorsReader, DeeplyNestedUnknownFieldHitsDepthLimit) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  EXPECT_CODE(make_file(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)" + deep + "}}", 0),
              limit_exceeded, "nests deeper");
}

TEST(SafetensorsReader, InvalidUtf8InName) {
  EXPECT_CODE(make_file("{\"\xff\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0), malformed_manifest,
              "not valid JSON");
}

TEST(SafetensorsReader, DtypeMappingRoundTrips) {
  for (const char* st : {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8", "BOOL",
                         "F8_E4M3", "F8_E5M2", "C64"}) {
    DType d;
    LogicalType t;
    ASSERT_TRUE(safetensors_dtype_to_zt(st, &d, &t)) << st;
    EXPECT_STREQ(zt_to_safetensors_dtype(d, t), st);
  }
  EXPECT_EQ(zt_to_safetensors_dtype(DType::u8, LogicalType::f8_e4m3fnuz), nullptr);
}

}  // namespace
}  // namespace zt
