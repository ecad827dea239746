#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <numeric>
#include <thread>

#include "container/cbor_encode.h"
#include "test_util.h"
#include "ztensor/reader.h"
#include "ztensor/writer.h"

namespace zt {
namespace {

using test::as_bytes;
using test::TempDir;

ObjectSpec dense(const std::string& name, std::vector<uint64_t> shape, DType dt, std::span<const uint8_t> data,
                 Encoding enc = Encoding::raw, DigestAlgo dig = DigestAlgo::none) {
  ObjectSpec o;
  o.name = name;
  o.shape = std::move(shape);
  ComponentSpec c;
  c.role = "data";
  c.dtype = dt;
  c.data = data;
  c.encoding = enc;
  c.digest = dig;
  o.components.push_back(c);
  return o;
}

// A file holding one object, written and published.
Status write_one(const std::string& path, const ObjectSpec& object) {
  auto w = Writer::create(path);
  if (!w.ok()) return w.status();
  if (Status s = (*w)->add(object); !s.ok()) return s;
  return (*w)->finish();
}

std::unique_ptr<Reader> open_ok(const std::string& path, ReadOptions opt = {}) {
  auto r = Reader::open(path, opt);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

TEST(Writer, DenseRoundTripAllEncodingsAndDigests) {
  TempDir dir;
  std::vector<float> f(1000);
  std::iota(f.begin(), f.end(), 0.5f);
  std::vector<int64_t> i64 = {-1, 2, INT64_MIN, INT64_MAX};
  std::vector<uint8_t> b = {0, 1, 1, 0, 1};
  std::string path = dir.file("a.zt");
  {
    auto w = Writer::create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->add(dense("f", {10, 100}, DType::f32, as_bytes(f), Encoding::zstd, DigestAlgo::sha256)).ok());
    ASSERT_TRUE((*w)->add(dense("i", {4}, DType::i64, as_bytes(i64), Encoding::raw, DigestAlgo::crc32c)).ok());
    ASSERT_TRUE((*w)->add(dense("b", {5}, DType::boolean, as_bytes(b))).ok());
    ASSERT_TRUE((*w)->add(dense("scalar", {}, DType::f32, as_bytes(f).first(4))).ok());
    ASSERT_TRUE((*w)->add(dense("empty", {0, 3}, DType::f32, {})).ok());
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto r = open_ok(path, {.verify_on_read = true});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->manifest().version, "1.2.0");
  ASSERT_EQ(r->manifest().objects.size(), 5u);
  auto fb = r->read_component("f", "data");
  ASSERT_TRUE(fb.ok()) << fb.status().to_string();
  EXPECT_FALSE(fb->zero_copy);
  ASSERT_EQ(fb->bytes.size(), f.size() * 4);
  EXPECT_EQ(std::memcmp(fb->bytes.data(), f.data(), fb->bytes.size()), 0);
  auto ib = r->read_component("i", "data");
  ASSERT_TRUE(ib.ok());
  // verify_on_read hashes every byte anyway: read with pread, never through
  // the mapping (a file truncated meanwhile is io_error, not SIGBUS).
  EXPECT_FALSE(ib->zero_copy);
  EXPECT_EQ(std::memcmp(ib->bytes.data(), i64.data(), 32), 0);
  auto plain = open_ok(path, {});
  ASSERT_TRUE(plain);
  auto view = plain->read_component("i", "data");
  ASSERT_TRUE(view.ok());
  EXPECT_TRUE(view->zero_copy);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(view->bytes.data()) % 64, 0u);
  EXPECT_EQ(std::memcmp(view->bytes.data(), i64.data(), 32), 0);
  EXPECT_EQ(r->find("f")->find("data")->digest.rfind("sha256:", 0), 0u);
  EXPECT_EQ(r->find("i")->find("data")->digest.size(), std::string("crc32c:").size() + 8);
  EXPECT_TRUE(r->find("scalar")->shape.empty());
  EXPECT_TRUE(r->verify().ok());
  EXPECT_EQ(r->read_component("nope", "data").status().code(), ErrorCode::not_found);
  EXPECT_EQ(r->read_component("f", "nope").status().code(), ErrorCode::not_found);
}

// Durability changes only when bytes reach the disk, never which bytes.
TEST(Writer, DeterministicOutputDurableOrNot) {
  TempDir dir;
  std::vector<double> d(333, 3.25);
  for (const char* name : {"x.zt", "y.zt"}) {
    auto w = Writer::create(dir.file(name), {}, /*durable=*/name[0] == 'x');
    Value attrs = Value::map();
    attrs.set("framework", Value::text("test"));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->add(dense("d", {333}, DType::f64, as_bytes(d), Encoding::zstd, DigestAlgo::sha256)).ok());
    ASSERT_TRUE((*w)->finish().ok());
  }
  EXPECT_EQ(test::read_file(dir.file("x.zt")), test::read_file(dir.file("y.zt")));
}

// Compression done elsewhere (a Dask worker): encode_component's bytes,
// appended with pre_encoded, give the same file as encoding in add().
TEST(Writer, PreEncodedComponentsGiveTheSameFile) {
  TempDir dir;
  std::vector<double> d(333);
  std::iota(d.begin(), d.end(), 0.5);
  for (Encoding enc : {Encoding::raw, Encoding::zstd}) {
    ObjectSpec direct = dense("d", {333}, DType::f64, as_bytes(d), enc, DigestAlgo::sha256);
    auto stored = encode_component(direct.components[0]);
    ASSERT_TRUE(stored.ok()) << stored.status().to_string();
    ObjectSpec pre = direct;
    pre.components[0].data = *stored;
    pre.components[0].pre_encoded = true;
    pre.components[0].decoded_length = d.size() * sizeof(double);
    for (const auto* spec : {&direct, &pre}) {
      auto w = Writer::create(dir.file(spec == &direct ? "direct.zt" : "pre.zt"));
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE((*w)->add(*spec).ok());
      ASSERT_TRUE((*w)->finish().ok());
    }
    EXPECT_EQ(test::read_file(dir.file("direct.zt")), test::read_file(dir.file("pre.zt")));
    auto r = open_ok(dir.file("pre.zt"), ReadOptions{.verify_on_read = true});
    ASSERT_NE(r, nullptr);
    auto back = r->read_component("d", "data");
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(0, std::memcmp(back->bytes.data(), d.data(), back->bytes.size()));
  }
}

TEST(Writer, PreEncodedComponentsAreCheckedOnTheirDecodedLength) {
  TempDir dir;
  std::vector<float> f(16, 1.0f);
  ObjectSpec o = dense("f", {16}, DType::f32, as_bytes(f));
  o.components[0].pre_encoded = true;
  o.components[0].decoded_length = 60;  // the shape needs 64 bytes
  auto w = Writer::create(dir.file("x.zt"));
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->add(o).code(), ErrorCode::length_mismatch);
  o.components[0].decoded_length = 64;
  o.components[0].data = o.components[0].data.first(60);  // raw: stored bytes are the decoded ones
  EXPECT_EQ((*w)->add(o).code(), ErrorCode::length_mismatch);
  w->reset();
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(Writer, AbortLeavesNothing) {
  TempDir dir;
  std::vector<float> f(16, 1.0f);
  for (bool durable : {true, false}) {
    {
      auto w = Writer::create(dir.file("gone.zt"), {}, durable);
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE((*w)->add(dense("f", {16}, DType::f32, as_bytes(f))).ok());
    }  // destroyed without finish()
    EXPECT_EQ(dir.entries(), 0u);
  }
}

TEST(Writer, RefusesWhatTheReaderWouldRefuse) {
  TempDir dir;
  std::vector<float> f(10, 1.0f);
  auto w = Writer::create(dir.file("bad.zt"));
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->add(dense("f", {3, 3}, DType::f32, as_bytes(f))).code(), ErrorCode::length_mismatch);
  EXPECT_EQ((*w)->add(dense("f", {UINT64_MAX, 3}, DType::f32, as_bytes(f))).code(), ErrorCode::shape_overflow);
  ASSERT_TRUE((*w)->add(dense("f", {10}, DType::f32, as_bytes(f))).ok());
  EXPECT_EQ((*w)->add(dense("f", {10}, DType::f32, as_bytes(f))).code(), ErrorCode::invalid_argument);
  ObjectSpec csr;
  csr.name = "csr";
  csr.format = "sparse_csr";
  csr.shape = {2, 5};
  csr.components.push_back({"values", DType::f32, LogicalType::none, as_bytes(f).first(8)});
  EXPECT_EQ((*w)->add(csr).code(), ErrorCode::missing_component);
  ObjectSpec cplx = dense("c", {5}, DType::f64, as_bytes(f).first(40));
  cplx.components[0].type = LogicalType::complex64;
  EXPECT_EQ((*w)->add(cplx).code(), ErrorCode::wrong_type);
}

TEST(Writer, SparseAndQuantizedRoundTrip) {
  TempDir dir;
  std::vector<float> values = {1, 2, 3};
  std::vector<uint64_t> indices = {0, 4, 2}, indptr = {0, 2, 3};
  std::vector<uint64_t> coords = {0, 0, 1, 0, 4, 2};
  std::vector<int32_t> packed(16, 7);
  std::vector<uint16_t> scales(4, 1), zeros(4, 0);
  std::string path = dir.file("s.zt");
  {
    auto w = Writer::create(path);
    ASSERT_TRUE(w.ok());
    ObjectSpec csr;
    csr.name = "csr";
    csr.format = "sparse_csr";
    csr.shape = {2, 5};
    csr.components = {{"values", DType::f32, LogicalType::none, as_bytes(values)},
                      {"indices", DType::u64, LogicalType::none, as_bytes(indices), Encoding::zstd},
                      {"indptr", DType::u64, LogicalType::none, as_bytes(indptr)}};
    ASSERT_TRUE((*w)->add(csr).ok());
    ObjectSpec coo;
    coo.name = "coo";
    coo.format = "sparse_coo";
    coo.shape = {2, 5};
    coo.components = {{"values", DType::f32, LogicalType::none, as_bytes(values)},
                      {"coords", DType::u64, LogicalType::none, as_bytes(coords)}};
    ASSERT_TRUE((*w)->add(coo).ok());
    ObjectSpec q;
    q.name = "q";
    q.format = "quantized_group";
    q.shape = {8, 16};
    q.attributes = Value::map();
    q.attributes.set("bits", Value::uint(4));
    q.attributes.set("group_size", Value::uint(32));
    q.attributes.set("packing", Value::text("8_per_i32"));
    q.components = {{"packed_weight", DType::i32, LogicalType::none, as_bytes(packed)},
                    {"scales", DType::f16, LogicalType::none, as_bytes(scales)},
                    {"zeros", DType::f16, LogicalType::none, as_bytes(zeros)}};
    ASSERT_TRUE((*w)->add(q).ok());
    ObjectSpec bad_idx = csr;
    bad_idx.name = "bad";
    std::vector<uint32_t> idx32 = {0, 4, 2};
    bad_idx.components[1] = {"indices", DType::u32, LogicalType::none, as_bytes(idx32)};
    EXPECT_EQ((*w)->add(bad_idx).code(), ErrorCode::wrong_type);
    ASSERT_TRUE((*w)->finish().ok());
  }
  auto r = open_ok(path);
  ASSERT_TRUE(r);
  auto idx = r->read_component("csr", "indices");
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(std::memcmp(idx->bytes.data(), indices.data(), 24), 0);
  EXPECT_EQ(r->find("q")->attributes.find("packing")->as_string(), "8_per_i32");
  EXPECT_EQ(r->find("coo")->format, "sparse_coo");
}

TEST(Reader, DetectsDigestMismatch) {
  TempDir dir;
  std::vector<float> f(64, 2.0f);
  std::string path = dir.file("d.zt");
  ASSERT_TRUE(write_one(path, dense("f", {64}, DType::f32, as_bytes(f), Encoding::raw, DigestAlgo::sha256)).ok());
  auto bytes = test::read_file(path);
  bytes[64 + 10] ^= 0x40;  // first blob starts at offset 64
  test::write_file(path, bytes);
  auto r = open_ok(path);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->verify().code(), ErrorCode::digest_mismatch);
  EXPECT_TRUE(r->read_component("f", "data").ok());  // verification is opt-in
  auto rv = open_ok(path, {.verify_on_read = true});
  EXPECT_EQ(rv->read_component("f", "data").status().code(), ErrorCode::digest_mismatch);
}

TEST(Reader, RejectsTruncationAndBadMagic) {
  TempDir dir;
  std::vector<float> f(64, 2.0f);
  std::string path = dir.file("t.zt");
  ASSERT_TRUE(write_one(path, dense("f", {64}, DType::f32, as_bytes(f))).ok());
  auto bytes = test::read_file(path);
  for (size_t cut : {size_t{0}, size_t{7}, size_t{20}, bytes.size() - 1, bytes.size() - 9}) {
    test::write_file(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut));
    auto r = Reader::open(path);
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.status().code(), ErrorCode::bad_magic) << cut;
  }
  EXPECT_EQ(Reader::open(dir.file("missing.zt")).status().code(), ErrorCode::io_error);
}

// Front ends (torch) view raw components in this mapping and may write to
// them: the bytes are the validated inode's, and writes stay in the process.
TEST(Reader, CopyOnWriteMappingKeepsTheOpenedFileAndItsBytes) {
  TempDir dir;
  std::vector<float> f(256, 3.0f);
  std::string path = dir.file("cow.zt");
  ASSERT_TRUE(write_one(path, dense("f", {256}, DType::f32, as_bytes(f))).ok());
  auto r = open_ok(path);
  ASSERT_TRUE(r);
  const Component& c = *r->find("f")->find("data");
  // A different file renamed over the path after open must not reach the mapping.
  std::string other = dir.file("other.zt");
  std::vector<float> g(256, -1.0f);
  ASSERT_TRUE(write_one(other, dense("f", {256}, DType::f32, as_bytes(g))).ok());
  std::filesystem::rename(other, path);
  auto mapping = r->map_copy_on_write();
  ASSERT_TRUE(mapping.ok()) << mapping.status().to_string();
  ASSERT_EQ(mapping->bytes.size(), r->file_size());
  uint8_t* data = mapping->bytes.data() + c.offset;
  EXPECT_EQ(std::memcmp(data, f.data(), f.size() * 4), 0);
  // Writes are private: neither the reader's view nor the file sees them.
  std::memset(data, 0, 16);
  auto read = r->read_component("f", "data");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(std::memcmp(read->bytes.data(), f.data(), f.size() * 4), 0);
  auto reopened = open_ok(path);
  ASSERT_TRUE(reopened);
  auto replaced = reopened->read_component("f", "data");
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(std::memcmp(replaced->bytes.data(), g.data(), g.size() * 4), 0);

  auto bytes = test::read_file(path);
  auto in_memory = Reader::open_memory(bytes, nullptr);
  ASSERT_TRUE(in_memory.ok());
  EXPECT_EQ((*in_memory)->map_copy_on_write().status().code(), ErrorCode::unsupported);
}

TEST(Reader, ConcurrentReadsAreSafe) {
  TempDir dir;
  std::vector<float> f(4096);
  std::iota(f.begin(), f.end(), 0.0f);
  std::string path = dir.file("c.zt");
  auto w = Writer::create(path);
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE((*w)->add(dense("t" + std::to_string(i), {4096}, DType::f32, as_bytes(f), Encoding::zstd)).ok());
  ASSERT_TRUE((*w)->finish().ok());
  auto r = open_ok(path);
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 8; ++i) {
        auto b = r->read_component("t" + std::to_string(i), "data");
        if (b.ok() && std::memcmp(b->bytes.data(), f.data(), b->bytes.size()) == 0) ++good;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 32);
}

// Builds a file by hand: magic, blobs, manifest, footer (v1) or size (v0.1).
std::vector<uint8_t> handmade(const char* magic, const std::vector<uint8_t>& blob, const std::vector<uint8_t>& cbor,
                              bool footer) {
  std::vector<uint8_t> out(magic, magic + 8);
  out.resize(64, 0);
  out.insert(out.end(), blob.begin(), blob.end());
  out.insert(out.end(), cbor.begin(), cbor.end());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(cbor.size() >> (8 * i)));
  if (footer) out.insert(out.end(), magic, magic + 8);
  return out;
}

TEST(Reader, ReadsV01BigEndian) {
  TempDir dir;
  std::vector<uint8_t> blob = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};  // 1.0f, 2.0f big-endian
  CborEncoder e;
  e.array_start(1);
  e.map_start(7);
  e.text("name"); e.text("w");
  e.text("offset"); e.uint(64);
  e.text("size"); e.uint(8);
  e.text("dtype"); e.text("float32");
  e.text("shape"); e.array_start(1); e.uint(2);
  e.text("encoding"); e.text("raw");
  e.text("data_endianness"); e.text("big");
  std::string path = dir.file("v01.zt");
  test::write_file(path, handmade("ZTEN0001", blob, e.take(), false));
  auto r = open_ok(path);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->manifest().version, "0.1.0");
  auto b = r->read_component("w", "data");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  float got[2];
  std::memcpy(got, b->bytes.data(), 8);
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[1], 2.0f);
}

TEST(Reader, ReadsV11LegacyDtypes) {
  TempDir dir;
  std::vector<uint8_t> blob(16, 0);
  CborEncoder e;
  e.map_start(2);
  e.text("version"); e.text("1.1.0");
  e.text("objects"); e.map_start(1);
  e.text("z"); e.map_start(3);
  e.text("shape"); e.array_start(1); e.uint(2);
  e.text("format"); e.text("dense");
  e.text("components"); e.map_start(1);
  e.text("data"); e.map_start(3);
  e.text("dtype"); e.text("complex64");
  e.text("offset"); e.uint(64);
  e.text("length"); e.uint(16);
  std::string path = dir.file("v11.zt");
  test::write_file(path, handmade("ZTEN1000", blob, e.take(), true));
  auto r = open_ok(path);
  ASSERT_TRUE(r);
  const Component* c = r->find("z")->find("data");
  EXPECT_EQ(c->dtype, DType::f32);
  EXPECT_EQ(c->type, LogicalType::complex64);
}

}  // namespace
}  // namespace zt
