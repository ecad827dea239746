// A zstd component whose manifest declares far more than its stored bytes
// can produce (a 1 MiB .zt declaring 64 GiB). The declaration is
// checked against the zstd frame before the output is allocated.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "container/manifest_encode.h"
#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::TempDir;

constexpr uint64_t kClaim = 64ull << 30;  // 64 GiB from 1 MiB

// `n` incompressible f32 (a raw zstd block: every stored byte is content),
// written as the one zstd component of object "w".
std::string write_random_zstd(const std::string& path, size_t n, DigestAlgo digest) {
  std::vector<uint32_t> v(n);
  std::mt19937 rng(7);
  for (auto& x : v) x = rng();
  ObjectSpec o;
  o.name = "w";
  o.shape = {v.size()};
  ComponentSpec c;
  c.role = "data";
  c.dtype = DType::f32;
  c.data = test::as_bytes(v);
  c.encoding = Encoding::zstd;
  c.digest = digest;
  o.components.push_back(c);
  auto w = Writer::create(path);
  EXPECT_TRUE(w.ok() && (*w)->add(o).ok() && (*w)->finish().ok());
  return path;
}

// Writes 1 MiB of incompressible f32 as one zstd component, then rewrites
// the manifest so the component declares kClaim bytes (shape to match).
std::string write_hostile(const TempDir& dir) {
  std::string path = write_random_zstd(dir.file("bomb.zt"), 1 << 18, DigestAlgo::none);
  auto r = Reader::open(path);
  EXPECT_TRUE(r.ok());
  Manifest m = (*r)->manifest();
  m.objects[0].shape = {kClaim / 4};
  m.objects[0].components[0].second.uncompressed_length = kClaim;
  auto bytes = test::read_file(path);
  uint64_t msize;
  std::memcpy(&msize, bytes.data() + bytes.size() - 16, 8);
  bytes.resize(bytes.size() - 16 - msize);
  auto cbor = encode_manifest(m);
  bytes.insert(bytes.end(), cbor.begin(), cbor.end());
  uint64_t n = cbor.size();
  bytes.insert(bytes.end(), reinterpret_cast<uint8_t*>(&n), reinterpret_cast<uint8_t*>(&n) + 8);
  bytes.insert(bytes.end(), {'Z', 'T', 'E', 'N', '1', '0', '0', '0'});
  test::write_file(path, bytes);
  return path;
}

TEST(HostileZstd, DeclaredSizeCheckedAgainstTheFrameBeforeAllocating) {
  TempDir dir;
  auto path = write_hostile(dir);
  auto r = Reader::open(path);
  ASSERT_TRUE(r.ok()) << r.status().to_string();  // the claim is within kMaxZstdExpansion
  auto c = (*r)->read_component("w", "data");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::length_mismatch);
  EXPECT_NE(c.status().message().find("frame content size"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find(std::to_string(kClaim)), std::string::npos);
  EXPECT_EQ((*r)->verify().code(), ErrorCode::length_mismatch);
}

// A byte flipped inside a zstd blob is caught on read, with a
// manifest digest (checked whenever bytes are decoded, no verify needed) and
// without one (the frame checksum the writer now turns on).
TEST(HostileZstd, FlippedByteCaughtOnReadWithAndWithoutDigest) {
  TempDir dir;
  for (DigestAlgo algo : {DigestAlgo::none, DigestAlgo::sha256}) {
    std::string path = write_random_zstd(dir.file(algo == DigestAlgo::none ? "plain.zt" : "sha.zt"), 4096, algo);
    auto bytes = test::read_file(path);
    bytes[64 + 1000] ^= 0x10;  // the first blob starts at offset 64
    test::write_file(path, bytes);
    auto r = Reader::open(path);  // verify_on_read off
    ASSERT_TRUE(r.ok());
    auto got = (*r)->read_component("w", "data");
    ASSERT_FALSE(got.ok()) << (algo == DigestAlgo::none ? "no digest" : "sha256");
    EXPECT_EQ(got.status().code(), algo == DigestAlgo::none ? ErrorCode::corrupt_stream : ErrorCode::digest_mismatch)
        << got.status().message();
    EXPECT_FALSE((*r)->verify().ok());
  }
}

}  // namespace
}  // namespace zt
