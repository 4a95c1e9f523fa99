// Checks on an ONNX graph made before ONNX shape inference or the importer reads it: a crafted attribute must end
// in an error naming the node and the attribute, never in a signal. ONNX shape inference divides by strides,
// dilations and kernel sizes without checking them (a stride of 0 is SIGFPE), and the importer computes output
// sizes from the same attributes, so every attribute either of them reads is checked here for its type, rank and
// range first. The rules are docs/workload-spec.md, "ONNX models".
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace maeri::importer {

// How messages and layer names call a node: its name, or "<op_type>#<index>" when it has none.
std::string node_label(const onnx::NodeProto& node, int index);

// Whether a node belongs to the default (ONNX) operator set, by its empty or its long name "ai.onnx".
bool in_default_domain(const onnx::NodeProto& node);

// Whether a node of the default domain with this op_type becomes fabric layers (Conv, ConvTranspose, Gemm, MatMul,
// Einsum, LSTM, GRU, RNN; the importer's GraphReader::read_node dispatches on the same names).
bool becomes_fabric_layer(const std::string& op_type);

// Whether the graph, or a subgraph of one of its nodes (If branches, Loop bodies, …), has a node that becomes a
// fabric layer: the work a Loop or If must not hide from the importer.
bool holds_fabric_node(const onnx::GraphProto& graph);

// Throws util::InputError for `path` with the field "node NAME" at the first node that: has fewer or more inputs or
// outputs than its operator's schema at `opset` (the default domain's version) allows, or an empty required
// input; has an attribute of the wrong type, rank or range (the attributes of Conv and Gemm the importer reads, within the Layer's limits of
// contracts/layer.hpp; on every operator the window attributes shape inference divides by: strides, dilations,
// kernel_shape, blocksize), has an attribute twice, or reads a tensor that it or a later node writes (a cycle:
// an ONNX graph is acyclic and sorted); the subgraphs of If, Loop and Scan nodes are checked alike (shape inference
// reads them too).
void check_graph_before_inference(const onnx::GraphProto& graph, std::int64_t opset, const std::string& path);

}  // namespace maeri::importer
