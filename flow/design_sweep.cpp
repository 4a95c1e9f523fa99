// Evaluating the points of a design-space sweep and their Pareto front (see design_sweep.hpp).
#include "flow/design_sweep.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>

#include "mapper/model/report_json.hpp"

namespace maeri::flow {

void evaluate_design_point(DesignPoint& point, const contracts::Network& network, mapper::Objective objective,
                           const contracts::ExactTrafficFor& exact_traffic_for, bool two_level) {
  point.best.clear();
  point.cycles = point.energy_pj = 0;
  point.dram_bytes = 0;
  std::int64_t macs = 0;
  for (const contracts::Layer& layer : network.layers) {
    mapper::SearchOptions options =
        map_search_options(objective, 1, exact_traffic_for ? exact_traffic_for(layer, point.hardware) : contracts::ExactTrafficRefinement{},
                           two_level);
    mapper::SearchResult result = search(layer, point.hardware, options);
    if (result.best.empty()) {
      point.error = "layer '" + layer.name + "' has no mapping on this hardware";
      return;
    }
    contracts::CostReport best = result.best.front();
    point.cycles += best.cycles.total;
    point.energy_pj += best.energy_pj.total;
    point.dram_bytes += best.counts.dram_bytes;
    macs += layer.macs();
    point.best.push_back(std::move(best));
  }
  point.utilisation = point.cycles > 0 ? static_cast<double>(macs) /
                                             (static_cast<double>(point.hardware.num_ms) * point.cycles)
                                       : 0;
  point.area_um2 = contracts::estimated_area_um2(point.hardware);
}

void evaluate_design_points(std::vector<DesignPoint>& points, const contracts::Network& network, mapper::Objective objective,
                            const contracts::ExactTrafficFor& exact_traffic_for, const std::function<void(std::size_t)>& progress,
                            bool two_level) {
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  // One point per task: points differ in cost by orders of magnitude (num_ms), so TBB balances them one by one;
  // each point's own search is parallel too, and TBB nests the two levels.
  tbb::parallel_for(std::size_t{0}, points.size(), [&](std::size_t i) {
    if (!points[i].error) evaluate_design_point(points[i], network, objective, exact_traffic_for, two_level);
    const std::size_t finished = ++done;
    if (progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress(finished);
    }
  });
}

nlohmann::json design_point_results_to_json(const DesignPoint& point) {
  nlohmann::json layers = nlohmann::json::array();
  for (const contracts::CostReport& report : point.best) layers.push_back(mapper::to_json(report));
  nlohmann::json json = {{"cycles", point.cycles},         {"energy_pj", point.energy_pj},
                         {"utilisation", point.utilisation}, {"dram_bytes", point.dram_bytes},
                         {"layers", layers}};
  if (point.area_um2) json["area_um2"] = *point.area_um2;
  if (point.error) json["error"] = *point.error;
  return json;
}

void design_point_results_from_json(DesignPoint& point, const nlohmann::json& json) {
  point.best.clear();
  for (const nlohmann::json& layer : json.at("layers")) point.best.push_back(mapper::cost_report_from_json(layer));
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
