// ONNX graph → Network (see onnx_import.hpp; the operator and attribute mapping is docs/workload-spec.md, "ONNX
// models").
#include "importer/onnx_import.hpp"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "contracts/strict_yaml.hpp"
#include "importer/onnx_folding.hpp"
#include "importer/onnx_graph_checks.hpp"
#include "importer/onnx_tensor_data.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"
#include "util/integer_math.hpp"
#include "util/utf8_text.hpp"

namespace maeri::importer {
namespace {

using Dims = std::vector<std::int64_t>;

// One dimension as shape inference left it: a value, or the symbol (dim_param) or nothing when unresolved.
struct Dimension {
  std::int64_t value = -1;
  std::string symbol;
};
using Shape = std::vector<Dimension>;

const char* const kCut = "; the graph is cut here (its consumers read a network input)";

// Why a node is skipped: MAERI's multipliers and reduction tree compute the multiply-accumulates of convolutions
// and matrix products, the post-processing unit the operators of contracts::OperatorKind; the rest is not run.
std::string skip_reason(const std::string& op) {
  static const std::set<std::string> pooling = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                                                "LpPool", "GlobalLpPool", "MaxRoiPool", "MaxUnpool"};
  static const std::set<std::string> activation = {
      "Relu",     "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "Tanh",     "Softmax", "LogSoftmax", "Clip",
      "Elu",      "Selu",      "Celu",  "Gelu",    "Erf",         "Softplus", "Softsign", "HardSwish", "Mish",
      "ThresholdedRelu"};
  static const std::set<std::string> elementwise = {"Add", "Sub", "Mul", "Div",  "Pow",   "Sqrt", "Exp",
                                                    "Log", "Neg", "Abs", "Max",  "Min",   "Sum",  "Mean",
                                                    "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Where",
                                                    "Equal", "Less", "Greater", "Not", "And", "Or"};
  static const std::set<std::string> normalisation = {"BatchNormalization", "LayerNormalization",
                                                      "InstanceNormalization", "LpNormalization", "ReduceMean",
                                                      "ReduceSum", "ReduceMax", "ReduceL2", "LRN",
                                                      "GroupNormalization"};
  static const std::set<std::string> layout = {
      "Reshape", "Flatten", "Transpose", "Concat", "Split", "Slice", "Gather", "Squeeze", "Unsqueeze", "Shape",
      "Constant", "ConstantOfShape", "Identity", "Cast", "Dropout", "Expand", "Tile", "Pad", "Resize", "Upsample",
      "DepthToSpace", "SpaceToDepth", "Range", "GatherElements", "ScatterND", "NonZero", "TopK", "Size"};
  std::string reason;
  if (pooling.count(op)) reason = "pooling: a window the post-processing unit does not compute";
  else if (activation.count(op))
    reason = "activation: not one the post-processing unit computes (it runs relu, clip, softmax, sigmoid, tanh, hard "
             "sigmoid, hard swish)";
  else if (elementwise.count(op))
    reason = "element-wise arithmetic: only a residual add of two tensors of one shape and a product of two tensors "
             "of one shape or by a (N, C, 1, 1) gate run beside the fabric";
  else if (normalisation.count(op))
    reason = "normalisation/reduction: only BatchNormalization (inference, constant parameters) runs";
  else if (layout.count(op)) reason = "data layout or shape computation that does not fold to a reshape";
  else if (op == "ConvInteger" || op == "QLinearConv" || op == "QLinearMatMul" || op == "MatMulInteger")
    reason = "not supported by this importer (a quantized model: export the float model, MAERI quantizes it)";
  else reason = "no MAERI mapping for this operator";
  return reason + kCut;
}

std::string list(const Dims& values) {
  std::string text;
  for (const std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

// Whether swapping two axes of these extents (a GEMM layer reads A as (K, M) where ONNX stores (M, K)) leaves the
// row-major element order unchanged: only when at most one of them is not 1.
bool same_order(const Dims& logical_order) {
  std::int64_t non_unit = 0;
  for (const std::int64_t dim : logical_order) non_unit += dim != 1;
  return non_unit <= 1;
}

class GraphReader {
 public:
  GraphReader(const std::string& path, onnx::ModelProto& model) : path_(path), model_(model) {
    for (const auto& import : model.opset_import())
      if (import.domain().empty() || import.domain() == "ai.onnx") opset_ = import.version();
  }

  OnnxImport read() {
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
        skip(name, node.op_type(), "operator of the custom domain '" + node.domain() + "'" + kCut);
        continue;
      }
      read_node(node, index, name);
    }
    if (network().layers.empty())
      throw util::InputError({path_, 0, 0}, "graph",
                             fmt::format("the model has no Conv, Gemm, MatMul, Einsum or recurrent node ({} nodes, "
                                         "none of them a layer)",
                                         graph.node_size()));
    return std::move(result_);
  }

 private:
  contracts::Network& network() { return result_.network; }

  [[noreturn]] void fail(const std::string& node, const std::string& problem) const {
    throw util::InputError({path_, 0, 0}, "node " + node, problem);
  }

  void skip(const std::string& name, const std::string& op, const std::string& reason) {
    result_.skipped.push_back({name, op, reason});
  }

  void check_utf8(const std::string& text, const std::string& field, const std::string& what) const {
    const std::size_t bad = util::first_invalid_utf8(text);
    if (bad != text.size())
      throw util::InputError({path_, 0, 0}, field,
                             fmt::format("{} is not valid UTF-8 text: byte 0x{:02x} at offset {}", what,
                                         static_cast<unsigned char>(text[bad]), bad));
  }

  void record(const onnx::ValueInfoProto& value) {
    if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
    Shape shape;
    for (const auto& dim : value.type().tensor_type().shape().dim())
      shape.push_back(dim.has_dim_value() ? Dimension{dim.dim_value(), ""} : Dimension{-1, dim.dim_param()});
    shapes_[value.name()] = shape;
  }

  // ---- shapes and constants of the ONNX graph ----

  std::optional<Dims> known_shape(const std::string& tensor) const {
    const auto found = shapes_.find(tensor);
    if (found == shapes_.end()) return std::nullopt;
    Dims dims;
    for (const Dimension& dim : found->second) {
      if (dim.value < 0) return std::nullopt;
      dims.push_back(dim.value);
    }
    return dims;
  }

  // The graph inputs that still have a dynamic dimension, for the message that says how to give their sizes.
  std::string dynamic_inputs() const {
    std::string text;
    for (const auto& input : model_.graph().input()) {
      if (initializers_.count(input.name()) || known_shape(input.name())) continue;
      std::string dims;
      const auto found = shapes_.find(input.name());
      if (found != shapes_.end())
        for (const Dimension& dim : found->second)
          dims += (dims.empty() ? "" : ",") + (dim.value >= 0 ? std::to_string(dim.value) : dim.symbol.empty() ? "?" : dim.symbol);
      text += fmt::format("{}{} [{}]", text.empty() ? "" : ", ", input.name(), dims);
    }
    return text;
  }

  // The node that leaves `tensor`'s shape unknown although its own inputs are known: what could not be folded.
  std::string unresolved_origin(const std::string& tensor) const {
    std::string current = tensor;
    for (int depth = 0; depth < model_.graph().node_size(); ++depth) {
      const onnx::NodeProto* producer = nullptr;
      int producer_index = 0;
      for (int i = 0; i < model_.graph().node_size() && !producer; ++i)
        for (const std::string& output : model_.graph().node(i).output())
          if (output == current) {
            producer = &model_.graph().node(i);
            producer_index = i;
          }
      if (!producer) return "";
      std::string unknown_input;
      for (const std::string& input : producer->input())
        if (!input.empty() && !known_shape(input)) unknown_input = input;
      if (unknown_input.empty()) {
        std::string runtime;
        for (const std::string& input : producer->input())
          if (!input.empty() && !initializers_.count(input) && input != producer->input(0)) runtime = input;
        return fmt::format(": node {} ({}) could not be folded or inferred{}", node_label(*producer, producer_index),
                           producer->op_type(),
                           runtime.empty() ? "" : fmt::format(" (its input '{}' is computed at run time)", runtime));
      }
      current = unknown_input;
    }
    return "";
  }

  // The fully known shape of input `index` of `node`, or an error naming the node, the tensor and what is unknown.
  Dims input_shape(const onnx::NodeProto& node, const std::string& name, int index, const char* role) const {
    if (index >= node.input_size() || node.input(index).empty())
      fail(name, fmt::format("{} has no {} (input {})", node.op_type(), role, index));
    const std::string& tensor = node.input(index);
    const auto found = shapes_.find(tensor);
    const std::string hint = dynamic_inputs().empty()
                                 ? ""
                                 : fmt::format("; give the sizes of the model's dynamic inputs ({}) with "
                                               "--input-shape NAME=d0,d1,… or --batch N",
                                               dynamic_inputs());
    if (found == shapes_.end())
      fail(name, fmt::format("the shape of its {} '{}' is unknown: shape inference could not resolve it{}{}", role,
                             tensor, unresolved_origin(tensor), hint));
    Dims shape;
    for (const Dimension& dim : found->second) {
      if (dim.value < 0)
        fail(name, fmt::format("its {} '{}' has the dynamic dimension '{}' that shape inference cannot resolve{}{}",
                               role, tensor, dim.symbol.empty() ? "?" : dim.symbol, unresolved_origin(tensor),
                               hint.empty() ? " (export the model with fixed input sizes)" : hint));
      shape.push_back(dim.value);
    }
    return shape;
  }

  // The values of a constant input (an initializer, after folding), or nullopt when it is computed at run time.
  std::optional<TensorValue> constant(const std::string& tensor) const {
    const auto found = initializers_.find(tensor);
    if (found == initializers_.end()) return std::nullopt;
    return tensor_value(model_.graph().initializer(found->second), path_, "initializer " + tensor);
  }

  static const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& key) {
    for (const auto& attribute : node.attribute())
      if (attribute.name() == key) return &attribute;
    return nullptr;
  }
  Dims ints(const onnx::NodeProto& node, const std::string& name, const std::string& key, Dims fallback) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return fallback;
    if (found->type() != onnx::AttributeProto_AttributeType_INTS)
      fail(name, fmt::format("attribute '{}': expected a list of integers (INTS)", key));
    return Dims(found->ints().begin(), found->ints().end());
  }
  std::int64_t integer(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                       std::int64_t fallback) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return fallback;
    if (found->type() != onnx::AttributeProto_AttributeType_INT)
      fail(name, fmt::format("attribute '{}': expected an integer (INT)", key));
    return found->i();
  }
  double real(const onnx::NodeProto& node, const std::string& name, const std::string& key, double fallback) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return fallback;
    if (found->type() != onnx::AttributeProto_AttributeType_FLOAT)
      fail(name, fmt::format("attribute '{}': expected a float (FLOAT)", key));
    return found->f();
  }
  std::string text(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                   const std::string& fallback) const {
    const onnx::AttributeProto* found = attribute(node, key);
    if (!found) return fallback;
    if (found->type() != onnx::AttributeProto_AttributeType_STRING)
      fail(name, fmt::format("attribute '{}': expected a string (STRING)", key));
    return found->s();
  }

  // ---- the Network being built ----

  std::string unique_tensor_name(const std::string& wanted) {
    std::string name = wanted;
    for (int copy = 2; tensor_names_.count(name); ++copy) name = fmt::format("{}#{}", wanted, copy);
    tensor_names_.insert(name);
    return name;
  }

  std::size_t add_tensor(const std::string& wanted, Dims shape, bool constant) {
    network().tensors.push_back({unique_tensor_name(wanted), std::move(shape), constant});
    return network().tensors.size() - 1;
  }

  std::size_t add_operator(const std::string& wanted, contracts::OperatorKind kind, std::vector<std::size_t> inputs,
                           std::size_t output) {
    contracts::Operator op;
    op.name = wanted;
    for (int copy = 2; operator_names_.count(op.name); ++copy) op.name = fmt::format("{}#{}", wanted, copy);
    operator_names_.insert(op.name);
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.outputs = {output};
    network().operators.push_back(std::move(op));
    return network().operators.size() - 1;
  }

  // The Network tensor holding ONNX tensor `name`: what an operator wrote, or a network input of its ONNX shape
  // (a graph input, or the output of a skipped node: the cut); nullopt when its shape is not known.
  std::optional<std::size_t> activation(const std::string& name) {
    const auto found = tensor_of_.find(name);
    if (found != tensor_of_.end()) return found->second;
    const auto shape = known_shape(name);
    if (!shape || initializers_.count(name)) return std::nullopt;
    const std::size_t tensor = add_tensor(name, *shape, false);
    tensor_of_[name] = tensor;
    return tensor;
  }

  // A Reshape operator from `tensor` to a new tensor `wanted` of `shape` (the same elements, row-major).
  std::size_t reshaped(std::size_t tensor, const std::string& wanted, const Dims& shape, const std::string& op_name) {
    if (network().tensors[tensor].shape == shape) return tensor;
    const std::size_t output = add_tensor(wanted, shape, false);
    add_operator(op_name, contracts::OperatorKind::Reshape, {tensor}, output);
    return output;
  }

  void note(const std::string& text) { result_.notes.push_back(text); }

  // A Pad operator `<layer>.pad` giving ONNX tensor `onnx_input`, read as `unpadded` (N, C, X, Y), the zero border
  // `border`: the Network tensor a layer then reads, or nullopt when the graph holds no such activation.
  std::optional<std::size_t> zero_bordered(const std::string& onnx_input, const Dims& unpadded,
                                           const contracts::PadBorder& border, const std::string& layer) {
    const auto input = activation(onnx_input);
    if (!input || network().tensors[*input].elements() != unpadded[0] * unpadded[1] * unpadded[2] * unpadded[3])
      return std::nullopt;
    const std::size_t rank4 = reshaped(*input, layer + ".input", unpadded, layer + ".reshape_input");
    const std::size_t output = add_tensor(layer + ".padded",
                                          {unpadded[0], unpadded[1], border.output_x(unpadded[2]),
                                           border.output_y(unpadded[3])},
                                          false);
    const std::size_t op = add_operator(layer + ".pad", contracts::OperatorKind::Pad, {rank4}, output);
    network().operators[op].pad = border;
    return output;
  }

  // ---- fabric layers ----

  // How a layer's activation, weights and output meet the ONNX tensors.
  struct LayerLinks {
    std::string input;         // ONNX tensor the layer reads ("" : a network input of its own)
    std::optional<std::size_t> input_tensor;  // or the Network tensor the importer made for it (a zero border)
    bool input_in_order = true;  // the ONNX tensor's elements, row-major, are the layer's input (N, C, X, Y)
    std::string output;        // ONNX tensor the layer writes ("" : none, its output is a network output)
    bool output_in_order = true;
    std::optional<std::string> weight_name;  // the constant's ONNX name when its values are given as they are
    std::optional<std::vector<double>> weights, bias;
    std::string cut_reason;    // why the input or output is not linked
  };

  void add_layer(const onnx::NodeProto& node, contracts::Layer layer, const std::string& name, LayerLinks links) {
    layer.name = name;
    auto violation = contracts::shape_violation(layer);
    if (!violation && layer.type == contracts::LayerType::Convolution)
      violation = contracts::workload_padding_violation(layer);
    if (violation)
      fail(name, fmt::format("the {} layer it gives is not valid: {}{}{}", node.op_type(), violation->field,
                             violation->field.empty() ? "" : ": ", violation->message));
    if (network().layers.size() == contracts::kMaxYamlSequenceLength)
      throw util::InputError({path_, 0, 0}, "graph",
                             fmt::format("more than {} fabric layers: more layers than a workload may list "
                                         "(kMaxYamlSequenceLength, docs/cli.md: Limits)",
                                         contracts::kMaxYamlSequenceLength));
    const Dims in_shape = contracts::input_shape(layer), out_shape = contracts::output_shape(layer);
    std::optional<std::size_t> input = links.input_tensor;
    if (!input && !links.input.empty() && links.input_in_order) {
      input = activation(links.input);
      if (input && network().tensors[*input].elements() == layer.N * layer.C * layer.X * layer.Y)
        input = reshaped(*input, name + ".input", in_shape, name + ".reshape_input");
      else
        input.reset();
    }
    if (!input) {
      input = add_tensor(name + ".input", in_shape, false);
      if (!links.input.empty())
        note(fmt::format("cut: layer {} reads '{}' in another order than (N, C, X, Y){}", name, links.input,
                         links.cut_reason.empty() ? "" : " (" + links.cut_reason + ")"));
    }
    const Dims w_shape = contracts::weight_shape(layer);
    std::size_t weights;
    if (links.weight_name && !tensor_of_.count(*links.weight_name)) {
      weights = add_tensor(*links.weight_name, w_shape, true);
      tensor_of_[*links.weight_name] = weights;
    } else if (links.weight_name && network().tensors[tensor_of_.at(*links.weight_name)].shape == w_shape) {
      weights = tensor_of_.at(*links.weight_name);  // shared by several layers
    } else {
      weights = add_tensor(name + ".weights", w_shape, true);
    }
    if (links.weights) result_.weights[network().tensors[weights].name] = std::move(*links.weights);
    std::vector<std::size_t> inputs = {*input, weights};
    if (links.bias) {
      const std::size_t bias = add_tensor(name + ".bias", {layer.K}, true);
      result_.weights[network().tensors[bias].name] = std::move(*links.bias);
      inputs.push_back(bias);
    }
    const auto onnx_shape = links.output.empty() ? std::nullopt : known_shape(links.output);
    const bool direct = onnx_shape && *onnx_shape == out_shape && !tensor_of_.count(links.output);
    const std::size_t output = add_tensor(direct ? links.output : name + ".output", out_shape, false);
    network().layers.push_back(layer);
    const std::size_t op = add_operator(name, contracts::OperatorKind::FabricLayer, inputs, output);
    network().operators[op].layer = network().layers.size() - 1;
    if (direct) {
      tensor_of_[links.output] = output;
    } else if (onnx_shape && links.output_in_order && !tensor_of_.count(links.output)) {
      const std::size_t onnx_tensor = add_tensor(links.output, *onnx_shape, false);
      add_operator(name + ".reshape_output", contracts::OperatorKind::Reshape, {output}, onnx_tensor);
      tensor_of_[links.output] = onnx_tensor;
    } else if (!links.output.empty()) {
      note(fmt::format("cut: layer {} writes its output in another order than '{}'{}", name, links.output,
                       links.cut_reason.empty() ? "" : " (" + links.cut_reason + ")"));
    }
  }

  // Float values of a constant input, or nullopt (computed at run time, or absent).
  std::optional<std::vector<double>> values(const onnx::NodeProto& node, int index) const {
    if (index >= node.input_size() || node.input(index).empty()) return std::nullopt;
    const auto value = constant(node.input(index));
    if (!value) return std::nullopt;
    std::vector<double> out;
    for (std::int64_t i = 0; i < value->elements(); ++i) out.push_back(value->real(std::size_t(i)));
    return out;
  }

  // Where a fabric layer's output channels (its K) are in the ONNX tensor it writes: a convolution's axis 1, a
  // Gemm's or MatMul's last axis (the columns of B).
  enum class ChannelAxis { Second, Last };

  // The nodes folded into a fabric layer's weights and bias (BatchNormalization, a constant per-channel Mul or Add),
  // in order, while each reads the previous one's output as its only reader; applied to `weights` (`channels` rows)
  // and `bias`. Returns the ONNX tensor the last one writes (what the layer's output stands for).
  std::string fold_into(int index, const std::string& layer, std::int64_t channels, ChannelAxis channel_axis,
                        std::vector<double>& weights, std::vector<double>& bias) {
    const onnx::GraphProto& graph = model_.graph();
    std::string output = graph.node(index).output(0);
    const std::size_t per_channel = weights.size() / std::size_t(channels);
    const auto axis_of_channels = [&](std::size_t rank) { return channel_axis == ChannelAxis::Second ? 1 : rank - 1; };
    for (;;) {
      const auto readers = readers_.find(output);
      if (graph_outputs_.count(output) || readers == readers_.end() || readers->second.size() != 1) return output;
      const int next = readers->second[0];
      const onnx::NodeProto& node = graph.node(next);
      const std::string name = node_label(node, next);
      if (!in_default_domain(node) || node.output_size() < 1) return output;
      // Per output channel: y = scale · conv + shift.
      std::vector<double> scale(std::size_t(channels), 1.0), shift(std::size_t(channels), 0.0);
      const auto per_channel_constant = [&](int input) -> std::optional<std::vector<double>> {
        const auto value = constant(node.input(input));
        const auto out_shape = known_shape(output);
        if (!value || !out_shape) return std::nullopt;
        // Broadcast against the output: every dimension but the channels' must be 1.
        const std::size_t rank = out_shape->size();
        if (value->dims.size() > rank) return std::nullopt;
        for (std::size_t i = 0; i < value->dims.size(); ++i) {
          const std::size_t axis = rank - value->dims.size() + i;
          if (value->dims[i] != 1 && !(axis == axis_of_channels(rank) && value->dims[i] == channels)) return std::nullopt;
        }
        std::vector<double> per(static_cast<std::size_t>(channels));
        for (std::int64_t k = 0; k < channels; ++k) per[k] = value->real(value->elements() == 1 ? 0 : std::size_t(k));
        return per;
      };
      if (node.op_type() == "BatchNormalization") {
        // BatchNormalization normalises axis 1: the layer's channels only where they are there.
        const auto out_shape = known_shape(output);
        if (node.input_size() != 5 || node.input(0) != output || !out_shape || out_shape->size() < 2 ||
            axis_of_channels(out_shape->size()) != 1)
          return output;
        const auto gamma = values(node, 1), beta = values(node, 2), mean = values(node, 3), variance = values(node, 4);
        if (!gamma || !beta || !mean || !variance || gamma->size() != std::size_t(channels) ||
            beta->size() != gamma->size() || mean->size() != gamma->size() || variance->size() != gamma->size())
          return output;
        if (integer(node, name, "training_mode", 0) != 0) return output;
        const double epsilon = real(node, name, "epsilon", 1e-5);
        for (std::size_t k = 0; k < scale.size(); ++k) {
          scale[k] = (*gamma)[k] / std::sqrt((*variance)[k] + epsilon);
          shift[k] = (*beta)[k] - (*mean)[k] * scale[k];
        }
      } else if (node.op_type() == "Mul" || node.op_type() == "Add") {
        if (node.input_size() != 2) return output;
        const int other = node.input(0) == output ? 1 : 0;
        if (node.input(1 - other) != output || node.input(other) == output) return output;
        const auto operand = per_channel_constant(other);
        if (!operand) return output;
        (node.op_type() == "Mul" ? scale : shift) = *operand;
      } else {
        return output;
      }
      for (std::size_t k = 0; k < scale.size(); ++k) {
        for (std::size_t i = 0; i < per_channel; ++i) weights[k * per_channel + i] *= scale[k];
        bias[k] = bias[k] * scale[k] + shift[k];
      }
      folded_nodes_.insert(next);
      note(fmt::format("folded {} {} into {}", node.op_type(), name, layer));
      output = node.output(0);
    }
  }

  // ---- reading one node ----

  void read_node(const onnx::NodeProto& node, int index, const std::string& name) {
    const std::string& op = node.op_type();
    if (op == "Conv") return convolution(node, index, name);
    if (op == "ConvTranspose") return transposed_convolution(node, name);
    if (op == "Gemm") return gemm(node, index, name);
    if (op == "MatMul") return matmul(node, index, name);
    if (op == "Einsum") return einsum(node, name);
    if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent(node, name);
    const std::string reason = post_operator(node, name);
    if (!reason.empty()) skip(name, op, reason);
  }

  // Pads [x1_begin, …, x1_end, …] from auto_pad / pads for `spatial` axes.
  Dims onnx_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in, const Dims& spans,
                 const Dims& strides) const {
    const std::size_t n = in.size();
    const std::string mode = text(node, name, "auto_pad", "NOTSET");
    Dims pads = ints(node, name, "pads", Dims(2 * n, 0));
    if (mode == "VALID") {
      pads.assign(2 * n, 0);
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      pads.assign(2 * n, 0);
      for (std::size_t axis = 0; axis < n; ++axis) {
        const std::int64_t outputs = util::ceil_div(in[axis], strides[axis]);
        const std::int64_t total = std::max<std::int64_t>(0, (outputs - 1) * strides[axis] + spans[axis] - in[axis]);
        const std::int64_t first = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
        pads[axis] = first;
        pads[axis + n] = total - first;
      }
    }
    if (pads.size() != 2 * n) fail(name, fmt::format("pads {}: expected {} values", list(pads), 2 * n));
    return pads;
  }

  // Pads from auto_pad / pads for `spatial` axes, symmetric per axis or an error (a pooling window's: a zero
  // border is not what max and average pools do with their padding).
  Dims symmetric_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in, const Dims& spans,
                      const Dims& strides) const {
    const std::size_t n = in.size();
    const std::string mode = text(node, name, "auto_pad", "NOTSET");
    const Dims pads = onnx_pads(node, name, in, spans, strides);
    for (std::size_t axis = 0; axis < n; ++axis)
      if (pads[axis] != pads[axis + n])
        fail(name, fmt::format("asymmetric pads {} (begin and end differ{}) are not supported: a pooling window "
                               "pads both sides of an axis alike",
                               list(pads), mode == "NOTSET" ? "" : ", from auto_pad " + mode));
    return Dims(pads.begin(), pads.begin() + std::ptrdiff_t(n));
  }

  // Conv: X [N, C, H, W], W [M, C/group, kH, kW]; H is the Layer's X (rows, R), W its Y (columns, S). A 1-D
  // convolution (X [N, C, L]) is one with Y = 1.
  void convolution(const onnx::NodeProto& node, int index, const std::string& name) {
    const Dims x = input_shape(node, name, 0, "input");
    const Dims w = input_shape(node, name, 1, "weight");
    if (x.size() != w.size() || (x.size() != 4 && x.size() != 3))
      fail(name, fmt::format("only 1-D and 2-D convolutions (3-D or 4-D input and weight) become layers; the input "
                             "has rank {}, the weight rank {}",
                             x.size(), w.size()));
    const std::size_t n = x.size() - 2;
    contracts::Layer layer;
    layer.type = contracts::LayerType::Convolution;
    layer.N = x[0];
    layer.C = x[1];
    layer.X = x[2];
    layer.Y = n == 2 ? x[3] : 1;
    layer.K = w[0];
    layer.R = w[2];
    layer.S = n == 2 ? w[3] : 1;
    layer.groups = integer(node, name, "group", 1);
    if (layer.groups < 1 || w[1] * layer.groups != layer.C)
      fail(name, fmt::format("group = {} with {} input channels needs weights of {} channels each, found {}",
                             layer.groups, layer.C, layer.groups > 0 ? layer.C / layer.groups : 0, w[1]));
    const Dims kernel = ints(node, name, "kernel_shape", Dims(w.begin() + 2, w.end()));
    if (kernel != Dims(w.begin() + 2, w.end()))
      fail(name, fmt::format("kernel_shape {} disagrees with the weight's {}", list(kernel), list(Dims(w.begin() + 2, w.end()))));
    const Dims strides = ints(node, name, "strides", Dims(n, 1));
    const Dims dilations = ints(node, name, "dilations", Dims(n, 1));
    if (strides.size() != n) fail(name, fmt::format("strides {}: expected {} values", list(strides), n));
    if (dilations.size() != n) fail(name, fmt::format("dilations {}: expected {} values", list(dilations), n));
    layer.stride_x = strides[0];
    layer.stride_y = n == 2 ? strides[1] : 1;
    layer.dilation_x = dilations[0];
    layer.dilation_y = n == 2 ? dilations[1] : 1;
    Dims spans = {layer.filter_span_x(), layer.filter_span_y()};
    spans.resize(n);
    const Dims pads = onnx_pads(node, name, Dims(x.begin() + 2, x.end()), spans, strides);
    // A Layer pads both sides of an axis alike: the common part is its padding, the excess (TensorFlow's SAME at
    // stride 2, explicit asymmetric pads) a zero border a Pad operator adds to its input.
    layer.padding_x = std::min(pads[0], pads[n]);
    layer.padding_y = n == 2 ? std::min(pads[1], pads[3]) : 0;
    const contracts::PadBorder border{pads[0] - layer.padding_x, pads[n] - layer.padding_x,
                                      n == 2 ? pads[1] - layer.padding_y : 0, n == 2 ? pads[3] - layer.padding_y : 0};
    const Dims unpadded = {layer.N, layer.C, layer.X, layer.Y};
    layer.X = border.output_x(layer.X);
    layer.Y = border.output_y(layer.Y);
    Dims expected = {layer.N, layer.K, layer.output_x(), layer.output_y()};
    expected.resize(x.size());
    check_output(node, name, expected);

    LayerLinks links;
    links.input = node.input(0);
    if (unpadded[2] != layer.X || unpadded[3] != layer.Y) {
      note(fmt::format("layer {}: pads {} as a zero border (x {}+{}, y {}+{}) before the convolution, which pads {}x{}",
                       name, list(pads), border.x_begin, border.x_end, border.y_begin, border.y_end,
                       layer.padding_x, layer.padding_y));
      links.input_tensor = zero_bordered(node.input(0), unpadded, border, name);
      links.input_in_order = false;  // when there is no activation to border, a network input of the padded shape
      links.cut_reason = "its input with the zero border of its asymmetric pads";
    }
    links.output = node.output(0);
    links.weights = values(node, 1);
    if (links.weights) {
      std::vector<double> bias = values(node, 2).value_or(std::vector<double>(std::size_t(layer.K), 0.0));
      if (bias.size() != std::size_t(layer.K))
        fail(name, fmt::format("its bias has {} values for {} output channels", bias.size(), layer.K));
      const std::size_t before = result_.notes.size();
      links.output = fold_into(index, name, layer.K, ChannelAxis::Second, *links.weights, bias);
      // Folded values are the layer's own; unfolded ones keep the initializer's name (the quantizer's key).
      if (result_.notes.size() == before) links.weight_name = node.input(1);
      if (node.input_size() > 2 || result_.notes.size() != before) links.bias = std::move(bias);
    } else {
      note(fmt::format("layer {}: its weights '{}' are computed at run time, not given as an initializer", name,
                       node.input(1)));
    }
    add_layer(node, layer, name, std::move(links));
  }

  // ConvTranspose: the convolution of the input with zeros inserted between its elements (stride − 1 per gap),
  // at stride 1, over the flipped kernel with its channels swapped. It reads dilation·(k − 1) − pad_begin zeros
  // before the input and dilation·(k − 1) − pad_end + output_padding after it: the layer pads both sides by the
  // smaller of the two, and the other side's excess zeros extend its input (a Pad operator at stride 1).
  void transposed_convolution(const onnx::NodeProto& node, const std::string& name) {
    const Dims x = input_shape(node, name, 0, "input");
    const Dims w = input_shape(node, name, 1, "weight");
    if (x.size() != 4 || w.size() != 4)
      fail(name, fmt::format("only 2-D ConvTranspose becomes a layer; the input has rank {}", x.size()));
    if (text(node, name, "auto_pad", "NOTSET") != "NOTSET")
      fail(name, "attribute auto_pad is not supported (the ONNX definition and runtimes split an odd SAME padding "
                 "differently): give pads instead");
    const Dims output_padding = ints(node, name, "output_padding", {0, 0});
    if (output_padding.size() != 2 || output_padding[0] < 0 || output_padding[1] < 0)
      fail(name, fmt::format("output_padding {}: expected two values of at least 0", list(output_padding)));
    const std::int64_t groups = integer(node, name, "group", 1);
    if (groups < 1 || w[0] != x[1] || w[0] % groups)
      fail(name, fmt::format("group = {} with {} input channels and weights of shape {}", groups, x[1], list(w)));
    const Dims strides = ints(node, name, "strides", {1, 1}), dilations = ints(node, name, "dilations", {1, 1});
    if (strides.size() != 2 || dilations.size() != 2) fail(name, "strides and dilations need two values each");
    const Dims spans = {dilations[0] * (w[2] - 1), dilations[1] * (w[3] - 1)};  // the dilated kernel's span − 1
    Dims pads = ints(node, name, "pads", {0, 0, 0, 0});
    if (pads.size() != 4) fail(name, fmt::format("pads {}: expected four values", list(pads)));
    if (attribute(node, "output_shape")) {
      // The pads that give output_shape, when the total per axis splits evenly: ONNX's definition puts an odd
      // one's extra zero at the beginning, onnxruntime at the end, so only explicit pads say which.
      Dims wanted = ints(node, name, "output_shape", {});
      if (wanted.size() == 4) wanted.erase(wanted.begin(), wanted.begin() + 2);
      if (wanted.size() != 2) fail(name, "attribute output_shape: expected the two spatial extents");
      for (std::size_t axis = 0; axis < 2; ++axis) {
        const std::int64_t total =
            strides[axis] * (x[2 + axis] - 1) + output_padding[axis] + spans[axis] + 1 - wanted[axis];
        if (total < 0 || total % 2 != 0)
          fail(name, fmt::format("output_shape {} is not equivalent to explicit pads: it needs a total padding of {} "
                                 "along axis {}, {}; give pads instead",
                                 list(wanted), total, axis + 2,
                                 total < 0 ? "less than 0" : "odd (runtimes put its extra zero on different sides)"));
        pads[axis] = pads[axis + 2] = total / 2;
      }
    }
    const std::int64_t before_x = spans[0] - pads[0], after_x = spans[0] - pads[2] + output_padding[0];
    const std::int64_t before_y = spans[1] - pads[1], after_y = spans[1] - pads[3] + output_padding[1];
    if (std::min({before_x, after_x, before_y, after_y}) < 0)
      fail(name, fmt::format("pads {} exceed the kernel's span: the equivalent convolution would crop its input",
                             list(pads)));
    contracts::Layer layer;
    layer.type = contracts::LayerType::Convolution;
    layer.N = x[0];
    layer.C = x[1];
    layer.K = w[1] * groups;
    layer.R = w[2];
    layer.S = w[3];
    layer.groups = groups;
    layer.dilation_x = dilations[0];
    layer.dilation_y = dilations[1];
    layer.padding_x = std::min(before_x, after_x);
    layer.padding_y = std::min(before_y, after_y);
    const contracts::PadBorder border{before_x - layer.padding_x, after_x - layer.padding_x,
                                      before_y - layer.padding_y, after_y - layer.padding_y};
    layer.X = border.output_x((x[2] - 1) * strides[0] + 1);
    layer.Y = border.output_y((x[3] - 1) * strides[1] + 1);
    check_output(node, name, {layer.N, layer.K, layer.output_x(), layer.output_y()});
    LayerLinks links;
    links.input = node.input(0);
    const bool zeros_inserted = strides[0] != 1 || strides[1] != 1;
    const bool bordered = border.output_x(x[2]) != x[2] || border.output_y(x[3]) != x[3];
    links.input_in_order = !zeros_inserted && !bordered;
    links.cut_reason = "the zero-inserted input of a transposed convolution";
    if (!zeros_inserted && bordered) links.input_tensor = zero_bordered(node.input(0), x, border, name);
    links.output = node.output(0);
    if (const auto weights = values(node, 1)) {
      // ONNX [C][K/g][R][S] → the layer's [K][C/g][R][S], flipped along R and S.
      const std::int64_t c_group = layer.C / groups, k_group = w[1];
      std::vector<double> flipped(weights->size());
      for (std::int64_t c = 0; c < layer.C; ++c)
        for (std::int64_t kg = 0; kg < k_group; ++kg)
          for (std::int64_t r = 0; r < layer.R; ++r)
            for (std::int64_t s = 0; s < layer.S; ++s) {
              const std::int64_t group = c / c_group, k = group * k_group + kg, cg = c % c_group;
              flipped[std::size_t(((k * c_group + cg) * layer.R + (layer.R - 1 - r)) * layer.S + (layer.S - 1 - s))] =
                  (*weights)[std::size_t(((c * k_group + kg) * layer.R + r) * layer.S + s)];
            }
      links.weights = std::move(flipped);
      if (const auto bias = values(node, 2)) links.bias = *bias;
    }
    note(fmt::format("layer {}: ConvTranspose as a convolution over its zero-inserted input ({}x{} → {}x{}{})", name,
                     x[2], x[3], layer.X, layer.Y,
                     bordered ? fmt::format(", with a zero border x {}+{}, y {}+{}", border.x_begin, border.x_end,
                                            border.y_begin, border.y_end)
                              : ""));
    add_layer(node, layer, name, std::move(links));
  }

  // Gemm: Y = alpha·A'·B' + beta·C with A' = A or Aᵀ (M×K) and B' = B or Bᵀ (K×N).
  void gemm(const onnx::NodeProto& node, int index, const std::string& name) {
    const Dims a = input_shape(node, name, 0, "input A");
    const Dims b = input_shape(node, name, 1, "input B");
    if (a.size() != 2 || b.size() != 2)
      fail(name, fmt::format("Gemm needs 2-D A and B, found ranks {} and {}", a.size(), b.size()));
    const bool transpose_a = integer(node, name, "transA", 0) != 0, transpose_b = integer(node, name, "transB", 0) != 0;
    const std::int64_t m = transpose_a ? a[1] : a[0], k = transpose_a ? a[0] : a[1];
    const std::int64_t k_b = transpose_b ? b[1] : b[0], n = transpose_b ? b[0] : b[1];
    if (k != k_b) fail(name, fmt::format("A' is {}x{} but B' is {}x{}", m, k, k_b, n));
    // A (M×K) row-major is the layer's input as (M, K, 1, 1): its rows are the batch, as a fully connected layer's
    // samples are (the mapper costs rows as batch and rows as X alike). A stored transposed (transA) is (1, K, M, 1):
    // its rows are the X.
    const bool rows_as_batch = !transpose_a && m <= contracts::kMaxBatch;
    const contracts::Layer layer = rows_as_batch ? contracts::gemm_layer(m, 1, k, n) : contracts::gemm_layer(1, m, k, n);
    LayerLinks links;
    links.input = node.input(0);
    links.input_in_order = rows_as_batch || transpose_a || same_order({m, k});
    links.output = node.output(0);
    links.output_in_order = rows_as_batch || same_order({m, n});
    links.cut_reason = fmt::format("more than {} rows of A (kMaxBatch): they are the layer's X, read as (1, K, M, 1)",
                                   contracts::kMaxBatch);
    const double alpha = real(node, name, "alpha", 1.0), beta = real(node, name, "beta", 1.0);
    if (auto weights = values(node, 1)) {
      std::vector<double> ordered(weights->size());  // the layer's [N][K]: Bᵀ
      for (std::int64_t row = 0; row < k; ++row)
        for (std::int64_t column = 0; column < n; ++column)
          ordered[std::size_t(column * k + row)] =
              alpha * (*weights)[std::size_t(transpose_b ? column * k + row : row * n + column)];
      if (transpose_b && alpha == 1.0) links.weight_name = node.input(1);
      links.weights = std::move(ordered);
    }
    if (node.input_size() > 2 && !node.input(2).empty()) {
      const auto c = constant(node.input(2));
      const bool per_column = c && (c->elements() == 1 || (c->elements() == n && (c->dims.size() == 1 || c->dims[0] == 1)));
      if (!per_column) {
        links.output = "";
        note(fmt::format("cut: layer {}: its C is not one bias per output column", name));
      } else {
        std::vector<double> bias(static_cast<std::size_t>(n));
        for (std::int64_t j = 0; j < n; ++j) bias[std::size_t(j)] = beta * c->real(c->elements() == 1 ? 0 : std::size_t(j));
        links.bias = std::move(bias);
      }
    }
    if (links.weights && !links.output.empty()) fold_after_product(index, name, n, links);
    add_layer(node, layer, name, std::move(links));
  }

  // A constant per-column Mul/Add (or BatchNormalization of a 2-D output) after a Gemm or MatMul with constant
  // weights folds into them as after a convolution.
  void fold_after_product(int index, const std::string& name, std::int64_t columns, LayerLinks& links) {
    std::vector<double> bias = links.bias.value_or(std::vector<double>(std::size_t(columns), 0.0));
    const std::size_t before = result_.notes.size();
    const std::string output = fold_into(index, name, columns, ChannelAxis::Last, *links.weights, bias);
    if (result_.notes.size() == before) return;
    links.output = output;
    links.weight_name.reset();  // the folded values are the layer's own
    links.bias = std::move(bias);
  }

  // MatMul (numpy semantics): [..., M, K] by [..., K, N]; the broadcast leading dimensions are the batch. With two
  // activation operands (attention's QKᵀ and AV) the second one streams through the fabric like weights.
  void matmul(const onnx::NodeProto& node, int index, const std::string& name) {
    Dims a = input_shape(node, name, 0, "input A");
    Dims b = input_shape(node, name, 1, "input B");
    if (a.empty() || b.empty()) fail(name, "MatMul of a scalar");
    if (a.size() == 1) a.insert(a.begin(), 1);  // a vector is one row
    if (b.size() == 1) b.push_back(1);          // … or one column
    const std::int64_t m = a[a.size() - 2], k = a.back(), k_b = b[b.size() - 2], n = b.back();
    if (k != k_b) fail(name, fmt::format("A is …x{}x{} but B is …x{}x{}", m, k, k_b, n));
    const std::int64_t batch = broadcast_batch(name, Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
    std::int64_t a_batch = 1;
    for (std::size_t i = 0; i + 2 < a.size(); ++i) a_batch *= a[i];
    std::int64_t b_batch = 1;
    for (std::size_t i = 0; i + 2 < b.size(); ++i) b_batch *= b[i];
    // One weight matrix for every row of A (B constant and not batched, B's leading dimensions all 1): A's rows,
    // over all its leading dimensions, are the layer's batch, so that the row-major A is its input (rows, K, 1, 1)
    // and its output the row-major Y — as Gemm's rows. Otherwise A's rows are the X of each batch position.
    const bool shared_weights = b_batch == 1 && (constant(node.input(1)) || initializers_.count(node.input(1)));
    const bool rows_as_batch = shared_weights && a_batch == batch && m <= contracts::kMaxBatch / batch;
    const contracts::Layer layer =
        rows_as_batch ? contracts::gemm_layer(batch * m, 1, k, n) : contracts::gemm_layer(batch, m, k, n);
    LayerLinks links;
    links.input = node.input(0);
    links.input_in_order = rows_as_batch || (a_batch == batch && same_order({m, k}));
    links.output = node.output(0);
    links.output_in_order = rows_as_batch || same_order({m, n});
    links.cut_reason = shared_weights ? fmt::format("more than {} rows of A in all (kMaxBatch): each batch position's "
                                                    "rows are the layer's X, read as (batch, K, M, 1)",
                                                    contracts::kMaxBatch)
                                      : "a GEMM layer of two activations reads A as (batch, K, M, 1): its rows are the X";
    const auto transposed_slice = [&](const std::vector<double>& values, std::int64_t slice) {
      std::vector<double> ordered(std::size_t(k * n));  // the layer's (N, K): Bᵀ
      for (std::int64_t row = 0; row < k; ++row)
        for (std::int64_t column = 0; column < n; ++column)
          ordered[std::size_t(column * k + row)] = values[std::size_t((slice * k + row) * n + column)];
      return ordered;
    };
    const auto weights = values(node, 1);
    if (weights && b_batch > 1)
      return batched_constant_product(node, name, *weights, b_batch, batch, m, k, n, a_batch, transposed_slice);
    if (weights) {
      links.weights = transposed_slice(*weights, 0);
      fold_after_product(index, name, n, links);
    } else if (!initializers_.count(node.input(1))) {
      note(fmt::format("layer {}: its second operand '{}' is an activation, streamed like weights (a network input "
                       "of the layer's weight shape: the contract's weights have no batch)",
                       name, node.input(1)));
    }
    add_layer(node, layer, name, std::move(links));
  }

  // A MatMul whose constant B holds a different K×N matrix per batch position (per head): the contract's weights
  // have no batch, so it becomes one GEMM layer per slice of B, `NAME.slice<i>`, of the batch positions that read
  // that slice, each with its own weights; their inputs and outputs are network tensors of their own (A is read
  // as it is only when every slice reads all of it).
  template <typename Slice>
  void batched_constant_product(const onnx::NodeProto& node, const std::string& name, const std::vector<double>& b,
                                std::int64_t slices, std::int64_t batch, std::int64_t m, std::int64_t k,
                                std::int64_t n, std::int64_t a_batch, const Slice& transposed_slice) {
    if (slices > std::int64_t(contracts::kMaxYamlSequenceLength))
      fail(name, fmt::format("its constant B holds {} matrices: one layer each is more than a workload may list ({})",
                             slices, contracts::kMaxYamlSequenceLength));
    for (std::int64_t slice = 0; slice < slices; ++slice) {
      LayerLinks links;
      links.input = node.input(0);
      links.input_in_order = a_batch == 1 && same_order({m, k});
      links.output = node.output(0);
      links.output_in_order = false;
      links.cut_reason = "one layer per matrix of a batched constant B";
      links.weights = transposed_slice(b, slice);
      const std::string layer_name = fmt::format("{}.slice{}", name, slice);
      node_names_.insert(layer_name);
      add_layer(node, contracts::gemm_layer(batch / slices, m, k, n), layer_name, std::move(links));
    }
    note(fmt::format("layer {}: its constant B holds {} matrices of {}x{}: one GEMM layer per matrix ({}.slice0 …)",
                     name, slices, k, n, name));
  }

  std::int64_t broadcast_batch(const std::string& name, const Dims& a, const Dims& b) const {
    std::int64_t batch = 1;
    const std::size_t leading = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < leading; ++i) {
      const std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
      const std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
      if (da != db && da != 1 && db != 1) fail(name, fmt::format("batch dimensions {} and {} do not broadcast", da, db));
      const std::int64_t broadcast = da == 1 ? db : da;  // 1 stretches to the other, 0 stays 0
      if (broadcast == 0) fail(name, "a batch dimension of 0: an empty product, no multiply-accumulates to map");
      // Compared before multiplying: the product of two dimensions may not fit int64.
      if (broadcast > contracts::kMaxBatch / batch)
        fail(name, fmt::format("a batch of more than {} products (the Layer's limit)", contracts::kMaxBatch));
      batch *= broadcast;
    }
    return batch;
  }

  // Einsum of two operands that is a batched matrix product: the letters of both operands and the output are the
  // batch, those of the first operand and the output M, of the second and the output N, of both operands only K.
  void einsum(const onnx::NodeProto& node, const std::string& name) {
    std::string equation = text(node, name, "equation", "");
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    const std::size_t comma = equation.find(','), arrow = equation.find("->");
    if (node.input_size() != 2 || comma == std::string::npos || arrow == std::string::npos || arrow < comma ||
        equation.find("...") != std::string::npos)
      fail(name, fmt::format("attribute 'equation': '{}' is not a product of two operands with an explicit output "
                             "('bhqd,bhkd->bhqk'); only those become layers",
                             equation));
    const std::string left = equation.substr(0, comma), right = equation.substr(comma + 1, arrow - comma - 1),
                      out = equation.substr(arrow + 2);
    const Dims a = input_shape(node, name, 0, "input A"), b = input_shape(node, name, 1, "input B");
    if (a.size() != left.size() || b.size() != right.size())
      fail(name, fmt::format("attribute 'equation': '{}' does not match operands of ranks {} and {}", equation,
                             a.size(), b.size()));
    std::int64_t batch = 1, m = 1, k = 1, n = 1;
    std::set<char> seen;
    const auto extent = [&](char letter) {
      const std::size_t in_a = left.find(letter);
      return in_a != std::string::npos ? a[in_a] : b[right.find(letter)];
    };
    for (const char letter : left + right) {
      if (!seen.insert(letter).second) continue;
      const bool in_a = left.find(letter) != std::string::npos, in_b = right.find(letter) != std::string::npos,
                 in_out = out.find(letter) != std::string::npos;
      if (in_a && in_b && in_out) batch *= extent(letter);
      else if (in_a && in_b) k *= extent(letter);
      else if (in_a && in_out) m *= extent(letter);
      else if (in_b && in_out) n *= extent(letter);
      else fail(name, fmt::format("attribute 'equation': '{}' sums '{}' over one operand only", equation, letter));
    }
    if (batch > contracts::kMaxBatch) fail(name, fmt::format("a batch of {} products (more than the Layer's {})", batch, contracts::kMaxBatch));
    LayerLinks links;
    links.input = node.input(0);
    links.input_in_order = false;
    links.cut_reason = "an Einsum's operands are read in the equation's order";
    links.output = node.output(0);
    links.output_in_order = false;
    if (const auto weights = values(node, 1)) {
      links.weights = einsum_weights(right, left, out, b, *weights);
      if (!links.weights)
        note(fmt::format("layer {}: its constant second operand varies over the batch letters or repeats a letter: no "
                         "weights given",
                         name));
    }
    add_layer(node, contracts::gemm_layer(batch, m, k, n), name, std::move(links));
  }

  // Einsum's constant second operand as the layer's weights (N, K): N's letters (second operand and output) in the
  // second operand's order, K's (both operands only) in the first operand's, row-major; nullopt when the operand
  // has a batch letter (one matrix per batch position) or a letter twice.
  static std::optional<std::vector<double>> einsum_weights(const std::string& right, const std::string& left,
                                                           const std::string& out, const Dims& b,
                                                           const std::vector<double>& values) {
    std::string n_letters, k_letters;
    for (const char letter : right) {
      if (std::count(right.begin(), right.end(), letter) != 1 ||
          (left.find(letter) != std::string::npos && out.find(letter) != std::string::npos))
        return std::nullopt;
      if (out.find(letter) != std::string::npos) n_letters += letter;
    }
    for (const char letter : left)
      if (right.find(letter) != std::string::npos && out.find(letter) == std::string::npos &&
          k_letters.find(letter) == std::string::npos)
        k_letters += letter;
    const Dims strides = [&] {
      Dims result(b.size(), 1);
      for (std::size_t i = b.size(); i-- > 1;) result[i - 1] = result[i] * b[i];
      return result;
    }();
    // The offset in B of each row-major index over `letters`, letter by letter.
    const auto offsets = [&](const std::string& letters) {
      std::vector<std::int64_t> result = {0};
      for (const char letter : letters) {
        const std::size_t axis = right.find(letter);
        std::vector<std::int64_t> next;
        for (const std::int64_t base : result)
          for (std::int64_t i = 0; i < b[axis]; ++i) next.push_back(base + i * strides[axis]);
        result = std::move(next);
      }
      return result;
    };
    std::vector<double> weights;
    weights.reserve(values.size());
    for (const std::int64_t row : offsets(n_letters))
      for (const std::int64_t column : offsets(k_letters)) weights.push_back(values[std::size_t(row + column)]);
    return weights;
  }

  // LSTM, GRU, RNN: per direction and time step, the input product x_t·Wᵀ and the recurrent product h_{t−1}·Rᵀ as
  // GEMM layers of (batch) rows; the gates (sigmoid, tanh, element-wise products) run beside the fabric and are
  // not operators of the contract, so the unrolled layers read and write network tensors of their own.
  void recurrent(const onnx::NodeProto& node, const std::string& name) {
    const std::string& op = node.op_type();
    const std::int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    const Dims w = input_shape(node, name, 1, "weight W");
    const std::int64_t layout = integer(node, name, "layout", 0);
    if (layout != 0 && layout != 1) fail(name, fmt::format("attribute 'layout': expected 0 or 1, found {}", layout));
    if (node.input_size() < 1 || node.input(0).empty()) fail(name, fmt::format("{} has no input X", op));
    const auto x_found = shapes_.find(node.input(0));
    if (x_found == shapes_.end() || x_found->second.size() != 3)
      fail(name, fmt::format("the shape of its input X '{}' is unknown or not 3-D", node.input(0)));
    const Dimension& sequence = x_found->second[std::size_t(layout)];
    if (sequence.value < 0)
      fail(name, fmt::format("the sequence length (dimension {} of its input X '{}', '{}') is dynamic: give it with "
                             "--input-shape NAME=d0,d1,d2 on the model's input it comes from{}",
                             layout, node.input(0), sequence.symbol.empty() ? "?" : sequence.symbol,
                             dynamic_inputs().empty() ? "" : " (dynamic inputs: " + dynamic_inputs() + ")"));
    const Dims x = input_shape(node, name, 0, "input X");
    const std::int64_t steps = x[std::size_t(layout)], batch = x[std::size_t(1 - layout)], features = x[2];
    const std::int64_t hidden = integer(node, name, "hidden_size", w.size() == 3 ? w[1] / gates : 0);
    const std::string direction = text(node, name, "direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
      fail(name, fmt::format("attribute 'direction': expected forward, reverse or bidirectional, found '{}'", direction));
    const std::int64_t directions = direction == "bidirectional" ? 2 : 1;
    if (w.size() != 3 || w[0] != directions || w[1] != gates * hidden || w[2] != features || hidden < 1)
      fail(name, fmt::format("W has shape {}, expected [{}, {}, {}] (directions, {}·hidden_size, input size)", list(w),
                             directions, gates * hidden, features, gates));
    if (steps < 1) fail(name, "a sequence of length 0");
    if (steps * directions * 2 > std::int64_t(contracts::kMaxYamlSequenceLength))
      fail(name, fmt::format("{} time steps × {} directions unroll into more layers than a workload may list ({})",
                             steps, directions, contracts::kMaxYamlSequenceLength));
    const auto w_values = values(node, 1), r_values = values(node, 2), b_values = values(node, 3);
    const std::int64_t rows = gates * hidden;
    for (std::int64_t d = 0; d < directions; ++d) {
      const bool backwards = direction == "reverse" || d == 1;
      for (std::int64_t t = 0; t < steps; ++t) {
        const std::string step = fmt::format("{}{}.t{}", name, directions == 2 ? (d ? ".backward" : ".forward") : "",
                                             backwards ? steps - 1 - t : t);
        for (const bool input_product : {true, false}) {
          const std::int64_t reduction = input_product ? features : hidden;
          LayerLinks links;
          const auto& source = input_product ? w_values : r_values;
          if (source) {
            const std::size_t offset = std::size_t(d * rows * reduction);
            links.weights = std::vector<double>(source->begin() + std::ptrdiff_t(offset),
                                                source->begin() + std::ptrdiff_t(offset + std::size_t(rows * reduction)));
          }
          if (b_values) {
            const std::size_t offset = std::size_t(d * 2 * rows + (input_product ? 0 : rows));
            links.bias = std::vector<double>(b_values->begin() + std::ptrdiff_t(offset),
                                             b_values->begin() + std::ptrdiff_t(offset + std::size_t(rows)));
          }
          const std::string layer_name = step + (input_product ? ".input" : ".recurrent");
          node_names_.insert(layer_name);
          add_layer(node, contracts::gemm_layer(1, batch, reduction, rows), layer_name, std::move(links));
        }
      }
    }
    note(fmt::format("layer {}: {} unrolled over {} time steps{} into {} GEMM layers; its gates run beside the "
                     "fabric, its outputs are network inputs of the layers after it",
                     name, op, steps, directions == 2 ? " in both directions" : "", steps * directions * 2));
  }

  // ---- the operators beside the fabric ----

  // Adds the node as an operator of the post-processing unit (or an alias for a no-op); returns "" when it did,
  // the reason it is skipped otherwise.
  std::string post_operator(const onnx::NodeProto& node, const std::string& name) {
    const std::string& op = node.op_type();
    if (node.output_size() < 1 || node.output(0).empty()) return skip_reason(op);
    const std::string& out = node.output(0);
    if (op == "Identity" || op == "Dropout") {
      const auto input = node.input_size() > 0 ? activation(node.input(0)) : std::nullopt;
      if (!input) return skip_reason(op);
      tensor_of_[out] = *input;  // the same values: no operator
      return "";
    }
    const auto out_shape = known_shape(out);
    if (!out_shape) return "its output's shape is unknown" + std::string(kCut);
    std::vector<std::size_t> inputs;
    const auto take_inputs = [&](int count) {
      for (int i = 0; i < count; ++i) {
        if (i >= node.input_size() || initializers_.count(node.input(i))) return false;
        const auto tensor = activation(node.input(i));
        if (!tensor) return false;
        inputs.push_back(*tensor);
      }
      return true;
    };
    const auto emit = [&](contracts::OperatorKind kind) {
      const std::size_t output = add_tensor(out, *out_shape, false);
      tensor_of_[out] = output;
      return add_operator(name, kind, inputs, output);
    };
    const std::size_t rank = out_shape->size();
    if (op == "Relu") {
      if (!take_inputs(1)) return skip_reason(op);
      emit(contracts::OperatorKind::Relu);
      return "";
    }
    if (op == "Clip") {
      std::optional<double> low, high;
      if (opset_ < 11) {
        if (attribute(node, "min")) low = real(node, name, "min", 0);
        if (attribute(node, "max")) high = real(node, name, "max", 0);
      } else {
        for (int i = 1; i < 3 && i < node.input_size(); ++i) {
          if (node.input(i).empty()) continue;
          const auto bound = constant(node.input(i));
          if (!bound || bound->elements() != 1) return "clip: its bounds are not constant scalars" + std::string(kCut);
          (i == 1 ? low : high) = bound->real(0);
        }
      }
      if (!take_inputs(1)) return skip_reason(op);
      if (low && *low == 0 && !high) {
        emit(contracts::OperatorKind::Relu);
        return "";
      }
      if (!low || !high || !(*low <= *high) || !std::isfinite(*low) || !std::isfinite(*high))
        return "clip: only bounds given on both sides become a clip (ReLU6)" + std::string(kCut);
      const std::size_t index = emit(contracts::OperatorKind::Clip);
      network().operators[index].clip_min = *low;
      network().operators[index].clip_max = *high;
      return "";
    }
    if (op == "MaxPool" || op == "AveragePool" || op == "GlobalMaxPool") return pool(node, name, inputs, take_inputs, emit);
    if (op == "GlobalAveragePool") {
      if (rank != 4 || !take_inputs(1)) return skip_reason(op);
      emit(contracts::OperatorKind::GlobalAveragePool);
      return "";
    }
    if (op == "BatchNormalization") return batch_normalization(node, name, *out_shape, inputs, emit);
    if (op == "Mul" || op == "Add")
      if (const auto reason = constant_per_channel(node, name, *out_shape, inputs, emit)) return *reason;
    if (op == "Add" || op == "Sum") {
      if (node.input_size() != 2) return "element-wise sum of other than two tensors" + std::string(kCut);
      for (const std::string& input : node.input())
        if (initializers_.count(input))
          return "element-wise arithmetic: an add of a constant that is not one value per channel" + std::string(kCut);
      const auto a = known_shape(node.input(0)), b = known_shape(node.input(1));
      if (!a || a != b) return "element-wise arithmetic: an add of two tensors of different shapes (broadcast)" + std::string(kCut);
      if (!take_inputs(2)) return skip_reason(op);
      emit(contracts::OperatorKind::Add);
      return "";
    }
    if (op == "Concat") {
      const std::int64_t axis = integer(node, name, "axis", 1);
      if (axis < -std::int64_t(rank) || axis >= std::int64_t(rank))
        fail(name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
      if (!take_inputs(node.input_size())) return "concat of a constant or of a tensor of unknown shape" + std::string(kCut);
      const std::size_t index = emit(contracts::OperatorKind::Concat);
      network().operators[index].axis = axis < 0 ? axis + std::int64_t(rank) : axis;
      return "";
    }
    if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") {
      if (!take_inputs(1)) return skip_reason(op);
      emit(contracts::OperatorKind::Reshape);
      return "";
    }
    if (op == "Transpose") return transpose(node, name, *out_shape, inputs, take_inputs, emit);
    if (op == "Softmax") {
      std::int64_t axis = integer(node, name, "axis", opset_ >= 13 ? -1 : 1);
      if (axis < -std::int64_t(rank) || axis >= std::int64_t(rank))
        fail(name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
      if (axis < 0) axis += std::int64_t(rank);
      // Before opset 13 the axis flattens the dimensions after it: the same as axis 1 only on rank 2.
      if (axis != 1 || (opset_ < 13 && rank != 2))
        return "activation: a softmax along another axis than 1 (channels / classes)" + std::string(kCut);
      if (!take_inputs(1)) return skip_reason(op);
      emit(contracts::OperatorKind::Softmax);
      return "";
    }
    if (op == "Pad") return pad(node, name, take_inputs, emit);
    if (op == "Sigmoid" || op == "Tanh") {
      if (!take_inputs(1)) return skip_reason(op);
      emit(op == "Sigmoid" ? contracts::OperatorKind::Sigmoid : contracts::OperatorKind::Tanh);
      return "";
    }
    if (op == "HardSigmoid" || op == "HardSwish") return hard_gate(node, name, *out_shape, inputs, take_inputs, emit);
    if (op == "Mul") return product(node, inputs, take_inputs, emit);
    return skip_reason(op);
  }

  // HardSigmoid runs as it is; HardSwish (opset 14: x · HardSigmoid(x) with alpha 1/6, beta 0.5) as a hard sigmoid
  // `NODE` writing `NODE.gate` and a mul `NODE.mul` of the input by it.
  template <typename Take, typename Emit>
  std::string hard_gate(const onnx::NodeProto& node, const std::string& name, const Dims& out_shape,
                        std::vector<std::size_t>& inputs, const Take& take_inputs, const Emit& emit) {
    const std::string& op = node.op_type();
    const bool swish = op == "HardSwish";
    const double alpha = swish ? 1.0 / 6 : real(node, name, "alpha", 0.2);
    const double beta = swish ? 0.5 : real(node, name, "beta", 0.5);
    if (!std::isfinite(alpha) || !std::isfinite(beta))
      fail(name, fmt::format("attributes 'alpha' {} and 'beta' {}: both must be finite", alpha, beta));
    if (!take_inputs(1)) return skip_reason(op);
    std::size_t gate;
    if (swish) {
      const std::size_t gated = add_tensor(name + ".gate", out_shape, false);
      gate = add_operator(name, contracts::OperatorKind::HardSigmoid, {inputs[0]}, gated);
      const std::size_t output = add_tensor(node.output(0), out_shape, false);
      tensor_of_[node.output(0)] = output;
      add_operator(name + ".mul", contracts::OperatorKind::Mul, {inputs[0], gated}, output);
    } else {
      gate = emit(contracts::OperatorKind::HardSigmoid);
    }
    network().operators[gate].hard_sigmoid_alpha = alpha;
    network().operators[gate].hard_sigmoid_beta = beta;
    return "";
  }

  // A product of two activations of one shape, or of (N, C, X, Y) by a (N, C, 1, 1) gate (squeeze-and-excitation,
  // either operand order; the gate becomes the mul's second input). A product with a constant folds into the layer
  // before it (fold_into) or is skipped.
  template <typename Take, typename Emit>
  std::string product(const onnx::NodeProto& node, std::vector<std::size_t>& inputs,
                      const Take& take_inputs, const Emit& emit) {
    if (node.input_size() != 2) return skip_reason("Mul");
    for (const std::string& input : node.input())
      if (initializers_.count(input))
        return "element-wise arithmetic: a product with a constant not right after a convolution" + std::string(kCut);
    const auto a = known_shape(node.input(0)), b = known_shape(node.input(1));
    if (!a || !b || (*a != *b && !contracts::is_se_gate(*a, *b) && !contracts::is_se_gate(*b, *a)))
      return "element-wise arithmetic: a product broadcast otherwise than by a (N, C, 1, 1) gate" + std::string(kCut);
    if (!take_inputs(2)) return skip_reason("Mul");
    if (*a != *b && contracts::is_se_gate(*b, *a)) std::swap(inputs[0], inputs[1]);
    emit(contracts::OperatorKind::Mul);
    return "";
  }

  // Pad of mode "constant" with the value 0 (or none), only on the spatial axes 2 and 3 of a rank-4 tensor, by at
  // least 0: `pads` an attribute before opset 11 (`paddings` at opset 1), a constant input from 11 on, with the
  // `axes` input of opset 18. Other pads are skipped with the reason.
  template <typename Take, typename Emit>
  std::string pad(const onnx::NodeProto& node, const std::string& name, const Take& take_inputs, const Emit& emit) {
    const std::string cut = kCut;
    const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
    if (!x || x->size() != 4) return "pad: only a rank-4 (N, C, H, W) tensor gets a border beside the fabric" + cut;
    const std::string mode = text(node, name, "mode", "constant");
    if (mode != "constant")
      return fmt::format("pad: mode '{}' (only \"constant\" zeros are a border the unit writes)", mode) + cut;
    Dims pads;
    std::optional<double> value;
    Dims axes = {0, 1, 2, 3};
    if (opset_ < 11) {
      pads = ints(node, name, opset_ < 2 ? "paddings" : "pads", {});
      if (attribute(node, "value")) value = real(node, name, "value", 0);
    } else {
      const auto given = node.input_size() > 1 ? constant(node.input(1)) : std::nullopt;
      if (!given || !given->integral()) return "pad: its pads are not a constant list of integers" + cut;
      pads = given->integers;
      if (node.input_size() > 2 && !node.input(2).empty()) {
        const auto constant_value = constant(node.input(2));
        if (!constant_value || constant_value->elements() != 1) return "pad: its value is not a constant scalar" + cut;
        value = constant_value->real(0);
      }
      if (node.input_size() > 3 && !node.input(3).empty()) {
        const auto given_axes = constant(node.input(3));
        if (!given_axes || !given_axes->integral()) return "pad: its axes are not a constant list of integers" + cut;
        axes = given_axes->integers;
        for (std::int64_t& axis : axes) {
          if (axis < -4 || axis > 3) fail(name, fmt::format("input 'axes': {} is out of range for rank 4", axis));
          if (axis < 0) axis += 4;
        }
      }
    }
    if (pads.size() != 2 * axes.size())
      fail(name, fmt::format("pads {}: expected {} values (a begin and an end per axis)", list(pads), 2 * axes.size()));
    if (value && *value != 0) return fmt::format("pad: the value {} (only zeros are a border the unit writes)", *value) + cut;
    contracts::PadBorder border;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const std::int64_t begin = pads[i], end = pads[i + axes.size()];
      if (begin < 0 || end < 0) return fmt::format("pad: negative pads {} (a crop)", list(pads)) + cut;
      if (axes[i] < 2 && (begin != 0 || end != 0))
        return fmt::format("pad: pads {} on the batch or channel axis (the unit pads X and Y)", list(pads)) + cut;
      if (axes[i] == 2) border.x_begin = begin, border.x_end = end;
      if (axes[i] == 3) border.y_begin = begin, border.y_end = end;
    }
    const auto out = known_shape(node.output(0));
    if (!out || *out != Dims{(*x)[0], (*x)[1], border.output_x((*x)[2]), border.output_y((*x)[3])})
      fail(name, "ONNX infers another output shape than the pads give");
    if (!take_inputs(1)) return skip_reason("Pad");
    network().operators[emit(contracts::OperatorKind::Pad)].pad = border;
    return "";
  }

  // 2-D pooling (rank 4) runs as it is; 1-D pooling (rank 3, [N, C, L], as after a 1-D convolution) runs as 2-D
  // pooling with Y = 1 between two reshapes (`NODE.reshape_input`, `NODE.reshape_output`), as a 1-D convolution does.
  template <typename Take, typename Emit>
  std::string pool(const onnx::NodeProto& node, const std::string& name, std::vector<std::size_t>& inputs,
                   const Take& take_inputs, const Emit& emit) {
    const std::string& op = node.op_type();
    if (node.input_size() < 1) return skip_reason(op);
    const auto x = known_shape(node.input(0));
    if (!x || (x->size() != 4 && x->size() != 3))
      return "pooling: only 1-D and 2-D pooling (rank 3 or 4) runs beside the fabric" + std::string(kCut);
    if (node.output_size() > 1 && !node.output(1).empty()) return "pooling: the indices output of MaxPool" + std::string(kCut);
    const std::size_t axes = x->size() - 2;
    const Dims extents(x->begin() + 2, x->end());
    contracts::PoolWindow window;
    if (op == "GlobalMaxPool") {
      window.size_x = extents[0];
      window.size_y = axes == 2 ? extents[1] : 1;
    } else {
      const Dims kernel = ints(node, name, "kernel_shape", {});
      const std::string count = axes == 2 ? "two values" : "one value";
      if (kernel.size() != axes)
        fail(name, fmt::format("attribute 'kernel_shape': expected {}, found {}", count, list(kernel)));
      const Dims strides = ints(node, name, "strides", Dims(axes, 1));
      const Dims dilations = ints(node, name, "dilations", Dims(axes, 1));
      if (strides.size() != axes)
        fail(name, fmt::format("attribute 'strides': expected {}, found {}", count, list(strides)));
      if (dilations != Dims(axes, 1)) return "pooling: a dilated window" + std::string(kCut);
      if (integer(node, name, "ceil_mode", 0) != 0) return "pooling: ceil_mode 1 (the unit rounds output sizes down)" + std::string(kCut);
      const Dims pads = symmetric_pads(node, name, extents, kernel, strides);
      if (op == "AveragePool" && integer(node, name, "count_include_pad", 0) != 0 &&
          std::any_of(pads.begin(), pads.end(), [](std::int64_t pad) { return pad != 0; }))
        return "pooling: an average that counts the padding (count_include_pad 1)" + std::string(kCut);
      window.size_x = kernel[0];
      window.stride_x = strides[0];
      window.padding_x = pads[0];
      if (axes == 2) {
        window.size_y = kernel[1];
        window.stride_y = strides[1];
        window.padding_y = pads[1];
      }
    }
    const Dims pooled4 = {(*x)[0], (*x)[1], window.output_x(extents[0]), window.output_y(axes == 2 ? extents[1] : 1)};
    const Dims expected = axes == 2 ? pooled4 : Dims{pooled4[0], pooled4[1], pooled4[2]};
    const auto out = known_shape(node.output(0));
    if (!out || *out != expected) fail(name, "ONNX infers another output shape than the pooling window gives");
    if (!take_inputs(1)) return skip_reason(op);
    const contracts::OperatorKind kind = op == "AveragePool" ? contracts::OperatorKind::AveragePool : contracts::OperatorKind::MaxPool;
    std::size_t index;
    if (axes == 2) {
      index = emit(kind);
    } else {
      const std::size_t input = reshaped(inputs[0], name + ".input", {(*x)[0], (*x)[1], extents[0], 1}, name + ".reshape_input");
      const std::size_t pooled = add_tensor(name + ".output", pooled4, false);
      index = add_operator(name, kind, {input}, pooled);
      const std::size_t output = add_tensor(node.output(0), *out, false);
      add_operator(name + ".reshape_output", contracts::OperatorKind::Reshape, {pooled}, output);
      tensor_of_[node.output(0)] = output;
    }
    network().operators[index].pool = window;
    return "";
  }

  // y = x·scale[c] + shift[c] along axis 1 of a rank-2 or rank-4 ONNX tensor `x`, as a channel affine reading the
  // constants NAME.scale and NAME.shift, whose values join the weights; the skip reason when x is none.
  template <typename Emit>
  std::string channel_affine(const std::string& name, const std::string& x, std::vector<std::size_t>& inputs,
                             const Emit& emit, std::vector<double> scale, std::vector<double> shift) {
    const auto activation_tensor = activation(x);
    if (!activation_tensor) return "its input is a constant or of unknown shape" + std::string(kCut);
    const std::int64_t channels = std::int64_t(scale.size());
    const std::size_t scale_tensor = add_tensor(name + ".scale", {channels}, true);
    const std::size_t shift_tensor = add_tensor(name + ".shift", {channels}, true);
    result_.weights[network().tensors[scale_tensor].name] = std::move(scale);
    result_.weights[network().tensors[shift_tensor].name] = std::move(shift);
    inputs = {*activation_tensor, scale_tensor, shift_tensor};
    emit(contracts::OperatorKind::ChannelAffine);
    return "";
  }

  // A BatchNormalization that did not fold into the layer before it (inference, constant parameters): a channel
  // affine of scale γ/√(σ²+ε) and shift β − μ·scale, in double.
  template <typename Emit>
  std::string batch_normalization(const onnx::NodeProto& node, const std::string& name, const Dims& out_shape,
                                  std::vector<std::size_t>& inputs, const Emit& emit) {
    const auto x = node.input_size() == 5 ? known_shape(node.input(0)) : std::nullopt;
    if (!x || (x->size() != 2 && x->size() != 4) || *x != out_shape)
      return "normalisation: a batch normalization of other than rank 2 (N, C) or 4 (N, C, H, W)" + std::string(kCut);
    if (integer(node, name, "training_mode", 0) != 0 || (node.output_size() > 1 && !node.output(1).empty()))
      return "normalisation: a batch normalization in training mode (running statistics)" + std::string(kCut);
    const auto gamma = values(node, 1), beta = values(node, 2), mean = values(node, 3), variance = values(node, 4);
    if (!gamma || !beta || !mean || !variance)
      return "normalisation: a batch normalization with parameters computed at run time" + std::string(kCut);
    const std::size_t channels = std::size_t((*x)[1]);
    if (gamma->size() != channels || beta->size() != channels || mean->size() != channels ||
        variance->size() != channels)
      fail(name, fmt::format("BatchNormalization of {} channels has {} scales, {} biases, {} means and {} variances",
                             channels, gamma->size(), beta->size(), mean->size(), variance->size()));
    const double epsilon = real(node, name, "epsilon", 1e-5);
    std::vector<double> scale(channels), shift(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      scale[c] = (*gamma)[c] / std::sqrt((*variance)[c] + epsilon);
      shift[c] = (*beta)[c] - (*mean)[c] * scale[c];
    }
    return channel_affine(name, node.input(0), inputs, emit, std::move(scale), std::move(shift));
  }

  // A Mul or Add of an activation by a constant of one value per channel (axis 1; or one value) that did not fold
  // into the layer before it: a channel affine (shift 0 or scale 1). nullopt when the node is not one.
  template <typename Emit>
  std::optional<std::string> constant_per_channel(const onnx::NodeProto& node, const std::string& name,
                                                  const Dims& out_shape, std::vector<std::size_t>& inputs,
                                                  const Emit& emit) {
    if (node.input_size() != 2) return std::nullopt;
    const int other = initializers_.count(node.input(1)) ? 1 : initializers_.count(node.input(0)) ? 0 : -1;
    if (other < 0 || initializers_.count(node.input(1 - other))) return std::nullopt;
    const std::string& activation_name = node.input(1 - other);
    const auto x = known_shape(activation_name);
    const auto operand = constant(node.input(other));
    if (!x || !operand || (x->size() != 2 && x->size() != 4) || *x != out_shape) return std::nullopt;
    // Broadcast against x: every dimension but the channels' (axis 1) must be 1.
    if (operand->dims.size() > x->size()) return std::nullopt;
    for (std::size_t i = 0; i < operand->dims.size(); ++i) {
      const std::size_t axis = x->size() - operand->dims.size() + i;
      if (operand->dims[i] != 1 && !(axis == 1 && operand->dims[i] == (*x)[1])) return std::nullopt;
    }
    const std::size_t channels = std::size_t((*x)[1]);
    std::vector<double> per_channel(channels);
    for (std::size_t c = 0; c < channels; ++c) per_channel[c] = operand->real(operand->elements() == 1 ? 0 : c);
    const bool multiply = node.op_type() == "Mul";
    std::vector<double> scale = multiply ? per_channel : std::vector<double>(channels, 1.0);
    std::vector<double> shift = multiply ? std::vector<double>(channels, 0.0) : std::move(per_channel);
    return channel_affine(name, activation_name, inputs, emit, std::move(scale), std::move(shift));
  }

  // A Transpose that only moves unit dimensions is a reshape; one of a network input read by nothing else makes
  // its output the network input (NHWC models: the input is given in the layout the fabric reads); others cut.
  template <typename Take, typename Emit>
  std::string transpose(const onnx::NodeProto& node, const std::string& name, const Dims& out_shape,
                        std::vector<std::size_t>& inputs, const Take& take_inputs, const Emit& emit) {
    const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
    if (!x) return skip_reason("Transpose");
    Dims perm = ints(node, name, "perm", {});
    if (perm.empty())
      for (std::size_t i = x->size(); i-- > 0;) perm.push_back(std::int64_t(i));
    Dims moved;
    for (const std::int64_t axis : perm) {
      if (axis < 0 || axis >= std::int64_t(x->size())) fail(name, fmt::format("attribute 'perm': {} is not a permutation", list(perm)));
      if ((*x)[std::size_t(axis)] != 1) moved.push_back(axis);
    }
    if (std::is_sorted(moved.begin(), moved.end())) {
      if (!take_inputs(1)) return skip_reason("Transpose");
      emit(contracts::OperatorKind::Reshape);
      return "";
    }
    bool graph_input = false;
    for (const auto& input : model_.graph().input()) graph_input = graph_input || input.name() == node.input(0);
    const auto readers = readers_.find(node.input(0));
    if (graph_input && !tensor_of_.count(node.input(0)) && readers != readers_.end() && readers->second.size() == 1) {
      tensor_of_[node.output(0)] = add_tensor(node.output(0), out_shape, false);
      note(fmt::format("network input '{}' is given as '{}', in the layout after Transpose {} (perm {})",
                       node.input(0), node.output(0), name, list(perm)));
      return "";
    }
    (void)inputs;
    return "data layout: a transpose that moves data (no operator of the post-processing unit does)" + std::string(kCut);
  }

  // Shape inference's output shape, where it has one, must be the Layer's (a disagreement means this importer
  // read an attribute differently from ONNX).
  void check_output(const onnx::NodeProto& node, const std::string& name, const Dims& expected) const {
    if (node.output_size() < 1) return;
    const auto found = shapes_.find(node.output(0));
    if (found == shapes_.end() || found->second.size() != expected.size()) return;
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (found->second[i].value >= 0 && found->second[i].value != expected[i])
        fail(name, fmt::format("ONNX infers output dimension {} = {}, the layer's shape gives {}", i,
                               found->second[i].value, expected[i]));
  }

  std::string path_;
  onnx::ModelProto& model_;
  std::int64_t opset_ = 1;
  std::map<std::string, Shape> shapes_;
  std::map<std::string, int> initializers_;                // initializer name → index
  std::map<std::string, std::vector<int>> readers_;        // ONNX tensor → the nodes that read it
  std::set<std::string> graph_outputs_;
  std::set<int> folded_nodes_;                             // nodes folded into a convolution before their turn
  std::set<std::string> node_names_, tensor_names_, operator_names_;
  std::map<std::string, std::size_t> tensor_of_;           // ONNX tensor → the Network tensor that holds it
  OnnxImport result_;
};

}  // namespace

void ModelInputShapes::add(const std::string& text) {
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw std::invalid_argument(fmt::format("'{}': expected NAME=d0,d1,… (the input's name and its sizes)", text));
  const std::string name = text.substr(0, equals);
  std::vector<std::int64_t> dims;
  std::size_t start = equals + 1;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 1 || value > contracts::kMaxLayerDimension)
      throw std::invalid_argument(fmt::format("'{}': size '{}' is not an integer in [1, {}]", text, item,
                                              contracts::kMaxLayerDimension));
    dims.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!shapes.emplace(name, dims).second) throw std::invalid_argument(fmt::format("input '{}' is given twice", name));
}

OnnxImport import_onnx(const std::string& path, const ModelInputShapes& sizes) {
  const std::string bytes =
      util::read_input_file(path, {"an ONNX model", kMaxOnnxFileBytes, "kMaxOnnxFileBytes", true});
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0 ||
      model.opset_import_size() == 0)
    throw util::InputError({path, 0, 0}, "model",
                           "not an ONNX model (expected a serialised onnx.ModelProto with an IR version, opset imports "
                           "and a graph)");
  std::int64_t opset = 1;
  for (const auto& import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx") opset = import.version();
  check_graph_before_inference(model.graph(), opset, path);
  apply_input_shapes(model, sizes, path);
  fold_shape_computations(model, path);
  check_graph_before_inference(model.graph(), opset, path);  // inlined branches were not checked yet
  return GraphReader(path, model).read();
}

}  // namespace maeri::importer
