// The C++ entry points libztensor.so promises (docs/architecture.md, "ABI"),
// used the way a C++ host linking the shared library would: only
// include/, only the declarations marked ZT_API. Linking this program
// against libztensor.so is half the test: a promised symbol that is not
// exported fails the link.
#include <cstdio>
#include <cstring>
#include <vector>

#include "z4ai/codec.h"
#include "ztensor/status.h"

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main() {
  std::vector<uint8_t> data(1 << 16);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i * 7) % 13);

  z4ai::CompressOptions options;
  options.dtype = "bf16";
  options.threads = 2;
  auto frame = z4ai::compress(data, options);
  CHECK(frame.ok());
  CHECK(frame.status().ok() && frame.status().to_string() == "ok");  // ok_status()

  auto info = z4ai::peek(*frame);
  CHECK(info.ok() && info->original_length == data.size() && info->kind == z4ai::FrameKind::z4ai);

  auto back = z4ai::decompress(*frame, 2);
  CHECK(back.ok() && *back == data);
  std::vector<uint8_t> into(data.size());
  CHECK(z4ai::decompress_into(*frame, into, 1).ok() && into == data);

  // Errors come back as Status with a code, a name and a message.
  std::vector<uint8_t> cut(frame->begin(), frame->begin() + 12);
  auto bad = z4ai::decompress(cut);
  CHECK(!bad.ok() && bad.status().code() != zt::ErrorCode::ok);
  CHECK(bad.status().to_string().rfind(zt::error_code_name(bad.status().code()), 0) == 0);
  zt::Status made(zt::ErrorCode::not_found, "made by the host");
  CHECK(std::strcmp(zt::error_code_name(made.code()), "not_found") == 0);

  std::printf("cxx_entry_points_test: ok\n");
  return 0;
}
