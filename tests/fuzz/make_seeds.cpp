// Seed corpora for the fuzz harnesses: the shipped hardware and workload specs (copied), and what the shipped
// configs cannot provide: configuration images (binary and $readmemh), network manifests and mapping files built
// through the codegen and mapper APIs from the shipped specs, tensor files (testbench::tensor_text) and CSV tables.
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
#include "mapper/search/optimum_cache.hpp"
#include "mapper/search/search.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "util/sha256.hpp"
#include "contracts/spec_loader.hpp"
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
    write(output / "network_manifest" / fmt::format("{}.tiny.manifest.json", hardware_name),
          codegen::manifest_json(manifest));
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
    mapper::OptimumCache cache(cache_path.string());
    const std::string digest = util::sha256_hex("hardware file contents");
    for (const contracts::Layer& layer : network.layers)
      for (const mapper::Objective objective : {mapper::Objective::Runtime, mapper::Objective::EnergyDelay})
        cache.add(mapper::OptimumCache::key(hardware, digest, objective, true, layer), double(layer.macs()) / 7.0,
                  objective == mapper::Objective::Runtime);
    written += 2;
  }
  fmt::print("wrote {} seed files under {}\n", written, output.string());
  return 0;
}
