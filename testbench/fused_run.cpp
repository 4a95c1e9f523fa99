// Fused groups in a chained run: their pieces on the RTL, merged and cross-checked (see fused_run.hpp).
#include "testbench/fused_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <stdexcept>

#include "codegen/config_image.hpp"
#include "codegen/exact_traffic.hpp"
#include "codegen/fused_stripes.hpp"
#include "codegen/image_program.hpp"
#include "contracts/sdm_level.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "testbench/shard_run.hpp"

namespace maeri::testbench {

namespace {

// The pieces' runs of one kind (ideal or with memory) as one run over the whole layer.
std::optional<sim::RtlLayerRun> merge_pieces(const contracts::Layer& layer,
                                             const std::vector<codegen::StripePiece>& pieces,
                                             const std::vector<ShardRun>& runs,
                                             std::optional<sim::RtlLayerRun> ShardRun::*kind) {
  if (!(runs.front().*kind)) return std::nullopt;
  sim::RtlLayerRun merged;
  merged.output.assign(std::size_t(layer.output_elements()), 0);
  for (std::size_t j = 0; j < runs.size(); ++j) {
    const sim::RtlLayerRun& run = *(runs[j].*kind);
    codegen::merge_stripe_outputs(layer, pieces[j], run.output, merged.output);
    merged.cycles += run.cycles;
    merged.counters = sum_counters(merged.counters, run.counters);
    if (run.memory) merged.memory = j == 0 ? *run.memory : timing::sum_memory(*merged.memory, *run.memory);
  }
  return merged;
}

// One member as its pieces run it: its image (as a user ships it, with its record), the role played (the record's),
// the stripe pieces, and each piece's memory plan.
struct Member {
  const contracts::PlannedGroup& group;
  std::size_t position;
  const contracts::Layer& layer;
  const contracts::Hardware& hardware;
  const codegen::LayerTensors& tensors;
  codegen::ConfigImage image;
  std::string source;
  std::vector<codegen::StripePiece> pieces;

  const contracts::FusedRole& role() const { return image.fused->role; }
  timing::MemoryPlan piece_plan(const codegen::LayerProgram& part, std::int64_t stripe) const {
    return timing::plan_memory(part, hardware, tensors,
                            timing::plan_role(role(), stripe, group.reserved_bytes(position, stripe)));
  }
};

// The member's image decoded as a user's would be; it must carry the member's record (format version 7, what `maeri
// codegen --mapping F --workload W` writes).
codegen::ConfigImage member_image(const contracts::PlannedGroup& group, std::size_t member,
                                  const contracts::PlannedRun& run) {
  const codegen::ConfigImage image = codegen::decode_image(run.image, run.source);
  const contracts::FusedMember record{group.name, std::int64_t(member), std::int64_t(group.count), group.roles[member]};
  if (!image.fused || !(*image.fused == record))
    throw std::logic_error("fused run: the image of '" + run.layer.name + "' does not carry its member record");
  return image;
}

// One piece on this process's fabric: its part of the program expanded from the image, co-simulated ideal and/or
// with memory, only its rows of the output kept.
ShardRun co_simulate_piece(const Member& m, const codegen::StripePiece& piece, sim::FabricSession& fabric,
                           MemoryRuns runs) {
  const codegen::LayerProgram part =
      codegen::expand_image(m.image, m.source, codegen::PlanDetail::Steps,
                            [&](const codegen::WeightPhase& phase) { return codegen::in_stripe(phase, piece); });
  const auto start = std::chrono::steady_clock::now();
  ShardRun run;
  run.shard = {int(piece.index), int(piece.count), 0, int(m.layer.K)};
  const auto keep_rows = [&](sim::RtlLayerRun rtl) {
    rtl.output = codegen::stripe_outputs(m.layer, piece, rtl.output);
    return rtl;
  };
  if (runs != MemoryRuns::Dram) run.ideal = keep_rows(fabric.run(part, m.tensors));
  if (runs != MemoryRuns::Ideal)
    run.with_memory =
        keep_rows(fabric.run_with_memory(part, m.tensors, m.hardware, m.piece_plan(part, piece.index)));
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

// The pieces spread over the ranks by their rows (independent given the member's input, like shards), run where the
// runner runs tasks; on rank 0, every piece's run (errors: the pieces that failed before a verdict).
std::vector<std::optional<ShardRun>> co_simulate_pieces(const Member& m, MemoryRuns runs, util::TaskRunner& runner,
                                                        std::unique_ptr<sim::FabricSession>& fabric,
                                                        const std::function<std::unique_ptr<sim::FabricSession>()>& open,
                                                        std::vector<std::string>& errors) {
  std::vector<double> costs;
  for (const codegen::StripePiece& piece : m.pieces) costs.push_back(double(piece.end - piece.begin));
  const std::vector<int> owner = util::assign_longest_first(costs, runner.ranks());
  std::vector<int> mine;
  for (const codegen::StripePiece& piece : m.pieces)
    if (owner[std::size_t(piece.index)] == runner.rank()) mine.push_back(int(piece.index));
  const auto work = [&](int task) {
    if (!fabric) fabric = open();
    return encode_shard_run(co_simulate_piece(m, m.pieces[std::size_t(task)], *fabric, runs));
  };
  std::vector<std::optional<ShardRun>> done(m.pieces.size());
  const auto collect = [&](int task, util::TaskOutcome&& outcome) {
    if (outcome.ok) {
      try {
        done[std::size_t(task)] = decode_shard_run(outcome.bytes);
        return;
      } catch (const std::exception& error) {
        outcome.error = error.what();
      }
    }
    const codegen::StripePiece& piece = m.pieces[std::size_t(task)];
    errors.push_back(fmt::format("stripe {} of {} ({} {}..{}, rank {}): {}", task + 1, m.pieces.size(),
                                 piece.tokens ? "tokens" : "rows", piece.begin, piece.end - 1, owner[std::size_t(task)], outcome.error));
  };
  std::vector<util::TaskOutcome> outcomes;
  runner.run(mine, work, [&](int task, util::TaskOutcome&& outcome) {
    if (runner.root()) collect(task, std::move(outcome));
    else outcomes.push_back(std::move(outcome));
  });
  runner.gather(mine, outcomes, owner, collect);
  return done;
}

// The model of the member in its role against the merged run: exact DN/RN traffic, and its cycles with DRAM from the
// replay of the very pieces the co-simulation played, each with its plan (as single layers are refined by
// refine_with_memory_replay); a "configurations" row (what the RTL has no counter for) after the fabric's counts.
std::vector<CrossCheckRow> member_rows(const Member& m, const contracts::Mapping& mapping, const CoSimulation& merged) {
  contracts::CostReport model = mapper::evaluate(m.layer, m.hardware, mapping, m.role());
  codegen::refine_with_exact_traffic(model, m.layer, m.hardware);
  const codegen::LayerProgram program = codegen::plan_layer(m.layer, m.hardware, mapping);
  std::int64_t configurations = 0;
  double stall = 0;
  for (const codegen::StripePiece& piece : m.pieces) {
    const codegen::LayerProgram part = codegen::stripe_program(program, piece);
    configurations += codegen::configuration_writes(part);
    if (merged.with_memory) stall += timing::replay_memory_stall(part, m.piece_plan(part, piece.index), m.hardware);
  }
  if (merged.with_memory) timing::set_memory_stall(model, stall, m.hardware);
  std::vector<CrossCheckRow> rows = cross_check(
      model, {merged.ideal ? &*merged.ideal : nullptr, merged.with_memory ? &*merged.with_memory : nullptr},
      m.hardware);
  std::size_t after = 0;
  while (after < rows.size() && rows[after].kind != RowKind::ActivityCount) ++after;
  while (after < rows.size() && rows[after].kind == RowKind::ActivityCount &&
         rows[after].metric != contracts::activity_count(&contracts::ActivityCounts::dram_bytes).label)
    ++after;
  rows.insert(rows.begin() + std::ptrdiff_t(after),
              CrossCheckRow{kConfigurations, double(model.counts.configurations), double(configurations)});
  return rows;
}

}  // namespace

FusedMemberRun run_fused_member(const contracts::PlannedGroup& group, std::size_t member,
                                const contracts::PlannedRun& run, const codegen::LayerTensors& tensors,
                                const contracts::Hardware& hardware, MemoryRuns runs, util::TaskRunner& runner,
                                std::unique_ptr<sim::FabricSession>& fabric,
                                const std::function<std::unique_ptr<sim::FabricSession>()>& open_fabric) {
  Member m{group, member, run.layer, hardware, tensors, member_image(group, member, run), run.source, {}};
  m.pieces = codegen::stripe_pieces(m.layer, run.mapping, m.role().stripes, m.role().token_stripes, m.role().query_rows);
  FusedMemberRun result;
  result.tile_text = contracts::to_compact_string(run.mapping.tile);
  result.pieces = int(m.pieces.size());
  std::vector<std::optional<ShardRun>> done = co_simulate_pieces(m, runs, runner, fabric, open_fabric, result.errors);
  if (!runner.root() || !result.errors.empty()) return result;

  std::vector<ShardRun> piece_runs;
  for (std::optional<ShardRun>& piece : done) {
    result.seconds += piece->seconds;
    piece_runs.push_back(std::move(*piece));
  }
  CoSimulation& merged = result.result;
  merged.image_bytes = run.image.size();
  merged.ideal = merge_pieces(m.layer, m.pieces, piece_runs, &ShardRun::ideal);
  merged.with_memory = merge_pieces(m.layer, m.pieces, piece_runs, &ShardRun::with_memory);
  merged.rows = member_rows(m, run.mapping, merged);
  return result;
}

std::vector<CrossCheckRow> sum_rows(const std::vector<std::vector<CrossCheckRow>>& members) {
  std::vector<CrossCheckRow> sum;
  for (const std::vector<CrossCheckRow>& rows : members) {
    if (sum.empty()) {
      sum = rows;
      continue;
    }
    if (rows.size() != sum.size()) throw std::invalid_argument("sum_rows: the members' rows differ");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].metric != sum[i].metric) throw std::invalid_argument("sum_rows: the members' rows differ");
      sum[i].model += rows[i].model;
      sum[i].rtl += rows[i].rtl;
    }
  }
  return sum;
}

}  // namespace maeri::testbench
