// Exhaustive search: the tile space is split into (T_R, T_S, T_C, T_K) prefixes that TBB spreads over
// threads; each thread keeps its own top-k, merged at the end with the deterministic order `better`.
#include "mapper/search.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "mapper/cost_model.hpp"

namespace maeri::mapper {
namespace {

// A bounded best-first list; k is small (tens), so sorted insertion is cheapest.
class TopK {
 public:
  TopK(std::size_t k, Objective objective) : k_(k), objective_(objective) {}
  bool would_accept(const spec::CostReport& report) const {
    return items_.size() < k_ || better(report, items_.back(), objective_);
  }
  void offer(const spec::CostReport& report) {
    if (!would_accept(report)) return;
    auto at = std::upper_bound(items_.begin(), items_.end(), report,
                               [this](const spec::CostReport& a, const spec::CostReport& b) { return better(a, b, objective_); });
    items_.insert(at, report);
    if (items_.size() > k_) items_.pop_back();
  }
  const std::vector<spec::CostReport>& items() const { return items_; }

 private:
  std::size_t k_;
  Objective objective_;
  std::vector<spec::CostReport> items_;
};

}  // namespace

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::Runtime: return "runtime";
    case Objective::Energy: return "energy";
    case Objective::EnergyDelay: return "edp";
  }
  return "?";
}

std::optional<Objective> parse_objective(const std::string& text) {
  if (text == "runtime") return Objective::Runtime;
  if (text == "energy") return Objective::Energy;
  if (text == "edp") return Objective::EnergyDelay;
  return std::nullopt;
}

double objective_value(const spec::CostReport& report, Objective objective) {
  switch (objective) {
    case Objective::Runtime: return report.cycles.total;
    case Objective::Energy: return report.energy_pj.total;
    case Objective::EnergyDelay: return report.edp();
  }
  return 0;
}

bool better(const spec::CostReport& a, const spec::CostReport& b, Objective objective) {
  const double primary_a = objective_value(a, objective), primary_b = objective_value(b, objective);
  if (primary_a != primary_b) return primary_a < primary_b;
  const Objective secondary = objective == Objective::Runtime ? Objective::Energy : Objective::Runtime;
  const double secondary_a = objective_value(a, secondary), secondary_b = objective_value(b, secondary);
  if (secondary_a != secondary_b) return secondary_a < secondary_b;
  return a.tile.size < b.tile.size;
}

double improvement_percent(double baseline, double best) {
  return baseline > 0 ? 100.0 * (baseline - best) / baseline : 0.0;
}

SearchResult search(const spec::Layer& layer, const spec::Hardware& hardware, const SearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<tbb::global_control> thread_limit;
  if (options.threads > 0) {
    thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<std::size_t>(options.threads));
  }
  const TileSpace space(layer, hardware, options.rules_applied);
  const std::vector<TileSpace::Prefix> prefixes = space.prefixes();
  const std::size_t k = static_cast<std::size_t>(std::max(1, options.top_k));

  struct Local {
    TopK top;
    std::uint64_t evaluated = 0;
  };
  tbb::enumerable_thread_specific<Local> locals([&] { return Local{TopK(k, options.objective), 0}; });
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, prefixes.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      Local& local = locals.local();
                      for (std::size_t i = range.begin(); i != range.end(); ++i) {
                        space.enumerate_outputs_inline(prefixes[i], [&](const spec::Tile& tile) {
                          local.top.offer(evaluate(layer, hardware, tile));
                          ++local.evaluated;
                        });
                      }
                    });

  SearchResult result;
  TopK merged(k, options.objective);
  for (const Local& local : locals) {
    result.evaluated += local.evaluated;
    for (const spec::CostReport& report : local.top.items()) merged.offer(report);
  }
  result.best = merged.items();
  if (const auto baseline = spec::baseline_tile(layer, hardware)) result.baseline = evaluate(layer, hardware, *baseline);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace maeri::mapper
