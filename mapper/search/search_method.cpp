// The evaluation counter (Evaluator) and the driver that runs one method within its budget (run_search); the
// methods themselves are in search_{random,annealing,genetic,surrogate}.cpp, the space they walk in
// mapper/mapspace/map_space.cpp.
#include "mapper/search/search_method.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "mapper/model/cost_model.hpp"

namespace maeri::mapper {

const char* to_string(SearchMethodKind method) {
  switch (method) {
    case SearchMethodKind::Exhaustive: return "exhaustive";
    case SearchMethodKind::Random: return "random";
    case SearchMethodKind::Annealing: return "sa";
    case SearchMethodKind::Genetic: return "ga";
    case SearchMethodKind::Surrogate: return "surrogate";
  }
  return "?";
}

std::optional<SearchMethodKind> parse_search_method(const std::string& text) {
  for (SearchMethodKind method : kSearchMethods)
    if (text == to_string(method)) return method;
  return std::nullopt;
}

Evaluator::Evaluator(const contracts::Layer& layer, const contracts::Hardware& hardware, Objective objective,
                     std::uint64_t budget, contracts::ExactTrafficRefinement exact)
    : layer_(layer), hardware_(hardware), objective_(objective), budget_(budget), exact_(std::move(exact)) {}

const contracts::CostReport& Evaluator::cost(const contracts::Mapping& tile) {
  if (const auto found = seen_.find(tile); found != seen_.end()) return found->second;
  if (exhausted()) throw std::logic_error("search budget of " + std::to_string(budget_) + " evaluations exceeded");
  ++used_;
  contracts::CostReport report = evaluate(layer_, hardware_, tile);
  if (exact_) exact_(report);
  const contracts::CostReport& stored = seen_.emplace(tile, report).first->second;
  if (!best_ || better(stored, *best_, objective_)) {
    best_ = &stored;
    trace_.emplace_back(used_, value(stored));
  }
  return stored;
}

HeuristicResult run_search(SearchMethodKind method, const contracts::Layer& layer, const contracts::Hardware& hardware,
                           const HeuristicOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  HeuristicResult result;
  if (method == SearchMethodKind::Exhaustive) {
    SearchOptions search_options(options.objective, options.top_k, options.threads, {}, options.exact);
    search_options.joint.enabled = options.two_level;
    search_options.joint.budget = options.budget;
    const SearchResult found = search(layer, hardware, search_options);
    result.best = found.best;
    result.evaluations = found.evaluated + found.joint_evaluated;
    result.proposals = result.evaluations;
    result.exhaustive_complete = !options.two_level || found.joint_exhaustive;
    result.seconds = found.seconds;
    return result;
  }
  const MapSpace space(layer, hardware, options.two_level);
  // Each warm-start mapping as carried, and filled: a mapping of a smaller layer often leaves this one's
  // multiplier switches and SDM idle.
  std::vector<contracts::Mapping> warm;
  std::mt19937_64 fill_rng(options.seed);
  for (const contracts::Mapping& tile : options.warm_start) {
    const contracts::Mapping carried = space.legalise(tile);
    for (const contracts::Mapping& mapping : {carried, space.filled(carried, fill_rng)})
      if (std::find(warm.begin(), warm.end(), mapping) == warm.end()) warm.push_back(mapping);
  }
  std::unique_ptr<SearchMethod> searcher;
  switch (method) {
    case SearchMethodKind::Random: searcher = make_random_search(space, options.seed, warm); break;
    case SearchMethodKind::Annealing: searcher = make_annealing_search(space, options.seed, options.budget, warm); break;
    case SearchMethodKind::Genetic: searcher = make_genetic_search(space, options.seed, options.budget, warm); break;
    case SearchMethodKind::Surrogate:
      if (!options.surrogate) throw std::invalid_argument("the surrogate search needs a trained model (--model)");
      searcher = make_surrogate_search(space, *options.surrogate, options.seed, options.budget, warm);
      break;
    case SearchMethodKind::Exhaustive: break;
  }
  Evaluator evaluator(layer, hardware, options.objective, options.budget, options.exact);
  // Repeats cost nothing, so a method stuck on known mappings in a space smaller than the budget must still stop.
  const std::uint64_t max_proposals = 50 * options.budget + 1000;
  while (!evaluator.exhausted() && result.proposals < max_proposals) {
    const contracts::Mapping tile = searcher->propose();
    ++result.proposals;
    searcher->report(tile, evaluator.value(evaluator.cost(tile)));
  }
  result.evaluations = evaluator.used();
  result.trace = evaluator.trace();
  for (const auto& entry : evaluator.evaluated()) result.evaluated.push_back(entry.second);
  result.best = result.evaluated;
  const std::size_t k = std::min<std::size_t>(result.best.size(), std::size_t(std::max(1, options.top_k)));
  std::partial_sort(result.best.begin(), result.best.begin() + std::ptrdiff_t(k), result.best.end(),
                    [&](const contracts::CostReport& a, const contracts::CostReport& b) { return better(a, b, options.objective); });
  result.best.resize(k);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace maeri::mapper
