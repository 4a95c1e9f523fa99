// Fused groups on the RTL through the chained run (testbench::run_network; docs/cosim.md, "Fused groups"): random
// small networks — chains of 2–3 convolutions (1×1 or 3×3) with ReLUs, and MobileNetV2's inverted residual (1×1
// expand → ReLU6 → depthwise 3×3 → ReLU6 → 1×1 project, added to the block's input) — with a random SDM and DRAM, a
// random legal fused group (mapper::group_violation) of consecutive layers with 1 or more stripes and weights pinned
// or not in a mapping file, each member's stripe pieces co-simulated in child processes with the memory plan of its
// role. Every tensor must be bit-exact against the network's integer reference, and every cross-check row of every
// member and of the group exact: DRAM bytes, SDM fills, reads and writes, DN/RN counts, configurations, cycles
// (compute and with DRAM) and energy. Seeded: MAERI_SEED reproduces a printed seed.
// Quick set (label rtl): 4 networks on each of 16, 32 and 64 MS. Long set (label long): 20 on each.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "codegen/exact_traffic.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/search/fused_search.hpp"
#include "mapper/search/network_fusion.hpp"
#include "mapper/search/search.hpp"
#include "flow/network_plan.hpp"
#include "testbench/network_run.hpp"
#include "testbench/shard_run.hpp"
#include "util/process_pool.hpp"

#include "child_processes.hpp"

using namespace maeri;

namespace {

std::uint64_t seed_for(std::uint64_t fallback) {
  const char* text = std::getenv("MAERI_SEED");
  return text ? std::strtoull(text, nullptr, 10) : fallback;
}

using test::ChildProcesses;  // tests/rtl/child_processes.hpp

struct Fabric {
  int num_ms, dn_bw, rn_bw, config_bw;  // a prebuilt variant (rtl/CMakeLists.txt)
};

std::string hardware_yaml(const Fabric& fabric, std::mt19937_64& rng) {
  const int sdm_kib[] = {2, 4, 16, 64};
  const double dram_rates[] = {4, 16, 64};
  const int latencies[] = {0, 20, 100};
  return fmt::format(
      "kind: hardware\nname: fused-{}\nnum_ms: {}\ndn_bw: {}\nrn_bw: {}\nconfig_bw: {}\ndata_width: 16\n"
      "acc_width: 32\nclock_mhz: 200\nsdm:\n  capacity_kib: {}\ndram:\n  bytes_per_cycle: {}\n  latency_cycles: {}\n"
      "post_processing:\n  lanes: {}\n  latency: 4\n"
      "energy_pj: {{multiply: 0.8, add: 0.1, dn_hop: 0.15, mn_hop: 0.05, rn_hop: 0.3, mn_forward: 0.05, sdm_read: 5.0, "
      "sdm_write: 5.0, dram_byte: 160.0, ppu_add: 0.1, ppu_multiply: 3.1, ppu_shift: 0.1, ppu_compare: 0.05, "
      "ppu_divide: 1.6, ppu_lookup: 2.5}}\n",
      fabric.num_ms, fabric.num_ms, fabric.dn_bw, fabric.rn_bw, fabric.config_bw, sdm_kib[rng() % 4],
      dram_rates[rng() % 3], latencies[rng() % 3], fabric.rn_bw);
}

std::string conv_yaml(const std::string& name, const std::string& input, std::int64_t K, std::int64_t C,
                      std::int64_t R, std::int64_t X, std::int64_t Y, std::int64_t groups = 1) {
  return fmt::format("  - {{name: {}, type: conv, input: {}, K: {}, C: {}, R: {}, S: {}, X: {}, Y: {}, stride: 1, "
                     "padding: {}, groups: {}, X_out: {}, Y_out: {}}}\n",
                     name, input, K, C, R, R, X, Y, (R - 1) / 2, groups, X, Y);
}

// A chain of 2–3 convolutions with ReLUs, or an inverted residual with its add.
std::string workload_yaml(bool inverted_residual, std::mt19937_64& rng) {
  const std::int64_t X = 4 + std::int64_t(rng() % 5), Y = 3 + std::int64_t(rng() % 4);
  std::int64_t C = 2 + std::int64_t(rng() % 3);
  std::string text = fmt::format("kind: workload\nname: fused\nbatch: 1\ninputs:\n  - {{name: x, shape: [1, {}, {}, {}]}}\n"
                                 "operators:\n", C, X, Y);
  if (inverted_residual) {
    const std::int64_t expanded = C * (2 + std::int64_t(rng() % 2));
    text += conv_yaml("expand", "x", expanded, C, 1, X, Y);
    text += "  - {name: expand_relu6, type: relu6, input: expand}\n";
    text += conv_yaml("depthwise", "expand_relu6", expanded, expanded, 3, X, Y, expanded);
    text += "  - {name: depthwise_relu6, type: relu6, input: depthwise}\n";
    text += conv_yaml("project", "depthwise_relu6", C, expanded, 1, X, Y);
    text += "  - {name: add, type: add, inputs: [project, x]}\n";
    return text;
  }
  const int layers = 2 + int(rng() % 2);
  std::string input = "x";
  for (int l = 0; l < layers; ++l) {
    const std::int64_t K = 2 + std::int64_t(rng() % 5);
    text += conv_yaml(fmt::format("conv{}", l), input, K, C, rng() % 2 ? 3 : 1, X, Y);
    text += fmt::format("  - {{name: relu{}, type: relu, input: conv{}}}\n", l, l);
    input = fmt::format("relu{}", l);
    C = K;
  }
  return text;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// A random legal group of two or more consecutive layers (stripes > 1 when `striped`, if the layers offer any), in a
// mapping file with every layer's best standalone mapping; nullopt when none was found.
std::optional<contracts::MappingFile> fused_mapping(const contracts::Network& network,
                                                    const contracts::Hardware& hardware, bool striped,
                                                    std::mt19937_64& rng) {
  contracts::MappingFile file = contracts::mapping_file_for(hardware, network.name, "runtime");
  std::vector<std::vector<contracts::FabricTile>> tiles;
  for (const contracts::Layer& layer : network.layers) {
    mapper::SearchOptions options =
        mapper::map_search_options(mapper::Objective::Runtime, 8, codegen::exact_traffic_for(layer, hardware));
    options.threads = 1;
    const mapper::SearchResult result = mapper::search(layer, hardware, options);
    file.layers.push_back({layer, result.best.front().mapping, 0, 0});
    tiles.push_back(mapper::fusion_fabric_tiles(result.best, 8));
  }
  const mapper::FusionGraph graph = mapper::fusion_graph(network);
  for (int attempt = 0; attempt < 60; ++attempt) {
    mapper::FusedGroup group;
    group.count = 2 + rng() % (network.layers.size() - 1);
    group.first = rng() % (network.layers.size() - group.count + 1);
    std::vector<std::int64_t> common = mapper::stripe_counts(network.layers[group.first], tiles[group.first]);
    for (std::size_t i = group.first + 1; i < group.first + group.count; ++i) {
      const auto mine = mapper::stripe_counts(network.layers[i], tiles[i]);
      std::vector<std::int64_t> both;
      std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(), std::back_inserter(both));
      common = both;
    }
    if (striped) common.erase(std::remove(common.begin(), common.end(), 1), common.end());
    else common = {1};
    if (common.empty()) continue;
    group.stripes = common[rng() % common.size()];
    bool empty = false;
    for (std::size_t i = 0; i < group.count && !empty; ++i) {
      const auto mappings =
          mapper::fused_member_mappings(network.layers[group.first + i], hardware, tiles[group.first + i], group.stripes);
      empty = mappings.empty();
      if (empty) break;
      group.mappings.push_back(mappings[rng() % mappings.size()]);
      group.weights_pinned.push_back(group.stripes > 1 && rng() % 2);
    }
    if (empty) continue;
    // Pins a member cannot take (weights in several blocks) are dropped rather than the whole group.
    const std::vector<bool> feeds = mapper::group_feeds(graph, group);
    for (std::size_t i = 0; i < group.count; ++i)
      if (group.weights_pinned[i] && mapper::member_violation(network.layers[group.first + i], group.mappings[i],
                                                              group.stripes, feeds[i], true))
        group.weights_pinned[i] = false;
    if (mapper::group_violation(network, graph, hardware, group)) continue;
    for (std::size_t i = 0; i < group.count; ++i) file.layers[group.first + i].mapping = group.mappings[i];
    file.fused_groups.push_back(mapper::mapping_file_entry(network, group));
    return file;
  }
  return std::nullopt;
}

void fused_regression(const Fabric& fabric, int cases, std::uint64_t default_seed) {
  const std::uint64_t seed = seed_for(default_seed);
  std::cout << "fused groups on " << fabric.num_ms << " MS: " << cases << " networks, seed " << seed
            << " (MAERI_SEED=" << seed << " reproduces it)\n";
  std::mt19937_64 rng(seed);
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / fmt::format("maeri-fused-{}-{}", ::getpid(), fabric.num_ms);
  std::filesystem::create_directories(directory);
  int striped_groups = 0, pinned_groups = 0, residuals = 0, ran = 0;
  for (int trial = 0; trial < cases; ++trial) {
    const bool inverted_residual = trial % 2 == 1, striped = trial % 4 != 0;
    testbench::NetworkRunOptions options;
    options.layers.hardware_path = (directory / "hardware.yaml").string();
    options.workload_path = (directory / "workload.yaml").string();
    const std::string mapping_path = (directory / "mapping.yaml").string();
    options.layers.seed = rng();
    options.layers.memory = testbench::MemoryRuns::Both;
    write_text(options.layers.hardware_path, hardware_yaml(fabric, rng));
    write_text(options.workload_path, workload_yaml(inverted_residual, rng));
    const contracts::Hardware hardware = contracts::load_hardware(options.layers.hardware_path);
    const contracts::Network network = importer::load_network(options.workload_path);
    const auto file = fused_mapping(network, hardware, striped, rng);
    if (!file) continue;
    contracts::write_mapping_file(mapping_path, *file);
    const contracts::FusedGroupEntry& entry = file->fused_groups.front();
    INFO("seed " << seed << " trial " << trial << ": " << std::ifstream(options.workload_path).rdbuf()
                 << "\nSDM " << hardware.sdm_bytes << " B, DRAM " << hardware.dram_bytes_per_cycle << " B/cycle, "
                 << hardware.dram_latency_cycles << " cycles\n"
                 << contracts::emit_mapping_file(*file));
    ChildProcesses runner;
    const testbench::PreparedNetwork prepared = testbench::prepare_network_run(network, hardware, {}, options, true);
    flow::PlanOptions plan_options;
    plan_options.workload_path = options.workload_path;
    plan_options.mapping_path = mapping_path;
    plan_options.fused_groups = true;
    const contracts::NetworkPlan plan = flow::plan_network(network, hardware, plan_options);
    const testbench::NetworkRunResult result =
        testbench::execute_network_run(prepared, plan, options, runner, [](const auto&, const auto&) {}, false);
    for (const testbench::OperatorRun& run : result.operators) {
      INFO(run.name << " [" << run.where << "] " << run.role << ": " << run.verdict);
      CHECK(run.pass);
      for (const testbench::CrossCheckRow& row : run.rows) {
        // Two processes and no shard count: the layers run whole, at once (testbench/layer_pipeline.cpp), so every
        // row is exact; a layer cut into filter shards would sum per-run cycles, which are not the model's.
        if (run.shards > 1 && !testbench::exact_after_merge(row.metric)) continue;
        INFO(row.metric << ": model " << row.model << ", co-simulation " << row.rtl);
        CHECK(row.error() == 0.0);
      }
    }
    REQUIRE(result.pass);
    REQUIRE(result.groups.size() == 1);
    for (const testbench::CrossCheckRow& row : result.groups.front().rows) {
      INFO("group " << entry.name << ", " << row.metric << ": model " << row.model << ", co-simulation " << row.rtl);
      CHECK(row.error() == 0.0);
    }
    ++ran;
    striped_groups += entry.stripes > 1;
    pinned_groups += !entry.pinned_weights.empty();
    residuals += inverted_residual;
  }
  std::filesystem::remove_all(directory);
  std::cout << "  " << ran << " fused networks ran (" << residuals << " inverted residuals), " << striped_groups
            << " groups with stripes > 1, " << pinned_groups << " with pinned weights\n";
  CHECK(ran >= cases / 2);
  CHECK(striped_groups > 0);
}

const Fabric kM16{16, 4, 4, 32}, kM32{32, 8, 8, 512}, kM64{64, 16, 16, 64};

}  // namespace

TEST_CASE("fused groups: random chains and inverted residuals on 16 MS", "[rtl][fused]") {
  fused_regression(kM16, 4, 1601);
}
TEST_CASE("fused groups: random chains and inverted residuals on 32 MS", "[rtl][fused]") {
  fused_regression(kM32, 4, 3201);
}
TEST_CASE("fused groups: random chains and inverted residuals on 64 MS", "[rtl][fused]") {
  fused_regression(kM64, 4, 6401);
}
TEST_CASE("long: fused groups: 20 random networks on each of 16 MS and 32 MS and 64 MS", "[long]") {
  fused_regression(kM16, 20, 1602);
  fused_regression(kM32, 20, 3202);
  fused_regression(kM64, 20, 6402);
}
