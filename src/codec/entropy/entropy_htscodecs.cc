// htscodecs stages: static rANS 4x16 (order 0/1) and adaptive arithmetic
// coding (order 0/1). Both store the decoded size, which we check.
extern "C" {
#include <htscodecs/arith_dynamic.h>
#include <htscodecs/rANS_static4x16.h>
#include <htscodecs/varint.h>
}

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "codec/entropy/entropy.h"

namespace z4ai::detail {
namespace {

// 32-way interleaving decodes faster with SIMD; small streams keep 4-way.
constexpr size_t kRansX32MinBytes = 64 * 1024;
// Streams of fast-effort chunks (<= 4 MiB) encode through a kept per-thread
// scratch; larger ones (big single chunks) must not pin that much memory.
constexpr size_t kMaxRansScratchBytes = size_t{8} << 20;

unsigned char* in_ptr(std::span<const uint8_t> in) { return const_cast<unsigned char*>(in.data()); }

// htscodecs' 32-way order-1 encoder (rans_compress_O1_32x16_avx512) reads
// just outside its input: under ThreadSanitizer, whose allocator puts a
// large block at the start of a mapping, it faulted on the byte before it.
// A view of a memory-mapped tensor can start at a page boundary the same
// way, so order-1 input is copied into a per-thread buffer with this many
// zero bytes on each side (one memcpy of the stream beside the order-1
// encode itself; not measured on its own).
constexpr size_t kRansOrder1GuardBytes = 64;

std::span<const uint8_t> guarded_order1_input(std::span<const uint8_t> in) {
  thread_local std::unique_ptr<uint8_t[]> buf;
  thread_local size_t buf_size = 0;
  const size_t need = in.size() + 2 * kRansOrder1GuardBytes;
  if (buf_size < need) {
    buf.reset(new (std::nothrow) uint8_t[need]);
    buf_size = buf ? need : 0;
    if (!buf) return {};
  }
  std::memset(buf.get(), 0, kRansOrder1GuardBytes);
  std::memcpy(buf.get() + kRansOrder1GuardBytes, in.data(), in.size());
  std::memset(buf.get() + kRansOrder1GuardBytes + in.size(), 0, kRansOrder1GuardBytes);
  return {buf.get() + kRansOrder1GuardBytes, in.size()};
}

// The only header flags our encoders write: order 0/1, X32 (rANS), and CAT
// when coding does not pay. PACK, RLE and STRIPE make htscodecs allocate
// intermediate buffers sized by the stream's own claims (a 100-byte stream
// asked for 657 MB under the fuzzer), so a stream using them is refused.
constexpr uint8_t kRansFlagsWeWrite = 0x01 | RANS_ORDER_X32 | RANS_ORDER_CAT;
constexpr uint8_t kArithFlagsWeWrite = 0x01 | RANS_ORDER_CAT;  // arith_dynamic shares the flag bits

zt::Status check_flags(std::span<const uint8_t> in, uint8_t allowed, const char* coder) {
  if (in.empty()) return {zt::ErrorCode::corrupt_stream, std::string("z4ai: empty ") + coder + " stream"};
  if ((in[0] & ~allowed) != 0)
    return {zt::ErrorCode::corrupt_stream, std::string("z4ai: ") + coder +
                                               " stream uses header flags (pack, RLE, stripe or no-size) this codec never writes"};
  return {};
}

// An order-1 rANS stream may carry its frequency table compressed, with the
// table's decoded size as a varint (7 bits a byte, top bit = more), and
// htscodecs allocates that size before decoding it (the fuzzer found a
// 3 KB stream asking for 1.9 GB). A real table (256 contexts x 256
// symbols, 12-bit frequencies) is far under 2^21 bytes, i.e. at most 3
// varint bytes, so a longer size is refused before htscodecs sees it.
constexpr size_t kMaxFreqTableSizeBytes = 3;
constexpr size_t kMaxSizeVarintBytes = 5;  // a u32 in 7-bit groups

// The length of the varint at `at`, 0 when it runs off the end or past 5 bytes.
size_t varint_length(std::span<const uint8_t> in, size_t at) {
  for (size_t n = 1; n <= kMaxSizeVarintBytes && at + n <= in.size(); ++n)
    if ((in[at + n - 1] & 0x80) == 0) return n;
  return 0;
}

zt::Status check_order1_table(std::span<const uint8_t> in) {
  if ((in[0] & 0x01) == 0 || (in[0] & RANS_ORDER_CAT) != 0) return {};  // no order-1 table
  const size_t size_len = varint_length(in, 1);  // the decoded size (NOSZ is refused)
  if (size_len == 0) return {zt::ErrorCode::corrupt_stream, "z4ai: rANS stream header is truncated"};
  const size_t table = 1 + size_len;
  if (table >= in.size() || (in[table] & 0x01) == 0) return {};  // htscodecs rejects the short case itself
  const size_t declared_len = varint_length(in, table + 1);
  if (declared_len == 0 || declared_len > kMaxFreqTableSizeBytes)
    return {zt::ErrorCode::corrupt_stream,
            "z4ai: rANS order-1 stream declares a compressed frequency table of 2 MiB or more (a real one is "
            "under 300 KB)"};
  return {};
}

zt::Status size_error(const char* coder, unsigned got, size_t want) {
  return {zt::ErrorCode::length_mismatch, std::string("z4ai: ") + coder + " stream decodes to " +
                                              std::to_string(got) + " bytes, expected " + std::to_string(want)};
}

// htscodecs picks its widest SIMD encoder; on AMD Zen 4, which runs 512-bit
// operations as two 256-bit halves, its AVX2 order-0 encoder is faster (653
// vs 549 MB/s on fp8 chunks, 633 vs 528 on fp32 exponents; order 1 and every
// decoder within noise). The streams are byte-identical either way, so the
// choice is the CPU's alone: on AMD, the AVX-512 encoders are masked out.
void choose_rans_encoder() {
  static const bool once = [] {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_is("amd")) rans_set_cpu(~RANS_CPU_ENC_AVX512);
#endif
    return true;
  }();
  (void)once;
}

}  // namespace

bool encode_rans(std::span<const uint8_t> in, int order, std::vector<uint8_t>& out, bool x32) {
  if (in.empty() || in.size() > kMaxStreamBytes) return false;
  choose_rans_encoder();
  if (x32 || in.size() >= kRansX32MinBytes) order |= RANS_ORDER_X32;
  if ((order & 0x01) != 0 && (order & RANS_ORDER_X32) != 0) {
    in = guarded_order1_input(in);
    if (in.empty()) return false;
  }
  unsigned bound = rans_compress_bound_4x16(unsigned(in.size()), order);
  // Encode into a per-thread scratch whose pages are already mapped, then
  // append only the coded bytes: resizing `out` by the bound would zero-fill
  // (and fault in) ~1.05x the input for nothing.
  if (bound > kMaxRansScratchBytes) {
    size_t base = out.size();
    out.resize(base + bound);
    unsigned out_size = bound;
    if (!rans_compress_to_4x16(in_ptr(in), unsigned(in.size()), out.data() + base, &out_size, order)) {
      out.resize(base);
      return false;
    }
    out.resize(base + out_size);
    return true;
  }
  thread_local std::unique_ptr<uint8_t[]> scratch;
  thread_local size_t scratch_size = 0;
  if (scratch_size < bound) {
    scratch.reset(new (std::nothrow) uint8_t[bound]);
    scratch_size = scratch ? bound : 0;
    if (!scratch) return false;
  }
  unsigned out_size = bound;
  if (!rans_compress_to_4x16(in_ptr(in), unsigned(in.size()), scratch.get(), &out_size, order)) return false;
  out.insert(out.end(), scratch.get(), scratch.get() + out_size);
  return true;
}

bool encode_arith(std::span<const uint8_t> in, int order, std::vector<uint8_t>& out) {
  if (in.empty() || in.size() > kMaxStreamBytes) return false;
  unsigned bound = arith_compress_bound(unsigned(in.size()), order);
  size_t base = out.size();
  out.resize(base + bound);
  unsigned out_size = bound;
  if (!arith_compress_to(in_ptr(in), unsigned(in.size()), out.data() + base, &out_size, order)) {
    out.resize(base);
    return false;
  }
  out.resize(base + out_size);
  return true;
}

namespace {

// The decoded size after the flags byte of a rANS 4x16 or arith_dynamic
// stream (NOSZ, which would omit it, is refused by check_flags) must be n; a
// CAT stream then holds the bytes themselves.
zt::Status check_declared_size(std::span<const uint8_t> in, uint64_t n, const char* coder) {
  uint32_t declared = 0;
  uint8_t* begin = in_ptr(in) + 1;
  const size_t size_len = size_t(var_get_u32(begin, in_ptr(in) + in.size(), &declared));
  if (size_len == 0 || size_len > kMaxSizeVarintBytes)
    return {zt::ErrorCode::corrupt_stream, std::string("z4ai: ") + coder + " stream header is truncated"};
  const std::string what = std::string("z4ai: ") + coder;
  if (declared != n)
    return {zt::ErrorCode::length_mismatch,
            what + " stream declares " + std::to_string(declared) + " bytes, its stream table " + std::to_string(n)};
  if ((in[0] & RANS_ORDER_CAT) != 0 && in.size() != 1 + size_len + n)
    return {zt::ErrorCode::length_mismatch,
            what + " stream of " + std::to_string(in.size()) + " uncoded bytes cannot hold " + std::to_string(n)};
  return {};
}

}  // namespace

zt::Status check_rans_declared(std::span<const uint8_t> in, uint64_t n) {
  ZT_RETURN_IF_ERROR(check_flags(in, kRansFlagsWeWrite, "rANS"));
  ZT_RETURN_IF_ERROR(check_order1_table(in));
  return check_declared_size(in, n, "rANS");
}

zt::Status check_arith_declared(std::span<const uint8_t> in, uint64_t n) {
  ZT_RETURN_IF_ERROR(check_flags(in, kArithFlagsWeWrite, "arithmetic"));
  return check_declared_size(in, n, "arithmetic");
}

zt::Status decode_rans(std::span<const uint8_t> in, std::span<uint8_t> out) {
  if (in.size() > kMaxStreamBytes || out.size() > kMaxStreamBytes)
    return {zt::ErrorCode::limit_exceeded, "z4ai: rANS stream over the 1 GiB stream limit"};
  if (auto s = check_flags(in, kRansFlagsWeWrite, "rANS"); !s.ok()) return s;
  if (auto s = check_order1_table(in); !s.ok()) return s;
  unsigned out_size = unsigned(out.size());
  if (!rans_uncompress_to_4x16(in_ptr(in), unsigned(in.size()), out.data(), &out_size))
    return {zt::ErrorCode::corrupt_stream, "z4ai: rANS stream does not decode"};
  if (out_size != out.size()) return size_error("rANS", out_size, out.size());
  return {};
}

zt::Status decode_arith(std::span<const uint8_t> in, std::span<uint8_t> out) {
  if (in.size() > kMaxStreamBytes || out.size() > kMaxStreamBytes)
    return {zt::ErrorCode::limit_exceeded, "z4ai: arithmetic stream over the 1 GiB stream limit"};
  if (auto s = check_flags(in, kArithFlagsWeWrite, "arithmetic"); !s.ok()) return s;
  unsigned out_size = unsigned(out.size());
  if (!arith_uncompress_to(in_ptr(in), unsigned(in.size()), out.data(), &out_size))
    return {zt::ErrorCode::corrupt_stream, "z4ai: arithmetic-coded stream does not decode"};
  if (out_size != out.size()) return size_error("arithmetic", out_size, out.size());
  return {};
}

}  // namespace z4ai::detail
