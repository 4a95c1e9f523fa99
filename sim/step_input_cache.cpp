// StepInputCache (step_input_cache.hpp): group once per phase, then move the stencil step by step.
#include "sim/step_input_cache.hpp"

namespace maeri::sim {

// Whether every VN of the step computes an output (no VN beyond a ragged edge of N, X' or Y').
bool StepInputCache::inside_layer(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                                  const codegen::StepOrigin& step) const {
  const contracts::Layer& layer = program.layer;
  for (const codegen::VnOffset& vn : program.configurations[size_t(phase.configuration)].placement.vn_offsets)
    if (step.n0 + vn.n >= layer.N || step.x0 + vn.x >= layer.output_x() || step.y0 + vn.y >= layer.output_y())
      return false;
  return true;
}

// Groups the step with codegen::step_inputs and decodes each element's padded source index into its coordinates.
void StepInputCache::make_stencil(const codegen::LayerProgram& program, const codegen::WeightPhase& phase,
                                  const codegen::StepOrigin& step) {
  const contracts::Layer& layer = program.layer;
  program_ = &program;
  phase_ = &phase;
  forward_ = step.forward;
  origin_ = step;
  stencil_ = codegen::step_inputs(program, phase, step, {});
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  coordinates_.clear();
  for (const codegen::DnElement& element : stencil_.inputs) {
    const std::int64_t col = element.source % padded_y, row = element.source / padded_y % padded_x,
                       nc = element.source / padded_y / padded_x;
    coordinates_.push_back({int(nc / layer.C), int(nc % layer.C), int(row - layer.padding_x),
                            int(col - layer.padding_y)});
  }
}

// The stencil moved to `step`: each element's source and value (zero in the padding, as step_inputs gives).
void StepInputCache::fill(const codegen::LayerProgram& program, const codegen::StepOrigin& step,
                          const std::vector<std::int64_t>& input) {
  const contracts::Layer& layer = program.layer;
  const std::int64_t X = layer.X, Y = layer.Y, C = layer.C;
  const std::int64_t padded_x = X + 2 * layer.padding_x, padded_y = Y + 2 * layer.padding_y;
  const std::int64_t dn = step.n0 - origin_.n0, drow = std::int64_t(step.x0 - origin_.x0) * layer.stride_x,
                     dcol = std::int64_t(step.y0 - origin_.y0) * layer.stride_y;
  for (std::size_t i = 0; i < coordinates_.size(); ++i) {
    const auto& at = coordinates_[i];
    const std::int64_t n = at[0] + dn, c = at[1], row = at[2] + drow, col = at[3] + dcol;
    codegen::DnElement& element = stencil_.inputs[i];
    element.source = ((n * C + c) * padded_x + row + layer.padding_x) * padded_y + col + layer.padding_y;
    const bool inside = row >= 0 && row < X && col >= 0 && col < Y;
    element.value = inside && !input.empty() ? input[std::size_t(((n * C + c) * X + row) * Y + col)] : 0;
  }
}

const codegen::StepElements& StepInputCache::inputs(const codegen::LayerProgram& program,
                                                    const codegen::WeightPhase& phase,
                                                    const codegen::StepOrigin& step,
                                                    const std::vector<std::int64_t>& input) {
  if (!inside_layer(program, phase, step)) {
    edge_ = codegen::step_inputs(program, phase, step, input);
    return edge_;
  }
  if (&program != program_ || &phase != phase_ || step.forward != forward_) make_stencil(program, phase, step);
  fill(program, step, input);
  return stencil_;
}

}  // namespace maeri::sim
