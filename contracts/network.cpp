// Network graph queries, the chain of a flat layer list and the graph's well-formedness rule (see network.hpp).
#include "contracts/network.hpp"

#include "contracts/matrix_product.hpp"
#include "contracts/elementwise_pairs.hpp"
#include "contracts/layer_normalization.hpp"
#include "contracts/table_lookup.hpp"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace maeri::contracts {

std::int64_t Tensor::elements() const {
  std::int64_t product = 1;
  for (std::int64_t extent : shape) product *= extent;
  return product;
}

const char* to_string(OperatorKind kind) {
  switch (kind) {
#define MAERI_OPERATOR_KIND_LABEL(kind, label) \
  case OperatorKind::kind: return label;
    MAERI_OPERATOR_KINDS(MAERI_OPERATOR_KIND_LABEL)
#undef MAERI_OPERATOR_KIND_LABEL
  }
  return "?";
}

std::size_t activation_inputs(const Network& network, const Operator& op) {
  if (op.kind == OperatorKind::FabricLayer && op.product.two_activations) return 2;
  if (op.kind == OperatorKind::FabricLayer || op.kind == OperatorKind::ChannelAffine ||
      op.kind == OperatorKind::LayerNormalization || op.kind == OperatorKind::Lookup)
    return 1;
  if (is_elementwise_pair(op.kind) && op.inputs.size() == 2 && network.tensors.at(op.inputs[1]).constant) return 1;
  return op.inputs.size();
}

std::string operator_label(const Operator& op) {
  return op.kind == OperatorKind::TableFunction ? to_string(op.function.function) : to_string(op.kind);
}

std::int64_t Network::total_macs() const {
  std::int64_t total = 0;
  for (const auto& layer : layers) total += layer.macs();
  return total;
}

std::optional<std::size_t> Network::producer(std::size_t tensor) const {
  for (std::size_t o = 0; o < operators.size(); ++o)
    for (std::size_t output : operators[o].outputs)
      if (output == tensor) return o;
  return std::nullopt;
}

std::vector<std::size_t> Network::consumers(std::size_t tensor) const {
  std::vector<std::size_t> readers;
  for (std::size_t o = 0; o < operators.size(); ++o)
    for (std::size_t input : operators[o].inputs)
      if (input == tensor && (readers.empty() || readers.back() != o)) readers.push_back(o);
  return readers;
}

std::vector<std::size_t> Network::network_inputs() const {
  std::vector<std::size_t> inputs;
  for (std::size_t t = 0; t < tensors.size(); ++t)
    if (!tensors[t].constant && !producer(t)) inputs.push_back(t);
  return inputs;
}

std::vector<std::size_t> Network::network_outputs() const {
  std::vector<std::size_t> outputs;
  for (std::size_t t = 0; t < tensors.size(); ++t)
    if (producer(t) && consumers(t).empty()) outputs.push_back(t);
  return outputs;
}

std::vector<std::int64_t> input_shape(const Layer& layer) { return {layer.N, layer.C, layer.X, layer.Y}; }
std::vector<std::int64_t> weight_shape(const Layer& layer) {
  return {layer.K, layer.group_channels(), layer.R, layer.S};
}
std::vector<std::int64_t> output_shape(const Layer& layer) {
  return {layer.N, layer.K, layer.output_x(), layer.output_y()};
}

Network graph_network(std::string name, std::vector<Layer> layers, const std::vector<LayerTensorNames>& names) {
  if (names.size() != layers.size()) throw std::invalid_argument("graph_network: one LayerTensorNames per layer");
  Network network;
  network.name = std::move(name);
  network.layers = std::move(layers);
  std::map<std::string, std::size_t> by_name;  // the latest tensor of each name
  const auto add = [&](std::string tensor_name, const std::string& fallback, std::vector<std::int64_t> shape,
                       bool constant) {
    if (by_name.count(tensor_name)) tensor_name = fallback;
    for (int copy = 2; by_name.count(tensor_name); ++copy) tensor_name = fallback + "#" + std::to_string(copy);
    by_name[tensor_name] = network.tensors.size();
    network.tensors.push_back({std::move(tensor_name), std::move(shape), constant, {}});
    return network.tensors.size() - 1;
  };
  for (std::size_t l = 0; l < network.layers.size(); ++l) {
    const Layer& layer = network.layers[l];
    const auto found = by_name.find(names[l].input);
    const bool linked = found != by_name.end() && network.producer(found->second) &&
                        network.tensors[found->second].shape == input_shape(layer);
    const std::size_t activation =
        linked ? found->second : add(names[l].input, layer.name + ".input", input_shape(layer), false);
    const std::size_t weights = add(names[l].weights, layer.name + ".weights", weight_shape(layer), true);
    const std::size_t output = add(names[l].output, layer.name + ".output", output_shape(layer), false);
    Operator op;
    op.name = layer.name;
    op.kind = OperatorKind::FabricLayer;
    op.layer = l;
    op.inputs = {activation, weights};
    op.outputs = {output};
    network.operators.push_back(std::move(op));
  }
  return network;
}

Network chain_network(std::string name, std::vector<Layer> layers) {
  std::vector<LayerTensorNames> names;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::string& layer = layers[l].name;
    const bool follows = l > 0 && output_shape(layers[l - 1]) == input_shape(layers[l]);
    names.push_back({follows ? layers[l - 1].name + ".output" : layer + ".input", layer + ".weights", layer + ".output"});
  }
  return graph_network(std::move(name), std::move(layers), names);
}

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("({})", fmt::join(shape, ",")); }

InferredShape problem(std::string message) { return {{}, std::move(message)}; }

// The pooling rule of docs/workload-spec.md ("Graphs"): a window inside the padded input, padding smaller than the
// window so that every window holds at least one element of the tensor (average pool divides by that count).
std::optional<std::string> pool_window_violation(const PoolWindow& pool, std::int64_t x, std::int64_t y) {
  if (pool.size_x < 1 || pool.size_y < 1 || pool.stride_x < 1 || pool.stride_y < 1 || pool.padding_x < 0 ||
      pool.padding_y < 0)
    return fmt::format("a window of size {}x{}, stride {}x{}, padding {}x{} (sizes and strides at least 1, padding at "
                       "least 0)",
                       pool.size_x, pool.size_y, pool.stride_x, pool.stride_y, pool.padding_x, pool.padding_y);
  if (pool.padding_x >= pool.size_x || pool.padding_y >= pool.size_y)
    return fmt::format("padding {}x{} not smaller than the window {}x{} (a window would hold padding only)",
                       pool.padding_x, pool.padding_y, pool.size_x, pool.size_y);
  if (pool.size_x > x + 2 * pool.padding_x || pool.size_y > y + 2 * pool.padding_y)
    return fmt::format("a window {}x{} larger than the padded input {}x{}", pool.size_x, pool.size_y,
                       x + 2 * pool.padding_x, y + 2 * pool.padding_y);
  return std::nullopt;
}

InferredShape fabric_output_shape(const Network& network, const Operator& op) {
  if (op.layer >= network.layers.size())
    return problem(fmt::format("operator '{}' runs layer #{}, which does not exist", op.name, op.layer));
  if (op.product.two_activations) return matrix_product_output_shape(network, op);
  if (op.inputs.size() != 2 && op.inputs.size() != 3)
    return problem(fmt::format("fabric operator '{}' needs 2 or 3 inputs (activation, weights[, bias]), not {}",
                               op.name, op.inputs.size()));
  const Layer& layer = network.layers[op.layer];
  const std::vector<std::int64_t> bias_shape{layer.K};
  const std::vector<std::int64_t>* needed[] = {nullptr, nullptr, &bias_shape};
  const std::vector<std::int64_t> input = input_shape(layer), weights = weight_shape(layer);
  needed[0] = &input;
  needed[1] = &weights;
  const char* what[] = {"input", "weights", "bias"};
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    const Tensor& tensor = network.tensors[op.inputs[i]];
    if (tensor.shape != *needed[i])
      return problem(fmt::format("operator '{}': its {} '{}' has shape {}, layer '{}' needs {}", op.name, what[i],
                                 tensor.name, shape_text(tensor.shape), layer.name, shape_text(*needed[i])));
  }
  return {output_shape(layer), std::nullopt};
}

// One operator beside the fabric whose input count has been checked: its label for messages and its first input.
struct SideOperator {
  const Network& network;
  const Operator& op;
  std::string label;  // "<kind> '<name>'"
  const Tensor& input;

  const std::vector<std::int64_t>& shape() const { return input.shape; }
  const Tensor& other(std::size_t i) const { return network.tensors[op.inputs[i]]; }
  InferredShape rank_problem(const char* needed) const {
    return problem(fmt::format("{} needs {}; its input '{}' has shape {}", label, needed, input.name,
                               shape_text(input.shape)));
  }
};

// Relu, requantize, clip, table functions: the input's shape, attributes permitting.
InferredShape elementwise_output_shape(const SideOperator& side) {
  const Operator& op = side.op;
  if (op.kind == OperatorKind::Clip && !(op.clip_min <= op.clip_max))
    return problem(fmt::format("{} clips to [{}, {}]: the minimum must not exceed the maximum", side.label,
                               op.clip_min, op.clip_max));
  if (op.kind == OperatorKind::TableFunction)
    if (const auto violation = function_violation(op.function))
      return problem(fmt::format("{}: {}", side.label, *violation));
  return {side.shape(), std::nullopt};
}

// Max and average pool (a window), global average pool (the whole image).
InferredShape pool_output_shape(const SideOperator& side) {
  const std::vector<std::int64_t>& shape = side.shape();
  if (shape.size() != 4) return side.rank_problem("a rank-4 input (N, C, X, Y)");
  if (side.op.kind == OperatorKind::GlobalAveragePool) return {{shape[0], shape[1], 1, 1}, std::nullopt};
  const PoolWindow& pool = side.op.pool;
  if (auto window = pool_window_violation(pool, shape[2], shape[3]))
    return problem(fmt::format("{} on '{}' of shape {}: {}", side.label, side.input.name, shape_text(shape), *window));
  return {{shape[0], shape[1], pool.output_x(shape[2]), pool.output_y(shape[3])}, std::nullopt};
}

// Add, sub, max, min, mul: the broadcast shape of the two operands (a tensor and a tensor or a constant).
InferredShape pair_output_shape(const SideOperator& side) {
  const Tensor& other = side.other(1);
  if (side.input.constant && other.constant)
    return problem(fmt::format("{} reads two constants, '{}' and '{}': one operand must be a tensor", side.label,
                               side.input.name, other.name));
  const auto shape = broadcast_shape(side.shape(), other.shape);
  if (!shape)
    return problem(fmt::format("{} reads '{}' of shape {} and '{}' of shape {}: the shapes do not broadcast (each "
                               "axis, aligned from the last, equal or 1 on one side)",
                               side.label, side.input.name, shape_text(side.shape()), other.name,
                               shape_text(other.shape)));
  if (side.op.constant_first && (side.op.kind != OperatorKind::Sub || !other.constant))
    return problem(fmt::format("{} has constant_first, which only a sub of a tensor and a constant takes",
                               side.label));
  return {*shape, std::nullopt};
}

InferredShape concat_output_shape(const SideOperator& side) {
  const std::vector<std::int64_t>& shape = side.shape();
  const Operator& op = side.op;
  if (op.axis < 0 || op.axis >= std::int64_t(shape.size()))
    return problem(fmt::format("{} joins along axis {}, but its input '{}' has rank {}", side.label, op.axis,
                               side.input.name, shape.size()));
  std::vector<std::int64_t> joined = shape;
  const std::size_t axis = std::size_t(op.axis);
  for (std::size_t i = 1; i < op.inputs.size(); ++i) {
    const Tensor& next = side.other(i);
    bool agrees = next.shape.size() == shape.size();
    for (std::size_t d = 0; agrees && d < shape.size(); ++d) agrees = d == axis || next.shape[d] == shape[d];
    if (!agrees)
      return problem(fmt::format("{} joins '{}' of shape {} and '{}' of shape {} along axis {}: the shapes must "
                                 "agree except along the axis",
                                 side.label, side.input.name, shape_text(shape), next.name, shape_text(next.shape),
                                 axis));
    joined[axis] += next.shape[axis];
    if (joined[axis] > kMaxLayerDimension)
      return problem(fmt::format("{} joins more than {} entries along axis {}", side.label, kMaxLayerDimension, axis));
  }
  return {joined, std::nullopt};
}

// A reshape's output is its target: the output tensor's shape, of as many elements as the input.
InferredShape reshape_output_shape(const SideOperator& side) {
  const Operator& op = side.op;
  if (op.outputs.size() != 1 || op.outputs[0] >= side.network.tensors.size())
    return problem(fmt::format("{} writes no output tensor", side.label));
  const Tensor& output = side.network.tensors[op.outputs[0]];
  if (output.elements() != side.input.elements())
    return problem(fmt::format("{} gives '{}' of shape {} ({} elements) the shape {} ({} elements): the counts "
                               "must be equal",
                               side.label, side.input.name, shape_text(side.shape()), side.input.elements(),
                               shape_text(output.shape), output.elements()));
  return {output.shape, std::nullopt};
}

InferredShape softmax_output_shape(const SideOperator& side) {
  const std::int64_t rank = std::int64_t(side.shape().size());
  if (side.op.axis < 0 || side.op.axis >= rank)
    return problem(fmt::format("{} runs along axis {}; its input '{}' of shape {} has axes 0..{}", side.label,
                               side.op.axis, side.input.name, shape_text(side.shape()), rank - 1));
  return {side.shape(), std::nullopt};
}

// A channel affine's scale and shift hold one value per channel (axis 1), whatever follows it: (N, C), (N, C, L) — a
// group normalization's (N, groups, elements) as PyTorch exports it —, (N, C, X, Y), …
InferredShape channel_affine_output_shape(const SideOperator& side) {
  const std::vector<std::int64_t>& shape = side.shape();
  if (shape.size() < 2) return side.rank_problem("an input of rank 2 or more (N, C, …)");
  const char* what[] = {"", "scale", "shift"};
  for (std::size_t i = 1; i < 3; ++i) {
    const Tensor& parameter = side.other(i);
    if (parameter.shape != std::vector<std::int64_t>{shape[1]})
      return problem(fmt::format("{}: its {} '{}' has shape {}, its input '{}' of shape {} needs ({})", side.label,
                                 what[i], parameter.name, shape_text(parameter.shape), side.input.name,
                                 shape_text(shape), shape[1]));
  }
  return {shape, std::nullopt};
}

InferredShape pad_output_shape(const SideOperator& side) {
  const std::vector<std::int64_t>& shape = side.shape();
  if (shape.size() != 4) return side.rank_problem("a rank-4 input (N, C, X, Y)");
  const PadBorder& border = side.op.pad;
  for (const std::int64_t edge : {border.x_begin, border.x_end, border.y_begin, border.y_end})
    if (edge < 0 || edge > kMaxLayerDimension)
      return problem(fmt::format("{} has the border x {}+{}, y {}+{}: every side must be in [0, {}]", side.label,
                                 border.x_begin, border.x_end, border.y_begin, border.y_end, kMaxLayerDimension));
  const std::int64_t x = border.output_x(shape[2]), y = border.output_y(shape[3]);
  if (x > kMaxLayerDimension || y > kMaxLayerDimension)
    return problem(fmt::format("{} pads '{}' of shape {} to {}x{}: more than {} along an axis", side.label,
                               side.input.name, shape_text(shape), x, y, kMaxLayerDimension));
  return {{shape[0], shape[1], x, y}, std::nullopt};
}

InferredShape resize_output_shape(const SideOperator& side) {
  if (const auto violation = resize_violation(side.op.resize, side.shape(), side.label)) return problem(*violation);
  return {resized_shape(side.op.resize, side.shape()), std::nullopt};
}

}  // namespace

bool is_se_gate(const std::vector<std::int64_t>& image, const std::vector<std::int64_t>& gate) {
  return image.size() == 4 && gate == std::vector<std::int64_t>{image[0], image[1], 1, 1};
}

InferredShape inferred_output_shape(const Network& network, const Operator& op) {
  if (op.kind == OperatorKind::FabricLayer) return fabric_output_shape(network, op);
  if (op.kind == OperatorKind::Lookup) return lookup_output_shape(network, op, fmt::format("lookup '{}'", op.name));
  const std::string label = fmt::format("{} '{}'", operator_label(op), op.name);
  const bool pair = is_elementwise_pair(op.kind);
  const bool affine = op.kind == OperatorKind::ChannelAffine || op.kind == OperatorKind::LayerNormalization;
  const std::size_t inputs = pair ? 2 : affine ? 3 : 1;
  if (op.kind == OperatorKind::Concat ? op.inputs.empty() : op.inputs.size() != inputs)
    return problem(fmt::format("{} reads {} tensors, expected {}", label, op.inputs.size(),
                               op.kind == OperatorKind::Concat ? "at least 1" : std::to_string(inputs)));
  const SideOperator side{network, op, label, network.tensors[op.inputs[0]]};
  switch (op.kind) {
    case OperatorKind::FabricLayer: break;
    case OperatorKind::Requantize:
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::TableFunction: return elementwise_output_shape(side);
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool: return pool_output_shape(side);
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Mul: return pair_output_shape(side);
    case OperatorKind::Concat: return concat_output_shape(side);
    case OperatorKind::Reshape: return reshape_output_shape(side);
    case OperatorKind::Softmax: return softmax_output_shape(side);
    case OperatorKind::ChannelAffine: return channel_affine_output_shape(side);
    case OperatorKind::Pad: return pad_output_shape(side);
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: return layout_output_shape(network, op, label);
    case OperatorKind::LayerNormalization: return layer_normalization_shape(network, op, label);
    case OperatorKind::Resize: return resize_output_shape(side);
    case OperatorKind::Lookup: break;
  }
  return problem(fmt::format("operator '{}' has an unknown kind", op.name));
}

OperatorOrder topological_order(const Network& network) {
  const std::size_t count = network.operators.size();
  std::vector<std::optional<std::size_t>> producer_of(network.tensors.size());
  for (std::size_t o = 0; o < count; ++o)
    for (std::size_t t : network.operators[o].outputs)
      if (t < producer_of.size() && !producer_of[t]) producer_of[t] = o;
  std::vector<std::size_t> waiting(count, 0);  // inputs whose producer has not run yet
  std::vector<std::vector<std::size_t>> readers(count);
  for (std::size_t o = 0; o < count; ++o)
    for (std::size_t t : network.operators[o].inputs)
      if (t < producer_of.size() && producer_of[t]) {
        ++waiting[o];
        readers[*producer_of[t]].push_back(o);
      }
  std::set<std::size_t> ready;  // ordered: the earliest listed of the ready operators runs next
  for (std::size_t o = 0; o < count; ++o)
    if (waiting[o] == 0) ready.insert(o);
  OperatorOrder order;
  std::vector<bool> placed(count, false);
  while (!ready.empty()) {
    const std::size_t next = *ready.begin();
    ready.erase(ready.begin());
    order.operators.push_back(next);
    placed[next] = true;
    for (std::size_t reader : readers[next])
      if (--waiting[reader] == 0) ready.insert(reader);
  }
  if (order.operators.size() == count) return order;
  // Every operator left waits for another one left: walking from one to the producer of an input it waits for
  // must come back to an operator already visited, and the tensor followed from it then lies on a cycle.
  std::size_t at = 0;
  while (placed[at]) ++at;
  std::map<std::size_t, std::size_t> step_of;
  std::vector<std::size_t> followed;
  while (!step_of.count(at)) {
    step_of[at] = followed.size();
    for (std::size_t t : network.operators[at].inputs)
      if (t < producer_of.size() && producer_of[t] && !placed[*producer_of[t]]) {
        followed.push_back(t);
        at = *producer_of[t];
        break;
      }
  }
  return {{}, followed[step_of[at]]};
}

Network reordered(Network network, const std::vector<std::size_t>& order) {
  std::vector<Operator> operators;
  std::vector<Layer> layers;
  std::vector<bool> run(network.layers.size(), false);
  for (std::size_t o : order) {
    Operator op = network.operators.at(o);
    if (op.kind == OperatorKind::FabricLayer && op.layer < network.layers.size() && !run[op.layer]) {
      run[op.layer] = true;
      layers.push_back(network.layers[op.layer]);
      op.layer = layers.size() - 1;
    }
    operators.push_back(std::move(op));
  }
  for (std::size_t l = 0; l < run.size(); ++l)  // kept, so that network_violation still names them
    if (!run[l]) layers.push_back(network.layers[l]);
  network.operators = std::move(operators);
  network.layers = std::move(layers);
  return network;
}

std::optional<std::string> network_violation(const Network& network) {
  std::set<std::string> tensor_names, operator_names;
  for (const Tensor& tensor : network.tensors) {
    if (!tensor_names.insert(tensor.name).second) return fmt::format("tensor '{}' appears twice", tensor.name);
    long double elements = 1;
    for (std::int64_t extent : tensor.shape) {
      if (extent < 1) return fmt::format("tensor '{}' has shape {}: every extent must be at least 1", tensor.name,
                                         shape_text(tensor.shape));
      elements *= static_cast<long double>(extent);
    }
    if (tensor.shape.empty()) return fmt::format("tensor '{}' has no shape", tensor.name);
    if (elements > kMaxTensorElementsForInt64Bytes)
      return fmt::format("tensor '{}' has shape {}: more than 10^18 elements", tensor.name, shape_text(tensor.shape));
  }
  std::vector<bool> produced(network.tensors.size(), false);
  std::vector<int> layer_runs(network.layers.size(), 0);
  for (const Operator& op : network.operators) {
    if (!operator_names.insert(op.name).second) return fmt::format("operator '{}' appears twice", op.name);
    for (std::size_t t : op.inputs) {
      if (t >= network.tensors.size()) return fmt::format("operator '{}' reads tensor #{}, which does not exist", op.name, t);
      if (!produced[t] && network.producer(t))
        return fmt::format("operator '{}' reads '{}' before the operator that produces it", op.name, network.tensors[t].name);
    }
    if (op.outputs.size() != 1) return fmt::format("operator '{}' writes {} tensors (expected 1)", op.name, op.outputs.size());
    for (std::size_t t : op.outputs) {
      if (t >= network.tensors.size()) return fmt::format("operator '{}' writes tensor #{}, which does not exist", op.name, t);
      if (produced[t]) return fmt::format("tensor '{}' is produced twice", network.tensors[t].name);
      if (network.tensors[t].constant) return fmt::format("operator '{}' writes the constant '{}'", op.name, network.tensors[t].name);
      produced[t] = true;
    }
    const bool fabric = op.kind == OperatorKind::FabricLayer;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const Tensor& tensor = network.tensors[op.inputs[i]];
      const bool parameter = i >= activation_inputs(network, op);
      if (tensor.constant && !parameter)
        return fmt::format("operator '{}' reads the constant '{}' as an activation", op.name, tensor.name);
      if (!tensor.constant && parameter)
        return fmt::format("operator '{}' reads '{}' as its {}, which is not a constant", op.name, tensor.name,
                           fabric                              ? (i == 1 ? "weights" : "bias")
                           : op.kind == OperatorKind::Lookup ? "table"
                                                             : (i == 1 ? "scale" : "shift"));
    }
    if (fabric && op.layer < network.layers.size()) ++layer_runs[op.layer];
    const InferredShape inferred = inferred_output_shape(network, op);
    if (inferred.violation) return inferred.violation;
    const Tensor& output = network.tensors[op.outputs[0]];
    if (output.shape != inferred.shape) {
      if (fabric)
        return fmt::format("operator '{}': its output '{}' has shape {}, layer '{}' needs {}", op.name, output.name,
                           shape_text(output.shape), network.layers[op.layer].name, shape_text(inferred.shape));
      return fmt::format("{} '{}': its output '{}' has shape {}, its inputs give {}", operator_label(op), op.name,
                         output.name, shape_text(output.shape), shape_text(inferred.shape));
    }
  }
  for (std::size_t l = 0; l < layer_runs.size(); ++l)
    if (layer_runs[l] != 1)
      return fmt::format("layer '{}' is run by {} operators (expected 1)", network.layers[l].name, layer_runs[l]);
  return std::nullopt;
}

}  // namespace maeri::contracts
