// Bridges the codec (src/codec) into the container's blob-codec registry;
// the container itself must not depend on the codec.
#include "ztensor/z4ai_encoding.h"

#include "z4ai/codec.h"
#include "ztensor/blob_codec.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

// The codec's element type for a component: its logical type decides for
// fp8 and complex (whose halves are plain floats).
const char* codec_dtype(DType dtype, LogicalType type) {
  switch (type) {
    case LogicalType::f8_e4m3fn: return "f8_e4m3fn";
    case LogicalType::f8_e5m2: return "f8_e5m2";
    case LogicalType::f8_e4m3fnuz: return "f8_e4m3fnuz";
    case LogicalType::f8_e5m2fnuz: return "f8_e5m2fnuz";
    default: break;
  }
  switch (dtype) {
    case DType::f64: return "fp64";
    case DType::f32: return "fp32";
    case DType::f16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::i64: return "int64";
    case DType::i32: return "int32";
    case DType::i16: return "int16";
    case DType::i8: return "int8";
    case DType::u64: return "uint64";
    case DType::u32: return "uint32";
    case DType::u16: return "uint16";
    case DType::u8: return "uint8";
    case DType::boolean: return "";
  }
  return "";
}

class Z4aiBlobCodec final : public BlobCodec {
 public:
  // peek checks the frame's header, chunk table and every chunk's stream
  // table against its bytes.
  Status check(std::span<const uint8_t> stored, uint64_t decoded, const std::string& ctx) const override {
    auto info = z4ai::peek(stored);
    if (!info.ok()) return Status(ErrorCode::corrupt_stream, ctx + ": not a z4ai frame: " + info.status().message());
    if (info->kind != z4ai::FrameKind::z4ai && info->kind != z4ai::FrameKind::zara)
      return Status(ErrorCode::corrupt_stream, ctx + ": z4ai component holds a frame kind other than Z4AI/ZARA");
    if (info->original_length != decoded)
      return Status(ErrorCode::length_mismatch, ctx + ": z4ai frame decodes to " +
                                                    std::to_string(info->original_length) +
                                                    " bytes, uncompressed_length says " + std::to_string(decoded));
    return Status::Ok();
  }

  Status decode(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx) const override {
    return decode_with_threads(stored, out, ctx, 0);
  }

  Status decode_with_threads(std::span<const uint8_t> stored, std::span<uint8_t> out, const std::string& ctx,
                             unsigned threads) const override {
    ZT_RETURN_IF_ERROR(check(stored, out.size(), ctx));
    Status s = z4ai::decompress_into(stored, out, threads);
    if (!s.ok()) return Status(s.code(), ctx + ": " + s.message());
    return Status::Ok();
  }

  Status encode(const ComponentSpec& spec, std::span<const uint8_t> data,
                const std::function<Status(std::span<const uint8_t>)>& sink) const override {
    z4ai::CompressOptions o;
    o.dtype = codec_dtype(spec.dtype, spec.type);
    o.level = spec.level >= 1 && spec.level <= 22 ? spec.level : -1;
    o.effort = static_cast<z4ai::Effort>(spec.effort <= 2 ? spec.effort : 0);
    o.threads = spec.threads;
    auto frame = z4ai::compress(data, o);
    if (!frame.ok())
      return Status(frame.status().code(), "component '" + spec.role + "': " + frame.status().message());
    return sink(*frame);
  }
};

}  // namespace

std::shared_ptr<const BlobCodec> z4ai_blob_codec() {
  static const auto codec = std::make_shared<const Z4aiBlobCodec>();
  return codec;
}

void register_z4ai_encoding() { register_blob_codec(Encoding::z4ai, z4ai_blob_codec()); }

}  // namespace zt
