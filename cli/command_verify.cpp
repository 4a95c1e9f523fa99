// `maeri verify` (map → image → co-simulation on the Verilated fabric → bit-exact check and model-vs-RTL
// cross-check, per layer and mapping) and `maeri run` (the same on the default example: every layer of the
// `tiny` network on maeri-64, best mapping each).
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/layer_selection.hpp"
#include "cli/shipped_configs.hpp"
#include "spec/atomic_file.hpp"
#include "spec/mapping_file.hpp"
#include "mapper/search.hpp"
#include "spec/spec_loader.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/stimulus.hpp"

namespace maeri::cli {
namespace {

struct VerifyOptions {
  std::string hardware;
  std::string workload;
  std::string layer;
  std::string mapping;
  int top = 1;
  std::uint64_t seed = 1;
  std::string json;
  std::string csv;
  std::string trace;
  std::string memory = "both";  // ideal | dram | both
};

std::vector<spec::Tile> tiles_for(const spec::Layer& layer, const spec::Hardware& hardware,
                                    const VerifyOptions& options, const spec::MappingFile* mapping) {
  if (mapping) return {spec::tile_for_layer(*mapping, options.mapping, layer, hardware)};
  if (const auto reason = mapper::unmappable_reason(layer, hardware))
    throw spec::SpecError({options.workload, 0, 0}, "layers." + layer.name, *reason);
  std::vector<spec::Tile> tiles;
  for (const auto& report : mapper::search(layer, hardware, {mapper::Objective::Runtime, options.top, 0}).best)
    tiles.push_back(report.tile);
  return tiles;
}

int run_verify(const VerifyOptions& options) {
  const spec::Hardware hardware = spec::load_hardware(options.hardware);
  const spec::Network network = spec::load_workload(options.workload);
  const auto layers = select_layers(network, options.workload, options.layer);
  std::optional<spec::MappingFile> mapping;
  if (!options.mapping.empty()) {
    mapping = spec::load_mapping_file(options.mapping);
    spec::check_mapping_hardware(*mapping, options.mapping, hardware);
    for (const spec::Layer& layer : layers) tiles_for(layer, hardware, options, &*mapping);  // fail before co-simulating
  }
  for (const std::string* output : {&options.json, &options.csv, &options.trace})  // fail before co-simulating
    if (!output->empty()) spec::check_output_path(*output);

  std::unique_ptr<sim::FabricSession> fabric;
  try {
    fabric = sim::open_fabric(codegen::image_hardware_of(hardware), 100000, options.trace);
  } catch (const std::invalid_argument& error) {
    throw spec::SpecError({options.hardware, 0, 0}, "", error.what());
  }
  fmt::print("co-simulating {} on {} ({}), seed {}\n", network.name, hardware.name, fabric->model_name(),
             options.seed);

  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  std::string csv = "layer,tile,result,metric,model,rtl,error,error_percent\n";
  int passed = 0, failed = 0;
  double max_compute_error = 0, max_total_error = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    const spec::Layer& layer = layers[l];
    const auto tiles = tiles_for(layer, hardware, options, mapping ? &*mapping : nullptr);
    for (size_t t = 0; t < tiles.size(); ++t) {
      const spec::Tile& tile = tiles[t];
      const auto start = std::chrono::steady_clock::now();
      const testbench::CoSimulation run =
          testbench::co_simulate(*fabric, layer, tile, hardware, options.seed + 1000 * l + t,
                                 options.memory == "ideal"  ? testbench::MemoryRuns::Ideal
                                 : options.memory == "dram" ? testbench::MemoryRuns::Dram
                                                            : testbench::MemoryRuns::Both);
      const testbench::Scoreboard& board = run.board;
      const auto& rows = run.rows;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      (board.pass() ? passed : failed) += 1;
      for (const auto& row : rows) {
        if (row.metric == testbench::kComputeCycles)
          max_compute_error = std::max(max_compute_error, std::fabs(row.error_percent()));
        if (row.metric == testbench::kTotalCycles)
          max_total_error = std::max(max_total_error, std::fabs(row.error_percent()));
      }

      fmt::print("\nlayer {} tile {} ({} image bytes): {}  [{:.2f} s]\n", layer.name, spec::to_compact_string(tile),
                 run.image_bytes, board.summary(), seconds);
      fmt::print("{}", testbench::cross_check_table(rows));
      nlohmann::ordered_json entry = {{"layer", layer.name},
                                      {"tile", spec::to_compact_string(tile)},
                                      {"result", board.pass() ? "PASS" : "FAIL"},
                                      {"outputs", board.compared},
                                      {"mismatches", board.mismatches},
                                      {"image_bytes", run.image_bytes},
                                      {"seconds", seconds}};
      if (run.with_memory) {
        const sim::MemoryRun& memory = *run.with_memory->memory;
        entry["memory"] = {{"sdm_resident", memory.resident},
                           {"stream_buffer_bytes", memory.stream_buffer_bytes},
                           {"output_buffer_bytes", memory.output_buffer_bytes},
                           {"peak_stream_bytes", memory.sdm.peak_stream_bytes},
                           {"peak_output_bytes", memory.sdm.peak_output_bytes},
                           {"stall_cycles", memory.stall_cycles},
                           {"data_stall_cycles", memory.data_stall_cycles},
                           {"output_stall_cycles", memory.output_stall_cycles},
                           {"drain_cycles", memory.drain_cycles},
                           {"dram_read_requests", memory.dram.read_requests},
                           {"dram_write_requests", memory.dram.write_requests},
                           {"dram_busy_cycles", memory.dram.busy_cycles}};
      }
      for (const auto& row : rows) {
        entry["cross_check"].push_back(
            {{"metric", row.metric},
             {"model", row.model},
             {"rtl", row.rtl},
             {"error_percent", row.relative_error_defined() ? nlohmann::json(row.error_percent()) : nlohmann::json()}});
        csv += fmt::format("{},\"{}\",{},{},{},{},{},{}\n", layer.name, spec::to_compact_string(tile),
                           board.pass() ? "PASS" : "FAIL", row.metric, row.model, row.rtl, row.error(),
                           row.relative_error_defined() ? fmt::format("{}", row.error_percent()) : "");
      }
      report.push_back(entry);
    }
  }
  fmt::print("\n{} of {} runs PASS; largest cycle error: compute {}, with DRAM {}\n", passed, passed + failed,
             options.memory == "dram" ? "not run" : fmt::format("{:.2f}%", max_compute_error),
             options.memory == "ideal" ? "not run" : fmt::format("{:.2f}%", max_total_error));
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  if (!options.json.empty())
    spec::write_file_atomically(options.json,
                                  report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!options.csv.empty()) spec::write_file_atomically(options.csv, csv);
  return failed == 0 ? kExitOk : kExitCheckFailed;
}

void add_common_options(CLI::App* command, VerifyOptions& options) {
  command->add_option("--layer", options.layer, "only this layer");
  command->add_option("--seed", options.seed, "seed of the random input and weight tensors")->capture_default_str();
  command->add_option("--json", options.json, "write the results and cross-check as JSON");
  command->add_option("--csv", options.csv, "write the cross-check rows as CSV");
  command->add_option("--trace", options.trace, "write a VCD of the whole fabric (view with gtkwave)");
  command
      ->add_option("--memory", options.memory,
                   "co-simulate with ideal memory (compute cycles), with the SDM/DRAM models, or both")
      ->check(CLI::IsMember({"ideal", "dram", "both"}))
      ->capture_default_str();
}

}  // namespace

void add_verify_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* command = app.add_subcommand(
      "verify", "Map, build the image, co-simulate it on the Verilated RTL, check bit-exactly, cross-check the model");
  // Input files are checked by their loaders (exit 2 with the OS's reason), not by CLI11 (exit 1).
  command->add_option("--hardware", options->hardware, "hardware spec (YAML)")->required();
  command->add_option("--workload", options->workload, "workload spec (YAML)")->required();
  auto* mapping = command->add_option("--mapping", options->mapping, "use the tiles of this mapping file");
  command->add_option("--top", options->top, "verify the best K mappings of each layer")
      ->capture_default_str()
      ->check(CLI::Range(1, 100))
      ->excludes(mapping);
  add_common_options(command, *options);
  command->callback([options, &action] { action = [options] { return run_verify(*options); }; });
}

// The default example of `maeri run` (README quick start), among the shipped configs.
const char* const kRunHardware = "hardware/maeri-64.yaml";
const char* const kRunWorkload = "workloads/tiny.yaml";

void add_run_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "The main job on the default example: every layer of `tiny` on maeri-64 — best mapping, image, "
             "co-simulation, PASS/FAIL and the model-vs-RTL cross-check");
  command->add_option("--hardware", options->hardware,
                      "hardware spec (YAML; default " + shipped_config_label(kRunHardware) + ")");
  command->add_option("--workload", options->workload,
                      "workload spec (YAML; default " + shipped_config_label(kRunWorkload) + ")");
  add_common_options(command, *options);
  command->callback([options, &action] {
    action = [options] {
      // Resolved when the command runs, so a missing installation only fails the command that needs it.
      if (options->hardware.empty()) options->hardware = shipped_config(kRunHardware);
      if (options->workload.empty()) options->workload = shipped_config(kRunWorkload);
      return run_verify(*options);
    };
  });
}

}  // namespace maeri::cli
