// Measuring the heuristic searches against the exhaustive optimum (`maeri explore`; docs/search.md, "Measuring the
// searches"). Per layer: the exhaustive optimum of the space (or the one an optimum cache holds), then every method
// R times at each sample budget, cold and, with a warm start, warm-started from the layers explored before. The
// exploration keeps one CSV row per run, a summary per (layer, method, warm, budget) — median and quartiles of
// best-found ÷ optimum, the ratio to the algorithmic minimum, warm start's sample saving — the plot of best-found ÷
// optimum against samples and, when asked, each layer's (cycles, energy) Pareto front of every mapping costed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "mapper/search/search.hpp"
#include "mapper/search/search_method.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "mapper/search/warm_start.hpp"

namespace maeri::flow {

struct ExploreOptions {
  std::vector<mapper::SearchMethodKind> methods;  // heuristic methods, in the order given
  std::vector<std::uint64_t> budgets;     // sample budgets (model evaluations), in the order given
  int runs = 20;                          // per method and budget, seeds seed … seed+runs-1
  std::uint64_t seed = 1;
  mapper::Objective objective = mapper::Objective::EnergyDelay;
  bool two_level = true;
  std::uint64_t exhaustive_budget = std::uint64_t(1) << 40;  // joint budget of the exhaustive optimum
  const mapper::SurrogateModel* surrogate = nullptr;                 // needed by the surrogate method
  mapper::WarmStart warm_start = mapper::WarmStart::None;                    // also run each method warm-started this way
  bool pareto = false;
  int threads = 0;                 // 0 = all
  std::string optimum_cache;       // CSV file of exhaustive optima, read and extended ("" = none)
  std::string hardware_digest;     // SHA-256 of the hardware file: optima are cached per file content
};

// A layer's exhaustive optimum and the algorithmic minimum (every MAC on a multiplier switch every cycle, only the
// unavoidable energy) its ratios are also measured against.
struct ExploreOptimum {
  double optimum = 0, minimum = 0;
  bool from_cache = false;
  bool exhaustive = false;          // the search covered the whole space (cached: as the cache says)
  std::uint64_t evaluations = 0;    // of the search (not from the cache)
  double seconds = 0;
  std::vector<contracts::CostReport> best;  // the search's best mappings (not from the cache): Pareto points
};

// One summary line: a method, cold or warm, at one budget, over its runs on one layer.
struct ExploreSummary {
  mapper::SearchMethodKind method = mapper::SearchMethodKind::Random;
  bool warm = false;
  std::uint64_t budget = 0;
  double median = 0, q25 = 0, q75 = 0;    // of best found / optimum
  std::optional<double> median_samples;   // to 99.5 % of the cold final result; at the largest budget only
  double speedup = 0;                     // warm over cold samples to 99.5 %; 0 = not measured
};

// Per method, over the layers that had a warm-start source: Σ median samples to 99.5 % cold, warm, and the layers.
struct WarmStartTotal {
  double cold = 0, warm = 0;
  int layers = 0;
};

struct ExploreFiles {
  std::string runs_csv, summary_csv, svg, pareto_csv;
};
ExploreFiles explore_files(const std::string& prefix);  // <prefix>.runs.csv, .csv, .svg, .pareto.csv

class Exploration {
 public:
  // Loads the optimum cache; methods and budgets must not be empty.
  Exploration(const contracts::Hardware& hardware, ExploreOptions options);
  ~Exploration();

  // The layer's optimum: from the cache, or by the exhaustive search (then added to the cache file).
  ExploreOptimum optimum(const contracts::Layer& layer);
  std::size_t runs_per_layer() const;
  // Every (method, warm, budget, run) on the layer, in parallel; `progress` gets the number of runs done (one call at
  // a time). Layers are explored in order: warm starts learn from the layers before. Throws util::InputError naming
  // the cache when a run beats a cached exhaustive optimum (the cache was made by another model).
  std::vector<ExploreSummary> explore_layer(const contracts::Layer& layer, const ExploreOptimum& optimum,
                                            const std::function<void(std::int64_t)>& progress);

  std::uint64_t largest_budget() const;
  const std::map<std::string, WarmStartTotal>& warm_start_totals() const { return warm_totals_; }
  // Writes the runs, the summary and the plot (and the Pareto fronts when asked) of the layers explored so far.
  void write(const ExploreFiles& files, const std::string& network_name, std::size_t layers) const;

 private:
  struct State;
  struct Run;  // one (method, warm, budget, seed) search and its result
  using WarmMappings = std::map<std::string, std::vector<contracts::Mapping>>;  // per method: its warm start
  WarmMappings warm_mappings(const contracts::Layer& layer);
  std::vector<Run> run_searches(const contracts::Layer& layer, const WarmMappings& warm,
                                const std::function<void(std::int64_t)>& progress) const;
  void check_cached_optimum(const contracts::Layer& layer, const ExploreOptimum& found,
                            const std::vector<Run>& runs) const;
  ExploreSummary summarise(const contracts::Layer& layer, const ExploreOptimum& found, const std::vector<Run>& runs,
                           mapper::SearchMethodKind method, bool warm, std::uint64_t budget, double final_result,
                           bool warm_started, std::vector<contracts::CostReport>& cold_costed,
                           std::map<std::string, double>& cold_samples);
  void add_pareto_front(const contracts::Layer& layer, const ExploreOptimum& found, const std::vector<Run>& runs);
  const contracts::Hardware& hardware_;
  ExploreOptions options_;
  std::map<std::string, WarmStartTotal> warm_totals_;
  std::unique_ptr<State> state_;
};

}  // namespace maeri::flow
