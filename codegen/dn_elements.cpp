// DN element generation for weight phases and steps (see dn_elements.hpp; orderings in tile_placement.hpp).
#include "codegen/dn_elements.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "codegen/dn_traffic.hpp"

namespace maeri::codegen {
namespace {

// Multiplier switch `ms` needs the element at `coordinate`, whose flat index in the (padded) tensor is `source`:
// a mixed-radix number whose digits are the coordinates, so source order is coordinate order, and one integer
// compares faster than four.
struct Use {
  std::int64_t source;
  std::array<int, 4> coordinate;
  int ms;
  bool operator<(const Use& other) const { return std::tie(source, ms) < std::tie(other.source, other.ms); }
};

// One element per distinct coordinate, in ascending coordinate order, each with its switches ascending (what a
// std::map keyed by coordinate gives, but sorted once instead of a tree node per element: the co-simulation calls
// this for every step). fill(coordinate, element) sets the value.
template <class Fill>
std::vector<DnElement> group_uses(std::vector<Use>& uses, Fill fill) {
  std::sort(uses.begin(), uses.end());
  std::vector<DnElement> elements;
  for (size_t first = 0; first < uses.size();) {
    size_t end = first;
    while (end < uses.size() && uses[end].source == uses[first].source) ++end;
    DnElement element;
    element.source = uses[first].source;
    fill(uses[first].coordinate, element);
    element.destinations.reserve(end - first);
    for (size_t use = first; use < end; ++use) element.destinations.push_back(uses[use].ms);
    elements.push_back(std::move(element));
    first = end;
  }
  return elements;
}

}  // namespace

namespace {

// Calls use(source, coordinate {k, c, r, s}, switch) for every weight the phase's switches need, switches ascending.
template <class Use>
void for_each_weight_use(const LayerProgram& program, const WeightPhase& phase, Use use) {
  const contracts::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const int size = placement.shape.vn_size();
  const int C = int(layer.group_channels()), R = int(layer.R), S = int(layer.S);
  for (size_t v = 0; v < placement.vn_offsets.size(); ++v)
    for (int e = 0; e < size; ++e) {
      const ElementOffset& el = placement.elements[size_t(e)];
      const VnOffset& vn = placement.vn_offsets[v];
      // k: the layer's filter; c: the channel inside the group (the weight tensor holds C/groups per filter).
      const int k = first_filter(layer, phase, vn.g) + vn.k, c = phase.c0 + el.c, r = phase.r0 + el.r,
                s = phase.s0 + el.s;
      use(((std::int64_t(k) * C + c) * R + r) * S + s, std::array<int, 4>{k, c, r, s}, int(v) * size + e);
    }
}

// Calls used_vn(v) for every VN of the step that computes an output, and use(source, coordinate {n, c, row, col},
// switch) for every input its switches need (not those taken over a forwarding link), switches ascending.
template <class UsedVn, class Use>
void for_each_input_use(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, UsedVn used_vn,
                        Use use) {
  const contracts::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const int size = placement.shape.vn_size();
  const int N = int(layer.N), C = int(layer.C), X = int(layer.X), Y = int(layer.Y);
  const int XO = int(layer.output_x()), YO = int(layer.output_y());
  const int stride_x = int(layer.stride_x), stride_y = int(layer.stride_y);
  const int dilation_x = int(layer.dilation_x), dilation_y = int(layer.dilation_y);
  const int pad_x = int(layer.padding_x), pad_y = int(layer.padding_y);
  for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
    const VnOffset& vn = placement.vn_offsets[v];
    const int n = step.n0 + vn.n, xo = step.x0 + vn.x, yo = step.y0 + vn.y;
    if (n >= N || xo >= XO || yo >= YO) continue;  // beyond a ragged edge: no operands, result not collected
    used_vn(v);
    for (int e = 0; e < size; ++e) {
      const int ms = int(v) * size + e;
      if (step.forward && placement.take_forward[size_t(ms)]) continue;
      const ElementOffset& el = placement.elements[size_t(e)];
      const int c = first_channel(layer, phase, vn.g) + el.c;
      const int row = xo * stride_x + (phase.r0 + el.r) * dilation_x - pad_x;
      const int col = yo * stride_y + (phase.s0 + el.s) * dilation_y - pad_y;
      const std::int64_t source =
          ((std::int64_t(n) * C + c) * (X + 2 * pad_x) + row + pad_x) * (Y + 2 * pad_y) + col + pad_y;
      use(source, std::array<int, 4>{n, c, row, col}, ms);
    }
  }
}

// The largest source for_each_weight_use / for_each_input_use can give (the last index of the weight tensor, of
// the padded input).
std::uint64_t last_weight_source(const contracts::Layer& layer) {
  return std::uint64_t(layer.K) * std::uint64_t(layer.group_channels()) * std::uint64_t(layer.R) *
             std::uint64_t(layer.S) - 1;
}
std::uint64_t last_input_source(const contracts::Layer& layer) {
  return std::uint64_t(layer.N) * std::uint64_t(layer.C) * std::uint64_t(layer.X + 2 * layer.padding_x) *
             std::uint64_t(layer.Y + 2 * layer.padding_y) - 1;
}

}  // namespace

std::vector<DnElement> phase_weights(const LayerProgram& program, const WeightPhase& phase,
                                     const std::vector<std::int64_t>& weights) {
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  std::vector<Use> uses;
  uses.reserve(placement.vn_offsets.size() * size_t(placement.shape.vn_size()));
  for_each_weight_use(program, phase, [&](std::int64_t source, const std::array<int, 4>& at, int ms) {
    uses.push_back({source, at, ms});
  });
  return group_uses(uses, [&](const std::array<int, 4>&, DnElement& element) {
    element.value = weights.empty() ? 0 : weights[size_t(element.source)];  // empty: traffic only
  });
}

StepElements step_inputs(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step,
                         const std::vector<std::int64_t>& input) {
  const contracts::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const int C = int(layer.C), X = int(layer.X), Y = int(layer.Y);
  StepElements result;
  result.used_vns.assign(placement.vn_offsets.size(), false);
  std::vector<Use> uses;
  uses.reserve(placement.vn_offsets.size() * size_t(placement.shape.vn_size()));
  for_each_input_use(
      program, phase, step, [&](size_t v) { result.used_vns[v] = true; },
      [&](std::int64_t source, const std::array<int, 4>& at, int ms) { uses.push_back({source, at, ms}); });
  result.inputs = group_uses(uses, [&](const std::array<int, 4>& at, DnElement& element) {
    const auto [n, c, row, col] = at;
    const bool inside = row >= 0 && row < X && col >= 0 && col < Y;
    element.value = inside && !input.empty() ? input[size_t(((n * C + c) * X + row) * Y + col)] : 0;  // zero padding
  });
  return result;
}

DnTraffic phase_weight_traffic(const LayerProgram& program, const WeightPhase& phase, int dn_bw, DnUseKeys& uses) {
  const int num_ms = program.num_ms;
  if (last_weight_source(program.layer) > dn_max_key_source(num_ms)) {  // no layer a fabric runs; still exact
    DnTraffic traffic;
    for (const DnElement& element : phase_weights(program, phase, {}))
      traffic.elements += 1, traffic.traversals += dn_traversals(num_ms, dn_bw, element.destinations);
    return traffic;
  }
  const int bits = dn_key_bits(num_ms);
  uses.keys.clear();
  for_each_weight_use(program, phase, [&](std::int64_t source, const std::array<int, 4>&, int ms) {
    uses.keys.push_back(std::uint64_t(source) << bits | std::uint64_t(ms));
  });
  return dn_traffic_of_uses(num_ms, dn_bw, uses);
}

DnTraffic step_input_traffic(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, int dn_bw,
                             DnUseKeys& uses) {
  const int num_ms = program.num_ms;
  if (last_input_source(program.layer) > dn_max_key_source(num_ms)) {  // no layer a fabric runs; still exact
    DnTraffic traffic;
    for (const DnElement& element : step_inputs(program, phase, step, {}).inputs)
      traffic.elements += 1, traffic.traversals += dn_traversals(num_ms, dn_bw, element.destinations);
    return traffic;
  }
  const int bits = dn_key_bits(num_ms);
  uses.keys.clear();
  for_each_input_use(
      program, phase, step, [](size_t) {},
      [&](std::int64_t source, const std::array<int, 4>&, int ms) {
        uses.keys.push_back(std::uint64_t(source) << bits | std::uint64_t(ms));
      });
  return dn_traffic_of_uses(num_ms, dn_bw, uses);
}

namespace {

// [N][K][X'][Y'] flattened: linear in each coordinate (output_index's parts add up).
std::int64_t flat_output_index(const contracts::Layer& layer, std::int64_t n, std::int64_t k, std::int64_t xo,
                               std::int64_t yo) {
  return ((n * layer.K + k) * layer.output_x() + xo) * layer.output_y() + yo;
}

}  // namespace

std::int64_t output_index(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, int vn) {
  const contracts::Layer& layer = program.layer;
  const TilePlacement& placement = program.configurations[size_t(phase.configuration)].placement;
  const VnOffset& offset = placement.vn_offsets[size_t(vn)];
  return flat_output_index(layer, step.n0 + offset.n, first_filter(layer, phase, offset.g) + offset.k,
                           step.x0 + offset.x, step.y0 + offset.y);
}

std::int64_t step_output_origin(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step) {
  return flat_output_index(program.layer, step.n0, first_filter(program.layer, phase), step.x0, step.y0);
}

std::vector<std::int64_t> vn_output_offsets(const LayerProgram& program, int configuration) {
  const contracts::Layer& layer = program.layer;
  std::vector<std::int64_t> offsets;
  for (const VnOffset& offset : program.configurations[size_t(configuration)].placement.vn_offsets)
    // first_filter(layer, phase, g) = first_filter(layer, phase) + g · K/groups
    offsets.push_back(flat_output_index(layer, offset.n, offset.g * layer.group_filters() + offset.k, offset.x, offset.y));
  return offsets;
}

}  // namespace maeri::codegen
