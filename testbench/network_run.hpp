// A chained run of a whole network (`maeri verify --chain`, `maeri run`; docs/cosim.md, "Chained network runs"):
// the network's real weights (an .npz, an ONNX model's initializers, or seeded He-uniform ones) and real input (an
// .npy, or seeded) are quantized (testbench/quantization.hpp); then every operator runs in graph order where the
// hardware runs it — a fabric layer on the Verilated fabric (its best mapping's image, cut into shards over the
// runner's processes and MPI ranks, on the tensor the previous operators actually produced), its epilogue and every
// operator beside the fabric on the co-simulated post-processing unit — and every tensor is compared bit for bit with
// the integer reference of the whole network (testbench/network_reference.hpp). The run stops at the first tensor
// that differs and names the operator, the element and both values. Each fabric layer is cross-checked against the
// model like a single layer, each unit operation against the unit's model; the float reference says what
// quantization costs. The network's outputs (and, when asked, every tensor) are written as .npy. With a mapping
// file's fused groups each group's members run fused (testbench/fused_run.hpp), one after another.
//
// Four stages, each its own function: prepare (the loaded network's weights and input, quantized, and the
// references) → plan (by the caller, through flow/: contracts::NetworkPlan, each layer's mapping and image decided
// before anything runs) → execute (every operator on the RTL or the unit, one fabric session for the whole run) →
// report (the JSON and the tensors written; the console is the caller's, through on_operator and on_group).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/network_plan.hpp"
#include "contracts/quantized_network.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/float_computed_inputs.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/network_verification.hpp"
#include "testbench/quantization.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {

struct NetworkRunOptions {
  // The hardware's file, seed, memory runs, shards and the JSON path; each fabric layer runs with these.
  NetworkVerificationOptions layers;
  std::string workload_path;  // the network's file, named in messages
  // The network input as real values: "FILE.npy", "FILE.npz[:MEMBER]" (member: the input tensor's name), any
  // numeric dtype, the input tensor's exact shape; "" = seeded U(−1, 1).
  std::string input_path;
  // Real weights and biases by tensor name (members of an .npz); "" = an ONNX model's initializers, else seeded.
  std::string weights_path;
  // Where the importer cut an ONNX model's graph (flow::LoadedWorkload::cut_inputs): the network inputs a skipped
  // node's output became, each with "node NAME (OP): reason". With a plain .npy input such a tensor cannot come from
  // the real input, and the run names it instead of seeding it.
  std::map<std::string, std::string> cut_inputs;
  // The skipped nodes themselves (flow::LoadedWorkload::skipped): a cut input whose node the float reference
  // evaluates is computed from the run's input (testbench/float_computed_inputs.hpp), unless an .npz gives it.
  SkippedNodes skipped;
  // Scales from a calibration set instead of the run's own input: "FILE.npz" (every member one sample of the network
  // input) or a directory of .npy files (each one sample, in name order); "" = the run's input. One-input networks.
  std::string calibration_path;
  // "" = none: each network output as <tensor>.npy (integers), <tensor>.real.npy (those integers dequantized) and
  // <tensor>.float.npy (the float reference), with tensors.json naming each tensor's files, shape and scale
  std::string output_directory;
  bool all_tensors = false;      // with output_directory: every tensor, not only the outputs
  // Checks the checker: "weight:LAYER:INDEX:BIT" flips one bit of one weight as the fabric receives it (the
  // reference keeps the true weight); "unit:OPERATOR:INDEX:BIT" flips one bit of one element the unit writes.
  std::string fault;
};

// What one operator did, as rank 0 reports it.
struct OperatorRun {
  std::string name;
  std::string where;       // "fabric", "unit" (an operator beside the fabric), "epilogue" (a fabric layer's)
  std::string tile;        // fabric: the mapping's tile text
  bool pass = false;
  std::string verdict;     // "PASS (n elements bit-exact)" or the first difference
  std::int64_t compared = 0, differing = 0;  // elements compared with the reference, and how many differed
  std::vector<CrossCheckRow> rows;
  double seconds = 0;
  int shards = 1;          // fabric: the shards it ran in (cycles and energy are sums over them when more than one)
  // A member of a fused group (testbench/fused_run.hpp): the group's name and the member's role; its rows are sums
  // over its stripe pieces, every one exact.
  std::string group, role;
};

// A fused group once its last member ran: each row summed over the members.
struct GroupRun {
  std::string name;
  std::vector<std::string> members;
  std::int64_t stripes = 1;
  std::vector<std::string> pinned_weights;
  bool pass = false;
  std::vector<CrossCheckRow> rows;
};

struct NetworkRunResult {
  std::string network, hardware, fabric;
  std::vector<OperatorRun> operators;  // in the order they ran, up to the first failure
  std::vector<GroupRun> groups;        // the fused groups whose members all ran
  std::size_t planned_runs = 0;        // the network's operators and one epilogue per fabric layer
  std::size_t fabric_layers = 0;
  bool pass = false;
  bool bad_input = false;  // a layer could not run (its image, a shard that failed before a verdict)
  std::string quantization_summary;  // the float reference against the integer one, on the network's outputs
  std::vector<std::string> float_computed;  // PreparedNetwork::float_computed: inputs the float reference computed
  IntegerTensors tensors;            // rank 0: every tensor the run produced (empty: not reached, or freed)
  // --outputs --all-tensors: the run wrote each tensor's files as it made them (TensorFiles) and freed it after its
  // last reader, so `tensors` holds the network outputs only.
  bool tensors_written = false;
  // The execute stage's wall time, and how many child processes played its layers at once (1: one after another,
  // each layer perhaps in shards; more: `--jobs N` on one rank, each layer whole in its own process on the integer
  // reference's tensors, the results identical to one process's).
  double execute_seconds = 0;
  int layer_processes = 1;
  // The seconds spent building the fabric before the run (an instance neither prebuilt nor cached yet; docs/rtl.md,
  // "Fabrics built on demand"): time the run's own overhead does not include.
  std::optional<double> fabric_build_seconds;
};

// --fault: which tensor element's bit to flip, and where (docs/cosim.md, "Checking the checker").
struct InjectedFault {
  enum class Place { None, Weight, Unit } place = Place::None;
  std::string target;  // the layer (Weight) or the operator (Unit)
  std::int64_t index = 0;
  int bit = 0;
};

// The run's tensors before anything runs: the network's input, the weights (given, an ONNX model's, or seeded)
// quantized, and on rank 0 the integer reference of every tensor and what quantization costs against the float one.
struct PreparedNetwork {
  contracts::Hardware hardware;
  contracts::QuantizedNetwork quantized;  // with the network
  std::vector<std::size_t> inputs;        // the network's inputs (network_inputs())
  IntegerTensors integer_inputs;          // their values, quantized
  // Rank 0: the integer reference's network outputs (the run computes every other operator's expected output from
  // the tensors it produced: equal while every tensor before was bit-exact, and the run stops at the first that is
  // not), and the float reference's tensors --outputs writes (same inputs and weights; the outputs, or with
  // --all-tensors every tensor). The others are freed once checked for drift (tensor_lifetimes.hpp).
  IntegerTensors expected;
  RealTensors reals;
  std::string quantization_summary;       // rank 0: the float reference against the integer one, on the outputs
  // The network inputs computed by the float reference from the real input (a node the unit does not run), each
  // as "'TENSOR' (node NAME (OP))"; the report lists them.
  std::vector<std::string> float_computed;
  InjectedFault fault;
  const contracts::Network& network() const { return quantized.network; }
};

// Prepare: checks that the network can be chained, reads the given input and weights (`model_weights`: an ONNX
// model's initializers), quantizes. Every rank calls it with the same arguments. Throws util::InputError.
PreparedNetwork prepare_network_run(const contracts::Network& network, const contracts::Hardware& hardware,
                                    const NamedRealTensors& model_weights, const NetworkRunOptions& options, bool root);

using OperatorDone = std::function<void(const NetworkRunResult&, const OperatorRun&)>;
using GroupDone = std::function<void(const NetworkRunResult&, const GroupRun&)>;

// Execute: runs `plan` (made from prepared.network() and its hardware: one run per fabric layer, its fused groups)
// on every rank (each with the same arguments; rank 0 holds the tensors, compares and reports). With one rank,
// several jobs and no shard count (options.layers.shards == 0), the layers run at once in child processes, each
// whole from the integer reference's tensors, and report in graph order (testbench/layer_pipeline.cpp).
// on_operator is called on rank 0 as each operator finishes, on_group (if any) as each fused group finishes.
NetworkRunResult execute_network_run(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                                     const NetworkRunOptions& options, util::TaskRunner& runner,
                                     const OperatorDone& on_operator, bool progress_bar,
                                     const GroupDone& on_group = nullptr);

// Before anything runs (rank 0): refuses an --outputs folder the report could not be written to — a file, a folder
// this process may not write in (or create), a folder in the place of one of the files — naming it, rather than
// finding out after the whole co-simulation. Creates nothing.
void check_output_targets(const NetworkRunOptions& options, const contracts::Network& network);

// --outputs --all-tensors on rank 0: each tensor's files (as write_network_report names them) written when the run
// makes it, so that a chained run holds only the tensors a later operator reads. They go into a hidden folder in the
// output directory (.partial-<pid>); finish() moves them into the directory and writes tensors.json, which lists the
// tensors written, in the network's order. A run that throws before finish() leaves neither (the destructor removes
// the folder), so no tensor file is ever there without its index.
class TensorFiles {
 public:
  TensorFiles(const NetworkRunOptions& options, const PreparedNetwork& prepared);
  ~TensorFiles();
  TensorFiles(const TensorFiles&) = delete;
  TensorFiles& operator=(const TensorFiles&) = delete;
  void write(std::size_t tensor, const std::vector<std::int64_t>& values);
  void finish();

 private:
  const NetworkRunOptions& options_;
  const PreparedNetwork& prepared_;
  std::vector<std::string> stems_;  // of every tensor (constants' unused)
  std::vector<bool> written_;
  std::string staging_;  // the hidden folder the files wait in
};

// --references-only with --outputs --all-tensors: the integer reference of the whole network holding only what is
// live (tensor_lifetimes.hpp), each tensor written by `files` as it is made (then finish()); returns the network
// outputs, every other tensor empty — what a chained run holds, not every tensor at once.
IntegerTensors written_integer_reference(const PreparedNetwork& prepared, TensorFiles& files);

// Report, on rank 0: the tensors the run produced (output_directory; unless result.tensors_written) and the JSON
// (layers.json_path).
void write_network_report(const NetworkRunResult& result, const PreparedNetwork& prepared,
                          const contracts::NetworkPlan& plan, const NetworkRunOptions& options);

}  // namespace maeri::testbench
