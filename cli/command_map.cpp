// `maeri map`: best mRNA mappings per layer under an objective — the exact optimum of the model (with exact
// DN/RN traffic) over the raw Eq. 1 space, or over the space some pruning rules leave (--prune) — with the
// paper's baseline and the improvement over it, what each pruning rule alone would lose, network totals, and
// the mapping file that codegen consumes.
#include <fmt/format.h>

#include <array>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/layer_selection.hpp"
#include "cli/map_search.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "util/atomic_file.hpp"
#include "mapper/model/cost_model.hpp"
#include "contracts/mapping_file.hpp"
#include "mapper/model/report_json.hpp"
#include "mapper/search/rule_loss.hpp"
#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct MapOptions {
  std::string hardware;
  std::string workload;
  std::string layer;
  std::string objective = "runtime";
  int top = 5;
  int threads = 0;
  std::string tile;
  std::string sdm;
  std::string order;
  bool single_level = false;  // --two-level names the default
  std::uint64_t joint_budget = mapper::JointSearch{}.budget;
  std::string phase_order;
  std::string prune;
  std::string json;
  std::string csv;
  std::string output;
  mapper::HeuristicMapping search;
};

double dram_ratio(const contracts::CostReport& r) {
  return r.compulsory_dram_bytes > 0 ? double(r.counts.dram_bytes) / double(r.compulsory_dram_bytes) : 0.0;
}

void print_row(const std::string& label, const contracts::CostReport& r) {
  fmt::print("  {:<9} {:>4} {:>4} {:>5} {:>5} {:>4} {:>5} {:>5} {:>6} {:>6} {:>6.1f}% {:>6.1f}% {:>12.0f} {:>12.1f} "
             "{:>7.2f}x\n",
             label, r.tile[0], r.tile[1], r.tile[2], r.tile[3], r.tile[4], r.tile[5], r.tile[6], r.vn_size,
             r.vn_count, 100 * r.peak_utilisation, 100 * r.average_utilisation, r.cycles.total,
             r.energy_pj.total / 1000.0, dram_ratio(r));
  if (r.tile.sdm.blocked)
    fmt::print("  {:<9} SDM tile (B_K,B_C,B_N,B_X',B_Y') = ({}), order {} (outer to inner)\n", "",
               contracts::blocks_text(r.tile.sdm), contracts::order_text(r.tile.sdm.order));
  if (r.tile.phase_order != contracts::kDefaultPhaseOrder)
    fmt::print("  {:<9} phase order {} (filter tiles outside the reduction folds)\n", "",
               contracts::phase_order_text(r.tile.phase_order));
}

void print_header() {
  fmt::print("  {:<9} {:>4} {:>4} {:>5} {:>5} {:>4} {:>5} {:>5} {:>6} {:>6} {:>7} {:>7} {:>12} {:>12} {:>8}\n", "",
             "T_R", "T_S", "T_C", "T_K", "T_N", "T_X'", "T_Y'", "VN", "#VN", "peak", "avg", "cycles", "energy nJ",
             "DRAM/cmp");
}

int run_map(const MapOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload);
  const std::vector<contracts::Layer> layers = select_layers(network, options.workload, options.layer);
  const auto objective = mapper::parse_objective(options.objective);
  mapper::RuleSet prune;
  if (!options.prune.empty()) {
    std::string error;
    const auto rules = mapper::parse_rules(options.prune, error);
    if (!rules) throw util::InputError({"command line", 0, 0}, "--prune", error);
    prune = *rules;
  }
  mapper::HeuristicMapper map_search(options.search, *objective, !options.single_level, "command line", "--");
  std::optional<contracts::Tile> fixed_tile;
  if (!options.tile.empty()) {
    fixed_tile = contracts::parse_tile(options.tile);
    if (!fixed_tile) {
      throw util::InputError({"command line", 0, 0}, "--tile",
                              "expected seven comma-separated integers T_R,T_S,T_C,T_K,T_N,T_X',T_Y', found '" +
                                  options.tile + "'");
    }
    if (layers.size() != 1) {
      throw util::InputError({"command line", 0, 0}, "--tile",
                              "a fixed tile applies to one layer: add --layer NAME");
    }
    if (!options.sdm.empty()) {
      const auto blocks = contracts::parse_blocks(options.sdm);
      if (!blocks)
        throw util::InputError({"command line", 0, 0}, "--sdm",
                              "expected five comma-separated integers B_K,B_C,B_N,B_X',B_Y', found '" + options.sdm +
                                  "'");
      fixed_tile->sdm.blocked = true;
      fixed_tile->sdm.block = *blocks;
    }
    if (!options.order.empty()) {
      if (options.sdm.empty()) throw util::InputError({"command line", 0, 0}, "--order", "an order needs --sdm");
      const std::string problem = contracts::order_problem(options.order);
      if (!problem.empty())
        throw util::InputError({"command line", 0, 0}, "--order",
                              "'" + options.order + "' is not a permutation of K, C, N, X, Y: " + problem);
      fixed_tile->sdm.order = *contracts::parse_order(options.order);
    }
    if (!options.phase_order.empty()) {
      const auto order = contracts::parse_phase_order(options.phase_order);
      if (!order)
        throw util::InputError({"command line", 0, 0}, "--phase-order",
                              "expected folds-outer or filters-outer, found '" + options.phase_order + "'");
      fixed_tile->phase_order = *order;
    }
  } else if (!options.phase_order.empty()) {
    throw util::InputError({"command line", 0, 0}, "--phase-order", "a phase order applies to a fixed tile: add --tile");
  } else if (!options.sdm.empty() || !options.order.empty()) {
    throw util::InputError({"command line", 0, 0}, options.sdm.empty() ? "--order" : "--sdm",
                          "an SDM tile or order applies to a fixed tile: add --tile");
  }

  const std::string output =
      options.output.empty() ? fmt::format("{}.{}.mapping.yaml", network.name, hardware.name) : options.output;
  for (const std::string* path : {&output, &options.json, &options.csv})  // fail before the search, not after it
    if (!path->empty()) util::check_output_path(*path);

  contracts::MappingFile mapping{hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, network.name,
                              options.objective, {}};
  nlohmann::json json_layers = nlohmann::json::array();
  std::string csv = "layer,rank," + mapper::csv_header() + "\n";
  double best_cycles = 0, best_energy = 0, baseline_cycles = 0, baseline_energy = 0;
  std::int64_t best_dram = 0, compulsory_dram = 0;
  bool every_layer_has_baseline = true;

  fmt::print("mapping workload '{}' on '{}' ({} MS, dn_bw {}, rn_bw {}), objective {}, space: {}\n", network.name,
             hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, options.objective,
             prune.empty() ? std::string("raw Eq. 1 (no pruning)") : "pruned by " + prune.names());
  // Networks repeat layer shapes (ResNet-50: 54 layers, 24 shapes); the model sees only the shape, so a shape is
  // searched once and its result reused.
  using ShapeKey = std::array<std::int64_t, 1 + contracts::kLayerShapeFields.size()>;
  std::map<ShapeKey, std::pair<std::string, mapper::SearchResult>> searched;
  for (const contracts::Layer& layer : layers) {
    mapper::SearchResult result;
    std::string same_as;
    if (fixed_tile) {
      if (const auto violation = contracts::tile_violation(layer, hardware, *fixed_tile)) {
        throw util::InputError({"command line", 0, 0}, violation->rfind("SDM", 0) == 0 ? "--sdm" : "--tile",
                              *violation);
      }
      result.best = {mapper::evaluate(layer, hardware, *fixed_tile)};
      codegen::refine_with_exact_traffic(result.best.front(), layer, hardware);
      result.evaluated = 1;
      if (const auto baseline = contracts::baseline_tile(layer, hardware)) {
        result.baseline = mapper::evaluate(layer, hardware, *baseline);
        codegen::refine_with_exact_traffic(*result.baseline, layer, hardware);
      }
    } else {
      if (const auto reason = mapper::unmappable_reason(layer, hardware, prune)) {
        throw util::InputError({options.workload, 0, 0}, "layers." + layer.name, *reason);
      }
      // Ranked by the model with exact DN/RN traffic, so what is shown is what was ranked.
      ShapeKey key{static_cast<std::int64_t>(layer.type)};
      for (std::size_t f = 0; f < contracts::kLayerShapeFields.size(); ++f) key[f + 1] = layer.*contracts::kLayerShapeFields[f].member;
      if (const auto found = searched.find(key); found != searched.end()) {
        same_as = found->second.first;
        result = found->second.second;
      } else {
        mapper::SearchOptions search = mapper::map_search_options(
            *objective, options.top, codegen::exact_traffic_for(layer, hardware), !options.single_level);
        search.threads = options.threads;
        search.prune = prune;
        search.joint.budget = options.joint_budget;
        result = map_search.heuristic() ? map_search.search(layer, hardware, search)
                                        : mapper::search(layer, hardware, search);
        searched.emplace(key, std::make_pair(layer.name, result));
      }
    }
    fmt::print("\nlayer {} ({} K={} C={} R={} S={} X'={} Y'={} stride {}x{}{}{}; {} MACs): ", layer.name,
               contracts::to_string(layer.type), layer.K, layer.C, layer.R, layer.S, layer.output_x(), layer.output_y(),
               layer.stride_x, layer.stride_y,
               layer.dilation_x * layer.dilation_y > 1 ? fmt::format(" dilation {}x{}", layer.dilation_x, layer.dilation_y) : "",
               layer.groups > 1 ? fmt::format(" groups {}", layer.groups) : "", layer.macs());
    if (same_as.empty() && map_search.heuristic() && !fixed_tile)
      fmt::print("{}\n", map_search.summary());
    else if (same_as.empty() && !options.single_level && !fixed_tile)
      fmt::print("{} tiles ({} ruled out by the cycle bound) and {} two-level mappings of {} fabric tiles ({} of "
                 "them ruled out whole by their bound; {} of a joint space of {}) searched, {} with exact traffic, "
                 "in {:.1f} ms\n",
                 result.evaluated, result.bounded, result.joint_evaluated, result.joint_fabric_tiles,
                 result.joint_bounded_tiles, result.joint_exhaustive ? "all" : "budgeted part", result.joint_space,
                 result.exact_evaluations,
                 result.seconds * 1000);
    else if (same_as.empty())
      fmt::print("{} tiles searched ({} ruled out by the cycle bound), {} with exact traffic, in {:.1f} ms\n",
                 result.evaluated, result.bounded, result.exact_evaluations, result.seconds * 1000);
    else
      fmt::print("same shape as layer {}, its search reused\n", same_as);
    print_header();
    for (std::size_t rank = 0; rank < result.best.size(); ++rank) {
      print_row(fmt::format("#{}", rank + 1), result.best[rank]);
      csv += fmt::format("{},{},{}\n", layer.name, rank + 1, mapper::csv_row(result.best[rank]));
    }
    const contracts::CostReport& best = result.best.front();
    fmt::print("  DRAM of #1: {} bytes, compulsory {} bytes: {:.2f}x\n", best.counts.dram_bytes,
               best.compulsory_dram_bytes, dram_ratio(best));
    nlohmann::json entry = {{"layer", layer.name}, {"macs", layer.macs()}, {"evaluated", result.evaluated},
                            {"bounded", result.bounded},
                            {"compulsory_dram_bytes", best.compulsory_dram_bytes},
                            {"dram_bytes", best.counts.dram_bytes},
                            {"dram_ratio", dram_ratio(best)},
                            {"joint", !options.single_level && !fixed_tile
                                          ? nlohmann::json{{"space", result.joint_space},
                                                           {"evaluated", result.joint_evaluated},
                                                           {"fabric_tiles", result.joint_fabric_tiles},
                                                           {"bounded_fabric_tiles", result.joint_bounded_tiles},
                                                           {"exhaustive", result.joint_exhaustive}}
                                          : nlohmann::json(nullptr)},
                            {"exact_traffic_evaluations", result.exact_evaluations},
                            {"search_seconds", same_as.empty() ? result.seconds : 0.0},
                            {"same_shape_as", same_as.empty() ? nlohmann::json(nullptr) : nlohmann::json(same_as)},
                            {"prune", prune.names()},
                            {"best", nlohmann::json::array()}};
    for (const auto& report : result.best) entry["best"].push_back(mapper::to_json(report));
    if (result.baseline) {
      print_row("baseline", *result.baseline);
      csv += fmt::format("{},baseline,{}\n", layer.name, mapper::csv_row(*result.baseline));
      entry["baseline"] = mapper::to_json(*result.baseline);
      fmt::print("  vs baseline: runtime {:+.1f}%, energy {:+.1f}% (positive = better)\n",
                 mapper::improvement_percent(result.baseline->cycles.total, best.cycles.total),
                 mapper::improvement_percent(result.baseline->energy_pj.total, best.energy_pj.total));
      baseline_cycles += result.baseline->cycles.total;
      baseline_energy += result.baseline->energy_pj.total;
    } else {
      every_layer_has_baseline = false;
      fmt::print("  baseline (T_R,T_S,1,T_K,1,1,1) does not fit: R·S = {} > num_ms\n", layer.R * layer.S);
    }
    if (result.rule_losses_known && !fixed_tile) {
      const auto losses = mapper::rule_losses(result, layer, hardware, *objective);
      fmt::print("{}", mapper::format_rule_losses(losses, *objective));
      entry["rule_losses"] = mapper::to_json(losses);
    } else {
      entry["rule_losses"] = nullptr;  // needs the raw search: not with --prune or --tile
    }
    best_cycles += best.cycles.total;
    best_energy += best.energy_pj.total;
    best_dram += best.counts.dram_bytes;
    compulsory_dram += best.compulsory_dram_bytes;
    json_layers.push_back(entry);
    mapping.layers.push_back({layer, best.tile, best.cycles.total, best.energy_pj.total});
  }

  if (layers.size() > 1) {
    fmt::print("\ntotal over {} layers: {:.0f} cycles ({:.3f} ms at {} MHz), {:.1f} nJ\n", layers.size(), best_cycles,
               best_cycles / (hardware.clock_mhz * 1000.0), hardware.clock_mhz, best_energy / 1000.0);
    fmt::print("DRAM: {} bytes, compulsory {} bytes: {:.2f}x\n", best_dram, compulsory_dram,
               compulsory_dram > 0 ? double(best_dram) / double(compulsory_dram) : 0.0);
    if (every_layer_has_baseline) {
      fmt::print("baseline total: {:.0f} cycles, {:.1f} nJ; improvement: runtime {:+.1f}%, energy {:+.1f}%\n",
                 baseline_cycles, baseline_energy / 1000.0,
                 mapper::improvement_percent(baseline_cycles, best_cycles),
                 mapper::improvement_percent(baseline_energy, best_energy));
    }
  }

  contracts::write_mapping_file(output, mapping);
  fmt::print("\nmapping file: {}\n", output);
  if (!options.json.empty()) {
    const nlohmann::json document = {{"hardware", hardware.name}, {"workload", network.name},
                                     {"objective", options.objective}, {"prune", prune.names()},
                                     {"layers", json_layers},
                                     {"total_cycles", best_cycles}, {"total_energy_pj", best_energy},
                                     {"total_dram_bytes", best_dram}, {"total_compulsory_dram_bytes", compulsory_dram}};
    // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
    util::write_file_atomically(options.json,
                                  document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    fmt::print("json: {}\n", options.json);
  }
  if (!options.csv.empty()) {
    util::write_file_atomically(options.csv, csv);
    fmt::print("csv: {}\n", options.csv);
  }
  return kExitOk;
}

}  // namespace

void add_map_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<MapOptions>();
  CLI::App* command = app.add_subcommand("map", "Find the best mappings (tiles) of each layer with the analytical model");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML or ONNX model (.onnx)")->required();
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
  command->add_option("--tile", options->tile, "cost this tile instead of searching: T_R,T_S,T_C,T_K,T_N,T_X',T_Y'");
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
  add_map_search_options(command, options->search);
  command->add_option("--json", options->json, "write all results as JSON to this file");
  command->add_option("--csv", options->csv, "write all results as CSV to this file");
  command->add_option("-o,--output", options->output,
                      "mapping file to write (default: <workload>.<hardware>.mapping.yaml)");
  command->footer("Example: maeri map --hardware configs/hardware/maeri-512.yaml "
                  "--workload configs/workloads/mrna-table2.yaml --objective energy --top 3");
  command->callback([options, &action] { action = [options] { return run_map(*options); }; });
}

}  // namespace maeri::cli
