// The fabric compiler: from a VN layout, the configuration of every adder switch of MAERI's augmented reduction
// tree (which children to combine, which forwarding links carry partial sums, where each VN's result is emitted)
// and of every multiplier switch. Any row of contiguous VNs of any sizes reduces in one pass.
#pragma once

#include <vector>

#include "codegen/fabric_config.hpp"
#include "codegen/vn_layout.hpp"

namespace maeri::codegen {

// Where a VN's finished sum leaves the tree.
struct EmitPoint {
  int level = 0;  // 0 = root
  int index = 0;  // adder index within the level
  int side = 0;   // 0 left (or combined) token, 1 right token
  int adder() const { return (1 << level) - 1 + index; }
  int slot() const { return 2 * adder() + side; }
};

struct ReductionPlan {
  FabricConfig config;
  std::vector<EmitPoint> emit_points;  // per VN id
};

// take_forward: per multiplier switch, whether it takes its operand from its left neighbour on forwarding steps
// (empty = none). Throws LayoutError for a layout that cannot be placed (see validate_layout), or a forwarding
// flag on switch 0 (it has no left neighbour) or on an idle switch.
ReductionPlan compile_fabric(const VnLayout& layout, const std::vector<bool>& take_forward = {});

}  // namespace maeri::codegen
