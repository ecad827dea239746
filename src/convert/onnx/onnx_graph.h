// The tensors of an ONNX GraphProto: its initializers and the `value` tensors
// of its Constant nodes (exported RNNs and constant-folded models keep
// weights there), and those of every subgraph held in a node attribute
// (If/Loop/Scan bodies), in file order.
//
// GraphProto fields read: node 1, name 2, initializer 5, sparse_initializer
// 15 (counted). NodeProto: output 2, name 3, op_type 4, attribute 5, domain 7.
// AttributeProto: name 1, t 5, g 6, graphs 11, sparse_tensor 22.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "convert/onnx/onnx_tensor.h"
#include "ztensor/status.h"

namespace zt::onnx {

// Subgraphs nest inside node attributes (a Loop body holding an If ...).
// Exported models stay within a handful of levels; deeper is hostile.
inline constexpr int kMaxSubgraphDepth = 32;

struct GraphWalk {
  // Called once per tensor; a Constant's tensor is named by the node's
  // first output, as the graph refers to it. `scope` is "" in the main
  // graph and "<node>.<attribute>/" (nested: concatenated) in a subgraph:
  // sibling subgraphs (an If's two branches) may reuse a name, and the
  // scope tells them apart.
  std::function<Status(OnnxTensor, const std::string& scope)> add;
  std::string name;               // the top graph's name
  uint64_t sparse_skipped = 0;    // sparse initializers and sparse Constants
  uint64_t constants_skipped = 0; // Constants with no zTensor dtype (STRING ...)
};

// Errors: those of parse_tensor and of walk.add, malformed_manifest (a
// Constant without an output), limit_exceeded (subgraphs nest deeper than
// kMaxSubgraphDepth).
Status walk_graph(std::span<const uint8_t> graph, GraphWalk& walk);

}  // namespace zt::onnx
