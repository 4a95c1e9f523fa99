// Building a layer's memory plan (see memory_plan.hpp and docs/cosim.md, "Memory system").
#include "timing/memory_plan.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "codegen/dn_elements.hpp"
#include "util/integer_math.hpp"

namespace maeri::timing {

namespace {

// A step's counts, which depend only on its kind: the phase's configuration, whether it forwards and which of its
// VNs lie inside the layer (its DN elements are the kind's stencil moved, codegen/dn_elements.hpp: every source a
// translate of the stencil's, so as many distinct elements).
struct StepCounts {
  std::int64_t sdm_reads = 0;  // distinct input elements the DN takes
  std::int64_t used = 0;       // VNs whose result belongs to an output
  // The elements' padded input indices less the step's base (input_base): the kind's stencil, the same for every step
  // of the kind (each source is the base plus an offset of the stencil's, codegen/dn_elements.hpp).
  std::vector<std::int64_t> offsets;
};

// A step's padded input index: its batch and first channel, its X' and Y' origins times the strides, R and S origins
// times the dilations (codegen/dn_elements.hpp's source index of the stencil's first tap).
std::int64_t input_base(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                        const codegen::StepOrigin& origin) {
  const contracts::Layer& layer = program.layer;
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  const std::int64_t channel = codegen::first_channel(layer, phase);
  return ((std::int64_t(origin.n0) * layer.C + channel) * padded_x + std::int64_t(origin.x0) * layer.stride_x +
          std::int64_t(phase.r0) * layer.dilation_x) * padded_y +
         std::int64_t(origin.y0) * layer.stride_y + std::int64_t(phase.s0) * layer.dilation_y;
}

// The counts of each kind of step and of each configuration's weights, each computed once from the elements of its
// first step or phase (codegen::step_inputs, phase_weights).
class ElementCounts {
 public:
  explicit ElementCounts(const codegen::LayerProgram& program) : program_(program) {
    const contracts::Layer& layer = program.layer;
    for (const codegen::PhaseConfiguration& configuration : program.configurations) {
      int largest_n = 0, largest_x = 0, largest_y = 0;
      for (const codegen::VnOffset& vn : configuration.placement.vn_offsets) {
        largest_n = std::max(largest_n, vn.n);
        largest_x = std::max(largest_x, vn.x);
        largest_y = std::max(largest_y, vn.y);
      }
      inside_.push_back({layer.N - largest_n, layer.output_x() - largest_x, layer.output_y() - largest_y});
    }
    inner_.resize(2 * program.configurations.size());
  }

  std::int64_t weights(const codegen::WeightPhase& phase) {
    auto [at, added] = weights_.try_emplace(phase.configuration, 0);
    if (added) at->second = std::int64_t(codegen::phase_weights(program_, phase, {}).size());
    return at->second;
  }

  // Whether every VN of the step lies inside the layer (most steps; the others are at a ragged edge).
  bool all_used(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin) const {
    const auto& inside = inside_[std::size_t(phase.configuration)];
    return origin.n0 < inside[0] && origin.x0 < inside[1] && origin.y0 < inside[2];
  }

  const StepCounts& step(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin) {
    const bool all_used = this->all_used(phase, origin);
    // Most steps: every VN inside, a slot per configuration and forwarding flag.
    std::optional<StepCounts>* slot = nullptr;
    if (all_used) {
      slot = &inner_[2 * std::size_t(phase.configuration) + origin.forward];
      if (*slot) return **slot;
    }
    const StepCounts& counts = counted(phase, origin, all_used);
    if (slot) *slot = counts;
    return counts;
  }

 private:
  const StepCounts& counted(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin, bool all_used) {
    Key key{phase.configuration, origin.forward, {}};
    if (!all_used) {
      const contracts::Layer& layer = program_.layer;
      for (const codegen::VnOffset& vn :
           program_.configurations[std::size_t(phase.configuration)].placement.vn_offsets)
        std::get<2>(key).push_back(origin.n0 + vn.n < layer.N && origin.x0 + vn.x < layer.output_x() &&
                                   origin.y0 + vn.y < layer.output_y());
    }
    auto [at, added] = steps_.try_emplace(std::move(key));
    if (added) {
      const codegen::StepElements elements = codegen::step_inputs(program_, phase, origin, {});
      at->second.sdm_reads = std::int64_t(elements.inputs.size());
      at->second.used = std::count(elements.used_vns.begin(), elements.used_vns.end(), true);
      const std::int64_t base = input_base(program_, phase, origin);
      for (const codegen::DnElement& element : elements.inputs) at->second.offsets.push_back(element.source - base);
    }
    return at->second;
  }

  using Key = std::tuple<int, bool, std::vector<bool>>;  // configuration, forward, used VNs (empty: all)
  const codegen::LayerProgram& program_;
  std::vector<std::array<std::int64_t, 3>> inside_;  // per configuration: N, X', Y' below which every VN is inside
  std::map<int, std::int64_t> weights_;
  std::map<Key, StepCounts> steps_;
  std::vector<std::optional<StepCounts>> inner_;  // per configuration and forwarding flag: its steps inside
};

// Which inputs are already in the SDM: each step's new ones (fills) are those of its elements not fetched before in
// the current stay (the layer without an SDM level, an input block's stay with one). A phase whose steps read the
// very elements of a phase already played in the stay — same configuration, group, channel slice, R/S origin and
// SDM block: its filter tile alone differs — fetches none, without looking at its elements. A step's elements are
// its kind's stencil (configuration, forwarding, VNs inside the layer) moved: each source is the step's padded input
// index (its batch, first channel, X' and Y' origins times the strides, R and S origins times the dilations) plus
// an offset of the stencil's (codegen/dn_elements.hpp, linear in all of them), so each kind's offsets are found once
// from its first step's elements (codegen::step_inputs) and serve every phase.
class InputFills {
 public:
  explicit InputFills(const codegen::LayerProgram& program)
      : program_(program),
        padded_x_(program.layer.X + 2 * program.layer.padding_x),
        padded_y_(program.layer.Y + 2 * program.layer.padding_y),
        fetched_(std::size_t(program.layer.N * program.layer.C * padded_x_ * padded_y_), 0) {}

  // A new stay: nothing is in the SDM. The stay's number marks what it fetched, so the elements need clearing only
  // when the numbers run out (a byte each: the array stays as small as a flag per element).
  void new_stay() {
    if (++stay_ == 0) {
      std::fill(fetched_.begin(), fetched_.end(), 0);
      stay_ = 1;
    }
    windows_.clear();
  }
  // Whether the phase's steps read elements no earlier phase of the stay read (else its fills are all 0).
  bool fetches(const codegen::WeightPhase& phase) {
    using contracts::kSdmC, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
    return windows_.insert({phase.configuration, phase.group, phase.c0, phase.r0, phase.s0, phase.block[kSdmC],
                            phase.block[kSdmN], phase.block[kSdmX], phase.block[kSdmY]}).second;
  }
  // Inputs of a step not yet in the SDM (marked as fetched now): what the step's read brings in. `kind`: the counts of
  // the step's kind (ElementCounts::step), with its stencil.
  std::int64_t new_fills(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin, const StepCounts& kind) {
    const std::int64_t base = input_base(program_, phase, origin);
    std::int64_t fills = 0;
    for (const std::int64_t offset : kind.offsets) {
      std::uint8_t& fetched = fetched_[std::size_t(base + offset)];
      fills += fetched != stay_;
      fetched = stay_;
    }
    return fills;
  }

 private:
  const codegen::LayerProgram& program_;
  std::int64_t padded_x_, padded_y_;
  std::vector<std::uint8_t> fetched_;  // per padded input element: the last stay that fetched it (0: none)
  std::uint8_t stay_ = 1;
  std::set<std::array<int, 9>> windows_;
};

// Two-level mappings (docs/model.md, "SDM level"; the same rule as contracts::sdm_block_traffic, event by event): each
// tensor's SDM copy lives while its block does. Inputs and weights are fetched on first use within their block's
// stay; each output tile is read back from DRAM on its first visit of a stay that is not its first reduction fold,
// and written back on its last visit of each stay.
// In a fused role the fills the group already holds are left out, and a shared output's final write (its tile's last
// visit) stays in the SDM.
void plan_blocked(const codegen::LayerProgram& program, const contracts::Hardware& hardware, const PlanRole& role,
                  MemoryPlan& plan) {
  const std::int64_t data_b = contracts::data_bytes(hardware), acc_b = contracts::accumulator_bytes(hardware);
  ElementCounts counts(program);
  InputFills fills(program);
  // Every key starts with the group: a grouped layer runs its SDM blocks group after group.
  std::set<std::array<int, 5>> weights_here;  // weight slices (group, r0, s0, c0, k0) in the SDM
  // Output tiles by the flat index of their first output: the output stay that last visited each (+1; 0 never).
  const contracts::Layer& layer = program.layer;
  const auto tile_index = [&](const codegen::WeightPhase& phase, const codegen::StepOrigin& origin) {
    return std::size_t(((std::int64_t(codegen::first_filter(layer, phase)) * layer.N + origin.n0) * layer.output_x() +
                        origin.x0) * layer.output_y() + origin.y0);
  };
  std::vector<int> visited(std::size_t(layer.output_elements()), 0);
  std::array<int, 5> input_block{-1, -1, -1, -1, -1}, output_block{-1, -1, -1, -1, -1};
  std::array<int, 3> weight_block{-1, -1, -1};
  int input_stay = -1, output_stay = -1;
  struct StepKey {
    std::size_t event;
    int stay;
    std::size_t tile;
    std::int64_t bytes;
  };
  std::vector<StepKey> steps;
  steps.reserve(plan.events.capacity());
  using contracts::kSdmC, contracts::kSdmK, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  for (const codegen::WeightPhase& phase : program.phases) {
    const auto& b = phase.block;
    const std::array<int, 5> in{phase.group, b[kSdmC], b[kSdmN], b[kSdmX], b[kSdmY]},
        out{phase.group, b[kSdmK], b[kSdmN], b[kSdmX], b[kSdmY]};
    const std::array<int, 3> w{phase.group, b[kSdmK], b[kSdmC]};
    if (in != input_block) {
      fills.new_stay();
      input_block = in;
      ++input_stay;
    }
    if (w != weight_block) {
      weights_here.clear();
      weight_block = w;
    }
    if (out != output_block) {
      output_block = out;
      ++output_stay;
    }
    MemoryEvent weights;
    weights.weights = true;
    weights.slice = input_stay;  // a new input block's first phase frees the previous block's inputs
    weights.sdm_reads = counts.weights(phase);
    if (weights_here.insert({phase.group, phase.r0, phase.s0, phase.c0, phase.k0}).second && !role.weights_in_sdm)
      weights.fill_elements = weights.sdm_reads;
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
    const std::int64_t configured_vns = configuration.placement.shape.vn_count();
    const bool fetches = !role.inputs_in_sdm && fills.fetches(phase);
    for (const codegen::StepOrigin& origin : phase.steps) {
      const StepCounts& step_counts = counts.step(phase, origin);
      const std::int64_t used = step_counts.used;
      MemoryEvent step;
      step.slice = input_stay;
      step.hold = SdmHold::UntilSliceEnds;
      step.sdm_reads = step_counts.sdm_reads;
      step.fill_elements = fetches ? fills.new_fills(phase, origin, step_counts) : 0;
      const std::size_t tile = tile_index(phase, origin);
      const bool first_visit = visited[tile] != output_stay + 1;
      visited[tile] = output_stay + 1;
      step.staging_bytes = configured_vns * acc_b;
      step.psum_reads = phase.accumulate ? used : 0;
      step.output_writes = used;
      step.held_bytes = step.fill_elements * data_b;
      step.read_bytes = step.held_bytes + (first_visit && phase.accumulate ? used * acc_b : 0);
      steps.push_back({plan.events.size(), output_stay, tile, used * acc_b});
      plan.events.push_back(step);
    }
  }
  // The last visit of an output tile in each stay writes it back; its very last visit is its final write. Walking
  // back, the stay that wrote each tile (+1; 0: none yet, so this visit is the tile's final write).
  std::vector<int>& written = visited;
  std::fill(written.begin(), written.end(), 0);
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    const bool final_write = written[step->tile] == 0;
    if (written[step->tile] != step->stay + 1) {
      written[step->tile] = step->stay + 1;
      if (!(final_write && role.output_in_sdm)) plan.events[step->event].write_bytes = step->bytes;
    }
  }
}

}  // namespace

PlanRole plan_role(const contracts::FusedRole& role, std::int64_t stripe, std::int64_t reserved_bytes) {
  PlanRole plan;
  plan.inputs_in_sdm = role.input_in_sdm;
  // Pinned weights come from DRAM in the first stripe only; a matrix product's operand A shared in the group never.
  plan.weights_in_sdm = (role.weights_pinned && stripe > 0) || role.weights_in_sdm;
  plan.output_in_sdm = role.output_in_sdm;
  plan.reserved_bytes = reserved_bytes;
  return plan;
}

MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                       const codegen::LayerTensors&, const PlanRole& role) {
  return plan_memory(program, hardware, role);
}

MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware, const PlanRole& role) {
  const contracts::Layer& layer = program.layer;
  const contracts::Mapping& tile = program.mapping;
  MemoryPlan plan;
  std::size_t events = program.phases.size();
  for (const codegen::WeightPhase& phase : program.phases) events += phase.steps.size();
  plan.events.reserve(events);
  plan.budget = contracts::sdm_budget(layer, hardware, tile);
  plan.budget.stream_buffer_bytes = std::max<std::int64_t>(0, plan.budget.stream_buffer_bytes - role.reserved_bytes);
  if (plan.budget.blocked) {
    plan_blocked(program, hardware, role, plan);
    return plan;
  }
  if (role.inputs_in_sdm || role.weights_in_sdm || role.output_in_sdm)
    throw std::invalid_argument("plan_memory: layer " + layer.name +
                                " has no SDM level, so it cannot keep a tensor in the SDM for a fused group");
  const std::int64_t data_b = contracts::data_bytes(hardware), acc_b = contracts::accumulator_bytes(hardware);
  const bool resident = plan.budget.resident;
  const int slices_per_group = int(util::ceil_div(layer.group_channels(), tile[contracts::kDimC]));
  const bool filters_outer = contracts::effective_phase_order(layer, tile) == contracts::PhaseOrder::FiltersOuter;
  ElementCounts counts(program);
  std::optional<InputFills> fills;  // resident inputs stay for the whole layer: one stay
  if (resident) fills.emplace(program);

  for (const codegen::WeightPhase& phase : program.phases) {
    const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
    // Filters outer, every channel slice of the group comes back once per filter tile: resident inputs stay for
    // the whole group (the residency rule sizes them so, contracts/sdm_budget.cpp).
    const int slice = filters_outer ? phase.group : phase.group * slices_per_group + phase.c0 / int(tile[contracts::kDimC]);
    const bool last_fold = phase.c0 + tile[contracts::kDimC] >= layer.group_channels() && phase.r0 + tile[contracts::kDimR] >= layer.R &&
                           phase.s0 + tile[contracts::kDimS] >= layer.S;
    // Results go back to DRAM after every step, unless the partial sums live in the SDM until the last fold.
    const bool writes_back = !plan.budget.psums_in_sdm || last_fold;
    const bool psums_from_dram = phase.accumulate && !plan.budget.psums_in_sdm;

    MemoryEvent weights;
    weights.weights = true;
    weights.slice = slice;
    weights.sdm_reads = counts.weights(phase);
    weights.fill_elements = weights.sdm_reads;  // each phase holds distinct weights: fetched exactly once
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const std::int64_t configured_vns = configuration.placement.shape.vn_count();
    const bool fetches = resident && fills->fetches(phase);
    for (const codegen::StepOrigin& origin : phase.steps) {
      const StepCounts& step_counts = counts.step(phase, origin);
      const std::int64_t used = step_counts.used;
      MemoryEvent step;
      step.slice = slice;
      step.sdm_reads = step_counts.sdm_reads;
      if (resident) {
        step.fill_elements = fetches ? fills->new_fills(phase, origin, step_counts) : 0;
        step.hold = SdmHold::UntilSliceEnds;
      } else {
        step.fill_elements = step.sdm_reads;
      }
      step.staging_bytes = configured_vns * acc_b;
      step.psum_reads = phase.accumulate ? used : 0;
      step.output_writes = used;
      step.read_bytes = step.fill_elements * data_b + (psums_from_dram ? used * acc_b : 0);
      step.held_bytes = resident ? step.read_bytes : 0;  // resident: no partial sums come from DRAM
      step.write_bytes = writes_back ? used * acc_b : 0;
      plan.events.push_back(step);
    }
  }
  return plan;
}

}  // namespace maeri::timing
