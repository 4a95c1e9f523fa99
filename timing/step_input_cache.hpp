// StepInputCache: the DN elements of a layer program's steps for the co-simulation controller and the memory plan,
// equal to codegen::step_inputs element for element (values, destinations, sources, order), without grouping them
// anew for every step. Within a weight phase, every step with the same used VNs (and forwarding flag) is the same
// stencil moved: an element's padded source index (codegen/dn_elements.hpp) is the step's offset plus the element's
// own, so the grouping by source, the order and every destination list are the same, and only the sources and the
// values change. Each such stencil — the steps inside the layer, and each kind of step at a ragged edge of N, X' or
// Y' (some VNs beyond the layer) — is grouped once per phase by codegen::step_inputs and refilled in place for every
// step of its kind. Grouping was a quarter of the co-simulation's time (sorting and allocating per step;
// maeri_rtl_bench, docs/rtl.md "Simulation speed"), and a third of a chained run's with DRAM (the memory plan).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/layer_program.hpp"

namespace maeri::timing {

class StepInputCache {
 public:
  // The step's elements (values from `input`; all 0 when it is empty); the reference holds until the next call.
  const codegen::StepElements& inputs(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                                      const codegen::StepOrigin& step, const std::vector<std::int64_t>& input);

 private:
  // One kind of step of the current phase, grouped at `origin`.
  struct Stencil {
    bool forward = false;
    codegen::StepOrigin origin;
    // Of each element, at origin: n, c, row, col of the input (row and col may lie in the padding).
    std::vector<std::array<int, 4>> coordinates;
    codegen::StepElements elements;  // refilled for each step of this kind; elements.used_vns is the kind
  };

  void mark_used_vns(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                     const codegen::StepOrigin& step);
  Stencil& stencil_for(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                       const codegen::StepOrigin& step);
  static void fill(Stencil& stencil, const codegen::LayerProgram& program, const codegen::StepOrigin& step,
                   const std::vector<std::int64_t>& input);

  const codegen::LayerProgram* program_ = nullptr;
  const codegen::WeightPhase* phase_ = nullptr;
  std::vector<Stencil> stencils_;  // of phase_, a handful: inside, and each kind of ragged edge
  std::vector<bool> used_;         // the step being asked for: its VNs inside the layer
  // Of phase_: the layer's N, X', Y' less the VNs' largest offsets (a step whose origin is below all three has every
  // VN inside the layer, most steps: no VN to test).
  std::int64_t inside_n_ = 0, inside_x_ = 0, inside_y_ = 0;
};

}  // namespace maeri::timing
