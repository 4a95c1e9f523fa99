// The elements a controller sends into the DN for one weight phase or one step of a layer program: each element
// is one value and the set of multiplier switches that need it (one multicast element per distinct input or
// weight coordinate). Shared by the functional model and the co-simulation controller, so both send exactly
// the same traffic.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/dn_traffic.hpp"
#include "codegen/layer_program.hpp"

namespace maeri::codegen {

struct DnElement {
  std::int64_t value = 0;
  std::vector<int> destinations;  // multiplier switches, ascending
  // Where the SDM holds it: flat index into the padded input [N][C][X+2·padding_x][Y+2·padding_y] or the weights
  // [K][C/groups][R][S].
  std::int64_t source = 0;
};

struct StepElements {
  std::vector<DnElement> inputs;  // in a fixed order (by coordinate)
  std::vector<bool> used_vns;     // VNs whose result belongs to an output
};

// input [N][C][X][Y], weights [K][C/groups][R][S] as in LayerTensors; a VN of group g (the phase's group plus
// the VN's group offset) reads input channels g·C/groups + c and filters g·K/groups + k; input rows are x'·stride_x + r·dilation_x − padding_x; an empty tensor gives every element the value 0
// (for counting traffic without data).
std::vector<DnElement> phase_weights(const LayerProgram& program, const WeightPhase& phase,
                                     const std::vector<std::int64_t>& weights);
StepElements step_inputs(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step,
                         const std::vector<std::int64_t>& input);

// The DN traffic (elements, traversals as dn_traversals counts them) of phase_weights(program, phase, {}) and of
// step_inputs(program, phase, step, {}).inputs, counted without building the elements: what exact traffic needs.
// uses: buffers the caller reuses from call to call.
DnTraffic phase_weight_traffic(const LayerProgram& program, const WeightPhase& phase, int dn_bw, DnUseKeys& uses);
DnTraffic step_input_traffic(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, int dn_bw,
                             DnUseKeys& uses);

// Flat output index [N][K][X'][Y'] of VN v's result at this step.
std::int64_t output_index(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step, int vn);
// The same index in two parts, for a caller that places many results (the co-simulation's collector): the flat
// index is linear in (n, k, x', y'), so output_index(program, phase, step, v) = step_output_origin(program, phase,
// step) + vn_output_offsets(program, configuration)[v], where the offsets depend only on the configuration.
std::int64_t step_output_origin(const LayerProgram& program, const WeightPhase& phase, const StepOrigin& step);
std::vector<std::int64_t> vn_output_offsets(const LayerProgram& program, int configuration);

}  // namespace maeri::codegen
