// Evaluating the points of a design-space sweep and their Pareto front (see design_sweep.hpp).
#include "mapper/design_sweep.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>

namespace maeri::mapper {

void evaluate_design_point(DesignPoint& point, const spec::Network& network, Objective objective,
                           const ExactTrafficFor& exact_traffic_for) {
  point.best.clear();
  point.cycles = point.energy_pj = 0;
  point.dram_bytes = 0;
  std::int64_t macs = 0;
  for (const spec::Layer& layer : network.layers) {
    SearchOptions options(objective, 1);
    if (exact_traffic_for) options.exact = exact_traffic_for(layer, point.hardware);
    SearchResult result = search(layer, point.hardware, options);
    if (result.best.empty()) {
      point.error = "layer '" + layer.name + "' has no mapping on this hardware";
      return;
    }
    spec::CostReport best = result.best.front();
    point.cycles += best.cycles.total;
    point.energy_pj += best.energy_pj.total;
    point.dram_bytes += best.counts.dram_bytes;
    macs += layer.macs();
    point.best.push_back(std::move(best));
  }
  point.utilisation = point.cycles > 0 ? static_cast<double>(macs) /
                                             (static_cast<double>(point.hardware.num_ms) * point.cycles)
                                       : 0;
  point.area_um2 = spec::estimated_area_um2(point.hardware);
}

void evaluate_design_points(std::vector<DesignPoint>& points, const spec::Network& network, Objective objective,
                            const ExactTrafficFor& exact_traffic_for, const std::function<void(std::size_t)>& progress) {
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  // One point per task: points differ in cost by orders of magnitude (num_ms), so TBB balances them one by one;
  // each point's own search is parallel too, and TBB nests the two levels.
  tbb::parallel_for(std::size_t{0}, points.size(), [&](std::size_t i) {
    if (!points[i].error) evaluate_design_point(points[i], network, objective, exact_traffic_for);
    const std::size_t finished = ++done;
    if (progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress(finished);
    }
  });
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

}  // namespace maeri::mapper
