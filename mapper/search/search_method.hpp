// Heuristic search of the map space behind one interface (docs/search.md): a method proposes mappings and is told
// their cost (Timeloop's Next()/Report()); the model evaluations are counted in one place (Evaluator), which never
// lets a run cost more than its budget. The methods walk the map space with its legal moves (MapSpace,
// mapper/mapspace/map_space.hpp). The exhaustive search (search.hpp) is the "exhaustive" method: it gives the
// optimum every other method is measured against.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"
#include "mapper/mapspace/map_space.hpp"
#include "mapper/search/search.hpp"

namespace maeri::mapper {

class SurrogateModel;

enum class SearchMethodKind { Exhaustive, Random, Annealing, Genetic, Surrogate };
inline constexpr std::array<SearchMethodKind, 5> kSearchMethods = {
    SearchMethodKind::Exhaustive, SearchMethodKind::Random, SearchMethodKind::Annealing, SearchMethodKind::Genetic,
    SearchMethodKind::Surrogate};
const char* to_string(SearchMethodKind method);                         // "exhaustive", "random", "sa", "ga", "surrogate"
std::optional<SearchMethodKind> parse_search_method(const std::string& text);

// Counts model evaluations against a budget and keeps what was learnt: a mapping costed once is not costed (nor
// counted) again. cost() throws std::logic_error when called with the budget spent: callers check exhausted().
class Evaluator {
 public:
  Evaluator(const contracts::Layer& layer, const contracts::Hardware& hardware, Objective objective, std::uint64_t budget,
            contracts::ExactTrafficRefinement exact = {});
  const contracts::CostReport& cost(const contracts::Mapping& tile);
  bool known(const contracts::Mapping& tile) const { return seen_.count(tile) != 0; }
  bool exhausted() const { return used_ >= budget_; }
  std::uint64_t used() const { return used_; }
  std::uint64_t budget() const { return budget_; }
  Objective objective() const { return objective_; }
  double value(const contracts::CostReport& report) const { return objective_value(report, objective_); }
  const contracts::CostReport* best() const { return best_; }
  // (evaluations so far, best objective) at every improvement: best-found vs samples.
  const std::vector<std::pair<std::uint64_t, double>>& trace() const { return trace_; }
  const std::map<contracts::Mapping, contracts::CostReport>& evaluated() const { return seen_; }

 private:
  const contracts::Layer& layer_;
  const contracts::Hardware& hardware_;
  Objective objective_;
  std::uint64_t budget_, used_ = 0;
  contracts::ExactTrafficRefinement exact_;
  std::map<contracts::Mapping, contracts::CostReport> seen_;
  const contracts::CostReport* best_ = nullptr;
  std::vector<std::pair<std::uint64_t, double>> trace_;
};

// The propose/report interface. propose() returns the next mapping to cost; report() gives it its objective value
// (lower is better). A method may propose a mapping already costed: the driver reports the known value without
// spending budget.
class SearchMethod {
 public:
  virtual ~SearchMethod() = default;
  virtual contracts::Mapping propose() = 0;
  virtual void report(const contracts::Mapping& tile, double value) = 0;
};

struct HeuristicOptions {
  Objective objective = Objective::EnergyDelay;
  std::uint64_t budget = 1000;  // model evaluations
  std::uint64_t seed = 1;
  bool two_level = true;
  int top_k = 5;
  std::vector<contracts::Mapping> warm_start;             // mappings costed first (made legal for this layer)
  const SurrogateModel* surrogate = nullptr;      // required by the surrogate method
  contracts::ExactTrafficRefinement exact;                             // as SearchOptions::exact
  int threads = 1;                                // exhaustive only
};

struct HeuristicResult {
  std::vector<contracts::CostReport> best;  // best first, at most top_k
  std::uint64_t evaluations = 0;       // model evaluations (never more than the budget, except exhaustive)
  std::uint64_t proposals = 0;         // mappings proposed, repeats included
  std::vector<std::pair<std::uint64_t, double>> trace;
  std::vector<contracts::CostReport> evaluated;  // every mapping costed (empty for exhaustive)
  bool exhaustive_complete = false;         // exhaustive: the whole joint space was searched
  double seconds = 0;
};

std::unique_ptr<SearchMethod> make_random_search(const MapSpace& space, std::uint64_t seed,
                                                 std::vector<contracts::Mapping> warm_start);
std::unique_ptr<SearchMethod> make_annealing_search(const MapSpace& space, std::uint64_t seed, std::uint64_t budget,
                                                    std::vector<contracts::Mapping> warm_start);
std::unique_ptr<SearchMethod> make_genetic_search(const MapSpace& space, std::uint64_t seed, std::uint64_t budget,
                                                  std::vector<contracts::Mapping> warm_start);
std::unique_ptr<SearchMethod> make_surrogate_search(const MapSpace& space, const SurrogateModel& model,
                                                    std::uint64_t seed, std::uint64_t budget,
                                                    std::vector<contracts::Mapping> warm_start);

// Runs one method on one layer: the exhaustive search (search(), joint with options.budget as its joint budget)
// or a heuristic for options.budget evaluations. Throws std::invalid_argument for the surrogate without a model.
HeuristicResult run_search(SearchMethodKind method, const contracts::Layer& layer, const contracts::Hardware& hardware,
                           const HeuristicOptions& options);

}  // namespace maeri::mapper
