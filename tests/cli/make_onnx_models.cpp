// Writes the ONNX models of the `maeri import` CLI tests into a folder, built with the ONNX C++ API
// (tests/unit/onnx_models.hpp): small.onnx (a grouped conv, a depthwise conv, ReLU, max pool, flatten and a Gemm
// classifier, batch 1), dynamic.onnx (a symbolic batch), asymmetric.onnx (pads [0, 0, 1, 1]) and not-onnx.onnx
// (YAML text).
// Usage: maeri_make_onnx_models FOLDER
#include <fstream>
#include <iostream>
#include <string>

#include "onnx_models.hpp"

using maeri::test::OnnxModelBuilder;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: maeri_make_onnx_models FOLDER\n";
    return 1;
  }
  const std::string folder = argv[1];
  {
    OnnxModelBuilder model("small_cnn");
    model.input("image", {1, 4, 10, 10});
    model.weight("w1", {8, 2, 3, 3});  // 2 groups of 2 channels and 4 filters: 10×10 → 10×10 with pads 1
    auto& conv1 = model.node("Conv", "conv1", {"image", "w1"}, "c1");
    OnnxModelBuilder::set_int(conv1, "group", 2);
    OnnxModelBuilder::set_ints(conv1, "pads", {1, 1, 1, 1});
    model.node("Relu", "relu1", {"c1"}, "r1");
    model.weight("w2", {8, 1, 3, 3});  // depthwise, stride 2, dilation 2, pads 2: (10 + 4 − 5)/2 + 1 = 5
    auto& conv2 = model.node("Conv", "depthwise", {"r1", "w2"}, "c2");
    OnnxModelBuilder::set_int(conv2, "group", 8);
    OnnxModelBuilder::set_ints(conv2, "strides", {2, 2});
    OnnxModelBuilder::set_ints(conv2, "dilations", {2, 2});
    OnnxModelBuilder::set_ints(conv2, "pads", {2, 2, 2, 2});
    auto& pool = model.node("MaxPool", "pool", {"c2"}, "p");
    OnnxModelBuilder::set_ints(pool, "kernel_shape", {5, 5});
    model.node("Flatten", "flatten", {"p"}, "f");
    model.weight("fc_w", {8, 6});
    model.node("Gemm", "classifier", {"f", "fc_w"}, "logits");
    model.output("logits");
    model.write(folder + "/small.onnx");
  }
  OnnxModelBuilder::write_one_conv(folder + "/dynamic.onnx", "conv", {-1, 3, 8, 8}, {4, 3, 3, 3});
  OnnxModelBuilder::write_one_conv(folder + "/asymmetric.onnx", "conv_same", {1, 3, 8, 8}, {4, 3, 3, 3},
                                   [](onnx::NodeProto& conv) { OnnxModelBuilder::set_ints(conv, "pads", {0, 0, 1, 1}); });
  std::ofstream(folder + "/not-onnx.onnx") << "kind: workload\nname: w\n";
  return 0;
}
