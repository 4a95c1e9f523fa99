// Network graph queries, the chain of a flat layer list and the graph's well-formedness rule (see network.hpp).
#include "contracts/network.hpp"

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
    network.tensors.push_back({std::move(tensor_name), std::move(shape), constant});
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

std::optional<std::string> network_violation(const Network& network) {
  std::set<std::string> tensor_names, operator_names;
  for (const Tensor& tensor : network.tensors)
    if (!tensor_names.insert(tensor.name).second) return fmt::format("tensor '{}' appears twice", tensor.name);
  std::vector<bool> produced(network.tensors.size(), false);
  std::vector<int> layer_runs(network.layers.size(), 0);
  for (const Operator& op : network.operators) {
    if (!operator_names.insert(op.name).second) return fmt::format("operator '{}' appears twice", op.name);
    for (std::size_t t : op.inputs) {
      if (t >= network.tensors.size()) return fmt::format("operator '{}' reads tensor #{}, which does not exist", op.name, t);
      if (!produced[t] && network.producer(t))
        return fmt::format("operator '{}' reads '{}' before the operator that produces it", op.name, network.tensors[t].name);
    }
    for (std::size_t t : op.outputs) {
      if (t >= network.tensors.size()) return fmt::format("operator '{}' writes tensor #{}, which does not exist", op.name, t);
      if (produced[t]) return fmt::format("tensor '{}' is produced twice", network.tensors[t].name);
      if (network.tensors[t].constant) return fmt::format("operator '{}' writes the constant '{}'", op.name, network.tensors[t].name);
      produced[t] = true;
    }
    if (op.kind == OperatorKind::FabricLayer) {
      if (op.layer >= network.layers.size()) return fmt::format("operator '{}' runs layer #{}, which does not exist", op.name, op.layer);
      ++layer_runs[op.layer];
      const Layer& layer = network.layers[op.layer];
      if (op.inputs.size() != 2 || op.outputs.size() != 1)
        return fmt::format("fabric operator '{}' needs 2 inputs (activation, weights) and 1 output", op.name);
      const auto expect = [&](std::size_t t, const std::vector<std::int64_t>& shape, const char* what) -> std::optional<std::string> {
        if (network.tensors[t].shape == shape) return std::nullopt;
        return fmt::format("operator '{}': its {} '{}' has shape ({}), layer '{}' needs ({})", op.name, what,
                           network.tensors[t].name, fmt::join(network.tensors[t].shape, ","), layer.name,
                           fmt::join(shape, ","));
      };
      if (auto problem = expect(op.inputs[0], input_shape(layer), "input")) return problem;
      if (auto problem = expect(op.inputs[1], weight_shape(layer), "weights")) return problem;
      if (auto problem = expect(op.outputs[0], output_shape(layer), "output")) return problem;
    }
  }
  for (std::size_t l = 0; l < layer_runs.size(); ++l)
    if (layer_runs[l] != 1)
      return fmt::format("layer '{}' is run by {} operators (expected 1)", network.layers[l].name, layer_runs[l]);
  return std::nullopt;
}

}  // namespace maeri::contracts
