// The integer reference of a whole network against values computed by hand (rounding ties away from zero,
// saturation, pools with padding, concat requantization, softmax), its convolution against codegen's independent
// reference convolution on random layers, the quantizer's rules (per-channel scales, bias, multipliers, the common
// shift), the float reference against the integer one on a random network, and a flipped weight bit that shows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "codegen/functional_model.hpp"
#include "contracts/quantized_network.hpp"
#include "network_builder.hpp"
#include "tests/random_layers.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/quantization.hpp"

using namespace maeri;
using contracts::OperatorKind;
using contracts::QuantizedNetwork;
using contracts::QuantizedOperator;
using maeri::test::NetworkBuilder;
using Values = std::vector<std::int64_t>;

namespace {

// A network quantized by hand: the operators' parameters as given, every scale 1.
QuantizedNetwork by_hand(const contracts::Network& network, std::vector<QuantizedOperator> operators, int data_width) {
  QuantizedNetwork quantized;
  quantized.network = network;
  quantized.data_width = data_width;
  quantized.acc_width = 32;
  quantized.tensors.resize(network.tensors.size());
  quantized.operators = std::move(operators);
  return quantized;
}

// The integer reference's value of the network's (last) output.
Values output_of(const QuantizedNetwork& network, const std::vector<Values>& inputs) {
  return testbench::integer_reference(network, inputs)[network.network.network_outputs().back()];
}

QuantizedOperator requantization(std::int64_t multiplier, int shift) {
  QuantizedOperator q;
  q.output = {{multiplier, shift}};
  return q;
}

QuantizedOperator input_multipliers(std::vector<std::int64_t> multipliers, int shift) {
  QuantizedOperator q;
  q.input_multipliers = std::move(multipliers);
  q.input_shift = shift;
  return q;
}

// exp_table[d] = round(2^15 · 2^−d), the table of an input scale of ln 2: 2^15 … 1, then round(0.5) = 1, then 0.
Values halving_exp_table() {
  Values table;
  for (int d = 0; d <= 15; ++d) table.push_back(std::int64_t{1} << (15 - d));
  table.push_back(1);
  table.push_back(0);
  return table;
}

contracts::PoolWindow window(std::int64_t size, std::int64_t stride, std::int64_t padding) {
  contracts::PoolWindow w;
  w.size_x = w.size_y = size;
  w.stride_x = w.stride_y = stride;
  w.padding_x = w.padding_y = padding;
  return w;
}

contracts::Layer conv(std::string name, std::int64_t n, std::int64_t k, std::int64_t c, std::int64_t rs,
                      std::int64_t xy, std::int64_t padding) {
  contracts::Layer layer;
  layer.name = std::move(name);
  layer.N = n;
  layer.K = k;
  layer.C = c;
  layer.R = layer.S = rs;
  layer.X = layer.Y = xy;
  layer.padding_x = layer.padding_y = padding;
  return layer;
}

// conv → relu → max pool → (conv → relu) + → concat with a 1×1 conv's ReLU6 → average pool → global average pool →
// GEMM → flatten → softmax: every operator kind but requantize, on a batch of 2.
struct SmallNetwork {
  contracts::Network network;
  std::size_t input, conv1, add, concat, logits, probabilities;
};
SmallNetwork small_network() {
  NetworkBuilder b("small");
  SmallNetwork s;
  s.input = b.input("image", {2, 3, 8, 8});
  s.conv1 = b.fabric(conv("conv1", 2, 8, 3, 3, 8, 1), s.input);
  const std::size_t pooled = b.pool("pool1", OperatorKind::MaxPool, b.relu("relu1", s.conv1), window(2, 2, 0));
  const std::size_t branch = b.relu("relu2", b.fabric(conv("conv2", 2, 8, 8, 3, 4, 1), pooled));
  s.add = b.add("residual", pooled, branch);
  const std::size_t squeeze = b.clip("relu6", b.fabric(conv("conv3", 2, 4, 8, 1, 4, 0), s.add), 0, 6);
  s.concat = b.concat("join", {s.add, squeeze});
  const std::size_t smooth = b.pool("pool2", OperatorKind::AveragePool, s.concat, window(3, 1, 1));
  const std::size_t features = b.global_average_pool("gap", smooth);
  contracts::Layer head = contracts::gemm_layer(2, 1, 12, 10);
  head.name = "head";
  s.logits = b.fabric(head, features);
  s.probabilities = b.softmax("softmax", b.reshape("flatten", s.logits, {2, 10}));
  s.network = b.network();
  return s;
}

std::vector<double> uniform_values(std::int64_t count, double bound, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> values;
  for (std::int64_t i = 0; i < count; ++i) values.push_back((double(rng() >> 11) * 0x1.0p-53 * 2 - 1) * bound);
  return values;
}

double cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return dot / std::sqrt(aa * bb);
}

}  // namespace

TEST_CASE("requantize rounds ties away from zero and saturates at ±L") {
  NetworkBuilder b("requantize");
  b.requantize("r", b.input("x", {1, 8}));
  // × 0.5 (2^30 · 2^−31): ±1.5 → ±2, ±0.5 → ±1, ±63.5 → ±64.
  CHECK(output_of(by_hand(b.network(), {requantization(1 << 30, 31)}, 8), {{3, -3, 1, -1, 2, 0, 127, -127}}) ==
        Values{2, -2, 1, -1, 1, 0, 64, -64});
  // × 4 at 8 bits (L = 127): 160 and 128 saturate, −160 at −127 (never −128).
  CHECK(output_of(by_hand(b.network(), {requantization(1 << 30, 28)}, 8), {{40, -40, 31, 32, 0, -32, 1, 2}}) ==
        Values{127, -127, 124, 127, 0, -127, 4, 8});
}

TEST_CASE("relu and clip act on the integers, clip with its own integer bounds") {
  NetworkBuilder relu("relu");
  relu.relu("r", relu.input("x", {1, 4}));
  CHECK(output_of(by_hand(relu.network(), {{}}, 8), {{-5, 0, 7, -127}}) == Values{0, 0, 7, 0});
  NetworkBuilder clip("clip");
  clip.clip("c", clip.input("x", {1, 4}), 0, 6);
  QuantizedOperator bounds;
  bounds.clip_min = 0;
  bounds.clip_max = 50;
  CHECK(output_of(by_hand(clip.network(), {bounds}, 8), {{-5, 20, 60, 50}}) == Values{0, 20, 50, 50});
}

TEST_CASE("max pool: padding never wins, even over negative values") {
  NetworkBuilder b("max pool");
  b.pool("p", OperatorKind::MaxPool, b.input("x", {1, 1, 3, 3}), window(2, 2, 1));
  // Windows (padding 1, stride 2) cover {−1}, {−2, −3}, {−4, −7}, {−5, −6, −8, −9} of the input; a padded 0 would
  // win each of them.
  CHECK(output_of(by_hand(b.network(), {{}}, 8), {{-1, -2, -3, -4, -5, -6, -7, -8, -9}}) == Values{-1, -2, -4, -5});
}

TEST_CASE("average pool divides by the elements inside the input, rounding ties away from zero") {
  NetworkBuilder b("average pool");
  b.pool("p", OperatorKind::AveragePool, b.input("x", {1, 1, 3, 3}), window(2, 2, 1));
  // Windows {1}, {2, 3}, {−2, −3}, {5, 6, 8, −9}: 1, 5/2 = 2.5 → 3, −2.5 → −3, 10/4 = 2.5 → 3 (with the padding
  // counted the second would be 5/4 → 1).
  CHECK(output_of(by_hand(b.network(), {{}}, 8), {{1, 2, 3, -2, 5, 6, -3, 8, -9}}) == Values{1, 3, -3, 3});
  NetworkBuilder global("global average pool");
  global.global_average_pool("g", global.input("x", {1, 2, 2, 2}));
  // 11/4 = 2.75 → 3 and −10/4 = −2.5 → −3.
  CHECK(output_of(by_hand(global.network(), {{}}, 8), {{1, 2, 3, 5, -1, -2, -3, -4}}) == Values{3, -3});
}

TEST_CASE("add sums both inputs at their multipliers with one shift, then rounds and saturates") {
  NetworkBuilder b("add");
  const std::size_t x = b.input("x", {1, 5}), y = b.input("y", {1, 5});
  b.add("a", x, y);
  // m_a = 0.5, m_b = 0.75 (2^31 = 1): (2a + 3b) / 4 = 6.5 → 7, −6.5 → −7, 125, 1.25 → 1, 158.75 → 127.
  CHECK(output_of(by_hand(b.network(), {input_multipliers({1 << 30, 3 << 29}, 31)}, 8),
                  {{10, -10, 100, 1, 127}, {2, -2, 100, 1, 127}}) == Values{7, -7, 125, 1, 127});
}

TEST_CASE("concat requantizes each input to the output's scale and joins them along the axis") {
  NetworkBuilder b("concat");
  b.concat("c", {b.input("x", {1, 1, 1, 2}), b.input("y", {1, 2, 1, 2})});
  // x × 1 (2^30 at shift 30), y × 0.5: 1.5 → 2, −1.5 → −2, 2.5 → 3, 50; x's channel first.
  CHECK(output_of(by_hand(b.network(), {input_multipliers({1 << 30, 1 << 29}, 30)}, 8), {{7, -8}, {3, -3, 5, 100}}) ==
        Values{7, -8, 2, -2, 3, 50});
  NetworkBuilder batch("concat batch");
  batch.concat("c", {batch.input("x", {2, 1, 1, 1}), batch.input("y", {2, 1, 1, 1})});
  // Per batch element: x's channel, then y's.
  CHECK(output_of(by_hand(batch.network(), {input_multipliers({1 << 30, 1 << 30}, 30)}, 8), {{1, 2}, {3, 4}}) ==
        Values{1, 3, 2, 4});
}

TEST_CASE("reshape keeps the integers in row-major order") {
  NetworkBuilder b("reshape");
  b.reshape("flatten", b.input("x", {1, 2, 1, 2}), {1, 4});
  CHECK(output_of(by_hand(b.network(), {{}}, 8), {{4, -3, 2, -1}}) == Values{4, -3, 2, -1});
}

TEST_CASE("pad: the integers inside a border of zeros; the float reference likewise, the scale passed through") {
  NetworkBuilder b("bordered");
  const std::size_t x = b.input("x", {1, 1, 2, 3});
  b.pad("pad", x, {0, 1, 2, 0});  // no row above, one below; two columns before, none after: 3x5
  CHECK(b.shape(b.network().network_outputs().back()) == std::vector<std::int64_t>{1, 1, 3, 5});
  const QuantizedNetwork q = by_hand(b.network(), {QuantizedOperator{}}, 8);
  CHECK(output_of(q, {{1, -2, 3, -4, 5, -6}}) == Values{0, 0, 1, -2, 3,  //
                                                        0, 0, -4, 5, -6,  //
                                                        0, 0, 0, 0, 0});
  const testbench::RealTensors reals =
      testbench::float_reference(b.network(), std::vector<testbench::RealLayerWeights>(1), {{0.5, -1, 1.5, -2, 2.5, -3}});
  CHECK(reals[b.network().network_outputs().back()] ==
        std::vector<double>{0, 0, 0.5, -1, 1.5, 0, 0, -2, 2.5, -3, 0, 0, 0, 0, 0});
  const QuantizedNetwork quantized = testbench::quantize_network(
      b.network(), std::vector<testbench::RealLayerWeights>(1), {{0.5, -1, 1.5, -2, 2.5, -3}}, {8, 32, true});
  CHECK(quantized.tensors[b.network().network_outputs().back()].scale == quantized.tensors[x].scale);
}

TEST_CASE("softmax: exp table lookups normalised to L, along the channels") {
  QuantizedOperator table;
  table.exp_table = halving_exp_table();
  NetworkBuilder rows("softmax rows");
  rows.softmax("s", rows.input("x", {2, 4}));
  // Equal logits: 127/4 = 31.75 → 32 each. {10, 9, 8, −50}: e = 2^15, 2^14, 2^13 and 0 (d = 60 is beyond the table):
  // 127·4/7 = 72.57 → 73, 127·2/7 = 36.29 → 36, 127/7 = 18.14 → 18, 0.
  CHECK(output_of(by_hand(rows.network(), {table}, 8), {{5, 5, 5, 5, 10, 9, 8, -50}}) ==
        Values{32, 32, 32, 32, 73, 36, 18, 0});
  NetworkBuilder spatial("softmax channels");
  spatial.softmax("s", spatial.input("x", {1, 3, 1, 2}));
  // Rows are the channels at each position: y = 0 holds {0, 0, 0} (127/3 → 42 each), y = 1 holds {10, 9, 8}.
  CHECK(output_of(by_hand(spatial.network(), {table}, 8), {{0, 10, 0, 9, 0, 8}}) == Values{42, 73, 42, 36, 42, 18});

  // Random rows of 10 at 16 bits: each output rounds by at most 1/2, so a row sums to L within 5.
  std::mt19937_64 rng(3);
  NetworkBuilder random("softmax random");
  random.softmax("s", random.input("x", {50, 10}));
  QuantizedOperator fine;
  for (int d = 0;; ++d) {
    fine.exp_table.push_back(std::llround(32768 * std::exp(-d * 0.01)));
    if (fine.exp_table.back() == 0) break;
  }
  Values logits;
  for (int i = 0; i < 500; ++i) logits.push_back(std::int64_t(rng() % 2001) - 1000);
  const Values probabilities = output_of(by_hand(random.network(), {fine}, 16), {logits});
  for (int row = 0; row < 50; ++row) {
    std::int64_t sum = 0;
    for (int c = 0; c < 10; ++c) sum += probabilities[std::size_t(row * 10 + c)];
    CHECK(std::abs(sum - contracts::data_limit(16)) <= 5);
  }
}

TEST_CASE("channel affine: per channel x·m + b at one shift, rounding ties away from zero, then saturating") {
  NetworkBuilder b("affine");
  b.channel_affine("bn", b.input("x", {1, 3, 1, 2}));
  QuantizedOperator q;
  q.channel_multipliers = {3, -2, 1};  // at shift 2: × 0.75, × −0.5, × 0.25
  q.channel_offsets = {2, 1, 0};       // + 0.5, + 0.25, + 0
  q.channel_shift = 2;
  // Channel 0: (3·5 + 2)/4 = 4.25 → 4, (3·(−2) + 2)/4 = −1; channel 1 (negative scale): (−2·3 + 1)/4 = −1.25 → −1,
  // (−2·(−100) + 1)/4 = 50.25 → 50; channel 2: 2/4 = 0.5 → 1 (a tie away from zero), −2/4 → −1.
  CHECK(output_of(by_hand(b.network(), {q}, 8), {{5, -2, 3, -100, 2, -2}}) == Values{4, -1, -1, 50, 1, -1});
  // At 8 bits (L = 127): channel 0's 3·127 + 2 = 383 → 95.75 → 96 and its 0 + 2 → 0.5 → 1 (the offset alone);
  // channel 1's (−2·(−127) + 1)/4 → 63.75 → 64, 1/4 → 0; a multiplier of 8 (× 2) saturates 100 at 127 and −100 at
  // −127 (never −128).
  q.channel_multipliers = {3, -2, 8};
  CHECK(output_of(by_hand(b.network(), {q}, 8), {{127, 0, -127, 0, 100, -100}}) == Values{96, 1, 64, 0, 127, -127});
  // Rank 2 (a BatchNorm1d after a Gemm): the channels are the columns.
  NetworkBuilder rows("affine rows");
  rows.channel_affine("bn", rows.input("x", {2, 3}));
  q.channel_multipliers = {4, -4, 0};
  q.channel_offsets = {0, 0, 6};  // 6/4 = 1.5 → 2
  CHECK(output_of(by_hand(rows.network(), {q}, 8), {{1, 2, 3, -4, -5, -6}}) == Values{1, -2, 2, -4, 5, 2});
  // Rank 3 (PyTorch's GroupNorm: an InstanceNormalization over (N, groups, elements), then its affine): channel c
  // holds elements c·2 and c·2 + 1. Multipliers 4, −4, 8 at shift 2 (× 1, × −1, × 2), offsets 0, 0, 6 (+ 1.5).
  NetworkBuilder groups("affine groups");
  groups.channel_affine("bn", groups.input("x", {1, 3, 2}));
  REQUIRE(!contracts::network_violation(groups.network()));
  q.channel_multipliers = {4, -4, 8};
  CHECK(output_of(by_hand(groups.network(), {q}, 8), {{1, 2, 3, -4, -5, 6}}) == Values{1, 2, -3, 4, -9, 14});
}

TEST_CASE("channel affine quantization: signed multipliers and offsets at the largest shift; float and integer agree") {
  NetworkBuilder b("affine");
  const std::size_t x = b.input("x", {2, 3, 4, 4});
  const std::size_t y = b.channel_affine("bn", x);
  const contracts::Network& network = b.network();
  REQUIRE(!contracts::network_violation(network));
  // Scale 1.5, −0.8 (a negative γ) and 0.01; shift −0.25, 2 and 0.
  const testbench::NamedRealTensors given{{"bn.scale", {1.5, -0.8, 0.01}}, {"bn.shift", {-0.25, 2.0, 0.0}}};
  const std::vector<testbench::RealLayerWeights> weights = testbench::complete_weights(network, given, 1);
  REQUIRE(weights[0].weights == std::vector<double>{1.5, -0.8, 0.01});
  const std::vector<double> input = uniform_values(2 * 3 * 4 * 4, 1.0, 9);
  const QuantizedNetwork q = testbench::quantize_network(network, weights, {input}, {16, 32, true});
  const QuantizedOperator& qo = q.operators[0];
  const double ratio = q.tensors[x].scale / q.tensors[y].scale;
  REQUIRE(qo.channel_multipliers.size() == 3);
  std::int64_t largest = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    CHECK(qo.channel_multipliers[c] == std::llround(std::ldexp(weights[0].weights[c] * ratio, qo.channel_shift)));
    CHECK(qo.channel_offsets[c] == std::llround(std::ldexp(weights[0].bias[c] / q.tensors[y].scale, qo.channel_shift)));
    largest = std::max(largest, std::abs(qo.channel_multipliers[c]));
  }
  CHECK(qo.channel_multipliers[1] < 0);
  CHECK(largest < (std::int64_t{1} << 31));
  CHECK(largest >= (std::int64_t{1} << 30) - 1);  // one shift more would not fit
  // The integer output dequantized is the float one within an output step (and the rounding of the input).
  const testbench::IntegerTensors integers = testbench::integer_reference(q, testbench::quantize_inputs(q, {input}));
  const testbench::RealTensors reals = testbench::float_reference(network, weights, {input});
  for (std::size_t i = 0; i < reals[y].size(); ++i)
    CHECK(std::abs(double(integers[y][i]) * q.tensors[y].scale - reals[y][i]) <= 2 * q.tensors[y].scale);
  // Absent values are seeded: scale in [0.5, 1.5), shift in [−0.5, 0.5); a given scale alone has shift 0.
  const auto seeded = testbench::complete_weights(network, {}, 7);
  for (std::size_t c = 0; c < 3; ++c) {
    CHECK(seeded[0].weights[c] >= 0.5);
    CHECK(seeded[0].weights[c] < 1.5);
    CHECK(std::abs(seeded[0].bias[c]) <= 0.5);
  }
  CHECK(testbench::complete_weights(network, {{"bn.scale", {1, 2, 3}}}, 7)[0].bias == std::vector<double>{0, 0, 0});
  CHECK_THROWS_WITH(testbench::complete_weights(network, {{"bn.shift", {1, 2}}}, 7),
                    Catch::Contains("'bn.shift'") && Catch::Contains("2 values") && Catch::Contains("needs 3"));
}

TEST_CASE("a fabric layer: the convolution's accumulators, then bias and per-channel requantization") {
  NetworkBuilder b("conv");
  const contracts::Layer layer = conv("conv", 1, 2, 1, 2, 3, 0);
  b.fabric(layer, b.input("x", {1, 1, 3, 3}));
  QuantizedOperator q;
  q.weights = {1, 0, 0, -1, 1, 1, 1, 1};   // filter 0: x[i][j] − x[i+1][j+1]; filter 1: the 2×2 sum
  q.bias = {1, -2};
  q.output = {{1 << 30, 30}, {1 << 30, 32}};  // × 1 and × 0.25
  const Values input{1, 2, 3, 4, 5, 6, 7, 8, 9};
  // Accumulators: −4 four times; 12, 16, 24, 28. Outputs: −4 + 1 = −3; (12 − 2)/4 = 2.5 → 3, 3.5 → 4, 5.5 → 6, 6.5 → 7.
  CHECK(testbench::integer_convolution(layer, input, q.weights, 32) == Values{-4, -4, -4, -4, 12, 16, 24, 28});
  CHECK(output_of(by_hand(b.network(), {q}, 8), {input}) == Values{-3, -3, -3, -3, 3, 4, 6, 7});
  // At 5 bits the sums wrap: 16 → −16, 24 → −8, 28 → −4.
  CHECK(testbench::integer_convolution(layer, input, q.weights, 5) == Values{-4, -4, -4, -4, 12, -16, -8, -4});
  // The epilogue alone on those accumulators: the same outputs by hand, without a second convolution.
  const QuantizedNetwork network = by_hand(b.network(), {q}, 8);
  CHECK(testbench::fabric_layer_epilogue(network, 0, {-4, -4, -4, -4, 12, 16, 24, 28}) ==
        Values{-3, -3, -3, -3, 3, 4, 6, 7});
  CHECK_THROWS_WITH(testbench::fabric_layer_epilogue(network, 0, {-4, -4, -4, 12}),
                    Catch::Contains("4 accumulators") && Catch::Contains("8 outputs"));
  CHECK_THROWS_WITH(testbench::fabric_layer_epilogue(network, 1, {}), Catch::Contains("no fabric layer"));
}

TEST_CASE("the integer reference's convolution equals codegen's reference convolution on random layers") {
  // Two independent implementations of docs/quantization.md's fabric sum: grouped, dilated, strided, padded, FC and
  // GEMM layers, with accumulators wide enough and narrow enough to wrap.
  std::mt19937_64 rng(2024);
  int wrapped_cases = 0;
  for (int i = 0; i < 300; ++i) {
    const contracts::Layer layer = maeri::test::random_layer_of_new_kind(rng);
    const int data_width = int(4 + rng() % 13), acc_width = i % 2 ? 2 * data_width + 8 : data_width + 2;
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, data_width, rng());
    INFO(contracts::shape_text(layer) << " data " << data_width << " acc " << acc_width);
    const Values ours = testbench::integer_convolution(layer, tensors.input, tensors.weights, acc_width);
    REQUIRE(ours == codegen::reference_convolution(layer, tensors, acc_width));
    wrapped_cases += ours != testbench::integer_convolution(layer, tensors.input, tensors.weights, 64);
  }
  CHECK(wrapped_cases > 20);  // the narrow accumulators did wrap
}

TEST_CASE("quantization: per-channel weights, bias at the accumulator's scale, multipliers and the common shift") {
  const SmallNetwork s = small_network();
  REQUIRE(!contracts::network_violation(s.network));
  const std::vector<testbench::RealLayerWeights> weights = testbench::complete_weights(s.network, {}, 11);
  const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, 1.0, 5);
  const testbench::QuantizationOptions options{16, 32, true, false};  // the worst-case headroom: limits known ahead
  const QuantizedNetwork q = testbench::quantize_network(s.network, weights, {image}, options);
  const testbench::QuantizationLimits limits = testbench::quantization_limits(s.network, options);
  const std::int64_t L = contracts::data_limit(16);
  const auto scale = [&](std::size_t tensor) { return q.tensors[tensor].scale; };
  for (std::size_t o = 0; o < s.network.operators.size(); ++o) {
    const contracts::Operator& op = s.network.operators[o];
    INFO(op.name);
    const QuantizedOperator& qo = q.operators[o];
    switch (op.kind) {
      case OperatorKind::FabricLayer: {
        const contracts::Layer& layer = s.network.layers[op.layer];
        const std::size_t per_filter = std::size_t(layer.weight_elements() / layer.K);
        REQUIRE(qo.weights.size() == weights[o].weights.size());
        for (std::size_t k = 0; k < std::size_t(layer.K); ++k) {
          double max_real = 0;
          std::int64_t max_integer = 0;
          for (std::size_t i = k * per_filter; i < (k + 1) * per_filter; ++i) {
            max_real = std::max(max_real, std::abs(weights[o].weights[i]));
            max_integer = std::max(max_integer, std::abs(qo.weights[i]));
          }
          REQUIRE(max_real > 0);
          CHECK(max_integer == limits.weights[o]);
          const double weight_scale = max_real / double(limits.weights[o]);
          for (std::size_t i = k * per_filter; i < (k + 1) * per_filter; ++i)
            CHECK(std::abs(double(qo.weights[i]) * weight_scale - weights[o].weights[i]) <= weight_scale / 2 * (1 + 1e-12));
          const double accumulator_scale = scale(op.inputs[0]) * weight_scale;
          CHECK(std::abs(double(qo.bias[k]) * accumulator_scale - weights[o].bias[k]) <= accumulator_scale / 2 * (1 + 1e-12));
          const double multiplier = std::ldexp(double(qo.output[k].multiplier), -qo.output[k].shift);
          CHECK(multiplier == Approx(accumulator_scale / scale(op.outputs[0])).epsilon(1e-9));
          CHECK(qo.output[k].multiplier >= (std::int64_t{1} << 30));
          CHECK(qo.output[k].multiplier < (std::int64_t{1} << 31));
        }
        break;
      }
      case OperatorKind::Relu:
      case OperatorKind::MaxPool:
      case OperatorKind::AveragePool:
      case OperatorKind::GlobalAveragePool:
      case OperatorKind::Reshape:
        CHECK(scale(op.outputs[0]) == scale(op.inputs[0]));
        break;
      case OperatorKind::Clip:
        CHECK(scale(op.outputs[0]) == scale(op.inputs[0]));
        CHECK(qo.clip_min == 0);
        CHECK(qo.clip_max == std::min<std::int64_t>(L, std::llround(6 / scale(op.inputs[0]))));
        break;
      case OperatorKind::Add:
      case OperatorKind::Concat: {
        // The largest common shift: every multiplier below 2^31, and one would not be at the next shift.
        std::int64_t largest = 0;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
          const double ratio = scale(op.inputs[i]) / scale(op.outputs[0]);
          CHECK(qo.input_multipliers[i] == std::llround(std::ldexp(ratio, qo.input_shift)));
          largest = std::max(largest, qo.input_multipliers[i]);
        }
        CHECK(largest < (std::int64_t{1} << 31));
        CHECK(largest >= (std::int64_t{1} << 30) - 1);
        break;
      }
      case OperatorKind::Softmax: {
        CHECK(scale(op.outputs[0]) == 1.0 / double(L));
        REQUIRE(!qo.exp_table.empty());
        CHECK(qo.exp_table.front() == 32768);
        for (std::size_t d = 0; d < qo.exp_table.size(); ++d)
          CHECK(qo.exp_table[d] == std::llround(32768 * std::exp(-double(d) * scale(op.inputs[0]))));
        CHECK((qo.exp_table.back() == 0 || std::int64_t(qo.exp_table.size()) == 2 * L + 1));
        break;
      }
      case OperatorKind::Requantize:
      case OperatorKind::ChannelAffine:  // not in small_network: its own test below
      case OperatorKind::LayerNormalization:
      case OperatorKind::ReduceSum:
        break;
      case OperatorKind::Pad:
      case OperatorKind::Transpose:  // data movement (not in the small network): the scale of its input
      case OperatorKind::Slice:
      case OperatorKind::Gather:
      case OperatorKind::ReduceMean:
      case OperatorKind::ReduceMax:
      case OperatorKind::Resize:
        CHECK(scale(op.outputs[0]) == scale(op.inputs[0]));
        break;
      case OperatorKind::TableFunction:  // not in the small network: checked by their own test cases below
      case OperatorKind::Lookup:         // (tests/unit/test_table_lookup.cpp)
      case OperatorKind::Mul:
      case OperatorKind::Sub:
      case OperatorKind::Maximum:
      case OperatorKind::Minimum:
        break;
    }
  }
  // A tensor's scale is its calibration max |r| / the activation limit: the input's integers reach it.
  std::int64_t largest_input = 0;
  const std::vector<Values> inputs = testbench::quantize_inputs(q, {image});
  for (std::int64_t v : inputs[0]) largest_input = std::max(largest_input, std::abs(v));
  CHECK(largest_input == limits.activation[s.input]);
}

TEST_CASE("concat of inputs with equal scales is exact: multiplier 2^30 at shift 30; requantize likewise") {
  NetworkBuilder b("twins");
  const std::size_t x = b.input("x", {1, 2, 2, 2});
  b.concat("join", {x, x});
  b.requantize("same", x);  // the float reference's identity: the output scale is the input's
  const QuantizedNetwork q = testbench::quantize_network(b.network(), std::vector<testbench::RealLayerWeights>(2),
                                                         {uniform_values(8, 3.0, 1)}, {8, 32, true});
  CHECK(q.operators[0].input_multipliers == std::vector<std::int64_t>{1 << 30, 1 << 30});
  CHECK(q.operators[0].input_shift == 30);
  REQUIRE(q.operators[1].output.size() == 1);
  CHECK(q.operators[1].output[0].multiplier == 1 << 30);
  CHECK(q.operators[1].output[0].shift == 30);
}

TEST_CASE("weights come by tensor name; the others are random from the seed, each layer on its own") {
  const SmallNetwork s = small_network();
  const auto random = testbench::complete_weights(s.network, {}, 11);
  const std::size_t conv1 = 0, conv2 = 3, head = 11;
  REQUIRE(s.network.operators[head].name == "head");
  const std::vector<double> given(8 * 3 * 3 * 3, 0.25);
  const auto mixed = testbench::complete_weights(s.network, {{"conv1.weights", given}}, 11);
  CHECK(mixed[conv1].weights == given);
  CHECK(mixed[conv1].bias.empty());  // given weights and no bias tensor: no bias
  CHECK(mixed[conv2].weights == random[conv2].weights);
  CHECK(mixed[conv2].bias == random[conv2].bias);
  CHECK(mixed[head].weights == random[head].weights);
  CHECK(testbench::complete_weights(s.network, {}, 12)[conv2].weights != random[conv2].weights);
  // He-uniform: within ±√(6 / fan_in), fan_in = 8·3·3 for conv2; the bias within ±1/√fan_in.
  for (double w : random[conv2].weights) CHECK(std::abs(w) <= std::sqrt(6.0 / 72));
  for (double b : random[conv2].bias) CHECK(std::abs(b) <= 1 / std::sqrt(72.0));
  CHECK_THROWS_WITH(testbench::complete_weights(s.network, {{"conv2.weights", given}}, 11),
                    Catch::Contains("conv2.weights") && Catch::Contains("216 values") && Catch::Contains("576"));
}

TEST_CASE("a given bias tensor is read by name") {
  NetworkBuilder b("biased");
  b.fabric(conv("fc", 1, 2, 3, 1, 1, 0), b.input("x", {1, 3, 1, 1}), true);
  const auto weights = testbench::complete_weights(
      b.network(), {{"fc.weights", {1, 2, 3, 4, 5, 6}}, {"fc.bias", {0.5, -0.5}}}, 1);
  const testbench::RealTensors reals = testbench::float_reference(b.network(), weights, {{1, 1, 2}});
  CHECK(reals[b.network().network_outputs()[0]] == std::vector<double>{1 + 2 + 6 + 0.5, 4 + 5 + 12 - 0.5});
}

TEST_CASE("accumulator headroom: activation and weight limits from each layer's fan-in, by hand") {
  const SmallNetwork s = small_network();
  // Worst case: a layer's sums need its fan-in's bits g: conv1 3·3·3 = 27 (5 bits), conv2 8·3·3 = 72 (7), conv3 8
  // (3), head 12 (4). At 16/32 bits a sum has 31 magnitude bits and each layer asks ⌊(31 − g) / 2⌋ bits of what it
  // reads: conv1 13, conv2 12, conv3 14, head 13. A tensor gets the least its readers ask, through the operators
  // that keep its scale: conv2 reads pool1's output, whose scale is relu1's and so conv1's: conv1's output 12 bits;
  // head reads gap ← pool2 ← the concat: 13; the residual add's output (conv3's input) 14; the image 13; the logits,
  // read by no fabric layer, the full 15. Weights take the rest, 31 − g − a of the input: conv1 31 − 5 − 13 = 13,
  // conv2 31 − 7 − 12 = 12, conv3 31 − 3 − 14 = 14, head 31 − 4 − 13 = 14.
  const testbench::QuantizationLimits limits = testbench::quantization_limits(s.network, {16, 32, true});
  CHECK(limits.activation[s.input] == 8191);
  CHECK(limits.activation[s.conv1] == 4095);
  CHECK(limits.activation[s.add] == 16383);
  CHECK(limits.activation[s.concat] == 8191);
  CHECK(limits.activation[s.logits] == 32767);
  CHECK(limits.weights == std::vector<std::int64_t>{8191, 0, 0, 4095, 0, 0, 16383, 0, 0, 0, 0, 16383, 0, 0});
  // At 8/32 bits nothing needs to give: the full range ±127. Without headroom: ±L everywhere.
  const testbench::QuantizationLimits narrow = testbench::quantization_limits(s.network, {8, 32, true});
  CHECK(narrow.activation[s.conv1] == 127);
  CHECK(narrow.weights[3] == 127);
  const testbench::QuantizationLimits full = testbench::quantization_limits(s.network, {16, 32, false});
  CHECK(full.activation[s.conv1] == 32767);
  CHECK(full.weights[0] == 32767);
}

namespace {

// One FC layer "fc" of 64 inputs and 2 filters: filter 0 alternates +1, −1; filter 1 is +1 on its first three inputs
// and 0 elsewhere; bias 0.5 and 0.
struct SumNetwork {
  contracts::Network network;
  std::vector<testbench::RealLayerWeights> weights;
};
SumNetwork sum_network() {
  NetworkBuilder b("sums");
  contracts::Layer fc = conv("fc", 1, 2, 64, 1, 1, 0);
  b.fabric(fc, b.input("x", {1, 64, 1, 1}), true);
  std::vector<double> w(128, 0.0);
  for (std::size_t i = 0; i < 64; ++i) w[i] = i % 2 ? -1.0 : 1.0;
  w[64] = w[65] = w[66] = 1.0;
  return {b.network(), testbench::complete_weights(b.network(), {{"fc.weights", w}, {"fc.bias", {0.5, 0.0}}}, 1)};
}

}  // namespace

TEST_CASE("accumulator headroom from the calibration: the sum bits the observed sums need, by hand") {
  const SumNetwork s = sum_network();
  const std::vector<double> ones(64, 1.0);
  std::vector<double> alternating(64, 1.0);
  for (std::size_t i = 1; i < 64; i += 2) alternating[i] = -1.0;
  const auto bits_on = [&](const std::vector<std::vector<double>>& inputs) {
    testbench::RealTensors joined = testbench::float_reference(s.network, s.weights, {inputs[0]});
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      const testbench::RealTensors more = testbench::float_reference(s.network, s.weights, {inputs[i]});
      for (std::size_t t = 0; t < joined.size(); ++t) joined[t].insert(joined[t].end(), more[t].begin(), more[t].end());
    }
    return testbench::observed_sum_bits(s.network, s.weights, joined)[0];
  };
  // On all ones: filter 0 sums 32 − 32 = 0, filter 1 sums 3 (y = 0.5 and 3, less the biases 0.5 and 0); max |x| = 1
  // and max |w| = 1, so P = 3 products' worth: g = ⌈log2(2 · 3)⌉ = 3, where the fan-in's worst case is log2 64 = 6.
  CHECK(bits_on({ones}) == 3);
  // On ±1 alternating, filter 0 sums 64: P = 64 (the worst case itself), g = ⌈log2 128⌉ = 7, clamped to 6.
  CHECK(bits_on({alternating}) == 6);
  CHECK(bits_on({ones, alternating}) == 6);  // a calibration set: the largest over its samples
  // The limits that follow at 16/32 bits on all ones: fc asks ⌊(31 − 3) / 2⌋ = 14 bits of x, its weights get
  // 31 − 3 − 14 = 14 (the worst case: ⌊(31 − 6) / 2⌋ = 12 and 31 − 6 − 12 = 13).
  const QuantizedNetwork q = testbench::quantize_network(s.network, s.weights, {ones}, {16, 32, true});
  CHECK(q.tensors[0].scale == 1.0 / 16383);
  CHECK(*std::max_element(q.operators[0].weights.begin(), q.operators[0].weights.end()) == 16383);
  // Its integer sums: filter 1 sums 3 · 16383 · 16383 = 805,208,067 plus its bias 0; filter 0 sums 0 plus the bias
  // 0.5 at the accumulator's scale (1/16383)·(1/16383): 134,201,344.5, rounded away from zero to 134,201,345.
  CHECK(testbench::largest_fabric_sums(q, testbench::quantize_inputs(q, {ones}))[0] == 805208067);
  const QuantizedNetwork worst = testbench::quantize_network(s.network, s.weights, {ones}, {16, 32, true, false});
  CHECK(worst.tensors[0].scale == 1.0 / 4095);
}

TEST_CASE("accumulator headroom from the calibration: no sum wraps on the calibration input; beyond it they may, and "
          "largest_fabric_sums says so") {
  const SumNetwork s = sum_network();
  const std::vector<double> ones(64, 1.0);
  std::vector<double> alternating(64, 1.0);
  for (std::size_t i = 1; i < 64; i += 2) alternating[i] = -1.0;
  // Calibrated on all ones (g = 3, 14-bit x and weights), the alternating input, of the same max |x|, makes filter 0
  // sum 64 · 16383 · 16383 = 17,177,772,096 (+ its bias 134,201,345): beyond 2^31 − 1, so it wraps.
  const QuantizedNetwork q = testbench::quantize_network(s.network, s.weights, {ones}, {16, 32, true});
  const std::vector<std::int64_t> largest = testbench::largest_fabric_sums(q, testbench::quantize_inputs(q, {alternating}));
  CHECK(largest[0] == 17177772096 + 134201345);
  CHECK(largest[0] > contracts::accumulator_limit(32));
  // Calibrated on both, the quantizer takes the worst case (g = 6): 12-bit x, 13-bit weights, no sum wraps on either.
  const QuantizedNetwork both =
      testbench::quantize_network_calibrated(s.network, s.weights, {{ones}, {alternating}}, {16, 32, true});
  CHECK(both.tensors[0].scale == 1.0 / 4095);
  for (const std::vector<double>& input : {ones, alternating})
    CHECK(testbench::largest_fabric_sums(both, testbench::quantize_inputs(both, {input}))[0] <=
          contracts::accumulator_limit(32));
}

TEST_CASE("accumulator headroom from the calibration: on random networks and inputs no sum wraps on the calibration "
          "input, at 16/32 and at 8/16 bits") {
  // 40 random small networks (small_network's graph, He-uniform weights, inputs U(−b, b) with b from 0.01 to 100):
  // the quantizer's own check (largest_fabric_sums on the calibration input) must hold for the network it returns.
  const SmallNetwork s = small_network();
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto weights = testbench::complete_weights(s.network, {}, seed);
    const double bound = std::pow(10.0, double(seed % 5) - 2);
    const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, bound, seed + 100);
    for (const testbench::QuantizationOptions options :
         {testbench::QuantizationOptions{16, 32, true}, testbench::QuantizationOptions{8, 16, true}}) {
      INFO("seed " << seed << " widths " << options.data_width << "/" << options.acc_width);
      const QuantizedNetwork q = testbench::quantize_network(s.network, weights, {image}, options);
      const std::vector<std::int64_t> largest = testbench::largest_fabric_sums(q, testbench::quantize_inputs(q, {image}));
      for (std::int64_t sum : largest) CHECK(sum <= contracts::accumulator_limit(options.acc_width));
    }
  }
}

TEST_CASE("with headroom no fabric sum wraps at 16/32 bits; without it conv1's do and the output is lost") {
  const SmallNetwork s = small_network();
  const auto weights = testbench::complete_weights(s.network, {}, 11);
  const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, 1.0, 5);
  for (bool headroom : {true, false}) {
    INFO("headroom " << headroom);
    const QuantizedNetwork q = testbench::quantize_network(s.network, weights, {image}, {16, 32, headroom});
    const testbench::IntegerTensors integers = testbench::integer_reference(q, testbench::quantize_inputs(q, {image}));
    int wrapping_layers = 0;
    for (std::size_t o = 0; o < s.network.operators.size(); ++o) {
      const contracts::Operator& op = s.network.operators[o];
      if (op.kind != OperatorKind::FabricLayer) continue;
      const contracts::Layer& layer = s.network.layers[op.layer];
      const Values accumulators =
          testbench::integer_convolution(layer, integers[op.inputs[0]], q.operators[o].weights, 32);
      wrapping_layers += accumulators !=
                         testbench::integer_convolution(layer, integers[op.inputs[0]], q.operators[o].weights, 64);
      // The epilogue on the wrapped accumulators is the reference's output (which requantizes the exact sums).
      CHECK(testbench::fabric_layer_epilogue(q, o, accumulators) == integers[op.outputs[0]]);
    }
    CHECK((wrapping_layers == 0) == headroom);
    const testbench::RealTensors reals = testbench::float_reference(s.network, weights, {image});
    const double conv1_cosine = cosine(testbench::dequantize_values(integers[s.conv1], q.tensors[s.conv1].scale),
                                       reals[s.conv1]);
    CHECK((conv1_cosine > 0.999) == headroom);
  }
}

TEST_CASE("quantizing on a float reference the caller holds equals quantizing on the input alone") {
  // quantize_network(…, reference, …) skips its own float reference; every scale, weight, bias and requantization
  // must be those quantize_network computes from the input (with and without the headroom check on the input).
  const SmallNetwork s = small_network();
  const auto weights = testbench::complete_weights(s.network, {}, 11);
  const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, 1.0, 5);
  const testbench::RealTensors reference = testbench::float_reference(s.network, weights, {image});
  for (const testbench::QuantizationOptions options :
       {testbench::QuantizationOptions{16, 32, true}, testbench::QuantizationOptions{8, 16, true},
        testbench::QuantizationOptions{16, 32, false}}) {
    INFO("widths " << options.data_width << "/" << options.acc_width << " headroom " << options.accumulator_headroom);
    const QuantizedNetwork alone = testbench::quantize_network(s.network, weights, {image}, options);
    const QuantizedNetwork given = testbench::quantize_network(s.network, weights, {image}, reference, options);
    for (std::size_t t = 0; t < s.network.tensors.size(); ++t) CHECK(given.tensors[t].scale == alone.tensors[t].scale);
    for (std::size_t o = 0; o < s.network.operators.size(); ++o) {
      CHECK(given.operators[o].weights == alone.operators[o].weights);
      CHECK(given.operators[o].bias == alone.operators[o].bias);
      REQUIRE(given.operators[o].output.size() == alone.operators[o].output.size());
      for (std::size_t k = 0; k < alone.operators[o].output.size(); ++k) {
        CHECK(given.operators[o].output[k].multiplier == alone.operators[o].output[k].multiplier);
        CHECK(given.operators[o].output[k].shift == alone.operators[o].output[k].shift);
      }
    }
    CHECK(testbench::integer_reference(given, testbench::quantize_inputs(given, {image})) ==
          testbench::integer_reference(alone, testbench::quantize_inputs(alone, {image})));
    // A caller's headroom check (here largest_fabric_sums against the accumulator limit, the quantizer's own rule)
    // gives the same network, and its last call is on the network returned.
    int calls = 0;
    std::vector<double> last_scales;
    const testbench::WrapCheck check = [&](const QuantizedNetwork& candidate) {
      ++calls;
      last_scales.clear();
      for (const auto& tensor : candidate.tensors) last_scales.push_back(tensor.scale);
      std::vector<std::size_t> wrapping;
      const auto largest = testbench::largest_fabric_sums(candidate, testbench::quantize_inputs(candidate, {image}));
      for (std::size_t o = 0; o < largest.size(); ++o)
        if (largest[o] > contracts::accumulator_limit(candidate.acc_width)) wrapping.push_back(o);
      return wrapping;
    };
    const QuantizedNetwork checked = testbench::quantize_network(s.network, weights, {image}, reference, options, check);
    CHECK(calls == (options.accumulator_headroom ? 1 : 0));  // the first candidate's sums do not wrap here
    for (std::size_t t = 0; t < s.network.tensors.size(); ++t) {
      CHECK(checked.tensors[t].scale == alone.tensors[t].scale);
      if (calls > 0) CHECK(last_scales[t] == alone.tensors[t].scale);
    }
  }
  CHECK_THROWS_WITH(testbench::quantize_network(s.network, weights, {image}, {}, {16, 32, true}),
                    Catch::Contains("float reference of 0 tensors"));
}

TEST_CASE("float and integer references agree on a random small network (seed 11, input seed 5, 16/32 bits)") {
  // small_network(): conv 3→8 3×3, relu, max pool, conv 8→8 3×3 + relu, residual add, 1×1 conv 8→4 + ReLU6, concat,
  // average pool 3×3, global average pool, GEMM 12→10, flatten, softmax; batch 2; He-uniform weights from seed 11,
  // the input uniform in [−1, 1] from seed 5, which is also the calibration input.
  const SmallNetwork s = small_network();
  const auto weights = testbench::complete_weights(s.network, {}, 11);
  const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, 1.0, 5);
  const QuantizedNetwork q = testbench::quantize_network(s.network, weights, {image}, {16, 32, true});
  const testbench::IntegerTensors integers = testbench::integer_reference(q, testbench::quantize_inputs(q, {image}));
  const testbench::RealTensors reals = testbench::float_reference(s.network, weights, {image});
  const auto costs = testbench::quantization_cost(q, integers, reals);
  REQUIRE(costs.size() == 1);
  CHECK(costs[0].tensor == s.probabilities);
  CHECK(costs[0].cosine_similarity > 0.99);
  CHECK(costs[0].top1_agrees == std::vector<bool>{true, true});
  CHECK(costs[0].max_abs_error < 0.01);
  // Every activation on the way, not only the output, stays close to its float value.
  for (std::size_t t : {s.conv1, s.add, s.concat, s.logits}) {
    INFO(s.network.tensors[t].name);
    CHECK(cosine(testbench::dequantize_values(integers[t], q.tensors[t].scale), reals[t]) > 0.999);
  }
}

TEST_CASE("one flipped bit in one weight changes the layer's output, and from bit 8 up the network's (seed 11)") {
  // small_network() quantized as in the test above; conv1's weights keep to 14 magnitude bits (headroom), and every
  // one of the 16 bits of its weight [0][0][1][2], flipped, changes the sum of each output that tap sees (their
  // inputs are not zero) by enough to survive requantization. The network's output (after softmax) shows bits 3 to
  // 15 with this seed; bits 8 to 15 are asserted.
  const SmallNetwork s = small_network();
  const auto weights = testbench::complete_weights(s.network, {}, 11);
  const std::vector<double> image = uniform_values(2 * 3 * 8 * 8, 1.0, 5);
  const QuantizedNetwork q = testbench::quantize_network(s.network, weights, {image}, {16, 32, true});
  const std::vector<Values> inputs = testbench::quantize_inputs(q, {image});
  const testbench::IntegerTensors expected = testbench::integer_reference(q, inputs);
  for (int bit = 0; bit < 16; ++bit) {
    INFO("bit " << bit);
    QuantizedNetwork flipped = q;
    Values& w = flipped.operators[0].weights;
    w[5] = contracts::wrap_signed(w[5] ^ (std::int64_t{1} << bit), 16);
    const testbench::IntegerTensors got = testbench::integer_reference(flipped, inputs);
    CHECK(got[s.conv1] != expected[s.conv1]);
    if (bit >= 8) {
      CHECK(got[s.probabilities] != expected[s.probabilities]);
    }
  }
}

TEST_CASE("the references reject inputs and graphs that do not fit, naming the tensor or operator") {
  NetworkBuilder b("bad");
  const std::size_t x = b.input("x", {1, 1, 4, 4});
  b.pool("p", OperatorKind::MaxPool, x, window(2, 2, 0));
  contracts::Network network = b.network();
  const QuantizedNetwork q = by_hand(network, {{}}, 8);
  CHECK_THROWS_WITH(testbench::integer_reference(q, {Values(15, 0)}), Catch::Contains("'x'") && Catch::Contains("15"));
  CHECK_THROWS_WITH(testbench::integer_reference(q, {}), Catch::Contains("1 inputs, 0 were given"));
  network.tensors.back().shape = {1, 1, 3, 3};  // the pool gives (1, 1, 2, 2)
  CHECK_THROWS_WITH(testbench::integer_reference(by_hand(network, {{}}, 8), {Values(16, 0)}),
                    Catch::Contains("operator 'p' (max pool)") && Catch::Contains("(1,1,2,2)"));
  CHECK_THROWS_WITH(testbench::float_reference(network, {{}}, {std::vector<double>(16, 0.0)}),
                    Catch::Contains("operator 'p'"));
  NetworkBuilder add("bad add");
  const std::size_t a = add.input("a", {1, 4}), c = add.input("c", {1, 5});
  add.add("sum", a, c);
  CHECK_THROWS_WITH(testbench::integer_reference(by_hand(add.network(), {input_multipliers({1, 1}, 0)}, 8),
                                                 {Values(4, 0), Values(5, 0)}),
                    Catch::Contains("add 'sum' reads 'a' of shape (1,4) and 'c' of shape (1,5)"));
}

TEST_CASE("sigmoid, tanh and hard sigmoid: the quantizer's table holds f(x · s_in) / s_out rounded, the reference looks it up") {
  // 8 bits (L = 127, and no fabric layer: the activation limit is L too); the calibration input's max |x| is 4, so
  // s_in = 4/127, and each gate's output scale is its calibration output's max |f| / 127 (f(4) for these three).
  const int L = 127;
  const double s_in = 4.0 / L;
  const std::vector<std::int64_t> probes = {-127, -64, -1, 0, 1, 2, 40, 127};
  const auto check_gate = [&](const char* what, const std::function<std::size_t(NetworkBuilder&, std::size_t)>& add,
                              const std::function<double(double)>& f) {
    INFO(what);
    NetworkBuilder b(what);
    add(b, b.input("x", {1, 8}));
    testbench::QuantizationOptions options;
    options.data_width = 8;
    const QuantizedNetwork q =
        testbench::quantize_network(b.network(), testbench::complete_weights(b.network(), {}, 1),
                                    {{-4, -2, -0.01, 0, 0.01, 0.06, 1.3, 4}}, options);
    const double s_out = f(4.0) / L;
    CHECK(q.tensors[1].scale == Approx(s_out).epsilon(1e-12));
    const Values& table = q.operators[0].activation_table;
    REQUIRE(table.size() == 2 * L + 1);
    Values expected;
    for (std::int64_t x : probes) {
      expected.push_back(std::min<std::int64_t>(L, std::llround(f(double(x) * s_in) / s_out)));
      CHECK(table[std::size_t(x + L)] == expected.back());
    }
    CHECK(output_of(q, {probes}) == expected);
  };
  check_gate("sigmoid", [](NetworkBuilder& b, std::size_t x) { return b.sigmoid("s", x); },
             [](double v) { return 1 / (1 + std::exp(-v)); });
  check_gate("tanh", [](NetworkBuilder& b, std::size_t x) { return b.tanh("t", x); },
             [](double v) { return (std::exp(v) - std::exp(-v)) / (std::exp(v) + std::exp(-v)); });
  check_gate("hard sigmoid", [](NetworkBuilder& b, std::size_t x) { return b.hard_sigmoid("h", x, 1.0 / 6, 0.5); },
             [](double v) { return std::clamp(v / 6 + 0.5, 0.0, 1.0); });
  // By hand: the output scale is sigmoid(4) / 127 = 0.98201379 / 127; sigmoid(0) = 1/2 → 64.66 → 65, sigmoid(4)
  // → 127.
  NetworkBuilder b("by hand");
  b.sigmoid("s", b.input("x", {1, 2}));
  testbench::QuantizationOptions options;
  options.data_width = 8;
  const QuantizedNetwork q =
      testbench::quantize_network(b.network(), testbench::complete_weights(b.network(), {}, 1), {{0, 4}}, options);
  CHECK(output_of(q, {{0, 127}}) == Values{65, 127});
}

TEST_CASE("mul: a · b · multiplier, rounded and saturated; an SE gate scales each (n, c) plane") {
  NetworkBuilder b("mul");
  const std::size_t x = b.input("x", {1, 5}), y = b.input("y", {1, 5});
  b.mul("m", x, y);
  QuantizedOperator half;
  half.product = {1 << 30, 31};  // 0.5
  // 20·10/2 = 100; −20·13/2 = −130 → −127; 3·3/2 = 4.5 → 5, −4.5 → −5 (ties away from zero); 127² / 2 → 127.
  CHECK(output_of(by_hand(b.network(), {half}, 8), {{20, -20, 3, -3, 127}, {10, 13, 3, 3, 127}}) ==
        Values{100, -127, 5, -5, 127});

  NetworkBuilder se("squeeze and excitation");
  const std::size_t image = se.input("image", {1, 2, 2, 2}), gate = se.input("gate", {1, 2, 1, 1});
  se.mul("scaled", image, gate);
  QuantizedOperator one;
  one.product = {1 << 30, 30};  // 1.0
  // Channel 0's plane {1, 2, 3, 4} times gate 2, channel 1's {5, 6, 7, 8} times gate −3.
  CHECK(output_of(by_hand(se.network(), {one}, 8), {{1, 2, 3, 4, 5, 6, 7, 8}, {2, -3}}) ==
        Values{2, 4, 6, 8, -15, -18, -21, -24});
  const testbench::RealTensors reals = testbench::float_reference(
      se.network(), testbench::complete_weights(se.network(), {}, 1), {{1, 2, 3, 4, 5, 6, 7, 8}, {0.5, -0.25}});
  CHECK(reals[2] == std::vector<double>{0.5, 1, 1.5, 2, -1.25, -1.5, -1.75, -2});

  // The quantizer: s_a · s_b / s_out as a requantization (inputs of max |x| 8 and 0.5, output max |x| 2 at L = 127).
  testbench::QuantizationOptions options;
  options.data_width = 8;
  const QuantizedNetwork q = testbench::quantize_network(
      se.network(), testbench::complete_weights(se.network(), {}, 1), {{1, 2, 3, 4, 5, 6, 7, 8}, {0.5, -0.25}}, options);
  const contracts::Requantization expected = contracts::requantization_of((8.0 / 127) * (0.5 / 127) / (2.0 / 127));
  CHECK(q.operators[0].product.multiplier == expected.multiplier);
  CHECK(q.operators[0].product.shift == expected.shift);
}
