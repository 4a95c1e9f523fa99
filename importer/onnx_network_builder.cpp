// The Network an ONNX graph becomes: its tensors and operators under unique names, the ONNX tensor each Network
// tensor holds (tensor_of_), a fabric layer with its links to the ONNX tensors it reads and writes (reshapes where
// the same elements change shape, a cut where they are in another order), and the inputs and output of an
// operator beside the fabric.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include "contracts/strict_yaml.hpp"
#include "util/input_error.hpp"

namespace maeri::importer {

std::string GraphReader::unique_tensor_name(const std::string& wanted) {
  std::string name = wanted;
  for (int copy = 2; tensor_names_.count(name); ++copy) name = fmt::format("{}#{}", wanted, copy);
  tensor_names_.insert(name);
  return name;
}

std::size_t GraphReader::add_tensor(const std::string& wanted, Dims shape, bool constant) {
  network().tensors.push_back({unique_tensor_name(wanted), std::move(shape), constant, {}});
  return network().tensors.size() - 1;
}

std::size_t GraphReader::add_operator(const std::string& wanted, contracts::OperatorKind kind,
                                      std::vector<std::size_t> inputs, std::size_t output) {
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
std::optional<std::size_t> GraphReader::activation(const std::string& name) {
  const auto found = tensor_of_.find(name);
  if (found != tensor_of_.end()) return found->second;
  const auto shape = known_shape(name);
  if (!shape || initializers_.count(name)) return std::nullopt;
  const std::size_t tensor = add_tensor(name, *shape, false);
  tensor_of_[name] = tensor;
  return tensor;
}

// A Reshape operator from `tensor` to a new tensor `wanted` of `shape` (the same elements, row-major).
std::size_t GraphReader::reshaped(std::size_t tensor, const std::string& wanted, const Dims& shape,
                                  const std::string& op_name) {
  if (network().tensors[tensor].shape == shape) return tensor;
  const std::size_t output = add_tensor(wanted, shape, false);
  add_operator(op_name, contracts::OperatorKind::Reshape, {tensor}, output);
  return output;
}

// A Pad operator `<layer>.pad` giving ONNX tensor `onnx_input`, read as `unpadded` (N, C, X, Y), the zero border
// `border`: the Network tensor a layer then reads, or nullopt when the graph holds no such activation.
std::optional<std::size_t> GraphReader::zero_bordered(const std::string& onnx_input, const Dims& unpadded,
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

// ONNX tensor `onnx_input`, read as (N, C, X, Y), with s − 1 zeros after each row and column but the last (a
// strided ConvTranspose's input) and the zero border `border` around it, by operators the unit runs: a reshape to
// (N, C·X, 1, Y) and a pad after axis 2 put s_x − 1 zero rows after each row, a reshape to (N, …, 1, 1) and a pad
// after axis 3 s_y − 1 zeros after each element, a reshape back to (N, C, X·s_x, Y·s_y), a slice drops the zeros
// after the last row and column, and a pad adds the border. The Network tensor a layer then reads, or nullopt when
// the graph holds no such activation.
std::optional<std::size_t> GraphReader::zero_inserted(const std::string& onnx_input, const Dims& x, const Dims& strides,
                                                      const contracts::PadBorder& border, const std::string& layer) {
  const auto input = activation(onnx_input);
  if (!input || network().tensors[*input].elements() != x[0] * x[1] * x[2] * x[3]) return std::nullopt;
  const auto padded = [&](std::size_t tensor, const std::string& step, const contracts::PadBorder& pad) {
    const Dims& in = network().tensors[tensor].shape;
    if (pad.output_x(in[2]) == in[2] && pad.output_y(in[3]) == in[3]) return tensor;
    const std::size_t output = add_tensor(layer + "." + step, {in[0], in[1], pad.output_x(in[2]), pad.output_y(in[3])}, false);
    network().operators[add_operator(layer + "." + step, contracts::OperatorKind::Pad, {tensor}, output)].pad = pad;
    return output;
  };
  const std::int64_t sx = strides[0], sy = strides[1];
  std::size_t t = reshaped(*input, layer + ".rows", {x[0], x[1] * x[2], 1, x[3]}, layer + ".reshape_rows");
  t = padded(t, "zero_rows", {0, sx - 1, 0, 0});  // (N, C·X, s_x, Y)
  t = reshaped(t, layer + ".elements", {x[0], x[1] * x[2] * sx * x[3], 1, 1}, layer + ".reshape_elements");
  t = padded(t, "zero_columns", {0, 0, 0, sy - 1});  // (N, C·X·s_x·Y, 1, s_y)
  t = reshaped(t, layer + ".spread", {x[0], x[1], x[2] * sx, x[3] * sy}, layer + ".reshape_spread");
  const Dims inserted = {x[0], x[1], (x[2] - 1) * sx + 1, (x[3] - 1) * sy + 1};
  const std::size_t trimmed = add_tensor(layer + ".zero_inserted", inserted, false);
  contracts::Operator& slice = network().operators[add_operator(layer + ".trim", contracts::OperatorKind::Slice, {t}, trimmed)];
  for (const std::int64_t extent : inserted) slice.slice.push_back({0, 1, extent});
  return padded(trimmed, "pad", border);
}

// A fabric layer named `name` from `node`, checked against the Layer's rules, with its input, weights (and bias)
// and output tensors linked to the ONNX tensors as `links` says.
void GraphReader::add_layer(const onnx::NodeProto& node, contracts::Layer layer, const std::string& name,
                            LayerLinks links) {
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

// The Network tensors of the node's first `count` inputs, appended to read.inputs; false when one is a constant or
// of unknown shape (or missing).
bool GraphReader::take_inputs(OperatorNode& read, int count) {
  for (int i = 0; i < count; ++i) {
    if (i >= read.node.input_size() || initializers_.count(read.node.input(i))) return false;
    const auto tensor = activation(read.node.input(i));
    if (!tensor) return false;
    read.inputs.push_back(*tensor);
  }
  return true;
}

// The operator `kind` of the node, named after it, reading read.inputs and writing its ONNX output.
std::size_t GraphReader::emit(OperatorNode& read, contracts::OperatorKind kind) {
  const std::string& out = read.node.output(0);
  const std::size_t output = add_tensor(out, read.out_shape, false);
  tensor_of_[out] = output;
  return add_operator(read.name, kind, read.inputs, output);
}

}  // namespace maeri::importer
