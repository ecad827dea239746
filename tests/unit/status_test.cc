// Status messages are printable UTF-8 whatever bytes a hostile file put in
// them: a non-UTF-8 safetensors name must not reach Python raw.
#include <gtest/gtest.h>

#include "ztensor/status.h"

namespace zt {
namespace {

TEST(Status, MessageEscapesBytesThatAreNotPrintableUtf8) {
  Status s(ErrorCode::invalid_structure, std::string("name 'a\xff\xc3(b\x01\x7f' caf\xc3\xa9 \xe2\x82\xac\n"));
  EXPECT_EQ(s.message(), "name 'a\\xff\\xc3(b\\x01\\x7f' caf\xc3\xa9 \xe2\x82\xac\n");
  EXPECT_EQ(escape_text(s.message()), s.message());  // idempotent
}

TEST(Status, RejectsOverlongSurrogateAndOutOfRangeSequences) {
  EXPECT_EQ(escape_text("\xc0\xaf"), "\\xc0\\xaf");              // overlong '/'
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");      // surrogate U+D800
  EXPECT_EQ(escape_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(escape_text("\xf5\x80\x80"), "\\xf5\\x80\\x80");
  EXPECT_EQ(escape_text("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // U+1F600 stays
  EXPECT_EQ(escape_text(std::string("a\0b", 3)), "a\\x00b");
}

}  // namespace
}  // namespace zt
