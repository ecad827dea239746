// TensorSource over an ONNX model: ModelProto -> graph, whose initializers
// and Constant-node tensors (subgraphs included) onnx_graph.h collects.
//
// ModelProto fields read: ir_version 1, producer_name 2, producer_version 3,
// domain 4, model_version 5, doc_string 6, graph 7, opset_import 8
// (OperatorSetIdProto: domain 1, version 2), metadata_props 14.
#include <algorithm>
#include <cstring>

#include "container/validate.h"
#include "common/mapped_file.h"
#include "convert/file_bytes.h"
#include "convert/indexed_source.h"
#include "convert/mapped_open.h"
#include "convert/onnx/external_data.h"
#include "convert/onnx/onnx_graph.h"
#include "convert/onnx/onnx_tensor.h"
#include "convert/onnx/protobuf_wire.h"
#include "ztensor/onnx_format.h"
#include "ztensor/reader.h"

namespace zt {
namespace {

inline constexpr uint64_t kMaxInitializers = uint64_t{1} << 22;

struct Slot {
  onnx::OnnxTensor tensor;
  std::span<const uint8_t> bytes;  // raw_data or external data (zero-copy)
  std::shared_ptr<const void> owner;
  FileByteAccess access;                // how `bytes` are read: the model's file or the data file
  bool zero_copy = false;
};

// A copy of `t` whose typed runs point into `cover`, which holds the bytes
// [lo, lo + cover.size()) of the message they were parsed from.
onnx::OnnxTensor rebased(const onnx::OnnxTensor& t, const uint8_t* lo, std::span<const uint8_t> cover) {
  onnx::OnnxTensor copy = t;
  for (auto& run : copy.typed_runs) run = cover.subspan(static_cast<size_t>(run.data() - lo), run.size());
  return copy;
}

std::string text(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

class OnnxSource final : public IndexedSource {
 public:
  OnnxSource() : IndexedSource("onnx", Miss::split) {}
  const char* format_name() const override { return "onnx"; }
  Result<ComponentBytes> read_data(size_t slot, const Object&) const override {
    const Slot& s = slots_[slot];
    ComponentBytes out;
    if (s.tensor.nbytes == 0) {
      out.owner = s.owner;
      out.zero_copy = true;
      return out;
    }
    if (s.zero_copy) return s.access.read(s.bytes, s.owner);
    // Typed values lie in the model's own bytes: those the runs span, read
    // with pread, are decoded.
    const uint8_t* lo = nullptr;
    const uint8_t* hi = nullptr;
    for (const auto& run : s.tensor.typed_runs) {
      if (run.empty()) continue;
      lo = lo ? std::min(lo, run.data()) : run.data();
      hi = hi ? std::max(hi, run.data() + run.size()) : run.data() + run.size();
    }
    ComponentBytes cover;
    if (lo) {
      ZT_ASSIGN_OR_RETURN(cover, access_.read_to_decode({lo, static_cast<size_t>(hi - lo)}, owner_));
    }
    auto buf = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(s.tensor.nbytes));
    ZT_RETURN_IF_ERROR(onnx::decode_typed(lo ? rebased(s.tensor, lo, cover.bytes) : s.tensor, buf->data()));
    out.bytes = {buf->data(), buf->size()};
    out.owner = buf;
    return out;
  }
  Status verify() const override { return {}; }  // ONNX carries no digests

  static Result<std::unique_ptr<TensorSource>> load(std::span<const uint8_t> file, std::shared_ptr<const void> owner,
                                                    const std::string& base_dir, FileByteAccess access = {});

 private:
  Status read_graph(std::span<const uint8_t> graph, onnx::ExternalFiles& ext);
  Status add(onnx::OnnxTensor t, const std::string& scope, onnx::ExternalFiles& ext);

  std::span<const uint8_t> file_;
  std::shared_ptr<const void> owner_;
  FileByteAccess access_;
  std::vector<Slot> slots_;  // parallel to manifest_.objects
  onnx::GraphWalk walk_;
};

Status OnnxSource::add(onnx::OnnxTensor t, const std::string& scope, onnx::ExternalFiles& ext) {
  ZT_RETURN_IF_ERROR(check_name(t.name, "onnx tensor"));
  if (slots_.size() >= kMaxInitializers)
    return {ErrorCode::limit_exceeded, "onnx: more than " + std::to_string(kMaxInitializers) + " initializers"};
  // A subgraph may reuse a name a sibling subgraph defines (ONNX scopes
  // names per graph); it is then kept under its scope ("If_0.else_branch/c").
  if (contains(t.name) && !scope.empty()) t.name = scope + t.name;
  if (contains(t.name)) return {ErrorCode::invalid_structure, "onnx: tensor '" + t.name + "' appears twice (initializers and Constant outputs share one namespace)"};
  Slot s;
  uint64_t offset = 0;
  if (t.has_raw) {
    s.bytes = t.raw;
    s.owner = owner_;
    s.access = access_;
    s.zero_copy = true;
    offset = static_cast<uint64_t>(t.raw.data() - file_.data());
  } else if (t.external) {
    ZT_ASSIGN_OR_RETURN(auto span, ext.resolve(t));
    s.bytes = span.bytes;
    s.owner = span.file;
    // A data file is read the way the model is: checked views, or pread copies.
    s.access = FileByteAccess(span.file, access_.copy_on_read());
    s.zero_copy = true;
  }
  add_object(dense_object(t.name, t.dims, t.type->dtype, t.type->type, offset, t.nbytes));
  s.tensor = std::move(t);
  slots_.push_back(std::move(s));
  return {};
}

Status OnnxSource::read_graph(std::span<const uint8_t> graph, onnx::ExternalFiles& ext) {
  walk_.add = [this, &ext](onnx::OnnxTensor t, const std::string& scope) { return add(std::move(t), scope, ext); };
  return onnx::walk_graph(graph, walk_);
}

Result<std::unique_ptr<TensorSource>> OnnxSource::load(std::span<const uint8_t> file, std::shared_ptr<const void> owner,
                                                       const std::string& base_dir, FileByteAccess access) {
  auto src = std::unique_ptr<OnnxSource>(new OnnxSource());
  src->file_ = file;
  src->owner_ = std::move(owner);
  src->access_ = std::move(access);
  onnx::ExternalFiles ext(base_dir);
  Value attrs = Value::map();
  Value opsets = Value::map();
  Value props = Value::map();
  bool has_graph = false;
  pb::Reader r(file, "ModelProto");
  while (!r.done()) {
    ZT_ASSIGN_OR_RETURN(pb::Field f, r.next());
    switch (f.number) {
      case 1: if (f.wire == pb::kVarint) attrs.set("ir_version", Value::uint(f.value)); break;
      case 2: if (f.wire == pb::kLen) attrs.set("producer_name", Value::text(text(f.bytes))); break;
      case 3: if (f.wire == pb::kLen) attrs.set("producer_version", Value::text(text(f.bytes))); break;
      case 4: if (f.wire == pb::kLen) attrs.set("domain", Value::text(text(f.bytes))); break;
      case 5: if (f.wire == pb::kVarint) attrs.set("model_version", Value::integer(static_cast<int64_t>(f.value))); break;
      case 6: if (f.wire == pb::kLen) attrs.set("doc_string", Value::text(text(f.bytes))); break;
      case 7:
        if (f.wire != pb::kLen) return Status(ErrorCode::malformed_manifest, "onnx: ModelProto.graph is not a message");
        has_graph = true;
        ZT_RETURN_IF_ERROR(src->read_graph(f.bytes, ext));  // repeated occurrences merge, as protobuf does
        break;
      case 8:
      case 14: {
        if (f.wire != pb::kLen) break;
        pb::Reader e(f.bytes, f.number == 8 ? "OperatorSetIdProto" : "StringStringEntryProto");
        std::string key;
        Value val = f.number == 8 ? Value::integer(0) : Value::text("");
        while (!e.done()) {
          ZT_ASSIGN_OR_RETURN(pb::Field g, e.next());
          if (g.number == 1 && g.wire == pb::kLen) key = text(g.bytes);
          if (g.number == 2 && f.number == 8 && g.wire == pb::kVarint) val = Value::integer(static_cast<int64_t>(g.value));
          if (g.number == 2 && f.number == 14 && g.wire == pb::kLen) val = Value::text(text(g.bytes));
        }
        if (f.number == 8) opsets.set(key.empty() ? "ai.onnx" : key, std::move(val));
        else props.set(key, std::move(val));
        break;
      }
      default:
        break;
    }
  }
  if (!has_graph) return Status(ErrorCode::malformed_manifest, "onnx: ModelProto has no graph (field 7): not an ONNX model");
  if (!src->walk_.name.empty()) attrs.set("graph_name", Value::text(src->walk_.name));
  if (!opsets.as_map().empty()) attrs.set("opset_import", std::move(opsets));
  if (!props.as_map().empty()) attrs.set("metadata_props", std::move(props));
  if (src->walk_.sparse_skipped) attrs.set("sparse_initializers_skipped", Value::uint(src->walk_.sparse_skipped));
  if (src->walk_.constants_skipped) attrs.set("constants_skipped", Value::uint(src->walk_.constants_skipped));
  src->walk_.add = nullptr;  // it refers to `ext`, which ends here
  src->manifest_.version = "1.2.0";
  src->manifest_.attributes = std::move(attrs);
  return std::unique_ptr<TensorSource>(std::move(src));
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Result<std::unique_ptr<TensorSource>> open_onnx_mapped(std::shared_ptr<const MappedFile> file, bool copy_on_read) {
  const auto bytes = file->bytes();
  const std::string dir = parent_dir(file->path());
  FileByteAccess access(file, copy_on_read);
  return OnnxSource::load(bytes, std::move(file), dir, std::move(access));
}

Result<std::unique_ptr<TensorSource>> open_onnx(const std::string& path) {
  ZT_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  return open_onnx_mapped(std::move(mapped), /*copy_on_read=*/false);
}

Result<std::unique_ptr<TensorSource>> open_onnx_memory(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                                       const std::string& base_dir) {
  return OnnxSource::load(bytes, std::move(owner), base_dir);
}

}  // namespace zt
