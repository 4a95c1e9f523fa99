// Sharded co-simulation: one shard of a layer program (codegen/program_shards.hpp) on a Verilated fabric, its
// result as bytes (so that it can come back from another process or another MPI rank), and the merge of a layer's
// shards into one co-simulation result — the whole output tensor scored bit-exactly against the reference
// convolution, and the cross-check of the summed counters against the model's single-run prediction.
// What is exact after merging and what is not: docs/scale-out.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/program_shards.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"

namespace maeri::testbench {

struct ShardRun {
  codegen::ProgramShard shard;
  // Each run's output holds only the shard's part (codegen::shard_outputs); counters and cycles are the shard's.
  std::optional<sim::RtlLayerRun> ideal, with_memory;
  double seconds = 0;  // wall time of the shard's co-simulation
};

// Plays `part` — the shard's phases: codegen::shard_program(program, shard), or the image expanded with only
// those (expand_image_shard) — with `tensors` (the whole layer's) on the fabric.
ShardRun co_simulate_shard(sim::FabricSession& fabric, const codegen::LayerProgram& part,
                           const codegen::ProgramShard& shard, const codegen::LayerTensors& tensors,
                           const contracts::Hardware& hardware, MemoryRuns runs);

// The image's program with only the shard's phases and their steps: a worker never holds the whole layer's steps.
codegen::LayerProgram expand_image_shard(const codegen::ConfigImage& image, const std::string& source,
                                         const codegen::ProgramShard& shard);

// A ShardRun as bytes and back. decode throws std::runtime_error when the bytes are not an encoded ShardRun.
std::string encode_shard_run(const ShardRun& run);
ShardRun decode_shard_run(const std::string& bytes);

// The activity counters as the fabric's, summed over shards (every counter, cycles included).
sim::Counters sum_counters(const sim::Counters& a, const sim::Counters& b);

// Whether a cross-check metric of a merged run equals the single run's (the fabric's per-step and per-phase
// activity counts and the SDM reads and writes per step and phase) or only approximates it (cycles, memory
// stalls, DRAM bytes and SDM fills — which depend on what the SDM keeps resident per run — and energy).
bool exact_after_merge(const std::string& metric);

struct MergedRun {
  CoSimulation result;        // runs with the whole output; counters and cycles summed over the shards
  std::string output_sha256;  // of the output tensor (docs/scale-out.md), identical for every sharding
  int shards = 0;
  double shard_seconds = 0;   // sum of the shards' wall times
};

// Merges every shard of one (layer, mapping): `runs` must hold each shard of the cut exactly once. Scores each run's
// output against `reference` (the caller's, e.g. an integer reference of the whole network's accumulators), or when
// it is null against the reference convolution of `tensors`, and cross-checks against the model.
MergedRun merge_shard_runs(const contracts::Layer& layer, const contracts::Mapping& tile, const contracts::Hardware& hardware,
                           const codegen::LayerTensors& tensors, std::size_t image_bytes,
                           const std::vector<ShardRun>& runs, const std::vector<std::int64_t>* reference = nullptr);

// The merged output tensor ([N][K][X'][Y'], acc_width integers): the ideal-memory run's, else the run with memory's
// (the scoreboard holds both to the same reference).
const std::vector<std::int64_t>& merged_output(const MergedRun& merged);

// SHA-256 of an output tensor: its values as 64-bit two's-complement little-endian words, in index order.
std::string output_sha256(const std::vector<std::int64_t>& output);

}  // namespace maeri::testbench
