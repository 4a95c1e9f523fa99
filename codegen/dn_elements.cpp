// DN element generation for weight phases and steps (see dn_elements.hpp; orderings in tile_placement.hpp).
#include "codegen/dn_elements.hpp"

#include <map>
#include <tuple>

namespace maeri::codegen {

std::vector<DnElement> phase_weights(const LayerProgram& program, const WeightPhase& phase,
                                     const std::vector<std::int64_t>& weights) {
  const spec::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const int size = placement.shape.vn_size();
  const int C = int(layer.group_channels()), R = int(layer.R), S = int(layer.S);
  const int first_k = first_filter(layer, phase);
  std::map<std::tuple<int, int, int, int>, DnElement> elements;
  for (size_t v = 0; v < placement.vn_offsets.size(); ++v)
    for (int e = 0; e < size; ++e) {
      const ElementOffset& el = placement.elements[size_t(e)];
      // k: the layer's filter; c: the channel inside the group (the weight tensor holds C/groups per filter).
      const int k = first_k + placement.vn_offsets[v].k, c = phase.c0 + el.c, r = phase.r0 + el.r,
                s = phase.s0 + el.s;
      DnElement& element = elements[{k, c, r, s}];
      element.source = ((std::int64_t(k) * C + c) * R + r) * S + s;
      element.value = weights.empty() ? 0 : weights[size_t(element.source)];  // empty: traffic only
      element.destinations.push_back(int(v) * size + e);
    }
  std::vector<DnElement> list;
  list.reserve(elements.size());
  for (auto& entry : elements) list.push_back(std::move(entry.second));
  return list;
}

StepElements step_inputs(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step,
                         const std::vector<std::int64_t>& input) {
  const spec::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const int size = placement.shape.vn_size();
  const int N = int(layer.N), C = int(layer.C), X = int(layer.X), Y = int(layer.Y);
  const int XO = int(layer.output_x()), YO = int(layer.output_y());
  const int stride_x = int(layer.stride_x), stride_y = int(layer.stride_y);
  const int dilation_x = int(layer.dilation_x), dilation_y = int(layer.dilation_y);
  const int pad_x = int(layer.padding_x), pad_y = int(layer.padding_y);
  const int first_c = first_channel(layer, phase);
  StepElements result;
  result.used_vns.assign(placement.vn_offsets.size(), false);
  std::map<std::tuple<int, int, int, int>, DnElement> elements;
  for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
    const VnOffset& vn = placement.vn_offsets[v];
    const int n = step.n0 + vn.n, xo = step.x0 + vn.x, yo = step.y0 + vn.y;
    if (n >= N || xo >= XO || yo >= YO) continue;  // beyond a ragged edge: no operands, result not collected
    result.used_vns[v] = true;
    for (int e = 0; e < size; ++e) {
      const int ms = int(v) * size + e;
      if (step.forward && placement.take_forward[size_t(ms)]) continue;
      const ElementOffset& el = placement.elements[size_t(e)];
      const int c = first_c + el.c;
      const int row = xo * stride_x + (phase.r0 + el.r) * dilation_x - pad_x;
      const int col = yo * stride_y + (phase.s0 + el.s) * dilation_y - pad_y;
      DnElement& element = elements[{n, c, row, col}];
      const bool inside = row >= 0 && row < X && col >= 0 && col < Y;
      element.value = inside && !input.empty() ? input[size_t(((n * C + c) * X + row) * Y + col)] : 0;  // zero padding
      element.source =
          ((std::int64_t(n) * C + c) * (X + 2 * pad_x) + row + pad_x) * (Y + 2 * pad_y) + col + pad_y;
      element.destinations.push_back(ms);
    }
  }
  result.inputs.reserve(elements.size());
  for (auto& entry : elements) result.inputs.push_back(std::move(entry.second));
  return result;
}

std::int64_t output_index(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, int vn) {
  const spec::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const VnOffset& offset = placement.vn_offsets[size_t(vn)];
  const std::int64_t n = step.n0 + offset.n, k = first_filter(layer, phase) + offset.k, xo = step.x0 + offset.x,
                     yo = step.y0 + offset.y;
  return ((n * layer.K + k) * layer.output_x() + xo) * layer.output_y() + yo;
}

}  // namespace maeri::codegen
