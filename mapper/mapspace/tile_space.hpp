// The mRNA tile space of one layer on one MAERI instance: all 7-tuples with 1 <= T_d <= dim_d, with T_G (groups
// side by side in one step: a divisor of the layer's groups, only 1 for an ungrouped layer), and
// T_G·T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' <= num_ms (Eq. 1) — the raw space the search covers by default — optionally
// narrowed by any subset of the paper's pruning rules (`--prune`), which only speed the search up.
// Sizes are counted (not enumerated) so even million-tile spaces count in milliseconds; enumeration
// is for the search.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contracts/tile.hpp"

namespace maeri::mapper {

// The pruning rules of the mRNA paper, in the order `maeri space` lists them.
enum class PruningRule {
  EdgeDivisibility,   // T_R | R, T_S | S, T_C | C: every reduction fold has the same VN size
  InferenceBatch,     // T_N = 1: inference processes one input at a time
  ReducedConvolution, // FC/LSTM layers are convolutions with R = S = X' = Y' = 1, so those tiles are 1
  PartialSumBound,    // N_partial = ceil(R/T_R)·ceil(S/T_S)·ceil(C/T_C) <= num_ms
};
inline constexpr int kNumPruningRules = 4;
inline constexpr PruningRule kPruningRules[kNumPruningRules] = {
    PruningRule::EdgeDivisibility, PruningRule::InferenceBatch, PruningRule::ReducedConvolution,
    PruningRule::PartialSumBound};
const char* rule_name(PruningRule rule);
const char* rule_description(PruningRule rule);

// A subset of the pruning rules (bit i = kPruningRules[i]); empty = the raw Eq. 1 space.
class RuleSet {
 public:
  RuleSet() = default;
  static RuleSet all() { return RuleSet((1u << kNumPruningRules) - 1); }
  static RuleSet only(PruningRule rule) { return RuleSet(1u << static_cast<int>(rule)); }
  bool has(PruningRule rule) const { return (bits_ >> static_cast<int>(rule)) & 1u; }
  bool empty() const { return bits_ == 0; }
  RuleSet with(PruningRule rule) const { return RuleSet(bits_ | (1u << static_cast<int>(rule))); }
  std::string names() const;  // "edge-divisibility,partial-sum-bound", or "none"
  bool operator==(RuleSet other) const { return bits_ == other.bits_; }

 private:
  explicit RuleSet(unsigned bits) : bits_(bits) {}
  unsigned bits_ = 0;
};

// "edge-divisibility,inference-batch", "all" or "none" (any order, repeats allowed); on an unknown name
// returns nullopt and sets `error` to a message naming it and listing the known rules.
std::optional<RuleSet> parse_rules(const std::string& text, std::string& error);

// Whether one tile satisfies one rule (the per-tile form of the rule; TileSpace narrows the enumeration
// with the same conditions, and tests/unit/test_tile_space.cpp checks the two against brute force).
bool satisfies(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile, PruningRule rule);

class TileSpace {
 public:
  TileSpace(const contracts::Layer& layer, const contracts::Hardware& hardware, RuleSet rules = {});

  // Exact number of tiles, by counting over the allowed values of each dimension.
  std::uint64_t count() const;

  // The reduction part (T_R, T_S, T_C), T_K and T_G of every tile, as independent work items for
  // parallel search; enumerate_outputs() then walks (T_N, T_X', T_Y') under one of them.
  struct Prefix {
    std::int64_t r, s, c, k, g = 1;
    std::int64_t mapped_ms() const { return r * s * c * k * g; }  // of the prefix's own dimensions
  };
  std::vector<Prefix> prefixes() const;
  void enumerate_outputs(const Prefix& prefix, const std::function<void(const contracts::Mapping&)>& visit) const;
  template <typename Visitor>
  void enumerate_outputs_inline(const Prefix& prefix, Visitor&& visit) const;

  const std::vector<std::int64_t>& allowed(int dim) const { return allowed_[dim]; }
  const std::vector<std::int64_t>& allowed_groups() const { return allowed_groups_; }  // T_G

 private:
  bool reduction_allowed(std::int64_t r, std::int64_t s, std::int64_t c) const;

  std::array<std::int64_t, contracts::kNumTileDims> extents_{};
  std::array<std::vector<std::int64_t>, contracts::kNumTileDims> allowed_;  // ascending
  std::vector<std::int64_t> allowed_groups_;                               // T_G: divisors of groups, ascending
  std::int64_t num_ms_ = 0;
  bool limit_partial_sums_ = false;
};

template <typename Visitor>
void TileSpace::enumerate_outputs_inline(const Prefix& prefix, Visitor&& visit) const {
  contracts::Mapping tile;
  tile[contracts::kDimR] = prefix.r;
  tile[contracts::kDimS] = prefix.s;
  tile[contracts::kDimC] = prefix.c;
  tile[contracts::kDimK] = prefix.k;
  tile.tile.groups = prefix.g;
  const std::int64_t budget = num_ms_ / prefix.mapped_ms();
  for (const std::int64_t n : allowed_[contracts::kDimN]) {
    if (n > budget) break;
    tile[contracts::kDimN] = n;
    const std::int64_t budget_n = budget / n;
    for (const std::int64_t x : allowed_[contracts::kDimX]) {
      if (x > budget_n) break;
      tile[contracts::kDimX] = x;
      const std::int64_t budget_x = budget_n / x;
      for (const std::int64_t y : allowed_[contracts::kDimY]) {
        if (y > budget_x) break;
        tile[contracts::kDimY] = y;
        visit(tile);
      }
    }
  }
}

// Why no tile of the space under `rules` exists for this layer, or nullopt when the layer can be mapped.
// Without rules this is nullopt whenever num_ms >= 1 (the all-ones tile satisfies Eq. 1); with rules the
// message names the rule that empties the space and suggests dropping it from --prune.
std::optional<std::string> unmappable_reason(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                             RuleSet rules = {});

}  // namespace maeri::mapper
