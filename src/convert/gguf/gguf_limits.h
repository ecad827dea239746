// Named limits of the GGUF reader, each next to the rule it enforces.
#pragma once

#include <cstdint>

namespace zt::gguf {

// "GGUF" read as a little-endian u32 (the file starts with the 4 ASCII bytes).
inline constexpr uint32_t kMagic = 0x46554747;
// Versions 2 and 3 use u64 counts and lengths; version 1 used u32 ones and is
// refused rather than guessed at.
inline constexpr uint32_t kMinVersion = 2;
inline constexpr uint32_t kMaxVersion = 3;
// ggml: "GGML_MAX_DIMS 4" -- a tensor has at most four dimensions.
inline constexpr uint32_t kMaxDims = 4;
// gguf: "general.alignment ... must be a multiple of 8 ... default 32"; ggml
// only requires a non-zero power of two, which is what we check.
inline constexpr uint64_t kDefaultAlignment = 32;
// Arrays of arrays are legal GGUF but never deeper than a couple of levels in
// practice; the cap bounds recursion on hostile input.
inline constexpr int kMaxArrayDepth = 8;
// Smallest encodings, used to refuse counts that cannot fit in what remains
// of the file before anything is allocated (CVE-2024-21802 class):
// a key/value is a u64 key length + u32 type + at least a 1-byte value;
inline constexpr uint64_t kMinKvBytes = 8 + 4 + 1;
// a tensor info is a u64 name length + u32 n_dims + u32 type + u64 offset;
inline constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;
// an array element is at least one byte (u8/i8/bool); a string element at
// least its u64 length; a nested array at least its u32 type + u64 count.
inline constexpr uint64_t kMinStringBytes = 8;
inline constexpr uint64_t kMinArrayBytes = 4 + 8;

}  // namespace zt::gguf
