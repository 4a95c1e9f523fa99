// Non-finite values refused where they enter a chained run (see finite_values.hpp).
#include "testbench/finite_values.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::testbench {
namespace {

// "element 17 (0, 0, 1, 7)": the flat index, and the index in the shape when the shape holds exactly the values.
std::string element_text(std::size_t flat, std::size_t count, const std::vector<std::int64_t>& shape) {
  std::int64_t elements = 1;
  for (const std::int64_t extent : shape) elements *= extent;
  if (shape.empty() || elements != std::int64_t(count)) return fmt::format("element {}", flat);
  std::vector<std::int64_t> index(shape.size());
  std::int64_t rest = std::int64_t(flat);
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = rest % shape[d];
    rest /= shape[d];
  }
  return fmt::format("element {} ({})", flat, fmt::join(index, ", "));
}

// The index of the first value that is NaN or infinite, or values.size().
std::size_t first_nonfinite(const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) return i;
  return values.size();
}

}  // namespace

void require_finite(const std::vector<double>& values, const std::vector<std::int64_t>& shape, const std::string& file,
                    const std::string& field, const std::string& what) {
  const std::size_t at = first_nonfinite(values);
  if (at == values.size()) return;
  throw util::InputError({file, 0, 0}, field,
                         fmt::format("{} holds {} at {}: a chained run quantizes finite real values only", what,
                                     values[at], element_text(at, values.size(), shape)));
}

void require_finite_weights(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                            const std::string& file) {
  for (std::size_t o = 0; o < weights.size() && o < network.operators.size(); ++o) {
    const contracts::Operator& op = network.operators[o];
    // inputs[1] and inputs[2] are the tensors the weights and the bias (a channel affine's scale and shift, an
    // element-wise pair's constant operand) are given under.
    const auto tensor_name = [&](std::size_t input) {
      return input < op.inputs.size() && op.inputs[input] < network.tensors.size()
                 ? util::shown_value(network.tensors[op.inputs[input]].name)
                 : std::string("?");
    };
    const auto check = [&](const std::vector<double>& values, std::size_t input, const char* role) {
      const std::vector<std::int64_t> shape =
          input < op.inputs.size() && op.inputs[input] < network.tensors.size() ? network.tensors[op.inputs[input]].shape
                                                                                : std::vector<std::int64_t>{};
      require_finite(values, shape, file, "weights",
                     fmt::format("tensor '{}' ({} of {} '{}')", tensor_name(input), role, to_string(op.kind),
                                 util::shown_value(op.name)));
    };
    const bool affine = op.kind == contracts::OperatorKind::ChannelAffine ||
                        op.kind == contracts::OperatorKind::LayerNormalization;
    check(weights[o].weights, 1, affine ? "the scale" : op.kind == contracts::OperatorKind::FabricLayer
                                                            ? "the weights"
                                                            : "the constant operand");
    check(weights[o].bias, 2, affine ? "the shift" : "the bias");
  }
}

void require_finite_reference(const contracts::Network& network, const RealTensors& reals, const std::string& file) {
  for (const contracts::Operator& op : network.operators) {
    // Only sums of products overflow from finite values; a table function's pole (log 0, 1/0) is −∞ or NaN by its
    // domain rule (docs/quantization.md, "Table functions"), which its table saturates.
    // A fabric layer that reads such a value passes it on: only one whose activations are finite is overflowing.
    if (op.kind != contracts::OperatorKind::FabricLayer) continue;
    bool finite_inputs = true;
    for (const std::size_t input : op.inputs)
      if (input < reals.size() && first_nonfinite(reals[input]) != reals[input].size()) finite_inputs = false;
    if (!finite_inputs) continue;
    for (const std::size_t t : op.outputs) {
      if (t >= reals.size()) continue;
      const std::size_t at = first_nonfinite(reals[t]);
      if (at == reals[t].size()) continue;
      throw util::InputError(
          {file, 0, 0}, "operators",
          fmt::format("the float reference of {} '{}' computes {} at {} of its output '{}' from finite inputs and "
                      "weights (their products or sums overflow a double): scale the input or the weights down",
                      to_string(op.kind), util::shown_value(op.name), reals[t][at],
                      element_text(at, reals[t].size(), network.tensors[t].shape),
                      util::shown_value(network.tensors[t].name)));
    }
  }
}

}  // namespace maeri::testbench
