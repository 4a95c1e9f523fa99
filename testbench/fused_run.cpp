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
#include "mapper/search/network_fusion.hpp"
#include "sim/memory_plan.hpp"
#include "sim/memory_replay.hpp"
#include "testbench/shard_run.hpp"
#include "util/input_error.hpp"

namespace maeri::testbench {

std::int64_t FusedGroupPlan::reserved_bytes(std::size_t member, std::int64_t stripe) const {
  std::int64_t pinned = 0;
  for (std::int64_t bytes : pinned_bytes) pinned += bytes;
  return live_bytes[member] + pinned - (stripe == 0 ? pinned_bytes[member] : 0);
}

std::vector<FusedGroupPlan> fused_group_plans(const contracts::Network& network, const contracts::Hardware& hardware,
                                              const contracts::MappingFile& file, const std::string& path) {
  const mapper::FusionGraph graph = mapper::fusion_graph(network);
  std::vector<FusedGroupPlan> plans;
  for (std::size_t index = 0; index < file.fused_groups.size(); ++index) {
    const contracts::FusedGroupEntry& entry = file.fused_groups[index];
    if (entry.layers.size() < 2) continue;
    const std::string field = fmt::format("fused_groups[{}]", index);
    mapper::LoadedGroup loaded = mapper::loaded_group(network, hardware, file, entry);
    if (loaded.violation) throw util::InputError({path, 0, 0}, field, *loaded.violation);
    FusedGroupPlan plan;
    plan.name = entry.name;
    plan.group = std::move(loaded.group);
    const mapper::FusedGroup& group = plan.group;
    // The members' shapes as the file recorded them must be the workload's (as for a layer alone).
    for (std::size_t i = 0; i < group.count; ++i)
      contracts::tile_for_layer(file, path, network.layers[group.first + i], hardware);
    plan.roles = mapper::group_roles(graph, group);
    std::vector<std::int64_t> rows;
    for (const contracts::Mapping& mapping : group.mappings) rows.push_back(mapping.sdm.block[contracts::kSdmX]);
    plan.live_bytes =
        mapper::group_reservations(network, graph, hardware, group.first, group.count, group.stripes, rows).live_at;
    for (std::size_t i = 0; i < group.count; ++i)
      plan.pinned_bytes.push_back(plan.roles[i].weights_pinned
                                      ? mapper::pinned_weight_bytes(network.layers[group.first + i], hardware)
                                      : 0);
    plans.push_back(std::move(plan));
  }
  return plans;
}

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
    if (run.memory) merged.memory = j == 0 ? *run.memory : sum_memory(*merged.memory, *run.memory);
  }
  return merged;
}

}  // namespace

FusedMemberRun run_fused_member(const FusedGroupPlan& plan, std::size_t member, const contracts::Network& network,
                                const codegen::LayerTensors& tensors, const contracts::Hardware& hardware,
                                MemoryRuns runs, util::TaskRunner& runner, std::unique_ptr<sim::FabricSession>& fabric,
                                const std::function<std::unique_ptr<sim::FabricSession>()>& open_fabric) {
  const contracts::Layer& layer = network.layers[plan.group.first + member];
  const contracts::Mapping& mapping = plan.group.mappings[member];
  FusedMemberRun result;
  result.tile_text = contracts::to_compact_string(mapping.tile);
  // The member's image as a user ships it, with its fused record (format version 7, what `maeri codegen --mapping
  // F --workload W` writes): built, encoded, decoded; the role played is the record's, every piece is expanded
  // from the image.
  const std::string source = layer.name + ".mimg";
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  const contracts::FusedMember record{plan.name, std::int64_t(member), std::int64_t(plan.group.count),
                                      plan.roles[member]};
  const codegen::ConfigImage image =
      codegen::decode_image(codegen::encode_image(codegen::build_image(program, hardware, record)), source);
  if (!image.fused || !(*image.fused == record))
    throw std::logic_error("fused run: the image of '" + layer.name + "' does not carry its member record");
  const contracts::FusedRole& role = image.fused->role;
  const std::vector<codegen::StripePiece> pieces = codegen::stripe_pieces(layer, mapping, role.stripes);
  result.pieces = int(pieces.size());
  const auto piece_plan = [&](const codegen::LayerProgram& part, std::int64_t stripe) {
    return sim::plan_memory(part, hardware, tensors,
                            sim::plan_role(role, stripe, plan.reserved_bytes(member, stripe)));
  };

  // Pieces are independent given the member's input: spread over ranks by their rows, like shards.
  std::vector<int> tasks;
  std::vector<double> costs;
  for (const codegen::StripePiece& piece : pieces) {
    tasks.push_back(int(piece.index));
    costs.push_back(double(piece.x_end - piece.x_begin));
  }
  const std::vector<int> owner = util::assign_longest_first(costs, runner.ranks());
  std::vector<int> mine;
  for (int task : tasks)
    if (owner[std::size_t(task)] == runner.rank()) mine.push_back(task);
  const auto work = [&](int task) {
    const codegen::StripePiece& piece = pieces[std::size_t(task)];
    if (!fabric) fabric = open_fabric();
    const codegen::LayerProgram part =
        codegen::expand_image(image, source, codegen::PlanDetail::Steps,
                              [&](const codegen::WeightPhase& phase) { return codegen::in_stripe(phase, piece); });
    const auto start = std::chrono::steady_clock::now();
    ShardRun run;
    run.shard = {int(piece.index), int(piece.count), 0, int(layer.K)};
    const auto keep_rows = [&](sim::RtlLayerRun rtl) {
      rtl.output = codegen::stripe_outputs(layer, piece, rtl.output);
      return rtl;
    };
    if (runs != MemoryRuns::Dram) run.ideal = keep_rows(fabric->run(part, tensors));
    if (runs != MemoryRuns::Ideal)
      run.with_memory = keep_rows(fabric->run_with_memory(part, tensors, hardware, piece_plan(part, piece.index)));
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return encode_shard_run(run);
  };

  std::vector<std::optional<ShardRun>> done(pieces.size());
  const auto collect = [&](int task, util::TaskOutcome&& outcome) {
    if (outcome.ok) {
      try {
        done[std::size_t(task)] = decode_shard_run(outcome.bytes);
        return;
      } catch (const std::exception& error) {
        outcome.error = error.what();
      }
    }
    result.errors.push_back(fmt::format("stripe {} of {} (rows {}..{}, rank {}): {}", task + 1, pieces.size(),
                                        pieces[std::size_t(task)].x_begin, pieces[std::size_t(task)].x_end - 1,
                                        owner[std::size_t(task)], outcome.error));
  };
  std::vector<util::TaskOutcome> outcomes;
  const auto keep = [&](int task, util::TaskOutcome&& outcome) {
    if (runner.root()) collect(task, std::move(outcome));
    else outcomes.push_back(std::move(outcome));
  };
  if (runner.single_process()) {
    for (int task : mine) {
      util::TaskOutcome outcome;
      try {
        outcome.bytes = work(task);
        outcome.ok = true;
      } catch (const std::exception& error) {
        outcome.error = error.what();
      }
      keep(task, std::move(outcome));
    }
  } else {
    runner.run_in_processes(mine, work, keep);
  }
  runner.gather(mine, outcomes, owner, collect);
  if (!runner.root() || !result.errors.empty()) return result;

  std::vector<ShardRun> piece_runs;
  for (std::optional<ShardRun>& run : done) {
    result.seconds += run->seconds;
    piece_runs.push_back(std::move(*run));
  }
  CoSimulation& merged = result.result;
  merged.image_bytes = codegen::encode_image(image).size();
  merged.ideal = merge_pieces(layer, pieces, piece_runs, &ShardRun::ideal);
  merged.with_memory = merge_pieces(layer, pieces, piece_runs, &ShardRun::with_memory);

  // The model of the member in its role: exact DN/RN traffic, and its cycles with DRAM from the replay of the very
  // pieces the co-simulation played, each with its plan (as single layers are refined by refine_with_memory_replay).
  contracts::CostReport model = mapper::evaluate(layer, hardware, mapping, role);
  codegen::refine_with_exact_traffic(model, layer, hardware);
  std::int64_t configurations = 0;
  double stall = 0;
  for (const codegen::StripePiece& piece : pieces) {
    const codegen::LayerProgram part = codegen::stripe_program(program, piece);
    configurations += codegen::configuration_writes(part);
    if (merged.with_memory) stall += sim::replay_memory_stall(part, piece_plan(part, piece.index), hardware);
  }
  if (merged.with_memory) sim::set_memory_stall(model, stall, hardware);
  merged.rows = cross_check(model, {merged.ideal ? &*merged.ideal : nullptr,
                                    merged.with_memory ? &*merged.with_memory : nullptr},
                            hardware);
  // What the RTL has no counter for: the configurations the controller wrote, after the fabric's counts.
  std::size_t after = 0;
  while (after < merged.rows.size() && merged.rows[after].kind != RowKind::ActivityCount) ++after;
  while (after < merged.rows.size() && merged.rows[after].kind == RowKind::ActivityCount &&
         merged.rows[after].metric != contracts::activity_count(&contracts::ActivityCounts::dram_bytes).label)
    ++after;
  merged.rows.insert(merged.rows.begin() + std::ptrdiff_t(after),
                     CrossCheckRow{kConfigurations, double(model.counts.configurations), double(configurations)});
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
