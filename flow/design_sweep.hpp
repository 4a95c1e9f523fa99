// Design-space sweeps (`maeri sweep`): for every point of a hardware grid, the best mapping of each layer of a
// workload under an objective and the network's totals (cycles, energy, EDP, utilisation, DRAM bytes, estimated
// area), points evaluated in parallel; plus the runtime-energy Pareto front of the results.
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
#include "contracts/network.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

struct DesignPoint {
  std::size_t index = 0;
  std::string label;                 // "num_ms=64 dn_bw=8"
  std::vector<std::string> values;   // one per swept field
  std::optional<std::string> error;  // why the point could not be evaluated (invalid spec, unmappable layer)
  contracts::Hardware hardware;           // valid when !error
  std::vector<contracts::CostReport> best;  // best mapping of each layer, in workload order
  double cycles = 0, energy_pj = 0;
  double utilisation = 0;            // network MACs / (num_ms · cycles)
  std::int64_t dram_bytes = 0;
  std::optional<double> area_um2;    // contracts::estimated_area_um2
  double edp() const { return cycles * energy_pj; }
};

// Fills `point` (hardware already set, error unset) with the best mapping of every layer and the totals; sets
// point.error when a layer has no mapping. `two_level`: search the joint space, as `maeri map` does by default.
void evaluate_design_point(DesignPoint& point, const contracts::Network& network, mapper::Objective objective,
                           const contracts::ExactTrafficFor& exact_traffic_for, bool two_level = true);

// Evaluates every point without an error in parallel (TBB); `progress` is called after each with the number done.
void evaluate_design_points(std::vector<DesignPoint>& points, const contracts::Network& network, mapper::Objective objective,
                            const contracts::ExactTrafficFor& exact_traffic_for, const std::function<void(std::size_t)>& progress,
                            bool two_level = true);

// A point's results (totals, area, each layer's best report) as JSON and back, bit-exact (doubles are written as
// their shortest round-trip decimals): how a point evaluated on another MPI rank reaches rank 0.
nlohmann::json design_point_results_to_json(const DesignPoint& point);
void design_point_results_from_json(DesignPoint& point, const nlohmann::json& json);

// Indices of the points no other point dominates when both coordinates are minimised (a dominates b when it is
// no worse in both and better in one); equal points are all kept. Ascending by the first coordinate.
std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace maeri::flow
