// What each pruning rule alone would cost on one layer: the optimum of the space the rule leaves, against the
// optimum of the raw Eq. 1 space (both from one raw search, SearchResult::best_under_rule), as a percentage of
// the objective, or "empties the space". Shared by `maeri map` and `maeri space` (text and JSON).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/search/search.hpp"

namespace maeri::mapper {

struct RuleLoss {
  PruningRule rule;
  std::uint64_t tiles_left = 0;             // size of the space the rule alone leaves
  std::optional<contracts::CostReport> best;     // its optimum; nullopt: the rule empties the space
  double loss_percent = 0;                  // objective of `best` above the raw optimum, in percent
};

// Requires a raw-space search (result.rule_losses_known) with at least one tile.
std::vector<RuleLoss> rule_losses(const SearchResult& result, const contracts::Layer& layer, const contracts::Hardware& hardware,
                                  Objective objective);

// One line per rule: name, tiles left, loss (or "empties the space") and the rule's best tile.
std::string format_rule_losses(const std::vector<RuleLoss>& losses, Objective objective);
nlohmann::json to_json(const std::vector<RuleLoss>& losses);

}  // namespace maeri::mapper
