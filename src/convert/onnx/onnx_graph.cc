#include "convert/onnx/onnx_graph.h"

#include <vector>

#include "convert/onnx/protobuf_wire.h"

namespace zt::onnx {
namespace {

std::string text(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

Status walk(std::span<const uint8_t> graph, GraphWalk& w, int depth, uint64_t& index, const std::string& scope);

// The tensor a Constant node yields, from its `value` attribute. Its other
// value_* forms (scalars, lists) carry no weights and are left alone.
Status constant(const std::string& output, std::span<const uint8_t> attribute, GraphWalk& w, uint64_t index,
                const std::string& scope) {
  pb::Reader a(attribute, "Constant '" + output + "' attribute");
  std::string name;
  std::span<const uint8_t> tensor;
  bool has_tensor = false, sparse = false;
  while (!a.done()) {
    ZT_ASSIGN_OR_RETURN(pb::Field f, a.next());
    if (f.wire != pb::kLen) continue;
    if (f.number == 1) name = text(f.bytes);
    if (f.number == 5) { tensor = f.bytes; has_tensor = true; }
    if (f.number == 22) sparse = true;
  }
  if (name == "sparse_value" && sparse) { ++w.sparse_skipped; return {}; }
  if (name != "value" || !has_tensor) return {};
  auto t = parse_tensor(tensor, index, output);
  if (!t.ok() && t.status().code() == ErrorCode::unsupported) { ++w.constants_skipped; return {}; }
  if (!t.ok()) return t.status();
  return w.add(std::move(t).value(), scope);
}

Status node(std::span<const uint8_t> message, GraphWalk& w, int depth, uint64_t& index, const std::string& scope) {
  pb::Reader r(message, "NodeProto");
  std::string op, domain, output, node_name;
  bool has_output = false;
  std::vector<std::span<const uint8_t>> attributes;
  while (!r.done()) {
    ZT_ASSIGN_OR_RETURN(pb::Field f, r.next());
    if (f.wire != pb::kLen) continue;
    if (f.number == 2 && !has_output) { output = text(f.bytes); has_output = true; }
    if (f.number == 3) node_name = text(f.bytes);
    if (f.number == 4) op = text(f.bytes);
    if (f.number == 5) attributes.push_back(f.bytes);
    if (f.number == 7) domain = text(f.bytes);
  }
  const bool is_constant = op == "Constant" && (domain.empty() || domain == "ai.onnx");
  if (is_constant && (!has_output || output.empty()))
    return {ErrorCode::malformed_manifest, "onnx: a Constant node has no output to name its tensor by"};
  for (auto attribute : attributes) {
    if (is_constant) ZT_RETURN_IF_ERROR(constant(output, attribute, w, index++, scope));
    pb::Reader a(attribute, "AttributeProto");
    std::string attribute_name;
    std::vector<std::span<const uint8_t>> subgraphs;
    while (!a.done()) {
      ZT_ASSIGN_OR_RETURN(pb::Field f, a.next());
      if (f.number == 1 && f.wire == pb::kLen) attribute_name = text(f.bytes);
      if ((f.number == 6 || f.number == 11) && f.wire == pb::kLen) subgraphs.push_back(f.bytes);
    }
    const std::string inner = scope + (node_name.empty() ? op : node_name) + "." + attribute_name + "/";
    for (auto g : subgraphs) ZT_RETURN_IF_ERROR(walk(g, w, depth + 1, index, inner));
  }
  return {};
}

Status walk(std::span<const uint8_t> graph, GraphWalk& w, int depth, uint64_t& index, const std::string& scope) {
  if (depth > kMaxSubgraphDepth)
    return {ErrorCode::limit_exceeded, "onnx: subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth) + " levels"};
  pb::Reader r(graph, "GraphProto");
  while (!r.done()) {
    ZT_ASSIGN_OR_RETURN(pb::Field f, r.next());
    if (f.number == 5 && f.wire == pb::kLen) {
      ZT_ASSIGN_OR_RETURN(auto t, parse_tensor(f.bytes, index++));
      ZT_RETURN_IF_ERROR(w.add(std::move(t), scope));
    } else if (f.number == 1 && f.wire == pb::kLen) {
      ZT_RETURN_IF_ERROR(node(f.bytes, w, depth, index, scope));
    } else if (f.number == 2 && f.wire == pb::kLen && depth == 0) {
      w.name = text(f.bytes);
    } else if (f.number == 15) {
      ++w.sparse_skipped;
    }
  }
  return {};
}

}  // namespace

Status walk_graph(std::span<const uint8_t> graph, GraphWalk& w) {
  uint64_t index = 0;
  return walk(graph, w, 0, index, "");
}

}  // namespace zt::onnx
