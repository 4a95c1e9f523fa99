// LSTM, GRU and RNN unrolled into GEMM layers: per direction and time step, the input product and the recurrent
// product, with the slices of W, R and B that belong to them.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include "contracts/strict_yaml.hpp"

namespace maeri::importer {

// LSTM, GRU, RNN: per direction and time step, the input product x_t·Wᵀ and the recurrent product h_{t−1}·Rᵀ as
// GEMM layers of (batch) rows; the gates (sigmoid, tanh, element-wise products) run beside the fabric and are
// not operators of the contract, so the unrolled layers read and write network tensors of their own.
void GraphReader::recurrent(const onnx::NodeProto& node, const std::string& name) {
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
  SkippedNode evaluated{name, op, "", {node.output().begin(), node.output().end()},
                        {node.input().begin(), node.input().end()}, node.SerializeAsString()};
  evaluated.outputs.resize(3);  // Y, Y_h, Y_c ("" : not written)
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
        // The layer's own network input (x_t or h_{t−1}), for the float reference to compute.
        const contracts::Operator& fabric = network().operators.back();
        evaluated.outputs.push_back(fabric.kind == contracts::OperatorKind::FabricLayer
                                        ? network().tensors[fabric.inputs[0]].name
                                        : "");
      }
    }
  }
  result_.recurrent.push_back(std::move(evaluated));
  note(fmt::format("layer {}: {} unrolled over {} time steps{} into {} GEMM layers; its gates run beside the "
                   "fabric, its outputs are network inputs of the layers after it",
                   name, op, steps, directions == 2 ? " in both directions" : "", steps * directions * 2));
}

}  // namespace maeri::importer
