// Loading the shipped specs and small hand-written ones: field values and derived sizes.
#include <catch2/catch.hpp>

#include "spec/spec_loader.hpp"
#include "temp_file.hpp"

using namespace maeri::spec;
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

TEST_CASE("every shipped workload validates", "[spec][workload]") {
  for (const char* name : {"tiny", "mrna-table2", "vgg16", "alexnet", "resnet50", "googlenet"}) {
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
