// `maeri space --hardware H --workload W [--layer L]`: the exact size of each layer's tile space,
// raw and after each mRNA pruning rule in turn.
#include <fmt/format.h>

#include <chrono>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/layer_selection.hpp"
#include "spec/spec_loader.hpp"
#include "mapper/tile_space.hpp"

namespace maeri::cli {
namespace {

struct SpaceOptions {
  std::string hardware;
  std::string workload;
  std::string layer;
};

int run_space(const SpaceOptions& options) {
  const spec::Hardware hardware = spec::load_hardware(options.hardware);
  const spec::Network network = spec::load_workload(options.workload);
  fmt::print("tile space on '{}' ({} multiplier switches): tiles with 1 <= T_d <= dim_d and "
             "T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' <= {} (Eq. 1)\n",
             hardware.name, hardware.num_ms, hardware.num_ms);
  for (const spec::Layer& layer : select_layers(network, options.workload, options.layer)) {
    fmt::print("\nlayer {} ({} N={} K={} C={} R={} S={} X'={} Y'={} stride={})\n", layer.name,
               spec::to_string(layer.type), layer.N, layer.K, layer.C, layer.R, layer.S, layer.output_x(),
               layer.output_y(), layer.stride);
    for (int rules = 0; rules <= mapper::kNumPruningRules; ++rules) {
      const auto start = std::chrono::steady_clock::now();
      const std::uint64_t size = mapper::TileSpace(layer, hardware, rules).count();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (rules == 0) {
        fmt::print("  {:<22} {:>14}   ({:.2f} ms)\n", "raw space", size, ms);
      } else {
        const auto rule = static_cast<mapper::PruningRule>(rules - 1);
        fmt::print("  + {:<20} {:>14}   ({:.2f} ms)  {}\n", mapper::rule_name(rule), size, ms,
                   mapper::rule_description(rule));
      }
    }
  }
  return kExitOk;
}

}  // namespace

void add_space_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* command = app.add_subcommand("space", "Count each layer's tile space, raw and after each pruning rule");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML")->required();
  command->add_option("--layer", options->layer, "only this layer (by name)");
  command->footer("Example: maeri space --hardware configs/hardware/maeri-512.yaml "
                  "--workload configs/workloads/mrna-table2.yaml");
  command->callback([options, &action] { action = [options] { return run_space(*options); }; });
}

}  // namespace maeri::cli
