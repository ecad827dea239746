#include "codec/common/digest.h"

#include <xxhash.h>
#if ZT_XXH_DISPATCH
// Renames XXH3_64bits and XXH3_64bits_update to the run-time dispatched
// (AVX2 / AVX-512) entry points (cmake/ZtDependencies.cmake).
#include <xxh_x86dispatch.h>
#endif

#include <new>

namespace z4ai::detail {

uint64_t xxh3_64(std::span<const uint8_t> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// The state's layout is private to libxxhash unless statically linked: it
// is allocated by the library.
struct Xxh3Stream::State {
  XXH3_state_t* s = XXH3_createState();
  State() {
    if (!s) throw std::bad_alloc();  // like any other allocation in the codec
  }
  ~State() { XXH3_freeState(s); }
};

Xxh3Stream::Xxh3Stream() : state_(std::make_unique<State>()) { XXH3_64bits_reset(state_->s); }
Xxh3Stream::~Xxh3Stream() = default;
void Xxh3Stream::update(std::span<const uint8_t> bytes) { XXH3_64bits_update(state_->s, bytes.data(), bytes.size()); }
uint64_t Xxh3Stream::digest() const { return XXH3_64bits_digest(state_->s); }

}  // namespace z4ai::detail
