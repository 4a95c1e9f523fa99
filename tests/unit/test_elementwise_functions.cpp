// The element-wise family (contracts/elementwise_functions.hpp, contracts/elementwise_pairs.hpp): every table
// function's definition against values computed by hand or from published tables (ONNX's Round: halves to even),
// the quantizer's tables with the domain rule and floor / round by hand, a tiny sigmoid probability that survives
// quantization, broadcasting, the integer reference of the binary operators against the float one, and the YAML
// forms loaded, written and loaded back.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "contracts/elementwise_functions.hpp"
#include "contracts/elementwise_pairs.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/workload_yaml.hpp"
#include "network_builder.hpp"
#include "temp_file.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/quantization.hpp"

using maeri::contracts::FunctionCall;
using maeri::contracts::OperatorKind;
using maeri::contracts::UnaryFunction;
using maeri::test::NetworkBuilder;
namespace contracts = maeri::contracts;
namespace testbench = maeri::testbench;

namespace {

double value_of(UnaryFunction function, double x) { return contracts::unary_value(contracts::default_call(function), x); }

testbench::QuantizationOptions eight_bits() {
  testbench::QuantizationOptions options;
  options.data_width = 8;
  return options;
}

}  // namespace

TEST_CASE("table functions: each definition at points computed by hand", "[elementwise]") {
  // erf(1) = 0.8427007929497149 (Abramowitz & Stegun, table 7.1); Φ(1) = 0.8413447460685429 (the standard normal
  // CDF), so gelu(1) = 1·Φ(1); the tanh form: 0.5·(1 + tanh(√(2/π)·1.044715)) = 0.8411919906082768.
  CHECK(value_of(UnaryFunction::Erf, 1) == Approx(0.8427007929497149).epsilon(1e-15));
  CHECK(value_of(UnaryFunction::Gelu, 1) == Approx(0.8413447460685429).epsilon(1e-15));
  CHECK(value_of(UnaryFunction::GeluTanh, 1) == Approx(0.8411919906082768).epsilon(1e-14));
  CHECK(value_of(UnaryFunction::Sigmoid, 0) == 0.5);
  CHECK(value_of(UnaryFunction::Tanh, 1) == Approx(0.7615941559557649).epsilon(1e-15));
  // e^−1 − 1 = −0.6321205588285577: elu(−1) (α 1), celu(−1) (α 1); selu(−1) = 1.0507010·1.6732632·(e^−1 − 1).
  CHECK(value_of(UnaryFunction::Elu, -1) == Approx(-0.6321205588285577).epsilon(1e-15));
  CHECK(value_of(UnaryFunction::Celu, -1) == Approx(-0.6321205588285577).epsilon(1e-15));
  CHECK(value_of(UnaryFunction::Selu, -1) == Approx(-1.1113307378125628).epsilon(1e-7));
  CHECK(value_of(UnaryFunction::Selu, 2) == Approx(2.1014020442962646).epsilon(1e-7));
  CHECK(value_of(UnaryFunction::LeakyRelu, -2) == Approx(-0.02));
  CHECK(value_of(UnaryFunction::Softplus, 0) == Approx(0.6931471805599453).epsilon(1e-15));  // ln 2
  CHECK(value_of(UnaryFunction::Softplus, 800) == 800);  // no overflow of e^800
  CHECK(value_of(UnaryFunction::Softsign, 1) == 0.5);
  // mish(1) = tanh(ln(1 + e)) = tanh(1.3132616875182228) = 0.8650983882673103; swish(1) = sigmoid(1).
  CHECK(value_of(UnaryFunction::Mish, 1) == Approx(0.8650983882673103).epsilon(1e-14));
  CHECK(value_of(UnaryFunction::Swish, 1) == Approx(0.7310585786300049).epsilon(1e-15));
  CHECK(value_of(UnaryFunction::HardSwish, 1) == Approx(2.0 / 3));  // 1 · (1/6 + 1/2)
  CHECK(value_of(UnaryFunction::HardSwish, -4) == 0);
  CHECK(value_of(UnaryFunction::HardSigmoid, 1) == Approx(0.7));
  CHECK(value_of(UnaryFunction::Exp, 1) == Approx(2.718281828459045));
  CHECK(value_of(UnaryFunction::Log, std::exp(2.0)) == Approx(2));
  CHECK(value_of(UnaryFunction::Sqrt, 9) == 3);
  CHECK(value_of(UnaryFunction::Reciprocal, 4) == 0.25);
  CHECK(value_of(UnaryFunction::Neg, 3) == -3);
  CHECK(value_of(UnaryFunction::Abs, -3) == 3);
  CHECK(value_of(UnaryFunction::Pow, -3) == 9);  // the default exponent 2
  CHECK(contracts::unary_value({UnaryFunction::Pow, 0.5, 0, 0}, 16) == 4);
  // ONNX's ThresholdedRelu (α 1: x > 1 ? x : 0, 1 itself is not above), Floor, Ceil, and Round (halves to even).
  CHECK(value_of(UnaryFunction::ThresholdedRelu, 1) == 0);
  CHECK(value_of(UnaryFunction::ThresholdedRelu, 1.5) == 1.5);
  CHECK(contracts::unary_value({UnaryFunction::ThresholdedRelu, -2, 0, 0}, -1) == -1);
  CHECK(value_of(UnaryFunction::Floor, -1.5) == -2);
  CHECK(value_of(UnaryFunction::Ceil, -1.5) == -1);
  CHECK(value_of(UnaryFunction::Round, 2.5) == 2);
  CHECK(value_of(UnaryFunction::Round, -2.5) == -2);
  CHECK(value_of(UnaryFunction::Round, 3.5) == 4);
  CHECK(value_of(UnaryFunction::Round, 2.6) == 3);
  // ONNX's values outside the domain (the float reference), and the table's rule there (never NaN).
  CHECK(std::isnan(value_of(UnaryFunction::Log, -1)));
  CHECK(std::isnan(value_of(UnaryFunction::Sqrt, -1)));
  CHECK(contracts::table_value(contracts::default_call(UnaryFunction::Log), -1) ==
        -std::numeric_limits<double>::infinity());
  CHECK(contracts::table_value(contracts::default_call(UnaryFunction::Sqrt), -4) == 0);
  CHECK(contracts::table_value(contracts::default_call(UnaryFunction::Reciprocal), 0) ==
        std::numeric_limits<double>::infinity());
  CHECK(contracts::table_value({UnaryFunction::Pow, 0.5, 0, 0}, -4) == 0);
  // The list's names round-trip, and ONNX op types map to them.
  for (int f = 0; f <= int(UnaryFunction::Round); ++f) {
    const auto function = UnaryFunction(f);
    CHECK(contracts::function_of_yaml_type(contracts::yaml_type(function)) == function);
  }
  CHECK(contracts::function_of_onnx_operator("Selu") == UnaryFunction::Selu);
  CHECK(contracts::function_of_onnx_operator("Floor") == UnaryFunction::Floor);
  CHECK(contracts::function_of_onnx_operator("ThresholdedRelu") == UnaryFunction::ThresholdedRelu);
  CHECK(!contracts::function_of_onnx_operator("Sign"));
  CHECK(contracts::function_violation({UnaryFunction::Celu, 0, 0, 0}).value() == "alpha 0: celu divides by alpha");
}

TEST_CASE("table functions: floor and round tables by hand at 8 bits", "[elementwise]") {
  // Calibration input {−4, 0.01, 4}: s_in = 4/127; floor gives {−4, 0, 4} and round {−4, 0, 4}: s_out = 4/127 too,
  // so entry x holds round(f(4x/127) · 127/4). x = 40 (1.2598): floor 1 → 31.75 → 32, round 1 → 32; x = 48 (1.5118):
  // floor 1 → 32, round 2 → 64; x = −40: floor −2 → −64, round −1 → −32.
  const std::vector<double> calibration = {-4, 0.01, 4};
  const auto table = [&](UnaryFunction function) {
    NetworkBuilder b("table");
    b.function("f", b.input("x", {1, 3}), function);
    return testbench::quantize_network(b.network(), testbench::complete_weights(b.network(), {}, 1), {calibration},
                                       eight_bits())
        .operators[0]
        .activation_table;
  };
  const auto floor = table(UnaryFunction::Floor), round = table(UnaryFunction::Round);
  CHECK(floor.at(40 + 127) == 32);
  CHECK(round.at(40 + 127) == 32);
  CHECK(floor.at(48 + 127) == 32);
  CHECK(round.at(48 + 127) == 64);
  CHECK(floor.at(-40 + 127) == -64);
  CHECK(round.at(-40 + 127) == -32);
}

TEST_CASE("table functions: the quantizer's table by hand at 8 bits, with the domain rule", "[elementwise]") {
  // Calibration input {−4, 0.01, 4}: s_in = 4/127. Each output scale is the calibration output's max finite |f| / 127.
  const std::vector<double> calibration = {-4, 0.01, 4};
  const auto quantized = [&](UnaryFunction function) {
    NetworkBuilder b("table");
    b.function("f", b.input("x", {1, 3}), function);
    return testbench::quantize_network(b.network(), testbench::complete_weights(b.network(), {}, 1), {calibration},
                                       eight_bits());
  };
  const auto entry = [](const contracts::QuantizedNetwork& q, std::int64_t x) {
    return q.operators[0].activation_table.at(std::size_t(x + 127));
  };
  // log: calibration outputs NaN, ln 0.01 = −4.60517, ln 4 = 1.386294: s_out = 4.60517/127. Entry 127 (x = 4):
  // 1.386294 · 127 / 4.60517 = 38.23 → 38; entries 0 and −5 (x ≤ 0): ln 0 = −∞ → −127.
  const auto log = quantized(UnaryFunction::Log);
  CHECK(log.tensors[1].scale == Approx(4.605170185988091 / 127));
  CHECK(entry(log, 127) == 38);
  CHECK(entry(log, 0) == -127);
  CHECK(entry(log, -5) == -127);
  // sqrt: s_out = 2/127; x = −3 → √0 = 0; x = 32 (1.00787) → 1.003929 · 63.5 = 63.75 → 64.
  const auto root = quantized(UnaryFunction::Sqrt);
  CHECK(entry(root, -3) == 0);
  CHECK(entry(root, 32) == 64);
  // reciprocal: 1/0.01 = 100 is the calibration's max: s_out = 100/127; x = 0 → +∞ → 127; x = −127 → −0.25 · 1.27
  // = −0.3175 → 0; x = 1 (0.031496) → 31.75 · 1.27 = 40.3 → 40.
  const auto reciprocal = quantized(UnaryFunction::Reciprocal);
  CHECK(entry(reciprocal, 0) == 127);
  CHECK(entry(reciprocal, -127) == 0);
  CHECK(entry(reciprocal, 1) == 40);
}

TEST_CASE("a tiny sigmoid probability survives quantization: the gate's output scale comes from data", "[elementwise]") {
  // A keyword spotter's unlikely class: logits −9 and −10 give sigmoid 1.2339e-4 and 4.5398e-5. At 8 bits the old
  // fixed output step 1/127 rounded both to 0; the calibrated scale sigmoid(−9)/127 keeps them within 1 %.
  NetworkBuilder b("tiny");
  b.sigmoid("s", b.input("x", {1, 2}));
  const contracts::QuantizedNetwork q = testbench::quantize_network(
      b.network(), testbench::complete_weights(b.network(), {}, 1), {{-9, -10}}, eight_bits());
  const double p9 = 1 / (1 + std::exp(9.0)), p10 = 1 / (1 + std::exp(10.0));
  CHECK(p9 * 127 < 0.5);  // what the fixed scale 1/127 would have rounded to 0
  const auto inputs = testbench::quantize_inputs(q, {{-9, -10}});
  const auto out = testbench::integer_reference(q, inputs)[1];
  CHECK(double(out[0]) * q.tensors[1].scale == Approx(p9).epsilon(0.01));
  CHECK(double(out[1]) * q.tensors[1].scale == Approx(p10).epsilon(0.01));
  CHECK(out[1] > 0);
}

TEST_CASE("broadcasting: shapes and the element each output reads", "[elementwise]") {
  using Shape = std::vector<std::int64_t>;
  CHECK(contracts::broadcast_shape({1, 8, 5, 5}, {8, 1, 1}) == Shape{1, 8, 5, 5});
  CHECK(contracts::broadcast_shape({2, 1}, {1, 3}) == Shape{2, 3});
  CHECK(contracts::broadcast_shape({1, 8, 1, 1}, {1, 1, 5, 5}) == Shape{1, 8, 5, 5});
  CHECK(contracts::broadcast_shape({5}, {1}) == Shape{5});
  CHECK(!contracts::broadcast_shape({1, 2, 4}, {3, 4}));
  // (1, 1, 3) into (2, 2, 3): the last axis only; (2, 1) into (2, 3): the row.
  const contracts::BroadcastIndex along_last({1, 1, 3}, {2, 2, 3}), per_row({2, 1}, {2, 3});
  CHECK(along_last(0) == 0);
  CHECK(along_last(4) == 1);
  CHECK(along_last(11) == 2);
  CHECK(per_row(2) == 0);
  CHECK(per_row(3) == 1);
}

TEST_CASE("binary element-wise operators: the integer reference within a step of the float one, broadcast",
          "[elementwise]") {
  // x (1, 2, 3) against constants (2, 1) and (3) and against a tensor (1, 1, 3); each output within 1.5 output steps
  // of the float reference (the inputs' and constant's roundings add at most one step, the output's half a step).
  for (OperatorKind kind : {OperatorKind::Add, OperatorKind::Sub, OperatorKind::Maximum, OperatorKind::Minimum,
                            OperatorKind::Mul}) {
    for (int form = 0; form < 3; ++form) {
      INFO(contracts::to_string(kind) << " form " << form);
      NetworkBuilder b("pair");
      const std::size_t x = b.input("x", {1, 2, 3});
      std::vector<std::vector<double>> inputs = {{0.5, -1.25, 2, 0.75, -0.5, 1.5}};
      if (form == 2) {
        b.pair("p", kind, x, b.input("y", {1, 1, 3}));
        inputs.push_back({-1, 0.25, 1.75});
      } else {
        b.pair_constant("p", kind, x, form == 0 ? std::vector<std::int64_t>{2, 1} : std::vector<std::int64_t>{3},
                        kind == OperatorKind::Sub && form == 1);
      }
      const std::vector<double> constant = form == 0 ? std::vector<double>{0.5, -2} : std::vector<double>{0.5, -2, 1.25};
      const auto weights = testbench::complete_weights(b.network(), {{"p.constant", constant}}, 1);
      const auto q = testbench::quantize_network(b.network(), weights, inputs, eight_bits());
      const auto reals = testbench::float_reference(b.network(), weights, inputs);
      const auto integers = testbench::integer_reference(q, testbench::quantize_inputs(q, inputs));
      const std::size_t out = b.network().operators[0].outputs[0];
      REQUIRE(integers[out].size() == 6);
      const double step = q.tensors[out].scale;
      for (std::size_t i = 0; i < 6; ++i) CHECK(double(integers[out][i]) * step == Approx(reals[out][i]).margin(1.5 * step));
    }
  }
  // By hand: 1 − x with the constant first (a sub's constant_first), x = {0.25, 0.75}: 0.75, 0.25.
  NetworkBuilder b("complement");
  b.pair_constant("c", OperatorKind::Sub, b.input("x", {1, 2}), {1}, true);
  const auto weights = testbench::complete_weights(b.network(), {{"c.constant", {1.0}}}, 1);
  CHECK(testbench::float_reference(b.network(), weights, {{0.25, 0.75}})[2] == std::vector<double>{0.75, 0.25});
  // A constant of the wrong number of values is refused naming it.
  CHECK_THROWS_WITH(testbench::complete_weights(b.network(), {{"c.constant", {1.0, 2.0}}}, 1),
                    Catch::Contains("constant 'c.constant' of operator 'c' has 2 values, its shape has 1"));
}

TEST_CASE("element-wise YAML forms: functions with parameters, pairs with constants, load, write and load back",
          "[elementwise]") {
  const maeri::test::TempFile file(
      "kind: workload\nname: pairs\ninputs: [{name: x, shape: [1, 2, 4, 4]}]\noperators:\n"
      "  - {name: c, type: conv, input: x, K: 4, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1}\n"
      "  - {name: l, type: leaky_relu, input: c, alpha: 0.1}\n"
      "  - {name: s, type: sub, inputs: [l], constant: centre, constant_shape: [4, 1, 1]}\n"
      "  - {name: r, type: sub, inputs: [s], constant: one, constant_shape: [1], constant_first: true}\n"
      "  - {name: m, type: max, inputs: [r, c]}\n"
      "  - {name: n, type: min, inputs: [m], constant: ceiling, constant_shape: [4]}\n"
      "  - {name: e, type: selu, input: n, gamma: 1.5}\n"
      "  - {name: g, type: gelu_tanh, input: e}\n");
  const contracts::Network network = contracts::load_workload(file.path());
  REQUIRE(!contracts::network_violation(network));
  const auto op = [&](std::size_t o) -> const contracts::Operator& { return network.operators.at(o); };
  CHECK(op(1).function.function == UnaryFunction::LeakyRelu);
  CHECK(op(1).function.alpha == 0.1);
  CHECK(op(2).kind == OperatorKind::Sub);
  CHECK(contracts::activation_inputs(network, op(2)) == 1);
  CHECK(network.tensors[op(2).inputs[1]].shape == std::vector<std::int64_t>{4, 1, 1});
  CHECK(op(3).constant_first);
  CHECK(op(4).kind == OperatorKind::Maximum);
  CHECK(op(6).function.gamma == 1.5);
  CHECK(op(6).function.alpha == Approx(1.6732632));  // ONNX's default
  const maeri::test::TempFile written(maeri::importer::workload_yaml(network, "round trip"));
  const contracts::Network again = contracts::load_workload(written.path());
  REQUIRE(again.operators.size() == network.operators.size());
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const contracts::Operator &a = again.operators[o], &b = network.operators[o];
    CHECK(a.kind == b.kind);
    CHECK(a.inputs == b.inputs);
    CHECK(a.function.function == b.function.function);
    CHECK(a.function.alpha == b.function.alpha);
    CHECK(a.function.gamma == b.function.gamma);
    CHECK(a.constant_first == b.constant_first);
  }
  for (std::size_t t = 0; t < network.tensors.size(); ++t) {
    CHECK(again.tensors[t].shape == network.tensors[t].shape);
    CHECK(again.tensors[t].constant == network.tensors[t].constant);
  }
}
