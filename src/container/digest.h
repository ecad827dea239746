// Component digests: "sha256:<64 hex>" and "crc32c:<8 hex>" over the stored
// (possibly compressed) bytes (spec v1.2 §1 "digest").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ztensor/status.h"
#include "ztensor/writer.h"

namespace zt {

// Errors: unsupported (unknown algorithm), wrong_type (malformed hex),
// digest_mismatch. `ctx` names the component.
Status check_digest(const std::string& digest, std::span<const uint8_t> stored, const std::string& ctx);


// Incremental digest for the writer, which hashes blobs as it streams them.
class DigestBuilder {
 public:
  explicit DigestBuilder(DigestAlgo algo);
  ~DigestBuilder();
  void update(std::span<const uint8_t> bytes);
  std::string finish();  // "" for DigestAlgo::none

 private:
  struct Impl;
  DigestAlgo algo_;
  uint32_t crc_ = 0;
  std::unique_ptr<Impl> impl_;
};

// The same check over bytes that arrive in pieces (verify reads a large
// component with pread, a window at a time).
class DigestCheck {
 public:
  // Errors: unsupported, wrong_type, as check_digest.
  static Result<std::unique_ptr<DigestCheck>> parse(const std::string& digest, const std::string& ctx);
  void update(std::span<const uint8_t> bytes) { builder_.update(bytes); }
  // Errors: digest_mismatch.
  Status finish(const std::string& ctx);

 private:
  DigestCheck(DigestAlgo algo, std::string algo_name, std::string want)
      : builder_(algo), algo_name_(std::move(algo_name)), want_(std::move(want)) {}
  DigestBuilder builder_;
  std::string algo_name_, want_;  // want_: lower-case hex, crc32c padded to 8 digits
};

}  // namespace zt
