// The quantizer (see quantization.hpp): docs/quantization.md, "Quantization" and "Operators", one function per rule.
#include "testbench/quantization.hpp"

#include "testbench/layer_normalization.hpp"
#include "testbench/table_lookup.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "contracts/elementwise_pairs.hpp"
#include "contracts/hardware.hpp"
#include "contracts/matrix_product.hpp"
#include "contracts/table_lookup.hpp"
#include "util/integer_math.hpp"

namespace maeri::testbench {

namespace {

using contracts::Network;
using contracts::Operator;
using contracts::OperatorKind;

// A value in [−bound, bound), from the top 53 bits of one draw (the same on every standard library).
double uniform(std::mt19937_64& rng, double bound) {
  const double unit = double(rng() >> 11) * 0x1.0p-53;
  return (2 * unit - 1) * bound;
}

// round(value) (ties away from zero) clamped to [low, high] before it is converted, so that no value overflows.
std::int64_t round_clamped(double value, double low, double high) {
  if (!(value > low)) return std::int64_t(low);  // NaN too: the real inputs are finite, this only keeps it defined
  if (value >= high) return std::int64_t(high);
  return std::int64_t(std::llround(value));
}

// The range [low, high] the readers of each tensor keep, when every reader is a clip or a ReLU (and the network does
// not give the tensor back): values beyond it leave the network only as the bound, so the tensor's scale needs to
// resolve that range alone (docs/quantization.md, "A tensor read only by clips"). Unbounded tensors get ±∞.
struct KeptRange {
  double low = -HUGE_VAL, high = HUGE_VAL;
};

// Activation scale from the calibration run: max |clamp(r, low, high)| / limit over the finite values (a table
// function's pole, log 0, gives −∞ there, which its table saturates) and the range its readers keep (kept_ranges;
// all of them by default), 1 when the tensor is all zero.
double calibrated_scale(const std::vector<double>& reals, std::int64_t limit, const KeptRange& range = {}) {
  double max = 0;
  for (double r : reals)
    if (std::isfinite(r)) max = std::max(max, std::abs(std::clamp(r, range.low, range.high)));
  return max > 0 ? max / double(limit) : 1.0;
}
std::vector<KeptRange> kept_ranges(const Network& network) {
  std::vector<KeptRange> ranges(network.tensors.size());
  std::vector<bool> read(network.tensors.size(), false), bounded(network.tensors.size(), true);
  for (const Operator& op : network.operators)
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const std::size_t t = op.inputs[i];
      if (i > 0 || (op.kind != OperatorKind::Clip && op.kind != OperatorKind::Relu)) {
        bounded[t] = false;
        continue;
      }
      const double low = op.kind == OperatorKind::Clip ? op.clip_min : 0.0;
      const double high = op.kind == OperatorKind::Clip ? op.clip_max : HUGE_VAL;
      KeptRange& range = ranges[t];
      range.low = read[t] ? std::min(range.low, low) : low;  // the union of the readers' ranges
      range.high = read[t] ? std::max(range.high, high) : high;
      read[t] = true;
    }
  for (std::size_t t = 0; t < ranges.size(); ++t)
    if (!read[t] || !bounded[t]) ranges[t] = KeptRange{};
  return ranges;
}

// Products one output of a fabric layer sums.
std::int64_t fan_in(const contracts::Layer& layer) { return layer.group_channels() * layer.R * layer.S; }

// Whether the operator's output keeps its (first) input's scale: they never make a value larger than their input's
// largest.
bool keeps_scale(OperatorKind kind) {
  switch (kind) {
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool:
    case OperatorKind::Reshape:
    case OperatorKind::Transpose:  // data movement: the same integers in other places
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::ReduceMean:  // a mean or a maximum of the input's values
    case OperatorKind::ReduceMax:
    case OperatorKind::Resize:  // copies or convex combinations of its input's values
    case OperatorKind::Pad:  // its border is the integer 0 at any scale
      return true;
    default:
      return false;
  }
}

// What a fabric layer's filter scales depend on besides its weights (docs/quantization.md, "Biases that fit").
struct FilterContext {
  std::int64_t weight_limit = 0;  // quantization_limits' weights for the layer
  double input_scale = 0, output_scale = 0;
  double input_max = 0;                // max |r| of the layer's input in the calibration run
  std::vector<double> output_max;      // per output channel k: max |r| of the layer's output there
  std::int64_t fan_in = 0;
  double accumulator_max = 0;          // 2^(acc_width − 1) − 1 (capped at the largest double below 2^63)
  bool headroom = true;                // QuantizationOptions::accumulator_headroom
};

FilterContext filter_context(const contracts::Layer& layer, std::int64_t weight_limit, double input_scale,
                             double output_scale, const std::vector<double>& input, const std::vector<double>& output,
                             const QuantizationOptions& options) {
  FilterContext context;
  context.headroom = options.accumulator_headroom;
  context.weight_limit = weight_limit;
  context.input_scale = input_scale;
  context.output_scale = output_scale;
  for (double r : input) context.input_max = std::max(context.input_max, std::abs(r));
  context.output_max.assign(std::size_t(layer.K), 0.0);
  const std::size_t plane = std::size_t(layer.output_x() * layer.output_y());  // (N, K, X', Y')
  for (std::size_t i = 0; plane > 0 && i < output.size(); ++i) {
    double& max = context.output_max[(i / plane) % std::size_t(layer.K)];
    max = std::max(max, std::abs(output[i]));
  }
  context.fan_in = fan_in(layer);
  context.accumulator_max = std::min(std::ldexp(1.0, options.acc_width - 1) - 1, 0x1.fffffffffffffp+62);
  return context;
}

// Filter k's weight scale: max |w| / limit, unless its bias at the accumulator's scale would not fit beside the sum of
// products the calibration input makes (the epilogue's sum would saturate and wrap, and the channel lose its meaning):
// then the scale grows until |Σ| + |b| ≤ 2^(acc_width − 1) − 1 at the accumulator's scale s_in · s_w, with |Σ| at
// most max|y_k| + |b| (the layer's output on channel k, bias included): coarser weights, the bias kept. A near-zero
// filter, whose products cannot move an output by half a step (max|w| · max|r_in| · fan_in < s_out / 2: dead or
// denormal weights), quantizes to zero weights at the scale its bias needs alone, so that it outputs its bias. Without
// accumulator headroom (every tensor at the full range, sums allowed to wrap) only the bias itself must fit.
double filter_weight_scale(double max_weight, double bias, std::size_t k, const FilterContext& c) {
  const bool near_zero = max_weight * c.input_max * double(c.fan_in) < c.output_scale / 2;
  const double by_weights = near_zero ? 0.0 : max_weight / double(c.weight_limit);
  const double beside = c.headroom ? c.output_max[k] + 2 * std::abs(bias) : std::abs(bias);
  const double by_bias = beside / (c.input_scale * c.accumulator_max);
  const double scale = std::max(by_weights, by_bias);
  return scale > 0 && std::isfinite(scale) ? scale : 1.0;
}

// A fabric layer's weights per output channel, its bias at the accumulator's scale and its requantizations.
void quantize_fabric_layer(const contracts::Layer& layer, const RealLayerWeights& real, const FilterContext& context,
                           int acc_width, contracts::QuantizedOperator& q) {
  const std::size_t per_filter = std::size_t(layer.weight_elements() / layer.K);
  // The AW-bit two's-complement range; above 2^53 the largest double below 2^63 stands for 2^63 − 1.
  const double acc_low = -std::ldexp(1.0, acc_width - 1);
  const double acc_high = std::min(std::ldexp(1.0, acc_width - 1) - 1, 0x1.fffffffffffffp+62);
  const double weight_limit = double(context.weight_limit);
  for (std::size_t k = 0; k < std::size_t(layer.K); ++k) {
    const auto first = real.weights.begin() + std::ptrdiff_t(k * per_filter);
    double max = 0;
    for (auto w = first; w != first + std::ptrdiff_t(per_filter); ++w) max = std::max(max, std::abs(*w));
    const double bias = real.bias.empty() ? 0.0 : real.bias[k];
    const double weight_scale = filter_weight_scale(max, bias, k, context);
    for (auto w = first; w != first + std::ptrdiff_t(per_filter); ++w)
      q.weights.push_back(round_clamped(*w / weight_scale, -weight_limit, weight_limit));
    const double accumulator_scale = context.input_scale * weight_scale;
    q.bias.push_back(round_clamped(bias / accumulator_scale, acc_low, acc_high));
    q.output.push_back(contracts::requantization_of(accumulator_scale / context.output_scale));
  }
}

// A matrix product: its weights are its operand A, quantized like any activation (per tensor, at run time), so one
// requantization s_A · s_B / s_out serves every filter, and it has no bias.
void quantize_matrix_product(const contracts::Layer& layer, double a_scale, double b_scale, double output_scale,
                             contracts::QuantizedOperator& q) {
  q.bias.assign(std::size_t(layer.K), 0);
  q.output.assign(std::size_t(layer.K), contracts::requantization_of(a_scale * b_scale / output_scale));
}

// Add's and concat's multipliers: mᵢ ≈ sᵢ / s_out · 2^shift with one shift, the largest (≤ 62) at which every
// multiplier stays below 2^31. When even shift 0 cannot (an input's scale ≥ 2^31 times the output's), the multiplier
// saturates at 2^31 − 1.
void quantize_input_multipliers(const std::vector<double>& input_scales, double output_scale,
                                contracts::QuantizedOperator& q) {
  const double below_2_31 = 2147483647.5;  // llround gives at most 2^31 − 1 below this
  q.input_shift = 0;
  for (int shift = 62; shift >= 0; --shift)
    if (std::all_of(input_scales.begin(), input_scales.end(),
                    [&](double s) { return std::ldexp(s / output_scale, shift) < below_2_31; })) {
      q.input_shift = shift;
      break;
    }
  for (double s : input_scales)
    q.input_multipliers.push_back(round_clamped(std::ldexp(s / output_scale, q.input_shift), 0, 2147483647.0));
}

// exp_table[d] = round(2^15 · exp(−d · s_in)), cut after its first 0; d never exceeds 2L (two data integers apart).
std::vector<std::int64_t> softmax_exp_table(double input_scale, int data_width) {
  const std::int64_t largest_difference = 2 * contracts::data_limit(data_width);
  std::vector<std::int64_t> table;
  for (std::int64_t d = 0; d <= largest_difference; ++d) {
    table.push_back(std::llround(std::ldexp(std::exp(-double(d) * input_scale), 15)));
    if (table.back() == 0) break;
  }
  return table;
}

// A channel affine's multipliers m_c ≈ scale_c · s_in / s_out · 2^shift and offsets b_c = round(shift_c / s_out ·
// 2^shift) at one shift, the largest (≤ 62) at which every |m_c| stays below 2^31 and every |b_c| at most 2^62 (so
// that x·m + b never leaves 64 bits); beyond even shift 0 they saturate there.
void quantize_channel_affine(const RealLayerWeights& real, double input_scale, double output_scale,
                             contracts::QuantizedOperator& q) {
  const double below_2_31 = 2147483647.5, offset_limit = 0x1.0p62;
  const auto fits = [&](int shift) {
    for (std::size_t c = 0; c < real.weights.size(); ++c)
      if (!(std::abs(std::ldexp(real.weights[c] * input_scale / output_scale, shift)) < below_2_31) ||
          !(std::abs(std::ldexp(real.bias[c] / output_scale, shift)) <= offset_limit))
        return false;
    return true;
  };
  q.channel_shift = 0;
  for (int shift = 62; shift > 0; --shift)
    if (fits(shift)) {
      q.channel_shift = shift;
      break;
    }
  for (std::size_t c = 0; c < real.weights.size(); ++c) {
    q.channel_multipliers.push_back(round_clamped(
        std::ldexp(real.weights[c] * input_scale / output_scale, q.channel_shift), -2147483647.0, 2147483647.0));
    q.channel_offsets.push_back(
        round_clamped(std::ldexp(real.bias[c] / output_scale, q.channel_shift), -offset_limit, offset_limit));
  }
}

// A channel affine's scale and shift: those given by their tensors' names, the others from the seed and the
// operator's index, scale U(0.5, 1.5) and shift U(−0.5, 0.5) (a trained batch normalization's usual range); a given
// scale without a given shift has none (0), as a fabric layer's weights without a bias.
RealLayerWeights channel_affine_values(const Network& network, std::size_t o, const NamedRealTensors& given,
                                       std::uint64_t seed) {
  const Operator& op = network.operators[o];
  if (op.inputs.size() != 3 || op.inputs[0] >= network.tensors.size() || op.inputs[1] >= network.tensors.size() ||
      op.inputs[2] >= network.tensors.size() || network.tensors[op.inputs[1]].shape.empty())
    throw std::invalid_argument(fmt::format("{} '{}' has no input, scale or shift tensor", to_string(op.kind), op.name));
  const std::int64_t channels = network.tensors[op.inputs[1]].elements();  // C, or a row's elements
  const auto lookup = [&](std::size_t input) -> const std::vector<double>* {
    const std::string& name = network.tensors[op.inputs[input]].name;
    const auto found = given.find(name);
    if (found == given.end()) return nullptr;
    if (std::int64_t(found->second.size()) != channels)
      throw std::invalid_argument(fmt::format("tensor '{}' of {} '{}' has {} values, the operator needs {}",
                                              name, to_string(op.kind), op.name, found->second.size(), channels));
    return &found->second;
  };
  const std::vector<double>* given_scale = lookup(1);
  const std::vector<double>* given_shift = lookup(2);
  RealLayerWeights values;
  std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(o)};
  std::mt19937_64 rng(sequence);
  for (std::int64_t c = 0; c < channels; ++c) {
    const double scale = 1.0 + uniform(rng, 0.5), shift = uniform(rng, 0.5);
    values.weights.push_back(given_scale ? (*given_scale)[std::size_t(c)] : scale);
    values.bias.push_back(given_shift ? (*given_shift)[std::size_t(c)] : given_scale ? 0.0 : shift);
  }
  return values;
}

// activation_table[x + L] = round(f(x · s_in) / s_out) clamped to [−L, L], for every input integer x ∈ [−L, L], f
// being contracts::table_value (the function, with the domain rule of docs/quantization.md, "Table functions").
std::vector<std::int64_t> activation_table(const Operator& op, double input_scale, double output_scale, int data_width) {
  const std::int64_t limit = contracts::data_limit(data_width);
  std::vector<std::int64_t> table;
  table.reserve(std::size_t(2 * limit + 1));
  for (std::int64_t x = -limit; x <= limit; ++x)
    table.push_back(round_clamped(contracts::table_value(op.function, double(x) * input_scale) / output_scale, double(-limit),
                                  double(limit)));
  return table;
}

// Whether a pair with a constant operand computes indices (contracts::index_extents: its input and output at scale 1,
// a lookup reads the result): its constant is then whole numbers at scale 1 too, so that ids + offset is exact;
// a constant that is not whole numbers within ±L is refused naming the operator.
bool index_arithmetic(const Network& network, const Operator& op, const std::vector<double>& constant,
                      double first_scale, double output_scale, int data_width) {
  if (first_scale != 1.0 || output_scale != 1.0 || contracts::index_extents(network)[op.outputs[0]] == 0) return false;
  const double limit = double(contracts::data_limit(data_width));
  for (const double c : constant)
    if (std::floor(c) != c || std::abs(c) > limit)
      throw std::invalid_argument(fmt::format("operator '{}' computes the indices of a lookup with the constant {}: "
                                              "indices need whole numbers within ±{}",
                                              op.name, c, limit));
  return true;
}

// An element-wise pair's second operand's scale: a tensor's own, or for a constant operand max |c| / L (the full
// data range: its integers enter no fabric sum), its integers stored with the operator. Then add, sub, max, min
// get the multipliers of both operands to the output's scale (quantize_input_multipliers), mul the requantization
// of the product (s_a · s_b / s_out).
void quantize_pair(const Network& network, std::size_t o, const RealLayerWeights& real, double first_scale,
                   double output_scale, int data_width, contracts::QuantizedNetwork& quantized) {
  const Operator& op = network.operators[o];
  contracts::QuantizedOperator& q = quantized.operators[o];
  double second_scale = quantized.tensors[op.inputs[1]].scale;
  if (contracts::activation_inputs(network, op) == 1) {
    second_scale = index_arithmetic(network, op, real.weights, first_scale, output_scale, data_width)
                       ? 1.0
                       : calibrated_scale(real.weights, contracts::data_limit(data_width));
    q.constant = quantize_values(real.weights, second_scale, data_width);
    q.constant_shape = network.tensors[op.inputs[1]].shape;
  }
  if (op.kind == OperatorKind::Mul)
    q.product = contracts::requantization_of(first_scale * second_scale / output_scale);
  else
    quantize_input_multipliers({first_scale, second_scale}, output_scale, q);
}

// An element-wise pair's constant operand: the values given under its tensor's name, else U(−1, 1) from the seed and
// the operator's index. Throws std::invalid_argument when given ones have the wrong number of elements.
RealLayerWeights constant_operand_values(const Network& network, std::size_t o, const NamedRealTensors& given,
                                         std::uint64_t seed) {
  const contracts::Tensor& tensor = network.tensors.at(network.operators[o].inputs.at(1));
  RealLayerWeights values;
  const auto found = given.find(tensor.name);
  if (found != given.end()) {
    if (std::int64_t(found->second.size()) != tensor.elements())
      throw std::invalid_argument(fmt::format("constant '{}' of operator '{}' has {} values, its shape has {}",
                                              tensor.name, network.operators[o].name, found->second.size(),
                                              tensor.elements()));
    values.weights = found->second;
    return values;
  }
  std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(o)};
  std::mt19937_64 rng(sequence);
  for (std::int64_t i = 0; i < tensor.elements(); ++i) values.weights.push_back(uniform(rng, 1.0));
  return values;
}

}  // namespace

std::vector<RealLayerWeights> complete_weights(const Network& network, const NamedRealTensors& given,
                                               std::uint64_t seed) {
  std::vector<RealLayerWeights> weights(network.operators.size());
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    if (op.kind == OperatorKind::ChannelAffine || op.kind == OperatorKind::LayerNormalization) {
      weights[o] = channel_affine_values(network, o, given, seed);
      continue;
    }
    if ((contracts::is_elementwise_pair(op.kind) || op.kind == OperatorKind::Lookup) && op.inputs.size() == 2 &&
        op.inputs[1] < network.tensors.size() && contracts::activation_inputs(network, op) == 1) {
      weights[o] = constant_operand_values(network, o, given, seed);
      continue;
    }
    if (op.kind != OperatorKind::FabricLayer || contracts::is_matrix_product(op)) continue;  // a product's are data
    if (op.layer >= network.layers.size() || op.inputs.size() < 2 || op.inputs[1] >= network.tensors.size() ||
        (op.inputs.size() > 2 && op.inputs[2] >= network.tensors.size()))
      throw std::invalid_argument(fmt::format("fabric operator '{}' has no layer or weights tensor", op.name));
    const contracts::Layer& layer = network.layers[op.layer];
    const auto lookup = [&](std::size_t input, std::int64_t elements) -> const std::vector<double>* {
      if (op.inputs.size() <= input) return nullptr;
      const std::string& name = network.tensors[op.inputs[input]].name;
      const auto found = given.find(name);
      if (found == given.end()) return nullptr;
      if (std::int64_t(found->second.size()) != elements)
        throw std::invalid_argument(fmt::format("tensor '{}' of layer '{}' has {} values, the layer needs {}", name,
                                                layer.name, found->second.size(), elements));
      return &found->second;
    };
    const std::vector<double>* given_weights = lookup(1, layer.weight_elements());
    const std::vector<double>* given_bias = lookup(2, layer.K);
    if (given_bias) weights[o].bias = *given_bias;
    if (given_weights) {
      weights[o].weights = *given_weights;
      continue;
    }
    std::seed_seq sequence{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(o)};
    std::mt19937_64 rng(sequence);
    const double products = double(fan_in(layer));
    for (std::int64_t i = 0; i < layer.weight_elements(); ++i)
      weights[o].weights.push_back(uniform(rng, std::sqrt(6.0 / products)));
    if (!given_bias)
      for (std::int64_t k = 0; k < layer.K; ++k) weights[o].bias.push_back(uniform(rng, 1.0 / std::sqrt(products)));
  }
  return weights;
}

QuantizationLimits quantization_limits(const Network& network, const QuantizationOptions& options) {
  std::vector<int> fan_in_bits(network.operators.size(), 0);
  for (std::size_t o = 0; o < network.operators.size(); ++o)
    if (network.operators[o].kind == OperatorKind::FabricLayer)
      fan_in_bits[o] = util::ceil_log2(fan_in(network.layers.at(network.operators[o].layer)));
  return quantization_limits(network, options, fan_in_bits);
}

QuantizationLimits quantization_limits(const Network& network, const QuantizationOptions& options,
                                       const std::vector<int>& sum_bits) {
  const int magnitude_bits = options.data_width - 1;
  QuantizationLimits limits;
  limits.weights.assign(network.operators.size(), 0);
  // Each fabric layer asks half of what a sum of at most 2^g products leaves of acc_width − 1 bits for the tensors
  // it reads (a + w + g ≤ acc_width − 1: the sum stays below 2^(acc_width − 1)); a tensor gets the least any reader
  // asks, through the operators that hand their input's scale on (a ReLU's input is scaled for the ReLU's readers);
  // a tensor no fabric layer reads keeps the full range.
  std::vector<int> activation_bits(network.tensors.size(), magnitude_bits);
  const auto asked = [&](std::size_t o) {
    return options.accumulator_headroom
               ? std::clamp((options.acc_width - 1 - sum_bits.at(o)) / 2, 1, magnitude_bits)
               : magnitude_bits;
  };
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    if (op.kind != OperatorKind::FabricLayer) continue;
    const std::size_t operands = contracts::is_matrix_product(op) ? 2 : 1;
    for (std::size_t i = 0; i < operands; ++i)
      activation_bits[op.inputs[i]] = std::min(activation_bits[op.inputs[i]], asked(o));
  }
  for (std::size_t o = network.operators.size(); o-- > 0;) {
    const Operator& op = network.operators[o];
    if (keeps_scale(op.kind))
      activation_bits[op.inputs[0]] = std::min(activation_bits[op.inputs[0]], activation_bits[op.outputs[0]]);
  }
  for (const Operator& op : network.operators)  // what the readers of a kept scale actually get
    if (keeps_scale(op.kind)) activation_bits[op.outputs[0]] = activation_bits[op.inputs[0]];
  limits.activation.resize(network.tensors.size());
  for (std::size_t t = 0; t < network.tensors.size(); ++t)
    limits.activation[t] = (std::int64_t{1} << activation_bits[t]) - 1;
  // Each layer's weights take the bits its input and its sums leave.
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    if (op.kind != OperatorKind::FabricLayer) continue;
    const int weight_bits =
        options.accumulator_headroom
            ? std::clamp(options.acc_width - 1 - sum_bits[o] - activation_bits[op.inputs[0]], 1, magnitude_bits)
            : magnitude_bits;
    limits.weights[o] = (std::int64_t{1} << weight_bits) - 1;
  }
  return limits;
}

namespace {

double max_magnitude(const std::vector<double>& values) {
  double max = 0;
  for (double v : values)
    if (std::isfinite(v)) max = std::max(max, std::abs(v));
  return max;
}

// P of observed_sum_bits for one fabric layer (not a matrix product): its filters' largest |y − b_k| over
// max |x| · max |w_k|.
double observed_fan_in(const contracts::Layer& layer, const RealLayerWeights& real, const std::vector<double>& input,
                       const std::vector<double>& output) {
  const double input_max = max_magnitude(input);
  const std::size_t per_filter = std::size_t(layer.weight_elements() / layer.K);
  const std::size_t plane = std::size_t(layer.output_x() * layer.output_y());  // (N, K, X', Y'), samples in turn
  std::vector<double> sum_max(std::size_t(layer.K), 0.0);
  for (std::size_t i = 0; plane > 0 && i < output.size(); ++i) {
    const std::size_t k = (i / plane) % std::size_t(layer.K);
    const double bias = real.bias.empty() ? 0.0 : real.bias[k];
    if (std::isfinite(output[i])) sum_max[k] = std::max(sum_max[k], std::abs(output[i] - bias));
  }
  double fan_in_seen = 0;
  for (std::size_t k = 0; k < std::size_t(layer.K); ++k) {
    const std::vector<double> filter(real.weights.begin() + std::ptrdiff_t(k * per_filter),
                                     real.weights.begin() + std::ptrdiff_t((k + 1) * per_filter));
    const double weight_max = max_magnitude(filter);
    if (weight_max > 0 && input_max > 0) fan_in_seen = std::max(fan_in_seen, sum_max[k] / (input_max * weight_max));
  }
  return fan_in_seen;
}

}  // namespace

std::vector<int> observed_sum_bits(const Network& network, const std::vector<RealLayerWeights>& weights,
                                   const RealTensors& reals) {
  std::vector<int> bits(network.operators.size(), 0);
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    if (op.kind != OperatorKind::FabricLayer) continue;
    const contracts::Layer& layer = network.layers.at(op.layer);
    const std::vector<double>& output = reals[op.outputs[0]];
    double seen = 0;
    if (contracts::is_matrix_product(op)) {
      const double operands = max_magnitude(reals[op.inputs[0]]) * max_magnitude(reals[op.inputs[1]]);
      seen = operands > 0 ? max_magnitude(output) / operands : 0.0;
    } else {
      seen = observed_fan_in(layer, weights[o], reals[op.inputs[0]], output);
    }
    const int worst = util::ceil_log2(fan_in(layer));
    const double twice = std::min(2 * seen, std::ldexp(1.0, worst));  // ≤ 2^worst, so that the cast cannot overflow
    bits[o] = std::clamp(util::ceil_log2(std::max<std::int64_t>(1, std::int64_t(std::ceil(twice)))), 0, worst);
  }
  return bits;
}

contracts::QuantizedNetwork quantize_network(const Network& network, const std::vector<RealLayerWeights>& weights,
                                             const std::vector<std::vector<double>>& calibration_inputs,
                                             const QuantizationOptions& options) {
  return quantize_network_calibrated(network, weights, {calibration_inputs}, options);
}

namespace {

// Every tensor of the float reference on each sample, the samples' values of one tensor one after another: a
// tensor's max |r| is the set's, and a layer's output channel k (i / plane mod K) is read the same way.
RealTensors float_reference_of_set(const Network& network, const std::vector<RealLayerWeights>& weights,
                                   const std::vector<std::vector<std::vector<double>>>& samples) {
  if (samples.empty()) throw std::invalid_argument("quantize_network: the calibration set is empty");
  RealTensors joined = float_reference(network, weights, samples[0]);
  for (std::size_t s = 1; s < samples.size(); ++s) {
    const RealTensors reals = float_reference(network, weights, samples[s]);
    for (std::size_t t = 0; t < joined.size(); ++t) joined[t].insert(joined[t].end(), reals[t].begin(), reals[t].end());
  }
  return joined;
}

// The parameters of operator `o` once its output's scale is set: a fabric layer's weights and requantization, a
// pair's or a concat's input multipliers, a table, a clip's bounds, … (docs/quantization.md); the operators that
// only move or select values keep their input's integers and need none.
void quantize_operator(const Network& network, std::size_t o, const std::vector<RealLayerWeights>& weights,
                       const RealTensors& reals, const QuantizationLimits& limits, const QuantizationOptions& options,
                       contracts::QuantizedNetwork& quantized) {
  const int data_width = options.data_width, acc_width = options.acc_width;
  const Operator& op = network.operators[o];
  const std::size_t output = op.outputs[0];
  contracts::QuantizedOperator& q = quantized.operators[o];
  const auto scale_of = [&](std::size_t tensor) { return quantized.tensors[tensor].scale; };
  switch (op.kind) {
    case OperatorKind::FabricLayer:
      if (contracts::is_matrix_product(op)) {
        quantize_matrix_product(network.layers[op.layer], scale_of(op.inputs[1]), scale_of(op.inputs[0]),
                                scale_of(output), q);
        break;
      }
      quantize_fabric_layer(network.layers[op.layer], weights[o],
                            filter_context(network.layers[op.layer], limits.weights[o], scale_of(op.inputs[0]),
                                           scale_of(output), reals[op.inputs[0]], reals[output], options),
                            acc_width, q);
      break;
    case OperatorKind::Requantize:
    case OperatorKind::ReduceSum:
      q.output.push_back(contracts::requantization_of(scale_of(op.inputs[0]) / scale_of(output)));
      break;
    case OperatorKind::Clip: {
      const double L = double(contracts::data_limit(data_width));
      q.clip_min = round_clamped(op.clip_min / scale_of(output), -L, L);
      q.clip_max = round_clamped(op.clip_max / scale_of(output), -L, L);
      break;
    }
    case OperatorKind::Concat: {
      std::vector<double> input_scales;
      for (std::size_t t : op.inputs) input_scales.push_back(scale_of(t));
      quantize_input_multipliers(input_scales, scale_of(output), q);
      break;
    }
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Mul:
      quantize_pair(network, o, weights[o], scale_of(op.inputs[0]), scale_of(output), data_width, quantized);
      break;
    case OperatorKind::Softmax:
      q.exp_table = softmax_exp_table(scale_of(op.inputs[0]), data_width);
      break;
    case OperatorKind::ChannelAffine:
      quantize_channel_affine(weights[o], scale_of(op.inputs[0]), scale_of(output), q);
      break;
    case OperatorKind::Relu:
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool:
    case OperatorKind::Reshape:
      break;
    case OperatorKind::TableFunction:
      q.activation_table = activation_table(op, scale_of(op.inputs[0]), scale_of(output), data_width);
      break;
    case OperatorKind::LayerNormalization:
      quantize_layer_normalization(op, weights[o], network.tensors[op.inputs[1]].elements(), scale_of(op.inputs[0]),
                                   scale_of(output), q);
      break;
    case OperatorKind::Pad:
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceMax:
    case OperatorKind::Resize:
      break;
    case OperatorKind::Lookup:
      quantize_lookup(op, weights[o].weights, network.tensors[op.inputs[1]].shape, scale_of(op.inputs[0]),
                      scale_of(output), data_width, q);
      break;
  }
}

}  // namespace

namespace {

// The quantized network at the given limits, its scales from the float reference `reals` (docs/quantization.md).
contracts::QuantizedNetwork quantized_at(const Network& network, const std::vector<RealLayerWeights>& weights,
                                         const RealTensors& reals, const QuantizationLimits& limits,
                                         const QuantizationOptions& options) {
  contracts::QuantizedNetwork quantized;
  quantized.network = network;
  quantized.data_width = options.data_width;
  quantized.acc_width = options.acc_width;
  quantized.tensors.resize(network.tensors.size());
  quantized.operators.resize(network.operators.size());
  const auto scale_of = [&](std::size_t tensor) { return quantized.tensors[tensor].scale; };
  const std::vector<std::int64_t> indices = contracts::index_extents(network);  // whole numbers, read as they are
  for (std::size_t t : network.network_inputs())
    quantized.tensors[t].scale = indices[t] > 0 ? 1.0 : calibrated_scale(reals[t], limits.activation[t]);
  const std::vector<KeptRange> kept = kept_ranges(network);
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    const std::size_t output = op.outputs[0];
    quantized.tensors[output].scale =
        indices[output] > 0                  ? 1.0
        : keeps_scale(op.kind)               ? scale_of(op.inputs[0])
        : op.kind == OperatorKind::Softmax ? 1.0 / double(contracts::data_limit(options.data_width))
        : op.kind == OperatorKind::Lookup  ? calibrated_scale(weights[o].weights, limits.activation[output])  // any entry
                                           : calibrated_scale(reals[output], limits.activation[output], kept[output]);
    quantize_operator(network, o, weights, reals, limits, options, quantized);
  }
  return quantized;
}

// The fabric layers whose sums wrap at the accumulator (largest_fabric_sums) on some calibration sample.
std::vector<std::size_t> wrapping_layers(const contracts::QuantizedNetwork& quantized,
                                         const std::vector<std::vector<std::vector<double>>>& samples) {
  std::vector<bool> wraps(quantized.network.operators.size(), false);
  for (const std::vector<std::vector<double>>& sample : samples) {
    const std::vector<std::int64_t> largest = largest_fabric_sums(quantized, quantize_inputs(quantized, sample));
    for (std::size_t o = 0; o < largest.size(); ++o)
      wraps[o] = wraps[o] || largest[o] > contracts::accumulator_limit(quantized.acc_width);
  }
  std::vector<std::size_t> layers;
  for (std::size_t o = 0; o < wraps.size(); ++o)
    if (wraps[o]) layers.push_back(o);
  return layers;
}

// quantize_network_calibrated on the set's float reference `reals` (float_reference_of_set's form).
contracts::QuantizedNetwork quantized_on(const Network& network, const std::vector<RealLayerWeights>& weights,
                                         const std::vector<std::vector<std::vector<double>>>& samples,
                                         const RealTensors& reals, const QuantizationOptions& options,
                                         const WrapCheck& wrap_check) {
  const int acc_width = options.acc_width;
  if (!options.accumulator_headroom || !options.headroom_from_calibration)
    return quantized_at(network, weights, reals, quantization_limits(network, options), options);
  // Sum bits from the observed sums, then checked on the calibration samples themselves: a layer whose integer sums
  // wrap there (its inputs' rounding and drift beyond the factor 2) gets one bit more, until none wraps or its sum
  // bits reach acc_width − 3 (every bit but one each for a and w).
  std::vector<int> sum_bits = observed_sum_bits(network, weights, reals);
  for (;;) {
    contracts::QuantizedNetwork quantized =
        quantized_at(network, weights, reals, quantization_limits(network, options, sum_bits), options);
    bool raised = false;
    for (std::size_t o : wrap_check ? wrap_check(quantized) : wrapping_layers(quantized, samples))
      if (sum_bits[o] < acc_width - 3) {
        ++sum_bits[o];
        raised = true;
      }
    if (!raised) return quantized;
  }
}

void require_widths(const QuantizationOptions& options) {
  const int data_width = options.data_width, acc_width = options.acc_width;
  if (data_width < contracts::kMinDataWidth || data_width > contracts::kMaxDataWidth || acc_width < data_width ||
      acc_width > contracts::kMaxAccWidth)
    throw std::invalid_argument(fmt::format("quantize_network: data width {} and accumulator width {} (need {} ≤ "
                                            "data ≤ {}, data ≤ accumulator ≤ {})",
                                            data_width, acc_width, contracts::kMinDataWidth,
                                            contracts::kMaxDataWidth, contracts::kMaxAccWidth));
}

}  // namespace

contracts::QuantizedNetwork quantize_network_calibrated(const Network& network,
                                                        const std::vector<RealLayerWeights>& weights,
                                                        const std::vector<std::vector<std::vector<double>>>& samples,
                                                        const QuantizationOptions& options) {
  require_widths(options);
  return quantized_on(network, weights, samples, float_reference_of_set(network, weights, samples), options, {});
}

contracts::QuantizedNetwork quantize_network(const Network& network, const std::vector<RealLayerWeights>& weights,
                                             const std::vector<std::vector<double>>& calibration_inputs,
                                             const RealTensors& reference, const QuantizationOptions& options,
                                             const WrapCheck& wrap_check) {
  require_widths(options);
  if (reference.size() != network.tensors.size())
    throw std::invalid_argument(fmt::format("quantize_network: a float reference of {} tensors for {}",
                                            reference.size(), network.tensors.size()));
  return quantized_on(network, weights, {calibration_inputs}, reference, options, wrap_check);
}

std::vector<std::int64_t> quantize_values(const std::vector<double>& reals, double scale, int data_width) {
  const double L = double(contracts::data_limit(data_width));
  std::vector<std::int64_t> integers;
  integers.reserve(reals.size());
  for (double r : reals) integers.push_back(round_clamped(r / scale, -L, L));
  return integers;
}

std::vector<std::vector<std::int64_t>> quantize_inputs(const contracts::QuantizedNetwork& network,
                                                       const std::vector<std::vector<double>>& inputs) {
  const std::vector<std::size_t> indices = network.network.network_inputs();
  if (inputs.size() != indices.size())
    throw std::invalid_argument(fmt::format("network '{}' has {} inputs, {} were given", network.network.name,
                                            indices.size(), inputs.size()));
  std::vector<std::vector<std::int64_t>> integers;
  for (std::size_t i = 0; i < indices.size(); ++i)
    integers.push_back(quantize_values(inputs[i], network.tensors[indices[i]].scale, network.data_width));
  return integers;
}

std::vector<double> dequantize_values(const std::vector<std::int64_t>& integers, double scale) {
  std::vector<double> reals;
  reals.reserve(integers.size());
  for (std::int64_t q : integers) reals.push_back(scale * double(q));
  return reals;
}

}  // namespace maeri::testbench
