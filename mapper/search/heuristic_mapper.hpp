// A network's layers mapped one after another by a heuristic search (random, sa, ga, surrogate; docs/search.md):
// R runs per layer within a budget of model evaluations each, the best mappings over the runs kept, optionally
// warm-started from the layers mapped before. What `maeri map --search` and the Python module's map(search=…) run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/search/search.hpp"
#include "mapper/search/search_method.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "mapper/search/warm_start.hpp"

namespace maeri::mapper {

struct HeuristicMapping {
  std::string method = "exhaustive";  // to_string(SearchMethodKind)
  std::uint64_t budget = 1000;
  int runs = 1;
  std::uint64_t seed = 1;
  std::string warm_start = "none";   // to_string(WarmStart)
  std::string model;                 // surrogate model file
};

class HeuristicMapper {
 public:
  // Validates the options and loads the surrogate model when one is used. Errors are util::InputError at `origin`
  // naming the option as option_prefix + its name ("--budget" on the command line, "budget" in Python).
  HeuristicMapper(const HeuristicMapping& options, Objective objective, bool two_level, const std::string& origin,
                  const std::string& option_prefix);
  bool heuristic() const { return method_ != SearchMethodKind::Exhaustive; }
  // The best mappings over the runs (top-k of `search_options`), the baseline, the evaluations of all runs.
  SearchResult search(const contracts::Layer& layer, const contracts::Hardware& hardware, const SearchOptions& search_options);
  // One line on the last search: method, runs, evaluations, warm start source, best per run.
  const std::string& summary() const { return summary_; }

 private:
  HeuristicMapping options_;
  SearchMethodKind method_ = SearchMethodKind::Exhaustive;
  WarmStart warm_start_ = WarmStart::None;
  bool two_level_ = false;
  std::optional<SurrogateModel> model_;
  std::vector<SearchedLayer> history_;
  std::string summary_;
};

}  // namespace maeri::mapper
