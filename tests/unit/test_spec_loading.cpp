// Loading the shipped specs and small hand-written ones: field values and derived sizes.
#include <catch2/catch.hpp>

#include <cmath>

#include "contracts/spec_loader.hpp"
#include "temp_file.hpp"

using namespace maeri::contracts;
using maeri::test::TempFile;

namespace {
std::string config(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + relative; }
}  // namespace

TEST_CASE("shipped hardware specs load with the values written in them", "[spec][hardware]") {
  const Hardware paper = load_hardware(config("hardware/maeri-512.yaml"));
  CHECK(paper.name == "maeri-512");
  CHECK(paper.num_ms == 512);  // mRNA paper's design point: 512 MS, bandwidth 512
  CHECK(paper.dn_bw == 512);
  CHECK(paper.rn_bw == 512);
  CHECK(paper.data_width == 16);
  CHECK(paper.acc_width == 32);
  CHECK(paper.sdm_bytes == 512 * 1024);
  CHECK(paper.energy_pj.multiply == 0.8);
  CHECK(paper.energy_pj.dram_byte == 160.0);

  const Hardware small = load_hardware(config("hardware/maeri-64.yaml"));
  CHECK(small.num_ms == 64);
  CHECK(small.dn_bw == 16);
  CHECK(load_hardware(config("hardware/maeri-256.yaml")).num_ms == 256);
}

TEST_CASE("mRNA Table II layers load with the paper's shapes", "[spec][workload]") {
  const Network table2 = load_workload(config("workloads/mrna-table2.yaml"));
  REQUIRE(table2.layers.size() == 6);
  const Layer& cb3a = table2.layers[0];
  CHECK(cb3a.name == "CB3a_2");
  CHECK(cb3a.output_x() == 28);
  // 128 filters x 128 channels x 3x3 x 28x28 outputs = 115,605,504 MACs (by hand).
  CHECK(cb3a.macs() == 115605504);
  const Layer& fc = table2.layers[3];
  CHECK(fc.type == LayerType::FullyConnected);
  CHECK(fc.R == 1);
  CHECK(fc.X == 1);
  CHECK(fc.output_x() == 1);
  CHECK(fc.macs() == 4096LL * 4096LL);
  // The Seq-CNN's FC2, W(2,2048): 2048 inputs onto 2 outputs = 4096 MACs.
  const Layer& fc2 = table2.layers[5];
  CHECK(fc2.name == "SeqCNN_FC2");
  CHECK(fc2.C == 2048);
  CHECK(fc2.K == 2);
  CHECK(fc2.macs() == 4096);
  CHECK(table2.layers[4].macs() == 138000LL * 32LL);
}

TEST_CASE("output size follows floor((X + 2P - R)/stride) + 1", "[spec][workload]") {
  TempFile file(R"(kind: workload
name: strided
batch: 2
layers:
  - {name: c, type: conv, K: 2, C: 3, R: 3, S: 5, X: 10, Y: 11, stride: 2, padding: 1}
)");
  const Network network = load_workload(file.path());
  const Layer& layer = network.layers.at(0);
  CHECK(layer.N == 2);
  CHECK(layer.output_x() == 5);  // (10 + 2 - 3)/2 + 1 = 4 + 1 (floor of 4.5)
  CHECK(layer.output_y() == 5);  // (11 + 2 - 5)/2 + 1 = 4 + 1
  CHECK(layer.macs() == 2LL * 2 * 3 * 3 * 5 * 5 * 5);
}

TEST_CASE("per-axis stride and padding, dilation, groups and GEMM layers load with their derived sizes",
          "[spec][workload]") {
  TempFile file(R"(kind: workload
name: kinds
batch: 2
layers:
  - {name: axes, type: conv, K: 4, C: 6, R: 3, S: 5, X: 11, Y: 12, stride: [2, 3], padding: [1, 2]}
  - {name: dilated, type: conv, K: 2, C: 2, R: 3, S: 3, X: 9, Y: 9, stride: 1, padding: 2, dilation: 2}
  - {name: grouped, type: conv, K: 8, C: 6, R: 3, S: 3, X: 5, Y: 5, stride: 1, padding: 1, groups: 2}
  - {name: depthwise, type: conv, K: 32, C: 32, R: 3, S: 3, X: 7, Y: 7, stride: 2, padding: 1, groups: 32}
  - {name: qkv, type: gemm, M: 128, K: 768, N: 2304}
  - {name: scores, type: gemm, M: 128, K: 64, N: 128, batch: 12}
)");
  const Network network = load_workload(file.path());
  const Layer& axes = network.layers.at(0);
  CHECK(axes.stride_x == 2);
  CHECK(axes.stride_y == 3);
  CHECK(axes.padding_x == 1);
  CHECK(axes.padding_y == 2);
  CHECK(axes.output_x() == 6);  // (11 + 2 - 3)/2 + 1
  CHECK(axes.output_y() == 4);  // (12 + 4 - 5)/3 + 1 = 3 + 1 (floor of 3.67)
  const Layer& dilated = network.layers.at(1);
  CHECK(dilated.filter_span_x() == 5);  // (3 - 1)·2 + 1
  CHECK(dilated.output_x() == 9);       // (9 + 4 - 5)/1 + 1: "same" padding for a dilated 3×3
  CHECK(dilated.macs() == 2LL * 2 * 2 * 3 * 3 * 9 * 9);
  const Layer& grouped = network.layers.at(2);
  CHECK(grouped.group_channels() == 3);
  CHECK(grouped.group_filters() == 4);
  CHECK(grouped.weight_elements() == 8 * 3 * 3 * 3);  // [K][C/groups][R][S]
  CHECK(grouped.macs() == 2LL * 8 * 3 * 3 * 3 * 5 * 5);
  const Layer& depthwise = network.layers.at(3);
  CHECK(depthwise.output_x() == 4);  // (7 + 2 - 3)/2 + 1
  CHECK(depthwise.macs() == 2LL * 32 * 1 * 3 * 3 * 4 * 4);
  const Layer& qkv = network.layers.at(4);  // 128×768 by 768×2304: the 1×1 conv K = 2304, C = 768, X = 128
  CHECK(qkv.type == LayerType::Gemm);
  CHECK(qkv.N == 2);
  CHECK(qkv.K == 2304);
  CHECK(qkv.C == 768);
  CHECK(qkv.X == 128);
  CHECK(qkv.Y == 1);
  CHECK(qkv.macs() == 2LL * 128 * 768 * 2304);
  const Layer& scores = network.layers.at(5);
  CHECK(scores.N == 24);  // the workload's batch 2 × the layer's 12
  CHECK(scores.macs() == 24LL * 128 * 64 * 128);
}

TEST_CASE("every shipped workload validates", "[spec][workload]") {
  for (const char* name : {"tiny", "mrna-table2", "vgg16", "alexnet", "resnet50", "googlenet", "mobilenetv2",
                           "bert-base-encoder-128", "bert-base-encoder-512", "gpt2-small-block", "gpt2-small-decode",
                           "vit-b16-block", "bert-encoder-h64", "gpt2-block-h64", "gpt2-decode-h64"}) {
    INFO(name);
    const Network network = load_workload(config(std::string("workloads/") + name + ".yaml"));
    CHECK(network.name == name);
    CHECK_FALSE(network.layers.empty());
  }
}

TEST_CASE("peek_spec_kind tells hardware from workload", "[spec]") {
  CHECK(peek_spec_kind(config("hardware/maeri-64.yaml")) == SpecKind::Hardware);
  CHECK(peek_spec_kind(config("workloads/tiny.yaml")) == SpecKind::Workload);
}

TEST_CASE("shipped networks' MAC counts equal the published ones", "[spec][workload]") {
  // V. Sze, Y.-H. Chen, T.-J. Yang and J. S. Emer, "Efficient Processing of Deep Neural Networks: A Tutorial and
  // Survey", Proc. IEEE 105(12), 2017, Table III: AlexNet 724 M MACs (with its two-tower grouping), VGG-16
  // 15.5 G. GoogLeNet: C. Szegedy et al., CVPR 2015, Table 1, the "ops" column summed: 1586 M (12 entries rounded
  // to 1 M). ResNet-50 with the stride on the 3×3 conv (v1.5, as shipped): torchvision's model table,
  // ResNet50_Weights.IMAGENET1K_V1, 4.09 GFLOPS (multiply-adds). M. Sandler et al., "MobileNetV2", CVPR 2018, Table 4: 300 M
  // multiply-adds at 224x224. Transformer blocks (H = 768, 4H = 3072; Devlin et al., NAACL 2019; Radford et al.,
  // 2019; Dosovitskiy et al., ICLR 2021) over t tokens attending to L keys: t·H·(12H + 2L) by hand (Q, K, V, output
  // 4·t·H²; scores and context 2·t·L·H; feed-forward 2·t·H·4H): BERT-base at s = 128 931 135 488, at 512
  // 4 026 531 840, GPT-2 small at 1024 8 858 370 048, one decode step against 1023 cached keys (L = 1024)
  // 8 650 752, ViT-B/16 at 197 tokens 1 453 954 560 — twelve such blocks and the 16×16 patch embedding
  // (196·768·768 = 115 605 504) give 17.56 G, the 17.6 GFLOPs (multiply-adds) of ViT-B in H. Touvron et al., "Training
  // data-efficient image transformers" (DeiT), ICML 2021, Table 1.
  struct Published {
    const char* name;
    double macs;
    double tolerance;  // relative: the published counts are rounded to their last printed digit
  };
  for (const Published& network : {Published{"alexnet", 724e6, 0.0007}, Published{"vgg16", 15.5e9, 0.004},
                                    Published{"googlenet", 1586e6, 0.003}, Published{"resnet50", 4.09e9, 0.0015},
                                    Published{"mobilenetv2", 300e6, 0.003},
                                    Published{"bert-base-encoder-128", 931135488, 0},
                                    Published{"bert-base-encoder-512", 4026531840, 0},
                                    Published{"gpt2-small-block", 8858370048, 0},
                                    Published{"gpt2-small-decode", 8650752, 0},
                                    Published{"vit-b16-block", 1453954560, 0}}) {
    INFO(network.name);
    const Network loaded = load_workload(config(std::string("workloads/") + network.name + ".yaml"));
    const double macs = static_cast<double>(loaded.total_macs());
    CHECK(std::abs(macs - network.macs) <= network.tolerance * network.macs);
  }
  // AlexNet exactly, layer by layer (K·(C/groups)·R·S·X'·Y'): the grouping halves conv2, conv4 and conv5.
  const Network alexnet = load_workload(config("workloads/alexnet.yaml"));
  CHECK(alexnet.layers.at(1).macs() == 256LL * 48 * 5 * 5 * 27 * 27);
  CHECK(alexnet.layers.at(3).macs() == 384LL * 192 * 3 * 3 * 13 * 13);
  CHECK(alexnet.layers.at(4).macs() == 256LL * 192 * 3 * 3 * 13 * 13);
  CHECK(alexnet.total_macs() == 724406816);
  CHECK(load_workload(config("workloads/mobilenetv2.yaml")).total_macs() == 300774272);
}
