// The Network contract: flat workload files load as chains whose edges are exactly the consecutive layers whose
// shapes agree (counted by hand from the files), ONNX models keep the edges their tensor names give, and the
// graph rule (network_violation) rejects malformed graphs naming the problem.
#include <catch2/catch.hpp>

#include "contracts/network.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/onnx_import.hpp"
#include "onnx_models.hpp"
#include "temp_file.hpp"

using namespace maeri;
using maeri::test::OnnxModelBuilder;

namespace {

std::string config(const std::string& name) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + name; }

// Names of the fabric operators whose activation input another fabric operator produced.
std::vector<std::string> linked_operators(const contracts::Network& network) {
  std::vector<std::string> linked;
  for (const contracts::Operator& op : network.operators)
    if (network.producer(op.inputs[0])) linked.push_back(op.name);
  return linked;
}

}  // namespace

TEST_CASE("a flat workload is a chain: VGG16 links the layers between its pooling layers") {
  const contracts::Network vgg16 = contracts::load_workload(config("workloads/vgg16.yaml"));
  REQUIRE(!contracts::network_violation(vgg16));
  REQUIRE(vgg16.operators.size() == 16);
  // By hand from the file: pooling halves X and Y after conv1_2, conv2_2, conv3_3, conv4_3 and conv5_3 (the flat file
  // leaves it out), and fc6 reads the pooled, flattened 7·7·512 = 25088 values, so those layers read inputs of their
  // own; every other layer reads its predecessor's output (same N, channels = K, X = X', Y = Y').
  CHECK(linked_operators(vgg16) == std::vector<std::string>{"conv1_2", "conv2_2", "conv3_2", "conv3_3", "conv4_2",
                                                            "conv4_3", "conv5_2", "conv5_3", "fc7", "fc8"});
  CHECK(vgg16.network_inputs().size() == 6);
  REQUIRE(vgg16.network_outputs().size() == 6);  // conv1_2, conv2_2, conv3_3, conv4_3, conv5_3 and fc8 outputs
  CHECK(vgg16.tensors[vgg16.network_outputs().back()].name == "fc8.output");
  CHECK(vgg16.tensors[vgg16.network_outputs().back()].shape == std::vector<std::int64_t>{1, 1000, 1, 1});
  // conv1_2's output feeds only conv2_1's missing pooling: no consumer in the graph; conv1_1's feeds conv1_2.
  const std::size_t conv1_1_output = vgg16.operators[0].outputs[0];
  CHECK(vgg16.consumers(conv1_1_output) == std::vector<std::size_t>{1});
  CHECK(vgg16.total_macs() == 15470264320);  // summed by hand over the file: K·C·R·S·X'·Y' per conv, K·C per FC
}

TEST_CASE("every shipped workload loads as a well-formed graph with one fabric operator per layer") {
  for (const char* name : {"tiny", "mrna-table2", "alexnet", "vgg16", "resnet50", "googlenet", "mobilenetv2",
                           "bert-base-encoder", "table2-scaled"}) {
    INFO(name);
    const contracts::Network network = contracts::load_workload(config(std::string("workloads/") + name + ".yaml"));
    CHECK(!contracts::network_violation(network));
    CHECK(network.operators.size() == network.layers.size());
    for (std::size_t o = 0; o < network.operators.size(); ++o) CHECK(network.operators[o].layer == o);
  }
}

TEST_CASE("ONNX models keep the edges of their tensor names, and only those") {
  maeri::test::TempDir dir;
  const std::string path = dir.path() + "/graph.onnx";
  OnnxModelBuilder model("graph");
  model.input("x", {1, 3, 8, 8});
  model.weight("w1", {4, 3, 3, 3});
  model.weight("w2", {4, 4, 1, 1});
  model.weight("w3", {6, 4, 1, 1});
  model.weight("w4", {5, 4, 1, 1});
  model.node("Conv", "a", {"x", "w1"}, "ya");    // 8 - 3 + 1 = 6: (1, 4, 6, 6)
  model.node("Conv", "b", {"ya", "w2"}, "yb");   // reads a's output directly: an edge
  model.node("Relu", "r", {"yb"}, "rb");         // run beside the fabric: an operator between b and c
  model.node("Conv", "c", {"rb", "w3"}, "yc");
  model.node("Conv", "d", {"ya", "w4"}, "yd");   // a second consumer of a's output (a branch)
  model.output("yc");
  model.output("yd");
  model.write(path);
  const contracts::Network network = importer::import_onnx(path).network;
  REQUIRE(!contracts::network_violation(network));
  REQUIRE(network.operators.size() == 5);
  CHECK(linked_operators(network) == std::vector<std::string>{"b", "r", "c", "d"});
  const std::size_t ya = network.operators[0].outputs[0];
  CHECK(network.tensors[ya].name == "ya");
  CHECK(network.consumers(ya) == std::vector<std::size_t>{1, 4});
  CHECK(network.operators[2].kind == contracts::OperatorKind::Relu);
  CHECK(network.tensors[network.operators[3].inputs[0]].name == "rb");
  CHECK(network.tensors[network.operators[3].inputs[1]].name == "w3");
  CHECK(network.tensors[network.operators[3].inputs[1]].constant);
  std::vector<std::string> inputs;
  for (std::size_t t : network.network_inputs()) inputs.push_back(network.tensors[t].name);
  CHECK(inputs == std::vector<std::string>{"x"});
}

TEST_CASE("network_violation names what is wrong with a malformed graph") {
  const contracts::Layer conv = [] {
    contracts::Layer layer;
    layer.name = "conv";
    layer.K = 4, layer.C = 2, layer.R = layer.S = 3, layer.X = layer.Y = 6;
    return layer;
  }();
  contracts::Layer second = conv;
  second.name = "second", second.C = 4, second.X = second.Y = 4;  // reads conv's (1, 4, 4, 4) output
  const contracts::Network good = contracts::chain_network("n", {conv, second});
  REQUIRE(!contracts::network_violation(good));
  REQUIRE(linked_operators(good) == std::vector<std::string>{"second"});

  contracts::Network reversed = good;  // second runs before the operator that produces its input
  std::swap(reversed.operators[0], reversed.operators[1]);
  CHECK(contracts::network_violation(reversed).value() ==
        "operator 'second' reads 'conv.output' before the operator that produces it");

  contracts::Network wrong_shape = good;
  wrong_shape.tensors[wrong_shape.operators[1].inputs[0]].shape = {1, 4, 5, 5};
  CHECK(contracts::network_violation(wrong_shape).value() ==
        "operator 'conv': its output 'conv.output' has shape (1,4,5,5), layer 'conv' needs (1,4,4,4)");

  contracts::Network twice = good;
  twice.operators[1].layer = 0;
  twice.operators[1].name = "again";
  CHECK(contracts::network_violation(twice).value().find("its input 'conv.output' has shape (1,4,4,4), layer 'conv'"
                                                         " needs (1,2,6,6)") != std::string::npos);

  contracts::Network duplicate = good;
  duplicate.tensors[1].name = "conv.input";
  CHECK(contracts::network_violation(duplicate).value() == "tensor 'conv.input' appears twice");

  contracts::Network dangling = good;
  dangling.operators[0].inputs[0] = 99;
  CHECK(contracts::network_violation(dangling).value() == "operator 'conv' reads tensor #99, which does not exist");

  contracts::Network unrun = good;
  unrun.layers.push_back(conv);
  unrun.layers.back().name = "orphan";
  CHECK(contracts::network_violation(unrun).value() == "layer 'orphan' is run by 0 operators (expected 1)");
}
