// Lookup (a constant table at run-time indices: a token embedding) in the references, the quantizer and the workload
// loader, on a table of 4 × 2 worked out by hand (docs/quantization.md, "Lookup"); the unit's kernel by hand is
// tests/rtl/test_post_processing_layout.cpp's, the model's counts against the unit test_post_processing_unit.cpp's,
// ONNX Runtime's agreement on a PyTorch-style embedding the oracle's token-embedding.onnx.
#include <catch2/catch.hpp>

#include "contracts/network.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/table_lookup.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/quantization.hpp"

using namespace maeri;
using contracts::OperatorKind;
using Values = std::vector<std::int64_t>;

namespace {

// ids (1, 3) → lookup along axis 0 of table (rows, 2) → (1, 3, 2).
contracts::Network embedding(std::int64_t rows) {
  contracts::Network network;
  network.name = "embedding";
  network.tensors = {{"ids", {1, 3}, false}, {"table", {rows, 2}, true}, {"embedded", {1, 3, 2}, false}};
  contracts::Operator op;
  op.name = "embedding";
  op.kind = OperatorKind::Lookup;
  op.axis = 0;
  op.inputs = {0, 1};
  op.outputs = {2};
  network.operators = {op};
  return network;
}

const std::vector<double> kTable = {0.5, -1.0, 0.25, 0.75, -0.5, 0.125, 1.0, -0.25};

}  // namespace

TEST_CASE("lookup: table rows at run-time indices in the float and integer references, by hand", "[lookup]") {
  const contracts::Network network = embedding(4);
  REQUIRE_FALSE(contracts::network_violation(network));
  const auto weights = testbench::complete_weights(network, {{"table", kTable}}, 1);
  // Token ids 2, −1 (the last row, ONNX's rule), 0: rows 2, 3, 0.
  const std::vector<double> ids = {2, -1, 0};
  const testbench::RealTensors reals = testbench::float_reference(network, weights, {ids});
  CHECK(reals[2] == std::vector<double>{-0.5, 0.125, 1.0, -0.25, 0.5, -1.0});
  // 8-bit data, no fabric layer: L_a = 127. The ids keep scale 1; the output's scale is the whole table's max |t| /
  // 127 = 1/127, so T = round(127·t) = 64 (63.5, ties away from 0), −127, 32, 95, −64, 16, 127, −32.
  const contracts::QuantizedNetwork q = testbench::quantize_network(network, weights, {ids}, {8, 32, true});
  CHECK(q.tensors[0].scale == 1.0);
  CHECK(q.tensors[2].scale == 1.0 / 127);
  CHECK(q.operators[0].constant == Values{64, -127, 32, 95, -64, 16, 127, -32});
  const auto inputs = testbench::quantize_inputs(q, {ids});
  CHECK(inputs[0] == Values{2, -1, 0});
  CHECK(testbench::integer_reference(q, inputs)[2] == Values{-64, 16, 127, -32, 64, -127});
}

TEST_CASE("lookup: a bad index or a table too long for the data width is an error naming it", "[lookup]") {
  const contracts::Network network = embedding(4);
  const auto weights = testbench::complete_weights(network, {{"table", kTable}}, 1);
  const contracts::QuantizedNetwork q = testbench::quantize_network(network, weights, {{0, 1, 2}}, {8, 32, true});
  CHECK_THROWS_WITH(testbench::integer_reference(q, {{2, 4, 0}}),
                    Catch::Contains("lookup 'embedding': index 4 (element 1 of its indices 'ids') is outside [-4, 4)"));
  CHECK_THROWS_WITH(testbench::float_reference(network, weights, {{2, -5, 0}}),
                    Catch::Contains("index -5 (element 1 of its indices 'ids') is outside [-4, 4)"));
  CHECK_THROWS_WITH(testbench::float_reference(network, weights, {{0.5, 1, 0}}),
                    Catch::Contains("index 0.5 (element 0 of its indices 'ids') is not a whole number"));
  // 200 rows need indices up to 199; 8-bit data holds 127.
  const contracts::Network long_table = embedding(200);
  const auto long_weights = testbench::complete_weights(long_table, {}, 1);
  CHECK_THROWS_WITH(testbench::quantize_network(long_table, long_weights, {{0, 1, 199}}, {8, 32, true}),
                    Catch::Contains("its table has 200 entries along axis 0; 8-bit data holds indices up to 127 only"));
  // Seeded stimulus draws the ids inside the table: the index's extent is known from the network.
  CHECK(contracts::index_extents(network) == Values{4, 0, 0});
}

TEST_CASE("lookup: indices computed by integer arithmetic of inputs stay whole numbers at scale 1", "[lookup]") {
  // The vespa exports' index: input_ids · attention_mask + token_type_ids, then the lookup. Every tensor on the way
  // is an index (extent 4 for the sum the lookup reads, 1 for what reaches it through arithmetic) and gets scale 1,
  // so the integer add and mul are exact: ids 1, 2, 3 · mask 1, 0, 1 + types 1, 1, 0 = 2, 1, 3 → rows 2, 1, 3.
  contracts::Network network = embedding(4);
  network.tensors.push_back({"mask", {1, 3}, false});
  network.tensors.push_back({"types", {1, 3}, false});
  network.tensors.push_back({"masked", {1, 3}, false});
  network.tensors.push_back({"sum", {1, 3}, false});
  contracts::Operator mul, add;
  mul.name = "mask_ids", mul.kind = OperatorKind::Mul, mul.inputs = {0, 3}, mul.outputs = {5};
  add.name = "add_types", add.kind = OperatorKind::Add, add.inputs = {5, 4}, add.outputs = {6};
  network.operators[0].inputs[0] = 6;
  network.operators.insert(network.operators.begin(), {mul, add});
  REQUIRE_FALSE(contracts::network_violation(network));
  CHECK(contracts::index_extents(network) == Values{1, 0, 0, 1, 1, 1, 4});
  const auto weights = testbench::complete_weights(network, {{"table", kTable}}, 1);
  const std::vector<std::vector<double>> inputs = {{1, 2, 3}, {1, 0, 1}, {1, 1, 0}};
  const contracts::QuantizedNetwork q = testbench::quantize_network(network, weights, inputs, {8, 32, true});
  for (std::size_t t : {0, 3, 4, 5, 6}) CHECK(q.tensors[t].scale == 1.0);
  CHECK(testbench::integer_reference(q, testbench::quantize_inputs(q, inputs))[2] ==
        Values{-64, 16, 32, 95, 127, -32});
}

TEST_CASE("lookup: indices with a constant offset (position ids) stay whole numbers at scale 1", "[lookup]") {
  // positions = ids + 1 (fairseq's and RoBERTa's offset past the padding row): ids 0, 2, 1 → rows 1, 3, 2, whose
  // integers (first test case) are 32, 95; 127, −32; −64, 16. The offset is quantized at scale 1 too, so the add is
  // exact; an offset that is not a whole number is refused (the calibration's float reference names the lookup).
  contracts::Network network = embedding(4);
  network.tensors.push_back({"offset", {1}, true});
  network.tensors.push_back({"positions", {1, 3}, false});
  contracts::Operator add;
  add.name = "offset_ids", add.kind = OperatorKind::Add, add.inputs = {0, 3}, add.outputs = {4};
  network.operators[0].inputs[0] = 4;
  network.operators.insert(network.operators.begin(), add);
  REQUIRE_FALSE(contracts::network_violation(network));
  const std::vector<std::vector<double>> ids = {{0, 2, 1}};
  const auto weights = testbench::complete_weights(network, {{"table", kTable}, {"offset", {1.0}}}, 1);
  const contracts::QuantizedNetwork q = testbench::quantize_network(network, weights, ids, {8, 32, true});
  CHECK(q.tensors[0].scale == 1.0);
  CHECK(q.tensors[4].scale == 1.0);
  CHECK(q.operators[0].constant == Values{1});
  CHECK(testbench::integer_reference(q, testbench::quantize_inputs(q, ids))[2] == Values{32, 95, 127, -32, -64, 16});
  const auto half = testbench::complete_weights(network, {{"table", kTable}, {"offset", {0.5}}}, 1);
  CHECK_THROWS_WITH(testbench::quantize_network(network, half, ids, {8, 32, true}),
                    Catch::Contains("lookup 'embedding': index 0.5 (element 0 of its indices 'positions') is not a whole number"));
}

TEST_CASE("lookup: the workload YAML form loads with the table's shape and axis", "[lookup][spec]") {
  const contracts::Network network = contracts::load_workload_text(
      "kind: workload\nname: embed\ninputs:\n  - {name: ids, shape: [1, 3]}\noperators:\n"
      "  - {name: embedding, type: lookup, input: ids, table: table, table_shape: [4, 2], axis: -2}\n",
      "embed.yaml");
  REQUIRE(network.operators.size() == 1);
  CHECK(network.operators[0].kind == OperatorKind::Lookup);
  CHECK(network.operators[0].axis == 0);
  CHECK(network.tensors[network.operators[0].inputs[1]].constant);
  CHECK(network.tensors[network.operators[0].outputs[0]].shape == std::vector<std::int64_t>{1, 3, 2});
  // Along axis 1 of the same table: (4, 1, 3).
  const contracts::Network columns = contracts::load_workload_text(
      "kind: workload\nname: embed\ninputs:\n  - {name: ids, shape: [1, 3]}\noperators:\n"
      "  - {name: embedding, type: lookup, input: ids, table: table, table_shape: [4, 2], axis: 1}\n",
      "embed.yaml");
  CHECK(columns.tensors[columns.operators[0].outputs[0]].shape == std::vector<std::int64_t>{4, 1, 3});
}
