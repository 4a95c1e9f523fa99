// Counting a layer program's kinds of steps and phases (see step_counts.hpp).
#include "timing/step_counts.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "codegen/dn_elements.hpp"

namespace maeri::timing {

namespace {

std::int64_t padded_x(const contracts::Layer& layer) { return layer.X + 2 * layer.padding_x; }
std::int64_t padded_y(const contracts::Layer& layer) { return layer.Y + 2 * layer.padding_y; }

bool same_step(const codegen::StepOrigin& x, const codegen::StepOrigin& y) {
  return x.n0 == y.n0 && x.x0 == y.x0 && x.y0 == y.y0 && x.forward == y.forward;
}

}  // namespace

std::int64_t spatial_base(const contracts::Layer& layer, int r0, int s0, const codegen::StepOrigin& origin) {
  return (std::int64_t(origin.n0) * padded_x(layer) + std::int64_t(origin.x0) * layer.stride_x +
          std::int64_t(r0) * layer.dilation_x) * padded_y(layer) +
         std::int64_t(origin.y0) * layer.stride_y + std::int64_t(s0) * layer.dilation_y;
}

ProgramCounts::ProgramCounts(const codegen::LayerProgram& program)
    : program_(program), weights_(program.configurations.size(), -1), inner_(2 * program.configurations.size()) {
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
}

std::int64_t ProgramCounts::weights(const codegen::WeightPhase& phase) {
  std::int64_t& count = weights_[std::size_t(phase.configuration)];
  if (count < 0) count = std::int64_t(codegen::phase_weights(program_, phase, {}).size());
  return count;
}

int ProgramCounts::phase_kind(const codegen::WeightPhase& phase) {
  using contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  const PhaseKey key{phase.configuration, phase.block[kSdmN], phase.block[kSdmX], phase.block[kSdmY]};
  if (last_kind_ >= 0 && key == last_key_) return last_kind_;  // most phases: the previous phase's kind
  const auto [at, added] = kinds_by_key_.try_emplace(key, int(kinds_.size()));
  last_key_ = key;
  last_kind_ = at->second;
  if (!added) {
    // Every program's steps come from codegen::add_phase_steps: a function of the key. A cheap check that it holds.
    const std::vector<codegen::StepOrigin>& first = kinds_[std::size_t(at->second)].first->steps;
    const bool alike = first.size() == phase.steps.size() &&
                       (first.empty() || (same_step(first.front(), phase.steps.front()) &&
                                          same_step(first.back(), phase.steps.back())));
    if (!alike)
      throw std::logic_error("ProgramCounts: phases of one configuration and SDM block with different steps");
    return at->second;
  }
  PhaseKind kind;
  kind.first = &phase;
  kind.steps.reserve(phase.steps.size());
  for (const codegen::StepOrigin& origin : phase.steps) kind.steps.push_back(&step(phase, origin));
  kinds_.push_back(std::move(kind));
  return at->second;
}

const StepCounts& ProgramCounts::step(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin) {
  // Most steps: every VN inside, a slot per configuration and forwarding flag.
  const auto& inside = inside_[std::size_t(phase.configuration)];
  const bool all_used = origin.n0 < inside[0] && origin.x0 < inside[1] && origin.y0 < inside[2];
  if (!all_used) return counted(phase, origin, false);
  std::optional<StepCounts>& slot = inner_[2 * std::size_t(phase.configuration) + origin.forward];
  if (!slot) slot = counted(phase, origin, true);
  return *slot;
}

const StepCounts& ProgramCounts::counted(const codegen::WeightPhase& phase, const codegen::StepOrigin& origin,
                                         bool all_used) {
  const contracts::Layer& layer = program_.layer;
  StepKey key{phase.configuration, origin.forward, {}};
  if (!all_used)
    for (const codegen::VnOffset& vn : program_.configurations[std::size_t(phase.configuration)].placement.vn_offsets)
      std::get<2>(key).push_back(origin.n0 + vn.n < layer.N && origin.x0 + vn.x < layer.output_x() &&
                                 origin.y0 + vn.y < layer.output_y());
  auto [at, added] = steps_.try_emplace(std::move(key));
  if (!added) return at->second;
  StepCounts& counts = at->second;
  const codegen::StepElements elements = codegen::step_inputs(program_, phase, origin, {});
  counts.sdm_reads = std::int64_t(elements.inputs.size());
  counts.used = std::count(elements.used_vns.begin(), elements.used_vns.end(), true);
  // A source is ((n·C + c)·padded X + row)·padded Y + column (codegen/dn_elements.hpp): split into its channel and
  // its place in the channel's plane, each less the step's.
  const std::int64_t plane = padded_x(layer) * padded_y(layer);
  const std::int64_t first_channel = codegen::first_channel(layer, phase);
  const std::int64_t base = spatial_base(layer, phase.r0, phase.s0, origin);
  for (const codegen::DnElement& element : elements.inputs) {
    const std::int64_t n = element.source / (layer.C * plane), c = element.source / plane % layer.C;
    counts.stencil.push_back({int(c - first_channel), n * plane + element.source % plane - base});
  }
  std::sort(counts.stencil.begin(), counts.stencil.end(),
            [](const StepCounts::Element& a, const StepCounts::Element& b) {
              return a.channel != b.channel ? a.channel < b.channel : a.place < b.place;
            });
  return counts;
}

}  // namespace maeri::timing
