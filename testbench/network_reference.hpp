// The references of a whole network (docs/quantization.md, "The references"): the integer reference runs a
// QuantizedNetwork operator by operator with plain loops written from docs/quantization.md — its own convolution loop
// nest, independent of codegen's functional model and of configuration images — so that chained runs can compare
// every tensor the RTL and the post-processing unit produce with it, bit for bit; the float reference runs the same
// graph in double precision with the real weights; and the quantization-cost report says how far the first is from
// the second on the network's outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "contracts/network.hpp"
#include "contracts/quantized_network.hpp"

namespace maeri::testbench {

// Every tensor of a network, by index into Network::tensors, each in row-major order of its shape. The references
// fill the network's inputs and every operator's output; constants (weights, biases) stay empty (their values are
// held by QuantizedOperator or RealLayerWeights).
using IntegerTensors = std::vector<std::vector<std::int64_t>>;
using RealTensors = std::vector<std::vector<double>>;

// The real weights [K][C/groups][R][S] and bias [K] of one fabric layer; the bias is empty when the layer has none.
// A channel affine's scale [C] is in `weights`, its shift [C] in `bias`; an element-wise pair's constant operand
// (row-major in its tensor's shape) is in `weights`.
struct RealLayerWeights {
  std::vector<double> weights;
  std::vector<double> bias;
};

// ---- integer reference ----

// The integer reference of the whole network: `inputs` holds one integer tensor per network input, in the order of
// Network::network_inputs(); the result holds every tensor. Throws std::invalid_argument when an input has the
// wrong number of elements or an operator's tensors do not fit its kind (a graph network_violation accepts always
// fits).
IntegerTensors integer_reference(const contracts::QuantizedNetwork& network,
                                 const std::vector<std::vector<std::int64_t>>& inputs);

// One operator of the integer reference: computes the output of operator `op` from its input tensors in `tensors`
// (indexed like Network::tensors; the inputs must be filled) and stores it there. What a chained run calls to get
// the expected output of one operator from the tensors the RTL and the post-processing unit actually produced.
void run_integer_operator(const contracts::QuantizedNetwork& network, std::size_t op, IntegerTensors& tensors);

// The same, and `largest_sum` = for a fabric layer (a matrix product too) the largest |Σ q_in·q_w + q_b| over its
// outputs as exact integers, before the accumulator wraps (0 for every other operator): above
// contracts::accumulator_limit(acc_width) some output wrapped (docs/quantization.md, "Accumulator headroom").
void run_integer_operator(const contracts::QuantizedNetwork& network, std::size_t op, IntegerTensors& tensors,
                          std::int64_t& largest_sum);

// largest_sum of every operator (0 for those that are not fabric layers) over the integer reference on `inputs`
// (integer_reference's), holding only the tensors still to be read (tensor_lifetimes.hpp): what the quantizer
// checks its accumulator headroom with on the calibration inputs.
std::vector<std::int64_t> largest_fabric_sums(const contracts::QuantizedNetwork& network,
                                              const std::vector<std::vector<std::int64_t>>& inputs);

// The fabric's part of a fabric layer: acc[n][k][x'][y'] = Σ input · weights over the filter k's group channels and
// its taps inside the input (padding contributes nothing), products and sums wrapping at acc_width bits. Grouped,
// dilated, strided and padded per axis as the Layer says (an FC or GEMM layer is the 1×1 case it describes). The
// epilogue (bias, requantization) is contracts::requantize_accumulator, applied by run_integer_operator.
std::vector<std::int64_t> integer_convolution(const contracts::Layer& layer, const std::vector<std::int64_t>& input,
                                              const std::vector<std::int64_t>& weights, int acc_width);

// The epilogue of fabric layer `op` (bias, requantization: contracts::requantize_accumulator) on its accumulators
// (integer_convolution's, or the exact sums): the layer's output as run_integer_operator makes it from the same
// input, without computing the convolution again. Throws std::invalid_argument when `op` is no fabric layer or the
// sizes do not fit.
std::vector<std::int64_t> fabric_layer_epilogue(const contracts::QuantizedNetwork& network, std::size_t op,
                                                const std::vector<std::int64_t>& accumulators);

// ---- float reference ----

// The float reference: the network in double precision with the real weights (`weights` one entry per operator,
// filled for the fabric operators and channel affines) on `inputs`, one per network input in the order of Network::network_inputs().
// Requantize is the identity on reals; the other operators compute what docs/quantization.md's table says their
// integer forms approximate (average pools exclude padding, softmax is exp(x − max) / Σ, table functions
// contracts::unary_value, an element-wise pair's constant operand the values in its `weights`). Throws
// std::invalid_argument like integer_reference, and when a fabric operator's weights or bias have the wrong size.
RealTensors float_reference(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                            const std::vector<std::vector<double>>& inputs);

// One operator of the float reference: computes the output of operator `op` from its inputs in `tensors` (indexed
// like Network::tensors; the inputs must be filled) and stores it there. What computing a tensor the unit cannot
// (testbench/float_computed_inputs.hpp) runs operator by operator as the tensors it needs become known.
void run_float_operator(const contracts::Network& network, std::size_t op, const RealLayerWeights& weights,
                        RealTensors& tensors);

// ---- what quantization costs ----

// The cosine of the angle between a and b (equal lengths): 1 when both are all zero, 0 when only one is.
double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b);

// The integer reference's output against the float reference's, on one network output.
struct OutputQuantizationCost {
  std::size_t tensor = 0;          // index into Network::tensors
  double max_abs_error = 0;        // max |s·q − r| over the elements
  double cosine_similarity = 1;    // of s·q and r (1 when both are all zero, 0 when only one is)
  std::vector<bool> top1_agrees;   // per batch element (the shape's first extent): argmax of s·q == argmax of r
  std::int64_t top1_agreements() const;
};

// One entry per network output (Network::network_outputs(), ascending), from the integer reference's tensors (with
// the network's scales) and the float reference's. The top-1 of a batch element is the index of the first maximum
// over all its elements (for a classifier's (N, classes) or (N, classes, 1, 1) output, argmax along axis 1).
std::vector<OutputQuantizationCost> quantization_cost(const contracts::QuantizedNetwork& network,
                                                      const IntegerTensors& integers, const RealTensors& reals);

}  // namespace maeri::testbench
