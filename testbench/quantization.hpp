// The quantizer: a network with real (float) weights and a calibration input becomes the QuantizedNetwork the
// integer reference, the post-processing unit and the chained runs execute (docs/quantization.md, "Quantization"):
// per-channel symmetric weights, per-tensor activation scales from the float reference's max |x|, biases at the
// accumulator's scale, requantization multipliers, the add / concat common shift, clip bounds, the softmax table and
// the tables of the table functions (contracts/elementwise_functions.hpp), and an element-wise pair's constant
// operand at its own scale.
// Weights come by tensor name (ONNX initializers, .npy / .npz files) or, when absent, at random from a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"
#include "testbench/network_reference.hpp"

namespace maeri::testbench {

// Real tensors by tensor name: a fabric operator's weights under the name of its weights tensor (its second input),
// its bias under the name of its bias tensor (its third input, when it has one); a channel affine's scale and shift
// likewise (its second and third inputs). Row-major: weights [K][C/groups][R][S], bias [K], scale and shift [C].
using NamedRealTensors = std::map<std::string, std::vector<double>>;

// The real weights and bias of every fabric operator (one entry per operator; the others stay empty): those `given`
// names, random ones for the rest. A layer whose weights are absent gets He-uniform weights, U(−√(6/fan_in),
// √(6/fan_in)) with fan_in = (C/groups)·R·S, and (unless its bias is given) a bias U(−1/√fan_in, 1/√fan_in), even
// when the graph has no bias tensor for it; a layer whose weights are given has the bias given under its bias tensor's
// name, or none. A channel affine gets its scale and shift in `weights` and `bias`: given ones, else scale
// U(0.5, 1.5) and shift U(−0.5, 0.5) (shift 0 when only the scale is given). Random values come from the seed and
// the operator's index alone (std::mt19937_64, portable), so giving one layer's weights leaves every other layer's
// unchanged. Throws std::invalid_argument naming the tensor when a given one has the wrong number of elements.
std::vector<RealLayerWeights> complete_weights(const contracts::Network& network, const NamedRealTensors& given,
                                               std::uint64_t seed);

// The widths the quantizer works to.
struct QuantizationOptions {
  int data_width = 16;  // the hardware's data_width and acc_width
  int acc_width = 32;
  // Whether activations and weights keep to fewer than data_width bits where their products could otherwise make a
  // fabric layer's sum wrap at acc_width (quantization_limits); false: every tensor uses the full data range ±L.
  bool accumulator_headroom = true;
  // With headroom, whether each layer's sums are bounded by what the calibration inputs make them (their observed
  // sums with a factor 2 to spare, then checked by the integer reference on those inputs: no sum wraps there) rather
  // than by the worst case of its fan-in (docs/quantization.md, "Accumulator headroom").
  bool headroom_from_calibration = true;
};

// The largest integers the quantizer maps a tensor's max |r| to (docs/quantization.md, "Accumulator headroom"):
// `activation` per tensor (read for the calibrated ones: network inputs, fabric layer, requantize, add, concat and mul
// outputs, table functions and element-wise pairs), `weights` per operator (0 for those that are not fabric layers).
// With accumulator_headroom they are 2^a − 1 and 2^w − 1 with a + w + g ≤ acc_width − 1 for every fabric layer, g
// the bits its sums need: each layer asks ⌊(acc_width − 1 − g) / 2⌋ bits of the tensors it reads, a tensor gets the
// least any of its readers asks (through the operators that keep its scale; the full data_width − 1 bits when no
// fabric layer reads it), and each layer's w is what its input's a and its g leave; neither exceeds data_width − 1.
struct QuantizationLimits {
  std::vector<std::int64_t> activation;
  std::vector<std::int64_t> weights;
};
QuantizationLimits quantization_limits(const contracts::Network& network, const QuantizationOptions& options);

// The same rule with each fabric layer's sum bits given: `sum_bits[o]` (per operator, read for fabric layers) in place
// of ⌈log2 fan_in⌉, so that a + w + sum_bits[o] ≤ acc_width − 1 (a shared, the largest sum bits getting half the rest).
// quantization_limits above is this with the worst case, the fan-in's bits.
QuantizationLimits quantization_limits(const contracts::Network& network, const QuantizationOptions& options,
                                       const std::vector<int>& sum_bits);

// Per operator, the sum bits a fabric layer's observed sums need (0 for other operators; docs/quantization.md,
// "Accumulator headroom"): with P = max over its filters k of max |Σ x·w| (the float reference's output `reals` less
// the bias) ÷ (max |x| · max |w_k|) — the fan-in the sums behave as, at most the true one —, ⌈log2(2·P)⌉ clamped to
// [0, ⌈log2 fan_in⌉]. A matrix product's P is max |y| ÷ (max |A| · max |B|). `reals` holds every tensor of the float
// reference on the calibration inputs (several samples' values one after another).
std::vector<int> observed_sum_bits(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                                   const RealTensors& reals);

// The quantized network of `network` with real `weights` (complete_weights' form), its activation scales calibrated
// on `calibration_inputs` (one per network input, Network::network_inputs() order) by the float reference, at the
// limits of quantization_limits. Throws std::invalid_argument on widths outside the hardware spec's ranges and on
// sizes that do not fit (float_reference's rules).
contracts::QuantizedNetwork quantize_network(const contracts::Network& network,
                                             const std::vector<RealLayerWeights>& weights,
                                             const std::vector<std::vector<double>>& calibration_inputs,
                                             const QuantizationOptions& options);

// The headroom check on the calibration input (docs/quantization.md, "Accumulator headroom"): the fabric layers
// (operator indices, in order) whose sums wrap at the accumulator under a candidate quantized network — the layers
// whose largest_fabric_sums exceed contracts::accumulator_limit. The quantizer calls it on each candidate; the last
// call is on the network it returns.
using WrapCheck = std::function<std::vector<std::size_t>(const contracts::QuantizedNetwork&)>;

// The same on `reference`, the float reference of `calibration_inputs` (float_reference's every tensor), which the
// caller already holds: one float reference for a run instead of two; and, when given, `wrap_check` in place of the
// quantizer's own (largest_fabric_sums), for a caller that runs the integer reference of that input anyway (a chained
// run: one integer reference instead of two). Throws like quantize_network, and std::invalid_argument when
// `reference` does not hold one entry per tensor.
contracts::QuantizedNetwork quantize_network(const contracts::Network& network,
                                             const std::vector<RealLayerWeights>& weights,
                                             const std::vector<std::vector<double>>& calibration_inputs,
                                             const RealTensors& reference, const QuantizationOptions& options,
                                             const WrapCheck& wrap_check = {});

// The same, its scales calibrated on a set of inputs (`--calibration-inputs`): each sample holds one tensor per network
// input; every tensor's scale comes from its max |r| over all the samples, a fabric layer's bias rule from its
// channels' max over all of them (docs/quantization.md, "Calibration set"). Throws like quantize_network, and
// std::invalid_argument when the set is empty.
contracts::QuantizedNetwork quantize_network_calibrated(const contracts::Network& network,
                                                        const std::vector<RealLayerWeights>& weights,
                                                        const std::vector<std::vector<std::vector<double>>>& samples,
                                                        const QuantizationOptions& options);

// Real values at `scale` as integers: round(r / scale) (ties away from zero), clamped to [−L, L].
std::vector<std::int64_t> quantize_values(const std::vector<double>& reals, double scale, int data_width);

// The network's inputs as its integers (quantize_values at each input tensor's scale), ready for integer_reference.
std::vector<std::vector<std::int64_t>> quantize_inputs(const contracts::QuantizedNetwork& network,
                                                       const std::vector<std::vector<double>>& inputs);

// Integers back to reals: scale · q.
std::vector<double> dequantize_values(const std::vector<std::int64_t>& integers, double scale);

}  // namespace maeri::testbench
