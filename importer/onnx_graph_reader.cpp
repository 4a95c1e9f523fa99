// The walk over an ONNX graph: the shapes shape inference left and the initializers recorded, every node read in
// order, dispatched on its op_type to the family that reads it (onnx_graph_reader.hpp lists them).
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "importer/onnx_graph_checks.hpp"
#include "util/input_error.hpp"
#include "util/utf8_text.hpp"

namespace maeri::importer {

GraphReader::GraphReader(const std::string& path, onnx::ModelProto& model) : path_(path), model_(model) {
  for (const auto& import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx") opset_ = import.version();
}

OnnxImport GraphReader::read() {
  const onnx::GraphProto& graph = model_.graph();
  for (const auto& value : graph.input()) record(value);
  for (const auto& value : graph.value_info()) record(value);
  for (const auto& value : graph.output()) record(value);
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto& tensor = graph.initializer(i);
    Shape shape;
    for (const std::int64_t dim : tensor.dims()) shape.push_back({dim, ""});
    shapes_[tensor.name()] = shape;
    initializers_[tensor.name()] = i;
  }
  for (int index = 0; index < graph.node_size(); ++index)
    for (const std::string& input : graph.node(index).input()) readers_[input].push_back(index);
  for (const auto& output : graph.output()) graph_outputs_.insert(output.name());
  network().name = graph.name().empty() ? std::filesystem::path(path_).stem().string() : graph.name();
  check_utf8(network().name, "graph", "the graph's name");
  for (int index = 0; index < graph.node_size(); ++index) {
    const onnx::NodeProto& node = graph.node(index);
    const std::string base = node_label(node, index);
    std::string name = base;
    for (int copy = 2; node_names_.count(name); ++copy) name = fmt::format("{}_{}", base, copy);
    node_names_.insert(name);
    check_utf8(name, fmt::format("node #{} ({})", index, node.op_type()), "the node's name");
    if (folded_nodes_.count(index)) continue;
    if (!in_default_domain(node)) {
      skip(node, name, "operator of the custom domain '" + node.domain() + "'" + kCut);
      continue;
    }
    read_node(node, index, name);
  }
  record_skipped_graph();
  if (network().layers.empty())
    throw util::InputError({path_, 0, 0}, "graph",
                           fmt::format("the model has no Conv, Gemm, MatMul, Einsum or recurrent node ({} nodes, "
                                       "none of them a layer){}",
                                       graph.node_size(), run_time_branches(graph)));
  return std::move(result_);
}

// "; the If nodes … branch on run-time inputs …": where the layers may be, when a model seems to have none.
std::string GraphReader::run_time_branches(const onnx::GraphProto& graph) const {
  std::vector<std::string> branches;
  for (const onnx::NodeProto& node : graph.node())
    if (node.op_type() == "If" && node.input_size() == 1 && !initializers_.count(node.input(0)))
      branches.push_back(fmt::format("{} (on '{}')", node.name(), node.input(0)));
  if (branches.empty()) return "";
  return fmt::format("; its If node{} {} branch on a value known only at run time: give the run-time input's value "
                     "with --input-value NAME=V to import the branch taken",
                     branches.size() == 1 ? "" : "s", fmt::join(branches, ", "));
}

void GraphReader::fail(const std::string& node, const std::string& problem) const {
  throw util::InputError({path_, 0, 0}, "node " + node, problem);
}

void GraphReader::skip(const onnx::NodeProto& node, const std::string& name, const std::string& reason) {
  result_.skipped.push_back({name, node.op_type(), reason, {node.output().begin(), node.output().end()},
                             {node.input().begin(), node.input().end()}, node.SerializeAsString()});
}

// What the float reference needs to compute the skipped nodes: the constants they read, the Network tensor holding
// each activation they read, and the shapes of what they read and write.
void GraphReader::record_skipped_graph() {
  SkippedGraph& graph = result_.skipped_graph;
  graph.opset = opset_;
  std::vector<const SkippedNode*> nodes;
  for (const auto* list : {&result_.skipped, &result_.recurrent})
    for (const SkippedNode& node : *list) nodes.push_back(&node);
  for (const SkippedNode* each : nodes) {
    const SkippedNode& node = *each;
    for (const std::string& input : node.inputs) {
      if (input.empty() || graph.constants.count(input)) continue;  // read by several skipped nodes: once
      if (const auto value = constant(input)) {
        RealArray& array = graph.constants[input];
        array.shape = value->dims;
        for (std::int64_t i = 0; i < value->elements(); ++i) array.values.push_back(value->real(std::size_t(i)));
      } else if (const auto held = tensor_of_.find(input); held != tensor_of_.end()) {
        graph.held_by[input] = network().tensors[held->second].name;
      }
    }
    for (const auto* names : {&node.inputs, &node.outputs})
      for (const std::string& tensor : *names)
        if (const auto shape = known_shape(tensor)) graph.shapes[tensor] = *shape;
  }
}

void GraphReader::check_utf8(const std::string& text, const std::string& field, const std::string& what) const {
  const std::size_t bad = util::first_invalid_utf8(text);
  if (bad != text.size())
    throw util::InputError({path_, 0, 0}, field,
                           fmt::format("{} is not valid UTF-8 text: byte 0x{:02x} at offset {}", what,
                                       static_cast<unsigned char>(text[bad]), bad));
}

void GraphReader::record(const onnx::ValueInfoProto& value) {
  if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
  Shape shape;
  for (const auto& dim : value.type().tensor_type().shape().dim())
    shape.push_back(dim.has_dim_value() ? Dimension{dim.dim_value(), ""} : Dimension{-1, dim.dim_param()});
  shapes_[value.name()] = shape;
}

void GraphReader::read_node(const onnx::NodeProto& node, int index, const std::string& name) {
  const std::string& op = node.op_type();
  if (op == "Conv") return convolution(node, index, name);
  if (op == "ConvTranspose") return transposed_convolution(node, name);
  if (op == "Gemm") return gemm(node, index, name);
  if (op == "MatMul") return matmul(node, index, name);
  if (op == "Einsum") return einsum(node, name);
  if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent(node, name);
  if (op == "ReduceMean" && decomposed_layer_normalization(node, name)) return;
  const std::string reason = post_operator(node, name);
  if (!reason.empty()) skip(node, name, reason);
}

std::string GraphReader::post_operator(const onnx::NodeProto& node, const std::string& name) {
  const std::string& op = node.op_type();
  if (node.output_size() < 1 || node.output(0).empty()) return skip_reason(op);
  if (op == "Identity" || op == "Dropout") return alias(node);
  if (op == "Cast" && real_valued_cast(node, name)) return alias(node);
  auto out_shape = known_shape(node.output(0));
  // A table function keeps its input's shape, also where shape inference does not know the operator (Mish of
  // opset 18, Gelu of opset 20: newer than the ONNX library's).
  if (!out_shape && contracts::function_of_onnx_operator(op) && node.input_size() == 1)
    out_shape = known_shape(node.input(0));
  if (!out_shape) return "its output's shape is unknown" + std::string(kCut);
  OperatorNode read{node, name, *out_shape, {}};
  using Kind = contracts::OperatorKind;
  if (op == "Relu") return unary(read, Kind::Relu);
  if (op == "Clip") return clip(read);
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalMaxPool") return pool(read);
  if (op == "GlobalAveragePool") return global_average_pool(read);
  if (op == "BatchNormalization") return batch_normalization(read);
  if (op == "Mul" || op == "Add")
    if (const auto reason = constant_per_channel(read)) return *reason;
  if (op == "Concat") return concat(read);
  if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") return unary(read, Kind::Reshape);
  if (op == "Transpose") return transpose(read);
  if (op == "Slice") return slice(read);
  if (op == "Gather") return gather(read);
  if (op == "ScatterND") return scatter(read);
  if (op == "Expand") return expand(read);
  if (op == "Split") return split(read);
  if (op == "LayerNormalization") return layer_normalization(read);
  if (op == "InstanceNormalization") return instance_normalization(read);
  if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax") return reduction(read);
  if (op == "Softmax") return softmax(read);
  if (op == "Pad") return pad(read);
  if (op == "Resize" || op == "Upsample") return resize(read);
  if (op == "PRelu") return prelu(read);
  if (op == "ImageScaler") return image_scaler(read);
  if (op == "Affine") return affine(read);
  if (op == "Crop") return crop(read);
  if (op == "HardSigmoid" || op == "HardSwish") return hard_gate(read);
  if (const auto function = contracts::function_of_onnx_operator(op)) return table_function(read, *function);
  if (is_elementwise_pair_operator(op)) return elementwise_pair(read);
  return skip_reason(op);
}

}  // namespace maeri::importer
