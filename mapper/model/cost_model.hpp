// The analytical cost model: cycles, utilisation, activity counts and energy of a tile, exactly
// (ragged edge tiles are costed as they are, not averaged). Equations and sources: docs/model.md.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "util/integer_math.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::mapper {

// Provable lower bounds on the DN and RN traversal counts, which the model itself only estimates (their exact
// values need the VN placement and the ART's adder words: codegen/exact_traffic.hpp). The search uses them to
// decide which tiles need the exact counts at all (docs/model.md, "Exact traffic").
struct TrafficLowerBounds {
  std::int64_t dn_traversals = 0;
  std::int64_t rn_traversals = 0;
};

using contracts::FusedRole;  // contracts/fused_role.hpp

// The tile must be legal (mapping_violation() == nullopt); the model does not re-check. `bounds`, when given,
// receives the lower bounds of the tile's traversal counts.
contracts::CostReport evaluate(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                          TrafficLowerBounds* bounds = nullptr);
// The same mapping in a fused group's role (FusedRole{} gives evaluate()'s report).
contracts::CostReport evaluate(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& tile, const FusedRole& role);

// The report with the lower bounds in place of the DN/RN traversal estimates (and the energy that follows): what
// the search ranks before it knows the exact counts; it skips the estimates' cost.
contracts::CostReport evaluate_lower_bound(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile);

// evaluate() (or evaluate_lower_bound() when `lower_bound`) of `tile` under each of `phase_orders` and, within each,
// each of `orders` in turn, calling visit(report) for each: the joint search's inner loop. Which orders can change
// the cost is the map space's knowledge (distinct_phase_orders, distinct_sdm_orders: mapper/mapspace/equivalent_orders.hpp);
// the caller passes them, so the model does not depend on the map space. The loop nest is costed once per phase order when the SDM order cannot change it
// (docs/model.md, "SDM level": only ragged C or K blocks make the phase sequence depend on the order).
void evaluate_orders(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                     const std::vector<contracts::PhaseOrder>& phase_orders, const std::vector<contracts::SdmOrder>& orders,
                     bool lower_bound,
                     const std::function<void(const contracts::CostReport&)>& visit);
// The same for each of `roles` in a fused group: visit(report, role index); the fabric part is shared by the roles.
void evaluate_orders(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                     const std::vector<contracts::PhaseOrder>& phase_orders, const std::vector<contracts::SdmOrder>& orders,
                     const std::vector<FusedRole>& roles,
                     const std::function<void(const contracts::CostReport&, std::size_t)>& visit);

// A lower bound on the total cycles of any mapping with this fabric tile (any SDM level), from the tile sizes
// alone (docs/model.md, "Search": the cycle bound): the search skips a tile whose bound cannot beat the lists it
// could enter, so the result stays the exact optimum. Built once per layer and fabric (tables over the tile sizes of
// each dimension); a call is table lookups and a few multiplications: it runs for every tile of the space.
class CyclesLowerBound {
 public:
  CyclesLowerBound(const contracts::Layer& layer, const contracts::Hardware& hardware);
  // Lower bounds on the compute cycles (ideal memory) of every mapping with this fabric tile, and on the total
  // cycles of this very mapping (a single-level mapping that streams from DRAM is bound by its DRAM bytes too).
  struct Bounds {
    double compute = 0, total = 0;
  };
  Bounds bounds(const contracts::Mapping& tile) const;
  double operator()(const contracts::Mapping& tile) const { return bounds(tile).total; }

 private:
  const contracts::Layer* layer_;
  std::array<std::int64_t, contracts::kNumTileDims> extents_{};
  std::array<std::vector<std::int64_t>, contracts::kNumTileDims> tiles_;  // [d][t]: ⌈D/t⌉
  // [t_out·(taps + 1) + t_taps]: Σ over the output tiles × tap tiles of their window span, for X'/R and Y'/S.
  std::vector<std::int64_t> span_sum_x_, span_sum_y_;
  util::CeilDivider per_rn_beat_;
  const contracts::Hardware* hardware_;
  double dn_bw_ = 1, step_overhead_ = 0, phase_cost_ = 0, fixed_ = 0;
  double dram_bytes_per_cycle_ = 1;
  std::int64_t weight_bytes_ = 0, data_bytes_ = 1;
};

// A lower bound on the energy of any mapping of the layer: the multiplications of its MACs and the compulsory DRAM
// bytes (compulsory_dram_bytes), nothing else (the energy of docs/search.md's algorithmic minimum). With
// CyclesLowerBound's compute bound it bounds the EDP of every mapping of a fabric tile (the joint search's skip).
double energy_lower_bound(const contracts::Layer& layer, const contracts::Hardware& hardware);

}  // namespace maeri::mapper
