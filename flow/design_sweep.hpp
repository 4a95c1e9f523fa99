// Design-space sweeps (`maeri sweep`): for every point of a hardware grid, the decision `maeri map` makes for the
// workload under an objective (each layer's mapping in its role, the fused groups) and the network's totals (cycles,
// energy, EDP, utilisation, DRAM bytes, estimated area), points evaluated in parallel; plus the runtime-energy
// Pareto front of the results.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

struct DesignPoint {
  std::size_t index = 0;
  std::string label;                 // "num_ms=64 dn_bw=8"
  std::vector<std::string> values;   // one per swept field
  std::optional<std::string> error;  // why the point could not be evaluated (invalid spec, unmappable layer)
  contracts::Hardware hardware;           // valid when !error
  // Each layer's mapping as `maeri map` decides it, in workload order, costed in its role (a fused group's member as
  // the group runs it), and the name of its fused group ("" when it runs alone).
  std::vector<contracts::CostReport> chosen;
  std::vector<std::string> groups;
  // The mapping file `maeri map` would write for the point. Only on the rank that evaluated the point (ranks send
  // results, not decisions): that rank co-simulates it under --verify.
  contracts::MappingFile decision;
  double cycles = 0, energy_pj = 0;
  double utilisation = 0;            // network MACs / (num_ms · cycles)
  std::int64_t dram_bytes = 0;
  std::optional<double> area_um2;    // contracts::estimated_area_um2
  double edp() const { return cycles * energy_pj; }
  std::size_t fused_groups() const;  // the distinct names in `groups`
};

// How a point is mapped: as `maeri map --objective OBJECTIVE` with its defaults (flow/map_decision.hpp), which the
// sweep's --single-level and --no-fusion change as map's own options do.
struct PointMapping {
  mapper::Objective objective = mapper::Objective::EnergyDelay;
  contracts::ExactTrafficFor exact_traffic_for;  // how each layer is ranked and reported (codegen::exact_traffic_for)
  bool two_level = true;                         // the joint space
  bool fusion = true;                            // the network's layers fused, as map decides
  std::string workload_path;                     // named when a layer does not fit
};

// Fills `point` (hardware already set, error unset) with map's decision and its totals; sets point.error when a
// layer has no mapping.
void evaluate_design_point(DesignPoint& point, const contracts::Network& network, const PointMapping& how);

// Evaluates every point without an error in parallel (TBB); `progress` is called after each with the number done.
void evaluate_design_points(std::vector<DesignPoint>& points, const contracts::Network& network, const PointMapping& how,
                            const std::function<void(std::size_t)>& progress);

// A point's results (totals, area, each layer's chosen report and group) as JSON and back, bit-exact (doubles are written as
// their shortest round-trip decimals): how a point evaluated on another MPI rank reaches rank 0.
nlohmann::json design_point_results_to_json(const DesignPoint& point);
void design_point_results_from_json(DesignPoint& point, const nlohmann::json& json);

// Indices of the points no other point dominates when both coordinates are minimised (a dominates b when it is
// no worse in both and better in one); equal points are all kept. Ascending by the first coordinate.
std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace maeri::flow
