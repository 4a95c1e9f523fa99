// `maeri map --search random|sa|ga|surrogate`: the heuristic searches in place of the exhaustive one, R runs per
// layer within a budget of model evaluations each, optionally warm-started from the layers mapped before
// (docs/search.md). The exhaustive search stays the default.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/search.hpp"
#include "mapper/search_method.hpp"
#include "mapper/surrogate_model.hpp"
#include "mapper/warm_start.hpp"

namespace maeri::cli {

struct MapSearchOptions {
  std::string method = "exhaustive";
  std::uint64_t budget = 1000;
  int runs = 1;
  std::uint64_t seed = 1;
  std::string warm_start = "none";
  std::string model;
};

void add_map_search_options(CLI::App* command, MapSearchOptions& options);

class MapSearch {
 public:
  // Validates the options (SpecError naming the option) and loads the surrogate model when one is used.
  MapSearch(const MapSearchOptions& options, mapper::Objective objective, bool two_level);
  bool heuristic() const { return method_ != mapper::SearchMethodKind::Exhaustive; }
  // The best mappings over the runs (top-k of `search_options`), the baseline, the evaluations of all runs.
  mapper::SearchResult search(const spec::Layer& layer, const spec::Hardware& hardware,
                              const mapper::SearchOptions& search_options);
  // One line on the last search: method, runs, evaluations, warm start source, best per run.
  const std::string& summary() const { return summary_; }

 private:
  MapSearchOptions options_;
  mapper::SearchMethodKind method_ = mapper::SearchMethodKind::Exhaustive;
  mapper::WarmStart warm_start_ = mapper::WarmStart::None;
  bool two_level_ = false;
  std::optional<mapper::SurrogateModel> model_;
  std::vector<mapper::SearchedLayer> history_;
  std::string summary_;
};

}  // namespace maeri::cli
