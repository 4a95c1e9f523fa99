// The counts a memory plan takes from a layer program's steps (timing/memory_plan.cpp), each found once: a step's
// counts depend only on its kind — the phase's configuration, whether it forwards, which of its VNs lie inside the
// layer — and a phase's steps only on its kind — its configuration and its step list. The elements are never
// listed per step: a step's DN elements are its kind's stencil moved to the step's origin (codegen/dn_elements.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "codegen/layer_program.hpp"
#include "util/array_hash.hpp"

namespace maeri::timing {

// One kind of step.
struct StepCounts {
  std::int64_t sdm_reads = 0;  // distinct input elements the DN takes
  std::int64_t used = 0;       // VNs whose result belongs to an output
  // The stencil: each element's channel less the phase's first channel (VnOffset::g · C/groups + the element's c)
  // and its place in that channel's padded [N][X+2·padding_x][Y+2·padding_y] plane less the step's
  // (spatial_base); ordered by channel, then place. The same for every step of the kind.
  struct Element {
    int channel = 0;
    std::int64_t place = 0;
  };
  std::vector<Element> stencil;
};

// A step's place in a channel's padded plane: its batch, its X' and Y' origins times the strides, the phase's R and S
// origins times the dilations (where the stencil's first tap would read).
std::int64_t spatial_base(const contracts::Layer& layer, int r0, int s0, const codegen::StepOrigin& origin);

// The steps of one kind of phase: same configuration, same steps.
struct PhaseKind {
  const codegen::WeightPhase* first = nullptr;  // the program's first phase of the kind (its steps)
  std::vector<const StepCounts*> steps;         // each step's kind
};

// The counts of each kind of step, each configuration's weights and each kind of phase of one program, found once
// each (from codegen::step_inputs of the kind's first step, codegen::phase_weights of the configuration's first
// phase). References stay valid while the object lives.
class ProgramCounts {
 public:
  explicit ProgramCounts(const codegen::LayerProgram& program);

  std::int64_t weights(const codegen::WeightPhase& phase);
  // The kind of `phase` (an index for kind()): its configuration and SDM block's N, X', Y' origins, which fix its steps
  // (codegen::add_phase_steps; std::logic_error if a phase breaks that).
  int phase_kind(const codegen::WeightPhase& phase);
  const PhaseKind& kind(int index) const { return kinds_[std::size_t(index)]; }

 private:
  const StepCounts& step(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin);
  const StepCounts& counted(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin, bool all_used);

  using StepKey = std::tuple<int, bool, std::vector<bool>>;  // configuration, forward, used VNs (empty: all)
  using PhaseKey = std::array<int, 4>;  // configuration, SDM block's N, X', Y' origins
  const codegen::LayerProgram& program_;
  std::vector<std::array<std::int64_t, 3>> inside_;  // per configuration: N, X', Y' below which every VN is inside
  std::vector<std::int64_t> weights_;                // per configuration (−1: not counted yet)
  std::map<StepKey, StepCounts> steps_;
  std::vector<std::optional<StepCounts>> inner_;  // per configuration and forwarding flag: its steps inside
  std::unordered_map<PhaseKey, int, util::ArrayHash> kinds_by_key_;
  PhaseKey last_key_{};
  int last_kind_ = -1;
  std::deque<PhaseKind> kinds_;
};

}  // namespace maeri::timing
