// Semantic validation of decoded configuration images (see image_validation.hpp; the checks and limits are listed
// in docs/config-image.md, "Validation"). Every product of sizes is computed with saturation, so a field at its
// u32 maximum can only make a count too large, never wrap it into a small one.
#include "codegen/image_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "codegen/image_program.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/tile_placement.hpp"
#include "contracts/hardware.hpp"
#include "contracts/sdm_rules.hpp"
#include "util/input_file.hpp"
#include "util/integer_math.hpp"
#include "util/utf8_text.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {
namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}
std::int64_t saturating_add(std::int64_t a, std::int64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

[[noreturn]] void fail(const std::string& source, std::size_t offset, const std::string& problem) {
  throw ImageError(fmt::format("{}: byte {}: {}", source, offset, problem));
}

const char* const kShapeFieldNames[7] = {"t_R", "t_S", "t_C", "t_K", "T_N", "T_X'", "T_Y'"};
const char* const kOpcodeNames[6] = {"END", "FOR", "END_FOR", "CONFIGURE", "LOAD_WEIGHTS", "STREAM"};

std::string instruction_name(const ConfigImage& image, std::size_t pc) {
  return fmt::format("program[{}] ({})", pc, kOpcodeNames[std::size_t(image.program[pc].opcode)]);
}

// Whether adder switch `adder` (breadth-first numbering, docs/config-bits.md) has a forwarding-link partner.
bool has_link_partner(int adder) {
  int level = 0;
  while ((2 << level) - 1 <= adder) ++level;
  return link_partner(adder - ((1 << level) - 1), 1 << level) >= 0;
}

contracts::Hardware hardware_for_rules(const ImageHardware& image_hardware) {
  contracts::Hardware hardware;
  hardware.name = image_hardware.name;
  hardware.num_ms = image_hardware.num_ms;
  hardware.dn_bw = image_hardware.dn_bw;
  hardware.rn_bw = image_hardware.rn_bw;
  hardware.data_width = image_hardware.data_width;
  hardware.acc_width = image_hardware.acc_width;
  hardware.config_bw = image_hardware.config_bw;
  return hardware;
}

void validate_layer(const contracts::Layer& layer, const ImageFieldOffsets& offsets, const std::string& source) {
  if (!util::is_valid_utf8(layer.name)) fail(source, offsets.layer_name, "layer.name is not valid UTF-8");
  // The shape rules every reader of layers shares (contracts::shape_violation). Padding as wide as the filter is
  // allowed here: the models and the fabric compute it (the random regressions use it); only workload files
  // forbid it, as a likely typo.
  if (const auto violation = contracts::shape_violation(layer)) {
    std::size_t at = offsets.layer_type;
    for (std::size_t f = 0; f < contracts::kLayerShapeFields.size(); ++f)
      if (violation->field == contracts::kLayerShapeFields[f].name) at = offsets.layer_dims[f];
    fail(source, at, fmt::format("layer{}{}: {}", violation->field.empty() ? "" : ".", violation->field,
                                 violation->message));
  }
}

// How often each instruction executes when the program is played once: the product of the counts of the loops
// around it (for an END_FOR, including its own loop, whose body it closes). Requires a well-nested program.
std::vector<std::int64_t> multiplicities(const ConfigImage& image) {
  std::vector<std::int64_t> times(image.program.size(), 0);
  std::vector<std::int64_t> stack = {1};
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    const Instruction& instruction = image.program[pc];
    times[pc] = stack.back();
    if (instruction.opcode == Opcode::For) {
      stack.push_back(saturating_mul(stack.back(), instruction.operand[2]));
    } else if (instruction.opcode == Opcode::EndFor) {
      times[pc] = stack.back();
      stack.pop_back();
    }
  }
  return times;
}

// Structure of the program, statically: counts, operands, nesting, END last. Needs nothing executed.
void validate_program_structure(const ConfigImage& image, const ImageFieldOffsets& offsets,
                                const std::string& source) {
  const std::size_t count = image.program.size();
  if (count == 0 || count > kMaxImageInstructions)
    fail(source, offsets.instruction_count,
         fmt::format("program: {} instructions, expected 1..{}", count, kMaxImageInstructions));
  const contracts::Layer& layer = image.layer;
  // Registers r0, s0, c0, k0, g0 and, with an SDM level, kb, cb, nb, xb, yb (config_image.hpp).
  const auto extents = loop_register_extents(layer);
  const char* const extent_names[kLoopRegisters] = {"R",        "S",        "C/groups", "K/groups", "groups",
                                                    "K/groups", "C/groups", "N",        "X'",       "Y'"};
  const std::uint32_t last_register =
      image.mapping.sdm.blocked ? kLoopRegisters - 1 : std::uint32_t(LoopRegister::G0);
  std::vector<std::uint32_t> open_loops;  // register of each open FOR, outer to inner
  std::array<std::uint64_t, kLoopRegisters> largest{};  // the largest value of each open loop's register
  for (std::size_t pc = 0; pc < count; ++pc) {
    const Instruction& instruction = image.program[pc];
    const std::size_t at = offsets.instructions[pc];
    const std::string name = instruction_name(image, pc);
    switch (instruction.opcode) {
      case Opcode::End:
        if (pc + 1 != count)
          fail(source, at, fmt::format("{}: END must be the last instruction ({} follow it)", name, count - pc - 1));
        if (!open_loops.empty())
          fail(source, at, fmt::format("{}: END inside {} open FOR loop(s)", name, open_loops.size()));
        break;
      case Opcode::For: {
        const std::uint32_t reg = instruction.operand[0], start = instruction.operand[1],
                            iterations = instruction.operand[2], step = instruction.operand[3];
        if (reg > last_register)
          fail(source, at + 1,
               fmt::format("{}.register is {}, expected 0..{} ({})", name, reg, last_register,
                           image.mapping.sdm.blocked ? "r0, s0, c0, k0, g0, kb, cb, nb, xb, yb"
                                                  : "r0, s0, c0, k0, g0) (the image has no SDM level"));
        // Two open loops on one register would each advance the other's origin (END_FOR adds its step to the
        // register's current value).
        if (std::find(open_loops.begin(), open_loops.end(), reg) != open_loops.end())
          fail(source, at + 1, fmt::format("{}.register: {} is already the register of an enclosing FOR", name,
                                           register_name(reg)));
        if (iterations == 0) fail(source, at + 9, fmt::format("{}.count is 0, expected at least 1", name));
        if (step == 0) fail(source, at + 13, fmt::format("{}.step is 0, expected at least 1", name));
        // The register is a weight-slice or block origin: every value it takes must lie inside the layer's extent.
        // c0 and k0 count from cb and kb: their largest values add the enclosing block loop's.
        const std::uint64_t last = std::uint64_t(start) + std::uint64_t(iterations - 1) * step;
        const std::uint32_t base = reg == 2 ? kFirstBlockRegister + contracts::kSdmC
                                   : reg == 3 ? kFirstBlockRegister + contracts::kSdmK
                                              : std::uint32_t(kLoopRegisters);
        const bool based = base < std::uint32_t(kLoopRegisters) &&
                           std::find(open_loops.begin(), open_loops.end(), base) != open_loops.end();
        const std::uint64_t origin = based ? largest[base] : 0;
        if (origin + last >= std::uint64_t(extents[reg]))
          fail(source, at + 5,
               based ? fmt::format("{}: {} = {} + {} + ({} − 1)·{} = {} reaches past the layer's {} = {}", name,
                                   register_name(reg), register_name(base), start, iterations, step, origin + last,
                                   extent_names[reg], extents[reg])
                     : fmt::format("{}: {} = {} + ({} − 1)·{} = {} reaches past the layer's {} = {}", name,
                                   register_name(reg), start, iterations, step, last, extent_names[reg],
                                   extents[reg]));
        largest[reg] = last;
        open_loops.push_back(reg);
        break;
      }
      case Opcode::EndFor:
        if (open_loops.empty()) fail(source, at, fmt::format("{}: END_FOR without an open FOR", name));
        open_loops.pop_back();
        break;
      case Opcode::Configure:
        if (instruction.operand[0] >= image.configurations.size())
          fail(source, at + 1,
               fmt::format("{}.configuration is {}, but the image holds {} configurations", name,
                           instruction.operand[0], image.configurations.size()));
        break;
      case Opcode::LoadWeights:
      case Opcode::Stream:
        break;
    }
  }
  if (image.program.back().opcode != Opcode::End)
    fail(source, offsets.instructions.back(), fmt::format("program: the last instruction is {}, expected END",
                                                          instruction_name(image, count - 1)));
}

void validate_configuration(const ConfigImage& image, std::size_t c, const ImageFieldOffsets& offsets,
                            const std::string& source) {
  const ImageConfiguration& configuration = image.configurations[c];
  const ImageFieldOffsets::Configuration& at = offsets.configurations[c];
  const PhaseShape& shape = configuration.shape;
  const contracts::Mapping& tile = image.mapping;
  const int values[7] = {shape.t_r, shape.t_s, shape.t_c, shape.t_k, shape.t_n, shape.t_x, shape.t_y};
  const std::string name = fmt::format("configuration[{}]", c);
  // A phase covers at most one tile of the reduction and filter dimensions (less at a ragged edge); the
  // N, X', Y' replicas are the mapping's, the same in every phase (tile_placement.hpp).
  for (int d = 0; d < 4; ++d)
    if (values[d] < 1 || values[d] > tile[d])
      fail(source, at.shape + 2 * std::size_t(d),
           fmt::format("{}.shape.{} is {}, expected 1..{} (tile {})", name, kShapeFieldNames[d], values[d], tile[d],
                       contracts::tile_dim_name(d)));
  for (int d = 4; d < 7; ++d)
    if (values[d] != tile[d])
      fail(source, at.shape + 2 * std::size_t(d),
           fmt::format("{}.shape.{} is {}, expected the tile's {} = {}", name, kShapeFieldNames[d], values[d],
                       contracts::tile_dim_name(d), tile[d]));
  if (shape.t_g != tile.groups_per_step())
    fail(source, at.shape + 2 * std::size_t(7),
         fmt::format("{}.shape.t_G is {}, expected the tile's T_G = {}", name, shape.t_g, tile.groups_per_step()));
  const bool forwards = phase_forwards(image.layer, tile, shape);
  if (configuration.forwarding != forwards)
    fail(source, at.forwarding,
         fmt::format("{}.forwarding is {}, but MN forwarding is {} for this phase (it needs stride 1, T_Y' = 1 and "
                     "t_S > 1)",
                     name, int(configuration.forwarding), forwards ? "on" : "off"));

  // Words: the decoder has applied the fabric's own rules (fields, vn_count ≤ M, slots < 2(M−1)); here, what
  // the fabric has no wire for, and what the controller and the models rely on.
  const FabricConfig& fabric = configuration.fabric;
  const int m = int(image.hardware.num_ms);
  const ConfigLayout layout(m);
  const auto byte_of = [&at](std::int64_t bit) { return at.words + std::size_t(bit / 8); };
  if (int(fabric.collector_slots.size()) != shape.vn_count())
    fail(source, byte_of(layout.vn_count_lsb),
         fmt::format("{}.vn_count is {}, but the shape has T_G·t_K·T_N·T_X'·T_Y' = {} VNs, whose results the "
                     "controller collects every step",
                     name, fabric.collector_slots.size(), shape.vn_count()));
  if (fabric.mult_switches.front().take_forward)
    fail(source, byte_of(layout.mult_lsb(0)),
         fmt::format("{}.mult_switch[0].take_forward is set, but multiplier switch 0 has no left neighbour", name));
  for (int a = 0; a < m - 1; ++a) {
    const AdderSwitchConfig& adder = fabric.adder_switches[std::size_t(a)];
    if ((adder.link_send || adder.link_receive) && !has_link_partner(a))
      fail(source, byte_of(layout.adder_lsb(a)),
           fmt::format("{}.adder_switch[{}] uses a forwarding link ({}), but adder {} has no link partner", name, a,
                       describe(adder), a));
  }
}

// A fused member's record and what its role asks of the mapping (docs/mapping.md, "Fused groups").
void validate_fused_member(const ConfigImage& image, const ImageFieldOffsets& offsets, const std::string& source) {
  if (!image.fused) return;
  const contracts::FusedMember& member = *image.fused;
  const contracts::FusedRole& role = member.role;
  if (member.group.empty()) fail(source, offsets.fused_group, "fused.group is empty, expected the group's name");
  if (!util::is_valid_utf8(member.group)) fail(source, offsets.fused_group, "fused.group is not valid UTF-8");
  if (member.members < 2)
    fail(source, offsets.fused_members,
         fmt::format("fused.members is {}, expected at least 2 (a group of one layer is that layer alone)",
                     member.members));
  if (member.position >= member.members)
    fail(source, offsets.fused_position,
         fmt::format("fused.position is {}, expected 0..{} (fused.members − 1)", member.position, member.members - 1));
  if (role.stripes < 1) fail(source, offsets.fused_stripes, "fused.stripes is 0, expected at least 1");
  if (role.input_in_sdm && member.position == 0)
    fail(source, offsets.fused_flags,
         "fused.flags: input_in_sdm is set, but the group's first member has no earlier member to leave its input in "
         "the SDM");
  if (role.output_in_sdm && member.position == member.members - 1)
    fail(source, offsets.fused_flags,
         "fused.flags: output_in_sdm is set, but the group's last member has no later member to read its output");
  if (role.output_over_shortcut && !(role.output_in_sdm && role.stripes == 1))
    fail(source, offsets.fused_flags,
         "fused.flags: output_over_shortcut is set, but it needs output_in_sdm and stripes 1 (the output takes the "
         "rows of a shortcut held whole in the SDM)");
  if (role.weights_in_sdm && (member.position == 0 || (role.stripes != 1 && !role.query_rows)))
    fail(source, offsets.fused_flags,
         "fused.flags: weights_in_sdm is set, but it needs an earlier member to leave the operand A in the SDM and "
         "stripes 1 (the operand is held whole) or query_rows (a stripe of its rows is held)");
  if (role.token_stripes && role.stripes == 1)
    fail(source, offsets.fused_flags,
         "fused.flags: token_stripes is set, but fused.stripes is 1 (token stripes cut N into several stripes)");
  if (role.query_rows && !role.token_stripes)
    fail(source, offsets.fused_flags,
         "fused.flags: query_rows is set without token_stripes (query-row stripes are a matrix product's token "
         "stripes)");
  if (const auto violation = contracts::fused_member_violation(image.layer, image.mapping, role, role.output_in_sdm)) {
    // Blamed on the field the broken rule reads: the SDM level, the stripes, the loop order or the pin.
    const auto rule_is = [&](const char* rule) { return violation->rfind(rule, 0) == 0; };
    const std::size_t at = rule_is("SDM level")        ? offsets.sdm_flag
                           : rule_is("stripes")        ? offsets.fused_stripes
                           : rule_is("pinned weights") ? offsets.fused_flags
                                                       : offsets.sdm_order;
    fail(source, at, fmt::format("fused: member {} of group '{}' breaks a rule of fused groups: {}",
                                 member.position + 1, util::shown_value(member.group), *violation));
  }
}

// With stripes > 1 the controller runs a member one iteration of its xb loop (nb with token stripes, kb with query-row
// stripes) at a time: that loop must be the only one of its register (but for a ragged last query-row block's loop
// right after it), of `stripes` iterations (with the ragged one), with only loops of one iteration around it and
// every fabric instruction inside.
void validate_stripe_loop(const ConfigImage& image, const ImageFieldOffsets& offsets, const std::string& source) {
  if (!image.fused || image.fused->role.stripes <= 1) return;
  const std::int64_t stripes = image.fused->role.stripes;
  const std::optional<std::size_t> loop = stripe_loop(image);
  if (!loop)
    fail(source, offsets.fused_stripes,
         fmt::format("fused.stripes is {}, but the program has no single FOR {} to run as the stripe loop (with "
                     "query_rows: or one followed by the FOR of a ragged last block)", stripes,
                     register_name(std::uint32_t(kFirstBlockRegister + contracts::stripe_dim(image.fused->role)))));
  const Instruction& stripe = image.program[*loop];
  const std::optional<std::size_t> ragged = ragged_stripe_loop(image);
  if (stripe.operand[2] + (ragged ? 1 : 0) != std::uint64_t(stripes))
    fail(source, offsets.instructions[*loop] + 1 + 2 * kImageOperandBytes,
         fmt::format("{}: the stripe loop runs {} iterations{}, but fused.stripes is {}", instruction_name(image, *loop),
                     stripe.operand[2], ragged ? " and the ragged last block's loop 1" : "", stripes));
  // The loops open at the stripe loop, and the END_FOR that closes it (the structure is valid: validated before).
  std::vector<std::size_t> open_loops, enclosing;
  std::size_t end_of_stripe = image.program.size();
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    if (pc == *loop) enclosing = open_loops;
    if (image.program[pc].opcode == Opcode::For) {
      open_loops.push_back(pc);
    } else if (image.program[pc].opcode == Opcode::EndFor) {
      if (open_loops.back() == *loop || open_loops.back() == ragged) end_of_stripe = pc;  // the ragged loop's, if any
      open_loops.pop_back();
    }
  }
  for (const std::size_t outer : enclosing)
    if (image.program[outer].operand[2] > 1)
      fail(source, offsets.instructions[outer] + 1 + 2 * kImageOperandBytes,
           fmt::format("{}: its {} loop of {} iterations encloses the stripe loop {} (a stripe is one iteration of "
                       "the outermost loop that repeats)",
                       instruction_name(image, outer), register_name(image.program[outer].operand[0]),
                       image.program[outer].operand[2], instruction_name(image, *loop)));
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    const Opcode opcode = image.program[pc].opcode;
    const bool fabric = opcode == Opcode::Configure || opcode == Opcode::LoadWeights || opcode == Opcode::Stream;
    if (fabric && (pc < *loop || pc > end_of_stripe))
      fail(source, offsets.instructions[pc],
           fmt::format("{} lies outside the stripe loop {} (fused.stripes = {}): every fabric instruction runs in a "
                       "stripe",
                       instruction_name(image, pc), instruction_name(image, *loop), stripes));
  }
}

}  // namespace

void validate_image_hardware(const ImageHardware& hardware, const ImageFieldOffsets& offsets,
                             const std::string& source) {
  if (!util::is_power_of_two(hardware.num_ms) || hardware.num_ms < 2 || hardware.num_ms > kMaxImageMultiplierSwitches)
    fail(source, offsets.num_ms,
         fmt::format("hardware.num_ms is {}, expected a power of two between 2 and {}", hardware.num_ms,
                     kMaxImageMultiplierSwitches));
  // The hardware spec's rules (docs/hardware-spec.md): bandwidths are powers of two no larger than num_ms.
  if (!util::is_power_of_two(hardware.dn_bw) || hardware.dn_bw > hardware.num_ms)
    fail(source, offsets.dn_bw,
         fmt::format("hardware.dn_bw is {}, expected a power of two between 1 and num_ms = {}", hardware.dn_bw,
                     hardware.num_ms));
  if (!util::is_power_of_two(hardware.rn_bw) || hardware.rn_bw > hardware.num_ms)
    fail(source, offsets.rn_bw,
         fmt::format("hardware.rn_bw is {}, expected a power of two between 1 and num_ms = {}", hardware.rn_bw,
                     hardware.num_ms));
  if (hardware.data_width < contracts::kMinDataWidth || hardware.data_width > contracts::kMaxDataWidth)
    fail(source, offsets.data_width,
         fmt::format("hardware.data_width is {}, expected {}..{}", hardware.data_width, contracts::kMinDataWidth,
                     contracts::kMaxDataWidth));
  if (hardware.acc_width < hardware.data_width || hardware.acc_width > contracts::kMaxAccWidth)
    fail(source, offsets.acc_width,
         fmt::format("hardware.acc_width is {}, expected data_width ({})..{}", hardware.acc_width,
                     hardware.data_width, contracts::kMaxAccWidth));
  if (!util::is_power_of_two(hardware.config_bw) || hardware.config_bw < contracts::kMinConfigBusBits ||
      hardware.config_bw > contracts::kMaxConfigBusBits)
    fail(source, offsets.config_bw,
         fmt::format("hardware.config_bw is {}, expected a power of two between {} and {}", hardware.config_bw,
                     contracts::kMinConfigBusBits, contracts::kMaxConfigBusBits));
  if (!util::is_valid_utf8(hardware.name)) fail(source, offsets.hardware_name, "hardware.name is not valid UTF-8");
}

ImageWork image_work(const ConfigImage& image) {
  const contracts::Layer& layer = image.layer;
  const contracts::Mapping& tile = image.mapping;
  ImageWork work;
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  const std::int64_t output_x = layer.output_x(), output_y = layer.output_y(), group_c = layer.group_channels();
  work.input_elements = saturating_mul(saturating_mul(layer.N, layer.C), saturating_mul(layer.X, layer.Y));
  work.padded_input_elements = saturating_mul(saturating_mul(layer.N, layer.C), saturating_mul(padded_x, padded_y));
  work.weight_elements = saturating_mul(saturating_mul(layer.K, group_c), saturating_mul(layer.R, layer.S));
  work.output_elements = saturating_mul(saturating_mul(layer.N, layer.K), saturating_mul(output_x, output_y));
  work.macs = saturating_mul(saturating_mul(work.output_elements, group_c), saturating_mul(layer.R, layer.S));
  // With an SDM level a STREAM covers one N·X'·Y' block: a bound (the last blocks may be smaller).
  const auto range = [&](int sdm_dim, std::int64_t extent) {
    return tile.sdm.blocked ? std::min<std::int64_t>(extent, tile.sdm.block[size_t(sdm_dim)]) : extent;
  };
  work.steps_per_stream = saturating_mul(util::ceil_div(range(contracts::kSdmN, layer.N), tile[contracts::kDimN]),
                                         saturating_mul(util::ceil_div(range(contracts::kSdmX, output_x), tile[contracts::kDimX]),
                                                        util::ceil_div(range(contracts::kSdmY, output_y), tile[contracts::kDimY])));
  const std::int64_t m = image.hardware.num_ms;
  // Per step at most M elements enter the DN (one per multiplier switch) and at most M results leave the RN
  // (vn_count ≤ M); a weight phase sends at most M weights; a configuration is its config-port writes, after
  // the pipeline drains (the nominal pipeline latency, docs/model.md, plus the last step's lanes).
  const std::int64_t step_cycles = std::max({util::ceil_div(m, image.hardware.dn_bw), util::ceil_div(m, image.hardware.rn_bw),
                                             std::int64_t{1}});
  const std::int64_t weight_cycles = util::ceil_div(m, image.hardware.dn_bw);
  const std::int64_t drain_cycles =
      static_cast<std::int64_t>(std::ceil(contracts::pipeline_latency(hardware_for_rules(image.hardware)))) +
      util::ceil_div(m, image.hardware.rn_bw);
  const std::vector<std::int64_t> times = multiplicities(image);
  std::int64_t cycles = drain_cycles;
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    const std::int64_t t = times[pc];
    work.executed_instructions = saturating_add(work.executed_instructions, t);
    switch (image.program[pc].opcode) {
      case Opcode::Configure:
        work.configure_executions = saturating_add(work.configure_executions, t);
        cycles = saturating_add(cycles, saturating_mul(t, contracts::configuration_words(m, image.hardware.config_bw) + drain_cycles));
        break;
      case Opcode::LoadWeights:
        work.weight_phases = saturating_add(work.weight_phases, t);
        cycles = saturating_add(cycles, saturating_mul(t, weight_cycles));
        break;
      case Opcode::Stream: {
        const std::int64_t steps = saturating_mul(t, work.steps_per_stream);
        work.steps = saturating_add(work.steps, steps);
        cycles = saturating_add(cycles, saturating_mul(steps, step_cycles));
        break;
      }
      default:
        break;
    }
  }
  work.fabric_cycles_bound = cycles;
  work.expanded_program_bytes =
      saturating_add(saturating_mul(work.weight_phases, std::int64_t(sizeof(WeightPhase))),
                     saturating_mul(work.steps, std::int64_t(sizeof(StepOrigin))));
  return work;
}

std::optional<WorkLimitBreach> work_limit_breach(const ImageWork& work) {
  struct Limit {
    std::int64_t value, limit;
    WorkPart part;
    std::string what;
  };
  const std::vector<Limit> limits = {
      {work.input_elements, kMaxInMemoryTensorElements, WorkPart::Layer, "layer: the input tensor N·C·X·Y"},
      {work.padded_input_elements, kMaxInMemoryTensorElements, WorkPart::Layer,
       "layer: the padded input tensor N·C·(X+2·padding_x)·(Y+2·padding_y)"},
      {work.weight_elements, kMaxInMemoryTensorElements, WorkPart::Layer, "layer: the weight tensor K·(C/groups)·R·S"},
      {work.output_elements, kMaxInMemoryTensorElements, WorkPart::Layer, "layer: the output tensor N·K·X'·Y'"},
      {work.macs, kMaxReferenceConvolutionMacs, WorkPart::Layer,
       "layer: the multiply-accumulates N·K·(C/groups)·R·S·X'·Y'"},
      {work.executed_instructions, kMaxExecutedInstructions, WorkPart::Program, "program: the instructions executed"},
      {work.expanded_program_bytes, kMaxExpandedProgramBytes, WorkPart::Program,
       fmt::format("program: the memory for its {} weight phases and {} steps, in bytes,",
                   work.weight_phases == kSaturated ? std::string("over 9.2e18") : std::to_string(work.weight_phases),
                   work.steps == kSaturated ? std::string("over 9.2e18") : std::to_string(work.steps))},
      {work.fabric_cycles_bound, kMaxFabricCycles, WorkPart::Program, "program: the bound on fabric cycles"},
  };
  for (const Limit& limit : limits)
    if (limit.value > limit.limit)
      return WorkLimitBreach{
          limit.part, fmt::format("{} is {}, more than this build's limit of {} (docs/config-image.md, \"Validation\")",
                                  limit.what,
                                  limit.value == kSaturated ? std::string("over 9.2e18") : std::to_string(limit.value),
                                  limit.limit)};
  return std::nullopt;
}

ImageWork validate_image(const ConfigImage& image, const ImageFieldOffsets& offsets, const std::string& source) {
  validate_image_hardware(image.hardware, offsets, source);
  validate_layer(image.layer, offsets, source);

  // Mapping: the mapper's rule (bounds, then Eq. 1), blamed on the first dimension that breaks it alone.
  const contracts::Hardware hardware = hardware_for_rules(image.hardware);
  if (const auto violation = contracts::mapping_violation(image.layer, hardware, image.mapping)) {
    if (violation->rfind("SDM", 0) == 0) fail(source, offsets.sdm, "sdm: " + *violation);
    if (violation->find("T_G = ") != std::string::npos) fail(source, offsets.groups, "tile.T_G: " + *violation);
    std::size_t at = offsets.tile[0];
    for (int d = 0; d < contracts::kNumTileDims; ++d) {
      contracts::Mapping alone;
      alone[d] = image.mapping[d];
      if (contracts::mapping_violation(image.layer, hardware, alone)) {
        at = offsets.tile[d];
        break;
      }
    }
    fail(source, at, "tile: " + *violation);
  }

  validate_fused_member(image, offsets, source);

  const std::size_t configurations = image.configurations.size();
  if (configurations == 0 || configurations > kMaxImageConfigurations)
    fail(source, offsets.configuration_count,
         fmt::format("configurations: {}, expected 1..{}", configurations, kMaxImageConfigurations));
  for (std::size_t c = 0; c < configurations; ++c) validate_configuration(image, c, offsets, source);

  validate_program_structure(image, offsets, source);
  validate_stripe_loop(image, offsets, source);

  // Work, before anything is played, expanded or allocated.
  const ImageWork work = image_work(image);
  if (const auto breach = work_limit_breach(work))
    fail(source, breach->part == WorkPart::Layer ? offsets.layer_dims[0] : offsets.instruction_count, breach->problem);

  // Play the program once, storing nothing, for what depends on the order of execution: a CONFIGURE before
  // every LOAD_WEIGHTS, a LOAD_WEIGHTS before every STREAM, every weight slice inside the layer.
  std::int64_t phases = 0, streams = 0;
  play_program(
      image, source, [&phases](const WeightPhase&) { ++phases; }, [&streams] { ++streams; }, &offsets.instructions);
  if (phases != work.weight_phases || saturating_mul(streams, work.steps_per_stream) != work.steps)
    throw std::logic_error(fmt::format("{}: image validation counted {} phases and {} steps, playing the program "
                                       "gave {} and {} streams",
                                       source, work.weight_phases, work.steps, phases, streams));
  return work;
}

}  // namespace maeri::codegen
