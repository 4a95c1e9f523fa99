// Mapping a workload (`maeri map`): the best mappings of each layer under an objective — the exact optimum of the
// model over the raw Eq. 1 space or a pruned one, a heuristic search, or one fixed mapping costed — with the paper's
// baseline, what each pruning rule alone would lose, the network's fused groups (network_fusion.hpp), network totals,
// and the reports: the mapping file that codegen consumes, JSON and CSV. Layers of a shape already searched reuse its
// result (the model sees only the shape).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contracts/cost_report.hpp"
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/tile.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "mapper/search/heuristic_mapper.hpp"
#include "mapper/search/network_fusion.hpp"
#include "mapper/search/rule_loss.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

struct WorkloadMappingOptions {
  mapper::Objective objective = mapper::Objective::Runtime;
  int top = 5;
  int threads = 0;              // 0 = all
  mapper::RuleSet prune;                // empty: the raw Eq. 1 space
  bool two_level = true;        // the joint space (fabric tile x SDM tile x orders)
  std::uint64_t joint_budget = mapper::JointSearch{}.budget;
  std::optional<contracts::Mapping> fixed;  // cost this mapping of the (one) layer instead of searching
  // Cost this mapping file's decision instead of searching (`map --mapping`): every layer's mapping from it and, on
  // the whole network, its fused groups, checked as codegen checks them (flow/fused_groups.hpp). Not owned.
  const contracts::MappingFile* given = nullptr;
  std::string given_path;  // where its errors point
  mapper::HeuristicMapper* heuristic = nullptr;  // search with it when it is heuristic()
  contracts::ExactTrafficFor exact_traffic_for;     // how each mapping is ranked and reported (codegen::exact_traffic_for)
  std::string workload_path;             // where an unmappable layer's error points
  // Fuse the network's layers after their own searches (network_fusion.hpp) when the whole network is mapped in the
  // joint space without a fixed mapping; each layer's search then keeps at least fusion_options.fabric_tiles
  // mappings, the first `top` of them reported.
  bool fusion = false;
  mapper::FusionOptions fusion_options;
  // Only the decision is wanted (the mapping file: map_decision for verify, run, codegen): the reports beside each
  // layer's list — baseline, single-level optimum, the rules' optima — keep the fluid estimate instead of being
  // timed exactly (search_exactly's time_beside), which changes no list, group or mapping file.
  bool decision_only = false;
};

// One layer's result, as reported.
struct MappedLayer {
  contracts::Layer layer;
  mapper::SearchResult result;
  std::string same_as;                        // the earlier layer of the same shape whose search was reused
  std::optional<std::vector<mapper::RuleLoss>> rule_losses;  // needs the raw search: not with a pruned space or a fixed mapping
};

struct WorkloadTotals {
  double cycles = 0, energy_pj = 0, baseline_cycles = 0, baseline_energy_pj = 0;
  std::int64_t dram_bytes = 0, compulsory_dram_bytes = 0;
  bool every_layer_has_baseline = true;
};

// A layer as the network runs it: its chosen mapping costed in its role — standalone (its own best) or as a member
// of a fused group, whose cost differs from its standalone best (its shared tensors stay in the SDM).
struct ChosenLayer {
  contracts::Layer layer;
  contracts::CostReport report;
  std::optional<contracts::FusedMember> fused;  // nullopt: standalone
};

// A fused member's role in one word, from what it shares through the SDM: "producer" (its output stays there),
// "consumer" (its input is there), "inner" (both), "member" (neither: it shares a side operand or pinned weights).
std::string member_role(const contracts::FusedRole& role);

// DRAM bytes of a mapping over the compulsory bytes (0 when there are none).
double dram_ratio(const contracts::CostReport& report);

// Maps the layers in order, calling `on_layer` after each (a heuristic mapper's summary() is then that layer's).
// Throws util::InputError for an unmappable layer. A fixed mapping must fit its layer (contracts::mapping_violation).
class WorkloadMapping {
 public:
  WorkloadMapping(const contracts::Network& network, const contracts::Hardware& hardware,
                  WorkloadMappingOptions options);
  void map(const std::vector<contracts::Layer>& layers, const std::function<void(const MappedLayer&)>& on_layer);

  // The totals of the mapping chosen: with fused groups, their cost.
  const WorkloadTotals& totals() const { return totals_; }
  // Set when the layers were fused (WorkloadMappingOptions::fusion), or a given mapping file's whole network costed.
  const std::optional<mapper::NetworkFusionResult>& fusion() const { return fusion_; }
  // Per layer mapped, in order: its chosen mapping in its role (with fused groups, the member's cost).
  const std::vector<ChosenLayer>& chosen() const { return chosen_; }
  const contracts::MappingFile& mapping_file() const { return mapping_; }
  std::string csv() const { return csv_; }
  std::string json() const;  // the whole document, as written by `map --json`

 private:
  MappedLayer map_layer(const contracts::Layer& layer);
  void add_to_reports(const MappedLayer& mapped);
  void fuse();
  void cost_given_groups();
  void record_fusion();

  const contracts::Network& network_;
  const contracts::Hardware& hardware_;
  WorkloadMappingOptions options_;
  using ShapeKey = std::array<std::int64_t, 1 + contracts::kLayerShapeFields.size()>;
  std::map<ShapeKey, std::pair<std::string, mapper::SearchResult>> searched_;  // per shape: its first layer and result
  contracts::MappingFile mapping_;
  std::vector<ChosenLayer> chosen_;
  nlohmann::json json_layers_ = nlohmann::json::array();
  bool csv_group_tile_;  // the CSV has a T_G column: the network has a grouped layer
  std::string csv_;
  WorkloadTotals totals_;
  bool fusing_ = false;
  std::vector<std::vector<contracts::CostReport>> fusion_candidates_;  // per layer: its search's whole best list
  // Per shape and per layer: the best list of the same search on the hardware without DRAM cost
  // (memory_free_hardware), whose fabric tiles join the fused space.
  std::map<ShapeKey, std::vector<contracts::CostReport>> memory_free_searched_;
  std::vector<std::vector<contracts::CostReport>> memory_free_candidates_;
  std::optional<mapper::NetworkFusionResult> fusion_;
  nlohmann::json json_fusion_;
};

}  // namespace maeri::flow
