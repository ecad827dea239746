// A pickle stack machine (protocols 2-5) that builds plain data and never
// calls anything: GLOBAL, REDUCE, BUILD and BINPERSID are delegated to the
// torch allowlist (pickle_globals.h), which refuses every name it does not
// know. Objects live in one arena and refer to each other by index, so a
// self-referencing container cannot leak or recurse unboundedly.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert/pytorch/torch_dtype.h"
#include "ztensor/status.h"

namespace zt::pickle {

using Ref = uint32_t;

// Hostile-input caps. torch.save pickles are small (a few bytes per tensor
// and name); these leave orders of magnitude of headroom.
// The restricted unpickler bounds its memo size, stack depth, string lengths
// (against the bytes remaining) and total ops.
inline constexpr size_t kMaxMemoEntries = size_t{1} << 22;
inline constexpr size_t kMaxStackDepth = size_t{1} << 22;
inline constexpr size_t kMaxMarkDepth = size_t{1} << 16;
inline constexpr size_t kMaxObjects = size_t{1} << 24;
inline constexpr uint64_t kMaxOps = uint64_t{1} << 28;
inline constexpr size_t kMaxTensorRank = 64;

enum class Kind : uint8_t {
  none, boolean, integer, floating, text, bytes,
  tuple, list, dict,
  global,   // an allowlisted name (class, function or dtype)
  storage,  // a storage record from BINPERSID
  tensor,
};

enum class GlobalId : uint8_t {
  ordered_dict,
  rebuild_tensor,      // torch._utils._rebuild_tensor
  rebuild_tensor_v2,
  rebuild_tensor_v3,
  rebuild_parameter,
  rebuild_parameter_with_state,
  rebuild_from_type_v2,  // torch._tensor._rebuild_from_type_v2
  tensor_class,          // torch.Tensor / torch.nn.parameter.Parameter
  storage_class,         // torch.FloatStorage ... and UntypedStorage
  dtype,                 // torch.float32 ...
};

struct Obj {
  Kind kind = Kind::none;
  int64_t i = 0;     // boolean, integer; storage: bytes declared
  double f = 0;      // floating
  std::string s;     // text, bytes, global qualified name, storage key
  std::vector<Ref> items;                   // tuple, list
  std::vector<std::pair<Ref, Ref>> entries; // dict (pickle order)
  GlobalId global = GlobalId::ordered_dict;
  TorchScalar scalar = TorchScalar::u8;     // storage / dtype / tensor dtype
  // tensor
  Ref storage = 0;
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
  bool conj = false, neg = false;  // torch's lazy conj/neg view bits
  std::string unknown_bit;         // a metadata key set true that we cannot apply
};

class Machine {
 public:
  explicit Machine(std::span<const uint8_t> code) : code_(code) {}
  // Runs to STOP and returns the top of the stack. Errors: see
  // unpickle_restricted in ztensor/pytorch_format.h.
  Result<Ref> run();

  const Obj& at(Ref r) const { return objs_[r]; }
  Obj& at(Ref r) { return objs_[r]; }
  Result<Ref> make(Obj o);

 private:
  Status step(uint8_t op, size_t at);
  Result<Ref> pop();
  Result<std::vector<Ref>> pop_mark();
  Status push(Ref r);
  Result<std::span<const uint8_t>> take(uint64_t n, const char* what);
  Result<uint64_t> take_le(int n, const char* what);
  Result<std::string> take_line(const char* what);
  Status memo_put(uint64_t index);
  Result<Ref> memo_get(uint64_t index);

  std::span<const uint8_t> code_;
  size_t pos_ = 0;
  std::vector<Obj> objs_;
  std::vector<Ref> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Ref> memo_;
  bool stopped_ = false;
};

}  // namespace zt::pickle
