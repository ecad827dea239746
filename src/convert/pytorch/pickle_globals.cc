#include "convert/pytorch/pickle_globals.h"

#include <optional>
#include <string>

#include "common/checked_math.h"

namespace zt::pickle {
namespace {

// A global name as it may appear in a message: printable ASCII, bounded.
std::string printable(std::string_view s) {
  constexpr size_t kMaxShown = 120;
  std::string r;
  for (char c : s.substr(0, kMaxShown)) r += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > kMaxShown) r += "...";
  return r;
}

Status bad_args(const std::string& fn, const std::string& rule) {
  return {ErrorCode::malformed_manifest, "pickle: " + fn + ": " + rule};
}

Result<Ref> make_global(Machine& m, GlobalId id, std::string qualified, TorchScalar scalar = TorchScalar::u8,
                        bool untyped = false) {
  Obj o;
  o.kind = Kind::global;
  o.global = id;
  o.s = std::move(qualified);
  o.scalar = scalar;
  o.i = untyped;
  return m.make(std::move(o));
}

Result<int64_t> get_int(const Machine& m, Ref r, const std::string& fn, const char* what) {
  const Obj& o = m.at(r);
  if (o.kind != Kind::integer) return bad_args(fn, std::string(what) + " must be an integer");
  return o.i;
}

// A torch.Size (pickled as a tuple) of non-negative integers.
Result<std::vector<int64_t>> get_dims(const Machine& m, Ref r, const std::string& fn, const char* what) {
  const Obj& o = m.at(r);
  if (o.kind != Kind::tuple && o.kind != Kind::list) return bad_args(fn, std::string(what) + " must be a tuple");
  if (o.items.size() > kMaxTensorRank)
    return Status(ErrorCode::limit_exceeded, "pickle: " + fn + ": " + what + " has " + std::to_string(o.items.size()) +
                                                 " dimensions (limit " + std::to_string(kMaxTensorRank) + ")");
  std::vector<int64_t> dims;
  for (Ref item : o.items) {
    ZT_ASSIGN_OR_RETURN(int64_t d, get_int(m, item, fn, what));
    if (d < 0)
      return Status(ErrorCode::invalid_structure, "pickle: " + fn + ": " + what + " holds a negative value " + std::to_string(d));
    dims.push_back(d);
  }
  return dims;
}

// The metadata dict of _rebuild_tensor_v2/_v3 (torch._utils.set_tensor_metadata):
// {"conj": True, "neg": True} for a lazy conj / neg view whose storage holds
// the values before the view's sign flips.
Status read_view_bits(const Machine& m, Ref metadata, const std::string& fn, Obj& t) {
  const Obj& d = m.at(metadata);
  if (d.kind == Kind::none) return {};
  if (d.kind != Kind::dict) return bad_args(fn, "metadata must be a dict or None");
  for (const auto& [k, v] : d.entries) {
    const Obj& key = m.at(k);
    const Obj& val = m.at(v);
    if (key.kind != Kind::text) return bad_args(fn, "metadata keys must be strings");
    if (val.kind != Kind::boolean && val.kind != Kind::integer) return bad_args(fn, "metadata values must be booleans");
    if (val.i == 0) continue;
    if (key.s == "conj") t.conj = true;
    else if (key.s == "neg") t.neg = true;
    else if (t.unknown_bit.empty()) t.unknown_bit = printable(key.s);
  }
  return {};
}

// _rebuild_tensor{,_v2,_v3}: (storage, storage_offset, size, stride, ...).
// `metadata` is the view-bit dict argument, absent for _rebuild_tensor.
Result<Ref> rebuild_tensor(Machine& m, const std::vector<Ref>& a, const std::string& fn, const Obj* dtype,
                           std::optional<Ref> metadata) {
  if (m.at(a[0]).kind != Kind::storage) return bad_args(fn, "argument 0 must be a storage (from a persistent id)");
  ZT_ASSIGN_OR_RETURN(int64_t offset, get_int(m, a[1], fn, "storage_offset"));
  if (offset < 0) return Status(ErrorCode::invalid_structure, "pickle: " + fn + ": negative storage_offset");
  ZT_ASSIGN_OR_RETURN(auto size, get_dims(m, a[2], fn, "size"));
  ZT_ASSIGN_OR_RETURN(auto stride, get_dims(m, a[3], fn, "stride"));
  if (size.size() != stride.size())
    return bad_args(fn, "size has " + std::to_string(size.size()) + " dimensions but stride " + std::to_string(stride.size()));
  Obj t;
  t.kind = Kind::tensor;
  t.storage = a[0];
  t.scalar = dtype ? dtype->scalar : m.at(a[0]).scalar;
  t.offset = offset;
  t.size = std::move(size);
  t.stride = std::move(stride);
  if (metadata) ZT_RETURN_IF_ERROR(read_view_bits(m, *metadata, fn, t));
  return m.make(std::move(t));
}

}  // namespace

Result<Ref> find_global(Machine& m, std::string_view module, std::string_view name) {
  std::string q = printable(module) + "." + printable(name);
  if (module == "collections" && name == "OrderedDict") return make_global(m, GlobalId::ordered_dict, q);
  if (module == "torch._utils") {
    if (name == "_rebuild_tensor") return make_global(m, GlobalId::rebuild_tensor, q);
    if (name == "_rebuild_tensor_v2") return make_global(m, GlobalId::rebuild_tensor_v2, q);
    if (name == "_rebuild_tensor_v3") return make_global(m, GlobalId::rebuild_tensor_v3, q);
    if (name == "_rebuild_parameter") return make_global(m, GlobalId::rebuild_parameter, q);
    if (name == "_rebuild_parameter_with_state") return make_global(m, GlobalId::rebuild_parameter_with_state, q);
  }
  if (module == "torch._tensor" && name == "_rebuild_from_type_v2")
    return make_global(m, GlobalId::rebuild_from_type_v2, q);
  if ((module == "torch" && name == "Tensor") || (module == "torch.nn.parameter" && name == "Parameter"))
    return make_global(m, GlobalId::tensor_class, q);
  if ((module == "torch.storage" || module == "torch") && name == "UntypedStorage")
    return make_global(m, GlobalId::storage_class, q, TorchScalar::u8, /*untyped=*/true);
  if (module == "torch") {
    if (const auto* info = torch_scalar_by_storage_class(name))
      return make_global(m, GlobalId::storage_class, q, info->scalar);
    if (const auto* info = torch_scalar_by_dtype_name(name)) return make_global(m, GlobalId::dtype, q, info->scalar);
    if (name.ends_with("Storage"))
      return Status(ErrorCode::unsupported, "refused global '" + q + "': a storage type zTensor has no dtype for");
  }
  return Status(ErrorCode::unsupported,
                "refused global '" + q + "' (not on the restricted unpickler's allowlist; nothing was executed)");
}

Result<Ref> reduce(Machine& m, Ref callable, Ref args_ref) {
  const Obj& f = m.at(callable);
  if (f.kind != Kind::global) return Status(ErrorCode::unsupported, "pickle: REDUCE on a value that is not an allowed callable");
  const Obj& args_obj = m.at(args_ref);
  if (args_obj.kind != Kind::tuple) return bad_args(f.s, "REDUCE arguments must be a tuple");
  const std::vector<Ref> a = args_obj.items;  // copy: make() may move the arena
  const std::string fn = f.s;
  auto need = [&](size_t lo, size_t hi) -> Status {
    if (a.size() < lo || a.size() > hi) {
      std::string range = std::to_string(lo);
      if (hi != lo) (range += '-') += std::to_string(hi);
      return bad_args(fn, "takes " + range + " arguments, got " + std::to_string(a.size()));
    }
    return {};
  };
  switch (f.global) {
    case GlobalId::ordered_dict: {
      ZT_RETURN_IF_ERROR(need(0, 0));
      Obj d;
      d.kind = Kind::dict;
      return m.make(std::move(d));
    }
    case GlobalId::rebuild_tensor:
      ZT_RETURN_IF_ERROR(need(4, 4));
      return rebuild_tensor(m, a, fn, nullptr, std::nullopt);
    case GlobalId::rebuild_tensor_v2:
      ZT_RETURN_IF_ERROR(need(6, 7));
      return rebuild_tensor(m, a, fn, nullptr, a.size() > 6 ? std::optional<Ref>(a[6]) : std::nullopt);
    case GlobalId::rebuild_tensor_v3: {
      ZT_RETURN_IF_ERROR(need(7, 8));
      const Obj& d = m.at(a[6]);
      if (d.kind != Kind::global || d.global != GlobalId::dtype) return bad_args(fn, "argument 6 must be a torch dtype");
      Obj dtype = d;
      return rebuild_tensor(m, a, fn, &dtype, a.size() > 7 ? std::optional<Ref>(a[7]) : std::nullopt);
    }
    case GlobalId::rebuild_parameter:
    case GlobalId::rebuild_parameter_with_state: {
      bool with_state = f.global == GlobalId::rebuild_parameter_with_state;
      ZT_RETURN_IF_ERROR(need(with_state ? 4 : 3, with_state ? 4 : 3));
      if (m.at(a[0]).kind != Kind::tensor) return bad_args(fn, "argument 0 must be a tensor");
      return a[0];  // requires_grad, hooks and Python state do not affect the bytes
    }
    case GlobalId::rebuild_from_type_v2: {
      // (func, new_type, args, state): rebuilds a tensor subclass as func(*args).
      ZT_RETURN_IF_ERROR(need(4, 4));
      const Obj& inner = m.at(a[0]);
      if (inner.kind != Kind::global || inner.global == GlobalId::rebuild_from_type_v2 ||
          inner.global == GlobalId::ordered_dict)
        return bad_args(fn, "argument 0 must be a tensor rebuild function");
      const Obj& type = m.at(a[1]);
      if (type.kind != Kind::global || type.global != GlobalId::tensor_class)
        return bad_args(fn, "argument 1 must be torch.Tensor or torch.nn.parameter.Parameter");
      ZT_ASSIGN_OR_RETURN(Ref t, reduce(m, a[0], a[2]));
      if (m.at(t).kind != Kind::tensor) return bad_args(fn, "did not produce a tensor");
      return t;
    }
    case GlobalId::tensor_class:
    case GlobalId::storage_class:
    case GlobalId::dtype:
      return Status(ErrorCode::unsupported, "pickle: calling '" + fn + "' is not allowed by the restricted unpickler");
  }
  return Status(ErrorCode::unsupported, "pickle: calling '" + fn + "' is not allowed");
}

Result<Ref> persistent_load(Machine& m, Ref pid_ref) {
  const Obj& pid = m.at(pid_ref);
  const char* rule = "persistent id must be ('storage', storage_type, key, location, numel)";
  if (pid.kind != Kind::tuple || pid.items.size() != 5) return Status(ErrorCode::malformed_manifest, std::string("pickle: ") + rule);
  const Obj& tag = m.at(pid.items[0]);
  const Obj& cls = m.at(pid.items[1]);
  const Obj& key = m.at(pid.items[2]);
  const Obj& numel = m.at(pid.items[4]);
  if (tag.kind != Kind::text || tag.s != "storage" || cls.kind != Kind::global || cls.global != GlobalId::storage_class ||
      key.kind != Kind::text || numel.kind != Kind::integer || numel.i < 0)
    return Status(ErrorCode::malformed_manifest, std::string("pickle: ") + rule);
  auto bytes = checked_mul(static_cast<uint64_t>(numel.i), torch_scalar_info(cls.scalar).element_bytes);
  if (!bytes) return Status(ErrorCode::shape_overflow, "pickle: storage '" + printable(key.s) + "' size overflows 64 bits");
  Obj s;
  s.kind = Kind::storage;
  s.s = key.s;
  s.scalar = cls.scalar;
  s.i = static_cast<int64_t>(*bytes);
  return m.make(std::move(s));
}

Status build(Machine& m, Ref target, Ref state) {
  Kind k = m.at(target).kind;
  if (k == Kind::tensor || k == Kind::dict) return {};  // Python-side attributes only
  return {ErrorCode::unsupported, "pickle: BUILD is only allowed on tensors and dicts"};
}

}  // namespace zt::pickle
