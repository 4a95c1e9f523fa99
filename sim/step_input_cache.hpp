// StepInputCache: the DN elements of a layer program's steps for the co-simulation controller, equal to
// codegen::step_inputs element for element (values, destinations, sources, order), without grouping them anew for
// every step. Within a weight phase every step whose VNs all fall inside the layer is the same stencil moved: an
// element's padded source index (codegen/dn_elements.hpp) is the step's offset plus the element's own, so the grouping
// by source, the order and every destination list are the same, and only the sources and the values change. The
// stencil is grouped once per phase (and forwarding flag) and each such step refills it in place; a step at a ragged
// edge (some VN beyond the layer) is grouped by codegen::step_inputs. Grouping was a quarter of the co-simulation's
// time (sorting and allocating per step; maeri_rtl_bench, docs/rtl.md "Simulation speed").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/layer_program.hpp"

namespace maeri::sim {

class StepInputCache {
 public:
  // The step's elements; the reference holds until the next call.
  const codegen::StepElements& inputs(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                                      const codegen::StepOrigin& step, const std::vector<std::int64_t>& input);

 private:
  bool inside_layer(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                    const codegen::StepOrigin& step) const;
  void make_stencil(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                    const codegen::StepOrigin& step);
  void fill(const codegen::LayerProgram& program, const codegen::StepOrigin& step,
            const std::vector<std::int64_t>& input);

  const codegen::LayerProgram* program_ = nullptr;
  const codegen::WeightPhase* phase_ = nullptr;
  bool forward_ = false;
  codegen::StepOrigin origin_;  // the step the stencil was grouped at
  // Of each stencil element, at origin_: n, c, row, col of the input (row and col may lie in the padding).
  std::vector<std::array<int, 4>> coordinates_;
  codegen::StepElements stencil_;  // refilled for each step that fits inside the layer
  codegen::StepElements edge_;     // a ragged edge's step, grouped anew
};

}  // namespace maeri::sim
