#include "ztensor/status.h"

namespace zt {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::io_error: return "io_error";
    case ErrorCode::bad_magic: return "bad_magic";
    case ErrorCode::manifest_too_large: return "manifest_too_large";
    case ErrorCode::malformed_manifest: return "malformed_manifest";
    case ErrorCode::missing_field: return "missing_field";
    case ErrorCode::wrong_type: return "wrong_type";
    case ErrorCode::unknown_dtype: return "unknown_dtype";
    case ErrorCode::unknown_format: return "unknown_format";
    case ErrorCode::unknown_encoding: return "unknown_encoding";
    case ErrorCode::misaligned_offset: return "misaligned_offset";
    case ErrorCode::offset_out_of_range: return "offset_out_of_range";
    case ErrorCode::length_mismatch: return "length_mismatch";
    case ErrorCode::shape_overflow: return "shape_overflow";
    case ErrorCode::missing_component: return "missing_component";
    case ErrorCode::corrupt_stream: return "corrupt_stream";
    case ErrorCode::digest_mismatch: return "digest_mismatch";
    case ErrorCode::limit_exceeded: return "limit_exceeded";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::invalid_structure: return "invalid_structure";
    case ErrorCode::internal: return "internal";
  }
  return "unknown_error";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

}  // namespace zt
