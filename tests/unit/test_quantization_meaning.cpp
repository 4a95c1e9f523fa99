// Quantization that keeps a model's meaning (docs/quantization.md, "Biases that fit" and "Drift"), each rule against
// values computed by hand: a folded bias larger than the accumulator is kept (the weights of its filter get coarser)
// instead of saturating and wrapping; a filter of denormal weights outputs its bias, not 0; the drift report names a
// tensor whose channel is off by more than a tenth of its range; a one-element tensor is reported as an error; a
// tensor read only by clips and ReLUs gets the scale of the range they keep.
#include <catch2/catch.hpp>

#include <cmath>

#include "contracts/quantized_network.hpp"
#include "network_builder.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/quantization.hpp"
#include "testbench/quantization_drift.hpp"

using namespace maeri;
using maeri::test::NetworkBuilder;

namespace {

// A 1×1 convolution of C = 4 channels into K = 2 on a 2×2 input (N = 1): fan-in 4.
contracts::Layer pointwise() {
  contracts::Layer layer;
  layer.name = "conv";
  layer.N = 1;
  layer.K = 2;
  layer.C = 4;
  layer.R = layer.S = 1;
  layer.X = layer.Y = 2;
  return layer;
}

// The input (1, 4, 2, 2), by channel: every value in [−1, 1].
const std::vector<double> kInput{0.5, -1.0, 0.25, 1.0, -0.5, 0.75, 1.0, 0.0, 0.125, -0.25, -1.0, 0.5, 1.0, 1.0, -0.75, 0.25};

// y[k][p] = b[k] + Σ_c w[k][c] · x[c][p], by hand from the loops' definition.
double by_hand(const testbench::RealLayerWeights& real, std::size_t k, std::size_t p) {
  double y = real.bias[k];
  for (std::size_t c = 0; c < 4; ++c) y += real.weights[k * 4 + c] * kInput[c * 4 + p];
  return y;
}

struct Quantized {
  contracts::QuantizedNetwork network;
  std::vector<double> output;  // the integer reference's output, dequantized
};

Quantized run(const testbench::RealLayerWeights& real) {
  NetworkBuilder b("bias");
  b.fabric(pointwise(), b.input("x", {1, 4, 2, 2}), true);
  Quantized q;
  q.network = testbench::quantize_network(b.network(), {real}, {kInput}, {16, 32, true});
  const std::size_t out = q.network.network.network_outputs().back();
  const auto integers = testbench::integer_reference(q.network, testbench::quantize_inputs(q.network, {kInput}));
  q.output = testbench::dequantize_values(integers[out], q.network.tensors[out].scale);
  return q;
}

}  // namespace

TEST_CASE("a folded bias larger than the accumulator keeps its value; an ordinary filter keeps its scale") {
  // Filter 0: weights of 1e-3 and a folded shift of 1000 (at the accumulator's scale of max |w| / L_w it would be
  // 1000 · 16383 · 32767 / 2e-3 ≈ 2.7e14, far beyond 2^31: saturated, the output would come out near 0.008).
  testbench::RealLayerWeights real;
  real.weights = {1e-3, -2e-3, 0.5e-3, 1e-3, 0.5, -0.25, 0.125, 1.0};
  real.bias = {1000.0, 0.1};
  const Quantized q = run(real);
  const double step = q.network.tensors[q.network.network.network_outputs().back()].scale;  // 1000.x / 16383
  for (std::size_t p = 0; p < 4; ++p) {
    CHECK(std::abs(q.output[p] - by_hand(real, 0, p)) <= step);
    CHECK(std::abs(q.output[4 + p] - by_hand(real, 1, p)) <= step);
  }
  // Filter 1's weights at max |w| / 32767 (headroom at fan-in 4: a = 14, w = 15 bits): 0.5 · 32767 = 16383.5 → 16384.
  const auto& weights = q.network.operators[0].weights;
  CHECK(std::vector<std::int64_t>(weights.begin() + 4, weights.end()) ==
        std::vector<std::int64_t>{16384, -8192, 4096, 32767});
  // Filter 0's bias fits the 32-bit accumulator beside its sum.
  CHECK(std::abs(q.network.operators[0].bias[0]) < (std::int64_t{1} << 31) - 1);
}

TEST_CASE("a filter of denormal weights outputs its bias, not 0") {
  testbench::RealLayerWeights real;
  real.weights = {3e-39, -3e-39, 3e-39, 1e-39, 0.5, -0.25, 0.125, 1.0};
  real.bias = {0.25, 0.0};
  const Quantized q = run(real);
  const double step = q.network.tensors[q.network.network.network_outputs().back()].scale;
  for (std::size_t p = 0; p < 4; ++p) CHECK(std::abs(q.output[p] - 0.25) <= step / 2);  // 0.25 + 1e-38 by hand
  for (std::size_t c = 0; c < 4; ++c) CHECK(q.network.operators[0].weights[c] == 0);
}

TEST_CASE("drift: a channel off by more than a tenth of its range (and 2 steps) is named; one element is an error, not a cosine") {
  NetworkBuilder b("drift");
  const std::size_t x = b.input("x", {1, 2, 1, 2});
  const std::size_t y = b.relu("relu", x);
  contracts::QuantizedNetwork network;
  network.network = b.network();
  network.data_width = 16;
  network.acc_width = 32;
  network.tensors.resize(network.network.tensors.size());
  network.tensors[y].scale = 0.25;
  // s·q = (1, 1, 0, 2) against r = (1, 1, 0.1, 1): channel 1 is off by 1.0 (4 steps) where its range is 0.9;
  // cosine 4 / (√6 · √3.01) = 0.94119.
  const testbench::TensorAgreement a = testbench::tensor_agreement(network, y, {4, 4, 0, 8}, {1.0, 1.0, 0.1, 1.0});
  CHECK(a.cosine_similarity == Approx(4 / (std::sqrt(6.0) * std::sqrt(3.01))));
  CHECK(a.worst_channel == 1);
  CHECK(a.channel_error == Approx(1.0));
  CHECK(a.channel_range == Approx(0.9));
  CHECK(a.drifts());
  CHECK(testbench::agreement_text(network, a) == "'relu.output': cosine 0.9412, channel 1 off by 1 of its range 0.9");
  testbench::IntegerTensors integers(network.network.tensors.size());
  testbench::RealTensors reals(network.network.tensors.size());
  integers[y] = {4, 4, 0, 8};
  reals[y] = {1.0, 1.0, 0.1, 1.0};
  const auto drifting = testbench::drifting_tensors(network, integers, reals);
  REQUIRE(drifting.size() == 1);
  CHECK(drifting[0].tensor == y);
  // Two steps (scale 0.5, error 1.0) is the resolution of the tensor's scale: the channel rule is silent.
  network.tensors[y].scale = 0.5;
  CHECK_FALSE(testbench::tensor_agreement(network, y, {2, 2, 0, 4}, {1.0, 1.0, 0.1, 1.0}).channel_off());
  // One element: 0.1 · 12 = 1.2 against 1.25: |error| 0.05, relative 0.04 — no drift.
  network.tensors[y].scale = 0.1;
  const testbench::TensorAgreement one = testbench::tensor_agreement(network, y, {12}, {1.25});
  CHECK(one.one_element());
  CHECK_FALSE(one.drifts());
  CHECK(testbench::agreement_text(network, one) == "'relu.output': one value, |error| 0.05 (relative 0.04)");
}

TEST_CASE("a calibration set: every tensor's scale from its max |r| over all the samples") {
  NetworkBuilder b("calibrated");
  const std::size_t x = b.input("x", {1, 4, 2, 2});
  const std::size_t y = b.relu("relu", x);
  std::vector<double> doubled = kInput;
  doubled[5] = 2.0;  // the set's largest |x|
  const auto one = testbench::quantize_network(b.network(), {{}}, {kInput}, {16, 32, true});
  const auto set = testbench::quantize_network_calibrated(b.network(), {{}}, {{kInput}, {doubled}}, {16, 32, true});
  // No fabric layer: the activation limit is 2^15 − 1 = 32767 (at most DW − 1 magnitude bits); relu keeps its input's.
  CHECK(one.tensors[x].scale == 1.0 / 32767);
  CHECK(set.tensors[x].scale == 2.0 / 32767);
  CHECK(set.tensors[y].scale == 2.0 / 32767);
  CHECK_THROWS_AS(testbench::quantize_network_calibrated(b.network(), {{}}, {}, {16, 32, true}), std::invalid_argument);
}

TEST_CASE("a tensor read only by clips and ReLUs is scaled to the range they keep") {
  // y = conv(x), by hand from kInput: filter 0 (2, 2, 2, 2) gives (2.25, 1, −1, 3.5), filter 1 (−1, 0.5, 0, 0) gives
  // (−0.75, 1.375, 0.25, −1). No fabric layer reads y: it keeps the full range, L = 2^15 − 1 = 32767
  // (docs/quantization.md, "Accumulator headroom").
  testbench::RealLayerWeights real;
  real.weights = {2, 2, 2, 2, -1, 0.5, 0, 0};
  real.bias = {0, 0};
  const auto quantized = [&](bool relu_too) {
    NetworkBuilder b("relu6");
    const std::size_t y = b.fabric(pointwise(), b.input("x", {1, 4, 2, 2}), true);
    b.clip("clip", y, 0.0, 1.0);
    if (relu_too) b.relu("relu", y);
    std::vector<testbench::RealLayerWeights> weights(b.network().operators.size());
    weights[0] = real;
    return testbench::quantize_network(b.network(), weights, {kInput}, {16, 32, true});
  };
  // Read by the clip alone: max |clamp(y, 0, 1)| = 1 sets the scale, not max |y| = 3.5 (3.5 times finer steps); the
  // values above it saturate at ±L (3.5 · 32767 > 32767) and the clip gives 1 either way.
  const contracts::QuantizedNetwork q = quantized(false);
  const std::size_t y = 3, clipped = 4;  // after x, the weights and the bias
  CHECK(q.network.tensors[y].name == "conv.output");
  CHECK(q.tensors[y].scale == 1.0 / 32767);
  CHECK(q.tensors[clipped].scale == 1.0 / 32767);
  const auto integers = testbench::integer_reference(q, testbench::quantize_inputs(q, {kInput}));
  const std::vector<double> by_hand{1, 1, 0, 1, 0, 1, 0.25, 0};  // clip(y, 0, 1)
  const std::vector<double> out = testbench::dequantize_values(integers[clipped], q.tensors[clipped].scale);
  // Within two steps: the input's rounding and the output's.
  for (std::size_t i = 0; i < by_hand.size(); ++i) CHECK(std::abs(out[i] - by_hand[i]) <= 2.0 / 32767);
  // Also read by a ReLU: the union of the ranges, [0, ∞), keeps 3.5.
  CHECK(quantized(true).tensors[y].scale == 3.5 / 32767);
}
