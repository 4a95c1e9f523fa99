// Evaluating the points of a design-space sweep and their Pareto front (see design_sweep.hpp).
#include "flow/design_sweep.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <set>

#include "flow/map_decision.hpp"
#include "flow/workload_mapping.hpp"
#include "mapper/model/report_json.hpp"
#include "util/input_error.hpp"

namespace maeri::flow {

std::size_t DesignPoint::fused_groups() const {
  std::set<std::string> names(groups.begin(), groups.end());
  names.erase(std::string());
  return names.size();
}

void evaluate_design_point(DesignPoint& point, const contracts::Network& network, const PointMapping& how) {
  point.chosen.clear();
  point.groups.clear();
  point.decision = {};
  WorkloadMappingOptions options = map_decision_options(how.objective, how.fusion, how.workload_path);
  options.exact_traffic_for = how.exact_traffic_for;
  options.two_level = how.two_level;
  try {
    WorkloadMapping mapping(network, point.hardware, options);
    mapping.map(network.layers, [](const MappedLayer&) {});
    for (const ChosenLayer& chosen : mapping.chosen()) {
      point.chosen.push_back(chosen.report);
      point.groups.push_back(chosen.fused ? chosen.fused->group : std::string());
    }
    point.cycles = mapping.totals().cycles;
    point.energy_pj = mapping.totals().energy_pj;
    point.dram_bytes = mapping.totals().dram_bytes;
    point.decision = mapping.mapping_file();
  } catch (const util::InputError& error) {
    point.error = error.what();
    return;
  }
  std::int64_t macs = 0;
  for (const contracts::Layer& layer : network.layers) macs += layer.macs();
  point.utilisation = point.cycles > 0 ? static_cast<double>(macs) /
                                             (static_cast<double>(point.hardware.num_ms) * point.cycles)
                                       : 0;
  point.area_um2 = contracts::estimated_area_um2(point.hardware);
}

void evaluate_design_points(std::vector<DesignPoint>& points, const contracts::Network& network, const PointMapping& how,
                            const std::function<void(std::size_t)>& progress) {
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  // One point per task: points differ in cost by orders of magnitude (num_ms), so TBB balances them one by one;
  // each point's own search is parallel too, and TBB nests the two levels.
  tbb::parallel_for(std::size_t{0}, points.size(), [&](std::size_t i) {
    if (!points[i].error) evaluate_design_point(points[i], network, how);
    const std::size_t finished = ++done;
    if (progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress(finished);
    }
  });
}

nlohmann::json design_point_results_to_json(const DesignPoint& point) {
  nlohmann::json layers = nlohmann::json::array();
  for (const contracts::CostReport& report : point.chosen) layers.push_back(mapper::to_json(report));
  nlohmann::json json = {{"cycles", point.cycles},         {"energy_pj", point.energy_pj},
                         {"utilisation", point.utilisation}, {"dram_bytes", point.dram_bytes},
                         {"layers", layers},                 {"groups", point.groups}};
  if (point.area_um2) json["area_um2"] = *point.area_um2;
  if (point.error) json["error"] = *point.error;
  return json;
}

void design_point_results_from_json(DesignPoint& point, const nlohmann::json& json) {
  point.chosen.clear();
  for (const nlohmann::json& layer : json.at("layers")) point.chosen.push_back(mapper::cost_report_from_json(layer));
  json.at("groups").get_to(point.groups);
  json.at("cycles").get_to(point.cycles);
  json.at("energy_pj").get_to(point.energy_pj);
  json.at("utilisation").get_to(point.utilisation);
  json.at("dram_bytes").get_to(point.dram_bytes);
  point.area_um2.reset();
  if (json.contains("area_um2")) point.area_um2 = json.at("area_um2").get<double>();
  if (json.contains("error")) point.error = json.at("error").get<std::string>();
}

std::vector<std::size_t> pareto_front(const std::vector<std::pair<double, double>>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return points[a] != points[b] ? points[a] < points[b] : a < b;
  });
  // Sorted by (x, y): a point is on the front when its y is below every y seen at a smaller x, or equal to the
  // front point it duplicates exactly.
  std::vector<std::size_t> front;
  double best_y = 0;
  bool any = false;
  for (const std::size_t i : order) {
    const auto& [x, y] = points[i];
    if (!any || y < best_y) {
      front.push_back(i);
      best_y = y;
      any = true;
    } else if (y == best_y && points[front.back()] == points[i]) {
      front.push_back(i);
    }
  }
  return front;
}

}  // namespace maeri::flow
