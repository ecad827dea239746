// Writes valid frames of every type as fuzz seeds:
//   codec_seed_corpus <out_dir>  ->  <out_dir>/<target>/seed_N
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "codec/common/byte_io.h"
#include "codec/entropy/entropy.h"
#include "codec/entropy/rans14.h"
#include "codec/entropy/rans14_adaptive.h"
#include "z4ai/chunked.h"
#include "z4ai/codec.h"
#include "z4ai/delta.h"
#include "z4ai/zstn.h"

namespace fs = std::filesystem;

static void write(const fs::path& dir, int i, const std::vector<uint8_t>& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / ("seed_" + std::to_string(i)), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// `frame` (one mode-0 chunk) with stream `s` recoded as method 9 (14-bit
// rANS) or 10 (its adaptive layout): the encoder picks them only on large
// inputs, too big for a seed.
static std::vector<uint8_t> with_rans14_stream(const std::vector<uint8_t>& frame, size_t s,
                                               z4ai::detail::Method m = z4ai::detail::Method::rans0_14) {
  using namespace z4ai::detail;
  const size_t body = 36, tail = frame[body + 1], table = body + 3 + tail;
  const size_t k = frame[body + 2 + tail];
  std::vector<uint8_t> out(frame.begin(), frame.begin() + std::ptrdiff_t(table + 9 * k));
  size_t off = table + 9 * k;
  for (size_t i = 0; i < k; ++i) {
    const uint8_t* h = frame.data() + table + 9 * i;
    const size_t comp = load_u32(h + 5);
    std::vector<uint8_t> payload(frame.begin() + std::ptrdiff_t(off), frame.begin() + std::ptrdiff_t(off + comp));
    off += comp;
    if (i == s) {
      std::vector<uint8_t> raw(load_u32(h + 1));
      if (!decode_stream(h[0], false, payload, raw).ok()) return frame;
      payload.clear();
      if (m == Method::rans0_14_adaptive) {
        encode_rans14_adaptive(raw, payload);
      } else {
        encode_rans14(raw, payload);
      }
      out[table + 9 * i] = uint8_t(m);
      store_u32(out.data() + table + 9 * i + 5, uint32_t(payload.size()));
    }
    out.insert(out.end(), payload.begin(), payload.end());
  }
  store_u32(out.data() + 32, uint32_t(out.size() - body));
  return out;
}

// z4ai_uncapped_decode_fuzz: the Z4AI and ZARA seeds behind its control
// byte (thread count, magic), and a frame of 16 chunks of 256 MiB, each one
// stored stream of 0 bytes claiming the whole chunk, which its decoder must
// refuse before it touches any output.
static void write_uncapped_seeds(const fs::path& out) {
  int k = 0;
  for (const bool zara : {false, true}) {
    for (const auto& seed : fs::directory_iterator(out / (zara ? "zara_decode_fuzz" : "z4ai_decode_fuzz"))) {
      std::ifstream in(seed.path(), std::ios::binary);
      std::vector<uint8_t> bytes{uint8_t((zara ? 0x80 : 0) | (k % 3))};  // control byte: magic, threads
      bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in), {});
      write(out / "z4ai_uncapped_decode_fuzz", k++, bytes);
    }
  }
  using z4ai::detail::store_u32;
  constexpr uint32_t kChunks = 16, kChunkBytes = 256u << 20;
  constexpr uint8_t kStoredChunkBody[] = {0, 0, 1, 0, 0, 0, 0, 0x10, 0, 0, 0, 0};  // transform none, one stored stream
  std::vector<uint8_t> frame(1 + 32 + 4 * kChunks, 0);  // control byte, header, chunk table
  frame[0] = 1;  // three threads
  std::memcpy(&frame[1], "Z4AI", 4);
  frame[5] = 2;  // version
  z4ai::detail::store_u64(&frame[9], uint64_t(kChunks) * kChunkBytes);
  store_u32(&frame[25], kChunkBytes);
  store_u32(&frame[29], kChunks);
  for (uint32_t i = 0; i < kChunks; ++i) {
    store_u32(&frame[33 + 4 * i], sizeof(kStoredChunkBody));
    frame.insert(frame.end(), std::begin(kStoredChunkBody), std::end(kStoredChunkBody));
  }
  write(out / "z4ai_uncapped_decode_fuzz", k, frame);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <out_dir>\n", argv[0]);
    return 2;
  }
  fs::path out = argv[1];
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t n : {0, 1, 17, 300, 5000}) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t(std::lround(60 * std::sin(double(i) * 0.37)) + (i % 5 == 0 ? 0 : 1));
    inputs.push_back(v);
  }
  {  // quantised-looking: 2048 four-byte elements from 10 values (palette path)
    std::vector<uint8_t> v(8192);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(((i / 4) * 7 % 10) * 16 + (i % 4));
    inputs.push_back(v);
  }
  {  // weight-like fp32 and bf16 (the top halves): the lean path's paired field split
    std::vector<uint8_t> f32(4 * 3001), b16(2 * 3001);
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    for (size_t i = 0; i < 3001; ++i) {
      float f = normal(rng);
      std::memcpy(&f32[4 * i], &f, 4);
      std::memcpy(&b16[2 * i], &f32[4 * i + 2], 2);
    }
    inputs.push_back(f32);
    inputs.push_back(b16);
  }
  std::vector<uint8_t> reference(4096);  // same as delta_decode_fuzz.cc
  for (size_t i = 0; i < reference.size(); ++i) reference[i] = uint8_t(i * 7);
  int k = 0;
  for (const auto& in : inputs) {
    for (const char* dtype : {"", "bf16", "fp32", "f8_e4m3fn"}) {
      z4ai::CompressOptions o;
      o.dtype = dtype;
      write(out / "z4ai_decode_fuzz", k, z4ai::compress(in, o).value());
      o.effort = z4ai::Effort::balanced;
      write(out / "zara_decode_fuzz", k, z4ai::compress(in, o).value());
      o.effort = z4ai::Effort::fast;
      std::vector<uint8_t> cur = reference;
      for (size_t i = 0; i < in.size() && i < cur.size(); ++i) cur[i] ^= in[i];
      write(out / "delta_decode_fuzz", k, z4ai::compress_delta(cur, reference, o).value());
      z4ai::chunked::Options c;
      c.width = z4ai::dtype_width(dtype).value();
      c.chunk_size = 256;
      write(out / "chunked_decode_fuzz", k, z4ai::chunked::compress(in, c).value());
      std::vector<uint8_t> rt{uint8_t(k)};
      rt.insert(rt.end(), in.begin(), in.end());
      write(out / "z4ai_roundtrip_fuzz", k, rt);
      ++k;
    }
  }
  // Dequantised weights on a scale grid (chunk transform 6): int8 q times a
  // scale per 256 elements, in fp32 and bf16, with -0, NaN, inf and an
  // off-grid value as exceptions.
  for (const char* dtype : {"fp32", "bf16"}) {
    const size_t n = 4096, w = z4ai::dtype_width(dtype).value();
    std::vector<uint8_t> v(n * w);
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 40.0f);
    float scale = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i % 256 == 0) scale = 1e-4f * float(1 + i / 256);
      float f = std::fmax(-127.0f, std::fmin(127.0f, std::rint(normal(rng)))) * scale;
      if (i % 1000 == 999) f = std::array<float, 4>{-0.0f, NAN, INFINITY, 0.123f}[i / 1000];
      if (w == 4) {
        std::memcpy(&v[4 * i], &f, 4);
      } else {  // bf16, round to nearest even
        uint32_t u;
        std::memcpy(&u, &f, 4);
        const uint16_t b = uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
        std::memcpy(&v[2 * i], &b, 2);
      }
    }
    z4ai::CompressOptions o;
    o.dtype = dtype;
    write(out / "z4ai_decode_fuzz", k, z4ai::compress(v, o).value());
    o.effort = z4ai::Effort::balanced;
    write(out / "zara_decode_fuzz", k, z4ai::compress(v, o).value());
    ++k;
  }
  // ZSTN: a small safetensors buffer with a tied tensor. The writer now
  // refuses tensors that leave a gap, so the contiguous = 0 seed (1) stays as
  // an earlier writer made it.
  for (int gap = 0; gap < 1; ++gap) {
    std::string header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                         "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[" +
                         std::to_string(16 + gap) + "," + std::to_string(32 + gap) + "]}}";
    std::vector<uint8_t> st;
    for (int i = 0; i < 8; ++i) st.push_back(uint8_t(uint64_t(header.size()) >> (8 * i)));
    st.insert(st.end(), header.begin(), header.end());
    for (int t = 0; t < 2; ++t) {
      for (int i = 0; i < 16; ++i) st.push_back(uint8_t(i * 3));
      if (t == 0 && gap) st.push_back(0);
    }
    write(out / "zstn_decode_fuzz", gap, z4ai::zstn::compress(st, {}).value());
  }
  // Method 9 on both streams of the weight-like bf16 input (one field-split chunk).
  z4ai::CompressOptions o;
  o.dtype = "bf16";
  write(out / "z4ai_decode_fuzz", k, with_rans14_stream(with_rans14_stream(z4ai::compress(inputs[7], o).value(), 0), 1));
  // Method 10 the same way (one 64 KiB slice each).
  constexpr auto kAdaptive = z4ai::detail::Method::rans0_14_adaptive;
  write(out / "z4ai_decode_fuzz", k + 1,
        with_rans14_stream(with_rans14_stream(z4ai::compress(inputs[7], o).value(), 0, kAdaptive), 1, kAdaptive));
  write_uncapped_seeds(out);
  std::printf("wrote %d seeds per target under %s\n", k, out.c_str());
  return 0;
}
