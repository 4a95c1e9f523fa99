// Building a layer's memory plan (see memory_plan.hpp and docs/cosim.md, "Memory system").
#include "timing/memory_plan.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "timing/input_fills.hpp"
#include "timing/step_counts.hpp"
#include "util/array_hash.hpp"
#include "util/integer_math.hpp"

namespace maeri::timing {

namespace {

// How a phase's steps become events, all but their own counts (StepCounts): a phase's events follow from its kind
// and its rule.
struct StepRule {
  int slice = 0;
  SdmHold hold = SdmHold::UntilUsed;
  const std::vector<std::int64_t>* fills = nullptr;  // per step (InputFills); none: nothing new in the SDM
  bool fills_all = false;                             // streaming: every step fetches all it reads
  bool accumulate = false;                            // partial sums read back (used VNs)
  bool psums_from_dram = false;                       // and they come from DRAM first
  bool writes = false;                                // results written back to DRAM when the step retires
  bool holds_reads = false;  // the SDM keeps the whole read until the slice ends (else the fills alone)
};

struct EventBytes {
  std::int64_t data = 0, accumulator = 0;  // bytes per input or weight, per partial sum or output
};

void append_steps(const std::vector<const StepCounts*>& steps, std::int64_t configured_vns, const StepRule& rule,
                  const EventBytes& bytes, std::vector<MemoryEvent>& events) {
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const std::int64_t used = steps[s]->used;
    MemoryEvent step;
    step.slice = rule.slice;
    step.hold = rule.hold;
    step.sdm_reads = steps[s]->sdm_reads;
    step.fill_elements = rule.fills_all ? step.sdm_reads : rule.fills ? (*rule.fills)[s] : 0;
    step.staging_bytes = configured_vns * bytes.accumulator;
    step.psum_reads = rule.accumulate ? used : 0;
    step.output_writes = used;
    step.read_bytes = step.fill_elements * bytes.data + (rule.psums_from_dram ? used * bytes.accumulator : 0);
    if (rule.hold == SdmHold::UntilSliceEnds)
      step.held_bytes = rule.holds_reads ? step.read_bytes : step.fill_elements * bytes.data;
    step.write_bytes = rule.writes ? used * bytes.accumulator : 0;
    events.push_back(step);
  }
}

// The step events of each phase: built for the first phase of a kind and rule, copied for the others from its place
// in the plan (a layer's phases repeat few kinds and rules: every filter tile of a fold, every fold of a block).
class StepEvents {
 public:
  StepEvents(const codegen::LayerProgram& program, const contracts::Hardware& hardware, ProgramCounts& counts)
      : program_(program),
        bytes_{contracts::data_bytes(hardware), contracts::accumulator_bytes(hardware)},
        counts_(counts) {}

  // Appends the events of `phase`'s steps, of kind `kind` (ProgramCounts::phase_kind), under `rule`.
  void append(const codegen::WeightPhase& phase, int kind, const StepRule& rule, std::vector<MemoryEvent>& events) {
    const Key key{kind, rule.slice, std::int64_t(reinterpret_cast<std::uintptr_t>(rule.fills)),
                  rule.accumulate + 2 * rule.psums_from_dram + 4 * rule.writes};
    const std::vector<const StepCounts*>& steps = counts_.kind(kind).steps;
    if (key != last_key_) {  // most phases: the previous phase's key (filter tiles in a row)
      const auto [at, added] = first_.try_emplace(key, events.size());
      last_key_ = key;
      last_first_ = at->second;
      if (added) {
        const codegen::PhaseConfiguration& configuration = program_.configurations[std::size_t(phase.configuration)];
        return append_steps(steps, configuration.placement.shape.vn_count(), rule, bytes_, events);
      }
    }
    // The plan has room for every event (plan_memory reserves it): no reallocation moves the events copied.
    for (std::size_t from = last_first_, end = from + steps.size(); from < end; ++from) events.push_back(events[from]);
  }

 private:
  // Kind, slice, fills, flags: what else a rule says is the same for the whole plan.
  using Key = std::array<std::int64_t, 4>;
  const codegen::LayerProgram& program_;
  EventBytes bytes_;
  ProgramCounts& counts_;
  std::unordered_map<Key, std::size_t, util::ArrayHash> first_;  // where each key's events start in the plan
  Key last_key_{-1, -1, -1, -1};
  std::size_t last_first_ = 0;
};

// The output side of a two-level mapping's phases (docs/model.md, "SDM level"; the same rule as
// contracts::sdm_block_traffic): each output tile is read back from DRAM on its first visit of a stay that is not its
// first reduction fold, and written back on its last visit of each stay; its very last visit is its final write, which
// a shared output in the SDM keeps there. A phase's steps are the tiles of its SDM block's N, X', Y' ranges
// (codegen::add_phase_steps) for its filter tile: two phases of one filter tile visit the same tiles when they run in
// the same output block, else disjoint ones, so every step of a phase shares its phase's answer.
struct OutputVisits {
  bool first_visit = false;  // the phase's tiles were not visited before in its output stay
  bool writes = false;       // they are written back after it (their last visit of the stay, not kept in the SDM)
};

std::vector<OutputVisits> output_visits(const codegen::LayerProgram& program, const PlanRole& role) {
  using contracts::kSdmK, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  std::vector<OutputVisits> visits(program.phases.size());
  std::vector<int> stays(program.phases.size());
  std::set<int> visited;  // filter tiles (by first filter) visited in the current output stay
  std::array<int, 5> output_block{-1, -1, -1, -1, -1};
  int stay = -1;
  for (std::size_t p = 0; p < program.phases.size(); ++p) {
    const codegen::WeightPhase& phase = program.phases[p];
    const std::array<int, 5> out{phase.group, phase.block[kSdmK], phase.block[kSdmN], phase.block[kSdmX],
                                 phase.block[kSdmY]};
    if (out != output_block) {
      output_block = out;
      visited.clear();
      ++stay;
    }
    stays[p] = stay;
    visits[p].first_visit = visited.insert(codegen::first_filter(program.layer, phase)).second;
  }
  // Walking back: the first phase met of a stay and filter tile is its last visit there, the first met of a filter
  // tile and block its final one.
  std::set<std::pair<int, int>> written;
  std::set<std::array<int, 4>> final_written;
  for (std::size_t p = program.phases.size(); p-- > 0;) {
    const codegen::WeightPhase& phase = program.phases[p];
    const int filter = codegen::first_filter(program.layer, phase);
    const bool final_write =
        final_written.insert({filter, phase.block[kSdmN], phase.block[kSdmX], phase.block[kSdmY]}).second;
    visits[p].writes = written.insert({stays[p], filter}).second && !(final_write && role.output_in_sdm);
  }
  return visits;
}

// Two-level mappings (docs/model.md, "SDM level"; the same rule as contracts::sdm_block_traffic, event by event): each
// tensor's SDM copy lives while its block does. Inputs and weights are fetched on first use within their block's
// stay; output tiles as output_visits says. In a fused role the fills the group already holds are left out.
void plan_blocked(const codegen::LayerProgram& program, const contracts::Hardware& hardware, const PlanRole& role,
                  MemoryPlan& plan) {
  const std::int64_t data_b = contracts::data_bytes(hardware);
  ProgramCounts counts(program);
  InputFills fills(program, counts);
  const std::vector<OutputVisits> visits = output_visits(program, role);
  StepEvents steps(program, hardware, counts);
  // Every key starts with the group: a grouped layer runs its SDM blocks group after group.
  std::set<std::array<int, 5>> weights_here;  // weight slices (group, r0, s0, c0, k0) in the SDM
  std::array<int, 5> input_block{-1, -1, -1, -1, -1};
  std::array<int, 3> weight_block{-1, -1, -1};
  int input_stay = -1;
  using contracts::kSdmC, contracts::kSdmK, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  for (std::size_t p = 0; p < program.phases.size(); ++p) {
    const codegen::WeightPhase& phase = program.phases[p];
    const auto& b = phase.block;
    const std::array<int, 5> in{phase.group, b[kSdmC], b[kSdmN], b[kSdmX], b[kSdmY]};
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
    MemoryEvent weights;
    weights.weights = true;
    weights.slice = input_stay;  // a new input block's first phase frees the previous block's inputs
    weights.sdm_reads = counts.weights(phase);
    if (weights_here.insert({phase.group, phase.r0, phase.s0, phase.c0, phase.k0}).second && !role.weights_in_sdm)
      weights.fill_elements = weights.sdm_reads;
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const int kind = counts.phase_kind(phase);
    StepRule rule;
    rule.slice = input_stay;
    rule.hold = SdmHold::UntilSliceEnds;
    rule.fills = !role.inputs_in_sdm && fills.fetches(phase) ? &fills.phase_fills(phase, kind) : nullptr;
    rule.accumulate = phase.accumulate;
    rule.psums_from_dram = visits[p].first_visit && phase.accumulate;
    rule.writes = visits[p].writes;
    steps.append(phase, kind, rule, plan.events);
  }
}

// Single-level mappings (docs/model.md, "Memory timing"): inputs either resident for their channel slice (fetched on
// first use) or streamed with every step; weights fetched with every phase; partial sums in the SDM or DRAM.
void plan_single_level(const codegen::LayerProgram& program, const contracts::Hardware& hardware, MemoryPlan& plan) {
  const contracts::Layer& layer = program.layer;
  const contracts::Mapping& tile = program.mapping;
  const std::int64_t data_b = contracts::data_bytes(hardware);
  const bool resident = plan.budget.resident;
  const int slices_per_group = int(util::ceil_div(layer.group_channels(), tile[contracts::kDimC]));
  const bool filters_outer = contracts::effective_phase_order(layer, tile) == contracts::PhaseOrder::FiltersOuter;
  ProgramCounts counts(program);
  std::optional<InputFills> fills;  // resident inputs stay for the whole layer: one stay
  if (resident) fills.emplace(program, counts);
  StepEvents steps(program, hardware, counts);

  for (const codegen::WeightPhase& phase : program.phases) {
    // Filters outer, every channel slice of the group comes back once per filter tile: resident inputs stay for
    // the whole group (the residency rule sizes them so, contracts/sdm_budget.cpp).
    const int slice = filters_outer ? phase.group : phase.group * slices_per_group + phase.c0 / int(tile[contracts::kDimC]);
    const bool last_fold = phase.c0 + tile[contracts::kDimC] >= layer.group_channels() && phase.r0 + tile[contracts::kDimR] >= layer.R &&
                           phase.s0 + tile[contracts::kDimS] >= layer.S;

    MemoryEvent weights;
    weights.weights = true;
    weights.slice = slice;
    weights.sdm_reads = counts.weights(phase);
    weights.fill_elements = weights.sdm_reads;  // each phase holds distinct weights: fetched exactly once
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const int kind = counts.phase_kind(phase);
    StepRule rule;
    rule.slice = slice;
    if (resident) {
      rule.hold = SdmHold::UntilSliceEnds;
      rule.fills = fills->fetches(phase) ? &fills->phase_fills(phase, kind) : nullptr;
      rule.holds_reads = true;  // resident: no partial sums come from DRAM
    } else {
      rule.fills_all = true;
    }
    rule.accumulate = phase.accumulate;
    // Results go back to DRAM after every step, unless the partial sums live in the SDM until the last fold.
    rule.psums_from_dram = phase.accumulate && !plan.budget.psums_in_sdm;
    rule.writes = !plan.budget.psums_in_sdm || last_fold;
    steps.append(phase, kind, rule, plan.events);
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
  MemoryPlan plan;
  plan_memory_into(plan, program, hardware, role);
  return plan;
}

void plan_memory_into(MemoryPlan& plan, const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                      const PlanRole& role) {
  const contracts::Layer& layer = program.layer;
  const contracts::Mapping& tile = program.mapping;
  plan.events.clear();
  std::size_t events = program.phases.size();
  for (const codegen::WeightPhase& phase : program.phases) events += phase.steps.size();
  plan.events.reserve(events);
  plan.budget = contracts::sdm_budget(layer, hardware, tile);
  plan.budget.stream_buffer_bytes = std::max<std::int64_t>(0, plan.budget.stream_buffer_bytes - role.reserved_bytes);
  if (plan.budget.blocked) {
    plan_blocked(program, hardware, role, plan);
    return;
  }
  if (role.inputs_in_sdm || role.weights_in_sdm || role.output_in_sdm)
    throw std::invalid_argument("plan_memory: layer " + layer.name +
                                " has no SDM level, so it cannot keep a tensor in the SDM for a fused group");
  plan_single_level(program, hardware, plan);
}

}  // namespace maeri::timing
