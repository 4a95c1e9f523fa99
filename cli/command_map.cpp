// `maeri map`: best mRNA mappings per layer under an objective — the exact optimum of the model (with exact
// DN/RN traffic) over the raw Eq. 1 space, or over the space some pruning rules leave (--prune) — with the
// paper's baseline and the improvement over it, what each pruning rule alone would lose, network totals, and
// the mapping file that codegen consumes; on a whole network, fused groups (--no-fusion: none). Options and
// console report around flow::WorkloadMapping (flow/workload_mapping.hpp).
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/model_input_options.hpp"
#include "cli/exit_codes.hpp"
#include "importer/layer_selection.hpp"
#include "cli/map_report.hpp"
#include "cli/map_search.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/network_loader.hpp"
#include "report/html_report.hpp"
#include "flow/map_decision.hpp"
#include "flow/workload_mapping.hpp"
#include "util/atomic_file.hpp"
#include "util/file_names.hpp"

namespace maeri::cli {
namespace {

struct MapOptions {
  std::string hardware;
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string layer;
  std::string objective = "runtime";
  int top = 5;
  int threads = 0;
  std::string tile;
  std::string given;  // --mapping: cost this mapping file's decision instead of searching
  std::string sdm;
  std::string order;
  bool single_level = false;  // --two-level names the default
  bool no_fusion = false;
  std::string fuse;      // --fuse: a fixed fusion policy, these consecutive layers one group, the rest alone
  mapper::FusionOptions fusion;  // --fusion-max-layers, --fusion-tiles: the fused space's limits
  bool details = false;  // the per-layer report (always with one layer)
  std::uint64_t joint_budget = mapper::JointSearch{}.budget;
  std::string phase_order;
  std::string prune;
  std::string report;  // --report: the HTML page; "" = none
  std::string json;
  std::string csv;
  std::string output;
  mapper::HeuristicMapping search;
};

void print_row(const std::string& label, const contracts::CostReport& r) {
  fmt::print("  {:<9} {:>4} {:>4} {:>5} {:>5} {:>4} {:>5} {:>5} {:>6} {:>6} {:>6.1f}% {:>6.1f}% {:>12.0f} {:>12.1f} "
             "{:>7.2f}x\n",
             label, r.mapping[0], r.mapping[1], r.mapping[2], r.mapping[3], r.mapping[4], r.mapping[5], r.mapping[6], r.vn_size,
             r.vn_count, 100 * r.peak_utilisation, 100 * r.average_utilisation, r.cycles.total,
             r.energy_pj.total / 1000.0, flow::dram_ratio(r));
  if (r.mapping.groups_per_step() != 1)
    fmt::print("  {:<9} T_G = {} groups side by side: {} VNs of {} per group\n", "", r.mapping.groups_per_step(),
               r.mapping.tile.group_vn_count(), r.vn_size);
  if (r.mapping.sdm.blocked)
    fmt::print("  {:<9} SDM tile (B_K,B_C,B_N,B_X',B_Y') = ({}), order {} (outer to inner)\n", "",
               contracts::blocks_text(r.mapping.sdm), contracts::order_text(r.mapping.sdm.order));
  if (r.mapping.phase_order != contracts::kDefaultPhaseOrder)
    fmt::print("  {:<9} phase order {} (filter tiles outside the reduction folds)\n", "",
               contracts::phase_order_text(r.mapping.phase_order));
}

void print_header() {
  fmt::print("  {:<9} {:>4} {:>4} {:>5} {:>5} {:>4} {:>5} {:>5} {:>6} {:>6} {:>7} {:>7} {:>12} {:>12} {:>8}\n", "",
             "T_R", "T_S", "T_C", "T_K", "T_N", "T_X'", "T_Y'", "VN", "#VN", "peak", "avg", "cycles", "energy nJ",
             "DRAM/cmp");
}

// --tile with its --sdm, --order and --phase-order: the one mapping to cost; nullopt without --tile.
std::optional<contracts::Mapping> fixed_mapping(const MapOptions& options, std::size_t layers) {
  if (options.tile.empty()) {
    if (!options.phase_order.empty())
      throw command_line_error("--phase-order", "a phase order applies to a fixed tile: add --tile");
    if (!options.sdm.empty() || !options.order.empty())
      throw command_line_error(options.sdm.empty() ? "--order" : "--sdm",
                               "an SDM tile or order applies to a fixed tile: add --tile");
    return std::nullopt;
  }
  const std::optional<contracts::FabricTile> fabric_tile = contracts::parse_fabric_tile(options.tile);
  if (!fabric_tile)
    throw command_line_error("--tile", "expected seven comma-separated integers T_R,T_S,T_C,T_K,T_N,T_X',T_Y' "
                                       "(and T_G for a grouped layer), found '" + options.tile + "'");
  if (layers != 1) throw command_line_error("--tile", "a fixed tile applies to one layer: add --layer NAME");
  std::optional<contracts::Mapping> mapping = contracts::single_level_mapping(*fabric_tile);
  if (!options.sdm.empty()) {
    const auto blocks = contracts::parse_blocks(options.sdm);
    if (!blocks)
      throw command_line_error("--sdm", "expected five comma-separated integers B_K,B_C,B_N,B_X',B_Y', found '" +
                                            options.sdm + "'");
    mapping->sdm.blocked = true;
    mapping->sdm.block = *blocks;
  }
  if (!options.order.empty()) {
    if (options.sdm.empty()) throw command_line_error("--order", "an order needs --sdm");
    const std::string problem = contracts::order_problem(options.order);
    if (!problem.empty())
      throw command_line_error("--order", "'" + options.order + "' is not a permutation of K, C, N, X, Y: " + problem);
    mapping->sdm.order = *contracts::parse_order(options.order);
  }
  if (!options.phase_order.empty()) {
    const auto order = contracts::parse_phase_order(options.phase_order);
    if (!order)
      throw command_line_error("--phase-order",
                               "expected folds-outer or filters-outer, found '" + options.phase_order + "'");
    mapping->phase_order = *order;
  }
  return mapping;
}

// How the list was ranked by exact cycles with DRAM (flow/exact_ranking.hpp), and whether the bound proved it.
void print_exact_ranking(const mapper::SearchResult::ExactRanking& ranking) {
  fmt::print("ranked by exact cycles with DRAM: {} replays of {} candidates kept by the bound, in {:.1f} ms; {}\n",
             ranking.timed, ranking.candidates, ranking.seconds * 1000,
             ranking.proven ? "the bound proves the list"
                            : "NOT proven over the space: a heuristic search's list, the replay budget spent "
                              "(flow::kExactTimingBudgetCycles) or the kept candidates ran out (cap 4,096) before the "
                              "bound closed the list");
}

// How the layer's mappings were found: the search's counts, or the layer whose search it reused.
void print_search(const flow::MappedLayer& mapped, const mapper::HeuristicMapper& heuristic, bool fixed,
                  bool two_level) {
  const mapper::SearchResult& result = mapped.result;
  if (!mapped.same_as.empty())
    fmt::print("same shape as layer {}, its search reused\n", mapped.same_as);
  else if (heuristic.heuristic() && !fixed)
    fmt::print("{}\n", heuristic.summary());
  else if (two_level && !fixed)
    fmt::print("{} tiles ({} ruled out by the cycle bound) and {} two-level mappings of {} fabric tiles ({} of "
               "them ruled out whole by their bound; {} of a joint space of {}) searched, {} with exact traffic, "
               "in {:.1f} ms\n",
               result.evaluated, result.bounded, result.joint_evaluated, result.joint_fabric_tiles,
               result.joint_bounded_tiles, result.joint_exhaustive ? "all" : "budgeted part", result.joint_space,
               result.exact_evaluations, result.seconds * 1000);
  else
    fmt::print("{} tiles searched ({} ruled out by the cycle bound), {} with exact traffic, in {:.1f} ms\n",
               result.evaluated, result.bounded, result.exact_evaluations, result.seconds * 1000);
  if (mapped.same_as.empty() && result.exact_ranking.ranked) print_exact_ranking(result.exact_ranking);
}

void print_layer(const flow::MappedLayer& mapped, const mapper::HeuristicMapper& heuristic, bool fixed,
                 bool two_level, mapper::Objective objective) {
  const contracts::Layer& layer = mapped.layer;
  const mapper::SearchResult& result = mapped.result;
  fmt::print("\nlayer {} ({} K={} C={} R={} S={} X'={} Y'={} stride {}x{}{}{}; {} MACs): ", layer.name,
             contracts::to_string(layer.type), layer.K, layer.C, layer.R, layer.S, layer.output_x(), layer.output_y(),
             layer.stride_x, layer.stride_y,
             layer.dilation_x * layer.dilation_y > 1 ? fmt::format(" dilation {}x{}", layer.dilation_x, layer.dilation_y) : "",
             layer.groups > 1 ? fmt::format(" groups {}", layer.groups) : "", layer.macs());
  print_search(mapped, heuristic, fixed, two_level);
  print_header();
  for (std::size_t rank = 0; rank < result.best.size(); ++rank) print_row(fmt::format("#{}", rank + 1), result.best[rank]);
  const contracts::CostReport& best = result.best.front();
  fmt::print("  DRAM of #1: {} bytes, compulsory {} bytes: {:.2f}x\n", best.counts.dram_bytes,
             best.compulsory_dram_bytes, flow::dram_ratio(best));
  if (result.baseline) {
    print_row("baseline", *result.baseline);
    fmt::print("  vs baseline: runtime {:+.1f}%, energy {:+.1f}% (positive = better)\n",
               mapper::improvement_percent(result.baseline->cycles.total, best.cycles.total),
               mapper::improvement_percent(result.baseline->energy_pj.total, best.energy_pj.total));
  } else {
    fmt::print("  baseline (T_R,T_S,1,T_K,1,1,1) does not fit: R·S = {} > num_ms\n", layer.R * layer.S);
  }
  if (mapped.rule_losses) fmt::print("{}", mapper::format_rule_losses(*mapped.rule_losses, objective));
}

void print_totals(const flow::WorkloadTotals& totals, std::size_t layers, const contracts::Hardware& hardware) {
  fmt::print("\ntotal over {} layers: {:.0f} cycles ({:.3f} ms at {} MHz), {:.1f} nJ\n", layers, totals.cycles,
             totals.cycles / (hardware.clock_mhz * 1000.0), hardware.clock_mhz, totals.energy_pj / 1000.0);
  fmt::print("DRAM: {} bytes, compulsory {} bytes: {:.2f}x\n", totals.dram_bytes, totals.compulsory_dram_bytes,
             totals.compulsory_dram_bytes > 0 ? double(totals.dram_bytes) / double(totals.compulsory_dram_bytes) : 0.0);
  if (totals.every_layer_has_baseline)
    fmt::print("baseline total: {:.0f} cycles, {:.1f} nJ; improvement: runtime {:+.1f}%, energy {:+.1f}%\n",
               totals.baseline_cycles, totals.baseline_energy_pj / 1000.0,
               mapper::improvement_percent(totals.baseline_cycles, totals.cycles),
               mapper::improvement_percent(totals.baseline_energy_pj, totals.energy_pj));
}

// The fused groups against their layers alone, the search's statistics, and the network against its compulsory bytes.
// Whether the fused search's partition is proven over the members' fused map spaces (docs/model.md, "Which model
// decides what"); nothing for a mapping file's groups, which are costed, not searched.
void print_fusion_proof(const mapper::FusedSearchStats& stats, mapper::Objective objective) {
  if (stats.groups == 0) return;
  if (stats.proven)
    fmt::print("fused groups proven over the members' fused map spaces: {} candidate groups solved by their bounds, "
               "{} member mappings timed exactly ({:.3g} cycles)\n",
               stats.solved_groups, stats.member_timed, stats.member_replayed_cycles);
  else if (objective == mapper::Objective::EnergyDelay || stats.solved_groups == 0)
    fmt::print("fused groups NOT proven: {} (the exact model decides between the mappings the fluid joins propose)\n",
               objective == mapper::Objective::EnergyDelay ? "the network's EDP is no sum over groups"
                                                           : "a fixed fusion policy");
  else
    fmt::print("fused groups NOT proven over the members' fused map spaces: {} candidate groups could still win by "
               "their bounds (more than {} contexts of rows and pins, {} replays of a member, or the proof's {:.0e} "
               "replayed cycles spent); {} tried, {} member mappings timed exactly ({:.3g} cycles)\n",
               stats.open_groups, mapper::kFusedContextBudget, mapper::kFusedMemberReplayBudget,
               stats.proof_budget_cycles, stats.solved_groups, stats.member_timed, stats.member_replayed_cycles);
}

void print_fusion(const mapper::NetworkFusionResult& fusion, const contracts::Network& network,
                  mapper::Objective objective) {
  const mapper::FusedSearchStats& stats = fusion.stats;
  std::size_t fused_groups = 0;
  for (const mapper::GroupResult& group : fusion.groups) fused_groups += group.group.count > 1;
  fmt::print("\nfusion ({} objective): {} partial mappings made, {} pruned, {} joined over {} candidate groups, {} "
             "group mappings timed exactly of {} in {:.2f} s; {} fused groups{}\n",
             mapper::to_string(objective), stats.made, stats.pruned, stats.joined, stats.groups, stats.timed,
             stats.options, stats.seconds, fused_groups,
             fusion.split_back > 0 ? fmt::format(" ({} split back: no better with exact traffic)", fusion.split_back)
                                   : "");
  if (fused_groups > 0)
    fmt::print("  {:<40} {:>6} {:>7} {:>14} {:>14} {:>12} {:>12} {:>12} {:>12}\n", "fused group", "layers",
               "stripes", "DRAM unfused", "DRAM fused", "nJ unfused", "nJ fused", "EDP unfused", "EDP fused");
  for (const mapper::GroupResult& group : fusion.groups) {
    if (group.group.count < 2) continue;
    const contracts::FusedGroupEntry entry = mapper::mapping_file_entry(network, group.group);
    const mapper::CostTotals &before = group.unfused_totals, &after = group.fused_totals;
    fmt::print("  {:<40} {:>6} {:>7} {:>14} {:>14} {:>12.1f} {:>12.1f} {:>12.4g} {:>12.4g}\n", entry.name,
               group.group.count, group.group.stripes, before.dram_bytes, after.dram_bytes, before.energy_pj / 1000,
               after.energy_pj / 1000, before.edp() / 1000, after.edp() / 1000);
  }
  const auto ratio = [&](std::int64_t bytes) {
    return fusion.compulsory_dram_bytes > 0 ? double(bytes) / double(fusion.compulsory_dram_bytes) : 0.0;
  };
  const mapper::CostTotals &unfused = fusion.unfused, &fused = fusion.fused;
  fmt::print("  (EDP in nJ*cycles)\n  unfused: {:.0f} cycles, {:.1f} nJ, EDP {:.4g} nJ*cycles, DRAM {} bytes\n", unfused.cycles,
             unfused.energy_pj / 1000, unfused.edp() / 1000, unfused.dram_bytes);
  fmt::print("  fused:   {:.0f} cycles, {:.1f} nJ, EDP {:.4g} nJ*cycles, DRAM {} bytes ({:.3f} of unfused)\n",
             fused.cycles, fused.energy_pj / 1000, fused.edp() / 1000, fused.dram_bytes,
             unfused.dram_bytes > 0 ? double(fused.dram_bytes) / double(unfused.dram_bytes) : 0.0);
  fmt::print("  network compulsory DRAM (inputs, weights, outputs once): {} bytes; unfused {:.2f}x, fused {:.2f}x\n",
             fusion.compulsory_dram_bytes, ratio(unfused.dram_bytes), ratio(fused.dram_bytes));
}

// A layer's shape in short form: type, window R×S (/stride), channels C->K, output X'×Y' (and its groups).
std::string short_shape(const contracts::Layer& layer) {
  const std::string stride = layer.stride_x * layer.stride_y > 1
                                 ? layer.stride_x == layer.stride_y ? fmt::format("/{}", layer.stride_x)
                                                                    : fmt::format("/{}x{}", layer.stride_x, layer.stride_y)
                                 : "";
  return fmt::format("{} {}x{}{} {}->{} @{}x{}{}", contracts::to_string(layer.type), layer.R, layer.S, stride, layer.C,
                     layer.K, layer.output_x(), layer.output_y(), layer.groups > 1 ? fmt::format(" g{}", layer.groups) : "");
}

// One line per layer as the network runs it: its shape, chosen fabric tile, fused group and role, and its cost in
// that role (a fused member's, not its standalone best: --details has those).
void print_table(const std::vector<flow::ChosenLayer>& chosen) {
  std::size_t name_width = 5, shape_width = 5, tile_width = 4, group_width = 11;
  for (const flow::ChosenLayer& layer : chosen) {
    name_width = std::max(name_width, layer.layer.name.size());
    shape_width = std::max(shape_width, short_shape(layer.layer).size());
    tile_width = std::max(tile_width, contracts::to_compact_string(layer.report.mapping.tile).size());
    if (layer.fused) group_width = std::max(group_width, layer.fused->group.size());
  }
  fmt::print("\n{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<8}  {:>12}  {:>6}  {:>12}  {:>12}  {:>8}\n", "layer", name_width,
             "shape", shape_width, "tile", tile_width, "fused group", group_width, "role", "cycles", "util",
             "DRAM bytes", "compulsory", "DRAM/cmp");
  for (const flow::ChosenLayer& layer : chosen) {
    const contracts::CostReport& r = layer.report;
    fmt::print("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<8}  {:>12.0f}  {:>5.1f}%  {:>12}  {:>12}  {:>7.2f}x\n",
               layer.layer.name, name_width, short_shape(layer.layer), shape_width,
               contracts::to_compact_string(r.mapping.tile), tile_width, layer.fused ? layer.fused->group : "-",
               group_width, layer.fused ? flow::member_role(layer.fused->role) : "-", r.cycles.total,
               100 * r.average_utilisation, r.counts.dram_bytes, r.compulsory_dram_bytes, flow::dram_ratio(r));
  }
}

// The fused groups formed and what they save against every layer alone (--details: per group, with the search).
void print_fusion_summary(const mapper::NetworkFusionResult& fusion) {
  std::size_t groups = 0, members = 0;
  for (const mapper::GroupResult& group : fusion.groups)
    if (group.group.count > 1) ++groups, members += group.group.count;
  const mapper::CostTotals &unfused = fusion.unfused, &fused = fusion.fused;
  const auto saved = [](double before, double after) { return before > 0 ? 100 * (before - after) / before : 0.0; };
  if (groups == 0)
    fmt::print("fusion: no fused group formed: every layer runs alone, its own best\n");
  else
    fmt::print("fusion: {} fused group{} of {} layers in all; against every layer alone: {:.0f} -> {:.0f} cycles "
             "({:.1f}% saved), {:.1f} -> {:.1f} nJ ({:.1f}%), DRAM {} -> {} bytes ({:.1f}%)\n",
             groups, groups == 1 ? "" : "s", members, unfused.cycles, fused.cycles, saved(unfused.cycles, fused.cycles),
             unfused.energy_pj / 1000, fused.energy_pj / 1000, saved(unfused.energy_pj, fused.energy_pj),
             unfused.dram_bytes, fused.dram_bytes, saved(double(unfused.dram_bytes), double(fused.dram_bytes)));
  fmt::print("network compulsory DRAM (inputs, weights, outputs once): {} bytes; unfused {:.2f}x, fused {:.2f}x\n",
             fusion.compulsory_dram_bytes,
             fusion.compulsory_dram_bytes > 0 ? double(unfused.dram_bytes) / double(fusion.compulsory_dram_bytes) : 0.0,
             fusion.compulsory_dram_bytes > 0 ? double(fused.dram_bytes) / double(fusion.compulsory_dram_bytes) : 0.0);
}

// --fuse's layer names (comma-separated; none when empty).
std::vector<std::string> fused_layer_names(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) names.push_back(name);
  return names;
}

// Maps the layers; a --fuse policy (`fuse`) the network or the fusion rules refuse is an error naming the option.
void map_layers(flow::WorkloadMapping& workload, const std::vector<contracts::Layer>& layers, const std::string& fuse,
                const std::function<void(const flow::MappedLayer&)>& each) {
  try {
    workload.map(layers, each);
  } catch (const std::invalid_argument& error) {
    if (fuse.empty()) throw;
    throw command_line_error("--fuse", error.what());
  }
}

int run_map(const MapOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  const std::vector<contracts::Layer> layers = importer::select_layers(network, options.workload, options.layer);
  flow::WorkloadMappingOptions mapping =
      flow::map_decision_options(*mapper::parse_objective(options.objective), !options.no_fusion, options.workload);
  if (!options.prune.empty()) {
    std::string error;
    const auto rules = mapper::parse_rules(options.prune, error);
    if (!rules) throw command_line_error("--prune", error);
    mapping.prune = *rules;
  }
  mapper::HeuristicMapper heuristic(options.search, mapping.objective, !options.single_level, "command line", "--");
  mapping.fixed = fixed_mapping(options, layers.size());
  std::optional<contracts::MappingFile> given;
  if (!options.given.empty()) {
    given = contracts::load_mapping_file(options.given);
    contracts::check_mapping_hardware(*given, options.given, hardware);
    mapping.given = &*given;
    mapping.given_path = options.given;
    mapping.fusion = false;
  }
  // A given mapping file is costed, not rewritten: only an explicit -o writes its decision back.
  const std::string output =
      given ? options.output
      : options.output.empty()
          ? fmt::format("{}.{}.mapping.yaml", util::safe_file_stem(network.name), util::safe_file_stem(hardware.name))
          : options.output;
  for (const std::string* path : {&output, &options.json, &options.csv, &options.report})  // before the search
    if (!path->empty()) util::check_output_path(*path);
  mapping.top = options.top;
  mapping.threads = options.threads;
  mapping.two_level = !options.single_level;
  mapping.joint_budget = options.joint_budget;
  mapping.heuristic = &heuristic;
  mapping.fusion_options = options.fusion;  // the defaults but --fusion-max-layers, --fusion-tiles
  mapping.fusion_options.fixed_group = fused_layer_names(options.fuse);

  fmt::print("mapping workload '{}' on '{}' ({} MS, dn_bw {}, rn_bw {}), objective {}, {}\n", network.name,
             hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, options.objective,
             given ? "the mapping file " + options.given + " costed (no search)"
             : mapping.prune.empty() ? std::string("space: raw Eq. 1 (no pruning)")
                                     : "space: pruned by " + mapping.prune.names());
  if (mapping.fixed)
    if (const auto violation = contracts::mapping_violation(layers.front(), hardware, *mapping.fixed))
      throw command_line_error(violation->rfind("SDM", 0) == 0 ? "--sdm" : "--tile", *violation);
  const bool fixed = mapping.fixed.has_value(), two_level = mapping.two_level;
  const mapper::Objective objective = mapping.objective;
  flow::WorkloadMapping workload(network, hardware, std::move(mapping));
  // One layer: its details are the point. A network: a table, unless --details asks for every layer's report.
  const bool details = options.details || layers.size() == 1;
  map_layers(workload, layers, options.fuse, [&](const flow::MappedLayer& mapped) {
    if (details) print_layer(mapped, heuristic, fixed, two_level, objective);
  });
  if (details) {
    if (workload.fusion()) {
      print_fusion(*workload.fusion(), network, objective);
      print_fusion_proof(workload.fusion()->stats, objective);
    }
    if (layers.size() > 1) print_totals(workload.totals(), layers.size(), hardware);
  } else {
    print_table(workload.chosen());
    print_totals(workload.totals(), layers.size(), hardware);
    if (workload.fusion()) {
      print_fusion_summary(*workload.fusion());
      print_fusion_proof(workload.fusion()->stats, objective);
    }
  }

  if (!output.empty()) {
    contracts::write_mapping_file(output, workload.mapping_file());
    fmt::print("\nmapping file: {}\n", output);
  }
  if (!options.json.empty()) {
    util::write_file_atomically(options.json, workload.json());
    fmt::print("json: {}\n", options.json);
  }
  if (!options.csv.empty()) {
    util::write_file_atomically(options.csv, workload.csv());
    fmt::print("csv: {}\n", options.csv);
  }
  if (!options.report.empty()) {
    report::write_report(options.report, map_report(network, hardware, workload));
    fmt::print("report: {}\n", options.report);
  }
  return kExitOk;
}

}  // namespace

void add_map_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<MapOptions>();
  CLI::App* command = app.add_subcommand("map", "Find the best mappings (tiles) of each layer with the analytical model");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML or ONNX model (.onnx)")->required();
  add_model_input_options(command, options->model_inputs);
  command->add_option("--layer", options->layer, "only this layer (by name)");
  command->add_option("--objective", options->objective, "runtime, energy or edp (energy x delay)")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  command->add_option("--top", options->top, "how many best mappings to list per layer")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--threads", options->threads, "search threads (0 = all)")->check(CLI::Range(0, 1024));
  command->add_option("--prune", options->prune,
                      "search only the space these pruning rules leave (comma-separated: edge-divisibility, "
                      "inference-batch, reduced-convolution, partial-sum-bound, or all; default: none)");
  command->add_option("--tile", options->tile,
                      "cost this tile instead of searching: T_R,T_S,T_C,T_K,T_N,T_X',T_Y'[,T_G] (T_G: groups side "
                      "by side, default 1)");
  auto* given = command->add_option(
      "--mapping", options->given,
      "cost this mapping file's decision instead of searching: every layer's mapping and, on the whole network, its "
      "fused groups, checked as codegen checks them (the same report and JSON; -o only when given)");
  command->add_option("--sdm", options->sdm, "with --tile: its SDM tile B_K,B_C,B_N,B_X',B_Y' (docs/mapping.md)");
  command->add_option("--order", options->order, "with --sdm: the SDM loop order, outer to inner (default KCNXY)");
  command->add_option("--phase-order", options->phase_order,
                      "with --tile: folds-outer (default) or filters-outer, the fabric loops' order (docs/mapping.md)");
  auto* two_level = command->add_flag("--two-level",
                                      "search the joint space: fabric tile x SDM tile x SDM loop order (the default; "
                                      "docs/mapping.md)");
  command->add_flag("--single-level", options->single_level,
                    "search the fabric tiles alone (each layer one SDM block, as mapping files without `sdm:`)")
      ->excludes(two_level);
  command->add_option("--joint-budget", options->joint_budget,
                      "two-level search: mappings costed before the SDM level is searched for fewer fabric tiles")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40))
      ->capture_default_str();
  CLI::Option* no_fusion = command->add_flag("--no-fusion", options->no_fusion,
                    "map every layer on its own: no fused groups (by default a whole network's layers may share "
                    "tensors in the SDM, docs/mapping.md)")
      ->excludes(given);
  command->add_option("--fuse", options->fuse,
                      "a fixed fusion policy: these consecutive layers (comma-separated names) are one fused group "
                      "and every other layer runs alone; map picks the group's stripes and mappings (e.g. "
                      "TransFusion's: every Einsum but K and V, scripts/ffm-comparison.py)")
      ->excludes(given)
      ->excludes(no_fusion);
  // The fused space's limits and the proof's budget (mapper::FusionOptions), for measuring what each costs
  // (scripts/fusion-gap.py).
  command->add_option("--fusion-max-layers", options->fusion.max_layers, "the longest fused group tried")
      ->check(CLI::Range(std::size_t(2), std::size_t(64)))
      ->capture_default_str();
  command->add_option("--fusion-tiles", options->fusion.fabric_tiles,
                      "per layer, the fused space takes the fabric tiles of its best this many standalone mappings")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command->add_option("--fusion-proof-cycles", options->fusion.proof_budget_cycles,
                      "the fused groups' proof replays members of at most this many cycles in all, then says NOT "
                      "proven (docs/model.md, \"Which model decides what\")")
      ->check(CLI::Range(0.0, 1e15))
      ->capture_default_str();
  command->add_flag("--details", options->details,
                    "per layer, its best mappings with their SDM tiles, the baseline and what each pruning rule "
                    "alone would lose (a network's default: one line per layer; one layer: always the details)");
  add_map_search_options(command, options->search);
  command->add_option("--json", options->json, "write all results as JSON to this file");
  command->add_option("--report", options->report,
                      "write one self-contained HTML page: the network and its fused groups, each layer's mapping "
                      "drawn on the fabric, the model's cycles and DRAM against compulsory (docs/report.md)");
  command->add_option("--csv", options->csv, "write all results as CSV to this file");
  command->add_option("-o,--output", options->output,
                      "mapping file to write (default: <workload>.<hardware>.mapping.yaml, the names made safe as "
                      "file names)");
  for (const char* fixed : {"--tile", "--prune", "--single-level", "--joint-budget"}) given->excludes(fixed);
  command->footer("Example: maeri map --hardware configs/hardware/maeri-512.yaml "
                  "--workload configs/workloads/mrna-table2.yaml --objective energy --top 3");
  command->callback([options, &action] { action = [options] { return run_map(*options); }; });
}

}  // namespace maeri::cli
