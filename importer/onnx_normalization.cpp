// Normalisation and reductions beside the fabric: ReduceMean, ReduceSum and ReduceMax, the ONNX LayerNormalization
// node (opset 17), and the decomposed form
// exporters emit before it existed — ReduceMean → Sub → Pow(2) or Mul(d, d) → ReduceMean → Add(ε) → Sqrt → Div,
// then an optional Mul(γ) and Add(β) — recognised at its first ReduceMean and read as one layer normalization
// (its other nodes are folded into it). The scale and shift are constants of the normalised shape.
#include "importer/onnx_graph_reader.hpp"

#include "importer/onnx_graph_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace maeri::importer {

namespace {

// A constant broadcast to `length` values: as it is when it has `length`, repeated when it has one.
std::optional<std::vector<double>> broadcast_to(const std::optional<std::vector<double>>& values, std::int64_t length) {
  if (!values) return std::nullopt;
  if (std::int64_t(values->size()) == length) return values;
  if (values->size() == 1) return std::vector<double>(std::size_t(length), values->front());
  return std::nullopt;
}

}  // namespace

// The layer normalization `NODE` of `x` writing ONNX tensor `output` over the axes from `axis` on, its scale and
// shift the constants `NODE.scale` and `NODE.shift`.
void GraphReader::emit_layer_normalization(OperatorNode& read, const std::string& output, std::int64_t axis,
                                           double epsilon, std::vector<double> scale, std::vector<double> shift) {
  const Dims normalised(read.out_shape.begin() + axis, read.out_shape.end());
  const std::size_t scale_tensor = add_tensor(read.name + ".scale", normalised, true);
  const std::size_t shift_tensor = add_tensor(read.name + ".shift", normalised, true);
  result_.weights[network().tensors[scale_tensor].name] = std::move(scale);
  result_.weights[network().tensors[shift_tensor].name] = std::move(shift);
  const std::size_t out = add_tensor(output, read.out_shape, false);
  tensor_of_[output] = out;
  const std::size_t op = add_operator(read.name, contracts::OperatorKind::LayerNormalization,
                                      {read.inputs[0], scale_tensor, shift_tensor}, out);
  network().operators[op].axis = axis;
  network().operators[op].epsilon = epsilon;
}

// LayerNormalization (opset 17): X, a constant Scale and an optional constant B; its Mean and InvStdDev outputs
// unused.
std::string GraphReader::layer_normalization(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string cut = kCut;
  const std::int64_t rank = std::int64_t(read.out_shape.size());
  std::int64_t axis = integer(node, read.name, "axis", -1);
  if (axis < -rank || axis >= rank)
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  const double epsilon = real(node, read.name, "epsilon", 1e-5);
  if (!std::isfinite(epsilon) || epsilon < 0) fail(read.name, fmt::format("attribute 'epsilon': {}", epsilon));
  for (int o = 1; o < node.output_size(); ++o)
    if (!node.output(o).empty() && readers_.count(node.output(o)))
      return "normalisation: a layer normalization whose mean or inverse deviation is read" + cut;
  std::int64_t length = 1;
  for (std::int64_t d = axis; d < rank; ++d) length *= read.out_shape[std::size_t(d)];
  const auto scale = broadcast_to(values(node, 1), length);
  const auto shift = node.input_size() > 2 && !node.input(2).empty()
                         ? broadcast_to(values(node, 2), length)
                         : std::optional<std::vector<double>>(std::vector<double>(std::size_t(length), 0.0));
  if (!scale || !shift) return "normalisation: a layer normalization whose scale or bias is not a constant" + cut;
  if (!take_inputs(read, 1)) return skip_reason("LayerNormalization");
  emit_layer_normalization(read, node.output(0), axis, epsilon, *scale, *shift);
  return "";
}

// The one node reading `tensor` (which is no graph output), or -1.
int GraphReader::only_reader(const std::string& tensor) const {
  const auto found = readers_.find(tensor);
  if (found == readers_.end() || found->second.size() != 1 || graph_outputs_.count(tensor)) return -1;
  return found->second.front();
}

// The axes a ReduceMean averages over as trailing axes from `first` (normalised), keepdims 1, or -1.
std::int64_t GraphReader::trailing_mean_axis(const onnx::NodeProto& node, const std::string& name,
                                             std::int64_t rank) const {
  if (node.op_type() != "ReduceMean" || integer(node, name, "keepdims", 1) != 1) return -1;
  Dims axes = ints(node, name, "axes", {});
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const auto given = constant(node.input(1));
    if (!given || !given->integral()) return -1;
    axes = given->integers;
  }
  if (axes.empty()) return -1;
  for (std::int64_t& axis : axes) axis = axis < 0 ? axis + rank : axis;
  std::sort(axes.begin(), axes.end());
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - std::int64_t(axes.size()) + std::int64_t(i)) return -1;
  return axes.front();
}

// The affine after a decomposed layer normalization's `normalised` output, each part optional: a Mul by a constant γ
// (into `gamma`), then an Add of a constant β (into `beta`), each of one value or `length`; their nodes join
// `folded`. Returns the ONNX tensor the last of them writes.
std::string GraphReader::affine_after(std::string normalised, std::int64_t length, std::vector<double>& gamma,
                                      std::vector<double>& beta, std::vector<int>& folded) const {
  const auto constant_operand = [&](int index, const char* op) -> std::optional<std::vector<double>> {
    if (index < 0) return std::nullopt;
    const onnx::NodeProto& affine = model_.graph().node(index);
    if (affine.op_type() != op || !in_default_domain(affine) || affine.input_size() != 2) return std::nullopt;
    const int other = affine.input(0) == normalised ? 1 : affine.input(1) == normalised ? 0 : -1;
    return other < 0 ? std::nullopt : broadcast_to(values(affine, other), length);
  };
  const int scale_index = only_reader(normalised);
  if (const auto given = constant_operand(scale_index, "Mul")) {
    gamma = *given;
    normalised = model_.graph().node(scale_index).output(0);
    folded.push_back(scale_index);
  }
  const int shift_index = only_reader(normalised);
  if (const auto given = constant_operand(shift_index, "Add")) {
    beta = *given;
    normalised = model_.graph().node(shift_index).output(0);
    folded.push_back(shift_index);
  }
  return normalised;
}

// The decomposed layer normalization starting at ReduceMean `node`: read as one layer normalization when every
// step is there, each intermediate read only by the next step (the centred values by the square and the division,
// from one Sub or two) and none a graph output; returns whether it did. The nodes after the first are folded into it.
bool GraphReader::decomposed_layer_normalization(const onnx::NodeProto& node, const std::string& name) {
  const onnx::GraphProto& graph = model_.graph();
  const auto x_shape = node.input_size() > 0 && node.output_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x_shape) return false;
  const std::string& x = node.input(0);
  const std::int64_t rank = std::int64_t(x_shape->size()), axis = trailing_mean_axis(node, name, rank);
  if (axis < 0) return false;
  const auto step = [&](int index, const char* op) -> const onnx::NodeProto* {
    if (index < 0) return nullptr;
    const onnx::NodeProto& next = graph.node(index);
    return next.op_type() == op && in_default_domain(next) && next.output_size() >= 1 ? &next : nullptr;
  };
  const auto scalar = [&](const std::string& tensor) -> std::optional<double> {
    const auto value = constant(tensor);
    if (!value || value->elements() != 1) return std::nullopt;
    return value->real(0);
  };
  // The centred values x − mean: one Sub read by the square and the division, or (tf2onnx from Keras) two Subs of
  // the same, one for each.
  std::vector<int> folded;
  std::set<std::string> centred;
  std::set<int> users;
  const auto mean_readers = readers_.find(node.output(0));
  if (mean_readers == readers_.end() || graph_outputs_.count(node.output(0))) return false;
  for (const int reader : std::set<int>(mean_readers->second.begin(), mean_readers->second.end())) {
    const onnx::NodeProto* sub = step(reader, "Sub");
    if (!sub || sub->input(0) != x || sub->input(1) != node.output(0) || graph_outputs_.count(sub->output(0)))
      return false;
    folded.push_back(reader);
    centred.insert(sub->output(0));
    const auto sub_readers = readers_.find(sub->output(0));
    if (sub_readers != readers_.end()) users.insert(sub_readers->second.begin(), sub_readers->second.end());
  }
  if (centred.size() > 2 || users.size() != 2) return false;
  const onnx::NodeProto *square = nullptr, *divide = nullptr;
  int square_index = -1, divide_index = -1;
  for (const int user : users) {
    const onnx::NodeProto& candidate = graph.node(user);
    if (candidate.input_size() != 2) return false;
    const bool first_centred = centred.count(candidate.input(0)) > 0;
    if (candidate.op_type() == "Div" && first_centred) divide = &candidate, divide_index = user;
    else if ((candidate.op_type() == "Pow" && first_centred && scalar(candidate.input(1)) == 2.0) ||
             (candidate.op_type() == "Mul" && first_centred && candidate.input(1) == candidate.input(0)))
      square = &candidate, square_index = user;
  }
  if (!square || !divide) return false;
  const int variance_index = only_reader(square->output(0));
  const onnx::NodeProto* variance = step(variance_index, "ReduceMean");
  if (!variance || variance->input(0) != square->output(0) ||
      trailing_mean_axis(*variance, name, rank) != axis)
    return false;
  const int add_index = only_reader(variance->output(0));
  const onnx::NodeProto* add_epsilon = step(add_index, "Add");
  if (!add_epsilon) return false;
  const bool first = add_epsilon->input(0) == variance->output(0);
  const auto epsilon = scalar(add_epsilon->input(first ? 1 : 0));
  if (!epsilon || !std::isfinite(*epsilon) || *epsilon < 0) return false;
  const int root_index = only_reader(add_epsilon->output(0));
  const onnx::NodeProto* root = step(root_index, "Sqrt");
  if (!root || only_reader(root->output(0)) != divide_index || divide->input(1) != root->output(0)) return false;
  folded.insert(folded.end(), {square_index, variance_index, add_index, root_index, divide_index});
  std::int64_t length = 1;
  for (std::int64_t d = axis; d < rank; ++d) length *= (*x_shape)[std::size_t(d)];
  std::vector<double> gamma(std::size_t(length), 1.0), beta(std::size_t(length), 0.0);
  const std::string output = affine_after(divide->output(0), length, gamma, beta, folded);
  if (known_shape(output) != x_shape) return false;
  OperatorNode read{node, name, *x_shape, {}};
  if (!take_inputs(read, 1)) return false;
  emit_layer_normalization(read, output, axis, *epsilon, std::move(gamma), std::move(beta));
  folded_nodes_.insert(folded.begin(), folded.end());
  note(fmt::format("layer normalization {}: {} nodes from ReduceMean to '{}' read as one", name, folded.size() + 1,
                   output));
  return true;
}

// ReduceMean, ReduceSum, ReduceMax of an activation: axes an attribute (before opset 18; ReduceSum's before 13) or a
// constant input, negative ones from the back; no axes: every axis (noop_with_empty_axes 1: the input as it is).
std::string GraphReader::reduction(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string cut = kCut;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason(node.op_type());
  const std::int64_t rank = std::int64_t(x->size());
  Dims axes = ints(node, read.name, "axes", {});
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const auto given = constant(node.input(1));
    if (!given || !given->integral()) return "reduction: its axes are not constant integers" + cut;
    axes = given->integers;
  }
  if (axes.empty()) {
    if (integer(node, read.name, "noop_with_empty_axes", 0) == 1) return alias(node);
    for (std::int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (std::int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) fail(read.name, fmt::format("axes {}: out of range for rank {}", list(axes), rank));
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    fail(read.name, fmt::format("axes {}: an axis given twice", list(axes)));
  const bool keep = integer(node, read.name, "keepdims", 1) != 0;
  if (!keep && std::int64_t(axes.size()) == rank) return "reduction: to a scalar (every axis, keepdims 0)" + cut;
  if (!take_inputs(read, 1)) return skip_reason(node.op_type());
  const auto kind = node.op_type() == "ReduceMean"  ? contracts::OperatorKind::ReduceMean
                    : node.op_type() == "ReduceSum" ? contracts::OperatorKind::ReduceSum
                                                    : contracts::OperatorKind::ReduceMax;
  contracts::Operator& op = network().operators[emit(read, kind)];
  op.reduce_axes = std::move(axes);
  op.keep_dims = keep;
  return "";
}

}  // namespace maeri::importer
