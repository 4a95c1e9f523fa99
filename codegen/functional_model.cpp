// Functional model of a layer program (semantics in functional_model.hpp; switch orderings in
// tile_placement.hpp; word semantics in docs/config-bits.md).
#include "codegen/functional_model.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "codegen/dn_elements.hpp"
#include "codegen/dn_traffic.hpp"
#include "codegen/reduction_reference.hpp"
#include "util/integer_math.hpp"

namespace maeri::codegen {
namespace {


void deliver(const std::vector<DnElement>& elements, std::vector<std::int64_t>& registers,
             const contracts::Hardware& hardware, FunctionalActivity& activity) {
  for (const DnElement& element : elements) {
    for (int ms : element.destinations) registers[static_cast<size_t>(ms)] = element.value;
    activity.dn_elements += 1;
    activity.dn_traversals += dn_traversals(int(hardware.num_ms), int(hardware.dn_bw), element.destinations);
  }
}

}  // namespace

FunctionalResult execute_layer(const LayerProgram& program, const contracts::Hardware& hardware,
                               const LayerTensors& tensors) {
  const contracts::Layer& layer = program.layer;
  const int acc = hardware.acc_width;
  if (tensors.input.size() != size_t(layer.input_elements()) ||
      tensors.weights.size() != size_t(layer.weight_elements()))
    throw std::invalid_argument("execute_layer: tensor sizes do not match the layer");
  const size_t m = size_t(program.num_ms);

  FunctionalResult result;
  result.output.assign(size_t(layer.output_elements()), 0);
  FunctionalActivity& activity = result.activity;
  // Per multiplier switch: stationary weight, operand register, operand used at the last fire.
  std::vector<std::int64_t> weight(m, 0), operand(m, 0), last_operand(m, 0);
  int current_configuration = -1;

  for (const WeightPhase& phase : program.phases) {
    const FabricConfig& fabric = program.configurations[size_t(phase.configuration)].reduction.config;
    if (phase.configuration != current_configuration) {
      activity.configurations += 1;
      current_configuration = phase.configuration;
    }
    activity.weight_phases += 1;
    const std::vector<DnElement> weights = phase_weights(program, phase, tensors.weights);
    deliver(weights, weight, hardware, activity);
    activity.weight_cycles += util::ceil_div(std::int64_t(weights.size()), hardware.dn_bw);

    for (const StepOrigin& step : phase.steps) {
      const StepElements elements = step_inputs(program, phase, step, tensors.input);
      deliver(elements.inputs, operand, hardware, activity);

      // Fire: every active switch multiplies; forwarding switches use the neighbour's previous operand.
      std::vector<std::int64_t> operand_now(m, 0), products(m, 0);
      for (size_t i = 0; i < m; ++i) {
        if (!fabric.mult_switches[i].active) continue;
        const bool forwarded = step.forward && fabric.mult_switches[i].take_forward;
        operand_now[i] = forwarded ? last_operand[i - 1] : operand[i];
        products[i] = wrap_to_width(operand_now[i] * weight[i], acc);
        activity.multiplications += 1;
        activity.mn_forwards += forwarded ? 1 : 0;
      }
      for (size_t i = 0; i < m; ++i)
        if (fabric.mult_switches[i].active) last_operand[i] = operand[i] = operand_now[i];

      const ReductionOutcome reduced = evaluate_reduction(fabric, products, acc);
      activity.additions += reduced.additions;
      activity.rn_traversals += reduced.traversals;
      activity.results += std::int64_t(reduced.vn_results.size());
      activity.fires += 1;
      activity.stream_cycles += std::max({util::ceil_div(std::int64_t(elements.inputs.size()), hardware.dn_bw),
                                          util::ceil_div(std::int64_t(reduced.vn_results.size()), hardware.rn_bw),
                                          std::int64_t(1)});

      for (size_t v = 0; v < elements.used_vns.size(); ++v) {
        if (!elements.used_vns[v]) continue;
        std::int64_t& out = result.output[size_t(output_index(program, phase, step, int(v)))];
        if (phase.accumulate) {
          out = wrap_to_width(out + reduced.vn_results[v], acc);
          activity.accumulation_additions += 1;
        } else {
          out = reduced.vn_results[v];
        }
        activity.vn_results += 1;
      }
    }
  }
  return result;
}

LayerTensors random_tensors(const contracts::Layer& layer, int data_width, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t half = std::int64_t(1) << (data_width - 1);
  std::uniform_int_distribution<std::int64_t> value(-half, half - 1);
  LayerTensors tensors;
  tensors.input.resize(size_t(layer.input_elements()));
  tensors.weights.resize(size_t(layer.weight_elements()));
  for (auto& x : tensors.input) x = value(rng);
  for (auto& w : tensors.weights) w = value(rng);
  return tensors;
}

std::vector<std::int64_t> reference_convolution(const contracts::Layer& layer, const LayerTensors& tensors,
                                                int acc_width) {
  const int N = int(layer.N), K = int(layer.K), C = int(layer.C), R = int(layer.R), S = int(layer.S);
  const int X = int(layer.X), Y = int(layer.Y), XO = int(layer.output_x()), YO = int(layer.output_y());
  const int group_c = int(layer.group_channels()), group_k = int(layer.group_filters());
  std::vector<std::int64_t> output(size_t(layer.output_elements()), 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int xo = 0; xo < XO; ++xo)
        for (int yo = 0; yo < YO; ++yo) {
          std::int64_t sum = 0;
          // Filter k sees the channels of its group only: weights [K][C/groups][R][S].
          const int first_c = k / group_k * group_c;
          for (int c = 0; c < group_c; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int row = xo * int(layer.stride_x) + r * int(layer.dilation_x) - int(layer.padding_x);
                const int col = yo * int(layer.stride_y) + s * int(layer.dilation_y) - int(layer.padding_y);
                if (row < 0 || row >= X || col < 0 || col >= Y) continue;
                sum += tensors.input[size_t(((n * C + first_c + c) * X + row) * Y + col)] *
                       tensors.weights[size_t(((k * group_c + c) * R + r) * S + s)];
              }
          output[size_t(((n * K + k) * XO + xo) * YO + yo)] = wrap_to_width(sum, acc_width);
        }
  return output;
}

}  // namespace maeri::codegen
