// Loop-program generation and interpretation (instruction set in config_image.hpp, docs/config-image.md).
#include "codegen/image_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "contracts/sdm_rules.hpp"
#include "util/integer_math.hpp"

namespace maeri::codegen {
namespace {

// Emits the loop program: the SDM loops (with an SDM level) in the mapping's order over registers kb, cb, nb, xb,
// yb, then the fabric's FOR per tiled dimension R, S, C, K in the mapping's phase order (R S C K or K R S C), each
// split into its full tiles and its ragged edge tile (whose configuration differs). c0 and k0 count from cb and kb, so the fabric loops of a C or K block are
// emitted per block extent: one body for the full blocks, one for the edge block.
struct Emitter {
  const LayerProgram& program;
  std::map<PhaseShape, int> configuration_of;
  std::array<int, 4> extent{}, tile{};  // R, S, C, K: the layer's, and the fabric tile
  std::vector<Instruction> code;
  // A grouped layer's g0 loop: outermost, or (a fused member in stripes) just inside the stripe loop, so that one
  // iteration of the stripe loop is a stripe of every group.
  std::optional<Instruction> group_loop;
  bool groups_inside_stripes = false;
  int stripe_dim = contracts::kSdmX;  // the SDM dimension of the stripe loop (N with token stripes, K with query rows)

  void fabric(int level, std::array<int, 4> sizes, const std::array<int, 4>& range) {
    if (level == 4) {
      const PhaseShape shape = phase_shape(program.mapping, sizes[0], sizes[1], sizes[2], sizes[3]);
      code.push_back({Opcode::Configure, {std::uint32_t(configuration_of.at(shape)), 0, 0, 0}});
      code.push_back({Opcode::LoadWeights, {}});
      code.push_back({Opcode::Stream, {}});
      return;
    }
    const int dim = contracts::fabric_loop_nest(program.mapping.phase_order)[size_t(level)];  // also its register
    const int length = range[size_t(dim)], size = tile[size_t(dim)];
    const int full = length / size, edge = length % size;
    if (full > 0) {
      code.push_back({Opcode::For, {std::uint32_t(dim), 0, std::uint32_t(full), std::uint32_t(size)}});
      sizes[size_t(dim)] = size;
      fabric(level + 1, sizes, range);
      code.push_back({Opcode::EndFor, {}});
    }
    if (edge > 0) {
      code.push_back({Opcode::For, {std::uint32_t(dim), std::uint32_t(full * size), 1, std::uint32_t(size)}});
      sizes[size_t(dim)] = edge;
      fabric(level + 1, sizes, range);
      code.push_back({Opcode::EndFor, {}});
    }
  }

  // SDM loop `level` of the mapping's order; `range` holds the fabric loops' extents (C and K: the block's).
  void sdm(int level, std::array<int, 4> range) {
    const contracts::Mapping& mapping = program.mapping;
    if (!mapping.sdm.blocked || level == contracts::kNumSdmDims) return fabric(0, {}, range);
    const int dim = mapping.sdm.order[size_t(level)];
    const std::uint32_t reg = std::uint32_t(kFirstBlockRegister + dim);
    const int block = int(mapping.sdm.block[size_t(dim)]);
    const int length = int(contracts::layer_extents(program.layer)[size_t(contracts::sdm_tile_dim(dim))]);
    if (dim >= contracts::kSdmN) {  // N, X', Y' blocks: STREAM clips the last one, the body is the same
      code.push_back({Opcode::For, {reg, 0, std::uint32_t(util::ceil_div(length, block)), std::uint32_t(block)}});
      const bool groups_here = groups_inside_stripes && group_loop && dim == stripe_dim;
      if (groups_here) code.push_back(*group_loop);
      sdm(level + 1, range);
      if (groups_here) code.push_back({Opcode::EndFor, {}});
      code.push_back({Opcode::EndFor, {}});
      return;
    }
    const size_t slot = dim == contracts::kSdmC ? 2 : 3;
    const int full = length / block, edge = length % block;
    // Query-row stripes: the K blocks are the stripes, every group in each — in the full blocks' loop and in the
    // ragged last block's loop alike.
    const bool groups_here = groups_inside_stripes && group_loop && dim == stripe_dim;
    const auto block_loop = [&](std::uint32_t start, std::uint32_t count, int block_extent) {
      code.push_back({Opcode::For, {reg, start, count, std::uint32_t(block)}});
      range[slot] = block_extent;
      if (groups_here) code.push_back(*group_loop);
      sdm(level + 1, range);
      if (groups_here) code.push_back({Opcode::EndFor, {}});
      code.push_back({Opcode::EndFor, {}});
    };
    if (full > 0) block_loop(0, std::uint32_t(full), block);
    if (edge > 0) block_loop(std::uint32_t(full * block), 1, edge);
  }
};

}  // namespace

ConfigImage build_image(const LayerProgram& program, const contracts::Hardware& hardware,
                        const std::optional<contracts::FusedMember>& fused) {
  ConfigImage image;
  image.hardware = image_hardware_of(hardware);
  image.layer = program.layer;
  image.mapping = program.mapping;
  image.fused = fused;
  Emitter emitter{program, {}, {}, {}, {}, std::nullopt, false};
  for (size_t c = 0; c < program.configurations.size(); ++c) {
    const PhaseConfiguration& configuration = program.configurations[c];
    image.configurations.push_back({configuration.placement.shape,
                                    phase_forwards(program.layer, program.mapping, configuration.placement.shape),
                                    configuration.reduction.config});
    emitter.configuration_of[configuration.placement.shape] = int(c);
  }
  const contracts::Layer& layer = program.layer;
  emitter.extent = {int(layer.R), int(layer.S), int(layer.group_channels()), int(layer.group_filters())};
  emitter.tile = {int(program.mapping[contracts::kDimR]), int(program.mapping[contracts::kDimS]), int(program.mapping[contracts::kDimC]),
                  int(program.mapping[contracts::kDimK])};
  // A grouped layer runs the same loop program once per group tile of T_G groups, outermost (layer_program.hpp);
  // an SDM level nests inside it. A fused member in stripes runs it inside its stripe loop instead (its SDM loops
  // outside the xb loop have one trip, contracts::fused_member_violation).
  const bool grouped = layer.groups > 1;
  const std::int64_t groups_per_step = program.mapping.groups_per_step();
  if (grouped)
    emitter.group_loop = Instruction{Opcode::For,
                                     {std::uint32_t(LoopRegister::G0), 0, std::uint32_t(layer.groups / groups_per_step),
                                      std::uint32_t(groups_per_step)}};
  emitter.groups_inside_stripes = fused && fused->role.stripes > 1 && program.mapping.sdm.blocked;
  if (fused) emitter.stripe_dim = contracts::stripe_dim(fused->role);
  const bool groups_outermost = grouped && !emitter.groups_inside_stripes;
  if (groups_outermost) emitter.code.push_back(*emitter.group_loop);
  emitter.sdm(0, emitter.extent);
  if (groups_outermost) emitter.code.push_back({Opcode::EndFor, {}});
  emitter.code.push_back({Opcode::End, {}});
  image.program = std::move(emitter.code);
  return image;
}

LayerProgram expand_image(const ConfigImage& image, const std::string& source, PlanDetail detail,
                          const std::function<bool(const WeightPhase&)>& keep_phase) {
  const contracts::Layer& layer = image.layer;
  const int num_ms = int(image.hardware.num_ms);
  LayerProgram program = empty_program(layer, image.mapping, num_ms);
  for (size_t c = 0; c < image.configurations.size(); ++c) {
    const ImageConfiguration& stored = image.configurations[c];
    PhaseConfiguration configuration;
    try {
      configuration.placement = place_tile(num_ms, stored.shape, stored.forwarding);
    } catch (const LayoutError& error) {
      throw ImageError(fmt::format("{}: configuration {}: {}", source, c, error.what()));
    }
    if (stored.fabric.num_ms != num_ms)
      throw ImageError(fmt::format("{}: configuration {} is for {} multiplier switches, the image header says {}",
                                   source, c, stored.fabric.num_ms, num_ms));
    configuration.reduction.config = stored.fabric;  // the image's words, exactly as the fabric receives them
    program.configurations.push_back(std::move(configuration));
  }
  bool kept = false;  // whether the latest phase was stored
  play_program(
      image, source,
      [&](const WeightPhase& phase) {
        kept = !keep_phase || keep_phase(phase);
        if (kept) program.phases.push_back(phase);
      },
      [&] {
        if (!kept || detail == PlanDetail::PhasesOnly) return;
        WeightPhase& phase = program.phases.back();
        add_phase_steps(layer, image.mapping, image.configurations[size_t(phase.configuration)].forwarding, phase);
      });
  return program;
}

namespace {

// One playing of an image's program: the open loops, the loop registers, the active configuration and whether its
// weights are loaded, with the checks of each instruction (image_program.hpp).
class ProgramPlayer {
 public:
  ProgramPlayer(const ConfigImage& image, const std::string& source, const std::vector<std::size_t>* instruction_offsets)
      : image_(image), source_(source), instruction_offsets_(instruction_offsets),
        extents_(loop_register_extents(image.layer)) {}

  void play(const std::function<void(const WeightPhase&)>& on_phase, const std::function<void()>& on_stream) {
    for (size_t pc = 0; pc < image_.program.size(); ++pc) {
      const Instruction& instruction = image_.program[pc];
      switch (instruction.opcode) {
        case Opcode::End:
          if (!loops_.empty()) throw fail(pc, "END inside an open FOR");
          return;
        case Opcode::For:
          enter_loop(pc, instruction);
          break;
        case Opcode::EndFor:
          pc = end_of_loop_body(pc);
          break;
        case Opcode::Configure:
          if (instruction.operand[0] >= image_.configurations.size())
            throw fail(pc, fmt::format("CONFIGURE {} but the image holds {} configurations", instruction.operand[0],
                                       image_.configurations.size()));
          active_ = int(instruction.operand[0]);
          weights_loaded_ = false;
          break;
        case Opcode::LoadWeights:
          on_phase(loaded_phase(pc));
          weights_loaded_ = true;
          break;
        case Opcode::Stream:
          if (!weights_loaded_) throw fail(pc, "STREAM before LOAD_WEIGHTS");
          on_stream();
          break;
        default:
          throw fail(pc, fmt::format("unknown opcode {}", int(instruction.opcode)));
      }
    }
    throw ImageError(fmt::format("{}: the program has no END", source_));
  }

 private:
  struct Loop {
    size_t body;  // first instruction of the body
    int reg;
    std::uint32_t remaining, step;
  };

  ImageError fail(size_t pc, const std::string& problem) const {
    if (instruction_offsets_ && pc < instruction_offsets_->size())
      return ImageError(fmt::format("{}: byte {}: program instruction {}: {}", source_, (*instruction_offsets_)[pc], pc,
                                    problem));
    return ImageError(fmt::format("{}: program instruction {}: {}", source_, pc, problem));
  }

  void enter_loop(size_t pc, const Instruction& instruction) {
    const std::uint32_t reg = instruction.operand[0], count = instruction.operand[2];
    const std::uint32_t last_register = image_.mapping.sdm.blocked ? kLoopRegisters - 1 : std::uint32_t(LoopRegister::G0);
    if (reg > last_register)
      throw fail(pc, fmt::format("FOR names register {}, expected 0..{} ({})", reg, last_register,
                                 image_.mapping.sdm.blocked ? "r0, s0, c0, k0, g0, kb, cb, nb, xb, yb"
                                                         : "r0, s0, c0, k0, g0) (the image has no SDM level"));
    if (count == 0) throw fail(pc, "FOR with a count of 0");
    registers_[reg] = instruction.operand[1];
    loops_.push_back({pc + 1, int(reg), count, instruction.operand[3]});
  }

  // END_FOR: the instruction before the one to play next (the body's first on another iteration).
  size_t end_of_loop_body(size_t pc) {
    if (loops_.empty()) throw fail(pc, "END_FOR without FOR");
    Loop& loop = loops_.back();
    if (--loop.remaining > 0) {
      registers_[size_t(loop.reg)] += loop.step;
      return loop.body - 1;
    }
    loops_.pop_back();
    return pc;
  }

  // LOAD_WEIGHTS: the phase of the active configuration at the registers' origin, checked to lie inside the layer.
  WeightPhase loaded_phase(size_t pc) const {
    if (active_ < 0) throw fail(pc, "LOAD_WEIGHTS before any CONFIGURE");
    const PhaseShape& shape = image_.configurations[size_t(active_)].shape;
    const std::array<int, 4> sizes = {shape.t_r, shape.t_s, shape.t_c, shape.t_k};
    // c0 and k0 count from the SDM block's origin cb, kb (0 without an SDM level).
    const std::array<std::uint64_t, 4> origin = {
        registers_[0], registers_[1],
        std::uint64_t(registers_[2]) + registers_[kFirstBlockRegister + contracts::kSdmC],
        std::uint64_t(registers_[3]) + registers_[kFirstBlockRegister + contracts::kSdmK]};
    for (size_t d = 0; d < 4; ++d)
      if (std::int64_t(origin[d]) + sizes[d] > extents_[d])
        throw fail(pc, fmt::format("the weight slice at {} + {} exceeds the layer's extent {} ({})", origin[d],
                                   sizes[d], extents_[d], "RSCK"[d]));
    const std::uint32_t group = registers_[size_t(LoopRegister::G0)];
    if (std::int64_t(group) + shape.t_g > extents_[size_t(LoopRegister::G0)])
      throw fail(pc, fmt::format("the weight slice is in groups {} to {}, the layer has {}", group,
                                 std::int64_t(group) + shape.t_g - 1, extents_[size_t(LoopRegister::G0)]));
    WeightPhase phase;
    phase.configuration = active_;
    phase.group = int(group);
    phase.r0 = int(origin[0]);
    phase.s0 = int(origin[1]);
    phase.c0 = int(origin[2]);
    phase.k0 = int(origin[3]);
    for (int d = 0; d < contracts::kNumSdmDims; ++d)
      phase.block[size_t(d)] = int(registers_[size_t(kFirstBlockRegister + d)]);
    phase.accumulate = phase.r0 > 0 || phase.s0 > 0 || phase.c0 > 0;
    return phase;
  }

  const ConfigImage& image_;
  const std::string& source_;
  const std::vector<std::size_t>* instruction_offsets_;
  const std::array<std::int64_t, kLoopRegisters> extents_;
  std::vector<Loop> loops_;
  std::array<std::uint32_t, kLoopRegisters> registers_{};
  int active_ = -1;
  bool weights_loaded_ = false;
};

}  // namespace

void play_program(const ConfigImage& image, const std::string& source,
                  const std::function<void(const WeightPhase&)>& on_phase, const std::function<void()>& on_stream,
                  const std::vector<std::size_t>* instruction_offsets) {
  ProgramPlayer(image, source, instruction_offsets).play(on_phase, on_stream);
}

}  // namespace maeri::codegen
