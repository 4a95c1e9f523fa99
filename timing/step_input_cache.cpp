// StepInputCache (step_input_cache.hpp): group once per phase and kind of step, then move the stencil step by step.
#include "timing/step_input_cache.hpp"

#include <algorithm>

namespace maeri::timing {
namespace {

// Kinds of step one phase may keep before the cache starts over (a phase has at most a few: inside the layer, and
// ragged in N, X', Y' or several, each with and without forwarding).
constexpr std::size_t kMaxStencils = 32;

}  // namespace

// used_: the step's VNs that compute an output (not beyond a ragged edge of N, X' or Y'), as step_inputs marks them.
void StepInputCache::mark_used_vns(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                                   const codegen::StepOrigin& step) {
  const contracts::Layer& layer = program.layer;
  const std::vector<codegen::VnOffset>& vns = program.configurations[size_t(phase.configuration)].placement.vn_offsets;
  if (step.n0 < inside_n_ && step.x0 < inside_x_ && step.y0 < inside_y_) {
    used_.assign(vns.size(), true);
    return;
  }
  const std::int64_t output_x = layer.output_x(), output_y = layer.output_y();
  used_.resize(vns.size());
  for (std::size_t v = 0; v < vns.size(); ++v)
    used_[v] = step.n0 + vns[v].n < layer.N && step.x0 + vns[v].x < output_x && step.y0 + vns[v].y < output_y;
}

// The stencil of the step's kind, grouped by codegen::step_inputs (each element's padded source index decoded into
// its coordinates) the first time the phase has a step of that kind.
StepInputCache::Stencil& StepInputCache::stencil_for(const codegen::LayerProgram& program,
                                                     const codegen::WeightPhase& phase,
                                                     const codegen::StepOrigin& step) {
  if (&program != program_ || &phase != phase_ || stencils_.size() >= kMaxStencils) {
    program_ = &program;
    phase_ = &phase;
    stencils_.clear();
    const contracts::Layer& layer = program.layer;
    int largest_n = 0, largest_x = 0, largest_y = 0;
    for (const codegen::VnOffset& vn : program.configurations[size_t(phase.configuration)].placement.vn_offsets) {
      largest_n = std::max(largest_n, vn.n);
      largest_x = std::max(largest_x, vn.x);
      largest_y = std::max(largest_y, vn.y);
    }
    inside_n_ = layer.N - largest_n;
    inside_x_ = layer.output_x() - largest_x;
    inside_y_ = layer.output_y() - largest_y;
  }
  mark_used_vns(program, phase, step);
  for (Stencil& stencil : stencils_)
    if (stencil.forward == step.forward && stencil.elements.used_vns == used_) return stencil;
  const contracts::Layer& layer = program.layer;
  Stencil& stencil = stencils_.emplace_back();
  stencil.forward = step.forward;
  stencil.origin = step;
  stencil.elements = codegen::step_inputs(program, phase, step, {});
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  for (const codegen::DnElement& element : stencil.elements.inputs) {
    const std::int64_t col = element.source % padded_y, row = element.source / padded_y % padded_x,
                       nc = element.source / padded_y / padded_x;
    stencil.coordinates.push_back({int(nc / layer.C), int(nc % layer.C), int(row - layer.padding_x),
                                   int(col - layer.padding_y)});
  }
  return stencil;
}

// The stencil moved to `step`: each element's source and value (zero in the padding, as step_inputs gives).
void StepInputCache::fill(Stencil& stencil, const codegen::LayerProgram& program, const codegen::StepOrigin& step,
                          const std::vector<std::int64_t>& input) {
  const contracts::Layer& layer = program.layer;
  const std::int64_t X = layer.X, Y = layer.Y, C = layer.C;
  const std::int64_t padded_x = X + 2 * layer.padding_x, padded_y = Y + 2 * layer.padding_y;
  const std::int64_t dn = step.n0 - stencil.origin.n0,
                     drow = std::int64_t(step.x0 - stencil.origin.x0) * layer.stride_x,
                     dcol = std::int64_t(step.y0 - stencil.origin.y0) * layer.stride_y;
  for (std::size_t i = 0; i < stencil.coordinates.size(); ++i) {
    const auto& at = stencil.coordinates[i];
    const std::int64_t n = at[0] + dn, c = at[1], row = at[2] + drow, col = at[3] + dcol;
    codegen::DnElement& element = stencil.elements.inputs[i];
    element.source = ((n * C + c) * padded_x + row + layer.padding_x) * padded_y + col + layer.padding_y;
    const bool inside = row >= 0 && row < X && col >= 0 && col < Y;
    element.value = inside && !input.empty() ? input[std::size_t(((n * C + c) * X + row) * Y + col)] : 0;
  }
}

const codegen::StepElements& StepInputCache::inputs(const codegen::LayerProgram& program,
                                                    const codegen::WeightPhase& phase,
                                                    const codegen::StepOrigin& step,
                                                    const std::vector<std::int64_t>& input) {
  Stencil& stencil = stencil_for(program, phase, step);
  fill(stencil, program, step, input);
  return stencil.elements;
}

}  // namespace maeri::timing
