// Computing the tensors the unit cannot, by the float reference from the real input (see float_computed_inputs.hpp).
#include "testbench/float_computed_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "importer/onnx_node_evaluation.hpp"
#include "util/input_error.hpp"

namespace maeri::testbench {
namespace {

// The float reference's progress: every Network tensor known so far, and the ONNX tensors the skipped nodes wrote.
class FloatProgress {
 public:
  FloatProgress(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                const SkippedNodes& skipped)
      : network_(network), weights_(weights), skipped_(skipped), tensors_(network.tensors.size()),
        evaluated_(skipped.nodes.size(), false) {
    for (std::size_t t = 0; t < network.tensors.size(); ++t) index_[network.tensors[t].name] = t;
  }

  RealTensors& tensors() { return tensors_; }

  // One pass over the operators and the skipped nodes: each that can run now runs. Whether any did.
  bool advance() {
    bool progress = false;
    for (std::size_t op = 0; op < network_.operators.size(); ++op) {
      const contracts::Operator& o = network_.operators[op];
      if (!tensors_[o.outputs[0]].empty()) continue;
      bool ready = true;
      for (std::size_t i = 0; i < contracts::activation_inputs(network_, o); ++i)
        ready = ready && known(o.inputs[i]);
      if (!ready) continue;
      run_float_operator(network_, op, weights_[op], tensors_);
      progress = true;
    }
    for (std::size_t n = 0; n < skipped_.nodes.size(); ++n)
      if (!evaluated_[n] && importer::evaluates(skipped_.nodes[n].op_type)) progress = evaluate(n) || progress;
    return progress;
  }

  // Why skipped node `node` has not run: the first input nothing computes.
  std::string blocked(const importer::SkippedNode& node) const {
    for (const std::string& input : node.inputs)
      if (!input.empty() && !value(input))
        return fmt::format("it reads '{}', which {}", input,
                           skipped_.graph.held_by.count(input) ? "is not computed from the real input"
                                                               : "the toolkit's network does not hold");
    return "its inputs are known";
  }

 private:
  bool known(std::size_t tensor) const {
    return !tensors_[tensor].empty() || network_.tensors[tensor].elements() == 0;
  }

  // The value of ONNX tensor `name` when known: a skipped node's output, a constant, or a Network tensor's.
  const importer::RealArray* value(const std::string& name) const {
    if (const auto found = written_.find(name); found != written_.end()) return &found->second;
    if (const auto found = skipped_.graph.constants.find(name); found != skipped_.graph.constants.end())
      return &found->second;
    const auto held = skipped_.graph.held_by.find(name);
    if (held == skipped_.graph.held_by.end()) return nullptr;
    const auto tensor = index_.find(held->second);
    if (tensor == index_.end() || !known(tensor->second)) return nullptr;
    const auto shape = skipped_.graph.shapes.find(name);
    held_[name] = {shape != skipped_.graph.shapes.end() ? shape->second : network_.tensors[tensor->second].shape,
                   tensors_[tensor->second]};
    return &held_[name];
  }

  bool evaluate(std::size_t n) {
    const importer::SkippedNode& node = skipped_.nodes[n];
    std::vector<const importer::RealArray*> inputs;
    for (const std::string& input : node.inputs) {
      inputs.push_back(input.empty() ? nullptr : value(input));
      if (!input.empty() && !inputs.back()) return false;
    }
    const std::vector<importer::RealArray> outputs = importer::evaluate_skipped_node(node, inputs, skipped_.graph);
    evaluated_[n] = true;
    for (std::size_t o = 0; o < outputs.size() && o < node.outputs.size(); ++o) {
      written_[node.outputs[o]] = outputs[o];
      const auto tensor = index_.find(node.outputs[o]);
      if (tensor == index_.end() || network_.producer(tensor->second) || network_.tensors[tensor->second].constant)
        continue;
      if (std::int64_t(outputs[o].values.size()) != network_.tensors[tensor->second].elements())
        throw std::invalid_argument(fmt::format("node {} ({}) computes {} values of '{}', the network's tensor holds {}",
                                                node.name, node.op_type, outputs[o].values.size(), node.outputs[o],
                                                network_.tensors[tensor->second].elements()));
      tensors_[tensor->second] = outputs[o].values;
    }
    return true;
  }

  const contracts::Network& network_;
  const std::vector<RealLayerWeights>& weights_;
  const SkippedNodes& skipped_;
  RealTensors tensors_;
  std::vector<bool> evaluated_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, importer::RealArray> written_;
  mutable std::map<std::string, importer::RealArray> held_;
};

}  // namespace

std::map<std::size_t, std::string> float_computed_inputs(const contracts::Network& network, const SkippedNodes& skipped) {
  std::map<std::size_t, std::string> computed;
  for (const std::size_t t : network.network_inputs())
    for (const importer::SkippedNode& node : skipped.nodes)
      if (importer::evaluates(node.op_type) &&
          std::count(node.outputs.begin(), node.outputs.end(), network.tensors[t].name))
        computed[t] = fmt::format("node {} ({})", node.name, node.op_type);
  return computed;
}

void compute_float_inputs(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                          const std::vector<std::size_t>& inputs, const std::map<std::size_t, std::string>& computed,
                          const SkippedNodes& skipped, const std::string& workload_path,
                          std::vector<std::vector<double>>& values) {
  FloatProgress progress(network, weights, skipped);
  bool missing = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    progress.tensors()[inputs[i]] = values[i];
    missing = missing || values[i].empty();
  }
  if (!missing) return;
  try {
    while (progress.advance()) {
    }
  } catch (const std::invalid_argument& error) {
    throw util::InputError({workload_path, 0, 0}, "skipped nodes",
                           fmt::format("the float reference cannot compute a tensor the unit does not: {}", error.what()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!values[i].empty()) continue;
    values[i] = progress.tensors()[inputs[i]];
    if (!values[i].empty()) continue;
    const auto origin = computed.find(inputs[i]);
    std::string why = "no skipped node writes it";
    if (origin != computed.end())
      for (const importer::SkippedNode& node : skipped.nodes)
        if (std::count(node.outputs.begin(), node.outputs.end(), network.tensors[inputs[i]].name))
          why = fmt::format("{}, which the float reference computes from the real input, cannot run: {}", origin->second,
                            progress.blocked(node));
    throw util::InputError({workload_path, 0, 0}, "inputs",
                           fmt::format("network {}: tensor '{}' cannot be computed from the real input ({}); give it "
                                       "as a member of an .npz named by the tensor",
                                       network.name, network.tensors[inputs[i]].name, why));
  }
}

}  // namespace maeri::testbench
