// `maeri verify` (map → image → co-simulation on the Verilated fabric → bit-exact check and model-vs-RTL
// cross-check, per layer and mapping) and `maeri run` (the same on the default example: every layer of the
// `tiny` network on maeri-64, best mapping each). Each makes its network plan once through flow/ (a search, the
// user's mapping file, or the user's manifest) and hands it to the testbench, which executes it.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "cli/run_report.hpp"
#include "cli/shipped_configs.hpp"
#include "codegen/config_image.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/network_plan.hpp"
#include "importer/network_loader.hpp"
#include "report/html_report.hpp"
#include "sim/fabric_cache.hpp"
#include "testbench/network_run.hpp"
#include "testbench/network_verification.hpp"
#include "util/atomic_file.hpp"
#include "util/input_file.hpp"
#include "util/mpi_ranks.hpp"
#include "util/process_clock.hpp"

namespace maeri::cli {
namespace {

struct VerifyCommandLine {
  testbench::NetworkVerificationOptions verification;
  std::string manifest_path;                // or a workload (plan.workload_path)
  importer::ModelInputShapes model_inputs;  // an ONNX workload's input sizes (--input-shape, --batch)
  flow::PlanOptions plan;                   // the workload, its mapping file, the layer, the top mappings
  bool chain = false;      // the whole network end to end (testbench/network_run.hpp)
  bool per_layer = false;  // `maeri run --per-layer`: each layer alone, as `verify` without --chain
  bool no_fusion = false;  // --no-fusion: a chained run's layers each run alone, no fused group
  testbench::NetworkRunOptions network;
  std::string memory = "both";  // ideal | dram | both
  int jobs = 1;
  double timeout = 0;
  double rank_timeout = 0;
  std::string report_path;                    // --report: the chained run's HTML page; "" = none
  std::string report_title = "maeri verify";  // the command that wrote it
  bool references_only = false;  // --references-only: the integer and float references, no co-simulation
};

void print_run(const testbench::VerifiedRun& verified) {
  const testbench::VerifyJob& job = verified.job;
  if (!verified.merged) {
    fmt::print("\nlayer {} ({}): FAIL\n", job.layer.name, job.source);
    for (const std::string& error : verified.errors) fmt::print("  {}\n", error);
    std::fflush(stdout);
    return;
  }
  const testbench::MergedRun& merged = *verified.merged;
  const std::string order_text = job.mapping.phase_order == contracts::kDefaultPhaseOrder
                                     ? ""
                                     : fmt::format(" {}", contracts::phase_order_text(job.mapping.phase_order));
  fmt::print("\nlayer {} tile {}{} ({} image bytes): {}  [{:.2f} s{}]\n", job.layer.name, verified.tile_text,
             order_text, merged.result.image_bytes, merged.result.board.summary(), merged.shard_seconds,
             merged.shards > 1 ? fmt::format(" in {} shards; cycles, stalls, DRAM bytes, SDM fills and energy are "
                                             "sums over the shards (not exact)", merged.shards)
                               : "");
  fmt::print("{}", testbench::cross_check_table(merged.result.rows));
  std::fflush(stdout);
}

// The runs to verify, decided once: a manifest's images, or the workload's mappings (searched or the mapping file's).
contracts::NetworkPlan verify_plan(const VerifyCommandLine& line) {
  const contracts::Hardware hardware = contracts::load_hardware(line.verification.hardware_path);
  if (!line.manifest_path.empty()) return flow::plan_manifest(line.manifest_path, hardware, line.plan.layer);
  return flow::plan_workload(line.plan.workload_path, line.model_inputs, hardware, line.plan);
}

int run_verify(VerifyCommandLine& line) {
  util::RankRunner runner({line.jobs, line.timeout}, line.rank_timeout);
  testbench::NetworkVerificationOptions& options = line.verification;
  options.memory = testbench::memory_runs_named(line.memory);
  testbench::NetworkVerification verification(verify_plan(line), options, runner.root());
  if (!options.trace_path.empty() && !runner.single_process())
    throw command_line_error("--trace", "a trace needs one process: no --jobs, --timeout or MPI");
  verification.cut_shards(runner);
  const std::string seed = fmt::format("seed {}", options.seed);
  const std::string tensors =
      options.input_path.empty() && options.weights_path.empty()
          ? seed
          : fmt::format("input {}, weights {}", options.input_path.empty() ? seed : options.input_path,
                        options.weights_path.empty() ? seed : options.weights_path);
  if (runner.root())
    fmt::print("co-simulating {} on {} ({}), {}: {} layer runs in {} shards, {} rank(s) x {} job(s)\n",
               verification.network_name(), verification.hardware().name, verification.fabric_name(), tensors,
               verification.runs(), verification.shards(), runner.ranks(), line.jobs);
  std::fflush(stdout);
  verification.run(runner, print_run, isatty(STDERR_FILENO) == 1);
  if (!runner.root()) return kExitOk;  // rank 0 reports, and its exit code is the job's verdict

  const int passed = verification.passed(), failed = verification.failed();
  const double wall = util::seconds_since_process_start();
  fmt::print("\n{} of {} runs PASS; largest cycle error{}: compute {}, with DRAM {}; {:.1f} s wall\n", passed,
             passed + failed,
             verification.sharded_runs() > 0
                 ? fmt::format(" of the {} unsharded runs", passed + failed - verification.sharded_runs())
                 : "",
             line.memory == "dram" ? "not run" : fmt::format("{:.2f}%", verification.max_compute_cycle_error()),
             line.memory == "ideal" ? "not run" : fmt::format("{:.2f}%", verification.max_total_cycle_error()), wall);
  verification.write_reports();
  if (failed == 0 && verification.bad_inputs() == 0) return kExitOk;
  return runner.finish(failed > verification.bad_inputs() ? kExitCheckFailed : kExitBadInput);
}

void print_operator(const testbench::NetworkRunResult&, const testbench::OperatorRun& run) {
  if (run.where == "fabric") {
    fmt::print("\n{} [fabric{}] tile {}: {}  [{:.2f} s{}]\n", run.name,
               run.group.empty() ? "" : fmt::format(", fused group {}, {}", run.group, run.role), run.tile,
               run.verdict, run.seconds,
               run.shards > 1 ? fmt::format(" in {} shards; cycles, stalls, DRAM bytes, SDM fills and energy are "
                                            "sums over the shards (not exact)", run.shards)
                              : "");
    fmt::print("{}", testbench::cross_check_table(run.rows));
  } else {
    // The unit's rows in one line when the model predicted every count; the table when it did not.
    bool exact = true;
    std::string cycles;
    for (const testbench::CrossCheckRow& row : run.rows) {
      exact &= row.error() == 0;
      if (row.metric == testbench::kPostProcessingCycles) cycles = fmt::format("{}", row.rtl);
    }
    fmt::print("{} [{}]: {}; unit {} cycles, {}\n", run.name, run.where, run.verdict, cycles,
               exact ? "every count as the model predicts" : "the model differs:");
    if (!exact) fmt::print("{}", testbench::cross_check_table(run.rows));
  }
  std::fflush(stdout);
}

void print_group(const testbench::NetworkRunResult&, const testbench::GroupRun& group) {
  fmt::print("\nfused group {} ({}; {} stripe{}{}): every member PASS; the group, summed over its members:\n",
             group.name, fmt::join(group.members, ", "), group.stripes, group.stripes == 1 ? "" : "s",
             group.pinned_weights.empty() ? ""
                                          : fmt::format("; weights pinned: {}", fmt::join(group.pinned_weights, ", ")));
  fmt::print("{}", testbench::cross_check_table(group.rows));
  std::fflush(stdout);
}

// The chained run's stages: the specs loaded once, prepare (quantize, references), the plan (flow/: each layer's
// best mapping, or the mapping file's with its fused groups), execute, report.
testbench::NetworkRunResult chained_run(testbench::NetworkRunOptions& options, const VerifyCommandLine& line,
                                        util::RankRunner& runner) {
  const contracts::Hardware hardware = contracts::load_hardware(options.layers.hardware_path);
  for (const std::string* output : {static_cast<const std::string*>(&options.layers.json_path), &line.report_path})
    if (!output->empty() && runner.root()) util::check_output_path(*output);
  const flow::LoadedWorkload workload = flow::load_workload(options.workload_path, line.model_inputs);
  options.cut_inputs = workload.cut_inputs;
  options.skipped = {workload.skipped, workload.skipped_graph};
  const testbench::PreparedNetwork prepared =
      testbench::prepare_network_run(workload.network, hardware, workload.weights, options, runner.root());
  flow::PlanOptions plan_options = line.plan;
  plan_options.fused_groups = !line.no_fusion;
  const contracts::NetworkPlan plan = flow::plan_network(prepared.network(), hardware, plan_options);
  const std::optional<double> fabric_build = sim::make_fabric_available(codegen::image_hardware_of(hardware));
  testbench::NetworkRunResult result = testbench::execute_network_run(
      prepared, plan, options, runner, print_operator, isatty(STDERR_FILENO) == 1, print_group);
  result.fabric_build_seconds = fabric_build;
  if (runner.root()) {
    testbench::write_network_report(result, prepared, plan, options);
    if (!line.report_path.empty())
      report::write_report(line.report_path, run_report(line.report_title, prepared.network(), plan, result));
  }
  return result;
}

// --references-only: prepare (quantize, the integer and float references) and write what --outputs asks for, the
// integer reference standing for the run's tensors (a chained run holds the RTL to it bit for bit); nothing is
// mapped or co-simulated. For measuring what quantization keeps of a large model quickly (tests/oracle).
int run_references(VerifyCommandLine& line) {
  testbench::NetworkRunOptions& options = line.network;
  options.layers = line.verification;
  options.workload_path = line.plan.workload_path;
  const contracts::Hardware hardware = contracts::load_hardware(options.layers.hardware_path);
  if (!options.layers.json_path.empty()) util::check_output_path(options.layers.json_path);
  const flow::LoadedWorkload workload = flow::load_workload(options.workload_path, line.model_inputs);
  options.cut_inputs = workload.cut_inputs;
  options.skipped = {workload.skipped, workload.skipped_graph};
  const testbench::PreparedNetwork prepared =
      testbench::prepare_network_run(workload.network, hardware, workload.weights, options, true);
  testbench::NetworkRunResult result;
  result.network = prepared.network().name;
  result.hardware = hardware.name;
  result.pass = true;
  result.quantization_summary = prepared.quantization_summary;
  result.float_computed = prepared.float_computed;
  // The prepared reference keeps its outputs only (a chained run recomputes the rest as it goes): every tensor again
  // when all are written, each written as it is made and freed after its last reader.
  if (options.all_tensors && !options.output_directory.empty()) {
    testbench::TensorFiles files(options, prepared);
    result.tensors = testbench::written_integer_reference(prepared, files);
    result.tensors_written = true;
  } else {
    result.tensors = prepared.expected;
  }
  testbench::write_network_report(result, prepared, contracts::NetworkPlan{}, options);
  fmt::print("quantization (integer against float reference): {}\n", result.quantization_summary);
  fmt::print("network {}: references only (integer and float), nothing co-simulated\n", result.network);
  return kExitOk;
}

int run_chain(VerifyCommandLine& line) {
  if (line.references_only) return run_references(line);
  util::RankRunner runner({line.jobs, line.timeout}, line.rank_timeout);
  testbench::NetworkRunOptions& options = line.network;
  options.layers = line.verification;
  options.layers.memory = testbench::memory_runs_named(line.memory);
  options.workload_path = line.plan.workload_path;
  if (runner.root())
    fmt::print("chained run of {} on {}, seed {}: input {}, weights {}; {} rank(s) x {} job(s)\n",
               options.workload_path, options.layers.hardware_path, options.layers.seed,
               options.input_path.empty() ? "seeded U(-1, 1)" : options.input_path,
               !options.weights_path.empty() ? options.weights_path
               : importer::is_onnx_path(options.workload_path) ? "the model's initializers (seeded where absent)"
                                                                : "seeded He-uniform",
               runner.ranks(), line.jobs);
  std::fflush(stdout);
  const testbench::NetworkRunResult result = chained_run(options, line, runner);
  if (!runner.root()) return kExitOk;
  double largest_fabric = 0, largest_unit = 0;
  for (const testbench::OperatorRun& run : result.operators)
    for (const testbench::CrossCheckRow& row : run.rows)
      if (run.shards == 1)
      if (row.relative_error_defined() && (row.metric == testbench::kComputeCycles || row.metric == testbench::kPostProcessingCycles ||
                                           row.metric == testbench::kTotalCycles))
        (run.where == "fabric" ? largest_fabric : largest_unit) =
            std::max(run.where == "fabric" ? largest_fabric : largest_unit, std::fabs(row.error_percent()));
  // Where the time went: the co-simulations of the fabric layers and of the unit's operators (their shards' seconds
  // summed), and everything else — loading, quantizing, the references, planning, checking, writing: the overhead.
  double fabric_seconds = 0, unit_seconds = 0;
  for (const testbench::OperatorRun& run : result.operators)
    (run.where == "fabric" ? fabric_seconds : unit_seconds) += run.seconds;
  // With layers in several processes at once their seconds overlap: the co-simulation is the execute stage's wall
  // time, the overhead the rest.
  const double wall = util::seconds_since_process_start();
  const bool overlapped = result.layer_processes > 1;
  const double co_simulation = overlapped ? result.execute_seconds : fabric_seconds + unit_seconds;
  const double fabric_build = result.fabric_build_seconds.value_or(0);
  fmt::print("\nquantization (integer against float reference): {}\n", result.quantization_summary);
  fmt::print("network {}: {} — {} of {} runs ({} fabric layers, their epilogues and {} operators on the unit), every "
             "tensor {}; largest cycle error: fabric {:.2f}% (unsharded runs), post-processing unit {:.2f}%; {:.1f} s "
             "wall: co-simulation {:.1f} s{} (fabric layers {:.1f} s, unit {:.1f} s{}), overhead {:.1f} s{}\n",
             result.network, result.pass ? "PASS" : "FAIL", result.operators.size(), result.planned_runs,
             result.fabric_layers, result.planned_runs - 2 * result.fabric_layers,
             result.pass ? "bit-exact with the integer reference" : "up to the first failure compared",
             largest_fabric, largest_unit, wall, co_simulation,
             overlapped ? fmt::format(" wall, layers in {} processes at once", result.layer_processes) : "",
             fabric_seconds, unit_seconds,
             overlapped ? ", summed over the processes" : line.jobs > 1 ? ", shards' seconds summed over the jobs" : "",
             wall - co_simulation - fabric_build,
             result.fabric_build_seconds ? fmt::format(", building the fabric first {:.1f} s", fabric_build) : "");
  if (result.pass) return kExitOk;
  // The operator that failed or could not run says so on stderr too: a failed run never ends with an empty stderr.
  for (const testbench::OperatorRun& run : result.operators)
    if (!run.pass && !run.verdict.empty())
      fmt::print(stderr, "error: {}: {} '{}' {}: {}\n", options.workload_path, run.where, util::shown_value(run.name),
                 result.bad_input ? "could not run" : "differs from the integer reference", run.verdict);
  return runner.finish(result.bad_input ? kExitBadInput : kExitCheckFailed);
}

// Options of one layer's runs have no meaning in a chained run: refused, not ignored.
void check_chain_options(const VerifyCommandLine& options) {
  const testbench::NetworkRunOptions& n = options.network;
  if (!options.chain) {
    for (const auto& [given, name] : {std::pair{!n.input_path.empty(), "--network-input"},
                                      {!n.weights_path.empty(), "--network-weights"},
                                      {!n.output_directory.empty(), "--outputs"}, {n.all_tensors, "--all-tensors"},
                                      {!n.fault.empty(), "--fault"}, {!options.report_path.empty(), "--report"},
                                      {options.references_only, "--references-only"},
                                      {options.no_fusion, "--no-fusion"},
                                      {!n.calibration_path.empty(), "--calibration-inputs"}})
      if (given) throw CLI::ValidationError(name, "a chained run's option: with --chain (or `maeri run`) only");
    return;
  }
  if (n.all_tensors && n.output_directory.empty())
    throw CLI::ValidationError("--all-tensors", "chooses what --outputs writes: give --outputs DIR too");
  const testbench::NetworkVerificationOptions& v = options.verification;
  for (const auto& [given, name] : {std::pair{!v.input_path.empty(), "--input"}, {!v.weights_path.empty(), "--weights"},
                                    {!v.expected_path.empty(), "--expected"}, {!v.output_npy_path.empty(), "--output"},
                                    {!options.plan.layer.empty(), "--layer"}, {!v.csv_path.empty(), "--csv"},
                                    {!v.trace_path.empty(), "--trace"}, {options.plan.top != 1, "--top"}})
    if (given) throw CLI::ValidationError(name, "one layer's option: not with a chained run (--chain, `maeri run`)");
}

void add_chain_options(CLI::App* command, VerifyCommandLine& options) {
  command->add_option("--network-input", options.network.input_path,
                      "with --chain: the network's input as real values, FILE.npy or FILE.npz[:MEMBER] "
                      "(default: seeded U(-1, 1))");
  command->add_option("--network-weights", options.network.weights_path,
                      "with --chain: real weights and biases, an .npz whose members are named by the weight and bias "
                      "tensors (default: an ONNX model's initializers, else seeded)");
  command->add_option("--outputs", options.network.output_directory,
                      "with --chain: write the network's outputs into this directory as <tensor>.npy (integers) "
                      "and <tensor>.real.npy");
  command->add_flag("--all-tensors", options.network.all_tensors, "with --outputs: every tensor, not only the outputs");
  command->add_flag("--no-fusion", options.no_fusion,
                    "with --chain: every layer runs alone (as `maeri map --no-fusion` decides), not in the fused "
                    "groups `maeri map` or the mapping file decides");
  command->add_option("--report", options.report_path,
                      "with --chain: write one self-contained HTML page of the run (the network and its fused groups, "
                      "each layer's mapping drawn on the fabric, model vs RTL, where the cycles go; docs/report.md)");
  command->add_option("--calibration-inputs", options.network.calibration_path,
                      "with --chain: activation scales from this calibration set, FILE.npz (each member one sample of "
                      "the network input) or a directory of .npy files, instead of the run's own input "
                      "(docs/quantization.md, \"Calibration set\")");
  command->add_flag("--references-only", options.references_only,
                    "with --chain: only quantize and compute the integer and float references (what --outputs and "
                    "--json write), no mapping or co-simulation");
  command->add_option("--fault", options.network.fault,
                      "with --chain, to check the checker: flip one bit, weight:LAYER:INDEX:BIT (as the fabric "
                      "receives it) or unit:OPERATOR:INDEX:BIT (as the unit writes it)");
}

void add_common_options(CLI::App* command, VerifyCommandLine& options) {
  command->add_option("--layer", options.plan.layer, "only this layer");
  command->add_option("--seed", options.verification.seed, "seed of the random input and weight tensors")->capture_default_str();
  command->add_option("--json", options.verification.json_path, "write the results and cross-check as JSON");
  command->add_option("--csv", options.verification.csv_path, "write the cross-check rows as CSV");
  command->add_option("--trace", options.verification.trace_path, "write a VCD of the whole fabric (view with gtkwave)");
  command
      ->add_option("--memory", options.memory,
                   "co-simulate with ideal memory (compute cycles), with the SDM/DRAM models, or both")
      ->check(CLI::IsMember({"ideal", "dram", "both"}))
      ->capture_default_str();
  command->add_option("--jobs,-j", options.jobs,
                      "co-simulate this many shards at once, each in its own process; with --chain on one rank and "
                      "no --shards, this many layers at once, each whole in a worker process (the same report as one "
                      "process's)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  command->add_option("--shards", options.verification.shards,
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
  auto options = std::make_shared<VerifyCommandLine>();
  CLI::App* command = app.add_subcommand(
      "verify", "Map, build the image, co-simulate it on the Verilated RTL, check bit-exactly, cross-check the model");
  // Input files are checked by their loaders (exit 2 with the OS's reason), not by CLI11 (exit 1).
  command->add_option("--hardware", options->verification.hardware_path, "hardware spec (YAML)")->required();
  auto* workload = command->add_option("--workload", options->plan.workload_path, "workload spec (YAML) or ONNX model (.onnx)");
  add_model_input_options(command, options->model_inputs);
  auto* manifest = command->add_option("--manifest", options->manifest_path,
                                       "network manifest written by `maeri codegen`: verify its images");
  manifest->excludes(workload);
  auto* mapping =
      command->add_option("--mapping", options->plan.mapping_path, "use the tiles of this mapping file");
  mapping->excludes(manifest);
  command->add_option("--top", options->plan.top, "verify the best K mappings of each layer")
      ->capture_default_str()
      ->check(CLI::Range(1, 100))
      ->excludes(mapping)
      ->excludes(manifest);
  add_common_options(command, *options);
  // NumPy files (docs/cosim.md, "Tensors from NumPy files"), checked by their reader (exit 2 naming the field).
  command->add_option("--input", options->verification.input_path,
                      "input tensor [N][C][X][Y] of the layer: FILE.npy, FILE.npz or FILE.npz:MEMBER (integers)");
  command->add_option("--weights", options->verification.weights_path,
                      "weight tensor [K][C/groups][R][S]: FILE.npy, FILE.npz (member: the layer's name) or "
                      "FILE.npz:MEMBER");
  command->add_option("--expected", options->verification.expected_path,
                      "check the output against this [N][K][X'][Y'] tensor (.npy/.npz) instead of the reference "
                      "convolution");
  command->add_option("--output", options->verification.output_npy_path,
                      "write the RTL's output tensor [N][K][X'][Y'] as .npy (acc_width integers)");
  command->footer("Example:\n  maeri verify --hardware configs/hardware/maeri-64.yaml --workload configs/workloads/tiny.yaml\n"
                  "  maeri verify --hardware configs/hardware/maeri-256.yaml --manifest images/vgg16.manifest.json "
                  "--jobs 2\n"
                  "  maeri verify --hardware configs/hardware/maeri-64.yaml --workload configs/workloads/tiny.yaml "
                  "--layer conv1 --input x.npy --weights w.npz --output y.npy\n"
                  "  mpirun -np 4 maeri verify --hardware configs/hardware/maeri-256.yaml --workload "
                  "configs/workloads/vgg16.yaml --json vgg16.json   (docs/scale-out.md)");
  auto* chain = command->add_flag("--chain", options->chain,
                                   "run the whole network end to end: each layer on the RTL reads the tensor the "
                                   "layers and operators before it produced, every tensor checked against the "
                                   "integer reference (docs/cosim.md, \"Chained network runs\")");
  chain->excludes(manifest);
  add_chain_options(command, *options);
  command->callback([options, &action, workload, manifest] {
    if (workload->count() == 0 && manifest->count() == 0) throw CLI::RequiredError("one of --workload or --manifest");
    check_chain_options(*options);
    action = [options] { return options->chain ? run_chain(*options) : run_verify(*options); };
  });
}

// The default example of `maeri run` (README quick start), among the shipped configs.
const char* const kRunHardware = "hardware/maeri-64.yaml";
const char* const kRunWorkload = "workloads/tiny.yaml";

void add_run_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<VerifyCommandLine>();
  CLI::App* command = app.add_subcommand(
      "run", "The main job on the default example: the `tiny` network on maeri-64, chained end to end — each "
             "layer's best mapping and image co-simulated on the tensor the operators before it produced, the "
             "post-processing unit between layers, every tensor bit-exact against the integer reference, and the "
             "model-vs-RTL cross-check");
  command->add_option("--hardware", options->verification.hardware_path,
                      "hardware spec (YAML; default " + shipped_config_label(kRunHardware) + ")");
  command->add_option("--workload", options->plan.workload_path,
                      "workload spec (YAML; default " + shipped_config_label(kRunWorkload) + ")");
  add_common_options(command, *options);
  add_chain_options(command, *options);
  command->add_flag("--per-layer", options->per_layer,
                    "verify each layer alone on seeded tensors (as `maeri verify` without --chain) instead of the "
                    "chained run");
  command->callback([options, &action] {
    options->chain = !options->per_layer;
    options->report_title = "maeri run";
    check_chain_options(*options);
    action = [options] {
      // Resolved when the command runs, so a missing installation only fails the command that needs it.
      testbench::NetworkVerificationOptions& verification = options->verification;
      if (verification.hardware_path.empty()) verification.hardware_path = shipped_config(kRunHardware);
      if (options->plan.workload_path.empty()) options->plan.workload_path = shipped_config(kRunWorkload);
      return options->chain ? run_chain(*options) : run_verify(*options);
    };
  });
}

}  // namespace maeri::cli
