// Matrix products of two activations (contracts/matrix_product.hpp, docs/workload-spec.md "Matrix products"): the
// grouped GEMM layer a `matmul` loads as, its bad operands named, the integer reference of two heads against
// products computed by hand (as given and with B transposed), the quantizer's parameters, and the float reference
// of one attention head (scores, row softmax, context) against plain loops written here.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "contracts/matrix_product.hpp"
#include "contracts/spec_loader.hpp"
#include "temp_file.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/quantization.hpp"

using namespace maeri;
using Values = std::vector<std::int64_t>;

namespace {

std::string source(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/" + relative; }

// A graph of one product A·B of two declared inputs, each form of operand as the YAML gives it.
std::string product_yaml(const std::string& a_shape, const std::string& b_shape, const std::string& fields = "") {
  return "kind: workload\nname: product\ninputs:\n  - {name: a, shape: " + a_shape + "}\n  - {name: b, shape: " +
         b_shape + "}\noperators:\n  - {name: ab, type: matmul, inputs: [a, b]" + fields + "}\n";
}

contracts::Network load(const std::string& yaml) {
  const test::TempFile file(yaml);
  return contracts::load_workload(file.path());
}

// Two heads of 2x3 by 3x2, by hand: head 0 [[1,2,3],[4,5,6]]·[[1,0],[0,1],[1,1]] = [[4,5],[10,11]];
// head 1 [[-1,0,2],[3,1,-2]]·[[2,1],[1,-1],[0,3]] = [[-2,5],[7,-4]].
const Values kA = {1, 2, 3, 4, 5, 6, -1, 0, 2, 3, 1, -2};
const Values kB = {1, 0, 0, 1, 1, 1, 2, 1, 1, -1, 0, 3};
const Values kBTransposed = {1, 0, 1, 0, 1, 1, 2, 1, 0, 1, -1, 3};
const Values kProduct = {4, 5, 10, 11, -2, 5, 7, -4};

// The integer reference of `network` (one product) at scale 1 everywhere: requantization by 1 (2^30 · 2^−30).
Values integer_product(const contracts::Network& network, const Values& a, const Values& b) {
  contracts::QuantizedNetwork quantized;
  quantized.network = network;
  quantized.tensors.resize(network.tensors.size());
  contracts::QuantizedOperator q;
  const std::int64_t filters = network.layers.at(0).K;
  q.bias.assign(std::size_t(filters), 0);
  q.output.assign(std::size_t(filters), {std::int64_t{1} << 30, 30});
  quantized.operators = {q};
  // network_inputs() is ascending: a (declared first), then b.
  return testbench::integer_reference(quantized, {a, b})[network.network_outputs().at(0)];
}

}  // namespace

TEST_CASE("a matmul loads as a grouped GEMM over its leading axes, reading B as its input and A as its weights") {
  const contracts::Network network = load(product_yaml("[1, 2, 2, 3]", "[1, 2, 3, 2]"));
  REQUIRE(network.layers.size() == 1);
  const contracts::Layer& layer = network.layers[0];
  CHECK(layer.type == contracts::LayerType::Gemm);
  CHECK(layer.N == 1);
  CHECK(layer.groups == 2);      // two heads
  CHECK(layer.K == 2 * 2);       // G·M filters: A's rows
  CHECK(layer.C == 2 * 3);       // G·K channels: the reduction
  CHECK(layer.X == 2);           // B's columns
  CHECK(layer.macs() == 2 * 2 * 3 * 2);  // G·M·K·N
  const contracts::Operator& op = network.operators[0];
  CHECK(contracts::is_matrix_product(op));
  CHECK(network.tensors[op.inputs[0]].name == "b");  // held as (B, A)
  CHECK(network.tensors[op.inputs[1]].name == "a");
  CHECK(network.tensors[op.outputs[0]].shape == std::vector<std::int64_t>{1, 2, 2, 2});
  CHECK(contracts::activation_inputs(network, op) == 2);
  CHECK_FALSE(contracts::network_violation(network));
}

TEST_CASE("operands that disagree are an error at the matmul naming it, both tensors and their shapes") {
  const auto refused = [](const std::string& yaml, const std::string& words) {
    CHECK_THROWS_WITH(load(yaml), Catch::Contains("matmul 'ab' multiplies 'a' of shape") && Catch::Contains(words));
  };
  refused(product_yaml("[2, 3]", "[4, 2]"), "'a' of shape (2,3) by 'b' of shape (4,2): A's rows have 3 elements "
                                            "but B's columns 4");
  refused(product_yaml("[2, 2, 3]", "[3, 3, 2]"), "the leading axes (batch, heads) must be equal");
  refused(product_yaml("[6]", "[6, 2]"), "both operands need rank 2 to 8");
  refused(product_yaml("[2, 3]", "[3, 2]", ", transpose_a: true"),
          "'a' of shape (2,3) (transposed) by 'b' of shape (3,2): A's rows have 2 elements but B's columns 3");
  CHECK_THROWS_WITH(load(product_yaml("[2, 3]", "[3, 2]", ", transpose_b: maybe")),
                    Catch::Contains("transpose_b"));
}

TEST_CASE("the integer reference of a two-head product equals the products computed by hand") {
  CHECK(integer_product(load(product_yaml("[1, 2, 2, 3]", "[1, 2, 3, 2]")), kA, kB) == kProduct);
  // B given as Bᵀ [1, 2, 2, 3] and read transposed: the same product.
  CHECK(integer_product(load(product_yaml("[1, 2, 2, 3]", "[1, 2, 2, 3]", ", transpose_b: true")), kA,
                        kBTransposed) == kProduct);
  // (A·B)ᵀ = Bᵀ·Aᵀ: Bᵀ as the operand A as it is, A as the operand B read transposed; each head's product transposed.
  const Values transposed_product = integer_product(
      load(product_yaml("[1, 2, 2, 3]", "[1, 2, 2, 3]", ", transpose_b: true")), kBTransposed, kA);
  CHECK(transposed_product == Values{4, 10, 5, 11, -2, 7, 5, -4});
}

TEST_CASE("one attention head's float reference equals softmax(q·kᵀ)·v computed with plain loops") {
  const contracts::Network network = contracts::load_workload(source("tests/workloads/attention-one-head.yaml"));
  const std::vector<std::vector<double>> inputs = {
      {0.5, -1, 0.25, 1, 0, -0.5, -0.75, 0.5, 1, 0.25, 0.25, -1},   // q [4, 3]
      {1, 0.5, -0.5, -1, 0.75, 0, 0.5, -0.25, 1, 0, 1, 0.5},        // k [4, 3]
      {0.2, -0.4, 0.6, 1, 0.8, -0.2, -0.6, 0.4, 0, 0.1, 0.3, -0.9}};  // v [4, 3]
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i) {
    double scores[4], largest = -1e300, total = 0;
    for (int j = 0; j < 4; ++j) {
      scores[j] = 0;
      for (int d = 0; d < 3; ++d) scores[j] += inputs[0][std::size_t(i * 3 + d)] * inputs[1][std::size_t(j * 3 + d)];
      largest = std::max(largest, scores[j]);
    }
    for (double& s : scores) total += (s = std::exp(s - largest));
    for (int d = 0; d < 3; ++d) {
      double sum = 0;
      for (int j = 0; j < 4; ++j) sum += scores[j] / total * inputs[2][std::size_t(j * 3 + d)];
      expected.push_back(sum);
    }
  }
  const std::vector<testbench::RealLayerWeights> weights = testbench::complete_weights(network, {}, 1);
  for (const auto& operator_weights : weights) CHECK(operator_weights.weights.empty());  // no constants at all
  const testbench::RealTensors reals = testbench::float_reference(network, weights, inputs);
  const std::vector<double>& context = reals[network.network_outputs().at(0)];
  REQUIRE(context.size() == expected.size());
  for (std::size_t i = 0; i < context.size(); ++i) CHECK(context[i] == Approx(expected[i]).margin(1e-12));

  // The quantizer: per-tensor scales for both operands, one requantization s_A·s_B / s_out for every filter, no bias.
  const contracts::QuantizedNetwork quantized = testbench::quantize_network(network, weights, inputs, {});
  const contracts::Operator& scores = network.operators.at(0);
  const contracts::QuantizedOperator& q = quantized.operators.at(0);
  CHECK(q.weights.empty());
  CHECK(q.bias == Values(4, 0));
  const contracts::Requantization r = contracts::requantization_of(
      quantized.tensors[scores.inputs[0]].scale * quantized.tensors[scores.inputs[1]].scale /
      quantized.tensors[scores.outputs[0]].scale);
  for (const contracts::Requantization& filter : q.output) {
    CHECK(filter.multiplier == r.multiplier);
    CHECK(filter.shift == r.shift);
  }
  // The integer result follows the float one (cosine of the context ≥ 0.999 at 16 bits).
  const testbench::IntegerTensors integers =
      testbench::integer_reference(quantized, testbench::quantize_inputs(quantized, inputs));
  const auto costs = testbench::quantization_cost(quantized, integers, reals);
  REQUIRE(costs.size() == 1);
  CHECK(costs[0].cosine_similarity > 0.999);
}

TEST_CASE("layer_operand swaps the last two axes of each matrix of a batched operand") {
  // Two 2x3 matrices → two 3x2 ones.
  const Values given = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  CHECK(contracts::layer_operand(given, {2, 2, 3}, true) == Values{1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12});
  CHECK(contracts::layer_operand(given, {2, 2, 3}, false) == given);
}
