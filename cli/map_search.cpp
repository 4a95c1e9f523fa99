// The heuristic searches of `maeri map` (map_search.hpp).
#include "cli/map_search.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mapper/cost_model.hpp"
#include "spec/spec_error.hpp"

namespace maeri::cli {

void add_map_search_options(CLI::App* command, MapSearchOptions& options) {
  command->add_option("--search", options.method, "search method: exhaustive, random, sa, ga or surrogate (docs/search.md)")
      ->check(CLI::IsMember({"exhaustive", "random", "sa", "ga", "surrogate"}))
      ->capture_default_str();
  command->add_option("--budget", options.budget, "with a heuristic --search: model evaluations per run")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40))
      ->capture_default_str();
  command->add_option("--runs", options.runs, "with a heuristic --search: runs per layer (seeds seed … seed+runs-1); "
                                              "the best mapping over the runs is kept")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--seed", options.seed, "with a heuristic --search: seed of the first run")->capture_default_str();
  command->add_option("--warm-start", options.warm_start,
                      "with a heuristic --search: start from the best mappings of the previous or the most similar "
                      "layer already mapped")
      ->check(CLI::IsMember({"none", "previous", "similar"}))
      ->capture_default_str();
  command->add_option("--model", options.model, "with --search surrogate: the model file (`maeri surrogate train`)");
}

MapSearch::MapSearch(const MapSearchOptions& options, mapper::Objective objective, bool two_level)
    : options_(options), two_level_(two_level) {
  method_ = *mapper::parse_search_method(options.method);
  warm_start_ = *mapper::parse_warm_start(options.warm_start);
  if (method_ == mapper::SearchMethodKind::Surrogate) {
    if (options.model.empty())
      throw spec::SpecError({"command line", 0, 0}, "--model", "--search surrogate needs a model file "
                                                               "(`maeri surrogate train`)");
    model_ = mapper::SurrogateModel::load(options.model);
    model_->require_space(objective, two_level, options.model);
  } else if (!options.model.empty()) {
    throw spec::SpecError({"command line", 0, 0}, "--model", "a model is used by --search surrogate only");
  }
  if (!heuristic() && warm_start_ != mapper::WarmStart::None)
    throw spec::SpecError({"command line", 0, 0}, "--warm-start", "warm start applies to a heuristic --search");
}

mapper::SearchResult MapSearch::search(const spec::Layer& layer, const spec::Hardware& hardware,
                                       const mapper::SearchOptions& search_options) {
  mapper::HeuristicOptions options;
  options.objective = search_options.objective;
  options.budget = options_.budget;
  options.two_level = two_level_;
  options.top_k = search_options.top_k;
  options.exact = search_options.exact;
  options.surrogate = model_ ? &*model_ : nullptr;
  const mapper::SearchedLayer* source = mapper::warm_start_source(history_, layer, warm_start_);
  if (source) options.warm_start = mapper::carry_mappings(*source, layer);
  const std::string source_name = source ? source->layer.name : "";  // history_ grows below
  mapper::SearchResult result;
  std::vector<std::string> per_run;
  for (int run = 0; run < options_.runs; ++run) {
    options.seed = options_.seed + std::uint64_t(run);
    const mapper::HeuristicResult found = mapper::run_search(method_, layer, hardware, options);
    result.evaluated += found.evaluations;
    result.seconds += found.seconds;
    per_run.push_back(fmt::format("{:.6g}", mapper::objective_value(found.best.front(), options.objective)));
    for (const auto& report : found.best)
      if (std::find_if(result.best.begin(), result.best.end(),
                       [&](const spec::CostReport& kept) { return kept.tile == report.tile; }) == result.best.end())
        result.best.push_back(report);
  }
  std::sort(result.best.begin(), result.best.end(), [&](const spec::CostReport& a, const spec::CostReport& b) {
    return mapper::better(a, b, options.objective);
  });
  result.best.resize(std::min(result.best.size(), std::size_t(std::max(1, options.top_k))));
  if (const auto baseline = spec::baseline_tile(layer, hardware)) {
    result.baseline = mapper::evaluate(layer, hardware, *baseline);
    if (options.exact) options.exact(*result.baseline);
  }
  mapper::SearchedLayer learnt{layer, {}};
  for (const auto& report : result.best) learnt.best.push_back(report.tile);
  history_.push_back(learnt);
  summary_ = fmt::format("{} search, {} run(s) of at most {} evaluations: {} mappings costed in {:.1f} ms{}; best {} "
                         "per run: {}",
                         options_.method, options_.runs, options_.budget, result.evaluated, result.seconds * 1000,
                         source ? fmt::format(", warm-started from layer {}", source_name) : "",
                         mapper::to_string(options.objective), fmt::join(per_run, " "));
  return result;
}

}  // namespace maeri::cli
