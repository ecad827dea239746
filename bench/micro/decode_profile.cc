// Default z4ai decode at one thread, for decode_cost.py (bench/README.md:
// "what decode costs per core").
//   decode_profile encode bf16|fp16|fp32 MIB FRAME [FILE]
//     compresses MIB MiB of N(0, 0.02) weights cast to the dtype (round to
//     nearest even; seeded, libstdc++'s normal_distribution), or FILE, with
//     the default options and writes the frame; prints input bytes, frame
//     bytes and the frame's FNV-1a hash (two builds must write the same frame).
//   decode_profile decode FRAME REPS
//     decodes FRAME REPS times into one buffer (decompress_into, threads=1;
//     the stored checksum checks every decode) and prints the median seconds.
// Under callgrind count the decodes only: --toggle-collect='z4ai::decompress_into(*'.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "z4ai/codec.h"

namespace {

uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

// Normal floats only (|f| < 65504 and no NaN here); subnormals by rounding
// the scaled value, which is exact for binary16's fixed step there.
uint16_t to_fp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000);
  const float a = std::fabs(f);
  if (a < 6.103515625e-05f) return uint16_t(sign | uint16_t(std::nearbyint(a * 16777216.0f)));
  std::memcpy(&u, &a, 4);
  const uint32_t e = (u >> 23) - 127 + 15, m = u & 0x7FFFFF;
  uint32_t h = e << 10 | m >> 13;
  const uint32_t rest = m & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // a carry into the exponent is still right
  return uint16_t(sign | h);
}

std::vector<uint8_t> gaussian(const std::string& dtype, size_t bytes) {
  std::mt19937_64 rng(20261201);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<uint8_t> out(bytes);
  const size_t w = dtype == "fp32" ? 4 : 2;
  for (size_t i = 0; i + w <= bytes; i += w) {
    const float f = normal(rng);
    if (dtype == "fp32") {
      std::memcpy(&out[i], &f, 4);
    } else {
      const uint16_t h = dtype == "bf16" ? to_bf16(f) : to_fp16(f);
      std::memcpy(&out[i], &h, 2);
    }
  }
  return out;
}

uint64_t fnv1a(const std::vector<uint8_t>& b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : b) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::vector<uint8_t> slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

int encode(const std::string& dtype, double mib, const char* frame_path, const char* file) {
  const std::vector<uint8_t> data = file ? slurp(file) : gaussian(dtype, size_t(mib * 1048576.0));
  z4ai::CompressOptions o;
  o.dtype = dtype;
  auto frame = z4ai::compress(data, o);
  if (!frame.ok()) {
    std::fprintf(stderr, "%s\n", frame.status().message().c_str());
    return 1;
  }
  std::ofstream(frame_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(frame.value().data()), std::streamsize(frame.value().size()));
  std::printf("%zu %zu %016llx\n", data.size(), frame.value().size(),
              static_cast<unsigned long long>(fnv1a(frame.value())));
  return 0;
}

int decode(const char* frame_path, int reps) {
  const std::vector<uint8_t> frame = slurp(frame_path);
  auto info = z4ai::peek(frame);
  if (!info.ok()) {
    std::fprintf(stderr, "%s\n", info.status().message().c_str());
    return 1;
  }
  std::vector<uint8_t> out(size_t(info.value().original_length));
  std::vector<double> secs;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const zt::Status st = z4ai::decompress_into(frame, out, 1);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!st.ok()) {
      std::fprintf(stderr, "decode failed: %s\n", st.message().c_str());
      return 1;
    }
  }
  std::nth_element(secs.begin(), secs.begin() + secs.size() / 2, secs.end());
  std::printf("%.6f\n", secs[secs.size() / 2]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "encode" && argc >= 5) return encode(argv[2], std::stod(argv[3]), argv[4], argc > 5 ? argv[5] : nullptr);
  if (mode == "decode" && argc >= 4) return decode(argv[2], std::atoi(argv[3]));
  std::fprintf(stderr, "usage: %s encode bf16|fp16|fp32 MIB FRAME [FILE] | decode FRAME REPS\n", argv[0]);
  return 2;
}
