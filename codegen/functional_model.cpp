// Functional model of a layer program (semantics in functional_model.hpp; switch orderings in
// tile_placement.hpp; word semantics in docs/config-bits.md).
#include "codegen/functional_model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "codegen/dn_traffic.hpp"
#include "codegen/reduction_reference.hpp"

namespace maeri::codegen {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Elements of one DN transfer, keyed by what they carry so that equal values to several switches are one
// multicast element.
using ElementKey = std::tuple<int, int, int, int>;
using ElementMap = std::map<ElementKey, std::pair<std::int64_t, std::vector<int>>>;

struct FabricState {
  std::vector<std::int64_t> weight, operand, last_operand;
};

void deliver(const ElementMap& elements, std::vector<std::int64_t>& registers, const mapper::Hardware& hardware,
             FunctionalActivity& activity) {
  for (const auto& [key, element] : elements) {
    for (int ms : element.second) registers[static_cast<size_t>(ms)] = element.first;
    activity.dn_elements += 1;
    activity.dn_traversals += dn_traversals(int(hardware.num_ms), int(hardware.dn_bw), element.second);
  }
}

}  // namespace

FunctionalResult execute_layer(const LayerProgram& program, const mapper::Hardware& hardware,
                               const LayerTensors& tensors) {
  const mapper::Layer& layer = program.layer;
  const int N = int(layer.N), K = int(layer.K), C = int(layer.C), R = int(layer.R), S = int(layer.S);
  const int X = int(layer.X), Y = int(layer.Y), XO = int(layer.output_x()), YO = int(layer.output_y());
  const int stride = int(layer.stride), pad = int(layer.padding);
  const int acc = hardware.acc_width;
  if (tensors.input.size() != size_t(layer.input_elements()) || tensors.weights.size() != size_t(layer.weight_elements()))
    throw std::invalid_argument("execute_layer: tensor sizes do not match the layer");
  const size_t m = size_t(program.num_ms);

  FunctionalResult result;
  result.output.assign(size_t(layer.output_elements()), 0);
  FunctionalActivity& activity = result.activity;
  FabricState state{std::vector<std::int64_t>(m, 0), std::vector<std::int64_t>(m, 0), std::vector<std::int64_t>(m, 0)};
  int current_configuration = -1;

  for (const WeightPhase& phase : program.phases) {
    const PhaseConfiguration& configuration = program.configurations[size_t(phase.configuration)];
    const TilePlacement& placement = configuration.placement;
    const FabricConfig& fabric = configuration.reduction.config;
    const int size = placement.shape.vn_size();
    if (phase.configuration != current_configuration) {
      activity.configurations += 1;
      current_configuration = phase.configuration;
    }
    activity.weight_phases += 1;

    ElementMap weights;
    for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
      const VnOffset& vn = placement.vn_offsets[v];
      for (int e = 0; e < size; ++e) {
        const ElementOffset& el = placement.elements[size_t(e)];
        const int k = phase.k0 + vn.k, c = phase.c0 + el.c, r = phase.r0 + el.r, s = phase.s0 + el.s;
        auto& entry = weights[{k, c, r, s}];
        entry.first = tensors.weights[size_t(((k * C + c) * R + r) * S + s)];
        entry.second.push_back(int(v) * size + e);
      }
    }
    deliver(weights, state.weight, hardware, activity);
    activity.weight_cycles += ceil_div(std::int64_t(weights.size()), hardware.dn_bw);

    for (const StepOrigin& step : phase.steps) {
      ElementMap inputs;
      std::vector<bool> used(placement.vn_offsets.size(), false);
      for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
        const VnOffset& vn = placement.vn_offsets[v];
        const int n = step.n0 + vn.n, xo = step.x0 + vn.x, yo = step.y0 + vn.y;
        used[v] = n < N && xo < XO && yo < YO;
        if (!used[v]) continue;  // an edge step leaves this VN without operands; its result is not collected
        for (int e = 0; e < size; ++e) {
          const int ms = int(v) * size + e;
          if (step.forward && placement.take_forward[size_t(ms)]) continue;
          const ElementOffset& el = placement.elements[size_t(e)];
          const int c = phase.c0 + el.c;
          const int row = xo * stride + phase.r0 + el.r - pad, col = yo * stride + phase.s0 + el.s - pad;
          auto& entry = inputs[{n, c, row, col}];
          const bool inside = row >= 0 && row < X && col >= 0 && col < Y;
          entry.first = inside ? tensors.input[size_t(((n * C + c) * X + row) * Y + col)] : 0;  // zero padding
          entry.second.push_back(ms);
        }
      }
      deliver(inputs, state.operand, hardware, activity);

      // Fire: every active switch multiplies; forwarding switches use the neighbour's previous operand.
      std::vector<std::int64_t> operand_now(m, 0), products(m, 0);
      for (size_t i = 0; i < m; ++i) {
        if (!fabric.mult_switches[i].active) continue;
        const bool forwarded = step.forward && fabric.mult_switches[i].take_forward;
        operand_now[i] = forwarded ? state.last_operand[i - 1] : state.operand[i];
        products[i] = wrap_to_width(operand_now[i] * state.weight[i], acc);
        activity.multiplications += 1;
        activity.mn_forwards += forwarded ? 1 : 0;
      }
      for (size_t i = 0; i < m; ++i)
        if (fabric.mult_switches[i].active) state.last_operand[i] = state.operand[i] = operand_now[i];

      const ReductionOutcome reduced = evaluate_reduction(fabric, products, acc);
      activity.rn_additions += reduced.additions;
      activity.rn_traversals += reduced.traversals;
      activity.fabric_results += std::int64_t(reduced.vn_results.size());
      activity.steps += 1;
      activity.stream_cycles += std::max({ceil_div(std::int64_t(inputs.size()), hardware.dn_bw),
                                          ceil_div(std::int64_t(reduced.vn_results.size()), hardware.rn_bw),
                                          std::int64_t(1)});

      for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
        if (!used[v]) continue;
        const VnOffset& vn = placement.vn_offsets[v];
        const int n = step.n0 + vn.n, k = phase.k0 + vn.k, xo = step.x0 + vn.x, yo = step.y0 + vn.y;
        std::int64_t& out = result.output[size_t(((n * K + k) * XO + xo) * YO + yo)];
        if (phase.accumulate) {
          out = wrap_to_width(out + reduced.vn_results[v], acc);
          activity.accumulation_additions += 1;
        } else {
          out = reduced.vn_results[v];
        }
        activity.collected_results += 1;
      }
    }
  }
  return result;
}

std::vector<std::int64_t> reference_convolution(const mapper::Layer& layer, const LayerTensors& tensors,
                                                int acc_width) {
  const int N = int(layer.N), K = int(layer.K), C = int(layer.C), R = int(layer.R), S = int(layer.S);
  const int X = int(layer.X), Y = int(layer.Y), XO = int(layer.output_x()), YO = int(layer.output_y());
  std::vector<std::int64_t> output(size_t(layer.output_elements()), 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int xo = 0; xo < XO; ++xo)
        for (int yo = 0; yo < YO; ++yo) {
          std::int64_t sum = 0;
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int row = xo * int(layer.stride) + r - int(layer.padding);
                const int col = yo * int(layer.stride) + s - int(layer.padding);
                if (row < 0 || row >= X || col < 0 || col >= Y) continue;
                sum += tensors.input[size_t(((n * C + c) * X + row) * Y + col)] *
                       tensors.weights[size_t(((k * C + c) * R + r) * S + s)];
              }
          output[size_t(((n * K + k) * XO + xo) * YO + yo)] = wrap_to_width(sum, acc_width);
        }
  return output;
}

}  // namespace maeri::codegen
