// Component digests: "sha256:<64 hex>" and "crc32c:<8 hex>" over the stored
// (possibly compressed) bytes (spec v1.2 §1 "digest").
#pragma once

#include <cstdint>
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

}  // namespace zt
