// The allowlist of the restricted unpickler: which globals a torch.save
// pickle may name, and what "calling" each one means (building a plain
// object from its arguments; no code runs). Everything else is refused.
#pragma once

#include <string_view>

#include "convert/pytorch/pickle_vm.h"

namespace zt::pickle {

// GLOBAL / STACK_GLOBAL. Errors: unsupported "refused global 'os.system'".
Result<Ref> find_global(Machine& m, std::string_view module, std::string_view name);
// REDUCE: `callable` applied to the tuple `args`.
// Errors: unsupported (not callable), malformed_manifest (bad arguments).
Result<Ref> reduce(Machine& m, Ref callable, Ref args);
// BINPERSID: ('storage', storage_class, key, location, numel).
Result<Ref> persistent_load(Machine& m, Ref pid);
// BUILD: state is accepted (and dropped) only on tensors and dicts.
Status build(Machine& m, Ref target, Ref state);

}  // namespace zt::pickle
