// Seed corpora for the fuzz harnesses: the shipped hardware and workload specs (copied), and what the shipped
// configs cannot provide: configuration images (binary and $readmemh), network manifests and mapping files built
// through the codegen and mapper APIs from the shipped specs, tensor files (testbench::tensor_text), .npy and .npz
// files (util/npy_file; .npz members that lie about their size, tests/unit/zip_lies.hpp), CSV tables and ONNX
// models (tests/unit/onnx_models.hpp).
// Usage: maeri_fuzz_seeds CONFIGS_DIR OUTPUT_DIR (writes OUTPUT_DIR/<harness>/...).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/config_image.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/network_manifest.hpp"
#include "contracts/mapping_file.hpp"
#include "flow/optimum_cache.hpp"
#include "mapper/search/search.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "onnx_models.hpp"
#include "util/npy_file.hpp"
#include "util/sha256.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/fused_images.hpp"
#include "testbench/stimulus.hpp"

namespace {

namespace fs = std::filesystem;
using namespace maeri;

void write(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

// The best runtime mapping of every layer, as `maeri map` (with `two_level`: `maeri map --two-level`, whose
// mappings carry SDM levels and give images of format 4) would choose it.
contracts::MappingFile best_mappings(const contracts::Hardware& hardware, const contracts::Network& network, bool two_level) {
  contracts::MappingFile file{hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, network.name, "runtime", {}, {}};
  for (const contracts::Layer& layer : network.layers) {
    mapper::SearchOptions options{mapper::Objective::Runtime, 1, 1};
    options.joint.enabled = two_level;
    const mapper::SearchResult found = mapper::search(layer, hardware, options);
    if (found.best.empty()) continue;
    file.layers.push_back({layer, found.best.front().mapping, found.best.front().cycles.total,
                           found.best.front().energy_pj.total});
  }
  return file;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: {} CONFIGS_DIR OUTPUT_DIR\n", argv[0]);
    return 1;
  }
  const fs::path configs(argv[1]);
  const fs::path output(argv[2]);
  int written = 0;
  for (const auto& [kind, harness] : {std::pair{"hardware", "hardware_spec"}, std::pair{"workloads", "workload_spec"}}) {
    fs::create_directories(output / harness);
    for (const auto& entry : fs::directory_iterator(configs / kind)) {
      fs::copy_file(entry.path(), output / harness / entry.path().filename(), fs::copy_options::overwrite_existing);
      ++written;
    }
  }
  for (const auto& [hardware_file, hardware_name, two_level] :
       {std::tuple{"maeri-64", "maeri-64", false}, std::tuple{"maeri-256", "maeri-256", false},
        std::tuple{"maeri-64", "maeri-64-two-level", true}}) {
    const contracts::Hardware hardware = contracts::load_hardware((configs / "hardware" / hardware_file).string() + ".yaml");
    const contracts::Network network = contracts::load_workload((configs / "workloads" / "tiny.yaml").string());
    const contracts::MappingFile mappings = best_mappings(hardware, network, two_level);
    write(output / "mapping_file" / fmt::format("{}.tiny.mapping.yaml", hardware_name),
          contracts::emit_mapping_file(mappings));
    ++written;
    codegen::NetworkManifest manifest;
    manifest.network = network.name;
    manifest.hardware = codegen::image_hardware_of(hardware);
    for (const contracts::LayerMapping& mapping : mappings.layers) {
      const codegen::ConfigImage image =
          codegen::build_image(codegen::plan_layer(mapping.layer, hardware, mapping.mapping), hardware);
      const std::vector<std::uint8_t> bytes = codegen::encode_image(image);
      const std::string stem = fmt::format("{}.{}", hardware_name, mapping.layer.name);
      manifest.layers.push_back({int(manifest.layers.size()) + 1, mapping.layer.name, stem + ".mimg",
                                 maeri::util::sha256_hex(std::string(bytes.begin(), bytes.end())),
                                 std::int64_t(bytes.size()), contracts::to_compact_string(mapping.mapping.tile),
                                 mapping.predicted_cycles});
      write(output / "config_image" / (stem + ".mimg"), std::string(bytes.begin(), bytes.end()));
      write(output / "config_image" / (stem + ".hex"), codegen::to_readmemh(bytes));
      written += 2;
      if (hardware.num_ms != 64 || two_level) continue;
      // Tensor harness inputs: data width byte (width - 2), count byte, then the file; at most 200 values.
      const codegen::LayerTensors tensors = codegen::random_tensors(mapping.layer, hardware.data_width, 1);
      for (const auto& [kind, all] : {std::pair{"weights", tensors.weights}, std::pair{"input", tensors.input}}) {
        const std::vector<std::int64_t> values(all.begin(), all.begin() + long(std::min<std::size_t>(all.size(), 200)));
        const std::string header{char(hardware.data_width - 2), char(values.size())};
        write(output / "tensor_file" / fmt::format("{}.{}.txt", stem, kind),
              header + testbench::tensor_text(values, fmt::format("{} {}", stem, kind)));
        ++written;
      }
    }
    if (hardware.num_ms == 64 && !two_level) {
      // .npy harness inputs: a mode byte (even: .npy, odd: .npz), then the file. The first layer's tensors as `maeri
      // verify --input/--weights` read them, a float array, and an archive of every layer's weights.
      const contracts::Layer& first = mappings.layers.front().layer;
      const codegen::LayerTensors tensors = codegen::random_tensors(first, hardware.data_width, 1);
      const util::NpyArray input = util::integer_array(util::smallest_signed_type(hardware.data_width),
                                                       {first.N, first.C, first.X, first.Y}, tensors.input);
      util::NpyArray reals;
      reals.type = util::NpyType::Float32;
      reals.shape = {2, 3};
      reals.reals = {0.5, -1.25, 3, 1e-3, -0.0, 7};
      std::vector<std::pair<std::string, std::string>> weights;
      for (const contracts::LayerMapping& mapping : mappings.layers) {
        const contracts::Layer& l = mapping.layer;
        weights.emplace_back(l.name + ".npy", util::npy_bytes(util::integer_array(
                                                  util::NpyType::Int16, {l.K, l.group_channels(), l.R, l.S},
                                                  codegen::random_tensors(l, hardware.data_width, 2).weights)));
      }
      for (const auto& [name, contents] :
           {std::pair{std::string("input.npy"), std::string(1, '\0') + util::npy_bytes(input)},
            std::pair{std::string("reals.npy"), std::string(1, '\0') + util::npy_bytes(reals)},
            std::pair{std::string("weights.npz"), std::string(1, '\1') + util::npz_archive_bytes(weights)}}) {
        write(output / "npy_file" / name, contents);
        ++written;
      }
      // .npz archive harness inputs (fuzz_npz_archive.cpp): a control byte, an expected shape's two dimensions, a
      // member. Honest members, stored and deflated, with and without the expected shape; a header declaring 2^27
      // values over 6 bytes of data; directory entries that declare 4 bytes more or fewer than the member has.
      const std::string small =
          util::npy_bytes(util::integer_array(util::NpyType::Int16, {2, 3}, {1, -2, 3, -4, 5, 6}));
      std::string declares_more = small;
      declares_more.replace(declares_more.find("(2, 3)"), 6, "(134217728,)");
      declares_more.erase(declares_more.find('\n') - 6, 6);  // the padding absorbs it: the header keeps its length
      const auto control = [](bool deflated, bool expect, int size_change) {
        return std::string{char((deflated ? 1 : 0) | (expect ? 2 : 0) | ((size_change + 32) << 2)), '\2', '\3'};
      };
      for (const auto& [name, contents] :
           {std::pair{std::string("stored"), control(false, false, 0) + small},
            std::pair{std::string("deflated-expected"), control(true, true, 0) + small},
            std::pair{std::string("reals-deflated"), control(true, false, 0) + util::npy_bytes(reals)},
            std::pair{std::string("header-declares-more"), control(true, true, 0) + declares_more},
            std::pair{std::string("directory-says-more"), control(true, false, 4) + small},
            std::pair{std::string("directory-says-less"), control(false, true, -4) + small}}) {
        write(output / "npz_archive" / name, contents);
        ++written;
      }
    }
    write(output / "network_manifest" / fmt::format("{}.tiny.manifest.json", hardware_name),
          codegen::manifest_json(manifest));
    ++written;
  }
  {
    // A fused group (format version 7 images, a manifest with fused_groups): the CLI tests' fused mapping of tiny,
    // which sits beside the configs in the source tree, with its roles from the workload's graph.
    const contracts::Hardware hardware = contracts::load_hardware((configs / "hardware" / "maeri-64.yaml").string());
    const contracts::Network network = contracts::load_workload((configs / "workloads" / "tiny.yaml").string());
    const std::string mapping_path = (configs / ".." / "tests" / "cli" / "tiny-fused-stripes.mapping.yaml").string();
    const contracts::MappingFile file = contracts::load_mapping_file(mapping_path);
    const flow::FusedImagePlan plan = flow::plan_fused_images(network, hardware, file, mapping_path);
    codegen::NetworkManifest manifest;
    manifest.network = network.name;
    manifest.hardware = codegen::image_hardware_of(hardware);
    manifest.fused_groups = plan.groups;
    for (const contracts::LayerMapping& mapping : file.layers) {
      const std::vector<std::uint8_t> bytes = codegen::encode_image(codegen::build_image(
          codegen::plan_layer(mapping.layer, hardware, mapping.mapping), hardware, plan.member(mapping.layer.name)));
      const std::string stem = fmt::format("maeri-64-fused.{}", mapping.layer.name);
      manifest.layers.push_back({int(manifest.layers.size()) + 1, mapping.layer.name, stem + ".mimg",
                                 maeri::util::sha256_hex(std::string(bytes.begin(), bytes.end())),
                                 std::int64_t(bytes.size()), contracts::to_compact_string(mapping.mapping.tile),
                                 mapping.predicted_cycles});
      if (!plan.member(mapping.layer.name)) continue;
      write(output / "config_image" / (stem + ".mimg"), std::string(bytes.begin(), bytes.end()));
      ++written;
    }
    write(output / "network_manifest" / "maeri-64-fused.tiny.manifest.json", codegen::manifest_json(manifest));
    ++written;
  }
  // CSV tables as the tool writes them (maeri plot reads any): quoted fields with commas and quotes, CRLF, a
  // blank line, an empty field.
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"sweep.csv", "point,label,num_ms,status,cycles\n1,\"num_ms=64 dn_bw=8\",64,ok,1889\n2,\"x\",128,invalid,\n"},
           {"fig7.csv", "layer,runtime_improvement_pct,energy_improvement_pct\r\nCB3a_2,34.90,16.22\r\n\r\nfc,0,-2.5\r\n"},
           {"quotes.csv", "a,b\n\"say \"\"hi\"\"\",\"1,2\"\n\"multi\nline\",3\n"}}) {
    write(output / "csv_table" / name, text);
    ++written;
  }
  // A surrogate model as `maeri surrogate train` writes it (small, so the seed stays a few KiB), and optimum caches
  // as `maeri explore` writes them: through the writers, so the seeds follow their formats.
  {
    const contracts::Hardware hardware = contracts::load_hardware((configs / "hardware" / "maeri-64.yaml").string());
    const contracts::Network network = contracts::load_workload((configs / "workloads" / "tiny.yaml").string());
    const mapper::SurrogateSamples samples =
        mapper::sample_surrogate_data(network.layers, {hardware}, mapper::Objective::EnergyDelay, true, 16, 1);
    mapper::SurrogateTraining training;
    training.hidden = 4;
    training.epochs = 2;
    fs::create_directories(output / "surrogate_model");
    mapper::SurrogateModel::train(samples, mapper::Objective::EnergyDelay, true, training)
        .save((output / "surrogate_model" / "tiny-edp.json").string());
    fs::create_directories(output / "optimum_cache");
    const fs::path cache_path = output / "optimum_cache" / "tiny.csv";
    fs::remove(cache_path);
    flow::OptimumCache cache(cache_path.string());
    const std::string digest = util::sha256_hex("hardware file contents");
    for (const contracts::Layer& layer : network.layers)
      for (const mapper::Objective objective : {mapper::Objective::Runtime, mapper::Objective::EnergyDelay})
        cache.add(flow::OptimumCache::key(hardware, digest, objective, true, layer), double(layer.macs()) / 7.0,
                  objective == mapper::Objective::Runtime);
    written += 2;
  }
  // ONNX models with the patterns the importer handles: a CNN with the operators beside the fabric, a folded
  // BatchNormalization and one that is not, the gates (SiLU, SE, HardSwish), a dynamic batch behind a Shape → Gather
  // → Concat → Reshape, attention and an LSTM, a Loop.
  {
    fs::create_directories(output / "onnx_model");
    test::OnnxModelBuilder cnn("cnn");
    cnn.input("x", {1, 3, 8, 8});
    cnn.weight("w", {4, 3, 3, 3});
    for (const char* parameter : {"gamma", "beta", "mean", "var"}) cnn.weight(parameter, {4}, {1, 2, 3, 4});
    auto& conv = cnn.node("Conv", "conv", {"x", "w"}, "c");
    test::OnnxModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
    cnn.node("BatchNormalization", "bn", {"c", "gamma", "beta", "mean", "var"}, "b");
    cnn.node("Relu", "relu", {"b"}, "r");
    cnn.node("BatchNormalization", "bn_after_relu", {"r", "gamma", "beta", "mean", "var"}, "rb");  // a channel affine
    auto& pool = cnn.node("MaxPool", "pool", {"rb"}, "p");
    test::OnnxModelBuilder::set_ints(pool, "kernel_shape", {2, 2});
    test::OnnxModelBuilder::set_ints(pool, "strides", {2, 2});
    cnn.node("Add", "residual", {"p", "p"}, "a");
    cnn.node("GlobalAveragePool", "gap", {"a"}, "g");
    cnn.node("Flatten", "flatten", {"g"}, "f");
    cnn.weight("fc", {4, 10});
    cnn.node("MatMul", "classifier", {"f", "fc"}, "logits");
    cnn.node("Softmax", "softmax", {"logits"}, "probabilities");
    cnn.output("probabilities");
    cnn.write((output / "onnx_model" / "cnn.onnx").string());
    test::OnnxModelBuilder gates("gates", 14);  // SiLU, a squeeze-and-excitation gate, HardSwish
    gates.input("x", {1, 4, 6, 6});
    gates.weight("w", {4, 4, 1, 1});
    gates.node("Conv", "conv", {"x", "w"}, "c");
    gates.node("Sigmoid", "sigmoid", {"c"}, "s");
    gates.node("Mul", "silu", {"c", "s"}, "a");
    gates.node("GlobalAveragePool", "squeeze", {"a"}, "g");
    gates.node("Conv", "excite", {"g", "w"}, "e");
    gates.node("HardSigmoid", "gate", {"e"}, "h");
    gates.node("Mul", "scale", {"h", "a"}, "m");
    gates.node("HardSwish", "hardswish", {"m"}, "y");
    gates.output("y");
    gates.write((output / "onnx_model" / "gates.onnx").string());
    test::OnnxModelBuilder folded("folded");
    folded.input("x", {-1, 16});
    folded.node("Shape", "shape", {"x"}, "s");
    folded.integers("zero", {1}, {0});
    folded.node("Gather", "gather", {"s", "zero"}, "n");
    folded.integers("rest", {2}, {4, 4});
    test::OnnxModelBuilder::set_int(folded.node("Concat", "concat", {"n", "rest"}, "target"), "axis", 0);
    folded.node("Reshape", "reshape", {"x", "target"}, "r");
    folded.weight("w", {4, 8});
    folded.node("MatMul", "fc", {"r", "w"}, "y");
    folded.output("y");
    folded.write((output / "onnx_model" / "folded.onnx").string());
    test::OnnxModelBuilder sequence("sequence", 14);
    sequence.input("q", {1, 2, 4, 8});
    sequence.input("k", {1, 2, 8, 4});
    sequence.node("MatMul", "scores", {"q", "k"}, "s");
    sequence.output("s");
    sequence.input("audio", {3, 1, 5});
    sequence.weight("W", {1, 8, 5});
    sequence.weight("R", {1, 8, 2});
    auto& lstm = sequence.node("LSTM", "lstm", {"audio", "W", "R"}, "h");
    test::OnnxModelBuilder::set_int(lstm, "hidden_size", 2);
    sequence.output("h");
    sequence.write((output / "onnx_model" / "sequence.onnx").string());
    // A Loop of a constant trip count around a MatMul cell (unrolled), a Gemm with a per-column Mul folded into it
    // and a MatMul by a per-head constant B (one layer per head).
    test::OnnxModelBuilder loop("loop");
    loop.input("h0", {1, 4});
    loop.weight("W", {4, 4});
    loop.integers("trip", {}, {2});
    onnx::GraphProto body;
    body.set_name("body");
    for (const char* name : {"i", "keep", "h"}) body.add_input()->set_name(name);
    for (const char* name : {"keep", "h_next", "h_next"}) body.add_output()->set_name(name);
    onnx::NodeProto* cell = body.add_node();
    cell->set_op_type("MatMul");
    cell->set_name("cell");
    cell->add_input("h");
    cell->add_input("W");
    cell->add_output("h_next");
    auto& counted = loop.node("Loop", "steps", {"trip", "", "h0"}, "h_final");
    counted.add_output("h_all");
    test::OnnxModelBuilder::set_graph(counted, "body", body);
    loop.output("h_final");
    loop.output("h_all");
    loop.weight("scale", {4}, {1, 2, 3, 4});
    loop.node("Gemm", "fc", {"h0", "W"}, "y");
    loop.node("Mul", "per_column", {"y", "scale"}, "scaled");
    loop.output("scaled");
    loop.input("a", {2, 3, 4});
    loop.weight("heads", {2, 4, 2});
    loop.node("MatMul", "project", {"a", "heads"}, "p");
    loop.output("p");
    loop.write((output / "onnx_model" / "loop.onnx").string());
    written += 4;
  }
  {
    // Graph-extent harness inputs (fuzz_graph_extents.cpp): bytes ≥ 0x80 pick an edge of the limits (0x8A = 2^24,
    // 0x8D = 2^40), others a small extent (byte & 0x0F) + 1 (paddings and pads one less); each operator is a kind
    // byte (0 conv, 1 pad) and its fields. A valid 3×3 conv; the issue's 1×1 conv of 2^24 → 2^24 channels; a pad of
    // (1, 1, 1, 1) to 2^24 × 2^24 before a 1×1 conv; a pad of 2^40 − 1.
    fs::create_directories(output / "graph_extents");
    for (const auto& [name, contents] :
         {std::pair{std::string("small-conv"), std::string("\x00\x02\x07\x07" "\x00\x03\x02\x02\x02\x07\x07\x00\x01\x00\x00", 15)},
          std::pair{std::string("wide-conv"), std::string("\x00\x8A\x00\x00" "\x00\x8A\x8A\x00\x00\x00\x00\x00\x00\x00\x00", 15)},
          std::pair{std::string("pad-to-limit"),
                    std::string("\x00\x00\x00\x00" "\x01\x00\x00\x8A\x8A" "\x00\x00\x00\x00\x00\x8A\x8A\x00\x00\x00\x00", 20)},
          std::pair{std::string("pad-2-40"), std::string("\x00\x00\x00\x00" "\x01\x8D\x00\x00\x00", 9)}}) {
      write(output / "graph_extents" / name, contents);
      ++written;
    }
  }
  fmt::print("wrote {} seed files under {}\n", written, output.string());
  return 0;
}
