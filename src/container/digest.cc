#include "container/digest.h"

#include <cctype>
#include <cstdio>

#include "common/checksum.h"

namespace zt {
namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool is_hex(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

}  // namespace

Result<std::unique_ptr<DigestCheck>> DigestCheck::parse(const std::string& digest, const std::string& ctx) {
  auto colon = digest.find(':');
  if (colon == std::string::npos)
    return Status(ErrorCode::wrong_type, ctx + ": digest '" + digest + "' is not of the form algorithm:hex");
  std::string algo = lower(digest.substr(0, colon));
  std::string hex = lower(digest.substr(colon + 1));
  if (algo == "sha256") {
    if (hex.size() != 64 || !is_hex(hex))
      return Status(ErrorCode::wrong_type, ctx + ": sha256 digest must be 64 hex digits");
    return std::unique_ptr<DigestCheck>(new DigestCheck(DigestAlgo::sha256, algo, hex));
  }
  if (algo == "crc32c") {
    if (hex.rfind("0x", 0) == 0) hex = hex.substr(2);  // v0.1 wrote "crc32c:0x1234ABCD"
    if (hex.empty() || hex.size() > 8 || !is_hex(hex))
      return Status(ErrorCode::wrong_type, ctx + ": crc32c digest must be up to 8 hex digits");
    hex.insert(0, 8 - hex.size(), '0');
    return std::unique_ptr<DigestCheck>(new DigestCheck(DigestAlgo::crc32c, algo, hex));
  }
  return Status(ErrorCode::unsupported, ctx + ": digest algorithm '" + algo + "' is not supported (sha256, crc32c)");
}

Status DigestCheck::finish(const std::string& ctx) {
  std::string got = builder_.finish();
  got = got.substr(got.find(':') + 1);
  if (got == want_) return Status::Ok();
  return Status(ErrorCode::digest_mismatch,
                ctx + ": " + algo_name_ + " of the stored bytes is " + got + ", manifest says " + want_);
}

Status check_digest(const std::string& digest, std::span<const uint8_t> stored, const std::string& ctx) {
  ZT_ASSIGN_OR_RETURN(auto check, DigestCheck::parse(digest, ctx));
  check->update(stored);
  return check->finish(ctx);
}

struct DigestBuilder::Impl {
  Sha256 sha;
};

DigestBuilder::DigestBuilder(DigestAlgo algo) : algo_(algo) {
  if (algo_ == DigestAlgo::sha256) impl_ = std::make_unique<Impl>();
}
DigestBuilder::~DigestBuilder() = default;

void DigestBuilder::update(std::span<const uint8_t> bytes) {
  if (algo_ == DigestAlgo::sha256) impl_->sha.update(bytes);
  if (algo_ == DigestAlgo::crc32c) crc_ = crc32c_update(crc_, bytes);
}

std::string DigestBuilder::finish() {
  if (algo_ == DigestAlgo::sha256) return "sha256:" + to_hex(impl_->sha.finish());
  if (algo_ == DigestAlgo::crc32c) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "crc32c:%08x", crc_);
    return buf;
  }
  return "";
}

}  // namespace zt
