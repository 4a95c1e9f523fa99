// `maeri import`: ONNX models built here with the ONNX C++ API, imported, and every layer's shape checked against
// values computed by hand from the ONNX operator definitions (Conv, Gemm, MatMul at opset 13); skipped nodes
// carry their reason; bad models are errors that name the node.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "contracts/matrix_product.hpp"
#include "contracts/network.hpp"
#include "importer/network_loader.hpp"
#include "importer/onnx_import.hpp"
#include "importer/workload_yaml.hpp"
#include "onnx_models.hpp"
#include "util/input_error.hpp"
#include "contracts/spec_loader.hpp"
#include "temp_file.hpp"

using namespace maeri;
using maeri::test::OnnxModelBuilder;

namespace {

const contracts::Layer& layer_named(const contracts::Network& network, const std::string& name) {
  for (const contracts::Layer& layer : network.layers)
    if (layer.name == name) return layer;
  FAIL("no layer " << name);
  throw std::logic_error("unreachable");
}

// A small CNN + classifier + attention block with every attribute the importer reads.
void build_network(OnnxModelBuilder& model) {
  model.input("image", {2, 8, 20, 17});
  // Grouped, dilated along X, per-axis stride and pads: X' = (20 + 2·2 − ((3−1)·2 + 1))/2 + 1 = 19/2 + 1 = 10,
  // Y' = (17 + 2·1 − 5)/1 + 1 = 15.
  model.weight("w1", {12, 4, 3, 5});
  auto& conv1 = model.node("Conv", "conv1", {"image", "w1"}, "c1");
  OnnxModelBuilder::set_int(conv1, "group", 2);
  OnnxModelBuilder::set_ints(conv1, "strides", {2, 1});
  OnnxModelBuilder::set_ints(conv1, "dilations", {2, 1});
  OnnxModelBuilder::set_ints(conv1, "pads", {2, 1, 2, 1});
  model.node("Relu", "relu1", {"c1"}, "r1");
  // Depthwise 3×3, stride 2, SAME_UPPER: ceil(10/2) = 5 and ceil(15/2) = 8 outputs; total padding
  // (5−1)·2 + 3 − 10 = 1 along X would be asymmetric, so pad explicitly instead: pads 1 → (10+2−3)/2+1 = 5,
  // (15+2−3)/2+1 = 8.
  model.weight("w2", {12, 1, 3, 3});
  auto& conv2 = model.node("Conv", "depthwise", {"r1", "w2"}, "c2");
  OnnxModelBuilder::set_int(conv2, "group", 12);
  OnnxModelBuilder::set_ints(conv2, "strides", {2, 2});
  OnnxModelBuilder::set_ints(conv2, "pads", {1, 1, 1, 1});
  // 1×1 with auto_pad SAME_UPPER at stride 1: no padding needed.
  model.weight("w3", {16, 12, 1, 1});
  auto& conv3 = model.node("Conv", "pointwise", {"c2", "w3"}, "c3");
  OnnxModelBuilder::set_string(conv3, "auto_pad", "SAME_UPPER");
  auto& pool = model.node("MaxPool", "pool", {"c3"}, "p");
  OnnxModelBuilder::set_ints(pool, "kernel_shape", {5, 8});  // 5×8 → 1×1
  model.node("Flatten", "flatten", {"p"}, "f");
  // Gemm with transB: A' = 2×16, B' = (10×16)ᵀ = 16×10.
  model.weight("fc_w", {10, 16});
  auto& fc = model.node("Gemm", "fc", {"f", "fc_w"}, "logits");
  OnnxModelBuilder::set_int(fc, "transB", 1);
  model.output("logits");
  // Attention scores: [2, 12, 128, 64] by [2, 12, 64, 128]: batch 24 of 128×64 by 64×128.
  model.input("q", {2, 12, 128, 64});
  model.input("k_t", {2, 12, 64, 128});
  model.node("MatMul", "scores", {"q", "k_t"}, "s");
  model.output("s");
  // A projection with a shared 2-D weight: [1, 128, 768] by [768, 3072].
  model.input("hidden", {1, 128, 768});
  model.weight("ffn_w", {768, 3072});
  model.node("MatMul", "ffn", {"hidden", "ffn_w"}, "h");
  model.node("Add", "residual", {"h", "h"}, "h2");
  model.output("h2");
}

}  // namespace

TEST_CASE("ONNX import: Conv, Gemm and MatMul nodes become layers of the hand-computed shapes", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("small");
  build_network(model);
  model.write(dir / "small.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "small.onnx");
  const contracts::Network& network = imported.network;
  CHECK(network.name == "small");
  REQUIRE(network.layers.size() == 6);

  const contracts::Layer& conv1 = layer_named(network, "conv1");
  CHECK(conv1.type == contracts::LayerType::Convolution);
  CHECK(conv1.N == 2);
  CHECK(conv1.K == 12);
  CHECK(conv1.C == 8);
  CHECK(conv1.R == 3);
  CHECK(conv1.S == 5);
  CHECK(conv1.X == 20);
  CHECK(conv1.Y == 17);
  CHECK(conv1.groups == 2);
  CHECK(conv1.stride_x == 2);
  CHECK(conv1.stride_y == 1);
  CHECK(conv1.dilation_x == 2);
  CHECK(conv1.dilation_y == 1);
  CHECK(conv1.padding_x == 2);
  CHECK(conv1.padding_y == 1);
  CHECK(conv1.output_x() == 10);
  CHECK(conv1.output_y() == 15);
  CHECK(conv1.macs() == 2LL * 12 * 4 * 3 * 5 * 10 * 15);

  const contracts::Layer& depthwise = layer_named(network, "depthwise");
  CHECK(depthwise.groups == 12);
  CHECK(depthwise.C == 12);
  CHECK(depthwise.K == 12);
  CHECK(depthwise.X == 10);
  CHECK(depthwise.Y == 15);
  CHECK(depthwise.output_x() == 5);
  CHECK(depthwise.output_y() == 8);

  const contracts::Layer& pointwise = layer_named(network, "pointwise");
  CHECK(pointwise.padding_x == 0);
  CHECK(pointwise.padding_y == 0);
  CHECK(pointwise.output_x() == 5);

  // M = 2 (the batch), K = 16, N = 10: A's rows are the layer's batch, so the flattened (2, 16) is its input as it is.
  const contracts::Layer& fc = layer_named(network, "fc");
  CHECK(fc.type == contracts::LayerType::Gemm);
  CHECK(fc.N == 2);
  CHECK(fc.X == 1);
  CHECK(fc.C == 16);
  CHECK(fc.K == 10);
  CHECK(fc.macs() == 2 * 16 * 10);

  // A matrix product of two activations: 24 heads (groups), each its own 128×64 by 64×128 (B's 128 columns the X).
  const contracts::Layer& scores = layer_named(network, "scores");
  CHECK(scores.N == 1);
  CHECK(scores.groups == 24);
  CHECK(scores.X == 128);
  CHECK(scores.C == 24 * 64);
  CHECK(scores.K == 24 * 128);
  CHECK(scores.macs() == 24LL * 128 * 64 * 128);

  const contracts::Layer& ffn = layer_named(network, "ffn");  // one weight matrix: the 1·128 rows are the batch
  CHECK(ffn.N == 128);
  CHECK(ffn.X == 1);
  CHECK(ffn.C == 768);
  CHECK(ffn.K == 3072);

  // The operators between the layers are the graph's, with their tensors' shapes; nothing is skipped.
  CHECK(imported.skipped.empty());
  std::vector<std::string> beside;
  for (const contracts::Operator& op : network.operators)
    if (op.kind != contracts::OperatorKind::FabricLayer) beside.push_back(op.name + " " + contracts::operator_label(op));
  // fc and ffn read A's rows as their batch: reshapes of the same elements carry the ONNX tensors in and out.
  CHECK(beside == std::vector<std::string>{"relu1 relu", "pool max pool", "flatten reshape", "fc.reshape_input reshape",
                                           "fc.reshape_output reshape", "ffn.reshape_input reshape",
                                           "ffn.reshape_output reshape", "residual add"});
  const auto shape_of = [&](const std::string& tensor) {
    for (const contracts::Tensor& each : network.tensors)
      if (each.name == tensor) return each.shape;
    FAIL("no tensor " << tensor);
    return std::vector<std::int64_t>{};
  };
  CHECK(shape_of("p") == std::vector<std::int64_t>{2, 16, 1, 1});
  CHECK(shape_of("f") == std::vector<std::int64_t>{2, 16});
  // The classifier reads its 2×16 input as (N = 2, K = 16, 1, 1), the order it is in: the graph is not cut there
  // (it was when A's rows were the layer's X), and its logits are the network's output.
  CHECK(std::none_of(imported.notes.begin(), imported.notes.end(),
                     [](const std::string& note) { return note.find("cut: layer fc") == 0; }));
  CHECK(shape_of("logits") == std::vector<std::int64_t>{2, 10});
}

TEST_CASE("ONNX import: the workload YAML it writes loads back to the same layers", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("round trip");
  build_network(model);
  model.write(dir / "model.onnx");
  const contracts::Network imported = importer::load_network(dir / "model.onnx");
  // Conv layers have batch 2 (the workload's); the GEMMs' batches 2 (fc), 24 (scores) and 128 (ffn: its rows) are
  // multiples of it, so the whole graph writes too.
  {
    test::TempFile yaml(importer::workload_yaml(imported, "whole"));
    const contracts::Network loaded = contracts::load_workload(yaml.path());
    REQUIRE(loaded.layers.size() == imported.layers.size());
    for (std::size_t i = 0; i < loaded.layers.size(); ++i) CHECK(contracts::same_shape(loaded.layers[i], imported.layers[i]));
    CHECK(loaded.operators.size() == imported.operators.size());
  }
  // A GEMM batch that is not a multiple of the convolutions' is refused.
  {
    contracts::Network odd = imported;
    odd.layers[3].N = 3;
    CHECK_THROWS_WITH(importer::workload_yaml(odd, "header"),
                      Catch::Contains("GEMM batch 3 is not a multiple of the workload's batch 2"));
  }
  // Each part as a flat list of its layers (a chain: the YAML writer writes a graph only for operators beside the
  // fabric, which these parts leave out).
  const auto layers = imported.layers;
  const contracts::Network convolutions = contracts::chain_network(  // conv1, depthwise, pointwise: batch 2
      imported.name, {layers.begin(), layers.begin() + 3});
  const contracts::Network products = contracts::chain_network(  // fc, scores, ffn: batches 2, 24, 128
      imported.name, {layers.begin() + 3, layers.end()});
  for (const contracts::Network* part : {&convolutions, &products}) {
    test::TempFile yaml(importer::workload_yaml(*part, "imported"));
    const contracts::Network loaded = contracts::load_workload(yaml.path());
    REQUIRE(loaded.layers.size() == part->layers.size());
    for (std::size_t i = 0; i < loaded.layers.size(); ++i) {
      INFO(part->layers[i].name);
      CHECK(loaded.layers[i].name == part->layers[i].name);
      CHECK(contracts::same_shape(loaded.layers[i], part->layers[i]));
    }
    CHECK(loaded.total_macs() == part->total_macs());
  }
}

TEST_CASE("ONNX import: bad models are errors that name the file and the node", "[importer]") {
  test::TempDir dir;
  SECTION("a file that is not ONNX") {
    test::TempFile text("kind: workload\nname: w\n", ".onnx");
    CHECK_THROWS_WITH(importer::import_onnx(text.path()), Catch::Contains("not an ONNX model"));
  }
  SECTION("a dynamic batch that shape inference cannot resolve") {
    OnnxModelBuilder::write_one_conv(dir / "dynamic.onnx", "conv", {-1, 3, 8, 8}, {4, 3, 3, 3});
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx"),
                      Catch::Contains("field 'node conv'") && Catch::Contains("dynamic dimension 'batch'"));
  }
  SECTION("asymmetric pads of an average pool's window (padding not counted: a zero border is not what it pads with)") {
    OnnxModelBuilder model("pool");
    model.input("x", {1, 3, 8, 8});
    auto& pool = model.node("AveragePool", "pool_same", {"x"}, "p");
    OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
    OnnxModelBuilder::set_string(pool, "auto_pad", "SAME_UPPER");
    model.weight("w", {4, 3, 1, 1});
    model.node("Conv", "conv", {"p", "w"}, "y");
    model.output("y");
    model.write(dir / "pool.onnx");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "pool.onnx"),
                      Catch::Contains("field 'node pool_same'") && Catch::Contains("asymmetric pads [0, 0, 1, 1]") &&
                          Catch::Contains("from auto_pad SAME_UPPER"));
  }
  SECTION("a ConvTranspose whose output_shape needs an odd total padding (runtimes split it differently)") {
    OnnxModelBuilder model("transposed");
    model.input("x", {1, 2, 3, 3});
    model.weight("w", {2, 4, 3, 3});
    auto& up = model.node("ConvTranspose", "up", {"x", "w"}, "y");
    OnnxModelBuilder::set_ints(up, "strides", {2, 2});
    OnnxModelBuilder::set_ints(up, "output_shape", {6, 6});  // total 2·2 + 3 − 6 = 1
    model.output("y");
    model.write(dir / "transposed.onnx");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "transposed.onnx"),
                      Catch::Contains("field 'node up'") &&
                          Catch::Contains("output_shape [6, 6] is not equivalent to explicit pads"));
  }
  SECTION("a 3-D convolution") {
    OnnxModelBuilder::write_one_conv(dir / "conv3d.onnx", "volume", {1, 3, 8, 8, 8}, {4, 3, 3, 3, 3});
    CHECK_THROWS_WITH(importer::import_onnx(dir / "conv3d.onnx"),
                      Catch::Contains("field 'node volume'") && Catch::Contains("only 1-D and 2-D convolutions"));
  }
  SECTION("no layer at all") {
    OnnxModelBuilder model("pool only");
    model.input("x", {1, 3, 8, 8});
    model.node("Relu", "relu", {"x"}, "y");
    model.output("y");
    model.write(dir / "pool.onnx");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "pool.onnx"), Catch::Contains("no Conv, Gemm, MatMul, Einsum or recurrent node"));
  }
  SECTION("a missing file") {
    CHECK_THROWS_AS(importer::import_onnx(dir / "absent.onnx"), maeri::util::InputError);
  }
}

TEST_CASE("ONNX import: Gemm with transA, MatMul of a vector and unnamed nodes", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("products");
  model.input("a_t", {16, 3});  // Aᵀ: A' = 3×16
  model.weight("b", {16, 5});
  auto& gemm = model.node("Gemm", "", {"a_t", "b"}, "c");
  OnnxModelBuilder::set_int(gemm, "transA", 1);
  model.output("c");
  model.input("v", {16});  // a vector is one row: 1×16 by 16×5
  model.node("MatMul", "", {"v", "b"}, "w");
  model.output("w");
  model.write(dir / "products.onnx");
  const contracts::Network network = importer::import_onnx(dir / "products.onnx").network;
  REQUIRE(network.layers.size() == 2);
  CHECK(network.layers[0].name == "Gemm#0");
  CHECK(network.layers[0].X == 3);   // M
  CHECK(network.layers[0].C == 16);  // K
  CHECK(network.layers[0].K == 5);   // N
  CHECK(network.layers[1].name == "MatMul#1");
  CHECK(network.layers[1].X == 1);
  CHECK(network.layers[1].C == 16);
  CHECK(network.layers[1].K == 5);
}

namespace {

std::vector<std::string> operator_kinds(const contracts::Network& network) {
  std::vector<std::string> kinds;
  for (const contracts::Operator& op : network.operators) kinds.push_back(contracts::operator_label(op));
  return kinds;
}

const contracts::Tensor& tensor_named(const contracts::Network& network, const std::string& name) {
  for (const contracts::Tensor& tensor : network.tensors)
    if (tensor.name == name) return tensor;
  FAIL("no tensor " << name);
  throw std::logic_error("unreachable");
}

// network_violation as it stands on main counts a fabric operator's inputs as two; the Network contract lets a
// layer read its bias third, so the check runs on a copy without them.
std::optional<std::string> graph_violation(contracts::Network network) {
  for (contracts::Operator& op : network.operators)
    if (op.kind == contracts::OperatorKind::FabricLayer && op.inputs.size() == 3) op.inputs.pop_back();
  return contracts::network_violation(network);
}

}  // namespace

TEST_CASE("ONNX import: --input-shape and --batch give a model's dynamic sizes", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("dynamic");
  model.input("image", {-1, 3, -2, -3});
  model.weight("w", {8, 3, 3, 3});
  model.node("Conv", "conv", {"image", "w"}, "y");
  model.output("y");
  model.write(dir / "dynamic.onnx");
  SECTION("without them the error names the dynamic input and the options") {
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx"),
                      Catch::Contains("field 'node conv'") && Catch::Contains("image [batch,3,height,width]") &&
                          Catch::Contains("--input-shape NAME=d0,d1,") && Catch::Contains("--batch N"));
  }
  SECTION("--input-shape gives every dimension") {
    importer::ModelInputShapes sizes;
    sizes.add("image=2,3,32,24");
    // A copy: the import is a temporary.
    const contracts::Layer conv = importer::import_onnx(dir / "dynamic.onnx", sizes).network.layers.at(0);
    CHECK(conv.N == 2);
    CHECK(conv.X == 32);
    CHECK(conv.Y == 24);
    CHECK(conv.macs() == 2LL * 8 * 3 * 3 * 3 * 30 * 22);
  }
  SECTION("--batch gives the first dimension only: the others stay dynamic") {
    importer::ModelInputShapes sizes;
    sizes.batch = 4;
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx", sizes), Catch::Contains("image [4,3,height,width]"));
  }
  SECTION("bad sizes are errors naming the option and the input") {
    importer::ModelInputShapes unknown, rank;
    unknown.add("picture=1,3,8,8");
    rank.add("image=1,3,8");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx", unknown),
                      Catch::Contains("field '--input-shape picture'") && Catch::Contains("its inputs: image"));
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx", rank),
                      Catch::Contains("the input has rank 4, the option gives 3 sizes"));
    importer::ModelInputShapes parsed;
    CHECK_THROWS_WITH(parsed.add("image=1,0,8"), Catch::Contains("size '0' is not an integer in [1, "));
    CHECK_THROWS_WITH(parsed.add("image"), Catch::Contains("expected NAME=d0,d1,"));
    CHECK_THROWS_WITH(parsed.add("image=1,x"), Catch::Contains("size 'x'"));
  }
  SECTION("a size that contradicts a fixed dimension") {
    OnnxModelBuilder::write_one_conv(dir / "fixed.onnx", "conv", {1, 3, 8, 8}, {4, 3, 3, 3});
    importer::ModelInputShapes sizes;
    sizes.add("x=1,3,9,8");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "fixed.onnx", sizes),
                      Catch::Contains("dimension 2 is fixed at 8 in the model, the option gives 9"));
  }
}

TEST_CASE("ONNX import: shape computations fold (Shape → Gather → Concat → Reshape and friends)", "[importer]") {
  test::TempDir dir;
  // The usual exporter pattern: the batch read at run time, the rest flattened with -1.
  OnnxModelBuilder model("folded", 13);
  model.input("x", {-1, 4, 6, 6});
  model.weight("w", {8, 4, 3, 3});
  model.node("Conv", "conv", {"x", "w"}, "c");           // (N, 8, 4, 4)
  model.node("Shape", "shape", {"c"}, "s");
  model.integers("zero", {}, {0});
  auto& gather = model.node("Gather", "batch_of", {"s", "zero"}, "n");
  OnnxModelBuilder::set_int(gather, "axis", 0);
  model.integers("axes0", {1}, {0});
  model.node("Unsqueeze", "unsqueeze", {"n", "axes0"}, "n1");
  auto& minus_one = model.node("Constant", "minus_one", {}, "m1");
  OnnxModelBuilder::set_ints(minus_one, "value_ints", {-1});
  auto& concat = model.node("Concat", "target", {"n1", "m1"}, "target_shape");
  OnnxModelBuilder::set_int(concat, "axis", 0);
  model.node("Reshape", "flatten", {"c", "target_shape"}, "f");  // (N, 128)
  model.weight("fc_w", {128, 10});
  model.node("MatMul", "fc", {"f", "fc_w"}, "logits");
  model.output("logits");
  // A second pattern: the spatial size halved by integer arithmetic, through Cast, Slice and Div.
  model.node("Shape", "shape2", {"c"}, "s2");
  model.integers("from2", {1}, {2});
  model.integers("to4", {1}, {4});
  model.node("Slice", "spatial", {"s2", "from2", "to4"}, "hw");        // [4, 4]
  auto& cast = model.node("Cast", "as_float", {"hw"}, "hw_f");
  OnnxModelBuilder::set_int(cast, "to", onnx::TensorProto_DataType_FLOAT);
  auto& cast_back = model.node("Cast", "as_int", {"hw_f"}, "hw_i");
  OnnxModelBuilder::set_int(cast_back, "to", onnx::TensorProto_DataType_INT64);
  model.integers("two", {}, {2});
  model.node("Div", "halve", {"hw_i", "two"}, "half");                 // [2, 2]
  model.integers("batch_channels", {2}, {0, 32});
  auto& shape3 = model.node("Concat", "target3", {"batch_channels", "half"}, "shape3");
  OnnxModelBuilder::set_int(shape3, "axis", 0);
  model.node("Reshape", "regroup", {"c", "shape3"}, "g");              // (N, 32, 2, 2): 0 copies the batch
  model.weight("w2", {5, 32, 1, 1});
  model.node("Conv", "pointwise", {"g", "w2"}, "p");
  model.output("p");
  model.write(dir / "folded.onnx");
  importer::ModelInputShapes sizes;
  sizes.batch = 3;
  const importer::OnnxImport imported = importer::import_onnx(dir / "folded.onnx", sizes);
  const contracts::Network& network = imported.network;
  REQUIRE(network.layers.size() == 3);
  const contracts::Layer& fc = layer_named(network, "fc");
  CHECK(fc.N == 3);    // M: the batch
  CHECK(fc.X == 1);
  CHECK(fc.C == 128);  // 8·4·4
  CHECK(fc.K == 10);
  CHECK(fc.macs() == 3 * 128 * 10);
  const contracts::Layer& pointwise = layer_named(network, "pointwise");
  CHECK(pointwise.N == 3);
  CHECK(pointwise.C == 32);
  CHECK(pointwise.X == 2);
  CHECK(pointwise.macs() == 3LL * 5 * 32 * 2 * 2);
  // The folded computations left no node behind; the reshapes run as operators.
  CHECK(imported.skipped.empty());
  CHECK(tensor_named(network, "f").shape == std::vector<std::int64_t>{3, 128});
  CHECK(tensor_named(network, "g").shape == std::vector<std::int64_t>{3, 32, 2, 2});
}

TEST_CASE("ONNX import: Where on constants folds, its three inputs broadcast", "[importer]") {
  // PyTorch's slice assignment computes an Expand shape as Where(Equal(shape, −1), ones, shape); here a Reshape's
  // target: Equal([−1, 4], [−1]) = [true, false] (shapes (2) and (1) broadcast), Where(that, 4 (a scalar), [−1, 4])
  // = [4, 4] by hand, so x (1, 16) becomes (4, 4) and the MatMul by (4, 2) has M = 4.
  test::TempDir dir;
  OnnxModelBuilder model("where_folded", 13);
  model.input("x", {1, 16});
  model.integers("given", {2}, {-1, 4});
  model.integers("minus_one", {1}, {-1});
  model.node("Equal", "unknown", {"given", "minus_one"}, "cond");
  model.integers("four", {}, {4});
  model.node("Where", "pick", {"cond", "four", "given"}, "target");
  model.node("Reshape", "reshape", {"x", "target"}, "r");
  model.weight("w", {4, 2});
  model.node("MatMul", "fc", {"r", "w"}, "y");
  model.output("y");
  model.write(dir / "where.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "where.onnx");
  CHECK(imported.skipped.empty());
  CHECK(tensor_named(imported.network, "r").shape == std::vector<std::int64_t>{4, 4});
  CHECK(layer_named(imported.network, "fc").macs() == 4 * 4 * 2);
}

TEST_CASE("ONNX import: an opset-9 Slice from the end keeps its shape (tf2onnx's last step of a sequence)",
          "[importer]") {
  // x (1, 8, 4) sliced along axis 1 from −1 to 2^31 − 1 (x[:, -1:], as tf2onnx writes a recurrent layer's last step)
  // is (1, 1, 4) by ONNX's clamping, by hand; ONNX 1.12's inference of Slice-1 leaves that axis a new symbol, so the
  // importer gives the shape and the MatMul after the Squeeze gets M = 1, K = 4.
  test::TempDir dir;
  OnnxModelBuilder model("last_step", 9);
  model.input("x", {1, 8, 4});
  auto& slice = model.node("Slice", "last", {"x"}, "s");
  OnnxModelBuilder::set_ints(slice, "starts", {-1});
  OnnxModelBuilder::set_ints(slice, "ends", {2147483647});
  OnnxModelBuilder::set_ints(slice, "axes", {1});
  OnnxModelBuilder::set_ints(model.node("Squeeze", "squeeze", {"s"}, "q"), "axes", {1});
  model.weight("w", {4, 3});
  model.node("MatMul", "fc", {"q", "w"}, "y");
  model.output("y");
  model.write(dir / "last_step.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "last_step.onnx");
  CHECK(imported.skipped.empty());
  CHECK(tensor_named(imported.network, "s").shape == std::vector<std::int64_t>{1, 1, 4});
  CHECK(layer_named(imported.network, "fc").macs() == 1 * 4 * 3);
}

TEST_CASE("ONNX import: a shape computation that cannot fold is named", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("unfoldable");
  model.input("x", {1, 16});
  model.input("runtime_shape", {2});
  model.graph().mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
  model.node("Reshape", "reshape", {"x", "runtime_shape"}, "r");
  model.weight("w", {16, 4});
  model.node("MatMul", "fc", {"r", "w"}, "y");
  model.output("y");
  model.write(dir / "unfoldable.onnx");
  CHECK_THROWS_WITH(importer::import_onnx(dir / "unfoldable.onnx"),
                    Catch::Contains("field 'node fc'") && Catch::Contains("node reshape (Reshape) could not be folded") &&
                        Catch::Contains("'runtime_shape' is computed at run time"));
}

TEST_CASE("ONNX import: inconsistent folded shapes are errors naming the node", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("inconsistent");
  model.input("x", {1, 3, 4, 4});
  model.node("Shape", "shape", {"x"}, "s");
  model.integers("nine", {}, {9});
  model.node("Gather", "pick", {"s", "nine"}, "n");
  model.weight("w", {4, 3, 1, 1});
  model.node("Conv", "conv", {"x", "w"}, "y");
  model.output("y");
  model.write(dir / "inconsistent.onnx");
  CHECK_THROWS_WITH(importer::import_onnx(dir / "inconsistent.onnx"),
                    Catch::Contains("field 'node pick'") && Catch::Contains("index 9 is out of range"));
}

TEST_CASE("ONNX import: a foldable node with an empty input is an error naming it, not a null dereference",
          "[importer]") {
  // CI's libFuzzer run (UBSan) found an Add on constants whose first input name was empty: the folder read
  // *constant("") (onnx_folding.cpp:538, reference binding to null). Both shapes of the bug: an empty first input and
  // an empty input among a Concat's.
  for (const std::string op : {"Add", "Concat"}) {
    test::TempDir dir;
    OnnxModelBuilder model("empty_input");
    model.input("x", {1, 3, 4, 4});
    model.integers("two", {1}, {2});
    onnx::NodeProto& fold_me = model.node(op, "fold_me", {"", "two"}, "n");
    if (op == "Concat") OnnxModelBuilder::set_int(fold_me, "axis", 0);
    model.weight("w", {4, 3, 1, 1});
    model.node("Conv", "conv", {"x", "w"}, "y");
    model.output("y");
    model.write(dir / "empty_input.onnx");
    CAPTURE(op);
    CHECK_THROWS_WITH(importer::import_onnx(dir / "empty_input.onnx"),
                      Catch::Contains("field 'node fold_me'"));
  }
}

TEST_CASE("ONNX import: the graph between the layers, BatchNormalization folded exactly, weights read", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("resnet block");
  model.input("x", {1, 2, 6, 6});
  // conv1 → BN → Relu → MaxPool; conv2 (bias) → Clip (ReLU6); Add (residual); GlobalAveragePool → Flatten → Gemm →
  // Softmax.
  const std::vector<float> w1 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                 -1, -2, -3, -4, -5, -6, -7, -8, -9, 0.5f, 0.25f, 0, 0, 0, 0, 0, 0, 1};
  model.weight("w1", {2, 2, 3, 3}, w1);
  model.weight("gamma", {2}, {2.0f, 0.5f});
  model.weight("beta", {2}, {1.0f, -1.0f});
  model.weight("mean", {2}, {0.5f, 0.25f});
  model.weight("var", {2}, {3.0f, 0.0f});
  auto& conv1 = model.node("Conv", "conv1", {"x", "w1"}, "c1");
  OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
  auto& bn = model.node("BatchNormalization", "bn1", {"c1", "gamma", "beta", "mean", "var"}, "b1");
  OnnxModelBuilder::set_float(bn, "epsilon", 1e-3f);
  model.node("Relu", "relu1", {"b1"}, "r1");
  auto& pool = model.node("MaxPool", "pool1", {"r1"}, "p1");  // 6×6 → 3×3
  OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
  OnnxModelBuilder::set_ints(pool, "strides", {2, 2});
  model.weight("w2", {2, 2, 1, 1}, {1, 0, 0, 1});
  model.weight("b2", {2}, {0.5f, -0.5f});
  model.node("Conv", "conv2", {"p1", "w2", "b2"}, "c2");
  model.weight("low", {}, {0.0f});
  model.weight("high", {}, {6.0f});
  model.node("Clip", "relu6", {"c2", "low", "high"}, "k2");
  model.node("Add", "residual", {"k2", "p1"}, "sum");
  model.node("GlobalAveragePool", "gap", {"sum"}, "g");
  auto& flatten = model.node("Flatten", "flatten", {"g"}, "f");
  OnnxModelBuilder::set_int(flatten, "axis", 1);
  model.weight("fc_w", {3, 2}, {1, 2, 3, 4, 5, 6});  // transB: N = 3 outputs of K = 2
  model.weight("fc_b", {3}, {0.1f, 0.2f, 0.3f});
  auto& fc = model.node("Gemm", "fc", {"f", "fc_w", "fc_b"}, "logits");
  OnnxModelBuilder::set_int(fc, "transB", 1);
  auto& softmax = model.node("Softmax", "softmax", {"logits"}, "probabilities");
  OnnxModelBuilder::set_int(softmax, "axis", 1);
  model.node("Sign", "gate", {"logits"}, "gated");  // not run by the toolkit: skipped, the graph cut
  model.output("probabilities");
  model.output("gated");
  model.write(dir / "block.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "block.onnx");
  const contracts::Network& network = imported.network;
  REQUIRE(!graph_violation(network));
  // The classifier reads (1, 2) as its (N, C, X, Y) = (1, 2, 1, 1) and writes (1, 3, 1, 1) as (1, 3): reshapes.
  CHECK(operator_kinds(network) == std::vector<std::string>{"fabric layer", "relu", "max pool", "fabric layer", "clip",
                                                            "add", "global average pool", "reshape", "reshape",
                                                            "fabric layer", "reshape", "softmax"});
  REQUIRE(imported.skipped.size() == 1);
  CHECK(imported.skipped[0].name == "gate");
  CHECK(imported.skipped[0].reason.find("the graph is cut here") != std::string::npos);
  // Every edge is the model's: the network's only input is x, its outputs the softmax's and the cut's none.
  std::vector<std::string> inputs, outputs;
  for (std::size_t t : network.network_inputs()) inputs.push_back(network.tensors[t].name);
  for (std::size_t t : network.network_outputs()) outputs.push_back(network.tensors[t].name);
  CHECK(inputs == std::vector<std::string>{"x"});
  CHECK(outputs == std::vector<std::string>{"probabilities"});
  // The BN's output is the layer's: conv1 writes b1 (6×6 with pads 1).
  CHECK(tensor_named(network, "b1").shape == std::vector<std::int64_t>{1, 2, 6, 6});
  CHECK(tensor_named(network, "p1").shape == std::vector<std::int64_t>{1, 2, 3, 3});
  CHECK(network.operators[9].name == "fc");
  CHECK(network.operators[8].name == "fc.reshape_input");
  CHECK(network.operators[2].pool.size_x == 2);
  CHECK(network.operators[2].pool.stride_y == 2);
  CHECK(network.operators[4].clip_min == 0);
  CHECK(network.operators[4].clip_max == 6);
  CHECK(tensor_named(network, "f").shape == std::vector<std::int64_t>{1, 2});
  // Folded in float exactly as the definition: w·γ/√(σ²+ε), (b − μ)·γ/√(σ²+ε) + β with b = 0.
  const std::vector<double>& folded = imported.weights.at("conv1.weights");
  const std::vector<double>& folded_bias = imported.weights.at("conv1.bias");
  REQUIRE(folded.size() == 36);
  for (int k = 0; k < 2; ++k) {
    const double gamma = k ? 0.5 : 2.0, beta = k ? -1.0 : 1.0, mean = k ? 0.25 : 0.5, variance = k ? 0.0 : 3.0;
    const double scale = gamma / std::sqrt(variance + double(1e-3f));
    for (int i = 0; i < 18; ++i) CHECK(folded[std::size_t(k * 18 + i)] == double(w1[std::size_t(k * 18 + i)]) * scale);
    CHECK(folded_bias[std::size_t(k)] == (0 - mean) * scale + beta);
  }
  CHECK(std::count_if(imported.notes.begin(), imported.notes.end(),
                      [](const std::string& note) { return note == "folded BatchNormalization bn1 into conv1"; }) == 1);
  // Unfolded weights keep the initializer's name; Gemm's Bᵀ is the layer's (K, C) as it is.
  CHECK(imported.weights.at("w2") == std::vector<double>{1, 0, 0, 1});
  CHECK(imported.weights.at("conv2.bias") == std::vector<double>{0.5, -0.5});
  CHECK(imported.weights.at("fc_w") == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(imported.weights.at("fc.bias")[2] == double(0.3f));
}

TEST_CASE("ONNX import: weights in typed fields and of other types; external data refused", "[importer]") {
  test::TempDir dir;
  const auto build = [&](const std::function<void(onnx::TensorProto&)>& fill) {
    OnnxModelBuilder model("typed");
    model.input("x", {1, 2});
    model.weight("w", {2, 2});
    fill(*model.graph().mutable_initializer(0));
    model.node("MatMul", "fc", {"x", "w"}, "y");
    model.output("y");
    model.write(dir / "typed.onnx");
    return importer::import_onnx(dir / "typed.onnx");
  };
  // MatMul's B (K×N) = [[1, 2], [3, 4]] becomes the layer's (N, K): [[1, 3], [2, 4]].
  const std::vector<double> expected = {1, 3, 2, 4};
  CHECK(build([](onnx::TensorProto& t) {
          t.clear_raw_data();
          for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) t.add_float_data(v);
        }).weights.at("fc.weights") == expected);
  CHECK(build([](onnx::TensorProto& t) {
          t.clear_raw_data();
          t.set_data_type(onnx::TensorProto_DataType_DOUBLE);
          for (double v : {1.0, 2.0, 3.0, 4.0}) t.add_double_data(v);
        }).weights.at("fc.weights") == expected);
  CHECK(build([](onnx::TensorProto& t) {
          t.clear_raw_data();
          t.set_data_type(onnx::TensorProto_DataType_INT8);
          for (int v : {1, 2, 3, 4}) t.add_int32_data(v);
        }).weights.at("fc.weights") == expected);
  CHECK_THROWS_WITH(build([](onnx::TensorProto& t) {
                      t.clear_raw_data();
                      t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
                      auto* entry = t.add_external_data();
                      entry->set_key("location");
                      entry->set_value("weights.bin");
                    }),
                    Catch::Contains("field 'initializer w'") && Catch::Contains("external data"));
  CHECK_THROWS_WITH(build([](onnx::TensorProto& t) { t.mutable_raw_data()->resize(3); }),
                    Catch::Contains("raw_data holds 3 bytes, its dimensions need 16"));
}

TEST_CASE("ONNX import: 1-D convolutions, ConvTranspose, attention and Einsum products", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("mixed");
  model.input("audio", {2, 4, 100});
  model.weight("w1d", {8, 4, 5});
  auto& conv1d = model.node("Conv", "temporal", {"audio", "w1d"}, "t");
  OnnxModelBuilder::set_ints(conv1d, "strides", {2});
  OnnxModelBuilder::set_ints(conv1d, "pads", {2, 2});
  model.output("t");
  model.input("features", {1, 4, 5, 5});
  model.weight("wt", {4, 3, 3, 3}, std::vector<float>(108, 0.0f));
  auto& up = model.node("ConvTranspose", "upsample", {"features", "wt"}, "u");
  OnnxModelBuilder::set_ints(up, "strides", {2, 2});
  OnnxModelBuilder::set_ints(up, "pads", {1, 1, 1, 1});
  model.output("u");
  model.input("q", {2, 4, 16, 8});
  model.input("k", {2, 4, 16, 8});
  auto& kt = model.node("Transpose", "k_t", {"k"}, "kT");
  OnnxModelBuilder::set_ints(kt, "perm", {0, 1, 3, 2});
  model.node("MatMul", "scores", {"q", "kT"}, "s");
  model.output("s");
  auto& einsum = model.node("Einsum", "context", {"q", "k"}, "ctx");
  OnnxModelBuilder::set_string(einsum, "equation", "bhqd,bhkd->bhqk");
  model.output("ctx");
  model.write(dir / "mixed.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "mixed.onnx");
  const contracts::Network& network = imported.network;
  const contracts::Layer& temporal = layer_named(network, "temporal");  // Y = 1: (100 + 4 − 5)/2 + 1 = 50
  CHECK(temporal.X == 100);
  CHECK(temporal.Y == 1);
  CHECK(temporal.R == 5);
  CHECK(temporal.S == 1);
  CHECK(temporal.output_x() == 50);
  CHECK(temporal.macs() == 2LL * 8 * 4 * 5 * 50);
  // The 1-D tensors are reshaped to and from the layer's (N, C, X, 1).
  CHECK(tensor_named(network, "t").shape == std::vector<std::int64_t>{2, 8, 50});
  // ConvTranspose 5×5, stride 2, pads 1, 3×3: output (5 − 1)·2 + 3 − 2 = 9; as a convolution over the 9×9
  // zero-inserted input padded by 3 − 1 − 1 = 1.
  const contracts::Layer& upsample = layer_named(network, "upsample");
  CHECK(upsample.X == 9);
  CHECK(upsample.padding_x == 1);
  CHECK(upsample.stride_x == 1);
  CHECK(upsample.K == 3);
  CHECK(upsample.C == 4);
  CHECK(upsample.output_x() == 9);
  CHECK(upsample.macs() == 1LL * 3 * 4 * 3 * 3 * 9 * 9);
  // QKᵀ: 2·4 heads of 16×8 by 8×16, each its own operands; the Transpose of K's last two axes folds into the
  // product, which reads k transposed (no node is skipped, nothing is cut).
  const contracts::Layer& scores = layer_named(network, "scores");
  CHECK(scores.N == 1);
  CHECK(scores.groups == 8);
  CHECK(scores.X == 16);
  CHECK(scores.C == 8 * 8);
  CHECK(scores.K == 8 * 16);
  for (const contracts::Operator& op : network.operators)
    if (op.name == "scores") {
      CHECK(contracts::is_matrix_product(op));
      CHECK(op.product.transpose_b);
      CHECK_FALSE(op.product.transpose_a);
      CHECK(network.tensors[op.inputs[0]].name == "k");
      CHECK(network.tensors[op.inputs[1]].name == "q");
    }
  CHECK(imported.skipped.empty());
  const contracts::Layer& context = layer_named(network, "context");
  CHECK(context.macs() == 8LL * 16 * 8 * 16);
  CHECK(!graph_violation(network));
}

TEST_CASE("ONNX import: LSTM, GRU and RNN unroll into per-step GEMM layers, also inside a constant If", "[importer]") {
  test::TempDir dir;
  const std::int64_t steps = 5, batch = 2, features = 6, hidden = 4;
  OnnxModelBuilder model("recurrent", 14);
  model.input("x", {-4, batch, features});
  model.weight("W", {1, 4 * hidden, features});
  model.weight("R", {1, 4 * hidden, hidden});
  model.weight("B", {1, 8 * hidden});
  // The LSTM sits in the then-branch of an If whose condition is a constant (a VAD model's pattern).
  onnx::GraphProto branch;
  branch.set_name("then");
  onnx::NodeProto* lstm = branch.add_node();
  lstm->set_op_type("LSTM");
  lstm->set_name("lstm");
  for (const char* input : {"x", "W", "R", "B"}) lstm->add_input(input);
  lstm->add_output("y");
  OnnxModelBuilder::set_int(*lstm, "hidden_size", hidden);
  onnx::ValueInfoProto* branch_output = branch.add_output();
  branch_output->set_name("y");
  branch_output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  onnx::GraphProto other = branch;
  other.set_name("else");
  other.mutable_node(0)->set_name("lstm_else");
  model.integers("yes", {}, {1});
  model.graph().mutable_initializer(3)->set_data_type(onnx::TensorProto_DataType_BOOL);
  model.graph().mutable_initializer(3)->clear_int64_data();
  model.graph().mutable_initializer(3)->add_int32_data(1);
  auto& branching = model.node("If", "vad", {"yes"}, "out");
  OnnxModelBuilder::set_graph(branching, "then_branch", branch);
  OnnxModelBuilder::set_graph(branching, "else_branch", other);
  model.output("out");
  // A bidirectional GRU beside it.
  model.input("z", {3, 1, features});
  model.weight("Wg", {2, 3 * hidden, features});
  model.weight("Rg", {2, 3 * hidden, hidden});
  auto& gru = model.node("GRU", "gru", {"z", "Wg", "Rg"}, "yg");
  OnnxModelBuilder::set_int(gru, "hidden_size", hidden);
  OnnxModelBuilder::set_string(gru, "direction", "bidirectional");
  model.output("yg");
  model.write(dir / "recurrent.onnx");
  SECTION("a dynamic sequence length needs --input-shape") {
    CHECK_THROWS_WITH(importer::import_onnx(dir / "recurrent.onnx"),
                      Catch::Contains("field 'node vad/lstm'") && Catch::Contains("the sequence length") &&
                          Catch::Contains("--input-shape"));
  }
  SECTION("unrolled") {
    importer::ModelInputShapes sizes;
    sizes.add("x=5,2,6");
    const importer::OnnxImport imported = importer::import_onnx(dir / "recurrent.onnx", sizes);
    const contracts::Network& network = imported.network;
    REQUIRE(network.layers.size() == std::size_t(steps * 2 + 3 * 2 * 2));
    std::int64_t lstm_macs = 0, gru_macs = 0;
    for (const contracts::Layer& layer : network.layers)
      (layer.name.rfind("vad/lstm", 0) == 0 ? lstm_macs : gru_macs) += layer.macs();
    CHECK(lstm_macs == steps * batch * 4 * hidden * (features + hidden));
    CHECK(gru_macs == 2 * 3 * 1 * 3 * hidden * (features + hidden));
    CHECK(network.layers[0].name == "vad/lstm.t0.input");
    CHECK(network.layers[1].name == "vad/lstm.t0.recurrent");
    CHECK(layer_named(network, "gru.backward.t2.input").C == features);
    CHECK(imported.weights.at("vad/lstm.t3.recurrent.weights").size() == std::size_t(4 * hidden * hidden));
    CHECK(!graph_violation(network));
  }
}

TEST_CASE("ONNX import: an NHWC model's input is its graph input, transposed by the unit", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("nhwc");
  model.input("image", {1, 8, 8, 3});
  auto& to_nchw = model.node("Transpose", "to_nchw", {"image"}, "nchw");
  OnnxModelBuilder::set_ints(to_nchw, "perm", {0, 3, 1, 2});
  model.weight("w", {4, 3, 3, 3});
  model.node("Conv", "conv", {"nchw", "w"}, "y");
  auto& to_nhwc = model.node("Transpose", "to_nhwc", {"y"}, "out");
  OnnxModelBuilder::set_ints(to_nhwc, "perm", {0, 2, 3, 1});
  model.output("out");
  model.write(dir / "nhwc.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "nhwc.onnx");
  const contracts::Network& network = imported.network;
  CHECK(layer_named(network, "conv").X == 8);
  CHECK(layer_named(network, "conv").C == 3);
  // The user's .npy has the ONNX input's name and shape (1, 8, 8, 3): the unit's transpose makes it NCHW.
  const std::vector<std::size_t> inputs = network.network_inputs();
  REQUIRE(inputs.size() == 1);
  CHECK(network.tensors[inputs[0]].name == "image");
  CHECK(network.tensors[inputs[0]].shape == std::vector<std::int64_t>{1, 8, 8, 3});
  CHECK(imported.skipped.empty());
  const contracts::Operator& front = network.operators.front();
  CHECK(front.name == "to_nchw");
  CHECK(front.kind == contracts::OperatorKind::Transpose);
  CHECK(front.perm == std::vector<std::int64_t>{0, 3, 1, 2});
  CHECK(network.tensors[front.outputs[0]].shape == std::vector<std::int64_t>{1, 3, 8, 8});
  const contracts::Operator& back = network.operators.back();
  CHECK(back.name == "to_nhwc");
  CHECK(back.kind == contracts::OperatorKind::Transpose);
  CHECK(back.perm == std::vector<std::int64_t>{0, 2, 3, 1});
  CHECK(network.tensors[back.outputs[0]].shape == std::vector<std::int64_t>{1, 6, 6, 4});  // 8 − 3 + 1 = 6, NHWC
}

namespace {

// How a loop's body computes the condition it continues on.
enum class LoopCondition {
  Carried,          // the body's condition input, passed on
  IterationBelow2,  // iteration < 2 (a body initializer)
  IterationBelow1,  // iteration < 1: the loop stops after 2 of its M = 3 iterations
  IterationBelowInput,  // iteration < a graph input: known only at run time
};

// A model with one Loop "steps" of trip count M = 3 (or a graph input, `dynamic_trip`) around a recurrent cell
// h ← tanh(h·W) on a carried (1, 8) state; its initial condition And(Less(1, 2), Less(1, 2)) of constants (as
// tf2onnx writes a while loop's), its body's condition as `condition` says.
void write_loop_model(const std::string& path, bool dynamic_trip, LoopCondition condition) {
  OnnxModelBuilder model("counted loop");
  model.input("h0", {1, 8});
  model.weight("W", {8, 8});
  if (dynamic_trip) {
    onnx::ValueInfoProto* n = model.graph().add_input();
    n->set_name("n");
    n->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
    n->mutable_type()->mutable_tensor_type()->mutable_shape();
  } else {
    model.integers("n", {}, {3});
  }
  model.integers("one", {}, {1});
  model.integers("two", {}, {2});
  model.node("Less", "below", {"one", "two"}, "below");
  model.node("And", "both", {"below", "below"}, "start");
  onnx::GraphProto body = test::loop_body({"i", "keep", "h"}, {"go_on", "h_next", "h_next"});
  test::body_node(body, "MatMul", "cell", {"h", "W"}, "hw");  // W from the enclosing graph
  test::body_node(body, "Tanh", "gate", {"hw"}, "h_next");
  if (condition == LoopCondition::Carried) {
    test::body_node(body, "Identity", "continue", {"keep"}, "go_on");
  } else if (condition == LoopCondition::IterationBelowInput) {
    onnx::ValueInfoProto* limit = model.graph().add_input();
    limit->set_name("limit");
    limit->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_INT64);
    limit->mutable_type()->mutable_tensor_type()->mutable_shape();
    test::body_node(body, "Less", "early_exit", {"i", "limit"}, "go_on");
  } else {
    onnx::TensorProto* limit = body.add_initializer();
    limit->set_name("limit");
    limit->set_data_type(onnx::TensorProto_DataType_INT64);
    limit->add_int64_data(condition == LoopCondition::IterationBelow2 ? 2 : 1);
    test::body_node(body, "Less", "early_exit", {"i", "limit"}, "go_on");
  }
  onnx::NodeProto& loop = model.node("Loop", "steps", {"n", "start", "h0"}, "h_final");
  loop.add_output("h_all");
  OnnxModelBuilder::set_graph(loop, "body", body);
  model.output("h_final");
  model.output("h_all");
  model.write(path);
}

}  // namespace

TEST_CASE("ONNX import: a Loop with a static trip count unrolls; a dynamic one around fabric work is refused",
          "[importer]") {
  test::TempDir dir;
  SECTION("a constant M and a condition of constants: one layer per iteration, the state carried, the scan output stacked") {
    write_loop_model(dir / "loop.onnx", false, LoopCondition::Carried);
    const importer::OnnxImport imported = importer::import_onnx(dir / "loop.onnx");
    const contracts::Network& network = imported.network;
    REQUIRE(network.layers.size() == 3);
    std::int64_t macs = 0;
    for (const contracts::Layer& layer : network.layers) macs += layer.macs();
    CHECK(macs == 3 * 1 * 8 * 8);  // three (1×8)·(8×8) products
    CHECK(network.layers[0].name == "steps/0/cell");
    CHECK(network.layers[2].name == "steps/2/cell");
    // The carried state's shape and the stacked scan output's (3, 1, 8) as ONNX infers them.
    CHECK(tensor_named(network, "h_all").shape == std::vector<std::int64_t>{3, 1, 8});
    CHECK(imported.weights.count("steps/1/cell.weights") == 1);
    CHECK(!graph_violation(network));
  }
  SECTION("M from the input's shape folds once --input-shape gives it; an LSTM in the body unrolls too") {
    OnnxModelBuilder model("chunked vad");
    model.input("frames", {-4, 5});
    model.input("chunk", {2, 1, 6});
    model.weight("Wl", {1, 16, 6});
    model.weight("Rl", {1, 16, 4});
    model.integers("zero", {}, {0});
    model.node("Shape", "shape", {"frames"}, "frames_shape");
    model.node("Gather", "count", {"frames_shape", "zero"}, "n");
    onnx::GraphProto body = test::loop_body({"i", "keep"}, {"go_on", "y"});
    onnx::NodeProto& go_on = test::body_node(body, "Constant", "true", {}, "go_on");
    onnx::TensorProto yes;
    yes.set_data_type(onnx::TensorProto_DataType_BOOL);
    yes.add_int32_data(1);
    OnnxModelBuilder::set_tensor(go_on, "value", yes);
    onnx::NodeProto& lstm = test::body_node(body, "LSTM", "lstm", {"chunk", "Wl", "Rl"}, "y");
    OnnxModelBuilder::set_int(lstm, "hidden_size", 4);
    onnx::NodeProto& loop = model.node("Loop", "chunks", {"n", ""}, "ys");
    OnnxModelBuilder::set_graph(loop, "body", body);
    model.output("ys");
    model.write(dir / "chunks.onnx");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "chunks.onnx"),
                      Catch::Contains("field 'node chunks'") && Catch::Contains("input 0 'M'") &&
                          Catch::Contains("computed at run time") && Catch::Contains("--input-shape"));
    importer::ModelInputShapes sizes;
    sizes.add("frames=3,5");
    const importer::OnnxImport imported = importer::import_onnx(dir / "chunks.onnx", sizes);
    REQUIRE(imported.network.layers.size() == 3 * 2 * 2);  // 3 iterations × 2 time steps × (input, recurrent)
    std::int64_t macs = 0;
    for (const contracts::Layer& layer : imported.network.layers) macs += layer.macs();
    CHECK(macs == 3 * 2 * 1 * 4 * 4 * (6 + 4));  // per time step: (1×6)·(6×16) and (1×4)·(4×16)
    CHECK(imported.network.layers[4].name == "chunks/1/lstm.t0.input");
  }
  SECTION("a trip count computed at run time is an error naming the node and M") {
    write_loop_model(dir / "dynamic.onnx", true, LoopCondition::Carried);
    CHECK_THROWS_WITH(importer::import_onnx(dir / "dynamic.onnx"),
                      Catch::Contains("field 'node steps'") && Catch::Contains("input 0 'M', tensor 'n'") &&
                          Catch::Contains("dynamic trip count"));
  }
  SECTION("a condition the body computes from the iteration unrolls while it folds to true (tf2onnx's while loops)") {
    // ONNX Loop: the body's condition decides whether the next iteration runs. iteration < 2 is true after
    // iterations 0 and 1, so all M = 3 run (the condition after the last is not consulted).
    write_loop_model(dir / "counted.onnx", false, LoopCondition::IterationBelow2);
    const importer::OnnxImport imported = importer::import_onnx(dir / "counted.onnx");
    REQUIRE(imported.network.layers.size() == 3);
    CHECK(imported.network.layers[2].name == "steps/2/cell");
  }
  SECTION("a condition that stops the loop before M, or comes from a run-time value, is an error naming the loop") {
    write_loop_model(dir / "early_exit.onnx", false, LoopCondition::IterationBelow1);  // 1 < 1 after iteration 1
    CHECK_THROWS_WITH(importer::import_onnx(dir / "early_exit.onnx"),
                      Catch::Contains("field 'node steps'") && Catch::Contains("condition after iteration 1") &&
                          Catch::Contains("is false") && Catch::Contains("stops before its trip count M"));
    write_loop_model(dir / "run_time.onnx", false, LoopCondition::IterationBelowInput);
    CHECK_THROWS_WITH(importer::import_onnx(dir / "run_time.onnx"),
                      Catch::Contains("field 'node steps'") && Catch::Contains("condition after iteration 0") &&
                          Catch::Contains("computed from run-time values"));
  }
}

TEST_CASE("ONNX import: Mul/Add after a Gemm or MatMul fold; a batched constant B and Einsum's constant give weights",
          "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("products");
  // Gemm (1×3)·(3×4), then × s and + t per output column: weights (4, 3) = Bᵀ scaled per row, bias t.
  model.input("x", {1, 3});
  model.weight("w", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  model.weight("s", {4}, {1, 2, 3, 4});
  model.weight("t", {1, 4}, {0.5f, -0.5f, 1, 2});
  model.node("Gemm", "fc", {"x", "w"}, "y");
  model.node("Mul", "scale", {"y", "s"}, "ys");
  model.node("Add", "shift", {"t", "ys"}, "yt");
  model.output("yt");
  // MatMul of a per-head constant B (2 heads of 3×4) by A (2, 5, 3): one layer per head.
  model.input("a", {2, 5, 3});
  std::vector<float> per_head(24);
  for (std::size_t i = 0; i < per_head.size(); ++i) per_head[i] = float(i);
  model.weight("heads", {2, 3, 4}, per_head);
  model.node("MatMul", "project", {"a", "heads"}, "p");
  model.output("p");
  // Einsum with a constant second operand: 'bij,jk->bik', K = j (3), N = k (2).
  model.input("e", {4, 5, 3});
  model.weight("we", {3, 2}, {1, 2, 3, 4, 5, 6});
  auto& einsum = model.node("Einsum", "mix", {"e", "we"}, "m");
  OnnxModelBuilder::set_string(einsum, "equation", "bij,jk->bik");
  model.output("m");
  model.write(dir / "products.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "products.onnx");
  const contracts::Network& network = imported.network;
  CHECK(!graph_violation(network));
  const std::vector<double>& fc = imported.weights.at("fc.weights");
  REQUIRE(fc.size() == 12);
  for (int column = 0; column < 4; ++column)
    for (int row = 0; row < 3; ++row) CHECK(fc[std::size_t(column * 3 + row)] == (row * 4 + column + 1) * (column + 1.0));
  CHECK(imported.weights.at("fc.bias") == std::vector<double>{0.5, -0.5, 1, 2});
  CHECK(tensor_named(network, "yt").shape == std::vector<std::int64_t>{1, 4});  // the layer writes the Add's output
  CHECK(std::count_if(imported.notes.begin(), imported.notes.end(), [](const std::string& note) {
          return note == "folded Mul scale into fc" || note == "folded Add shift into fc";
        }) == 2);
  const contracts::Layer& head1 = layer_named(network, "project.slice1");
  CHECK(head1.macs() == 5 * 3 * 4);
  CHECK(layer_named(network, "project.slice0").macs() + head1.macs() == 2 * 5 * 3 * 4);
  const std::vector<double>& head1_weights = imported.weights.at("project.slice1.weights");
  REQUIRE(head1_weights.size() == 12);
  for (int column = 0; column < 4; ++column)
    for (int row = 0; row < 3; ++row) CHECK(head1_weights[std::size_t(column * 3 + row)] == 12 + row * 4 + column);
  CHECK(layer_named(network, "mix").macs() == 4 * 5 * 3 * 2);
  CHECK(imported.weights.at("mix.weights") == std::vector<double>{1, 3, 5, 2, 4, 6});
}

TEST_CASE("ONNX import: 1-D pooling runs as 2-D pooling with Y = 1 between reshapes", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("audio");
  model.input("audio", {1, 2, 40});
  model.weight("w1", {4, 2, 3});
  auto& conv1 = model.node("Conv", "conv1", {"audio", "w1"}, "c1");
  OnnxModelBuilder::set_ints(conv1, "pads", {1, 1});  // 40 → 40
  model.node("Relu", "relu1", {"c1"}, "r1");
  auto& pool = model.node("MaxPool", "pool1", {"r1"}, "p1");
  OnnxModelBuilder::set_ints(pool, "kernel_shape", {3});
  OnnxModelBuilder::set_ints(pool, "strides", {2});
  OnnxModelBuilder::set_ints(pool, "pads", {1, 1});  // (40 + 2 − 3)/2 + 1 = 20
  model.weight("w2", {6, 4, 5});
  model.node("Conv", "conv2", {"p1", "w2"}, "c2");    // 20 − 5 + 1 = 16
  auto& average = model.node("AveragePool", "pool2", {"c2"}, "p2");
  OnnxModelBuilder::set_ints(average, "kernel_shape", {4});
  OnnxModelBuilder::set_ints(average, "strides", {4});  // 16 / 4 = 4
  model.node("GlobalMaxPool", "pool3", {"p2"}, "p3");   // 4 → 1
  model.output("p3");
  model.write(dir / "audio.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "audio.onnx");
  const contracts::Network& network = imported.network;
  CHECK(imported.skipped.empty());
  const auto op_named = [&](const std::string& name) -> const contracts::Operator& {
    for (const contracts::Operator& op : network.operators)
      if (op.name == name) return op;
    FAIL("no operator " << name);
    return network.operators.front();
  };
  const contracts::Operator& max1 = op_named("pool1");
  CHECK(max1.kind == contracts::OperatorKind::MaxPool);
  CHECK(max1.pool.size_x == 3);
  CHECK(max1.pool.size_y == 1);
  CHECK(max1.pool.stride_x == 2);
  CHECK(max1.pool.stride_y == 1);
  CHECK(max1.pool.padding_x == 1);
  CHECK(max1.pool.padding_y == 0);
  CHECK(network.tensors[max1.inputs[0]].shape == std::vector<std::int64_t>{1, 4, 40, 1});
  CHECK(network.tensors[max1.outputs[0]].shape == std::vector<std::int64_t>{1, 4, 20, 1});
  CHECK(tensor_named(network, "p1").shape == std::vector<std::int64_t>{1, 4, 20});
  CHECK(op_named("pool2").pool.size_x == 4);
  CHECK(op_named("pool3").pool.size_x == 4);  // the whole of L
  CHECK(op_named("pool3").pool.size_y == 1);
  CHECK(tensor_named(network, "p3").shape == std::vector<std::int64_t>{1, 6, 1});
  // conv2 reads pool1's output through the reshapes: one network input (audio), nothing cut.
  CHECK(network.network_inputs().size() == 1);
  CHECK(layer_named(network, "conv2").X == 20);
  CHECK(layer_named(network, "conv2").macs() == 6LL * 4 * 5 * 16);
}

TEST_CASE("ONNX import: a BatchNormalization or per-channel Mul/Add that does not fold is a channel affine",
          "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("bn after relu");
  model.input("x", {1, 2, 4, 4});
  model.weight("w1", {3, 2, 3, 3});
  auto& conv = model.node("Conv", "conv1", {"x", "w1"}, "c1");
  OnnxModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  model.node("Relu", "relu1", {"c1"}, "r1");
  // Conv → Relu → BN (rank 4, axis 1), ε = 0.01; channel 1's γ is negative.
  model.weight("g1", {3}, {2.0f, -0.5f, 1.0f});
  model.weight("b1", {3}, {0.25f, 1.0f, 0.0f});
  model.weight("m1", {3}, {0.5f, -2.0f, 0.0f});
  model.weight("v1", {3}, {3.99f, 0.24f, 0.99f});
  OnnxModelBuilder::set_float(model.node("BatchNormalization", "bn1", {"r1", "g1", "b1", "m1", "v1"}, "n1"),
                              "epsilon", 0.01f);
  model.weight("per_channel", {3, 1, 1}, {2.0f, 3.0f, 4.0f});
  model.node("Mul", "scale", {"per_channel", "n1"}, "s1");  // the constant first
  model.node("GlobalAveragePool", "gap", {"s1"}, "g");
  model.node("Flatten", "flatten", {"g"}, "f");
  model.weight("fc_w", {3, 4});
  model.node("Gemm", "fc", {"f", "fc_w"}, "h");
  model.node("Relu", "relu2", {"h"}, "h_act");
  // Gemm → Relu → BN1d (rank 2: the columns), default ε = 1e-5.
  model.weight("g2", {4}, {1.0f, 2.0f, 0.5f, 1.0f});
  model.weight("b2", {4}, {0.0f, -1.0f, 0.5f, 0.0f});
  model.weight("m2", {4}, {1.0f, 0.0f, -1.0f, 0.5f});
  model.weight("v2", {4}, {1.0f, 4.0f, 0.25f, 0.0f});
  model.node("BatchNormalization", "bn2", {"h_act", "g2", "b2", "m2", "v2"}, "n2");
  model.weight("offset", {4}, {0.5f, -0.5f, 1.0f, 0.0f});
  model.node("Add", "bias", {"n2", "offset"}, "y");
  model.output("y");
  model.write(dir / "bn.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "bn.onnx");
  const contracts::Network& network = imported.network;
  REQUIRE(!graph_violation(network));
  CHECK(imported.skipped.empty());
  CHECK(operator_kinds(network) == std::vector<std::string>{"fabric layer", "relu", "channel affine", "channel affine",
                                                            "global average pool", "reshape", "reshape",
                                                            "fabric layer", "reshape", "relu", "channel affine",
                                                            "channel affine"});
  REQUIRE(network.network_inputs().size() == 1);  // one chain from x to y
  CHECK(tensor_named(network, "bn1.scale").shape == std::vector<std::int64_t>{3});
  CHECK(tensor_named(network, "bn1.scale").constant);
  CHECK(tensor_named(network, "bn2.shift").shape == std::vector<std::int64_t>{4});
  CHECK(tensor_named(network, "n2").shape == std::vector<std::int64_t>{1, 4});
  // scale = γ/√(σ² + ε), shift = β − μ·scale, by hand: √4 = 2, √0.25 = 0.5, √1 = 1 (ε as the float attribute).
  const auto near = [](const std::vector<double>& got, const std::vector<double>& expected) {
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).epsilon(1e-6));
  };
  near(imported.weights.at("bn1.scale"), {1.0, -1.0, 1.0});
  near(imported.weights.at("bn1.shift"), {0.25 - 0.5, 1.0 - 2.0, 0.0});
  const double e = 1e-5, s0 = 1 / std::sqrt(1 + e), s1 = 2 / std::sqrt(4 + e), s2 = 0.5 / std::sqrt(0.25 + e),
               s3 = 1 / std::sqrt(e);
  near(imported.weights.at("bn2.scale"), {s0, s1, s2, s3});
  near(imported.weights.at("bn2.shift"), {0 - 1 * s0, -1 - 0 * s1, 0.5 + 1 * s2, 0 - 0.5 * s3});
  CHECK(imported.weights.at("scale.scale") == std::vector<double>{2, 3, 4});
  CHECK(imported.weights.at("scale.shift") == std::vector<double>{0, 0, 0});
  CHECK(imported.weights.at("bias.scale") == std::vector<double>{1, 1, 1, 1});
  CHECK(imported.weights.at("bias.shift") == std::vector<double>{0.5, -0.5, 1, 0});
  // The workload it writes loads back to the same graph.
  const maeri::test::TempFile written(importer::workload_yaml(network, "bn"));
  const contracts::Network again = contracts::load_workload(written.path());
  CHECK(operator_kinds(again) == operator_kinds(network));
  CHECK(tensor_named(again, "bn2.scale").shape == std::vector<std::int64_t>{4});
}

TEST_CASE("ONNX import: a BatchNormalization that cannot be a channel affine is skipped or named", "[importer]") {
  test::TempDir dir;
  // Parameters computed at run time (the variance is a graph input): skipped, the graph cut.
  OnnxModelBuilder model("runtime");
  model.input("x", {1, 2, 4, 4});
  model.input("v", {2});
  model.weight("w", {2, 2, 1, 1});
  model.node("Conv", "conv", {"x", "w"}, "c");
  model.node("Relu", "relu", {"c"}, "r");
  for (const char* name : {"g", "b", "m"}) model.weight(name, {2}, {1.0f, 1.0f});
  model.node("BatchNormalization", "bn", {"r", "g", "b", "m", "v"}, "n");
  model.output("n");
  model.write(dir / "runtime.onnx");
  const importer::OnnxImport runtime = importer::import_onnx(dir / "runtime.onnx");
  REQUIRE(runtime.skipped.size() == 1);
  CHECK(runtime.skipped[0].reason.find("parameters computed at run time") != std::string::npos);
  // A BatchNormalization of rank 3 (BatchNorm1d over a sequence) is not one.
  OnnxModelBuilder sequence("sequence");
  sequence.input("x", {1, 2, 5});
  sequence.weight("w", {2, 2, 1});
  sequence.node("Conv", "conv", {"x", "w"}, "c");
  sequence.node("Relu", "relu", {"c"}, "r");
  for (const char* name : {"g", "b", "m", "v"}) sequence.weight(name, {2}, {1.0f, 1.0f});
  sequence.node("BatchNormalization", "bn", {"r", "g", "b", "m", "v"}, "n");
  sequence.output("n");
  sequence.write(dir / "sequence.onnx");
  const importer::OnnxImport rank3 = importer::import_onnx(dir / "sequence.onnx");
  REQUIRE(rank3.skipped.size() == 1);
  CHECK(rank3.skipped[0].reason.find("other than rank 2 (N, C) or 4") != std::string::npos);
}

namespace {

const contracts::Operator& operator_named(const contracts::Network& network, const std::string& name) {
  for (const contracts::Operator& op : network.operators)
    if (op.name == name) return op;
  FAIL("no operator " << name);
  throw std::logic_error("unreachable");
}

const contracts::Tensor& input_of(const contracts::Network& network, const std::string& op) {
  return network.tensors[operator_named(network, op).inputs[0]];
}

}  // namespace

TEST_CASE("ONNX import: asymmetric conv pads become a Pad of the excess before a symmetric conv", "[importer]") {
  test::TempDir dir;
  SECTION("TensorFlow's SAME at stride 2") {
    // H = 15: ceil(15/2) = 8 outputs, total (8 − 1)·2 + 3 − 15 = 2 → pads 1 and 1 (the conv's padding_x).
    // W = 16: 8 outputs, total 14 + 3 − 16 = 1 → SAME_UPPER: 0 before, 1 after (a border y 0+1; padding_y 0).
    OnnxModelBuilder::write_one_conv(dir / "same.onnx", "same", {1, 3, 15, 16}, {4, 3, 3, 3}, [](onnx::NodeProto& conv) {
      OnnxModelBuilder::set_string(conv, "auto_pad", "SAME_UPPER");
      OnnxModelBuilder::set_ints(conv, "strides", {2, 2});
    });
    const contracts::Network network = importer::import_onnx(dir / "same.onnx").network;
    REQUIRE(!contracts::network_violation(network));
    const contracts::Layer& layer = layer_named(network, "same");
    CHECK(layer.padding_x == 1);
    CHECK(layer.padding_y == 0);
    CHECK(layer.X == 15);
    CHECK(layer.Y == 17);
    CHECK(layer.output_x() == 8);  // (15 + 2 − 3)/2 + 1
    CHECK(layer.output_y() == 8);  // (17 − 3)/2 + 1
    CHECK(layer.macs() == 8 * 8 * 4 * 3 * 3 * 3);  // ONNX's output size × K × C × R × S
    const contracts::Operator& pad = operator_named(network, "same.pad");
    CHECK(pad.kind == contracts::OperatorKind::Pad);
    CHECK(pad.pad.x_begin == 0);
    CHECK(pad.pad.x_end == 0);
    CHECK(pad.pad.y_begin == 0);
    CHECK(pad.pad.y_end == 1);
    CHECK(network.tensors[pad.inputs[0]].name == "x");
    CHECK(input_of(network, "same").shape == std::vector<std::int64_t>{1, 3, 15, 17});
    CHECK(input_of(network, "same").name == network.tensors[pad.outputs[0]].name);
  }
  SECTION("explicit pads [0, 0, 1, 1] of a 1-D and a 2-D conv") {
    OnnxModelBuilder::write_one_conv(dir / "pads.onnx", "conv", {1, 3, 8, 8}, {4, 3, 3, 3},
                                     [](onnx::NodeProto& conv) { OnnxModelBuilder::set_ints(conv, "pads", {0, 0, 1, 1}); });
    const contracts::Network network = importer::import_onnx(dir / "pads.onnx").network;
    REQUIRE(!contracts::network_violation(network));
    const contracts::Layer& layer = layer_named(network, "conv");
    CHECK(layer.X == 9);
    CHECK(layer.Y == 9);
    CHECK(layer.output_x() == 7);  // ONNX: (8 + 0 + 1 − 3) + 1
    CHECK(layer.macs() == 7 * 7 * 4 * 3 * 9);
    OnnxModelBuilder::write_one_conv(dir / "temporal.onnx", "temporal", {1, 3, 10}, {4, 3, 4},
                                     [](onnx::NodeProto& conv) { OnnxModelBuilder::set_ints(conv, "pads", {2, 1}); });
    const contracts::Network temporal = importer::import_onnx(dir / "temporal.onnx").network;
    REQUIRE(!contracts::network_violation(temporal));
    const contracts::Layer& line = layer_named(temporal, "temporal");
    CHECK(line.padding_x == 1);
    CHECK(line.X == 11);
    CHECK(line.output_x() == 10);  // ONNX: 10 + 2 + 1 − 4 + 1
    CHECK(operator_named(temporal, "temporal.pad").pad.x_begin == 1);
  }
}

TEST_CASE("ONNX import: a constant zero Pad on the spatial axes is a pad operator; other pads are skipped", "[importer]") {
  test::TempDir dir;
  const auto model_with = [&](const std::string& file, int opset, const std::function<void(OnnxModelBuilder&)>& pad) {
    OnnxModelBuilder model("padding", opset);
    model.input("x", {1, 2, 4, 4});
    pad(model);  // reads x, writes p
    model.weight("w", {2, 2, 1, 1});
    model.node("Conv", "conv", {"p", "w"}, "y");
    model.output("y");
    model.write(dir / file);
    return importer::import_onnx(dir / file);
  };
  SECTION("pads as an input (opset 13): [0, 0, 1, 2, 0, 0, 3, 0]") {
    const importer::OnnxImport imported = model_with("input.onnx", 13, [](OnnxModelBuilder& model) {
      model.integers("pads", {8}, {0, 0, 1, 2, 0, 0, 3, 0});
      model.node("Pad", "border", {"x", "pads"}, "p");
    });
    CHECK(imported.skipped.empty());
    const contracts::Operator& pad = operator_named(imported.network, "border");
    CHECK(pad.kind == contracts::OperatorKind::Pad);
    CHECK(pad.pad.x_begin == 1);
    CHECK(pad.pad.x_end == 3);
    CHECK(pad.pad.y_begin == 2);
    CHECK(pad.pad.y_end == 0);
    CHECK(input_of(imported.network, "conv").shape == std::vector<std::int64_t>{1, 2, 8, 6});
    CHECK(input_of(imported.network, "conv").name == "p");
  }
  SECTION("pads as an attribute (opset 10) and a zero value") {
    const importer::OnnxImport imported = model_with("attribute.onnx", 10, [](OnnxModelBuilder& model) {
      auto& pad = model.node("Pad", "border", {"x"}, "p");
      OnnxModelBuilder::set_ints(pad, "pads", {0, 0, 0, 1, 0, 0, 2, 0});
      OnnxModelBuilder::set_float(pad, "value", 0.0f);
    });
    CHECK(imported.skipped.empty());
    CHECK(input_of(imported.network, "conv").shape == std::vector<std::int64_t>{1, 2, 6, 5});
  }
  SECTION("reflect and edge: a gather per padded axis repeating the rows the border copies (ONNX's Pad)") {
    // X of 4 padded by 2 before and 1 after: reflect takes rows 2, 1, 0, 1, 2, 3, 2; edge 0, 0, 0, 1, 2, 3, 3.
    for (const auto& [mode, rows] : {std::pair{"reflect", std::vector<std::int64_t>{2, 1, 0, 1, 2, 3, 2}},
                                     std::pair{"edge", std::vector<std::int64_t>{0, 0, 0, 1, 2, 3, 3}}}) {
      INFO(mode);
      const importer::OnnxImport imported = model_with(std::string(mode) + ".onnx", 13, [&](OnnxModelBuilder& model) {
        model.integers("pads", {8}, {0, 0, 2, 0, 0, 0, 1, 0});
        OnnxModelBuilder::set_string(model.node("Pad", "border", {"x", "pads"}, "p"), "mode", mode);
      });
      CHECK(imported.skipped.empty());
      const contracts::Operator& gather = operator_named(imported.network, "border");
      CHECK(gather.kind == contracts::OperatorKind::Gather);
      CHECK(gather.axis == 2);
      CHECK(gather.indices == rows);
      CHECK(input_of(imported.network, "conv").shape == std::vector<std::int64_t>{1, 2, 7, 4});
    }
  }
  SECTION("wrap, a non-zero value, negative pads and the batch axis are skipped with the reason") {
    const std::pair<std::function<void(OnnxModelBuilder&)>, std::string> skipped[] = {
        {[](OnnxModelBuilder& model) {
           model.integers("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
           OnnxModelBuilder::set_string(model.node("Pad", "border", {"x", "pads"}, "p"), "mode", "wrap");
         },
         "pad: mode 'wrap'"},
        {[](OnnxModelBuilder& model) {
           model.integers("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
           model.weight("one", {}, {1.0f});
           model.node("Pad", "border", {"x", "pads", "one"}, "p");
         },
         "pad: the value 1"},
        {[](OnnxModelBuilder& model) {
           model.integers("pads", {8}, {0, 0, -1, 0, 0, 0, 1, 0});
           model.node("Pad", "border", {"x", "pads"}, "p");
         },
         "pad: negative pads"},
        {[](OnnxModelBuilder& model) {
           model.integers("pads", {8}, {1, 0, 0, 0, 0, 0, 0, 0});  // a second batch element
           model.node("Pad", "border", {"x", "pads"}, "p");
         },
         "on the batch or channel axis"},
    };
    for (const auto& [pad, reason] : skipped) {
      INFO(reason);
      const importer::OnnxImport imported = model_with("skipped.onnx", 13, pad);
      REQUIRE(imported.skipped.size() == 1);
      CHECK(imported.skipped[0].name == "border");
      CHECK(imported.skipped[0].reason.find(reason) != std::string::npos);
      CHECK(imported.skipped[0].reason.find("the graph is cut here") != std::string::npos);
    }
  }
}

TEST_CASE("ONNX import: ConvTranspose with output_padding or asymmetric pads extends its input on one side",
          "[importer]") {
  test::TempDir dir;
  SECTION("stride 2, pads 1, output_padding 1: the zero-inserted input grows by one row and column at the end") {
    OnnxModelBuilder model("up");
    model.input("x", {1, 2, 3, 3});
    model.weight("w", {2, 4, 3, 3});
    auto& up = model.node("ConvTranspose", "up", {"x", "w"}, "y");
    OnnxModelBuilder::set_ints(up, "strides", {2, 2});
    OnnxModelBuilder::set_ints(up, "pads", {1, 1, 1, 1});
    OnnxModelBuilder::set_ints(up, "output_padding", {1, 1});
    model.output("y");
    model.write(dir / "up.onnx");
    const contracts::Network network = importer::import_onnx(dir / "up.onnx").network;
    const contracts::Layer& layer = layer_named(network, "up");
    // ONNX: 2·(3 − 1) + 1 + (3 − 1) + 1 − 1 − 1 = 6. Zero-inserted 5, 2 − 1 = 1 zero before, 2 − 1 + 1 = 2 after.
    CHECK(layer.padding_x == 1);
    CHECK(layer.X == 6);
    CHECK(layer.Y == 6);
    CHECK(layer.output_x() == 6);
    CHECK(layer.output_y() == 6);
    CHECK(layer.macs() == 6 * 6 * 4 * 2 * 3 * 3);
    // The zero-inserted input comes from x through the unit (rows, then columns, of zeros; the last ones trimmed)
    // then up.pad's one zero after it (the layer's padding 1 gives the rest): up.pad reads the trimmed 5×5, writes 6×6.
    const contracts::Operator& trim = operator_named(network, "up.trim");
    CHECK(network.tensors[trim.outputs[0]].shape == std::vector<std::int64_t>{1, 2, 5, 5});
    const contracts::Operator& pad = operator_named(network, "up.pad");
    CHECK(pad.inputs[0] == trim.outputs[0]);
    CHECK(input_of(network, "up").name == "up.pad");
    CHECK(network.network_inputs().size() == 1);
  }
  SECTION("stride 1, pads [0, 0, 1, 1]: a Pad of one row and column before the input") {
    OnnxModelBuilder model("same");
    model.input("x", {1, 2, 4, 4});
    model.weight("w", {2, 3, 3, 3});
    auto& up = model.node("ConvTranspose", "up", {"x", "w"}, "y");
    OnnxModelBuilder::set_ints(up, "pads", {0, 0, 1, 1});
    model.output("y");
    model.write(dir / "same.onnx");
    const contracts::Network network = importer::import_onnx(dir / "same.onnx").network;
    REQUIRE(!contracts::network_violation(network));
    const contracts::Layer& layer = layer_named(network, "up");
    // ONNX: (4 − 1) + 3 − 0 − 1 = 5. 2 − 0 = 2 zeros before, 2 − 1 = 1 after: padding 1 and a border of 1 before.
    CHECK(layer.padding_x == 1);
    CHECK(layer.X == 5);
    CHECK(layer.output_x() == 5);
    const contracts::Operator& pad = operator_named(network, "up.pad");
    CHECK(pad.pad.x_begin == 1);
    CHECK(pad.pad.x_end == 0);
    CHECK(pad.pad.y_begin == 1);
    CHECK(network.tensors[pad.inputs[0]].name == "x");
  }
  SECTION("output_shape of an even total padding is the explicit pads it needs") {
    OnnxModelBuilder model("shaped");
    model.input("x", {1, 2, 3, 3});
    model.weight("w", {2, 4, 3, 3});
    auto& up = model.node("ConvTranspose", "up", {"x", "w"}, "y");
    OnnxModelBuilder::set_ints(up, "strides", {2, 2});
    OnnxModelBuilder::set_ints(up, "output_shape", {5, 5});  // total 2·2 + 3 − 5 = 2: pads 1 and 1
    model.output("y");
    model.write(dir / "shaped.onnx");
    // A copy: the import is a temporary (a reference into it dangled — ASan's heap-use-after-free).
    const contracts::Layer layer = layer_named(importer::import_onnx(dir / "shaped.onnx").network, "up");
    CHECK(layer.padding_x == 1);
    CHECK(layer.X == 5);
    CHECK(layer.output_x() == 5);
  }
}

TEST_CASE("ONNX import: SiLU, a squeeze-and-excitation block and HardSwish run beside the fabric", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("gates", 14);  // HardSwish is opset 14
  model.input("x", {1, 4, 6, 6});
  model.weight("w0", {8, 4, 3, 3});
  auto& conv0 = model.node("Conv", "conv0", {"x", "w0"}, "c0");
  OnnxModelBuilder::set_ints(conv0, "pads", {1, 1, 1, 1});
  model.node("Sigmoid", "silu.sigmoid", {"c0"}, "s0");  // SiLU: x · sigmoid(x)
  model.node("Mul", "silu.mul", {"c0", "s0"}, "a0");
  model.node("GlobalAveragePool", "se.squeeze", {"a0"}, "g");  // SE: GAP → 1×1 conv → Relu → 1×1 conv → Sigmoid
  model.weight("w_reduce", {2, 8, 1, 1});
  model.weight("b_reduce", {2});
  model.node("Conv", "se.reduce", {"g", "w_reduce", "b_reduce"}, "r");
  model.node("Relu", "se.relu", {"r"}, "rr");
  model.weight("w_expand", {8, 2, 1, 1});
  model.node("Conv", "se.expand", {"rr", "w_expand"}, "e");
  model.node("Sigmoid", "se.gate", {"e"}, "gate");
  model.node("Mul", "se.scale", {"gate", "a0"}, "se");  // the gate first: the mul reads it second
  model.node("HardSwish", "hswish", {"se"}, "hs");
  auto& hard = model.node("HardSigmoid", "hsig", {"hs"}, "h");
  OnnxModelBuilder::set_float(hard, "alpha", 0.25f);
  model.node("Tanh", "squash", {"h"}, "t");
  model.weight("three", {}, {3.0f});
  model.node("Mul", "scale_by_constant", {"t", "three"}, "t3");  // not after a layer: a channel affine (scale 3)
  model.output("t3");
  model.write(dir / "gates.onnx");
  const importer::OnnxImport imported = importer::import_onnx(dir / "gates.onnx");
  const contracts::Network& network = imported.network;
  REQUIRE(!graph_violation(network));
  CHECK(operator_kinds(network) == std::vector<std::string>{"fabric layer", "sigmoid", "mul", "global average pool",
                                                            "fabric layer", "relu", "fabric layer", "sigmoid", "mul",
                                                            "hard sigmoid", "mul", "hard sigmoid", "tanh",
                                                            "channel affine"});
  CHECK(imported.skipped.empty());
  std::vector<std::string> inputs;
  for (std::size_t t : network.network_inputs()) inputs.push_back(network.tensors[t].name);
  CHECK(inputs == std::vector<std::string>{"x"});  // nothing cut
  const auto names = [&](const contracts::Operator& op) {
    std::vector<std::string> read;
    for (std::size_t t : op.inputs) read.push_back(network.tensors[t].name);
    read.push_back(network.tensors[op.outputs[0]].name);
    return read;
  };
  CHECK(names(network.operators[2]) == std::vector<std::string>{"c0", "s0", "a0"});
  CHECK(names(network.operators[8]) == std::vector<std::string>{"a0", "gate", "se"});
  CHECK(tensor_named(network, "gate").shape == std::vector<std::int64_t>{1, 8, 1, 1});
  // HardSwish: a hard sigmoid (alpha 1/6, beta 1/2) named after the node, then NODE.mul of the input by it.
  CHECK(network.operators[9].name == "hswish");
  CHECK(network.operators[9].function.alpha == 1.0 / 6);
  CHECK(network.operators[9].function.beta == 0.5);
  CHECK(names(network.operators[10]) == std::vector<std::string>{"se", "hswish.gate", "hs"});
  CHECK(network.operators[10].name == "hswish.mul");
  CHECK(network.operators[11].function.alpha == double(0.25f));
  CHECK(network.operators[11].function.beta == 0.5);  // ONNX's default
}
