// Counting and enumerating the tile space, and the pruning rules as names, sets and per-tile conditions. Counting splits each tile into its reduction part
// (T_R, T_S, T_C), enumerated explicitly because the partial-sum bound couples them, and the output
// part (T_K, T_G, T_N, T_X', T_Y'), counted by a memoised recursion over the remaining product budget
// floor(num_ms / (T_R·T_S·T_C)); those budgets take only O(sqrt(num_ms)) distinct values.
#include "mapper/mapspace/tile_space.hpp"

#include <map>
#include <sstream>

#include "util/integer_math.hpp"

namespace maeri::mapper {
namespace {

std::vector<std::int64_t> one_to(std::int64_t extent) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = 1; v <= extent; ++v) values.push_back(v);
  return values;
}

std::vector<std::int64_t> divisors_of(std::int64_t extent) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = 1; v <= extent; ++v) {
    if (extent % v == 0) values.push_back(v);
  }
  return values;
}

}  // namespace

const char* rule_name(PruningRule rule) {
  switch (rule) {
    case PruningRule::EdgeDivisibility: return "edge-divisibility";
    case PruningRule::InferenceBatch: return "inference-batch";
    case PruningRule::ReducedConvolution: return "reduced-convolution";
    case PruningRule::PartialSumBound: return "partial-sum-bound";
  }
  return "?";
}

const char* rule_description(PruningRule rule) {
  switch (rule) {
    case PruningRule::EdgeDivisibility: return "T_R | R, T_S | S, T_C | C (no ragged reduction folds)";
    case PruningRule::InferenceBatch: return "T_N = 1 (inference)";
    case PruningRule::ReducedConvolution: return "FC/LSTM as reduced convolution: T_R = T_S = T_X' = T_Y' = 1";
    case PruningRule::PartialSumBound: return "N_partial = ceil(R/T_R)·ceil(S/T_S)·ceil(C/T_C) <= num_ms";
  }
  return "?";
}

std::string RuleSet::names() const {
  std::string text;
  for (const PruningRule rule : kPruningRules)
    if (has(rule)) text += (text.empty() ? "" : ",") + std::string(rule_name(rule));
  return text.empty() ? "none" : text;
}

std::optional<RuleSet> parse_rules(const std::string& text, std::string& error) {
  RuleSet rules;
  std::istringstream stream(text);
  std::string name;
  bool any = false;
  while (std::getline(stream, name, ',')) {
    any = true;
    if (name == "all") {
      rules = RuleSet::all();
      continue;
    }
    if (name == "none") continue;
    bool known = false;
    for (const PruningRule rule : kPruningRules) {
      if (name == rule_name(rule)) {
        rules = rules.with(rule);
        known = true;
      }
    }
    if (!known) {
      error = "unknown pruning rule '" + name + "'; expected a comma-separated list of " +
              RuleSet::all().names() + ", or all, or none";
      return std::nullopt;
    }
  }
  if (!any) {
    error = "empty list of pruning rules; expected a comma-separated list of " + RuleSet::all().names() +
            ", or all, or none";
    return std::nullopt;
  }
  return rules;
}

bool satisfies(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile, PruningRule rule) {
  switch (rule) {
    case PruningRule::EdgeDivisibility:
      return layer.R % tile[contracts::kDimR] == 0 && layer.S % tile[contracts::kDimS] == 0 &&
             layer.group_channels() % tile[contracts::kDimC] == 0;
    case PruningRule::InferenceBatch: return tile[contracts::kDimN] == 1;
    case PruningRule::ReducedConvolution:
      return layer.type != contracts::LayerType::FullyConnected ||
             (tile[contracts::kDimR] == 1 && tile[contracts::kDimS] == 1 && tile[contracts::kDimX] == 1 && tile[contracts::kDimY] == 1);
    case PruningRule::PartialSumBound:
      return util::ceil_div(layer.R, tile[contracts::kDimR]) * util::ceil_div(layer.S, tile[contracts::kDimS]) *
                 util::ceil_div(layer.group_channels(), tile[contracts::kDimC]) <=
             hardware.num_ms;
  }
  return true;
}

TileSpace::TileSpace(const contracts::Layer& layer, const contracts::Hardware& hardware, RuleSet rules)
    : extents_(contracts::layer_extents(layer)), num_ms_(hardware.num_ms) {
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) allowed_[dim] = one_to(std::min(extents_[dim], num_ms_));
  if (rules.has(PruningRule::EdgeDivisibility)) {
    for (int dim : {contracts::kDimR, contracts::kDimS, contracts::kDimC}) allowed_[dim] = divisors_of(extents_[dim]);
  }
  if (rules.has(PruningRule::InferenceBatch)) allowed_[contracts::kDimN] = {1};
  if (rules.has(PruningRule::ReducedConvolution) && layer.type == contracts::LayerType::FullyConnected) {
    for (int dim : {contracts::kDimR, contracts::kDimS, contracts::kDimX, contracts::kDimY}) allowed_[dim] = {1};
  }
  limit_partial_sums_ = rules.has(PruningRule::PartialSumBound);
  // The group edge rule (contracts::mapping_violation): every step holds whole groups.
  allowed_groups_ = divisors_of(layer.groups);
  while (allowed_groups_.back() > num_ms_) allowed_groups_.pop_back();
}

bool TileSpace::reduction_allowed(std::int64_t r, std::int64_t s, std::int64_t c) const {
  if (!limit_partial_sums_) return true;
  const std::int64_t partial_sums =
      util::ceil_div(extents_[contracts::kDimR], r) * util::ceil_div(extents_[contracts::kDimS], s) * util::ceil_div(extents_[contracts::kDimC], c);
  return partial_sums <= num_ms_;
}

std::uint64_t TileSpace::count() const {
  // ways[i][budget]: number of choices of the output part's dimensions i.. with product <= budget.
  const std::array<const std::vector<std::int64_t>*, 5> output_part = {
      &allowed_[contracts::kDimK], &allowed_groups_, &allowed_[contracts::kDimN], &allowed_[contracts::kDimX],
      &allowed_[contracts::kDimY]};
  std::array<std::map<std::int64_t, std::uint64_t>, 5> memo;
  std::function<std::uint64_t(size_t, std::int64_t)> ways = [&](size_t index, std::int64_t budget) -> std::uint64_t {
    if (index == output_part.size()) return 1;
    auto found = memo[index].find(budget);
    if (found != memo[index].end()) return found->second;
    std::uint64_t total = 0;
    for (const std::int64_t value : *output_part[index]) {
      if (value > budget) break;
      total += ways(index + 1, budget / value);
    }
    memo[index].emplace(budget, total);
    return total;
  };
  std::uint64_t total = 0;
  for (const std::int64_t r : allowed_[contracts::kDimR]) {
    if (r > num_ms_) break;
    for (const std::int64_t s : allowed_[contracts::kDimS]) {
      if (r * s > num_ms_) break;
      for (const std::int64_t c : allowed_[contracts::kDimC]) {
        if (r * s * c > num_ms_) break;
        if (reduction_allowed(r, s, c)) total += ways(0, num_ms_ / (r * s * c));
      }
    }
  }
  return total;
}

std::vector<TileSpace::Prefix> TileSpace::prefixes() const {
  std::vector<Prefix> result;
  for (const std::int64_t r : allowed_[contracts::kDimR]) {
    if (r > num_ms_) break;
    for (const std::int64_t s : allowed_[contracts::kDimS]) {
      if (r * s > num_ms_) break;
      for (const std::int64_t c : allowed_[contracts::kDimC]) {
        const std::int64_t vn_size = r * s * c;
        if (vn_size > num_ms_) break;
        if (!reduction_allowed(r, s, c)) continue;
        for (const std::int64_t k : allowed_[contracts::kDimK]) {
          if (vn_size * k > num_ms_) break;
          for (const std::int64_t g : allowed_groups_) {
            if (vn_size * k * g > num_ms_) break;
            result.push_back({r, s, c, k, g});
          }
        }
      }
    }
  }
  return result;
}

void TileSpace::enumerate_outputs(const Prefix& prefix, const std::function<void(const contracts::Mapping&)>& visit) const {
  enumerate_outputs_inline(prefix, visit);
}

}  // namespace maeri::mapper

namespace maeri::mapper {

std::optional<std::string> unmappable_reason(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                             RuleSet rules) {
  const std::uint64_t raw = TileSpace(layer, hardware).count();
  if (raw == 0)
    return "layer '" + layer.name + "' cannot be mapped on " + std::to_string(hardware.num_ms) +
           " multiplier switches: no tile satisfies Eq. 1";
  // Add the chosen rules one at a time (in kPruningRules order) and name the one that removes the last tiles.
  RuleSet applied;
  std::uint64_t previous = raw;
  for (const PruningRule rule : kPruningRules) {
    if (!rules.has(rule)) continue;
    applied = applied.with(rule);
    const std::uint64_t size = TileSpace(layer, hardware, applied).count();
    if (size == 0) {
      const bool alone = TileSpace(layer, hardware, RuleSet::only(rule)).count() == 0;
      return "layer '" + layer.name + "' cannot be mapped on " + std::to_string(hardware.num_ms) +
             " multiplier switches with --prune " + rules.names() + ": pruning rule '" + rule_name(rule) + "' (" +
             rule_description(rule) + ") removes the last " + std::to_string(previous) + " tiles" +
             (alone ? "" : " left by the rules before it") + "; drop it from --prune (the raw Eq. 1 space has " +
             std::to_string(raw) + " tiles)";
    }
    previous = size;
  }
  return std::nullopt;
}

}  // namespace maeri::mapper
