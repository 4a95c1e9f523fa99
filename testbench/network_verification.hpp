// Verifying a network on the RTL (`maeri verify`, `maeri run`; docs/cosim.md, docs/scale-out.md): the (layer,
// mapping) runs of a network plan (contracts/network_plan.hpp: the best mappings of each layer, the mappings of a
// mapping file, or the images of a network manifest, as flow/ planned them) — each image cut into shards by filter
// tile, the shards shared among the ranks and
// processes of a util::TaskRunner and co-simulated from the image as a user ships it; rank 0 merges each run as soon
// as its last shard is in (it never holds more than the runs still in flight), scores it bit-exactly, cross-checks
// it against the model, and writes the JSON and CSV reports. Runs use seeded tensors, or a layer's given ones
// (NumPy files, or a caller's in memory) with the merged output tensor kept on rank 0.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codegen/program_shards.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/network_plan.hpp"
#include "contracts/tile.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/shard_run.hpp"
#include "util/progress_bar.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {

struct NetworkVerificationOptions {
  std::string hardware_path;  // the plan's hardware file, named when its fabric cannot be opened
  std::uint64_t seed = 1;     // a run's seeded tensors: seed + 1000 × its layer's position + its rank
  std::string json_path, csv_path, trace_path;  // "" = none
  MemoryRuns memory = MemoryRuns::Both;
  int shards = 0;  // per layer; 0 = one per worker (jobs × ranks)
  // The runs of one layer on given tensors (docs/cosim.md, "Tensors from NumPy files"): "FILE.npy", "FILE.npz" or
  // "FILE.npz:MEMBER" (stimulus.hpp, read_npy_tensor); a tensor not given is seeded. "" = none.
  std::string input_path, weights_path;
  std::string expected_path;    // the output to score against; "" = the reference convolution of the tensors
  std::string output_npy_path;  // the first run's merged output tensor, written on rank 0; "" = none
};

// One (layer, mapping) to verify: its image, and the shards it is cut into.
struct VerifyJob {
  contracts::Layer layer;
  contracts::Mapping mapping;
  std::uint64_t seed = 0;
  // Given tensors and the output to score against (NetworkVerification::use_tensors); null: seeded tensors, scored
  // against their reference convolution. Shared by the runs of one layer.
  std::shared_ptr<const codegen::LayerTensors> tensors;
  std::shared_ptr<const std::vector<std::int64_t>> reference;
  std::vector<std::uint8_t> image;
  std::string source;  // where the image came from, for messages
  std::string error;   // set when the job cannot run (checksum mismatch, unreadable or wrong image)
  std::vector<codegen::ProgramShard> shards;
};

// A run whose last shard is in, as rank 0 reports it.
struct VerifiedRun {
  const VerifyJob& job;
  std::string tile_text;                // "" when the run had no image
  std::vector<std::string> errors;      // the run failed before a verdict (bad input, a shard that failed)
  const MergedRun* merged = nullptr;    // the verdict and the cross-check, when there are no errors
};

class NetworkVerification {
 public:
  // The runs of `plan` (a manifest's runs with an error are reported as failed); on rank 0 checks the output paths,
  // so that a bad one fails before co-simulating, and reads the tensor files. Throws util::InputError.
  NetworkVerification(const contracts::NetworkPlan& plan, const NetworkVerificationOptions& options, bool root);
  ~NetworkVerification();

  // Runs every run of layer `layer` on `tensors` instead of seeded ones, scored against `reference` (empty: the
  // reference convolution of the tensors). Call on every rank with the same tensors, before run(): child processes
  // inherit them (fork), so they never travel in a task; an MPI rank has only what it was given. Throws
  // std::invalid_argument when no run is of that layer or a size does not match it.
  void use_tensors(const std::string& layer, codegen::LayerTensors tensors, std::vector<std::int64_t> reference = {});

  // This process's fabric session (SystemC elaborates one fabric per process), opened on first use: a chained run
  // plays its fused members and its post-processing unit on it too.
  std::unique_ptr<sim::FabricSession>& fabric_session() { return fabric_; }
  std::unique_ptr<sim::FabricSession> open_fabric(const std::string& trace = "") const;

  // Cuts each image into shards and shares them among the ranks; opens the fabric here when the runner runs tasks in
  // this process.
  void cut_shards(util::TaskRunner& runner);

  const std::string& network_name() const { return network_name_; }
  const contracts::Hardware& hardware() const { return hardware_; }
  std::string fabric_name() const;  // the fabric's model when open here, else the hardware the images are for
  std::size_t runs() const { return jobs_.size(); }
  std::size_t shards() const { return tasks_.size(); }

  // Co-simulates this rank's shards; on rank 0 calls on_run for each run as its last shard comes in (from this rank
  // or, gathered afterwards, from the others). A progress bar on stderr when asked, on rank 0.
  void run(util::TaskRunner& runner, const std::function<void(const VerifiedRun&)>& on_run, bool progress_bar);

  // A chained run, one layer at a time: run `run` (a plan.runs index) alone on `tensors` (every rank), scored against
  // `reference`; cuts its shards (instead of cut_shards()), then as run(). output_tensor() is then its output.
  void run_one(util::TaskRunner& runner, std::size_t run, codegen::LayerTensors tensors,
               std::vector<std::int64_t> reference, const std::function<void(const VerifiedRun&)>& on_run,
               bool progress_bar);

  // Rank 0's totals once run() is done.
  int passed() const { return passed_; }
  int failed() const { return failed_; }
  int bad_inputs() const { return bad_inputs_; }
  int sharded_runs() const { return sharded_runs_; }  // their cycles are sums over shards
  double max_compute_cycle_error() const { return max_compute_error_; }  // % over the unsharded runs
  double max_total_cycle_error() const { return max_total_error_; }

  // The JSON and CSV reports, and the output tensor (.npy), when asked for.
  void write_reports() const;

  // Rank 0, once run() is done: the merged output tensor ([N][K][X'][Y'], acc_width integers) of the first run with a
  // verdict (empty when none had one). Kept only when output_npy_path is set or keep_output() was called.
  const std::vector<std::int64_t>& output_tensor() const { return output_tensor_; }
  void keep_output() { keep_output_ = true; }

 private:
  struct ShardTask {
    int job, shard;
  };
  void load_tensor_files();
  void cut_job(std::size_t job, int shards);
  void share_tasks(util::TaskRunner& runner);
  void run_jobs(util::TaskRunner& runner, const std::vector<std::size_t>& jobs,
                const std::function<void(const VerifiedRun&)>& on_run, bool progress_bar);
  std::string co_simulate_task(int task);
  void finish_job(std::size_t job, const std::function<void(const VerifiedRun&)>& on_run);
  void report_merged(std::size_t job, const MergedRun& merged, const std::string& tile_text);

  NetworkVerificationOptions options_;
  contracts::Hardware hardware_;
  std::string network_name_;
  std::vector<VerifyJob> jobs_;
  std::vector<ShardTask> tasks_;
  std::vector<int> owner_;  // rank of each task
  std::unique_ptr<sim::FabricSession> fabric_;  // in this process only without child processes
  // Rank 0's state while runs are in flight, and the report rows of the runs done.
  std::vector<std::vector<ShardRun>> runs_of_job_;
  std::vector<std::vector<std::string>> errors_of_job_;
  std::vector<int> pending_;
  std::vector<nlohmann::ordered_json> entries_;
  std::vector<std::string> csv_rows_;
  std::unique_ptr<util::ProgressBar> progress_;
  int passed_ = 0, failed_ = 0, bad_inputs_ = 0, sharded_runs_ = 0;
  bool keep_output_ = false, output_kept_ = false;
  std::size_t output_job_ = 0;
  std::vector<std::int64_t> output_tensor_;
  double max_compute_error_ = 0, max_total_error_ = 0;
};

}  // namespace maeri::testbench
