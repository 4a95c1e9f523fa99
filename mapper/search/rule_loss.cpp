// Per-rule loss report (see rule_loss.hpp).
#include "mapper/search/rule_loss.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace maeri::mapper {

std::vector<RuleLoss> rule_losses(const SearchResult& result, const contracts::Layer& layer, const contracts::Hardware& hardware,
                                  Objective objective) {
  if (!result.rule_losses_known || result.best.empty())
    throw std::logic_error("rule_losses needs a search of the raw space that found a tile");
  std::vector<RuleLoss> losses;
  for (int i = 0; i < kNumPruningRules; ++i) {
    RuleLoss loss;
    loss.rule = kPruningRules[i];
    loss.tiles_left = TileSpace(layer, hardware, RuleSet::only(loss.rule)).count();
    loss.best = result.best_under_rule[size_t(i)];
    if (loss.best)
      loss.loss_percent =
          loss_percent(result.fabric_optimum ? *result.fabric_optimum : result.best.front(), *loss.best, objective);
    losses.push_back(loss);
  }
  return losses;
}

std::string format_rule_losses(const std::vector<RuleLoss>& losses, Objective objective) {
  std::string text = fmt::format("  pruning rules alone (--prune RULE), against the raw optimum by {}:\n",
                                 to_string(objective));
  for (const RuleLoss& loss : losses) {
    if (!loss.best) {
      text += fmt::format("    {:<20} {:>12} tiles   empties the space\n", rule_name(loss.rule), loss.tiles_left);
    } else {
      text += fmt::format("    {:<20} {:>12} tiles   {:>8.3f}% worse   best ({})\n", rule_name(loss.rule),
                          loss.tiles_left, loss.loss_percent, contracts::to_compact_string(loss.best->mapping.tile));
    }
  }
  return text;
}

nlohmann::json to_json(const std::vector<RuleLoss>& losses) {
  nlohmann::json list = nlohmann::json::array();
  for (const RuleLoss& loss : losses) {
    nlohmann::json entry = {{"rule", rule_name(loss.rule)}, {"tiles_left", loss.tiles_left},
                            {"empties_space", !loss.best}};
    if (loss.best) {
      entry["loss_percent"] = loss.loss_percent;
      entry["best_tile"] = contracts::to_compact_string(loss.best->mapping.tile);
      entry["best_cycles"] = loss.best->cycles.total;
      entry["best_energy_pj"] = loss.best->energy_pj.total;
    } else {
      entry["loss_percent"] = nullptr;
    }
    list.push_back(entry);
  }
  return list;
}

}  // namespace maeri::mapper
