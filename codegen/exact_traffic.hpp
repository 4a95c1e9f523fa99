// Exact DN and RN traffic of a layer program, without executing it on data: the destination sets of one step
// of each kind (configuration × used N/X'/Y' replicas × forwarding) are built once and multiplied by how often
// that kind of step occurs. It gives the same DN/RN traversal counts as the functional model and the RTL
// counters, fast enough to refine the analytical model's estimates for the mappings a user looks at.
#pragma once

#include <cstdint>

#include "codegen/layer_program.hpp"
#include "spec/cost_report.hpp"

namespace maeri::codegen {

struct ExactTraffic {
  std::int64_t dn_elements = 0;     // elements sent into the DN root (inputs and weights)
  std::int64_t dn_traversals = 0;   // as COUNT_DN_TRAVERSALS (docs/rtl.md)
  std::int64_t rn_traversals = 0;   // as COUNT_RN_TRAVERSALS
  std::int64_t fabric_results = 0;  // results on the output lanes (every configured VN, every step)
};

ExactTraffic exact_traffic(const LayerProgram& program, const spec::Hardware& hardware);

// Replaces the analytical model's DN/RN traversal estimates (dn_hops, rn_hops) in `report` by the exact
// counts of the mapping's program and recomputes the energy. The search ranks with the estimates (they cost
// nothing per tile); reports and cross-checks use this for the mappings they show.
void refine_with_exact_traffic(spec::CostReport& report, const spec::Layer& layer,
                               const spec::Hardware& hardware);

}  // namespace maeri::codegen
