// brotli stage (ZARA). Windows over 24 bits use brotli's large-window mode,
// which the decoder must opt into.
#include <brotli/decode.h>
#include <brotli/encode.h>

#include <memory>

#include "codec/entropy/entropy.h"

namespace z4ai::detail {

bool encode_brotli(std::span<const uint8_t> in, int quality, int lgwin, std::vector<uint8_t>& out) {
  if (in.empty()) return false;
  BrotliEncoderState* s = BrotliEncoderCreateInstance(nullptr, nullptr, nullptr);
  if (!s) return false;
  BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, uint32_t(quality));
  if (lgwin > BROTLI_MAX_WINDOW_BITS) BrotliEncoderSetParameter(s, BROTLI_PARAM_LARGE_WINDOW, 1);
  BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, uint32_t(lgwin));
  BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, uint32_t(in.size() > (1u << 30) ? (1u << 30) : in.size()));
  size_t base = out.size();
  size_t cap = BrotliEncoderMaxCompressedSize(in.size());
  if (cap == 0) cap = in.size() + 1024;
  out.resize(base + cap);
  size_t avail_in = in.size(), avail_out = cap;
  const uint8_t* next_in = in.data();
  uint8_t* next_out = out.data() + base;
  bool ok = BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &next_in, &avail_out, &next_out,
                                        nullptr) &&
            BrotliEncoderIsFinished(s);
  BrotliEncoderDestroyInstance(s);
  if (!ok) {
    out.resize(base);
    return false;
  }
  out.resize(base + (cap - avail_out));
  return true;
}

zt::Status decode_brotli(std::span<const uint8_t> in, std::span<uint8_t> out) {
  BrotliDecoderState* s = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (!s) return {zt::ErrorCode::corrupt_stream, "z4ai: brotli stream: cannot create decoder"};
  BrotliDecoderSetParameter(s, BROTLI_DECODER_PARAM_LARGE_WINDOW, 1);
  size_t avail_in = in.size(), avail_out = out.size();
  const uint8_t* next_in = in.data();
  uint8_t* next_out = out.data();
  BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out, &next_out, nullptr);
  BrotliDecoderDestroyInstance(s);
  if (r != BROTLI_DECODER_RESULT_SUCCESS || avail_in != 0 || avail_out != 0)
    return {zt::ErrorCode::corrupt_stream,
            "z4ai: brotli stream does not decode to exactly " + std::to_string(out.size()) + " bytes"};
  return {};
}

}  // namespace z4ai::detail
