// How each format's first bytes show it: the sniff column of the format
// registry (format_registry.h). Each takes the first min(size, kSniffBytes)
// bytes of a file of `size` bytes named `path`.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace zt::sniff {

bool zt(std::span<const uint8_t> head, uint64_t size, const std::string& path);
bool gguf(std::span<const uint8_t> head, uint64_t size, const std::string& path);
bool npy(std::span<const uint8_t> head, uint64_t size, const std::string& path);
// A zip is an .npz or a PyTorch archive by its first member (zip_kind).
bool npz(std::span<const uint8_t> head, uint64_t size, const std::string& path);
bool pytorch(std::span<const uint8_t> head, uint64_t size, const std::string& path);
bool safetensors(std::span<const uint8_t> head, uint64_t size, const std::string& path);
bool onnx(std::span<const uint8_t> head, uint64_t size, const std::string& path);

}  // namespace zt::sniff
