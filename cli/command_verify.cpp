// `maeri verify` (map → image → co-simulation on the Verilated fabric → bit-exact check and model-vs-RTL
// cross-check, per layer and mapping) and `maeri run` (the same on the default example: every layer of the
// `tiny` network on maeri-64, best mapping each).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "cli/layer_selection.hpp"
#include "cli/mpi_ranks.hpp"
#include "cli/process_pool.hpp"
#include "cli/shipped_configs.hpp"
#include "cli/sweep_verification.hpp"
#include "codegen/image_file.hpp"
#include "codegen/image_program.hpp"
#include "codegen/network_manifest.hpp"
#include "util/progress_bar.hpp"
#include "util/sha256.hpp"
#include "util/atomic_file.hpp"
#include "contracts/mapping_file.hpp"
#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/shard_run.hpp"
#include "testbench/stimulus.hpp"

namespace maeri::cli {
namespace {

struct VerifyOptions {
  std::string hardware;
  std::string workload;
  std::string manifest;
  std::string layer;
  std::string mapping;
  int top = 1;
  std::uint64_t seed = 1;
  std::string json;
  std::string csv;
  std::string trace;
  std::string memory = "both";  // ideal | dram | both
  int jobs = 1;
  int shards = 0;  // per layer; 0 = one per worker (jobs × MPI ranks)
  double timeout = 0;
  double rank_timeout = 0;
};

// One (layer, mapping) to verify: its image, and the shards it is cut into.
struct VerifyJob {
  contracts::Layer layer;
  contracts::Mapping mapping;
  std::uint64_t seed = 0;
  std::vector<std::uint8_t> image;
  std::string source;  // where the image came from, for messages
  std::string error;   // set when the job cannot run (checksum mismatch, unreadable or wrong image)
  std::vector<codegen::ProgramShard> shards;
};

struct ShardTask {
  int job, shard;
};

std::vector<contracts::Mapping> tiles_for(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                    const VerifyOptions& options, const contracts::MappingFile* mapping) {
  if (mapping) return {contracts::tile_for_layer(*mapping, options.mapping, layer, hardware)};
  if (const auto reason = mapper::unmappable_reason(layer, hardware))
    throw util::InputError({options.workload, 0, 0}, "layers." + layer.name, *reason);
  std::vector<contracts::Mapping> tiles;
  for (const auto& report :
       mapper::search(layer, hardware,
                      mapper::map_search_options(mapper::Objective::Runtime, options.top,
                                                 codegen::exact_traffic_for(layer, hardware)))  // as `map` searches
           .best)
    tiles.push_back(report.mapping);
  return tiles;
}

// Jobs from a workload: the best `--top` tiles of each layer, or the tiles of `--mapping`.
std::vector<VerifyJob> jobs_from_workload(const VerifyOptions& options, const contracts::Hardware& hardware,
                                          std::string& network_name) {
  const contracts::Network network = importer::load_network(options.workload);
  network_name = network.name;
  const auto layers = select_layers(network, options.workload, options.layer);
  std::optional<contracts::MappingFile> mapping;
  if (!options.mapping.empty()) {
    mapping = contracts::load_mapping_file(options.mapping);
    contracts::check_mapping_hardware(*mapping, options.mapping, hardware);
  }
  std::vector<VerifyJob> jobs;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto tiles = tiles_for(layers[l], hardware, options, mapping ? &*mapping : nullptr);
    for (std::size_t t = 0; t < tiles.size(); ++t) {
      VerifyJob job;
      job.layer = layers[l];
      job.mapping = tiles[t];
      job.seed = options.seed + 1000 * l + t;
      job.image = codegen::encode_image(codegen::build_image(codegen::plan_layer(job.layer, hardware, job.mapping), hardware));
      job.source = job.layer.name + ".mimg";
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

// Jobs from a network manifest: every checksum is checked first; a layer whose file does not match, cannot be
// read or is not an image of this hardware becomes a failed job (named in the report), the others still run.
std::vector<VerifyJob> jobs_from_manifest(const VerifyOptions& options, const contracts::Hardware& hardware,
                                          std::string& network_name) {
  const codegen::NetworkManifest manifest = codegen::load_manifest(options.manifest);
  network_name = manifest.network;
  if (!(manifest.hardware == codegen::image_hardware_of(hardware)))
    throw util::InputError({options.manifest, 0, 0}, "hardware",
                          "the images were built for " + manifest.hardware.name + " (" +
                              std::to_string(manifest.hardware.num_ms) + " MS), not for " + hardware.name);
  std::vector<VerifyJob> jobs;
  bool selected = false;
  for (std::size_t l = 0; l < manifest.layers.size(); ++l) {
    const codegen::ManifestLayer& entry = manifest.layers[l];
    if (!options.layer.empty() && entry.name != options.layer) continue;
    selected = true;
    VerifyJob job;
    job.layer.name = entry.name;
    job.seed = options.seed + 1000 * l;
    job.source = codegen::manifest_image_path(options.manifest, entry);
    try {
      const std::string digest = util::sha256_of_file(job.source);
      if (digest != entry.sha256) {
        job.error = "checksum mismatch: " + job.source + " has SHA-256 " + digest + ", the manifest lists " +
                    entry.sha256;
      } else {
        const codegen::ConfigImage image = codegen::load_image_file(job.source);
        codegen::check_image_matches(image, hardware, job.source);
        if (image.layer.name != entry.name)
          throw util::InputError({job.source, 0, 0}, "layer", "the image is of layer '" + image.layer.name +
                                                                 "', the manifest lists '" + entry.name + "'");
        job.layer = image.layer;
        job.mapping = image.mapping;
        job.image = codegen::encode_image(image);
      }
    } catch (const std::exception& error) {  // util::InputError, ImageError: this layer's input is bad
      job.error = error.what();
    }
    jobs.push_back(std::move(job));
  }
  if (!selected)
    throw util::InputError({options.manifest, 0, 0}, "layers", "the manifest has no layer named '" + options.layer + "'");
  return jobs;
}

testbench::MemoryRuns memory_runs(const VerifyOptions& options) { return memory_runs_named(options.memory); }

std::unique_ptr<sim::FabricSession> open_fabric_for(const contracts::Hardware& hardware, const VerifyOptions& options,
                                                    const std::string& trace) {
  try {
    return sim::open_fabric(codegen::image_hardware_of(hardware), 100000, trace);
  } catch (const std::invalid_argument& error) {
    throw util::InputError({options.hardware, 0, 0}, "", error.what());
  }
}

// Multiply-accumulates of a shard, the cost by which tasks are balanced over ranks.
double shard_cost(const VerifyJob& job, const codegen::ProgramShard& shard) {
  const contracts::Layer& l = job.layer;
  return double(l.N) * double(shard.k_end - shard.k_begin) * double(l.C) * double(l.R) * double(l.S) *
         double(l.output_x()) * double(l.output_y());
}

// Shards over ranks by their multiply-accumulates (the same on every rank: same inputs, same order).
std::vector<int> assign_ranks(const std::vector<ShardTask>& tasks, const std::vector<VerifyJob>& jobs, int ranks) {
  std::vector<double> costs;
  for (const ShardTask& task : tasks)
    costs.push_back(shard_cost(jobs[size_t(task.job)], jobs[size_t(task.job)].shards[size_t(task.shard)]));
  return assign_longest_first(costs, ranks);
}

int run_verify(const VerifyOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  Ranks ranks;
  const bool root = ranks.rank() == 0;
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  std::string network_name;
  std::vector<VerifyJob> jobs = options.manifest.empty() ? jobs_from_workload(options, hardware, network_name)
                                                         : jobs_from_manifest(options, hardware, network_name);
  for (const std::string* output : {&options.json, &options.csv, &options.trace})  // fail before co-simulating
    if (!output->empty() && root) util::check_output_path(*output);
  const int workers = options.jobs * ranks.size();
  const bool in_process = workers == 1 && options.timeout == 0;
  if (!options.trace.empty() && !in_process)
    throw command_line_error("--trace", "a trace needs one process: no --jobs, --timeout or MPI");
  const int shards_per_layer = options.shards > 0 ? options.shards : workers;

  std::vector<ShardTask> tasks;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    VerifyJob& job = jobs[j];
    if (!job.error.empty()) continue;
    try {
      // Phases without their steps: enough to cut, without holding the layer's steps.
      const codegen::LayerProgram phases = codegen::expand_image(codegen::decode_image(job.image, job.source),
                                                                 job.source, codegen::PlanDetail::PhasesOnly);
      job.shards = codegen::cut_shards(phases, shards_per_layer);
    } catch (const std::exception& error) {
      job.error = error.what();
      continue;
    }
    for (std::size_t s = 0; s < job.shards.size(); ++s) tasks.push_back({int(j), int(s)});
  }
  const std::vector<int> owner = assign_ranks(tasks, jobs, ranks.size());
  std::vector<int> my_tasks;
  for (std::size_t t = 0; t < tasks.size(); ++t)
    if (owner[t] == ranks.rank()) my_tasks.push_back(int(t));

  std::unique_ptr<sim::FabricSession> fabric;  // in this process only without child processes
  if (in_process) fabric = open_fabric_for(hardware, options, options.trace);
  if (root)
    fmt::print("co-simulating {} on {} ({}), seed {}: {} layer runs in {} shards, {} rank(s) x {} job(s)\n",
               network_name, hardware.name,
               fabric ? fabric->model_name() : codegen::image_hardware_of(hardware).name, options.seed,
               jobs.size(), tasks.size(), ranks.size(), options.jobs);
  std::fflush(stdout);

  // One shard: decode and expand the image (as a user ships it), the layer's seeded tensors, the co-simulation.
  const auto work = [&](int task) {
    const VerifyJob& job = jobs[size_t(tasks[size_t(task)].job)];
    if (!fabric) fabric = open_fabric_for(hardware, options, "");
    const codegen::ProgramShard& shard = job.shards[size_t(tasks[size_t(task)].shard)];
    const codegen::LayerProgram part =
        testbench::expand_image_shard(codegen::decode_image(job.image, job.source), job.source, shard);
    const codegen::LayerTensors tensors = codegen::random_tensors(job.layer, hardware.data_width, job.seed);
    return testbench::encode_shard_run(
        testbench::co_simulate_shard(*fabric, part, shard, tensors, hardware, memory_runs(options)));
  };
  // Rank 0 merges and reports each (layer, mapping) as soon as its last shard is in, then drops the shards' results:
  // it never holds more than the layers still in flight.
  std::vector<nlohmann::ordered_json> entries(jobs.size());
  std::vector<std::string> csv_rows(jobs.size());
  std::vector<std::vector<testbench::ShardRun>> runs_of_job(jobs.size());
  std::vector<std::vector<std::string>> errors_of_job(jobs.size());
  std::vector<int> pending(jobs.size(), 0);
  for (const ShardTask& task : tasks) ++pending[size_t(task.job)];
  int passed = 0, failed = 0, bad_inputs = 0;
  double max_compute_error = 0, max_total_error = 0;
  int sharded_layers = 0;  // their cycles are sums over shards: left out of the largest cycle errors
  std::unique_ptr<util::ProgressBar> progress;

  const auto finish_job = [&](std::size_t j) {
    const VerifyJob& job = jobs[j];
    const std::string tile_text = job.image.empty() ? "" : contracts::to_compact_string(job.mapping.tile);
    nlohmann::ordered_json entry = {{"layer", job.layer.name}, {"tile", tile_text}};
    std::vector<std::string>& errors = errors_of_job[j];
    std::vector<testbench::ShardRun>& runs = runs_of_job[j];
    if (progress) progress->clear();
    if (!errors.empty()) {
      ++failed;
      entry["result"] = "FAIL";
      entry["errors"] = errors;
      fmt::print("\nlayer {} ({}): FAIL\n", job.layer.name, job.source);
      for (const std::string& error : errors) fmt::print("  {}\n", error);
      csv_rows[j] = fmt::format("{},\"{}\",FAIL,,,,,\n", job.layer.name, tile_text);
      entries[j] = std::move(entry);
      runs.clear();
      std::fflush(stdout);
      return;
    }
    const testbench::MergedRun merged = testbench::merge_shard_runs(
        job.layer, job.mapping, hardware, codegen::random_tensors(job.layer, hardware.data_width, job.seed),
        job.image.size(), runs);
    runs.clear();
    runs.shrink_to_fit();
    const testbench::CoSimulation& run = merged.result;
    const testbench::Scoreboard& board = run.board;
    (board.pass() ? passed : failed) += 1;
    sharded_layers += merged.shards > 1;
    for (const auto& row : run.rows) {
      if (merged.shards > 1) break;
      if (row.metric == testbench::kComputeCycles)
        max_compute_error = std::max(max_compute_error, std::fabs(row.error_percent()));
      if (row.metric == testbench::kTotalCycles)
        max_total_error = std::max(max_total_error, std::fabs(row.error_percent()));
    }
    const std::string order_text = job.mapping.phase_order == contracts::kDefaultPhaseOrder
                                       ? ""
                                       : fmt::format(" {}", contracts::phase_order_text(job.mapping.phase_order));
    fmt::print("\nlayer {} tile {}{} ({} image bytes): {}  [{:.2f} s{}]\n", job.layer.name, tile_text, order_text,
               run.image_bytes,
               board.summary(), merged.shard_seconds,
               merged.shards > 1 ? fmt::format(" in {} shards; cycles, stalls, DRAM bytes, SDM fills and energy are "
                                               "sums over the shards (not exact)", merged.shards)
                                 : "");
    fmt::print("{}", testbench::cross_check_table(run.rows));
    std::fflush(stdout);
    entry.update(nlohmann::ordered_json{{"result", board.pass() ? "PASS" : "FAIL"},
                                        {"outputs", board.compared},
                                        {"mismatches", board.mismatches},
                                        {"output_sha256", merged.output_sha256},
                                        {"image_bytes", run.image_bytes},
                                        {"shards", merged.shards},
                                        {"seconds", merged.shard_seconds}});
    if (run.with_memory) {
      const sim::MemoryRun& memory = *run.with_memory->memory;
      entry["memory"] = {{"sdm_resident", memory.resident},
                         {"stream_buffer_bytes", memory.stream_buffer_bytes},
                         {"output_buffer_bytes", memory.output_buffer_bytes},
                         {"peak_stream_bytes", memory.sdm.peak_stream_bytes},
                         {"peak_output_bytes", memory.sdm.peak_output_bytes},
                         {"stall_cycles", memory.stall_cycles},
                         {"data_stall_cycles", memory.data_stall_cycles},
                         {"output_stall_cycles", memory.output_stall_cycles},
                         {"drain_cycles", memory.drain_cycles},
                         {"dram_read_requests", memory.dram.read_requests},
                         {"dram_write_requests", memory.dram.write_requests},
                         {"dram_busy_cycles", memory.dram.busy_cycles}};
    }
    for (const auto& row : run.rows) {
      entry["cross_check"].push_back(
          {{"metric", row.metric},
           {"model", row.model},
           {"rtl", row.rtl},
           {"error_percent", row.relative_error_defined() ? nlohmann::json(row.error_percent()) : nlohmann::json()},
           {"exact_after_merge", merged.shards == 1 || testbench::exact_after_merge(row.metric)}});
      csv_rows[j] += fmt::format("{},\"{}\",{},{},{},{},{},{}\n", job.layer.name, tile_text,
                                 board.pass() ? "PASS" : "FAIL", row.metric, row.model, row.rtl, row.error(),
                                 row.relative_error_defined() ? fmt::format("{}", row.error_percent()) : "");
    }
    entries[j] = std::move(entry);
  };
  // One shard's outcome, on rank 0: kept (decoded) until its layer is complete.
  const auto collect = [&](int task, TaskOutcome&& outcome) {
    const std::size_t j = size_t(tasks[size_t(task)].job);
    const codegen::ProgramShard& shard = jobs[j].shards[size_t(tasks[size_t(task)].shard)];
    if (outcome.ok) {
      try {
        runs_of_job[j].push_back(testbench::decode_shard_run(outcome.bytes));
      } catch (const std::exception& error) {
        outcome.ok = false;
        outcome.error = error.what();
      }
      outcome.bytes = std::string();
    }
    if (!outcome.ok)
      errors_of_job[j].push_back(fmt::format("shard {} of {} (filters {}..{}, rank {}): {}", shard.index + 1,
                                             shard.count, shard.k_begin, shard.k_end - 1, owner[size_t(task)],
                                             outcome.error));
    if (--pending[j] == 0) finish_job(j);
  };
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (!jobs[j].error.empty()) {
      errors_of_job[j].push_back(jobs[j].error);
      ++bad_inputs;
      if (root && pending[j] == 0) finish_job(j);
    }

  std::vector<TaskOutcome> mine;  // ranks other than 0 send theirs when done
  const auto keep = [&](int task, TaskOutcome&& outcome) {
    if (root) collect(task, std::move(outcome));
    else mine.push_back(std::move(outcome));
    if (progress) progress->advance(jobs[size_t(tasks[size_t(task)].job)].layer.name);
  };
  progress = std::make_unique<util::ProgressBar>(ranks.size() > 1 ? "rank 0 shards" : "shards",
                                                 std::int64_t(my_tasks.size()), root && isatty(STDERR_FILENO) == 1,
                                                 stderr);
  if (in_process) {
    for (const int task : my_tasks) {
      const auto start = std::chrono::steady_clock::now();
      TaskOutcome outcome;
      try {
        outcome.bytes = work(task);
        outcome.ok = true;
      } catch (const std::exception& error) {
        outcome.error = error.what();
      }
      outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      keep(task, std::move(outcome));
    }
  } else {
    run_in_processes(my_tasks, {options.jobs, options.timeout}, work, keep);
  }
  progress.reset();
  ranks.gather(my_tasks, mine, owner, options.rank_timeout, collect);
  if (!root) return kExitOk;  // rank 0 reports, and its exit code is the job's verdict

  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  std::string csv = "layer,tile,result,metric,model,rtl,error,error_percent\n";
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    report.push_back(std::move(entries[j]));
    csv += csv_rows[j];
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  fmt::print("\n{} of {} runs PASS; largest cycle error{}: compute {}, with DRAM {}; {:.1f} s wall\n", passed,
             passed + failed,
             sharded_layers > 0 ? fmt::format(" of the {} unsharded runs", passed + failed - sharded_layers) : "",
             options.memory == "dram" ? "not run" : fmt::format("{:.2f}%", max_compute_error),
             options.memory == "ideal" ? "not run" : fmt::format("{:.2f}%", max_total_error), wall);
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  if (!options.json.empty())
    util::write_file_atomically(options.json,
                                  report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!options.csv.empty()) util::write_file_atomically(options.csv, csv);
  if (failed == 0 && bad_inputs == 0) return kExitOk;
  return ranks.finish(failed > bad_inputs ? kExitCheckFailed : kExitBadInput);
}

void add_common_options(CLI::App* command, VerifyOptions& options) {
  command->add_option("--layer", options.layer, "only this layer");
  command->add_option("--seed", options.seed, "seed of the random input and weight tensors")->capture_default_str();
  command->add_option("--json", options.json, "write the results and cross-check as JSON");
  command->add_option("--csv", options.csv, "write the cross-check rows as CSV");
  command->add_option("--trace", options.trace, "write a VCD of the whole fabric (view with gtkwave)");
  command
      ->add_option("--memory", options.memory,
                   "co-simulate with ideal memory (compute cycles), with the SDM/DRAM models, or both")
      ->check(CLI::IsMember({"ideal", "dram", "both"}))
      ->capture_default_str();
  command->add_option("--jobs,-j", options.jobs, "co-simulate this many shards at once, each in its own process")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  command->add_option("--shards", options.shards,
                      "cut each layer into at most this many shards by filter tile (default: one per process, "
                      "--jobs x MPI ranks)")
      ->check(CLI::Range(1, 1 << 20));
  command->add_option("--timeout", options.timeout, "seconds a shard may run before it is killed and reported")
      ->check(CLI::Range(0.0, 1e9));
  command->add_option("--rank-timeout", options.rank_timeout,
                      "under MPI: seconds rank 0 waits for the other ranks' results once its own are done")
      ->check(CLI::Range(0.0, 1e9));
}

}  // namespace

void add_verify_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* command = app.add_subcommand(
      "verify", "Map, build the image, co-simulate it on the Verilated RTL, check bit-exactly, cross-check the model");
  // Input files are checked by their loaders (exit 2 with the OS's reason), not by CLI11 (exit 1).
  command->add_option("--hardware", options->hardware, "hardware spec (YAML)")->required();
  auto* workload = command->add_option("--workload", options->workload, "workload spec (YAML)");
  auto* manifest = command->add_option("--manifest", options->manifest,
                                       "network manifest written by `maeri codegen`: verify its images");
  manifest->excludes(workload);
  auto* mapping = command->add_option("--mapping", options->mapping, "use the tiles of this mapping file");
  mapping->excludes(manifest);
  command->add_option("--top", options->top, "verify the best K mappings of each layer")
      ->capture_default_str()
      ->check(CLI::Range(1, 100))
      ->excludes(mapping)
      ->excludes(manifest);
  add_common_options(command, *options);
  command->footer("Example:\n  maeri verify --hardware configs/hardware/maeri-64.yaml --workload configs/workloads/tiny.yaml\n"
                  "  maeri verify --hardware configs/hardware/maeri-256.yaml --manifest images/vgg16.manifest.json "
                  "--jobs 2\n"
                  "  mpirun -np 4 maeri verify --hardware configs/hardware/maeri-256.yaml --workload "
                  "configs/workloads/vgg16.yaml --json vgg16.json   (docs/scale-out.md)");
  command->callback([options, &action, workload, manifest] {
    if (workload->count() == 0 && manifest->count() == 0) throw CLI::RequiredError("one of --workload or --manifest");
    action = [options] { return run_verify(*options); };
  });
}

// The default example of `maeri run` (README quick start), among the shipped configs.
const char* const kRunHardware = "hardware/maeri-64.yaml";
const char* const kRunWorkload = "workloads/tiny.yaml";

void add_run_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyOptions>();
  CLI::App* command = app.add_subcommand(
      "run", "The main job on the default example: every layer of `tiny` on maeri-64 — best mapping, image, "
             "co-simulation, PASS/FAIL and the model-vs-RTL cross-check");
  command->add_option("--hardware", options->hardware,
                      "hardware spec (YAML; default " + shipped_config_label(kRunHardware) + ")");
  command->add_option("--workload", options->workload,
                      "workload spec (YAML; default " + shipped_config_label(kRunWorkload) + ")");
  add_common_options(command, *options);
  command->callback([options, &action] {
    action = [options] {
      // Resolved when the command runs, so a missing installation only fails the command that needs it.
      if (options->hardware.empty()) options->hardware = shipped_config(kRunHardware);
      if (options->workload.empty()) options->workload = shipped_config(kRunWorkload);
      return run_verify(*options);
    };
  });
}

}  // namespace maeri::cli
