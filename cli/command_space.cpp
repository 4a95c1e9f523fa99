// `maeri space --hardware H --workload W [--layer L] [--objective O] [--prune RULES]`: the exact size of each
// layer's tile space, raw, under each mRNA pruning rule alone and under the chosen rules together, and what each
// rule alone would lose against the raw optimum (one exact raw search per layer), and the size of the two-level
// (joint) space per level (fabric tiles, SDM tiles, orders) with its optimum.
#include <fmt/format.h>

#include <chrono>
#include <string>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/layer_selection.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "mapper/search/rule_loss.hpp"
#include "mapper/search/search.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct SpaceOptions {
  std::string hardware;
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string layer;
  std::string objective = "runtime";
  std::string prune = "all";
  int threads = 0;
  std::uint64_t joint_budget = mapper::JointSearch{}.budget;
};

int run_space(const SpaceOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  const mapper::Objective objective = *mapper::parse_objective(options.objective);
  std::string error;
  const auto prune = mapper::parse_rules(options.prune, error);
  if (!prune) throw command_line_error("--prune", error);
  fmt::print("tile space on '{}' ({} multiplier switches): tiles with 1 <= T_d <= dim_d and "
             "T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' <= {} (Eq. 1)\n",
             hardware.name, hardware.num_ms, hardware.num_ms);
  for (const contracts::Layer& layer : importer::select_layers(network, options.workload, options.layer)) {
    fmt::print("\nlayer {} ({}; X'={} Y'={})\n", layer.name, contracts::shape_text(layer), layer.output_x(),
               layer.output_y());
    if (layer.groups > 1)
      fmt::print("  grouped: T_C, T_K tile one group's channels and filters, and T_G groups (a divisor of {}) sit side "
                 "by side, T_G·T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' <= {}\n",
                 layer.groups, hardware.num_ms);
    const auto count = [&](mapper::RuleSet rules, double& ms) {
      const auto start = std::chrono::steady_clock::now();
      const std::uint64_t size = mapper::TileSpace(layer, hardware, rules).count();
      ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      return size;
    };
    double ms = 0;
    const std::uint64_t raw = count({}, ms);
    fmt::print("  {:<26} {:>14}   ({:.2f} ms)\n", "raw space (default search)", raw, ms);
    for (const mapper::PruningRule rule : mapper::kPruningRules) {
      const std::uint64_t size = count(mapper::RuleSet::only(rule), ms);
      fmt::print("  {:<26} {:>14}   ({:.2f} ms)  {}\n", fmt::format("{} alone", mapper::rule_name(rule)), size, ms,
                 mapper::rule_description(rule));
    }
    if (!prune->empty()) {
      const std::uint64_t size = count(*prune, ms);
      fmt::print("  {:<26} {:>14}   ({:.2f} ms)  --prune {}\n", "chosen rules together", size, ms, prune->names());
    }
    // The loss of each rule needs the raw optimum and each rule's optimum: one exact raw search, which also
    // searches the joint (two-level) space.
    mapper::SearchOptions search{objective, 1, options.threads, {}, {}};
    search.exact = codegen::exact_traffic_for(layer, hardware);
    search.joint.enabled = true;
    search.joint.budget = options.joint_budget;
    const mapper::SearchResult result = mapper::search(layer, hardware, search);
    const contracts::CostReport& fabric_optimum = *result.fabric_optimum;
    fmt::print("  raw optimum ({}): ({}), {:.0f} cycles, {:.1f} nJ ({:.1f} ms)\n", options.objective,
               contracts::to_compact_string(fabric_optimum.mapping.tile), fabric_optimum.cycles.total,
               fabric_optimum.energy_pj.total / 1000.0, result.seconds * 1000);
    fmt::print("{}", mapper::format_rule_losses(mapper::rule_losses(result, layer, hardware, objective), objective));
    // The joint space per level (docs/mapping.md, "SDM level"): before the capacity rule.
    const std::uint64_t sdm_tiles = result.joint_space / (120 * contracts::kPhaseOrders.size());
    fmt::print("  two-level (joint) space, before the SDM capacity rule:\n");
    fmt::print("    {:<34} {:>16}\n", "fabric tiles (raw)", raw);
    fmt::print("    {:<34} {:>16}   (mean {:.1f} per fabric tile)\n", "SDM tiles, summed over fabric tiles",
               sdm_tiles, raw > 0 ? double(sdm_tiles) / double(raw) : 0.0);
    fmt::print("    {:<34} {:>16}   (at most 54 distinct costs per SDM tile)\n", "SDM loop orders", 120);
    fmt::print("    {:<34} {:>16}   (folds-outer, filters-outer; docs/mapping.md, \"Phase order\")\n",
               "phase orders (inside a block)", contracts::kPhaseOrders.size());
    fmt::print("    {:<34} {:>16}   ({} mappings costed over {} fabric tiles, {})\n", "joint: SDM tiles x both orders",
               result.joint_space, result.joint_evaluated, result.joint_fabric_tiles,
               result.joint_exhaustive ? "exhaustive" : "budgeted");
    const contracts::CostReport& best = result.best.front();
    fmt::print("  joint optimum ({}): {}, {:.0f} cycles, {:.1f} nJ, DRAM {:.2f}x compulsory (single-level: {:.2f}x)\n",
               options.objective, contracts::to_string(best.mapping), best.cycles.total, best.energy_pj.total / 1000.0,
               double(best.counts.dram_bytes) / double(best.compulsory_dram_bytes),
               double(fabric_optimum.counts.dram_bytes) / double(fabric_optimum.compulsory_dram_bytes));
  }
  return kExitOk;
}

}  // namespace

void add_space_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SpaceOptions>();
  CLI::App* command = app.add_subcommand("space", "Count each layer's tile space, raw and under each pruning rule, and what each rule would lose");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML or ONNX model (.onnx)")->required();
  add_model_input_options(command, options->model_inputs);
  command->add_option("--layer", options->layer, "only this layer (by name)");
  command->add_option("--objective", options->objective, "objective of the per-rule loss: runtime, energy or edp")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  command->add_option("--prune", options->prune,
                      "also count the space these rules leave together (comma-separated rule names, all or none)")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "search threads (0 = all)")->check(CLI::Range(0, 1024));
  command->add_option("--joint-budget", options->joint_budget,
                      "two-level mappings costed before the SDM level is searched for fewer fabric tiles")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40))
      ->capture_default_str();
  command->footer("Example: maeri space --hardware configs/hardware/maeri-512.yaml "
                  "--workload configs/workloads/mrna-table2.yaml");
  command->callback([options, &action] { action = [options] { return run_space(*options); }; });
}

}  // namespace maeri::cli
