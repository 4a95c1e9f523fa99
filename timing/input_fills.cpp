// Counting each step's fills per channel history (see input_fills.hpp).
#include "timing/input_fills.hpp"

#include <algorithm>

namespace maeri::timing {

InputFills::InputFills(const codegen::LayerProgram& program, ProgramCounts& counts)
    : program_(program),
      counts_(counts),
      history_(std::size_t(program.layer.C), 0),
      history_stay_(std::size_t(program.layer.C), 0),
      plane_(std::size_t(program.layer.N * (program.layer.X + 2 * program.layer.padding_x) *
                         (program.layer.Y + 2 * program.layer.padding_y)),
             0) {}

void InputFills::new_stay() {
  ++stay_;
  windows_.clear();
  last_window_.fill(-1);
}

bool InputFills::fetches(const codegen::WeightPhase& phase) {
  using contracts::kSdmC, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  const std::array<int, 9> window{phase.configuration, phase.group,         phase.c0,
                                  phase.r0,            phase.s0,            phase.block[kSdmC],
                                  phase.block[kSdmN],  phase.block[kSdmX],  phase.block[kSdmY]};
  if (window == last_window_) return false;  // the previous phase's (filter tiles in a row): inserted then
  last_window_ = window;
  return windows_.insert(window).second;
}

const std::vector<std::int64_t>& InputFills::phase_fills(const codegen::WeightPhase& phase, int kind) {
  const Patterns& patterns = patterns_of(kind, phase.r0, phase.s0);
  const int first_channel = codegen::first_channel(program_.layer, phase);
  std::vector<int> fills;
  fills.reserve(patterns.channels.size());
  for (std::size_t p = 0; p < patterns.channels.size(); ++p) {
    const std::size_t channel = std::size_t(first_channel + patterns.channels[p]);
    if (history_stay_[channel] != stay_) history_stay_[channel] = stay_, history_[channel] = 0;
    const Transition& next = transition(history_[channel], patterns.patterns[p]);
    history_[channel] = next.node;
    fills.push_back(next.fills);
  }
  std::sort(fills.begin(), fills.end());
  auto [sum, added] = sums_.try_emplace(fills);
  if (added) {
    sum->second.assign(counts_.kind(kind).steps.size(), 0);
    for (const int each : fills)
      for (std::size_t step = 0; step < sum->second.size(); ++step)
        sum->second[step] += fills_[std::size_t(each)][step];
  }
  return sum->second;
}

const InputFills::Patterns& InputFills::patterns_of(int kind, int r0, int s0) {
  auto [at, added] = patterns_by_phase_.try_emplace({kind, r0, s0});
  if (!added) return at->second;
  // The kinds of step among the phase's steps, and the channels their stencils read.
  std::vector<const StepCounts*> step_kinds = counts_.kind(kind).steps;
  std::sort(step_kinds.begin(), step_kinds.end());
  step_kinds.erase(std::unique(step_kinds.begin(), step_kinds.end()), step_kinds.end());
  std::vector<int> channels;
  for (const StepCounts* step : step_kinds)
    for (const StepCounts::Element& element : step->stencil) channels.push_back(element.channel);
  std::sort(channels.begin(), channels.end());
  channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
  // A channel's pattern: its stencil part in each kind of step.
  for (const int channel : channels) {
    std::vector<int> parts;
    for (const StepCounts* step : step_kinds) {
      std::vector<std::int64_t> part;
      for (const StepCounts::Element& element : step->stencil)
        if (element.channel == channel) part.push_back(element.place);
      parts.push_back(part_ids_.try_emplace(std::move(part), int(part_ids_.size())).first->second);
    }
    auto [id, new_pattern] = pattern_ids_.try_emplace({{kind, r0, s0}, std::move(parts)}, int(patterns_.size()));
    if (new_pattern) patterns_.push_back({kind, r0, s0, channel});
    at->second.channels.push_back(channel);
    at->second.patterns.push_back(id->second);
  }
  return at->second;
}

const InputFills::Transition& InputFills::transition(int node, int pattern) {
  auto [at, added] = transitions_.try_emplace(std::uint64_t(node) << 32 | std::uint32_t(pattern));
  if (!added) return at->second;
  show_history(node);
  std::vector<std::int64_t> fills(counts_.kind(patterns_[std::size_t(pattern)].kind).steps.size(), 0);
  apply(pattern, &fills);
  at->second.node = node;  // nothing new fetched: the same history
  if (std::any_of(fills.begin(), fills.end(), [](std::int64_t n) { return n > 0; })) {
    at->second.node = int(nodes_.size());
    nodes_.push_back({node, pattern});
    plane_node_ = at->second.node;
  }
  at->second.fills = int(fills_.size());
  fills_.push_back(std::move(fills));
  return at->second;
}

void InputFills::show_history(int node) {
  if (plane_node_ == node) return;
  if (++plane_mark_ == 0) {  // the marks ran out: clear the plane
    std::fill(plane_.begin(), plane_.end(), 0);
    plane_mark_ = 1;
  }
  std::vector<int> path;
  for (int at = node; at > 0; at = nodes_[std::size_t(at)].parent) path.push_back(nodes_[std::size_t(at)].pattern);
  for (auto pattern = path.rbegin(); pattern != path.rend(); ++pattern) apply(*pattern, nullptr);
  plane_node_ = node;
}

void InputFills::apply(int pattern, std::vector<std::int64_t>* fills) {
  const Pattern& read = patterns_[std::size_t(pattern)];
  const PhaseKind& kind = counts_.kind(read.kind);
  const auto by_channel = [](const StepCounts::Element& element, int channel) { return element.channel < channel; };
  for (std::size_t step = 0; step < kind.steps.size(); ++step) {
    const std::int64_t base = spatial_base(program_.layer, read.r0, read.s0, kind.first->steps[step]);
    const std::vector<StepCounts::Element>& stencil = kind.steps[step]->stencil;
    std::int64_t fetched = 0;
    for (auto element = std::lower_bound(stencil.begin(), stencil.end(), read.channel, by_channel);
         element != stencil.end() && element->channel == read.channel; ++element) {
      std::uint32_t& mark = plane_[std::size_t(base + element->place)];
      fetched += mark != plane_mark_;
      mark = plane_mark_;
    }
    if (fills) (*fills)[step] = fetched;
  }
}

}  // namespace maeri::timing
