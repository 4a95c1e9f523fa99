// The execute stage of a chained run (testbench/network_run.hpp), shared by its two files: network_run.cpp plays the
// operators in turn (one fabric session, the runner's shards for each layer), layer_pipeline.cpp plays several
// layers at once in child processes (--jobs) on the integer reference's tensors. Internal to the testbench library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "contracts/network_plan.hpp"
#include "sim/fabric_session.hpp"
#include "sim/post_processing_unit.hpp"
#include "testbench/network_run.hpp"
#include "testbench/network_verification.hpp"
#include "testbench/tensor_lifetimes.hpp"
#include "util/progress_bar.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {

// The execute stage: one plan played operator by operator on one fabric session (the verification's, which the
// fused members and the unit share), rank 0 comparing every tensor as it comes.
class ChainedRun {
 public:
  ChainedRun(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan, const NetworkRunOptions& options,
             util::TaskRunner& runner, const OperatorDone& on_operator, bool progress_bar, const GroupDone& on_group);
  NetworkRunResult execute();

 private:
  // A child process's share of the layer pipeline: operators [begin, end) played in this process from `tensors`
  // (the integer reference's, which equal the run's while every tensor before was bit-exact); no files, no progress
  // line, no group summaries (the parent makes them as it publishes).
  ChainedRun(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan, const NetworkRunOptions& options,
             util::TaskRunner& runner, IntegerTensors tensors);

  const contracts::Network& network() const { return prepared_.network(); }
  std::unique_ptr<sim::FabricSession> open_fabric() const { return verification_.open_fabric(); }
  void run_operators(std::size_t begin, std::size_t end);
  std::vector<sim::PostProcessingResult> run_on_unit(const std::vector<sim::PostProcessingJob>& jobs);
  std::vector<sim::PostProcessingResult> run_on_unit_in_child(const std::vector<sim::PostProcessingJob>& jobs);
  bool record_unit(std::size_t o, const char* where, sim::PostProcessingResult unit, double seconds,
                   const std::vector<std::int64_t>& expected);
  std::vector<std::int64_t> expected_output(std::size_t o);
  void release_inputs(std::size_t o);
  void publish(OperatorRun run);
  void complete_group_member(std::size_t o, const std::vector<CrossCheckRow>& rows);
  std::size_t run_unit_stretch(std::size_t begin);
  void flush_unit();
  codegen::LayerTensors broadcast_layer_tensors(std::size_t o);
  bool run_fabric_layer(std::size_t o);
  void run_alone(std::size_t o, codegen::LayerTensors tensors, std::vector<std::int64_t> expected, OperatorRun& run,
                 std::vector<std::int64_t>& accumulators);
  void run_member(const contracts::PlannedGroup& group, std::size_t o, const codegen::LayerTensors& tensors,
                  OperatorRun& run, std::vector<std::int64_t>& accumulators);
  void finish_fabric_layer(std::size_t o, OperatorRun run, const std::vector<std::int64_t>& accumulators,
                           const std::vector<std::int64_t>& expected);

  // The layer pipeline (layer_pipeline.cpp).
  bool runs_layers_at_once() const;
  void run_layers_at_once();
  static std::string run_share(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                               const NetworkRunOptions& options, IntegerTensors tensors, std::size_t begin,
                               std::size_t end, std::unique_ptr<sim::FabricSession>& fabric);
  std::string share_request(std::size_t begin, std::size_t end, const IntegerTensors& reference) const;
  std::string serve_share(const std::string& request, std::unique_ptr<sim::FabricSession>& fabric) const;
  bool publish_share(std::size_t begin, const std::string& bytes);
  bool returns_tensor(std::size_t tensor, bool pass) const;

  const PreparedNetwork& prepared_;
  const contracts::NetworkPlan& plan_;
  const NetworkRunOptions& options_;
  util::TaskRunner& runner_;
  const OperatorDone& on_operator_;
  const GroupDone& on_group_;
  const bool progress_bar_, root_;
  const bool share_ = false;               // a child's share of the layer pipeline
  NetworkVerification verification_;       // the layers alone, and this process's fabric session
  std::vector<std::size_t> run_of_layer_;  // network.layers index → plan.runs index of its (best) run
  NetworkRunResult result_;
  bool failed_ = false;
  std::vector<std::size_t> pending_unit_;  // operators beside the fabric waiting for the unit, in order
  const TensorLifetimes lifetimes_;        // when a produced tensor may be freed
  std::unique_ptr<TensorFiles> files_;     // --outputs --all-tensors: each tensor written as it is made
  std::vector<std::vector<CrossCheckRow>> group_rows_;  // of the current group's members that ran
  // A share: the tensors the unit produced that its parent needs (network outputs, all with --all-tensors, and one
  // that differs), in the order they were made.
  std::vector<std::pair<std::size_t, std::vector<std::int64_t>>> returned_;
  // Rank 0 on a terminal: runs done of the planned runs, elapsed and an estimate of the rest (util/progress_bar.hpp).
  std::unique_ptr<util::ProgressBar> progress_;
};

}  // namespace maeri::testbench
