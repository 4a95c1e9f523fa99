// Mapping a workload layer by layer, with its reports (workload_mapping.hpp).
#include "flow/workload_mapping.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "flow/exact_members.hpp"
#include "flow/exact_ranking.hpp"
#include "flow/fused_groups.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/model/report_json.hpp"
#include "util/input_error.hpp"

namespace maeri::flow {

std::string member_role(const contracts::FusedRole& role) {
  const bool reads_group = role.input_in_sdm || role.weights_in_sdm;  // its input or its operand A
  if (reads_group && role.output_in_sdm) return "inner";
  if (role.output_in_sdm) return "producer";
  if (reads_group) return "consumer";
  return "member";
}

namespace {

// A layer's role in `map --json`: standalone, or its fused group's name, its place and role in it (the fields of
// `disasm --json`'s "fused" record, docs/config-image.md); and its chosen mapping's report in that role.
void set_role(nlohmann::json& entry, const ChosenLayer& chosen) {
  entry["role"] = chosen.fused ? "fused" : "standalone";
  if (chosen.fused) {
    const contracts::FusedMember& member = *chosen.fused;
    entry["fused_group"] = {{"name", member.group},
                            {"position", member.position},
                            {"members", member.members},
                            {"member_role", member_role(member.role)},
                            {"stripes", member.role.stripes},
                            {"input_in_sdm", member.role.input_in_sdm},
                            {"output_in_sdm", member.role.output_in_sdm},
                            {"weights_pinned", member.role.weights_pinned},
                            {"output_over_shortcut", member.role.output_over_shortcut}};
    if (member.role.weights_in_sdm) entry["fused_group"]["weights_in_sdm"] = true;  // a matrix product's operand A
    if (member.role.token_stripes) entry["fused_group"]["token_stripes"] = true;    // stripes along N (tokens)
    if (member.role.query_rows) entry["fused_group"]["query_rows"] = true;  // a product's stripes: its query rows
  } else {
    entry["fused_group"] = nullptr;
  }
  entry["in_role"] = mapper::to_json(chosen.report);
}

}  // namespace

double dram_ratio(const contracts::CostReport& report) {
  return report.compulsory_dram_bytes > 0
             ? double(report.counts.dram_bytes) / double(report.compulsory_dram_bytes)
             : 0.0;
}

WorkloadMapping::WorkloadMapping(const contracts::Network& network, const contracts::Hardware& hardware,
                                 WorkloadMappingOptions options)
    : network_(network),
      hardware_(hardware),
      options_(std::move(options)),
      mapping_(contracts::mapping_file_for(hardware, network.name, to_string(options_.objective))),
      csv_group_tile_(std::any_of(network.layers.begin(), network.layers.end(),
                                  [](const contracts::Layer& layer) { return layer.groups > 1; })),
      csv_("layer,rank," + mapper::csv_header(csv_group_tile_) + "\n") {}

void WorkloadMapping::map(const std::vector<contracts::Layer>& layers,
                          const std::function<void(const MappedLayer&)>& on_layer) {
  const bool whole_network = layers.size() > 1 && layers.size() == network_.layers.size();
  fusing_ = options_.fusion && options_.two_level && !options_.fixed && !options_.given && whole_network;
  for (const contracts::Layer& layer : layers) {
    const MappedLayer mapped = map_layer(layer);
    add_to_reports(mapped);
    on_layer(mapped);
  }
  if (fusing_) fuse();
  if (options_.given && whole_network) cost_given_groups();
}

MappedLayer WorkloadMapping::map_layer(const contracts::Layer& layer) {
  MappedLayer mapped{layer, {}, {}, {}};
  mapper::SearchResult& result = mapped.result;
  const auto refine = options_.exact_traffic_for;
  const std::optional<contracts::Mapping> fixed =
      options_.given ? contracts::tile_for_layer(*options_.given, options_.given_path, layer, hardware_) : options_.fixed;
  if (fixed) {
    ExactTimings timings(layer, hardware_);
    result.best = {mapper::evaluate(layer, hardware_, *fixed)};
    refine(layer, hardware_)(result.best.front());
    timings.refine(result.best.front());
    result.evaluated = 1;
    if (const auto baseline = contracts::baseline_tile(layer, hardware_)) {
      result.baseline = mapper::evaluate(layer, hardware_, contracts::single_level_mapping(*baseline));
      refine(layer, hardware_)(*result.baseline);
      timings.refine(*result.baseline);
    }
    return mapped;
  }
  if (const auto reason = mapper::unmappable_reason(layer, hardware_, options_.prune))
    throw util::InputError({options_.workload_path, 0, 0}, "layers." + layer.name, *reason);
  ShapeKey key{static_cast<std::int64_t>(layer.type)};
  for (std::size_t f = 0; f < contracts::kLayerShapeFields.size(); ++f)
    key[f + 1] = layer.*contracts::kLayerShapeFields[f].member;
  if (const auto found = searched_.find(key); found != searched_.end()) {
    mapped.same_as = found->second.first;
    result = found->second.second;
  } else {
    // Ranked by exact cycles with DRAM and exact DN/RN traffic (exact_ranking.hpp), so what is shown is what was ranked.
    const int top = fusing_ ? std::max(options_.top, options_.fusion_options.fabric_tiles) : options_.top;
    mapper::SearchOptions search = map_search_options(options_.objective, top, refine(layer, hardware_), options_.two_level);
    search.threads = options_.threads;
    search.prune = options_.prune;
    search.joint.budget = options_.joint_budget;
    result = search_exactly(layer, hardware_, search, options_.heuristic, !options_.decision_only);
    searched_.emplace(key, std::make_pair(layer.name, result));
  }
  // Only a layer whose best mapping alone waits for DRAM can rank its tiles by DRAM rather than by what they compute;
  // only a grouped layer's (depthwise) tiles differ enough in compute for it to matter (T_G), and every other
  // layer's extra tiles multiply the fused search's joins (GoogLeNet and MobileNetV2 on maeri-1024: over 40 s).
  const bool dram_bound = result.best.front().cycles.memory_stall > 0 && layer.groups > 1;
  if (fusing_ && options_.fusion_options.memory_free_tiles > 0 && dram_bound) {
    auto memory_free = memory_free_searched_.find(key);
    if (memory_free == memory_free_searched_.end()) {
      const contracts::Hardware free_hardware = mapper::memory_free_hardware(hardware_);
      mapper::SearchOptions search = map_search_options(options_.objective, options_.fusion_options.memory_free_tiles,
                                                refine(layer, free_hardware), options_.two_level);
      search.threads = options_.threads;
      search.prune = options_.prune;
      search.joint.budget = options_.joint_budget;
      memory_free = memory_free_searched_.emplace(key, mapper::search(layer, free_hardware, search).best).first;
    }
    memory_free_candidates_.push_back(memory_free->second);
  } else if (fusing_) {
    memory_free_candidates_.push_back({});
  }
  if (fusing_) {
    fusion_candidates_.push_back(result.best);
    if (result.best.size() > std::size_t(options_.top)) result.best.resize(std::size_t(options_.top));
  }
  if (result.rule_losses_known) mapped.rule_losses = mapper::rule_losses(result, layer, hardware_, options_.objective);
  return mapped;
}

void WorkloadMapping::add_to_reports(const MappedLayer& mapped) {
  const contracts::Layer& layer = mapped.layer;
  const mapper::SearchResult& result = mapped.result;
  for (std::size_t rank = 0; rank < result.best.size(); ++rank)
    csv_ += fmt::format("{},{},{}\n", layer.name, rank + 1, mapper::csv_row(result.best[rank], csv_group_tile_));
  const contracts::CostReport& best = result.best.front();
  const bool joint = options_.two_level && !options_.fixed && !options_.given;
  nlohmann::json entry = {{"layer", layer.name}, {"macs", layer.macs()}, {"evaluated", result.evaluated},
                          {"bounded", result.bounded},
                          {"compulsory_dram_bytes", best.compulsory_dram_bytes},
                          {"dram_bytes", best.counts.dram_bytes},
                          {"dram_ratio", dram_ratio(best)},
                          {"joint", joint ? nlohmann::json{{"space", result.joint_space},
                                                           {"evaluated", result.joint_evaluated},
                                                           {"fabric_tiles", result.joint_fabric_tiles},
                                                           {"bounded_fabric_tiles", result.joint_bounded_tiles},
                                                           {"exhaustive", result.joint_exhaustive}}
                                          : nlohmann::json(nullptr)},
                          {"exact_traffic_evaluations", result.exact_evaluations},
                          {"search_seconds", mapped.same_as.empty() ? result.seconds : 0.0},
                          {"exact_ranking", result.exact_ranking.ranked
                                                ? nlohmann::json{{"candidates", result.exact_ranking.candidates},
                                                                 {"timed", result.exact_ranking.timed},
                                                                 {"proven", result.exact_ranking.proven},
                                                                 {"seconds", result.exact_ranking.seconds}}
                                                : nlohmann::json(nullptr)},
                          {"same_shape_as", mapped.same_as.empty() ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(mapped.same_as)},
                          {"prune", options_.prune.names()},
                          {"best", nlohmann::json::array()}};
  for (const auto& report : result.best) entry["best"].push_back(mapper::to_json(report));
  if (result.baseline) {
    csv_ += fmt::format("{},baseline,{}\n", layer.name, mapper::csv_row(*result.baseline, csv_group_tile_));
    entry["baseline"] = mapper::to_json(*result.baseline);
    totals_.baseline_cycles += result.baseline->cycles.total;
    totals_.baseline_energy_pj += result.baseline->energy_pj.total;
  } else {
    totals_.every_layer_has_baseline = false;
  }
  entry["rule_losses"] = mapped.rule_losses ? mapper::to_json(*mapped.rule_losses) : nlohmann::json(nullptr);
  totals_.cycles += best.cycles.total;
  totals_.energy_pj += best.energy_pj.total;
  totals_.dram_bytes += best.counts.dram_bytes;
  totals_.compulsory_dram_bytes += best.compulsory_dram_bytes;
  chosen_.push_back({layer, best, std::nullopt});
  set_role(entry, chosen_.back());
  json_layers_.push_back(entry);
  mapping_.layers.push_back({layer, best.mapping, best.cycles.total, best.energy_pj.total});
}

namespace {

nlohmann::json totals_json(const mapper::CostTotals& totals, std::int64_t compulsory_dram_bytes) {
  return {{"cycles", totals.cycles}, {"energy_pj", totals.energy_pj}, {"edp", totals.edp()},
          {"dram_bytes", totals.dram_bytes},
          {"dram_ratio", compulsory_dram_bytes > 0 ? double(totals.dram_bytes) / double(compulsory_dram_bytes) : 0.0}};
}

}  // namespace

void WorkloadMapping::fuse() {
  fusion_ = mapper::fuse_network(network_, hardware_, fusion_candidates_, options_.objective, options_.exact_traffic_for,
                         options_.fusion_options, memory_free_candidates_, exact_member_timing(network_, hardware_));
  record_fusion();
}

void WorkloadMapping::cost_given_groups() {
  // The file's groups refused as codegen refuses them (named fused_groups[i]), then costed as map costs its own.
  flow::planned_groups(network_, hardware_, *options_.given, options_.given_path);
  std::vector<mapper::FusedGroup> groups;
  for (const contracts::FusedGroupEntry& entry : options_.given->fused_groups)
    groups.push_back(mapper::loaded_group(network_, hardware_, *options_.given, entry).group);
  std::vector<contracts::CostReport> given;
  for (const ChosenLayer& chosen : chosen_) given.push_back(chosen.report);
  fusion_ = mapper::given_fusion(network_, hardware_, given, groups, options_.exact_traffic_for,
                                 exact_member_timing(network_, hardware_));
  record_fusion();
}

void WorkloadMapping::record_fusion() {
  const mapper::NetworkFusionResult& fusion = *fusion_;
  const mapper::FusedSearchStats& stats = fusion.stats;
  json_fusion_ = {{"stats", {{"partial_mappings", stats.made}, {"pruned", stats.pruned}, {"joined", stats.joined},
                             {"candidate_groups", stats.groups}, {"options", stats.options},
                             {"traffic_costed", stats.traffic_costed}, {"timed", stats.timed},
                             {"solved_groups", stats.solved_groups}, {"member_timed", stats.member_timed},
                             {"member_replayed_cycles", stats.member_replayed_cycles},
                             {"open_groups", stats.open_groups}, {"proven", stats.proven},
                             {"seconds", stats.seconds},
                             {"split_back", fusion.split_back}}},
                  {"network_compulsory_dram_bytes", fusion.compulsory_dram_bytes},
                  {"unfused", totals_json(fusion.unfused, fusion.compulsory_dram_bytes)},
                  {"fused", totals_json(fusion.fused, fusion.compulsory_dram_bytes)},
                  {"groups", nlohmann::json::array()}};
  const mapper::FusionGraph graph = mapper::fusion_graph(network_);
  for (const mapper::GroupResult& result : fusion.groups) {
    if (result.group.count < 2) continue;
    contracts::FusedGroupEntry entry = mapper::mapping_file_entry(network_, result.group);
    if (options_.given)  // the file's own entry, by its name
      for (const contracts::FusedGroupEntry& given : options_.given->fused_groups)
        if (given.layers.front() == entry.layers.front()) entry = given;
    const std::vector<contracts::FusedRole> roles = mapper::group_roles(graph, result.group);
    nlohmann::json group = {{"name", entry.name}, {"layers", entry.layers}, {"stripes", entry.stripes},
                            {"pinned_weights", entry.pinned_weights},
                            {"unfused", totals_json(result.unfused_totals, 0)},
                            {"fused", totals_json(result.fused_totals, 0)}, {"members", nlohmann::json::array()}};
    if (entry.token_stripes) group["token_stripes"] = true;
    for (std::size_t i = 0; i < result.group.count; ++i) {
      const contracts::CostReport& report = result.fused[i];
      group["members"].push_back(mapper::to_json(report));
      mapping_.layers[result.group.first + i] =
          contracts::LayerMapping{network_.layers[result.group.first + i], report.mapping, report.cycles.total,
                                  report.energy_pj.total};
      ChosenLayer& chosen = chosen_[result.group.first + i];
      chosen.report = report;
      chosen.fused = contracts::FusedMember{entry.name, std::int64_t(i), std::int64_t(result.group.count), roles[i]};
      set_role(json_layers_[result.group.first + i], chosen);
    }
    json_fusion_["groups"].push_back(group);
    mapping_.fused_groups.push_back(entry);
  }
  totals_.cycles = fusion.fused.cycles;
  totals_.energy_pj = fusion.fused.energy_pj;
  totals_.dram_bytes = fusion.fused.dram_bytes;
}

std::string WorkloadMapping::json() const {
  nlohmann::json document = {{"hardware", hardware_.name}, {"workload", network_.name},
                             {"objective", to_string(options_.objective)}, {"prune", options_.prune.names()},
                             {"layers", json_layers_},
                             {"total_cycles", totals_.cycles}, {"total_energy_pj", totals_.energy_pj},
                             {"total_dram_bytes", totals_.dram_bytes},
                             {"total_compulsory_dram_bytes", totals_.compulsory_dram_bytes}};
  if (fusion_) document["fusion"] = json_fusion_;  // absent when not fusing: the document of unfused mappings as it was
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace maeri::flow
