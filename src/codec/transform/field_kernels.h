// SIMD kernels (Google Highway, chosen at run time for the CPU) for the float
// field split and the byte-plane transpose. Output is bit-identical to the
// scalar definitions in docs/codec.md; float_split.cc and byte_planes.cc call
// these. `n` is an element count (any value, 0 included); pointers need no
// alignment; input and output buffers must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace z4ai::detail {

// bf16: exp = bits 14..7, sm = sign << 7 | bits 6..0.
void bf16_split_kernel(const uint8_t* src, size_t n, uint8_t* exp, uint8_t* sm);
void bf16_merge_kernel(const uint8_t* exp, const uint8_t* sm, size_t n, uint8_t* dst);

// fp16: e = bits 14..10 (masked: any byte gives defined output), lo = bits
// 7..0, hi = sign << 2 | bits 9..8 (bits 7..3 of hi ignored).
void fp16_merge_kernel(const uint8_t* e, const uint8_t* lo, const uint8_t* hi, size_t n, uint8_t* dst);

// fp32: e = bits 30..23, sm = sign << 7 | bits 22..16, m1 = bits 15..8, m0 = bits 7..0.
void fp32_split_kernel(const uint8_t* src, size_t n, uint8_t* e, uint8_t* sm, uint8_t* m1, uint8_t* m0);
void fp32_merge_kernel(const uint8_t* e, const uint8_t* sm, const uint8_t* m1, const uint8_t* m0, size_t n,
                       uint8_t* dst);

// Sign split merges (transform 5): element i's sign is bit i % 8 of
// signs[(i / 8)] (ceil(n / 8) bytes are read), mant holds mantissa bits 6..0
// (bf16) or 22..16 (fp32, bit 7 ignored); the rest as the field merges.
void bf16_sign_merge_kernel(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, size_t n, uint8_t* dst);
void fp32_sign_merge_kernel(const uint8_t* signs, const uint8_t* e, const uint8_t* mant, const uint8_t* m1,
                            const uint8_t* m0, size_t n, uint8_t* dst);

// Plane j = byte j of every `width`-byte element. Widths 2, 4 and 8 are
// vectorised; any other width >= 1 takes a scalar loop.
void split_planes_kernel(const uint8_t* src, size_t n, uint32_t width, uint8_t* const* planes);
void join_planes_kernel(const uint8_t* const* planes, size_t n, uint32_t width, uint8_t* dst);

// Exponent nibble pairs: the 8-bit exponent stream of bf16/fp32 coded as
// 4-bit symbols, two per byte. sym = uint8_t(exp - base); nibble = sym if
// sym <= 14, else 15 (escape: the exponent byte is appended to `escapes`).
// pairs[j] = nibble(2j) | nibble(2j+1) << 4; for odd n the last high nibble
// is 0. `pairs` holds ceil(n/2) bytes; `escapes` must have room for n.
// Return the number of escapes written.
size_t pack_exponent_pairs(const uint8_t* exp, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes);
// Field split fused with the packing (no exponent buffer); sm, m1, m0 as above.
size_t bf16_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes, uint8_t* sm);
size_t fp32_split_paired(const uint8_t* src, size_t n, uint8_t base, uint8_t* pairs, uint8_t* escapes, uint8_t* sm,
                         uint8_t* m1, uint8_t* m0);

// Decoder side; `pairs` is untrusted. Counts the escape nibbles (== 15)
// among the first n nibbles into *n_escapes. Returns false (and leaves
// *n_escapes alone) if n is odd and the pad nibble is not 0.
bool count_pair_escapes(const uint8_t* pairs, size_t n, size_t* n_escapes);
// Unpack fused with the merge; escapes are consumed in element order. The
// caller must have checked, with count_pair_escapes on these same pairs,
// that `escapes` holds that many bytes: the merge reads exactly that many.
void bf16_merge_paired(const uint8_t* pairs, const uint8_t* escapes, uint8_t base, const uint8_t* sm, size_t n,
                       uint8_t* dst);
void fp32_merge_paired(const uint8_t* pairs, const uint8_t* escapes, uint8_t base, const uint8_t* sm,
                       const uint8_t* m1, const uint8_t* m0, size_t n, uint8_t* dst);

}  // namespace z4ai::detail
