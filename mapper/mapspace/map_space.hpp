// The map space of one layer on one fabric as the heuristic searches walk it (docs/search.md): the fabric tile and,
// two-level, the SDM tile, its loop order and the phase order, with its legal moves — a random mapping, a
// neighbour, a crossover, the projection of a point of the continuous relaxation to the nearest legal mapping — and
// the legality answer with its reason (MapSpace::violation). The exhaustive search enumerates the same space with
// tile_space.hpp (fabric level) and sdm_space.hpp (SDM level); equivalent_orders.hpp names one mapping per cost
// for both. Like Timeloop's map space it knows mappings, not costs: it depends on contracts alone.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::mapper {

// The share of MapSpace::neighbour's moves that swap two dimensions' roles.
inline constexpr double kRoleSwapShare = 1.0 / 12;

// A point of the continuous relaxation: log2 of the seven fabric tile sizes, log2 of the five SDM block sizes, one
// key per SDM loop (the order sorts the keys ascending, outer first), the SDM level's presence (> 0.5 = blocked),
// the phase order (> 0.5 = filters-outer, where it can change the cost) and log2 T_G (0 for an ungrouped layer).
inline constexpr int kRelaxedFabric = 0, kRelaxedBlocks = 7, kRelaxedOrder = 12, kRelaxedBlocked = 17,
                     kRelaxedPhase = 18, kRelaxedGroups = 19, kRelaxedSize = 20;
using RelaxedMapping = std::array<double, kRelaxedSize>;

// The group tile T_G as the map space's eighth dimension (after the seven fabric dimensions): its sizes are the
// divisors of the layer's groups (the group edge rule), and it takes part in every move only for a grouped layer,
// so an ungrouped layer's space, moves and random draws are exactly the seven-dimension ones.
inline constexpr int kSpaceGroups = contracts::kNumTileDims, kNumSpaceDims = contracts::kNumTileDims + 1;

// The space the heuristics walk. Per fabric dimension only the fold-minimal sizes ⌈extent/m⌉ (m = 1…extent) are
// used: any other size folds the dimension as often as the next smaller one of them while mapping more
// multiplier switches; T_G takes every divisor of the groups. Every mapping a MapSpace returns is a mapping of
// the space (violation() == nullopt).
class MapSpace {
 public:
  MapSpace(const contracts::Layer& layer, const contracts::Hardware& hardware, bool two_level);

  // Why `mapping` is not a mapping of this space, or nullopt when it is: the first rule it breaks, as a sentence
  // naming the rule — a rule of every mapping (contracts::mapping_violation: bounds, group edge, Eq. 1, the SDM
  // level's rules and capacity), then this space's own: no SDM level in the single-level space, fold-minimal
  // fabric sizes, SDM blocks among the fabric tile's candidates (sdm_space.hpp).
  std::optional<std::string> violation(const contracts::Mapping& mapping) const;

  contracts::Mapping random(std::mt19937_64& rng) const;
  // One small move: the roles of two SDM dimensions swapped (kRoleSwapShare of the moves: swap_roles); a fabric
  // size one or two steps along its list (Eq. 1 repaired by shrinking another dimension; then, 3 times in 10, the
  // other dimensions grown as far as they fit: fill_fabric); or (two-level) an SDM block one candidate along, or
  // a factor of it moved to another block, a loop swapped with or moved to another place in the order, a jump to
  // a full SDM level (fill_sdm in any order, or plan_sdm for a random order), the SDM level added or dropped, or
  // the phase order flipped. The two-level space includes the phase order wherever it can change the cost
  // (distinct_phase_orders), as the exhaustive joint search does; elsewhere it stays folds-outer.
  contracts::Mapping neighbour(const contracts::Mapping& tile, std::mt19937_64& rng) const;
  // Uniform crossover of the fabric sizes and of the SDM level (taken whole from one parent), then repaired.
  contracts::Mapping crossover(const contracts::Mapping& a, const contracts::Mapping& b, std::mt19937_64& rng) const;
  // The nearest legal mapping (per dimension by log distance; Eq. 1 and the SDM capacity repaired by shrinking the
  // dimension rounded up most). Deterministic.
  contracts::Mapping project(const RelaxedMapping& point) const;
  RelaxedMapping relax(const contracts::Mapping& tile) const;
  // Any tile (of this layer's extents or not) made legal for this space: sizes clamped and snapped, then repaired.
  contracts::Mapping legalise(contracts::Mapping tile) const;
  // `tile` with its fabric tile and then its SDM blocks grown as far as they fit (fill_fabric, fill_sdm), legal.
  contracts::Mapping filled(const contracts::Mapping& tile, std::mt19937_64& rng) const;
  // Grows every fabric dimension (T_G included) but `keep` (-1: every one), one at a time in a random order, to its
  // largest size that still fits Eq. 1: a tile that maps as many multiplier switches as its shape allows.
  void fill_fabric(contracts::Mapping& tile, int keep, std::mt19937_64& rng) const;
  // Grows the SDM blocks (from the current ones or from the smallest), one dimension at a time in a random order, as
  // far as the SDM holds them: a full SDM level, whose reuse a loop order can exploit.
  // (No effect without an SDM level.)
  void fill_sdm(contracts::Mapping& tile, std::mt19937_64& rng, bool from_smallest) const;
  // A plan of the SDM level for a loop order (outer to inner): the innermost loop's block the smallest (that loop
  // streams it), the other blocks grown from their smallest together, the one grown least (log2) first, as far as
  // the SDM holds them. Balanced blocks are what a full SDM level most often wants (X' and Y' of about the same
  // size reuse their halo best), and fill_sdm grows one block after another. No SDM level when even the smallest
  // blocks do not fit. (No effect without an SDM level.)
  void plan_sdm(contracts::Mapping& tile, const contracts::SdmOrder& order) const;
  // Swaps the roles of SDM dimensions a and b (SdmDim): their fabric sizes, their SDM blocks and their places in
  // the SDM order (each snapped to the other dimension's candidates, then repaired). It mirrors a mapping across the two: of a
  // layer with C ≈ K, the best mapping that holds C on the fabric and streams K and the best that does the
  // opposite are far apart for the other moves (every path between them passes much worse mappings).
  void swap_roles(contracts::Mapping& tile, int a, int b, std::mt19937_64& rng) const;

  const contracts::Layer& layer() const { return layer_; }
  const contracts::Hardware& hardware() const { return hardware_; }
  bool two_level() const { return two_level_; }
  // The sizes of a space dimension (a TileDim or kSpaceGroups), descending.
  const std::vector<std::int64_t>& sizes(int dim) const { return sizes_[size_t(dim)]; }
  // The dimensions the moves change: the seven fabric dimensions, and kSpaceGroups for a grouped layer.
  int dims() const { return dims_; }

 private:
  using Excess = std::array<double, kNumSpaceDims>;
  std::size_t nearest_size(int dim, double log2_size) const;
  // One uniform draw per dimension of dims(): how far a repair shrinks each first.
  Excess random_excess(std::mt19937_64& rng) const;
  void repair_fabric(contracts::Mapping& tile, const Excess& excess) const;
  void repair_sdm(contracts::Mapping& tile, const std::array<double, contracts::kNumSdmDims>& log2_blocks) const;
  // One name per cost (one key in the Evaluator): the SDM order becomes its class's representative
  // (canonical_sdm_order), and the phase order folds-outer where it cannot change the cost.
  void settle(contracts::Mapping& tile) const;
  // The blocks of neighbour(): each changes `next` (a copy of `tile`) by one kind of move.
  void add_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const;
  void change_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const;
  void jump_to_full_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const;
  void move_sdm_block(contracts::Mapping& next, std::mt19937_64& rng) const;
  void move_sdm_loop(contracts::Mapping& next, std::mt19937_64& rng) const;
  void move_fabric_size(contracts::Mapping& next, const contracts::Mapping& tile, const std::vector<int>& movable,
                        std::mt19937_64& rng) const;

  contracts::Layer layer_;
  contracts::Hardware hardware_;
  bool two_level_;
  std::array<std::int64_t, contracts::kNumTileDims> extents_{};
  std::array<std::vector<std::int64_t>, kNumSpaceDims> sizes_;
  int dims_;
};

// A space dimension's size in a mapping (a TileDim, or kSpaceGroups: T_G), and setting it.
std::int64_t space_size(const contracts::Mapping& mapping, int dim);
void set_space_size(contracts::Mapping& mapping, int dim, std::int64_t size);

}  // namespace maeri::mapper
