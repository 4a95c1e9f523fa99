// `maeri import`: ONNX models built here with the ONNX C++ API, imported, and every layer's shape checked against
// values computed by hand from the ONNX operator definitions (Conv, Gemm, MatMul at opset 13); skipped nodes
// carry their reason; bad models are errors that name the node.
#include <catch2/catch.hpp>

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

  const contracts::Layer& fc = layer_named(network, "fc");  // M = 2 (the batch), K = 16, N = 10
  CHECK(fc.type == contracts::LayerType::Gemm);
  CHECK(fc.X == 2);
  CHECK(fc.C == 16);
  CHECK(fc.K == 10);
  CHECK(fc.macs() == 2 * 16 * 10);

  const contracts::Layer& scores = layer_named(network, "scores");
  CHECK(scores.N == 24);
  CHECK(scores.X == 128);
  CHECK(scores.C == 64);
  CHECK(scores.K == 128);

  const contracts::Layer& ffn = layer_named(network, "ffn");
  CHECK(ffn.N == 1);
  CHECK(ffn.X == 128);
  CHECK(ffn.C == 768);
  CHECK(ffn.K == 3072);

  // Every other node is reported with its reason.
  REQUIRE(imported.skipped.size() == 4);
  CHECK(imported.skipped[0].name == "relu1");
  CHECK(imported.skipped[0].reason.find("activation") == 0);
  CHECK(imported.skipped[1].op_type == "MaxPool");
  CHECK(imported.skipped[1].reason.find("pooling") == 0);
  CHECK(imported.skipped[2].reason.find("data layout") == 0);
  CHECK(imported.skipped[3].name == "residual");
  CHECK(imported.skipped[3].reason.find("element-wise") == 0);
}

TEST_CASE("ONNX import: the workload YAML it writes loads back to the same layers", "[importer]") {
  test::TempDir dir;
  OnnxModelBuilder model("round trip");
  build_network(model);
  model.write(dir / "model.onnx");
  const contracts::Network imported = importer::load_network(dir / "model.onnx");
  // Conv layers have batch 2 (the workload's); the GEMMs' batches 1 and 24 are not multiples of it.
  CHECK_THROWS_WITH(importer::workload_yaml(imported, "header"),
                    Catch::Contains("GEMM batch 1 is not a multiple of the workload's batch 2"));
  contracts::Network convolutions = imported, products = imported;
  convolutions.layers.resize(3);  // conv1, depthwise, pointwise: batch 2
  products.layers.erase(products.layers.begin(), products.layers.begin() + 3);  // fc, scores, ffn: batches 1, 24, 1
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
  SECTION("asymmetric pads") {
    OnnxModelBuilder::write_one_conv(dir / "asymmetric.onnx", "conv_same", {1, 3, 8, 8}, {4, 3, 3, 3},
                                     [](onnx::NodeProto& conv) { OnnxModelBuilder::set_ints(conv, "pads", {0, 0, 1, 1}); });
    CHECK_THROWS_WITH(importer::import_onnx(dir / "asymmetric.onnx"),
                      Catch::Contains("field 'node conv_same'") && Catch::Contains("asymmetric pads [0, 0, 1, 1]"));
  }
  SECTION("SAME padding of an even kernel is asymmetric too") {
    OnnxModelBuilder::write_one_conv(dir / "same.onnx", "even", {1, 3, 8, 8}, {4, 3, 2, 2}, [](onnx::NodeProto& conv) {
      OnnxModelBuilder::set_string(conv, "auto_pad", "SAME_UPPER");
    });
    CHECK_THROWS_WITH(importer::import_onnx(dir / "same.onnx"),
                      Catch::Contains("field 'node even'") && Catch::Contains("from auto_pad SAME_UPPER"));
  }
  SECTION("a 1-D convolution") {
    OnnxModelBuilder::write_one_conv(dir / "conv1d.onnx", "temporal", {1, 3, 16}, {4, 3, 3});
    CHECK_THROWS_WITH(importer::import_onnx(dir / "conv1d.onnx"),
                      Catch::Contains("field 'node temporal'") && Catch::Contains("only 2-D convolutions"));
  }
  SECTION("no layer at all") {
    OnnxModelBuilder model("pool only");
    model.input("x", {1, 3, 8, 8});
    model.node("Relu", "relu", {"x"}, "y");
    model.output("y");
    model.write(dir / "pool.onnx");
    CHECK_THROWS_WITH(importer::import_onnx(dir / "pool.onnx"), Catch::Contains("no Conv, Gemm or MatMul node"));
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
