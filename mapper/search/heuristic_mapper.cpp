// Heuristic mapping of a network's layers (heuristic_mapper.hpp).
#include "mapper/search/heuristic_mapper.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mapper/model/cost_model.hpp"
#include "mapper/model/timing_bound.hpp"
#include "util/input_error.hpp"

namespace maeri::mapper {

HeuristicMapper::HeuristicMapper(const HeuristicMapping& options, Objective objective, bool two_level,
                                 const std::string& origin, const std::string& option_prefix)
    : options_(options), two_level_(two_level) {
  const auto error = [&](const std::string& option, const std::string& message) {
    return util::InputError({origin, 0, 0}, option_prefix + option, message);
  };
  const auto method = parse_search_method(options.method);
  if (!method)
    throw error("search", "expected exhaustive, random, sa, ga or surrogate, found '" + options.method + "'");
  const auto warm_start = parse_warm_start(options.warm_start);
  if (!warm_start) throw error("warm-start", "expected none, previous or similar, found '" + options.warm_start + "'");
  if (options.budget < 1) throw error("budget", "expected at least 1 evaluation");
  if (options.runs < 1) throw error("runs", "expected at least 1 run");
  method_ = *method;
  warm_start_ = *warm_start;
  if (method_ == SearchMethodKind::Surrogate) {
    if (options.model.empty())
      throw error("model", "the surrogate search needs a model file (`maeri surrogate train`)");
    model_ = SurrogateModel::load(options.model);
    model_->require_space(objective, two_level, options.model);
  } else if (!options.model.empty()) {
    throw error("model", "a model is used by the surrogate search only");
  }
  if (!heuristic() && warm_start_ != WarmStart::None)
    throw error("warm-start", "warm start applies to a heuristic search");
}

SearchResult HeuristicMapper::search(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                     const SearchOptions& search_options) {
  HeuristicOptions options;
  options.objective = search_options.objective;
  options.budget = options_.budget;
  options.two_level = two_level_;
  options.top_k = search_options.top_k;
  options.exact = search_options.exact;
  options.surrogate = model_ ? &*model_ : nullptr;
  const SearchedLayer* source = warm_start_source(history_, layer, warm_start_);
  if (source) options.warm_start = carry_mappings(*source, layer);
  const std::string source_name = source ? source->layer.name : "";  // history_ grows below
  SearchResult result;
  std::vector<std::string> per_run;
  // Per run, its best mapping of each of its best fabric tiles: what the warm starts of the next layers learn from
  // (as from every mapping the runs costed: best_of_fabric_tiles).
  std::vector<contracts::CostReport> costed;
  for (int run = 0; run < options_.runs; ++run) {
    options.seed = options_.seed + std::uint64_t(run);
    const HeuristicResult found = run_search(method_, layer, hardware, options);
    result.evaluated += found.evaluations;
    result.seconds += found.seconds;
    const auto top = best_of_fabric_tiles(found.evaluated, options.objective, kLearntFabricTiles);
    costed.insert(costed.end(), top.begin(), top.end());
    per_run.push_back(fmt::format("{:.6g}", objective_value(found.best.front(), options.objective)));
    std::vector<contracts::CostReport> kept = found.best;
    if (search_options.rank_by_timing_bound) {
      // Every mapping the run costed, its best by the bound on exact cycles (what flow's exact ranking times).
      kept = found.evaluated;
      for (contracts::CostReport& report : kept) set_cycles_to_timing_bound(report, hardware);
      const std::size_t k = std::min(kept.size(), std::size_t(std::max(1, options.top_k)));
      std::partial_sort(kept.begin(), kept.begin() + std::ptrdiff_t(k), kept.end(),
                        [&](const contracts::CostReport& a, const contracts::CostReport& b) {
                          return better(a, b, options.objective);
                        });
      kept.resize(k);
    }
    for (const auto& report : kept)
      if (std::find_if(result.best.begin(), result.best.end(),
                       [&](const contracts::CostReport& kept) { return kept.mapping == report.mapping; }) == result.best.end())
        result.best.push_back(report);
  }
  std::sort(result.best.begin(), result.best.end(), [&](const contracts::CostReport& a, const contracts::CostReport& b) {
    return better(a, b, options.objective);
  });
  result.best.resize(std::min(result.best.size(), std::size_t(std::max(1, options.top_k))));
  if (const auto baseline = contracts::baseline_tile(layer, hardware)) {
    result.baseline = evaluate(layer, hardware, contracts::single_level_mapping(*baseline));
    if (options.exact) options.exact(*result.baseline);
  }
  history_.push_back({layer, learnt_mappings(std::move(costed), options.objective)});
  summary_ = fmt::format("{} search, {} run(s) of at most {} evaluations: {} mappings costed in {:.1f} ms{}; best {} "
                         "per run: {}",
                         options_.method, options_.runs, options_.budget, result.evaluated, result.seconds * 1000,
                         source ? fmt::format(", warm-started from layer {}", source_name) : "",
                         to_string(options.objective), fmt::join(per_run, " "));
  return result;
}

}  // namespace maeri::mapper
