// Mapping a workload layer by layer, with its reports (workload_mapping.hpp).
#include "mapper/search/workload_mapping.hpp"

#include <fmt/format.h>

#include "mapper/model/cost_model.hpp"
#include "mapper/model/report_json.hpp"
#include "util/input_error.hpp"

namespace maeri::mapper {

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
      mapping_{hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, network.name,
               to_string(options_.objective), {}},
      csv_("layer,rank," + csv_header() + "\n") {}

void WorkloadMapping::map(const std::vector<contracts::Layer>& layers,
                          const std::function<void(const MappedLayer&)>& on_layer) {
  for (const contracts::Layer& layer : layers) {
    const MappedLayer mapped = map_layer(layer);
    add_to_reports(mapped);
    on_layer(mapped);
  }
}

MappedLayer WorkloadMapping::map_layer(const contracts::Layer& layer) {
  MappedLayer mapped{layer, {}, {}, {}};
  SearchResult& result = mapped.result;
  const auto refine = options_.exact_traffic_for;
  if (options_.fixed) {
    result.best = {evaluate(layer, hardware_, *options_.fixed)};
    refine(layer, hardware_)(result.best.front());
    result.evaluated = 1;
    if (const auto baseline = contracts::baseline_tile(layer, hardware_)) {
      result.baseline = evaluate(layer, hardware_, contracts::single_level_mapping(*baseline));
      refine(layer, hardware_)(*result.baseline);
    }
    return mapped;
  }
  if (const auto reason = unmappable_reason(layer, hardware_, options_.prune))
    throw util::InputError({options_.workload_path, 0, 0}, "layers." + layer.name, *reason);
  ShapeKey key{static_cast<std::int64_t>(layer.type)};
  for (std::size_t f = 0; f < contracts::kLayerShapeFields.size(); ++f)
    key[f + 1] = layer.*contracts::kLayerShapeFields[f].member;
  if (const auto found = searched_.find(key); found != searched_.end()) {
    mapped.same_as = found->second.first;
    result = found->second.second;
  } else {
    // Ranked by the model with exact DN/RN traffic, so what is shown is what was ranked.
    SearchOptions search = map_search_options(options_.objective, options_.top, refine(layer, hardware_),
                                              options_.two_level);
    search.threads = options_.threads;
    search.prune = options_.prune;
    search.joint.budget = options_.joint_budget;
    const bool heuristic = options_.heuristic && options_.heuristic->heuristic();
    result = heuristic ? options_.heuristic->search(layer, hardware_, search) : mapper::search(layer, hardware_, search);
    searched_.emplace(key, std::make_pair(layer.name, result));
  }
  if (result.rule_losses_known) mapped.rule_losses = rule_losses(result, layer, hardware_, options_.objective);
  return mapped;
}

void WorkloadMapping::add_to_reports(const MappedLayer& mapped) {
  const contracts::Layer& layer = mapped.layer;
  const SearchResult& result = mapped.result;
  for (std::size_t rank = 0; rank < result.best.size(); ++rank)
    csv_ += fmt::format("{},{},{}\n", layer.name, rank + 1, csv_row(result.best[rank]));
  const contracts::CostReport& best = result.best.front();
  const bool joint = options_.two_level && !options_.fixed;
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
                          {"same_shape_as", mapped.same_as.empty() ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(mapped.same_as)},
                          {"prune", options_.prune.names()},
                          {"best", nlohmann::json::array()}};
  for (const auto& report : result.best) entry["best"].push_back(to_json(report));
  if (result.baseline) {
    csv_ += fmt::format("{},baseline,{}\n", layer.name, csv_row(*result.baseline));
    entry["baseline"] = to_json(*result.baseline);
    totals_.baseline_cycles += result.baseline->cycles.total;
    totals_.baseline_energy_pj += result.baseline->energy_pj.total;
  } else {
    totals_.every_layer_has_baseline = false;
  }
  entry["rule_losses"] = mapped.rule_losses ? to_json(*mapped.rule_losses) : nlohmann::json(nullptr);
  totals_.cycles += best.cycles.total;
  totals_.energy_pj += best.energy_pj.total;
  totals_.dram_bytes += best.counts.dram_bytes;
  totals_.compulsory_dram_bytes += best.compulsory_dram_bytes;
  json_layers_.push_back(entry);
  mapping_.layers.push_back({layer, best.mapping, best.cycles.total, best.energy_pj.total});
}

std::string WorkloadMapping::json() const {
  const nlohmann::json document = {{"hardware", hardware_.name}, {"workload", network_.name},
                                   {"objective", to_string(options_.objective)}, {"prune", options_.prune.names()},
                                   {"layers", json_layers_},
                                   {"total_cycles", totals_.cycles}, {"total_energy_pj", totals_.energy_pj},
                                   {"total_dram_bytes", totals_.dram_bytes},
                                   {"total_compulsory_dram_bytes", totals_.compulsory_dram_bytes}};
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace maeri::mapper
