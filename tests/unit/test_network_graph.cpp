// The Network contract: flat workload files load as chains whose edges are exactly the consecutive layers whose
// shapes agree (counted by hand from the files), graph workload files give the graphs they state (the shipped
// networks' tensor shapes against the papers' figures), ONNX models keep the edges their tensor names give, and the
// graph rules (the loader's and network_violation) reject malformed graphs naming the problem.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "contracts/network.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/onnx_import.hpp"
#include "importer/workload_yaml.hpp"
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

// Loads `text` as a workload file and checks the error it gives starts with "<file>:" + `expected` (position, field
// and rule); a file that loads gives the message "".
void check_load_error(const std::string& text, const std::string& expected) {
  const maeri::test::TempFile file(text);
  std::string message;
  try {
    contracts::load_workload(file.path());
  } catch (const maeri::util::InputError& error) {
    message = error.what();
  }
  INFO(text << "\ngave: " << message);
  CHECK(message.rfind(file.path() + ":" + expected, 0) == 0);
}

}  // namespace

// VGG16's layers as a flat file (what configs/workloads/vgg16.yaml listed before it became a graph).
const char* const kFlatVgg16 = R"(kind: workload
name: vgg16
layers:
  - {name: conv1_1, type: conv, K: 64, C: 3, R: 3, S: 3, X: 224, Y: 224, stride: 1, padding: 1}
  - {name: conv1_2, type: conv, K: 64, C: 64, R: 3, S: 3, X: 224, Y: 224, stride: 1, padding: 1}
  - {name: conv2_1, type: conv, K: 128, C: 64, R: 3, S: 3, X: 112, Y: 112, stride: 1, padding: 1}
  - {name: conv2_2, type: conv, K: 128, C: 128, R: 3, S: 3, X: 112, Y: 112, stride: 1, padding: 1}
  - {name: conv3_1, type: conv, K: 256, C: 128, R: 3, S: 3, X: 56, Y: 56, stride: 1, padding: 1}
  - {name: conv3_2, type: conv, K: 256, C: 256, R: 3, S: 3, X: 56, Y: 56, stride: 1, padding: 1}
  - {name: conv3_3, type: conv, K: 256, C: 256, R: 3, S: 3, X: 56, Y: 56, stride: 1, padding: 1}
  - {name: conv4_1, type: conv, K: 512, C: 256, R: 3, S: 3, X: 28, Y: 28, stride: 1, padding: 1}
  - {name: conv4_2, type: conv, K: 512, C: 512, R: 3, S: 3, X: 28, Y: 28, stride: 1, padding: 1}
  - {name: conv4_3, type: conv, K: 512, C: 512, R: 3, S: 3, X: 28, Y: 28, stride: 1, padding: 1}
  - {name: conv5_1, type: conv, K: 512, C: 512, R: 3, S: 3, X: 14, Y: 14, stride: 1, padding: 1}
  - {name: conv5_2, type: conv, K: 512, C: 512, R: 3, S: 3, X: 14, Y: 14, stride: 1, padding: 1}
  - {name: conv5_3, type: conv, K: 512, C: 512, R: 3, S: 3, X: 14, Y: 14, stride: 1, padding: 1}
  - {name: fc6, type: fc, K: 4096, C: 25088}
  - {name: fc7, type: fc, K: 4096, C: 4096}
  - {name: fc8, type: fc, K: 1000, C: 4096}
)";

TEST_CASE("a flat workload is a chain: VGG16 links the layers between its pooling layers") {
  const maeri::test::TempFile flat(kFlatVgg16);
  const contracts::Network vgg16 = contracts::load_workload(flat.path());
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

TEST_CASE("every shipped workload loads as a well-formed graph whose fabric operators run the layers in order") {
  for (const char* name : {"tiny", "mrna-table2", "alexnet", "vgg16", "resnet50", "googlenet", "mobilenetv2",
                           "bert-base-encoder-128", "bert-base-encoder-512", "gpt2-small-block", "gpt2-small-decode",
                           "vit-b16-block", "bert-encoder-h64", "gpt2-block-h64", "gpt2-decode-h64", "table2-scaled"}) {
    INFO(name);
    const contracts::Network network = contracts::load_workload(config(std::string("workloads/") + name + ".yaml"));
    CHECK(!contracts::network_violation(network));
    std::size_t next_layer = 0;
    for (const contracts::Operator& op : network.operators)
      if (op.kind == contracts::OperatorKind::FabricLayer) CHECK(op.layer == next_layer++);
    CHECK(next_layer == network.layers.size());
  }
}

namespace {

const contracts::Tensor& tensor_named(const contracts::Network& network, const std::string& name) {
  for (const contracts::Tensor& tensor : network.tensors)
    if (tensor.name == name) return tensor;
  FAIL("no tensor " << name);
  throw;
}

std::size_t count_kind(const contracts::Network& network, contracts::OperatorKind kind) {
  return std::size_t(std::count_if(network.operators.begin(), network.operators.end(),
                                   [&](const contracts::Operator& op) { return op.kind == kind; }));
}

using Shape = std::vector<std::int64_t>;

std::vector<std::string> tensor_names(const contracts::Network& network, const std::vector<std::size_t>& tensors) {
  std::vector<std::string> names;
  for (std::size_t t : tensors) names.push_back(network.tensors[t].name);
  return names;
}

}  // namespace

TEST_CASE("the shipped graphs: one input image, one softmax output, and the papers' tensor shapes") {
  using contracts::OperatorKind;
  const auto load = [](const char* name) { return contracts::load_workload(config(std::string("workloads/") + name + ".yaml")); };
  for (const char* name : {"tiny", "alexnet", "vgg16", "resnet50", "googlenet", "mobilenetv2"}) {
    INFO(name);
    const contracts::Network network = load(name);
    CHECK(tensor_names(network, network.network_inputs()) == std::vector<std::string>{"image"});
    CHECK(tensor_names(network, network.network_outputs()) == std::vector<std::string>{"prob"});
    CHECK(network.operators.back().kind == OperatorKind::Softmax);
  }
  // ResNet-50 (He et al., Table 1): conv1 + max pool give 56x56, conv5_x ends at 7x7 with 2048 channels; 16
  // residual adds (3 + 4 + 6 + 3 blocks), 4 of them on a projection.
  const contracts::Network resnet = load("resnet50");
  CHECK(tensor_named(resnet, "pool1").shape == Shape{1, 64, 56, 56});
  CHECK(tensor_named(resnet, "res2a").shape == Shape{1, 256, 56, 56});
  CHECK(tensor_named(resnet, "res5c_relu").shape == Shape{1, 2048, 7, 7});
  CHECK(tensor_named(resnet, "pool5").shape == Shape{1, 2048, 1, 1});
  CHECK(tensor_named(resnet, "prob").shape == Shape{1, 1000, 1, 1});
  CHECK(count_kind(resnet, OperatorKind::Add) == 16);
  CHECK(count_kind(resnet, OperatorKind::Relu) == 49);  // 2 per block, 1 after each add, 1 after conv1
  // GoogLeNet (Szegedy et al., Table 1, the "output size" and the branch widths): 3a 256, 3b 480, 4a 512, 4e 832,
  // 5b 1024 channels.
  const contracts::Network googlenet = load("googlenet");
  CHECK(tensor_named(googlenet, "pool2_3x3_s2").shape == Shape{1, 192, 28, 28});
  CHECK(tensor_named(googlenet, "inception_3a_output").shape == Shape{1, 256, 28, 28});
  CHECK(tensor_named(googlenet, "inception_3b_output").shape == Shape{1, 480, 28, 28});
  CHECK(tensor_named(googlenet, "inception_4a_output").shape == Shape{1, 512, 14, 14});
  CHECK(tensor_named(googlenet, "inception_4e_output").shape == Shape{1, 832, 14, 14});
  CHECK(tensor_named(googlenet, "inception_5b_output").shape == Shape{1, 1024, 7, 7});
  CHECK(tensor_named(googlenet, "pool5_7x7_s1").shape == Shape{1, 1024, 1, 1});
  CHECK(count_kind(googlenet, OperatorKind::Concat) == 9);
  // MobileNetV2 (Sandler et al., Table 2): a residual where a sequence repeats a block (n − 1 per sequence:
  // 0 + 1 + 2 + 3 + 2 + 2 + 0 = 10); the last block gives 7x7x320, conv_last 7x7x1280.
  const contracts::Network mobilenet = load("mobilenetv2");
  CHECK(count_kind(mobilenet, OperatorKind::Add) == 10);
  CHECK(count_kind(mobilenet, OperatorKind::Clip) == 35);  // conv1, 16 expansions, 17 depthwise, conv_last
  CHECK(tensor_named(mobilenet, "block16_project").shape == Shape{1, 320, 7, 7});
  CHECK(tensor_named(mobilenet, "pool").shape == Shape{1, 1280, 1, 1});
  // VGG16 and AlexNet: the flattened pool5 is fc6's input (7·7·512 = 25088, 6·6·256 = 9216).
  CHECK(tensor_named(load("vgg16"), "flatten").shape == Shape{1, 25088, 1, 1});
  CHECK(tensor_named(load("alexnet"), "pool5").shape == Shape{1, 256, 6, 6});
  // tiny: the max pool of conv1's activations is the shortcut of conv2's residual add.
  const contracts::Network tiny = load("tiny");
  CHECK(tensor_named(tiny, "pool1").shape == Shape{1, 8, 5, 5});
  CHECK(tensor_named(tiny, "flatten").shape == Shape{1, 400, 1, 1});
}

TEST_CASE("graph operators may be listed in any order: they load in a topological order, layers with them") {
  const maeri::test::TempFile file(R"(kind: workload
name: shuffled
inputs: [{name: x, shape: [1, 2, 4, 4]}]
operators:
  - {name: sum, type: add, inputs: [b, a_relu]}
  - {name: b, type: conv, input: a_relu, K: 2, C: 2, R: 1, S: 1, X: 4, Y: 4, stride: 1, padding: 0}
  - {name: a_relu, type: relu, input: a}
  - {name: a, type: conv, input: x, K: 2, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1, bias: a.bias}
)");
  const contracts::Network network = contracts::load_workload(file.path());
  REQUIRE(!contracts::network_violation(network));
  std::vector<std::string> order;
  for (const contracts::Operator& op : network.operators) order.push_back(op.name);
  CHECK(order == std::vector<std::string>{"a", "a_relu", "b", "sum"});
  REQUIRE(network.layers.size() == 2);
  CHECK(network.layers[0].name == "a");
  CHECK(network.layers[1].name == "b");
  CHECK(tensor_names(network, network.operators[0].inputs) == std::vector<std::string>{"x", "a.weights", "a.bias"});
  CHECK(tensor_named(network, "a.bias").shape == Shape{2});
  CHECK(tensor_named(network, "a.bias").constant);
}

TEST_CASE("a graph written as workload YAML loads back to the same graph") {
  for (const char* name : {"tiny", "googlenet", "mobilenetv2"}) {
    INFO(name);
    const contracts::Network network = contracts::load_workload(config(std::string("workloads/") + name + ".yaml"));
    const maeri::test::TempFile file(importer::workload_yaml(network, "round trip"));
    const contracts::Network again = contracts::load_workload(file.path());
    REQUIRE(again.operators.size() == network.operators.size());
    REQUIRE(again.tensors.size() == network.tensors.size());
    for (std::size_t t = 0; t < network.tensors.size(); ++t) {
      CHECK(again.tensors[t].name == network.tensors[t].name);
      CHECK(again.tensors[t].shape == network.tensors[t].shape);
      CHECK(again.tensors[t].constant == network.tensors[t].constant);
    }
    for (std::size_t o = 0; o < network.operators.size(); ++o) {
      const contracts::Operator &a = again.operators[o], &b = network.operators[o];
      CHECK(a.name == b.name);
      CHECK(a.kind == b.kind);
      CHECK(a.inputs == b.inputs);
      CHECK(a.outputs == b.outputs);
      CHECK(a.clip_min == b.clip_min);
      CHECK(a.clip_max == b.clip_max);
      CHECK(a.pool.size_x == b.pool.size_x);
      CHECK(a.pool.stride_y == b.pool.stride_y);
      CHECK(a.pool.padding_x == b.pool.padding_x);
    }
    CHECK(again.total_macs() == network.total_macs());
  }
}

TEST_CASE("a pad loads with ONNX's order of pads, gives the bordered shape and is written back as it loaded") {
  const maeri::test::TempFile file(R"(kind: workload
name: bordered
inputs: [{name: x, shape: [1, 2, 4, 5]}]
operators:
  - {name: p, type: pad, input: x, pads: [1, 0, 2, 3]}
  - {name: c, type: conv, input: p, K: 2, C: 2, R: 3, S: 3, X: 7, Y: 8, stride: 1, padding: 0}
)");
  const contracts::Network network = contracts::load_workload(file.path());
  REQUIRE(network.operators.size() == 2);
  const contracts::Operator& pad = network.operators[0];
  CHECK(pad.kind == contracts::OperatorKind::Pad);
  CHECK(pad.pad.x_begin == 1);  // [x_begin, y_begin, x_end, y_end]
  CHECK(pad.pad.y_begin == 0);
  CHECK(pad.pad.x_end == 2);
  CHECK(pad.pad.y_end == 3);
  CHECK(tensor_named(network, "p").shape == Shape{1, 2, 4 + 1 + 2, 5 + 0 + 3});
  const maeri::test::TempFile written(importer::workload_yaml(network, "round trip"));
  const contracts::Network again = contracts::load_workload(written.path());
  REQUIRE(again.operators.size() == 2);
  CHECK(again.operators[0].kind == contracts::OperatorKind::Pad);
  CHECK(again.operators[0].pad.x_begin == 1);
  CHECK(again.operators[0].pad.y_begin == 0);
  CHECK(again.operators[0].pad.x_end == 2);
  CHECK(again.operators[0].pad.y_end == 3);
  CHECK(tensor_named(again, "p").shape == tensor_named(network, "p").shape);
}

TEST_CASE("a graph conv may leave X and Y to its input, which fixes them") {
  // x (1,2,9,7) → max pool 2/2 → (1,2,4,3) by ⌊(9−2)/2⌋+1 = 4, ⌊(7−2)/2⌋+1 = 3; the conv reads that without stating
  // X and Y, and its 3×3 window with padding 1 keeps 4×3 (X_out declared and checked once the sizes are known).
  const maeri::test::TempFile file(R"(kind: workload
name: inferred
inputs: [{name: x, shape: [1, 2, 9, 7]}]
operators:
  - {name: p, type: max_pool, input: x, size: 2, stride: 2}
  - {name: c, type: conv, input: p, K: 3, C: 2, R: 3, S: 3, stride: 1, padding: 1, X_out: 4, Y_out: 3}
  - {name: d, type: conv, input: c, K: 3, C: 3, R: 1, S: 1, X: 4, stride: 1, padding: 0}
)");
  const contracts::Network network = contracts::load_workload(file.path());
  REQUIRE(network.layers.size() == 2);
  CHECK(network.layers[0].X == 4);
  CHECK(network.layers[0].Y == 3);
  CHECK(network.layers[0].macs() == 3 * 2 * 9 * 4 * 3);
  CHECK(network.layers[1].X == 4);  // stated
  CHECK(network.layers[1].Y == 3);  // from c's output (1,3,4,3)
  CHECK(tensor_named(network, "d").shape == Shape{1, 3, 4, 3});
  // What the importer writes back states every size, and loads to the same layers.
  const maeri::test::TempFile written(importer::workload_yaml(network, "round trip"));
  const contracts::Network again = contracts::load_workload(written.path());
  CHECK(again.layers[0].X == 4);
  CHECK(again.layers[1].Y == 3);
}

TEST_CASE("bad graph workloads are rejected naming the file, position, field and rule") {
  // Each case replaces the operators of a small valid graph (x → conv c → relu r → …).
  const std::string head = "kind: workload\nname: g\ninputs: [{name: x, shape: [1, 2, 4, 4]}]\noperators:\n"
                           "  - {name: c, type: conv, input: x, K: 4, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  - {name: r, type: relu, input: s}\n  - {name: s, type: add, inputs: [r, c]}\n",
       "7:12: field 'operators[2].name': the operators form a cycle through tensor 's' (it is needed, through other "
       "operators, to compute itself)"},
      {"  - {name: r, type: relu, input: r}\n",
       "6:12: field 'operators[1].name': the operators form a cycle through tensor 'r'"},
      {"  - {name: r, type: relu, input: y}\n",
       "6:34: field 'operators[1].input': tensor 'y' is produced by no operator and not declared in 'inputs'"},
      {"  - {name: r, type: relu, input: c, output: x}\n",
       "6:45: field 'operators[1].output': tensor 'x' is declared in 'inputs'; each tensor has one producer"},
      {"  - {name: r, type: relu, input: c}\n  - {name: q, type: relu, input: c, output: r}\n",
       "7:45: field 'operators[2].output': tensor 'r' is produced by operator 'r'; each tensor has one producer"},
      {"  - {name: r, type: add, inputs: [c, x]}\n",
       "6:34: field 'operators[1].inputs': add 'r' reads 'c' of shape (1,4,4,4) and 'x' of shape (1,2,4,4): the shapes "
       "do not broadcast (each axis, aligned from the last, equal or 1 on one side)"},
      {"  - {name: r, type: concat, inputs: [c, x], axis: 2}\n",
       "6:37: field 'operators[1].inputs': concat 'r' joins 'c' of shape (1,4,4,4) and 'x' of shape (1,2,4,4) along "
       "axis 2: the shapes must agree except along the axis"},
      {"  - {name: f, type: reshape, input: c, shape: [1, 60]}\n",
       "6:37: field 'operators[1].input': reshape 'f' gives 'c' of shape (1,4,4,4) (64 elements) the shape (1,60) (60 "
       "elements): the counts must be equal"},
      {"  - {name: f, type: reshape, input: c, shape: [1, 64]}\n  - {name: p, type: max_pool, input: f, size: 2, "
       "stride: 2}\n",
       "7:38: field 'operators[2].input': max pool 'p' needs a rank-4 input (N, C, X, Y); its input 'f' has shape "
       "(1,64)"},
      {"  - {name: f, type: reshape, input: c, shape: [4, 4, 4]}\n  - {name: s, type: softmax, input: f, axis: 3}\n",
       "7:37: field 'operators[2].input': softmax 's' runs along axis 3; its input 'f' of shape (4,4,4) has axes 0..2"},
      {"  - {name: g, type: global_average_pool, input: c}\n  - {name: f, type: flatten, input: g}\n"
       "  - {name: p, type: global_average_pool, input: q}\n  - {name: q, type: reshape, input: f, shape: [4]}\n",
       "8:49: field 'operators[3].input': global average pool 'p' needs a rank-4 input (N, C, X, Y); its input 'q' has "
       "shape (4)"},
      {"  - {name: p, type: average_pool, input: c, size: 2, stride: 1, padding: 2}\n",
       "6:42: field 'operators[1].input': average pool 'p' on 'c' of shape (1,4,4,4): padding 2x2 not smaller than the "
       "window 2x2 (a window would hold padding only)"},
      {"  - {name: p, type: max_pool, input: c, size: 7, stride: 1}\n",
       "6:38: field 'operators[1].input': max pool 'p' on 'c' of shape (1,4,4,4): a window 7x7 larger than the padded "
       "input 4x4"},
      {"  - {name: d, type: conv, input: c, K: 4, C: 4, R: 1, S: 1, stride: 1, padding: 0, X_out: 5}\n",
       "6:91: field 'operators[1].X_out': declared 5 but (X + 2*padding_x - (R-1)*dilation_x - 1)/stride_x + 1 = 4"},
      {"  - {name: f, type: reshape, input: c, shape: [1, 64]}\n  - {name: d, type: conv, input: f, K: 4, C: 64, R: 1, "
       "S: 1, stride: 1, padding: 0}\n",
       "7:34: field 'operators[2].input': conv 'd' leaves out X and Y, which its input gives only when it has shape "
       "(N, C, X, Y); 'f' has shape (1,64)"},
      {"  - {name: k, type: clip, input: c, min: 6, max: 0}\n",
       "6:34: field 'operators[1].input': clip 'k' clips to [6, 0]: the minimum must not exceed the maximum"},
      {"  - {name: d, type: conv, input: c, K: 4, C: 2, R: 1, S: 1, X: 4, Y: 4, stride: 1, padding: 0}\n",
       "6:34: field 'operators[1].input': operator 'd': its input 'c' has shape (1,4,4,4), layer 'd' needs (1,2,4,4)"},
      {"  - {name: d, type: conv, input: c, weights: c.weights, K: 4, C: 4, R: 1, S: 1, X: 4, Y: 4, stride: 1, "
       "padding: 0}\n",
       "6:34: field 'operators[1].input': operator 'd': its weights 'c.weights' has shape (4,2,3,3), layer 'd' needs "
       "(4,4,1,1)"},
      {"  - {name: d, type: conv, input: c.weights, K: 4, C: 2, R: 1, S: 1, X: 4, Y: 4, stride: 1, padding: 0}\n",
       "6:34: field 'operators[1].input': tensor 'c.weights' is the weights of 'c', not an activation"},
      {"  - {name: d, type: conv, input: c, weights: x, K: 4, C: 4, R: 1, S: 1, X: 4, Y: 4, stride: 1, padding: 0}\n",
       "6:46: field 'operators[1].weights': tensor 'x' is declared in 'inputs', not a constant"},
      {"  - {name: r, type: add, inputs: [c]}\n",
       "6:34: field 'operators[1].inputs': add reads 2 tensors (or 1 and a 'constant'), found a list of 1"},
      {"  - {name: r, type: relu, inputs: [c]}\n",
       "6:5: field 'operators[1].input': missing required field (expected a string)"},
      {"  - {name: c, type: relu, input: x, output: y}\n",
       "6:12: field 'operators[1].name': duplicate operator name 'c' (names must be unique)"},
      {"  - {name: p, type: pad, input: c, pads: [1, 1, 1]}\n",
       "6:42: field 'operators[1].pads': expected 4 values [x_begin, y_begin, x_end, y_end], found 3"},
      {"  - {name: p, type: pad, input: c, pads: [1, -1, 0, 0]}\n",
       "6:42: field 'operators[1].pads': expected a list of 1 to 4 integers in [0, 16777216], found -1"},
      {"  - {name: p, type: pad, input: c}\n",
       "6:5: field 'operators[1].pads': missing required field (expected a list of 1 to 4 integers in [0, 16777216])"},
      {"  - {name: f, type: reshape, input: c, shape: [1, 64]}\n  - {name: p, type: pad, input: f, pads: [1, 1, 1, 1]}\n",
       "7:33: field 'operators[2].input': pad 'p' needs a rank-4 input (N, C, X, Y); its input 'f' has shape (1,64)"},
  };
  for (const auto& [operators, expected] : cases) check_load_error(head + operators, expected);
  const std::pair<std::string, std::string> whole_file_cases[] = {
      {"kind: workload\nname: g\ninputs: [{name: x, shape: [1, 2]}, {name: unused, shape: [3]}]\n"
       "operators:\n  - {name: s, type: softmax, input: x}\n",
       "3:43: field 'inputs[1].name': input 'unused' is read by no operator"},
      {"kind: workload\nname: g\nlayers:\n  - {name: f, type: fc, K: 1, C: 1}\ninputs: [{name: x, shape: [1]}]\n"
       "operators:\n  - {name: s, type: relu, input: x}\n",
       "4:3: field 'layers': a workload lists either 'layers' (a chain) or 'inputs' and 'operators' (a graph), not both"},
      {"kind: workload\nname: g\ninputs: [{name: x, shape: [1, 0]}]\noperators:\n  - {name: s, type: relu, input: x}\n",
       "3:27: field 'inputs[0].shape': expected a list of 1 to 8 integers in [1, 16777216], found 0"},
      // 2^24 in every extent is 2^96 elements: refused where the pad writes it, before the flatten after it would
      // multiply the extents out in int64.
      {"kind: workload\nname: g\ninputs: [{name: x, shape: [16777216, 16777216, 1, 1]}]\noperators:\n"
       "  - {name: p, type: pad, input: x, pads: [8388607, 8388607, 8388608, 8388608]}\n"
       "  - {name: f, type: flatten, input: p}\n",
       "5:33: field 'operators[0].input': pad 'p' writes shape (16777216,16777216,16777216,16777216): more than 10^18 "
       "elements"},
  };
  for (const auto& [text, expected] : whole_file_cases) check_load_error(text, expected);
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

TEST_CASE("channel affine: loads from YAML with constant scale and shift of (C), writes back, and bad ones fail") {
  const std::string head = "kind: workload\nname: g\ninputs: [{name: x, shape: [1, 2, 4, 4]}]\noperators:\n"
                           "  - {name: c, type: conv, input: x, K: 4, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1}\n";
  const maeri::test::TempFile good(head + "  - {name: b, type: channel_affine, input: c, scale: b.scale, shift: b.shift}\n"
                                          "  - {name: f, type: flatten, input: b}\n"
                                          "  - {name: d, type: channel_affine, input: f, scale: d.s, shift: d.t}\n");
  const contracts::Network network = contracts::load_workload(good.path());
  REQUIRE(!contracts::network_violation(network));
  const auto tensor = [&](const std::string& name) {
    for (const contracts::Tensor& t : network.tensors)
      if (t.name == name) return t;
    FAIL("no tensor " << name);
    return contracts::Tensor{};
  };
  CHECK(tensor("b.scale").shape == std::vector<std::int64_t>{4});
  CHECK(tensor("b.shift").constant);
  CHECK(tensor("b").shape == std::vector<std::int64_t>{1, 4, 4, 4});
  CHECK(tensor("d.s").shape == std::vector<std::int64_t>{64});  // rank 2: the flattened (1, 64)
  CHECK(network.operators[1].kind == contracts::OperatorKind::ChannelAffine);
  CHECK(contracts::activation_inputs(network, network.operators[1]) == 1);
  CHECK(network.network_inputs().size() == 1);  // the constants are no inputs
  const maeri::test::TempFile written(importer::workload_yaml(network, "round trip"));
  const contracts::Network again = contracts::load_workload(written.path());
  REQUIRE(again.tensors.size() == network.tensors.size());
  for (std::size_t t = 0; t < network.tensors.size(); ++t) {
    CHECK(again.tensors[t].name == network.tensors[t].name);
    CHECK(again.tensors[t].shape == network.tensors[t].shape);
    CHECK(again.tensors[t].constant == network.tensors[t].constant);
  }
  for (std::size_t o = 0; o < network.operators.size(); ++o) CHECK(again.operators[o].inputs == network.operators[o].inputs);

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  - {name: b, type: channel_affine, input: c, shift: t}\n",
       "6:5: field 'operators[1].scale': missing required field (expected a string)"},
      {"  - {name: b, type: channel_affine, input: c, scale: x, shift: t}\n",
       "6:54: field 'operators[1].scale': tensor 'x' is declared in 'inputs', not a constant"},
      {"  - {name: b, type: channel_affine, input: c, scale: c.weights, shift: t}\n",
       "6:44: field 'operators[1].input': channel affine 'b': its scale 'c.weights' has shape (4,2,3,3), its input 'c' "
       "of shape (1,4,4,4) needs (4)"},
      {"  - {name: f, type: reshape, input: c, shape: [64]}\n"
       "  - {name: b, type: channel_affine, input: f, scale: s, shift: t}\n",
       "7:44: field 'operators[2].input': channel affine 'b' needs an input of rank 2 or more (N, C, …); its "
       "input 'f' has shape (64)"},
      {"  - {name: b, type: channel_affine, input: c, scale: s, shift: t}\n  - {name: r, type: relu, input: s}\n",
       "7:34: field 'operators[2].input': tensor 's' is the scale of 'b', not an activation"},
  };
  for (const auto& [operators, expected] : cases) check_load_error(head + operators, expected);

  contracts::Network activation_scale = network;
  activation_scale.tensors[activation_scale.operators[1].inputs[1]].constant = false;
  CHECK(contracts::network_violation(activation_scale).value() ==
        "operator 'b' reads 'b.scale' as its scale, which is not a constant");
}

TEST_CASE("gate operators: sigmoid, tanh, hard sigmoid and mul (with the SE broadcast) load, write and load back") {
  // A squeeze-and-excitation block after a SiLU: c → sigmoid s → mul m = c·s; GAP g → 1×1 conv e → hard sigmoid h;
  // mul se = m·h broadcast over X and Y; tanh t.
  const maeri::test::TempFile file(
      "kind: workload\nname: gates\ninputs: [{name: x, shape: [1, 2, 4, 4]}]\noperators:\n"
      "  - {name: c, type: conv, input: x, K: 4, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1}\n"
      "  - {name: s, type: sigmoid, input: c}\n"
      "  - {name: m, type: mul, inputs: [c, s]}\n"
      "  - {name: g, type: global_average_pool, input: m}\n"
      "  - {name: e, type: conv, input: g, K: 4, C: 4, R: 1, S: 1, X: 1, Y: 1, stride: 1, padding: 0}\n"
      "  - {name: h, type: hard_sigmoid, input: e, alpha: 0.16666666666666666}\n"
      "  - {name: se, type: mul, inputs: [m, h]}\n"
      "  - {name: t, type: tanh, input: se}\n");
  const contracts::Network network = contracts::load_workload(file.path());
  REQUIRE(!contracts::network_violation(network));
  REQUIRE(network.operators.size() == 8);
  const auto op = [&](const std::string& name) -> const contracts::Operator& {
    return *std::find_if(network.operators.begin(), network.operators.end(),
                         [&](const contracts::Operator& o) { return o.name == name; });
  };
  const auto shape = [&](const std::string& name) { return network.tensors[op(name).outputs[0]].shape; };
  CHECK(op("s").kind == contracts::OperatorKind::TableFunction);
  CHECK(op("s").function.function == contracts::UnaryFunction::Sigmoid);
  CHECK(op("t").function.function == contracts::UnaryFunction::Tanh);
  CHECK(op("m").kind == contracts::OperatorKind::Mul);
  CHECK(op("h").function.function == contracts::UnaryFunction::HardSigmoid);
  CHECK(op("h").function.alpha == 1.0 / 6);
  CHECK(op("h").function.beta == 0.5);  // ONNX's default
  CHECK(shape("m") == std::vector<std::int64_t>{1, 4, 4, 4});
  CHECK(shape("h") == std::vector<std::int64_t>{1, 4, 1, 1});
  CHECK(shape("se") == std::vector<std::int64_t>{1, 4, 4, 4});  // the gate broadcast over X and Y
  CHECK(shape("t") == std::vector<std::int64_t>{1, 4, 4, 4});

  const maeri::test::TempFile written(importer::workload_yaml(network, "round trip"));
  const contracts::Network again = contracts::load_workload(written.path());
  REQUIRE(again.operators.size() == network.operators.size());
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const contracts::Operator &a = again.operators[o], &b = network.operators[o];
    CHECK(a.name == b.name);
    CHECK(a.kind == b.kind);
    CHECK(a.inputs == b.inputs);
    CHECK(a.function.function == b.function.function);
    CHECK(a.function.alpha == b.function.alpha);
    CHECK(a.function.beta == b.function.beta);
  }
  for (std::size_t t = 0; t < network.tensors.size(); ++t) CHECK(again.tensors[t].shape == network.tensors[t].shape);
}

TEST_CASE("bad gate operators are rejected naming the file, position, field and rule") {
  const std::string head = "kind: workload\nname: g\ninputs: [{name: x, shape: [1, 2, 4, 4]}]\noperators:\n"
                           "  - {name: c, type: conv, input: x, K: 4, C: 2, R: 3, S: 3, X: 4, Y: 4, stride: 1, padding: 1}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  - {name: m, type: mul, inputs: [c, x]}\n",
       "6:34: field 'operators[1].inputs': mul 'm' reads 'c' of shape (1,4,4,4) and 'x' of shape (1,2,4,4): the "
       "shapes do not broadcast (each axis, aligned from the last, equal or 1 on one side)"},
      {"  - {name: m, type: mul, inputs: [c]}\n",
       "6:34: field 'operators[1].inputs': mul reads 2 tensors (or 1 and a 'constant'), found a list of 1"},
      {"  - {name: m, type: mul, input: c}\n", "6:5: field 'operators[1].inputs': missing required field"},
      {"  - {name: h, type: hard_sigmoid, input: c, alpha: fast}\n", "6:52: field 'operators[1].alpha': expected a number in [-1e+30, 1e+30], found 'fast'"},
      {"  - {name: s, type: sigmoid, input: c, alpha: 1}\n", "6:40: field 'operators[1].alpha': unknown field"},
  };
  for (const auto& [operators, expected] : cases) check_load_error(head + operators, expected);
  // inferred_output_shape's own rule, for graphs built in code: a hard sigmoid's attributes must be finite.
  contracts::Network network;
  network.tensors = {{"x", {1, 3}, false, {}}, {"y", {1, 3}, false, {}}};
  contracts::Operator hard;
  hard.name = "h";
  hard.kind = contracts::OperatorKind::TableFunction;
  hard.inputs = {0};
  hard.outputs = {1};
  hard.function = contracts::default_call(contracts::UnaryFunction::HardSigmoid);
  hard.function.alpha = std::nan("");
  network.operators = {hard};
  CHECK(contracts::inferred_output_shape(network, hard).violation ==
        std::string("hard sigmoid 'h': alpha nan, beta 0.5: the parameters of hard sigmoid must be finite"));
}
