// A network's runs co-simulated in shards over ranks and processes, merged and reported (see
// network_verification.hpp).
#include "testbench/network_verification.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contracts/dram_timing.hpp"
#include "codegen/config_image.hpp"
#include "codegen/image_program.hpp"
#include "testbench/stimulus.hpp"
#include "util/atomic_file.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

namespace maeri::testbench {
namespace {

// Multiply-accumulates of a shard, the cost by which tasks are balanced over ranks.
double shard_cost(const VerifyJob& job, const codegen::ProgramShard& shard) {
  const contracts::Layer& l = job.layer;
  return double(l.N) * double(shard.k_end - shard.k_begin) * double(l.C) * double(l.R) * double(l.S) *
         double(l.output_x()) * double(l.output_y());
}

nlohmann::ordered_json memory_json(const timing::MemoryRun& memory) {
  return {{"sdm_resident", memory.resident},
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
          {"dram_busy_cycles", memory.dram.busy_cycles},
          {"dram_row_misses", memory.dram.row_misses},
          {"dram_refreshes", memory.dram.refreshes}};
}

}  // namespace

NetworkVerification::NetworkVerification(const contracts::NetworkPlan& plan, const NetworkVerificationOptions& options,
                                         bool root)
    : options_(options), hardware_(plan.hardware), network_name_(plan.network.name) {
  for (const contracts::PlannedRun& run : plan.runs) {
    VerifyJob job;
    job.layer = run.layer;
    job.mapping = run.mapping;
    job.seed = options_.seed + 1000 * run.position + std::uint64_t(run.rank);
    job.image = run.image;
    job.source = run.source;
    job.error = run.error;
    jobs_.push_back(std::move(job));
  }
  entries_.resize(jobs_.size());
  csv_rows_.resize(jobs_.size());
  runs_of_job_.resize(jobs_.size());
  errors_of_job_.resize(jobs_.size());
  for (const std::string* output :
       {&options.json_path, &options.csv_path, &options.trace_path, &options.output_npy_path})
    if (!output->empty() && root) util::check_output_path(*output);
  load_tensor_files();
}

NetworkVerification::~NetworkVerification() = default;

// The tensors, reference and output files of one layer's runs: each rank reads the files itself (as it reads the
// workload or manifest), so nothing but the task index travels to it.
void NetworkVerification::load_tensor_files() {
  const NetworkVerificationOptions& o = options_;
  const std::string* given = nullptr;
  for (const std::string* path : {&o.input_path, &o.weights_path, &o.expected_path, &o.output_npy_path})
    if (!path->empty() && !given) given = path;
  if (!given) return;
  for (const VerifyJob& job : jobs_)
    if (job.layer.name != jobs_.front().layer.name)
      throw util::InputError({*given, 0, 0}, "",
                             "tensor files are of one layer, but the runs are of layers '" + jobs_.front().layer.name +
                                 "' and '" + job.layer.name + "': choose one with --layer");
  const auto runnable =
      std::find_if(jobs_.begin(), jobs_.end(), [](const VerifyJob& job) { return job.error.empty(); });
  if (runnable == jobs_.end() || (o.input_path.empty() && o.weights_path.empty() && o.expected_path.empty())) return;
  const contracts::Layer& layer = runnable->layer;
  codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware_.data_width, runnable->seed);
  if (!o.input_path.empty())
    tensors.input = read_npy_tensor(o.input_path, contracts::input_shape(layer), hardware_.data_width, "input");
  if (!o.weights_path.empty())
    tensors.weights = read_npy_tensor(o.weights_path, contracts::weight_shape(layer), hardware_.data_width, layer.name);
  std::vector<std::int64_t> reference;
  if (!o.expected_path.empty())
    reference = read_npy_tensor(o.expected_path, contracts::output_shape(layer), hardware_.acc_width, layer.name);
  use_tensors(layer.name, std::move(tensors), std::move(reference));
}

void NetworkVerification::use_tensors(const std::string& layer, codegen::LayerTensors tensors,
                                      std::vector<std::int64_t> reference) {
  const auto shared_tensors = std::make_shared<const codegen::LayerTensors>(std::move(tensors));
  const auto shared_reference =
      reference.empty() ? nullptr : std::make_shared<const std::vector<std::int64_t>>(std::move(reference));
  bool found = false;
  for (VerifyJob& job : jobs_) {
    if (job.layer.name != layer || !job.error.empty()) continue;
    if (shared_tensors->input.size() != std::size_t(job.layer.input_elements()) ||
        shared_tensors->weights.size() != std::size_t(job.layer.weight_elements()) ||
        (shared_reference && shared_reference->size() != std::size_t(job.layer.output_elements())))
      throw std::invalid_argument("use_tensors: the tensors' sizes do not match layer " + layer);
    job.tensors = shared_tensors;
    job.reference = shared_reference;
    found = true;
  }
  if (!found) throw std::invalid_argument("use_tensors: no run of layer " + layer);
}

namespace {

// The job's given tensors, or its seeded ones in `seeded`.
const codegen::LayerTensors& tensors_of(const VerifyJob& job, int data_width, codegen::LayerTensors& seeded) {
  if (job.tensors) return *job.tensors;
  seeded = codegen::random_tensors(job.layer, data_width, job.seed);
  return seeded;
}

}  // namespace

std::unique_ptr<sim::FabricSession> NetworkVerification::open_fabric(const std::string& trace) const {
  try {
    return sim::open_fabric(codegen::image_hardware_of(hardware_), contracts::watchdog_cycles(hardware_), trace);
  } catch (const std::invalid_argument& error) {
    throw util::InputError({options_.hardware_path, 0, 0}, "", error.what());
  }
}

void NetworkVerification::cut_shards(util::TaskRunner& runner) {
  const int shards_per_layer = options_.shards > 0 ? options_.shards : runner.jobs() * runner.ranks();
  for (std::size_t j = 0; j < jobs_.size(); ++j) cut_job(j, shards_per_layer);
  share_tasks(runner);
}

void NetworkVerification::cut_job(std::size_t j, int shards) {
  VerifyJob& job = jobs_[j];
  if (!job.error.empty()) return;
  try {
    // Phases without their steps: enough to cut, without holding the layer's steps.
    const codegen::LayerProgram phases = codegen::expand_image(codegen::decode_image(job.image, job.source),
                                                               job.source, codegen::PlanDetail::PhasesOnly);
    job.shards = codegen::cut_shards(phases, shards);
  } catch (const std::exception& error) {
    job.error = error.what();
    return;
  }
  for (std::size_t s = 0; s < job.shards.size(); ++s) tasks_.push_back({int(j), int(s)});
}

// The tasks over the ranks, by their multiply-accumulates (the same on every rank: same inputs, same order); the
// fabric opened here when this process runs them.
void NetworkVerification::share_tasks(util::TaskRunner& runner) {
  std::vector<double> costs;
  for (const ShardTask& task : tasks_)
    costs.push_back(shard_cost(jobs_[size_t(task.job)], jobs_[size_t(task.job)].shards[size_t(task.shard)]));
  owner_ = util::assign_longest_first(costs, runner.ranks());
  if (runner.single_process() && !fabric_) fabric_ = open_fabric(options_.trace_path);
}

std::string NetworkVerification::fabric_name() const {
  return fabric_ ? fabric_->model_name() : codegen::image_hardware_of(hardware_).name;
}

// One shard: decode and expand the image (as a user ships it), the layer's seeded tensors, the co-simulation.
std::string NetworkVerification::co_simulate_task(int task) {
  const VerifyJob& job = jobs_[size_t(tasks_[size_t(task)].job)];
  if (!fabric_) fabric_ = open_fabric("");
  const codegen::ProgramShard& shard = job.shards[size_t(tasks_[size_t(task)].shard)];
  const codegen::LayerProgram part =
      expand_image_shard(codegen::decode_image(job.image, job.source), job.source, shard);
  codegen::LayerTensors seeded;
  const codegen::LayerTensors& tensors = tensors_of(job, hardware_.data_width, seeded);
  return encode_shard_run(co_simulate_shard(*fabric_, part, shard, tensors, hardware_, options_.memory));
}

void NetworkVerification::finish_job(std::size_t j, const std::function<void(const VerifiedRun&)>& on_run) {
  const VerifyJob& job = jobs_[j];
  VerifiedRun verified{job, job.image.empty() ? "" : contracts::to_compact_string(job.mapping.tile), errors_of_job_[j],
                       nullptr};
  std::vector<ShardRun>& runs = runs_of_job_[j];
  if (progress_) progress_->clear();
  if (!verified.errors.empty()) {
    ++failed_;
    entries_[j] = {{"layer", job.layer.name}, {"tile", verified.tile_text}, {"result", "FAIL"},
                   {"errors", verified.errors}};
    csv_rows_[j] = fmt::format("{},\"{}\",FAIL,,,,,\n", job.layer.name, verified.tile_text);
    runs.clear();
    on_run(verified);
    return;
  }
  codegen::LayerTensors seeded;
  const MergedRun merged = merge_shard_runs(job.layer, job.mapping, hardware_,
                                            tensors_of(job, hardware_.data_width, seeded), job.image.size(), runs,
                                            job.reference.get());
  runs.clear();
  runs.shrink_to_fit();
  // The first run's output (by job order, whichever shard finishes last): the runs of one layer on the same tensors
  // give the same output when they pass.
  if ((keep_output_ || !options_.output_npy_path.empty()) && (!output_kept_ || j < output_job_)) {
    output_tensor_ = merged_output(merged);
    output_job_ = j;
    output_kept_ = true;
  }
  report_merged(j, merged, verified.tile_text);
  verified.merged = &merged;
  on_run(verified);
}

// The verdict's counts, the largest cycle errors of unsharded runs, and the run's JSON entry and CSV rows.
void NetworkVerification::report_merged(std::size_t j, const MergedRun& merged, const std::string& tile_text) {
  const VerifyJob& job = jobs_[j];
  const CoSimulation& run = merged.result;
  const Scoreboard& board = run.board;
  (board.pass() ? passed_ : failed_) += 1;
  sharded_runs_ += merged.shards > 1;
  for (const auto& row : run.rows) {
    if (merged.shards > 1) break;
    if (row.metric == kComputeCycles) max_compute_error_ = std::max(max_compute_error_, std::fabs(row.error_percent()));
    if (row.metric == kTotalCycles) max_total_error_ = std::max(max_total_error_, std::fabs(row.error_percent()));
  }
  nlohmann::ordered_json entry = {{"layer", job.layer.name},
                                  {"tile", tile_text},
                                  {"result", board.pass() ? "PASS" : "FAIL"},
                                  {"outputs", board.compared},
                                  {"mismatches", board.mismatches},
                                  {"output_sha256", merged.output_sha256},
                                  {"image_bytes", run.image_bytes},
                                  {"shards", merged.shards},
                                  {"seconds", merged.shard_seconds}};
  if (run.with_memory) entry["memory"] = memory_json(*run.with_memory->memory);
  for (const auto& row : run.rows) {
    entry["cross_check"].push_back(
        {{"metric", row.metric},
         {"model", row.model},
         {"rtl", row.rtl},
         {"error_percent", row.relative_error_defined() ? nlohmann::json(row.error_percent()) : nlohmann::json()},
         {"exact_after_merge", merged.shards == 1 || exact_after_merge(row.metric)}});
    csv_rows_[j] += fmt::format("{},\"{}\",{},{},{},{},{},{}\n", job.layer.name, tile_text,
                                board.pass() ? "PASS" : "FAIL", row.metric, row.model, row.rtl, row.error(),
                                row.relative_error_defined() ? fmt::format("{}", row.error_percent()) : "");
  }
  entries_[j] = std::move(entry);
}

void NetworkVerification::run(util::TaskRunner& runner, const std::function<void(const VerifiedRun&)>& on_run,
                              bool progress_bar) {
  std::vector<std::size_t> all(jobs_.size());
  for (std::size_t j = 0; j < all.size(); ++j) all[j] = j;
  run_jobs(runner, all, on_run, progress_bar);
}

void NetworkVerification::run_one(util::TaskRunner& runner, std::size_t run, codegen::LayerTensors tensors,
                                  std::vector<std::int64_t> reference,
                                  const std::function<void(const VerifiedRun&)>& on_run, bool progress_bar) {
  VerifyJob& job = jobs_[run];
  job.tensors = std::make_shared<const codegen::LayerTensors>(std::move(tensors));
  job.reference = reference.empty() ? nullptr : std::make_shared<const std::vector<std::int64_t>>(std::move(reference));
  tasks_.clear();
  cut_job(run, options_.shards > 0 ? options_.shards : runner.jobs() * runner.ranks());
  share_tasks(runner);
  keep_output_ = true;
  output_kept_ = false;
  output_tensor_.clear();
  run_jobs(runner, {run}, on_run, progress_bar);
}

// Runs the tasks of `jobs` (tasks_ holds theirs and no other's).
void NetworkVerification::run_jobs(util::TaskRunner& runner, const std::vector<std::size_t>& jobs,
                                   const std::function<void(const VerifiedRun&)>& on_run, bool progress_bar) {
  const bool root = runner.root();
  std::vector<int> my_tasks;
  for (std::size_t t = 0; t < tasks_.size(); ++t)
    if (owner_[t] == runner.rank()) my_tasks.push_back(int(t));
  pending_.assign(jobs_.size(), 0);
  for (const ShardTask& task : tasks_) ++pending_[size_t(task.job)];

  // One shard's outcome, on rank 0: kept (decoded) until its run is complete.
  const auto collect = [&](int task, util::TaskOutcome&& outcome) {
    const std::size_t j = size_t(tasks_[size_t(task)].job);
    const codegen::ProgramShard& shard = jobs_[j].shards[size_t(tasks_[size_t(task)].shard)];
    if (outcome.ok) {
      try {
        runs_of_job_[j].push_back(decode_shard_run(outcome.bytes));
      } catch (const std::exception& error) {
        outcome.ok = false;
        outcome.error = error.what();
      }
      outcome.bytes = std::string();
    }
    if (!outcome.ok)
      errors_of_job_[j].push_back(fmt::format("shard {} of {} (filters {}..{}, rank {}): {}", shard.index + 1,
                                              shard.count, shard.k_begin, shard.k_end - 1, owner_[size_t(task)],
                                              outcome.error));
    if (--pending_[j] == 0) finish_job(j, on_run);
  };
  for (const std::size_t j : jobs)
    if (!jobs_[j].error.empty()) {
      errors_of_job_[j].push_back(jobs_[j].error);
      ++bad_inputs_;
      if (root && pending_[j] == 0) finish_job(j, on_run);
    }

  std::vector<util::TaskOutcome> mine;  // ranks other than 0 send theirs when done
  const auto keep = [&](int task, util::TaskOutcome&& outcome) {
    if (root) collect(task, std::move(outcome));
    else mine.push_back(std::move(outcome));
    if (progress_) progress_->advance(jobs_[size_t(tasks_[size_t(task)].job)].layer.name);
  };
  progress_ = std::make_unique<util::ProgressBar>(runner.ranks() > 1 ? "rank 0 shards" : "shards",
                                                  std::int64_t(my_tasks.size()), root && progress_bar, stderr);
  runner.run(my_tasks, [&](int task) { return co_simulate_task(task); }, keep);
  progress_.reset();
  runner.gather(my_tasks, mine, owner_, collect);
}

void NetworkVerification::write_reports() const {
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  std::string csv = "layer,tile,result,metric,model,rtl,error,error_percent\n";
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    report.push_back(entries_[j]);
    csv += csv_rows_[j];
  }
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  if (!options_.json_path.empty())
    util::write_file_atomically(options_.json_path,
                                report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!options_.csv_path.empty()) util::write_file_atomically(options_.csv_path, csv);
  if (!options_.output_npy_path.empty() && output_kept_)
    util::write_npy_file(options_.output_npy_path,
                         output_array(jobs_[output_job_].layer, output_tensor_, hardware_.acc_width));
}

}  // namespace maeri::testbench
