// Cheap test for long-range repeats (tied embeddings, duplicated layers):
// hashes 64-byte aligned blocks, keeps a content-defined 1/16 sample and
// counts repeats. Decides whether the whole-buffer zstd/LDM candidates are
// worth their compress time.
#pragma once

#include <cstdint>
#include <span>

namespace z4ai::detail {

bool has_long_range_repeats(std::span<const uint8_t> data);

}  // namespace z4ai::detail
