// `maeri validate FILE...`: loads hardware or workload specs with full checking and summarises them.
#include <fmt/format.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/network_loader.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

void summarise_hardware(const contracts::Hardware& hardware, const std::string& path) {
  fmt::print("{}: OK: hardware '{}': {} multiplier switches, dn_bw {}, rn_bw {}, {}-bit data, {}-bit "
             "accumulators\n",
             path, hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, hardware.data_width,
             hardware.acc_width);
}

void summarise_workload(const contracts::Network& network, const std::string& path) {
  fmt::print("{}: OK: workload '{}': {} layers, {} MACs\n", path, network.name, network.layers.size(),
             network.total_macs());
  fmt::print("  {:<16} {:<4} {:>3} {:>6} {:>7} {:>3} {:>3} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>14}\n",
             "layer", "type", "N", "K", "C", "R", "S", "X", "Y", "str", "pad", "dil", "grp", "X'", "Y'", "MACs");
  const auto pair = [](std::int64_t x, std::int64_t y) { return x == y ? fmt::format("{}", x) : fmt::format("{}x{}", x, y); };
  for (const auto& layer : network.layers) {
    fmt::print("  {:<16} {:<4} {:>3} {:>6} {:>7} {:>3} {:>3} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>14}\n",
               layer.name, contracts::to_string(layer.type), layer.N, layer.K, layer.C, layer.R, layer.S,
               layer.X, layer.Y, pair(layer.stride_x, layer.stride_y), pair(layer.padding_x, layer.padding_y),
               pair(layer.dilation_x, layer.dilation_y), layer.groups, layer.output_x(), layer.output_y(),
               layer.macs());
  }
}

int run_validate(const std::vector<std::string>& files, const importer::ModelInputShapes& sizes) {
  int status = kExitOk;
  for (const auto& path : files) {
    try {
      if (importer::is_onnx_path(path)) {
        summarise_workload(importer::load_network(path, sizes), path);
      } else if (contracts::peek_spec_kind(path) == contracts::SpecKind::Hardware) {
        summarise_hardware(contracts::load_hardware(path), path);
      } else {
        summarise_workload(contracts::load_workload(path), path);
      }
    } catch (const util::InputError& error) {
      std::cerr << "error: " << error.what() << '\n';
      status = kExitBadInput;
    }
  }
  return status;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto sizes = std::make_shared<importer::ModelInputShapes>();
  CLI::App* command = app.add_subcommand(
      "validate", "Check hardware or workload YAML files or ONNX models (every field, range and derived size)");
  command->add_option("files", *files, "YAML files (kind: hardware or kind: workload) or ONNX models (.onnx)")->required();
  add_model_input_options(command, *sizes);
  command->footer("Example: maeri validate configs/hardware/maeri-64.yaml configs/workloads/tiny.yaml");
  command->callback([files, sizes, &action] { action = [files, sizes] { return run_validate(*files, *sizes); }; });
}

}  // namespace maeri::cli
