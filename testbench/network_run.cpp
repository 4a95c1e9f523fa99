// The chained run of a whole network, its execute stage (see network_run.hpp): tensors flow operator to operator
// through the fabric and the post-processing unit, each compared with the integer reference of the whole network.
#include "testbench/network_run.hpp"

#include "testbench/chained_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "codegen/config_image.hpp"
#include "contracts/matrix_product.hpp"
#include "mapper/model/post_processing_model.hpp"
#include "testbench/cross_check.hpp"
#include "testbench/fused_run.hpp"

namespace maeri::testbench {
namespace {

using contracts::OperatorKind;

std::int64_t flip_bit(std::int64_t value, int bit, int width) {
  return contracts::wrap_signed(contracts::WideInt(value ^ (std::int64_t{1} << bit)), width);
}

std::string tensor_bytes(const std::vector<std::int64_t>& values) {
  std::string bytes(values.size() * 8, '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}
std::vector<std::int64_t> tensor_of_bytes(const std::string& bytes, std::size_t offset) {
  std::vector<std::int64_t> values((bytes.size() - offset) / 8);
  if (!values.empty()) std::memcpy(values.data(), bytes.data() + offset, values.size() * 8);
  return values;
}

// A unit result as bytes, to come back from a child process: the counts, then the output's values (its shape is
// the job's).
std::string result_bytes(const sim::PostProcessingResult& result) {
  std::vector<std::int64_t> words = {result.counts.cycles};
#define MAERI_RESULT_COUNT(name, label, meaning) words.push_back(result.counts.name);
  MAERI_POST_PROCESSING_COUNTS(MAERI_RESULT_COUNT)
#undef MAERI_RESULT_COUNT
  words.insert(words.end(), result.output.values.begin(), result.output.values.end());
  return tensor_bytes(words);
}
sim::PostProcessingResult result_of_bytes(const std::string& bytes, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> words = tensor_of_bytes(bytes, 0);
  sim::PostProcessingResult result;
  std::size_t at = 0;
  const auto next = [&] {
    if (at >= words.size()) throw std::runtime_error("a post-processing result that is too short");
    return words[at++];
  };
  result.counts.cycles = next();
#define MAERI_RESULT_FIELD(name, label, meaning) result.counts.name = next();
  MAERI_POST_PROCESSING_COUNTS(MAERI_RESULT_FIELD)
#undef MAERI_RESULT_FIELD
  result.output.shape = std::move(shape);
  result.output.values.assign(words.begin() + std::ptrdiff_t(at), words.end());
  return result;
}


// "(0,3,2,1)": a flat index in a row-major shape.
std::string element_text(std::int64_t index, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> position(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    position[d] = shape[d] > 0 ? index % shape[d] : 0;
    index = shape[d] > 0 ? index / shape[d] : 0;
  }
  return fmt::format("({})", fmt::join(position, ","));
}

// A produced tensor against its reference: PASS, or the first element that differs, named; and the counts.
struct TensorComparison {
  bool pass = false;
  std::string verdict;
  std::int64_t compared = 0, differing = 0;
};

TensorComparison compare_tensor(const std::string& what, const contracts::Tensor& tensor,
                                const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& expected) {
  if (got.size() != expected.size())
    return {false, fmt::format("FAIL: {} '{}' has {} elements, the reference {}", what, tensor.name, got.size(),
                               expected.size()), 0, 0};
  std::int64_t differing = 0;
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i]) {
      ++differing;
      if (!first) first = i;
    }
  const auto compared = std::int64_t(got.size());
  if (!first) return {true, fmt::format("PASS ({} elements of '{}' bit-exact)", got.size(), tensor.name), compared, 0};
  return {false, fmt::format("FAIL: {} of {} elements of '{}' differ; first at element {} {}: {} {}, reference {}",
                             differing, got.size(), tensor.name, *first, element_text(std::int64_t(*first), tensor.shape),
                             what, got[*first], expected[*first]), compared, differing};
}

// The comparison's verdict and counts in the operator's run.
void record_comparison(OperatorRun& run, TensorComparison comparison) {
  run.pass = comparison.pass;
  run.verdict = std::move(comparison.verdict);
  run.compared = comparison.compared;
  run.differing = comparison.differing;
}


// "member 2 of 3: input from the SDM, output kept in the SDM, 4 stripes, weights pinned".
std::string member_role_text(const contracts::PlannedGroup& group, std::size_t member) {
  const contracts::FusedRole& role = group.roles[member];
  std::vector<std::string> parts;
  if (role.input_in_sdm) parts.push_back("input from the SDM");
  if (role.weights_in_sdm) parts.push_back("operand A from the SDM");
  if (role.output_in_sdm) parts.push_back("output kept in the SDM");
  parts.push_back(role.stripes == 1 ? std::string("1 stripe")
                                     : fmt::format("{} {}stripes", role.stripes, role.token_stripes ? "token " : ""));
  if (role.weights_pinned) parts.push_back("weights pinned");
  return fmt::format("member {} of {}: {}", member + 1, group.count, fmt::join(parts, ", "));
}

GroupRun group_run(const contracts::PlannedGroup& plan, const contracts::Network& network, std::vector<CrossCheckRow> rows) {
  GroupRun group;
  group.name = plan.name;
  group.stripes = plan.stripes;
  for (std::size_t i = 0; i < plan.count; ++i) {
    group.members.push_back(network.layers[plan.first + i].name);
    if (plan.roles[i].weights_pinned) group.pinned_weights.push_back(group.members.back());
  }
  group.pass = true;  // only a group whose every member passed is reported
  group.rows = std::move(rows);
  return group;
}


double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

NetworkVerificationOptions layer_options(const NetworkRunOptions& options) {
  NetworkVerificationOptions layers = options.layers;
  layers.json_path.clear();  // the chained run's JSON is its own (write_network_report)
  return layers;
}

// network.layers index → plan.runs index of its (best) run; plan.runs.size() for a layer without one.
std::vector<std::size_t> run_of_each_layer(const contracts::NetworkPlan& plan, const contracts::Network& network) {
  std::vector<std::size_t> run_of_layer(network.layers.size(), plan.runs.size());
  for (std::size_t r = 0; r < plan.runs.size(); ++r)
    if (plan.runs[r].rank == 0 && plan.runs[r].position < run_of_layer.size()) run_of_layer[plan.runs[r].position] = r;
  return run_of_layer;
}

}  // namespace

ChainedRun::ChainedRun(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                       const NetworkRunOptions& options, util::TaskRunner& runner, const OperatorDone& on_operator,
                       bool progress_bar, const GroupDone& on_group)
    : prepared_(prepared), plan_(plan), options_(options), runner_(runner), on_operator_(on_operator),
      on_group_(on_group), progress_bar_(progress_bar), root_(runner.root()),
      verification_(plan, layer_options(options), runner.root()),
      run_of_layer_(run_of_each_layer(plan, prepared.network())), lifetimes_(prepared.network()) {
  result_.network = network().name;
  result_.hardware = prepared.hardware.name;
  result_.fabric = codegen::image_hardware_of(prepared.hardware).name;
  result_.quantization_summary = prepared.quantization_summary;
  result_.float_computed = prepared.float_computed;
  if (root_) {
    if (options.all_tensors && !options.output_directory.empty())
      files_ = std::make_unique<TensorFiles>(options, prepared);
    result_.tensors.resize(network().tensors.size());
    for (std::size_t i = 0; i < prepared.inputs.size(); ++i) {
      result_.tensors[prepared.inputs[i]] = prepared.integer_inputs[i];
      if (files_) files_->write(prepared.inputs[i], result_.tensors[prepared.inputs[i]]);
    }
  }
}

namespace {
const OperatorDone kNoOperatorCallback;
const GroupDone kNoGroupCallback;
}  // namespace

ChainedRun::ChainedRun(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                       const NetworkRunOptions& options, util::TaskRunner& runner, IntegerTensors tensors)
    : prepared_(prepared), plan_(plan), options_(options), runner_(runner), on_operator_(kNoOperatorCallback),
      on_group_(kNoGroupCallback), progress_bar_(false), root_(true), share_(true),
      verification_(plan, layer_options(options), true),
      run_of_layer_(run_of_each_layer(plan, prepared.network())), lifetimes_(prepared.network()) {
  result_.tensors = std::move(tensors);
}

// Unit jobs where the fabric runs: in this process, or (when the runner uses processes) in one child.
std::vector<sim::PostProcessingResult> ChainedRun::run_on_unit(const std::vector<sim::PostProcessingJob>& jobs) {
  if (!runner_.single_process()) return run_on_unit_in_child(jobs);
  std::unique_ptr<sim::FabricSession>& fabric = verification_.fabric_session();
  if (!fabric) fabric = open_fabric();
  std::vector<sim::PostProcessingResult> results;
  for (const sim::PostProcessingJob& job : jobs)
    results.push_back(fabric->post_process(job, prepared_.hardware.post_processing));
  return results;
}

// One child per job would open a fabric per operator; the jobs of one stretch share a child.
std::vector<sim::PostProcessingResult> ChainedRun::run_on_unit_in_child(
    const std::vector<sim::PostProcessingJob>& jobs) {
  std::vector<std::string> outcomes(jobs.size());
  std::string failure;
  runner_.run_in_processes(
      {0},
      [&](int) {
        auto child_fabric = open_fabric();
        std::string all;
        for (const sim::PostProcessingJob& job : jobs) {
          const std::string bytes = result_bytes(child_fabric->post_process(job, prepared_.hardware.post_processing));
          const std::uint64_t size = bytes.size();
          all.append(reinterpret_cast<const char*>(&size), 8);
          all += bytes;
        }
        return all;
      },
      [&](int, util::TaskOutcome&& outcome) {
        if (!outcome.ok) {
          failure = outcome.error;
          return;
        }
        std::size_t at = 0;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
          std::uint64_t size = 0;
          std::memcpy(&size, outcome.bytes.data() + at, 8);
          outcomes[j] = outcome.bytes.substr(at + 8, size);
          at += 8 + size;
        }
      });
  if (!failure.empty()) throw std::runtime_error("the post-processing unit's process failed: " + failure);
  std::vector<sim::PostProcessingResult> results;
  for (std::size_t j = 0; j < jobs.size(); ++j) results.push_back(result_of_bytes(outcomes[j], jobs[j].output_shape));
  return results;
}

// Rank 0: one operator's run recorded and handed to the caller (who prints it: the progress line steps aside).
void ChainedRun::publish(OperatorRun run) {
  const std::string name = run.name;
  result_.operators.push_back(std::move(run));
  if (progress_) progress_->clear();
  if (on_operator_) on_operator_(result_, result_.operators.back());
  if (progress_) progress_->advance(name);
}

// Rank 0: one operator's unit result checked against `expected` and recorded; false when it differs.
bool ChainedRun::record_unit(std::size_t o, const char* where, sim::PostProcessingResult unit, double seconds,
                             const std::vector<std::int64_t>& expected) {
  const contracts::Operator& op = network().operators[o];
  const std::size_t out = op.outputs[0];
  const InjectedFault& fault = prepared_.fault;
  if (fault.place == InjectedFault::Place::Unit && fault.target == op.name &&
      std::size_t(fault.index) < unit.output.values.size())
    unit.output.values[size_t(fault.index)] =
        flip_bit(unit.output.values[size_t(fault.index)], fault.bit, prepared_.quantized.data_width);
  OperatorRun run;
  run.name = op.name;
  run.where = where;
  record_comparison(run, compare_tensor("unit", network().tensors[out], unit.output.values, expected));
  run.rows = post_processing_cross_check(mapper::evaluate_post_processing(network(), o, prepared_.hardware).counts,
                                         unit.counts, prepared_.hardware);
  run.seconds = seconds;
  result_.tensors[out] = std::move(unit.output.values);
  if (files_) files_->write(out, result_.tensors[out]);
  if (share_ && returns_tensor(out, run.pass)) returned_.emplace_back(out, result_.tensors[out]);
  publish(std::move(run));
  release_inputs(o);
  return result_.operators.back().pass;
}

// Rank 0: the integer reference's output of operator o (run_integer_operator) on the tensors the run produced — the
// reference's own while every tensor before was bit-exact, which the run checks as it goes. The network outputs
// were kept from the prepared reference.
std::vector<std::int64_t> ChainedRun::expected_output(std::size_t o) {
  const contracts::Operator& op = network().operators[o];
  if (!prepared_.expected[op.outputs[0]].empty()) return prepared_.expected[op.outputs[0]];
  std::vector<std::size_t> inputs = op.inputs;  // each once (Add(x, x) reads x twice): lent to the reference
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  IntegerTensors scratch(network().tensors.size());
  const auto swap_inputs = [&] {
    for (std::size_t t : inputs) scratch[t].swap(result_.tensors[t]);
  };
  swap_inputs();
  try {
    run_integer_operator(prepared_.quantized, o, scratch);
  } catch (...) {
    swap_inputs();
    throw;
  }
  swap_inputs();
  return std::move(scratch[op.outputs[0]]);
}

// Rank 0, once operator o ran: the tensors no later operator reads are freed (tensor_lifetimes.hpp); with
// --all-tensors their files were written when they were made.
void ChainedRun::release_inputs(std::size_t o) {
  const std::size_t out = network().operators[o].outputs[0];
  if (lifetimes_.unread(out)) IntegerTensors::value_type().swap(result_.tensors[out]);
  free_dead_inputs(lifetimes_, o, result_.tensors);
}

// The pending operators from `begin` whose inputs are all produced, run as one stretch of unit jobs; how many ran.
// Jobs are made one stretch at a time: an operator's inputs are the tensors the unit produced before it, which the
// unit does not give back until the stretch is done — so a stretch ends where an operator reads one.
std::size_t ChainedRun::run_unit_stretch(std::size_t begin) {
  std::vector<sim::PostProcessingJob> jobs;
  std::vector<std::size_t> ops;
  for (std::size_t i = begin; i < pending_unit_.size(); ++i) {
    const contracts::Operator& op = network().operators[pending_unit_[i]];
    // Constants (a channel affine's scale and shift, a pair's constant operand) are the job's parameters, not its inputs.
    const std::vector<std::size_t> activations(op.inputs.begin(),
                                               op.inputs.begin() + std::ptrdiff_t(contracts::activation_inputs(network(), op)));
    bool ready = true;
    for (std::size_t t : activations) ready &= !result_.tensors[t].empty();
    if (!ready) break;
    std::vector<sim::IntegerTensor> job_inputs;
    for (std::size_t t : activations) job_inputs.push_back({network().tensors[t].shape, result_.tensors[t]});
    jobs.push_back(sim::post_processing_job(prepared_.quantized, pending_unit_[i], std::move(job_inputs)));
    ops.push_back(pending_unit_[i]);
  }
  if (jobs.empty())
    throw std::logic_error("operator '" + network().operators[pending_unit_[begin]].name +
                           "' reads a tensor no earlier operator produced");
  const auto start = std::chrono::steady_clock::now();
  std::vector<sim::PostProcessingResult> results = run_on_unit(jobs);
  const double seconds = seconds_since(start) / double(jobs.size());
  for (std::size_t j = 0; j < ops.size() && !failed_; ++j)
    failed_ = !record_unit(ops[j], "unit", std::move(results[j]), seconds, expected_output(ops[j]));
  return ops.size();
}

void ChainedRun::flush_unit() {
  if (!pending_unit_.empty() && !failed_ && root_)
    for (std::size_t begin = 0; begin < pending_unit_.size() && !failed_;) begin += run_unit_stretch(begin);
  pending_unit_.clear();
}

// A layer alone: its run of the plan, cut into filter shards over the runner's processes and ranks.
void ChainedRun::run_alone(std::size_t o, codegen::LayerTensors tensors, std::vector<std::int64_t> expected,
                           OperatorRun& run, std::vector<std::int64_t>& accumulators) {
  const std::size_t layer = network().operators[o].layer;
  verification_.run_one(
      runner_, run_of_layer_[layer], std::move(tensors), std::move(expected),
      [&](const VerifiedRun& verified) {
        run.tile = verified.tile_text;
        if (!verified.merged) {
          run.verdict = "FAIL: " + fmt::format("{}", fmt::join(verified.errors, "; "));
          result_.bad_input = true;
          return;
        }
        run.rows = verified.merged->result.rows;
        run.seconds = verified.merged->shard_seconds;
        run.shards = verified.merged->shards;
      },
      false);  // the network's progress line stands for its layers' shards
  if (root_) accumulators = verification_.output_tensor();
}

// A member of a fused group: its stripe pieces in its role (never cut into filter shards).
void ChainedRun::run_member(const contracts::PlannedGroup& group, std::size_t o, const codegen::LayerTensors& tensors,
                            OperatorRun& run, std::vector<std::int64_t>& accumulators) {
  const std::size_t layer = network().operators[o].layer, member = layer - group.first;
  FusedMemberRun fused = run_fused_member(group, member, plan_.runs[run_of_layer_[layer]], tensors, prepared_.hardware,
                                          options_.layers.memory, runner_, verification_.fabric_session(),
                                          [&] { return open_fabric(); });
  if (!root_) return;
  run.tile = fused.tile_text;
  run.group = group.name;
  run.role = member_role_text(group, member);
  run.seconds = fused.seconds;
  if (!fused.errors.empty()) {
    run.verdict = "FAIL: " + fmt::format("{}", fmt::join(fused.errors, "; "));
    result_.bad_input = true;
    return;
  }
  run.rows = fused.result.rows;
  accumulators = std::move(fused.result.ideal ? fused.result.ideal->output : fused.result.with_memory->output);
}

// Rank 0, once a fabric layer ran: its accumulators against the reference, its group's rows when it was the group's
// last member, then its epilogue (bias, requantization) on the unit, checked against the reference's epilogue of the
// expected accumulators — run_integer_operator's output on the same input, without a second convolution.
void ChainedRun::finish_fabric_layer(std::size_t o, OperatorRun run, const std::vector<std::int64_t>& accumulators,
                                     const std::vector<std::int64_t>& expected) {
  const contracts::Operator& op = network().operators[o];
  const contracts::Layer& layer = network().layers[op.layer];
  if (!result_.bad_input) {
    contracts::Tensor accumulator_tensor = network().tensors[op.outputs[0]];
    accumulator_tensor.name = layer.name + " accumulators";
    record_comparison(run, compare_tensor("RTL", accumulator_tensor, accumulators, expected));
  }
  publish(run);
  if (!run.pass) {
    failed_ = true;
    return;
  }
  if (!share_) complete_group_member(o, run.rows);
  const auto start = std::chrono::steady_clock::now();
  std::vector<sim::PostProcessingResult> epilogue =
      run_on_unit({sim::post_processing_job(prepared_.quantized, o, {{contracts::output_shape(layer), accumulators}})});
  failed_ = !record_unit(o, "epilogue", std::move(epilogue[0]), seconds_since(start),
                         fabric_layer_epilogue(prepared_.quantized, o, expected));
}

// Rank 0, once a fused member passed: its rows kept for its group's sums, and the group reported after its last member.
void ChainedRun::complete_group_member(std::size_t o, const std::vector<CrossCheckRow>& rows) {
  const std::size_t layer = network().operators[o].layer;
  const contracts::PlannedGroup* group = plan_.group_of(layer);
  if (!group) return;
  group_rows_.push_back(rows);
  if (layer + 1 != group->first + group->count) return;
  result_.groups.push_back(group_run(*group, network(), sum_rows(group_rows_)));
  group_rows_.clear();
  if (on_group_) on_group_(result_, result_.groups.back());
}

// Every rank needs the layer's input, which only rank 0 has (and a matrix product's weights, its operand A, in the
// layer's order: contracts/matrix_product.hpp); "S" tells the others to stop (the input comes back empty).
codegen::LayerTensors ChainedRun::broadcast_layer_tensors(std::size_t o) {
  const contracts::Operator& op = network().operators[o];
  const bool product = contracts::is_matrix_product(op);
  std::string message;
  if (root_ && failed_) message = "S";
  else if (root_ && product) {
    const auto operands = contracts::product_operands(network(), op, result_.tensors);
    message = "C" + tensor_bytes(operands.input) + tensor_bytes(operands.weights);
  } else if (root_) {
    message = "C" + tensor_bytes(result_.tensors[op.inputs[0]]);
  }
  message = runner_.broadcast(message);
  if (message.empty() || message[0] != 'C') return {};
  std::vector<std::int64_t> values = tensor_of_bytes(message, 1);
  if (!product) return {std::move(values), prepared_.quantized.operators[o].weights};
  const auto inputs = std::ptrdiff_t(network().layers[op.layer].input_elements());
  return {std::vector<std::int64_t>(values.begin(), values.begin() + inputs),
          std::vector<std::int64_t>(values.begin() + inputs, values.end())};
}

// One fabric layer on every rank, on the tensor the operators before it produced; false when the run stops here.
bool ChainedRun::run_fabric_layer(std::size_t o) {
  const contracts::Operator& op = network().operators[o];
  const contracts::Layer& layer = network().layers[op.layer];
  codegen::LayerTensors tensors = broadcast_layer_tensors(o);
  if (tensors.input.empty()) return false;
  std::vector<std::int64_t> expected;  // on the reference's weights, before the fault flips one
  if (root_) expected = integer_convolution(layer, tensors.input, tensors.weights, prepared_.quantized.acc_width);
  const InjectedFault& fault = prepared_.fault;
  if (fault.place == InjectedFault::Place::Weight && fault.target == layer.name)
    tensors.weights[size_t(fault.index)] =
        flip_bit(tensors.weights[size_t(fault.index)], fault.bit, prepared_.quantized.data_width);
  OperatorRun run;
  run.name = layer.name;
  run.where = "fabric";
  std::vector<std::int64_t> accumulators;
  if (const contracts::PlannedGroup* group = plan_.group_of(op.layer)) run_member(*group, o, tensors, run, accumulators);
  else run_alone(o, std::move(tensors), expected, run, accumulators);
  if (root_) finish_fabric_layer(o, std::move(run), accumulators, expected);
  return true;
}

// Operators [begin, end) in graph order: the unit's before each fabric layer first (the layer may read their outputs).
void ChainedRun::run_operators(std::size_t begin, std::size_t end) {
  std::size_t next = begin;  // the first operator not yet run or queued
  for (std::size_t o = begin; o < end; ++o) {
    if (network().operators[o].kind != OperatorKind::FabricLayer) continue;
    for (; next < o; ++next) pending_unit_.push_back(next);
    next = o + 1;
    flush_unit();
    if (!run_fabric_layer(o)) return;
  }
  if (failed_) return;
  for (; next < end; ++next) pending_unit_.push_back(next);
  flush_unit();
}

NetworkRunResult ChainedRun::execute() {
  const auto start = std::chrono::steady_clock::now();
  result_.fabric_layers = 0;
  for (const contracts::Operator& op : network().operators) result_.fabric_layers += op.kind == OperatorKind::FabricLayer;
  result_.planned_runs = network().operators.size() + result_.fabric_layers;  // each fabric layer has its epilogue
  if (root_ && progress_bar_)
    progress_ = std::make_unique<util::ProgressBar>("network " + network().name,
                                                    std::int64_t(result_.planned_runs), true, stderr);
  if (runs_layers_at_once()) run_layers_at_once();
  else run_operators(0, network().operators.size());
  if (!root_) return std::move(result_);
  if (files_) {
    files_->finish();
    result_.tensors_written = true;
  }
  result_.pass = !failed_ && !result_.bad_input;
  for (const OperatorRun& run : result_.operators) result_.pass &= run.pass;
  result_.execute_seconds = seconds_since(start);
  return std::move(result_);
}

NetworkRunResult execute_network_run(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                                     const NetworkRunOptions& options, util::TaskRunner& runner,
                                     const OperatorDone& on_operator, bool progress_bar, const GroupDone& on_group) {
  return ChainedRun(prepared, plan, options, runner, on_operator, progress_bar, on_group).execute();
}

}  // namespace maeri::testbench
