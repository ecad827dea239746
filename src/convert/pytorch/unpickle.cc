// unpickle_restricted: runs the restricted machine, then flattens the object
// it built (nested dicts / lists of tensors) into named tensors and
// attributes.
#include <unordered_set>

#include "convert/pytorch/pickle_vm.h"
#include "ztensor/pytorch_format.h"

namespace zt {
namespace {

using pickle::Kind;
using pickle::Machine;
using pickle::Ref;

// Checkpoints nest a few levels (model -> layer -> tensor); a deeper one is
// either a cycle built through the memo or hostile.
inline constexpr int kMaxNesting = 64;
// Shared sub-objects (the memo makes a DAG) may be reached many times; this
// bounds the walk so a diamond chain cannot take exponential time.
inline constexpr uint64_t kMaxFlattenVisits = uint64_t{1} << 20;
// Name given to the tensor when the checkpoint is a single bare tensor.
inline constexpr const char* kBareTensorName = "tensor";

class Flattener {
 public:
  explicit Flattener(const Machine& m) : m_(m) {}

  Status walk(Ref r, const std::string& name, int depth) {
    ZT_RETURN_IF_ERROR(visit(name, depth));
    const auto& o = m_.at(r);
    switch (o.kind) {
      case Kind::tensor:
        return add_tensor(o, name.empty() ? kBareTensorName : name);
      case Kind::dict:
        for (const auto& [k, v] : o.entries) {
          ZT_ASSIGN_OR_RETURN(std::string key, key_text(k, name));
          ZT_RETURN_IF_ERROR(walk(v, name.empty() ? key : name + "." + key, depth + 1));
        }
        return {};
      case Kind::list:
      case Kind::tuple: {
        ZT_ASSIGN_OR_RETURN(bool tensors, holds_tensor(r, depth));
        if (!tensors) return add_attribute(r, name, depth);
        for (size_t i = 0; i < o.items.size(); ++i) {
          std::string key = std::to_string(i);
          ZT_RETURN_IF_ERROR(walk(o.items[i], name.empty() ? key : name + "." + key, depth + 1));
        }
        return {};
      }
      case Kind::storage:
        return {};  // a bare storage carries no shape; nothing to present
      default:
        return add_attribute(r, name, depth);
    }
  }

  UnpickledCheckpoint result;

 private:
  Status visit(const std::string& name, int depth) {
    if (depth > kMaxNesting)
      return {ErrorCode::limit_exceeded, "pickle: '" + name + "' nests deeper than " + std::to_string(kMaxNesting) + " levels"};
    if (++visits_ > kMaxFlattenVisits)
      return {ErrorCode::limit_exceeded, "pickle: more than " + std::to_string(kMaxFlattenVisits) + " values to flatten"};
    return {};
  }

  Result<std::string> key_text(Ref k, const std::string& parent) {
    const auto& o = m_.at(k);
    if (o.kind == Kind::text) return o.s;
    if (o.kind == Kind::integer) return std::to_string(o.i);  // optimizer state is keyed by int
    if (o.kind == Kind::boolean) return std::string(o.i ? "True" : "False");
    if (o.kind == Kind::none) return std::string("None");
    return Status(ErrorCode::unsupported,
                  "pickle: a dict under '" + parent + "' has a key that is not a string or integer");
  }

  Status claim(const std::string& name) {
    if (!names_.insert(name).second)
      return {ErrorCode::invalid_structure, "pickle: two entries flatten to the name '" + name + "'"};
    return {};
  }

  Status add_tensor(const pickle::Obj& t, const std::string& name) {
    ZT_RETURN_IF_ERROR(claim(name));
    if (!t.unknown_bit.empty())
      return {ErrorCode::unsupported, "pickle: tensor '" + name + "' sets the view bit '" + t.unknown_bit +
                                          "', which zTensor cannot apply (only conj and neg are understood)"};
    const auto& st = m_.at(t.storage);
    const auto& info = pickle::torch_scalar_info(t.scalar);
    TorchTensorRef ref;
    ref.name = name;
    ref.storage_key = st.s;
    ref.torch_dtype = info.dtype_name;
    ref.dtype = info.dtype;
    ref.type = info.type;
    ref.element_bytes = info.element_bytes;
    ref.storage_offset = static_cast<uint64_t>(t.offset);
    ref.storage_bytes = static_cast<uint64_t>(st.i);
    ref.shape.assign(t.size.begin(), t.size.end());
    ref.stride.assign(t.stride.begin(), t.stride.end());
    ref.conj = t.conj;
    ref.neg = t.neg;
    result.tensors.push_back(std::move(ref));
    return {};
  }

  Status add_attribute(Ref r, const std::string& name, int depth) {
    if (name.empty()) return {};  // a root that is not a container: nothing to name it by
    ZT_RETURN_IF_ERROR(claim(name));
    ZT_ASSIGN_OR_RETURN(Value v, to_value(r, name, depth));
    if (!result.attributes.is_map()) result.attributes = Value::map();
    result.attributes.set(name, std::move(v));
    return {};
  }

  Result<Value> to_value(Ref r, const std::string& name, int depth) {
    ZT_RETURN_IF_ERROR(visit(name, depth));
    const auto& o = m_.at(r);
    switch (o.kind) {
      case Kind::none: return Value::null();
      case Kind::boolean: return Value::boolean(o.i != 0);
      case Kind::integer: return Value::integer(o.i);
      case Kind::floating: return Value::float64(o.f);
      case Kind::text: return Value::text(o.s);
      case Kind::bytes: return Value::bytes(o.s);
      case Kind::global: return Value::text(o.s);  // e.g. a dtype kept as a value
      case Kind::list:
      case Kind::tuple: {
        Value::Array a;
        for (Ref item : o.items) {
          ZT_ASSIGN_OR_RETURN(Value v, to_value(item, name, depth + 1));
          a.push_back(std::move(v));
        }
        return Value::array(std::move(a));
      }
      case Kind::dict: {
        Value::Map mp;
        for (const auto& [k, v] : o.entries) {
          ZT_ASSIGN_OR_RETURN(std::string key, key_text(k, name));
          ZT_ASSIGN_OR_RETURN(Value val, to_value(v, name, depth + 1));
          mp.emplace_back(Value::text(std::move(key)), std::move(val));
        }
        return Value::map(std::move(mp));
      }
      default:
        return Value::null();  // storages have no attribute form
    }
  }

  // Whether a container reaches a tensor; cached per object so shared
  // sub-objects are examined once.
  Result<bool> holds_tensor(Ref r, int depth) {
    if (depth > kMaxNesting) return Status(ErrorCode::limit_exceeded, "pickle: containers nest deeper than " + std::to_string(kMaxNesting) + " levels");
    if (auto it = cache_.find(r); it != cache_.end()) return it->second;
    const auto& o = m_.at(r);
    bool found = o.kind == Kind::tensor;
    if (o.kind == Kind::list || o.kind == Kind::tuple) {
      for (Ref item : o.items) {
        ZT_ASSIGN_OR_RETURN(bool b, holds_tensor(item, depth + 1));
        if (b) { found = true; break; }
      }
    } else if (o.kind == Kind::dict) {
      for (const auto& kv : o.entries) {
        ZT_ASSIGN_OR_RETURN(bool b, holds_tensor(kv.second, depth + 1));
        if (b) { found = true; break; }
      }
    }
    cache_[r] = found;
    return found;
  }

  const Machine& m_;
  uint64_t visits_ = 0;
  std::unordered_set<std::string> names_;
  std::unordered_map<Ref, bool> cache_;
};

}  // namespace

Result<UnpickledCheckpoint> unpickle_restricted(std::span<const uint8_t> pickle_bytes) {
  Machine m(pickle_bytes);
  ZT_ASSIGN_OR_RETURN(Ref root, m.run());
  Flattener f(m);
  ZT_RETURN_IF_ERROR(f.walk(root, "", 0));
  return std::move(f.result);
}

}  // namespace zt
