// The chained run's first stage (see network_run.hpp): the network checked for a chained run, its input and weights
// read or seeded, quantized, the integer and float references (the integer one kept for the outputs only: a run
// recomputes each operator's expected output from the tensors it produced), and what quantization costs.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <system_error>

#include "contracts/table_lookup.hpp"
#include "importer/network_loader.hpp"
#include "testbench/finite_values.hpp"
#include "testbench/network_run.hpp"
#include "testbench/quantization_drift.hpp"
#include "testbench/run_memory.hpp"
#include "testbench/tensor_lifetimes.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"
#include "util/input_file.hpp"

namespace maeri::testbench {
namespace {

using contracts::OperatorKind;

InjectedFault parse_fault(const std::string& text, const contracts::Network& network, int data_width) {
  InjectedFault fault;
  if (text.empty()) return fault;
  const auto bad = [&](const std::string& why) {
    return util::InputError({"--fault", 0, 0}, "", "'" + text + "': " + why +
                                                       " (expected weight:LAYER:INDEX:BIT or unit:OPERATOR:INDEX:BIT)");
  };
  // PLACE is before the first ':', INDEX and BIT after the last two: the name between may hold ':' itself.
  const std::size_t first = text.find(':'), last = text.rfind(':');
  const std::size_t middle = last == std::string::npos || last == 0 ? std::string::npos : text.rfind(':', last - 1);
  if (first == std::string::npos || middle == std::string::npos || middle <= first)
    throw bad("four parts separated by ':'");
  const std::string place = text.substr(0, first);
  if (place == "weight") fault.place = InjectedFault::Place::Weight;
  else if (place == "unit") fault.place = InjectedFault::Place::Unit;
  else throw bad("the place is 'weight' or 'unit'");
  fault.target = text.substr(first + 1, middle - first - 1);
  // Plain decimal digits only: from_chars takes no '+' and no spaces, which stoll would have skipped.
  const auto digits = [](const std::string& part, auto& value) {
    const auto [stop, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    return !part.empty() && part[0] != '-' && error == std::errc{} && stop == part.data() + part.size();
  };
  if (!digits(text.substr(middle + 1, last - middle - 1), fault.index) || !digits(text.substr(last + 1), fault.bit) ||
      fault.bit >= data_width)
    throw bad(fmt::format("INDEX is an element index ≥ 0 and BIT a bit below data_width {}, in decimal digits",
                          data_width));
  bool found = false;
  for (const contracts::Operator& op : network.operators) {
    const bool fabric = op.kind == OperatorKind::FabricLayer;
    if (fault.place == InjectedFault::Place::Weight && fabric && network.layers[op.layer].name == fault.target)
      found = fault.index < network.layers[op.layer].weight_elements();
    if (fault.place == InjectedFault::Place::Unit && op.name == fault.target)
      found = fault.index < network.tensors[op.outputs[0]].elements();
  }
  if (!found) throw bad("no such layer or operator, or the index is past its tensor's end");
  return fault;
}

std::vector<double> real_values(const util::NpyArray& array) {
  if (!array.reals.empty() || array.elements() == 0) return array.reals;
  return std::vector<double>(array.integers.begin(), array.integers.end());
}

// The given real weights: every member of the archive must name a constant tensor (a fabric layer's weights or bias,
// a channel affine's scale or shift).
NamedRealTensors read_weights(const std::string& path, const contracts::Network& network) {
  util::NpzArchive archive(path);
  NamedRealTensors weights;
  for (const std::string& name : archive.member_names()) {
    const contracts::Tensor* tensor = nullptr;
    for (const contracts::Tensor& t : network.tensors)
      if (t.name == name && t.constant) tensor = &t;
    if (!tensor)
      throw util::InputError({path, 0, 0}, name, "the member names no weight or bias tensor of network " + network.name);
    const util::NpyArray array = archive.member(name, util::NpyExpectation{tensor->shape, "tensor '" + name + "'"});
    weights[name] = real_values(array);
  }
  return weights;
}

// `several`: the network has more than one input, so an .npz's member is always the one named by the input.
std::vector<double> read_input(const std::string& text, const contracts::Tensor& input, bool several) {
  const util::TensorSource source = util::tensor_source(text);
  const util::NpyExpectation expected{input.shape, "the network input '" + input.name + "'"};
  util::NpyArray array;
  if (source.archive) {
    util::NpzArchive archive(source.path);
    std::string member = source.member;
    if (member.empty()) {
      const auto names = archive.member_names();
      member = names.size() == 1 && !several ? names[0] : input.name;
    }
    array = archive.member(member, expected);
  } else {
    array = util::read_npy_file(source.path, expected);
  }
  return real_values(array);
}

// A plain .npy for a network of several inputs: the one input that is not a cut of the graph reads it; every other
// input is named with the reason it cannot come from the real input (never seeded): the node the importer cut there,
// its operator and why, or that the toolkit's network reads the model's tensor in another order.
void check_single_input_file(const contracts::Network& network, const std::vector<std::size_t>& inputs,
                             const NetworkRunOptions& options) {
  std::vector<std::string> names, uncut, unreachable;
  if (inputs.size() == 1) return;
  for (std::size_t t : inputs) {
    const std::string& name = network.tensors[t].name;
    names.push_back(name);
    if (!options.cut_inputs.count(name)) uncut.push_back(name);
  }
  if (options.cut_inputs.empty() || uncut.size() != 1)
    throw util::InputError({options.input_path, 0, 0}, "inputs",
                           fmt::format("network {} has {} inputs ({}): give an .npz with one member per input, "
                                       "named by the input",
                                       network.name, inputs.size(), fmt::join(names, ", ")));
  for (std::size_t t : inputs) {
    const auto cut = options.cut_inputs.find(network.tensors[t].name);
    if (cut != options.cut_inputs.end())
      unreachable.push_back(fmt::format("'{}' from {}", cut->first, cut->second));
  }
  // A workload imported to YAML keeps where its graph was cut, not the ONNX nodes the float reference would evaluate.
  const std::string from_model = importer::is_onnx_path(options.workload_path)
                                     ? ""
                                     : " — or run the ONNX model this workload was imported from (--workload "
                                       "MODEL.onnx): its float reference computes such tensors from the real input "
                                       "where it can";
  throw util::InputError({options.input_path, 0, 0}, "inputs",
                         fmt::format("network {} reads '{}' from this file, but {} more tensor{} cannot be computed "
                                     "from it (the toolkit has no operator for {}): {}; give every one of them as a "
                                     "member of an .npz named by the tensor, beside '{}'{}",
                                     network.name, uncut[0], unreachable.size(), unreachable.size() == 1 ? "" : "s",
                                     unreachable.size() == 1 ? "it" : "them", fmt::join(unreachable, "; "), uncut[0],
                                     from_model));
}

// The real values of every network input, in network_inputs() order: from --network-input (an .npy for a network
// of one input; an .npz holds one member per input, named by the input tensor) or seeded U(−1, 1) (a lookup's
// indices: whole numbers inside its table), each input from
// its own stream. A network has several inputs when the importer cut its graph at an operator the unit does not
// run (its consumers read a network input of its own): with an .npz those tensors are given like the first input;
// with a plain .npy the run names them (check_single_input_file); seeded, they are stimulus like the first input.
// Those of `computed` (the float reference computes them from the other inputs: float_computed_inputs.hpp) are left
// empty unless an .npz gives them.
std::vector<std::vector<double>> network_input_values(const contracts::Network& network,
                                                      const std::vector<std::size_t>& inputs,
                                                      const std::map<std::size_t, std::string>& computed,
                                                      const NetworkRunOptions& options) {
  std::vector<std::vector<double>> values;
  std::vector<std::size_t> given;  // the inputs read or seeded
  std::vector<std::string> members;
  if (!options.input_path.empty() && util::tensor_source(options.input_path).archive &&
      util::tensor_source(options.input_path).member.empty())
    members = util::npz_member_names(util::tensor_source(options.input_path).path);
  for (std::size_t t : inputs)
    if (!computed.count(t) || std::count(members.begin(), members.end(), network.tensors[t].name) ||
        std::count(members.begin(), members.end(), network.tensors[t].name + ".npy"))
      given.push_back(t);
  if (!options.input_path.empty() && given.size() > 1) {
    const util::TensorSource source = util::tensor_source(options.input_path);
    if (!source.archive || !source.member.empty()) check_single_input_file(network, given, options);
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const contracts::Tensor& tensor = network.tensors[inputs[i]];
    if (!std::count(given.begin(), given.end(), inputs[i])) {
      values.emplace_back();
      continue;
    }
    if (!options.input_path.empty()) {
      values.push_back(read_input(options.input_path, tensor, given.size() > 1));
      continue;
    }
    // Input 0 keeps the stream a one-input network always had, so its runs stay as they were.
    std::mt19937_64 generator((options.layers.seed + i * 0x632BE59BD9B4E019ULL) * 0x9E3779B97F4A7C15ULL + 17);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<double>& drawn = values.emplace_back(std::size_t(tensor.elements()));
    // A lookup's indices are whole numbers inside its table: U{0, …, extent − 1}, from the same stream.
    const std::int64_t extent = contracts::index_extents(network)[inputs[i]];
    for (double& value : drawn)
      value = extent > 0 ? std::min(std::floor((uniform(generator) + 1) / 2 * double(extent)), double(extent - 1))
                         : uniform(generator);
  }
  return values;
}


// The inputs of `computed` that the run computes (`values` empty: no .npz member gave them), as the report lists them.
std::vector<std::string> computed_input_names(const contracts::Network& network, const std::vector<std::size_t>& inputs,
                                              const std::map<std::size_t, std::string>& computed,
                                              const std::vector<std::vector<double>>& values) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (values[i].empty() && computed.count(inputs[i]))
      names.push_back(fmt::format("'{}' ({})", network.tensors[inputs[i]].name, computed.at(inputs[i])));
  return names;
}

// --calibration-inputs: the samples of the network's one input, from an .npz (its members in order) or a directory
// of .npy files (in name order), each of the input's exact shape.
std::vector<std::vector<std::vector<double>>> calibration_samples(const std::string& path,
                                                                  const contracts::Network& network,
                                                                  const std::vector<std::size_t>& inputs) {
  namespace fs = std::filesystem;
  if (inputs.size() != 1)
    throw util::InputError({path, 0, 0}, "--calibration-inputs",
                           fmt::format("a calibration set holds samples of a network's one input; network {} has {}",
                                       network.name, inputs.size()));
  const contracts::Tensor& input = network.tensors[inputs[0]];
  const util::NpyExpectation expected{input.shape, "a calibration sample of the network input '" + input.name + "'"};
  std::vector<std::vector<std::vector<double>>> samples;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    std::vector<std::string> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, error))
      if (entry.path().extension() == ".npy") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      samples.push_back({real_values(util::read_npy_file(file, expected))});
      require_finite(samples.back()[0], input.shape, file, "--calibration-inputs", expected.needed_by);
    }
  } else {
    util::NpzArchive archive(path);
    for (const std::string& member : archive.member_names()) {
      samples.push_back({real_values(archive.member(member, expected))});
      require_finite(samples.back()[0], input.shape, path + ":" + util::shown_value(member), "--calibration-inputs",
                     expected.needed_by);
    }
  }
  if (samples.empty())
    throw util::InputError({path, 0, 0}, "--calibration-inputs", "no sample: expected .npy files or .npz members");
  return samples;
}

// The integer reference of the whole network on the run's input, operator by operator, holding only what is live
// (tensor_lifetimes.hpp): each tensor is checked for drift from the float reference (`reals`, every tensor) as it is
// made and freed after its last reader. `outputs` holds the network's outputs (every other tensor empty), `drifting`
// every tensor that drifts (in tensor order) — what integer_reference and drifting_tensors give on the whole
// network, without holding it — and `wrapped` the fabric layers whose sums wrapped at the accumulator on this input.
struct StreamedReference {
  IntegerTensors outputs;
  std::vector<TensorAgreement> drifting;
  std::vector<std::size_t> wrapped;
};

StreamedReference streamed_integer_reference(const contracts::QuantizedNetwork& quantized,
                                             const std::vector<std::size_t>& inputs,
                                             const IntegerTensors& integer_inputs, const RealTensors& reals) {
  const contracts::Network& network = quantized.network;
  const TensorLifetimes lifetimes(network);
  StreamedReference streamed;
  IntegerTensors& tensors = streamed.outputs;
  tensors.resize(network.tensors.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) tensors[inputs[i]] = integer_inputs[i];
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    std::int64_t largest_sum = 0;
    run_integer_operator(quantized, o, tensors, largest_sum);
    if (largest_sum > contracts::accumulator_limit(quantized.acc_width)) streamed.wrapped.push_back(o);
    const std::size_t out = network.operators[o].outputs[0];
    // drifting_tensors' rule on this one tensor (an operator's output is no network input)
    if (std::optional<TensorAgreement> drift = tensor_drift(quantized, out, tensors[out], reals[out]))
      streamed.drifting.push_back(*drift);
    if (lifetimes.unread(out)) IntegerTensors::value_type().swap(tensors[out]);
    free_dead_inputs(lifetimes, o, tensors);
  }
  std::sort(streamed.drifting.begin(), streamed.drifting.end(),
            [](const TensorAgreement& a, const TensorAgreement& b) { return a.tensor < b.tensor; });
  return streamed;
}

// What quantization costs on the network's outputs, in words (a one-element output as its error: the cosine of two
// single values says only whether their signs agree), and every tensor that drifts from the float reference
// (`drifting`).
std::string quantization_summary(const PreparedNetwork& prepared, const std::vector<TensorAgreement>& drifting,
                                 const std::string& workload_path) {
  const contracts::QuantizedNetwork& quantized = prepared.quantized;
  std::vector<std::string> parts;
  for (const OutputQuantizationCost& cost : quantization_cost(quantized, prepared.expected, prepared.reals)) {
    const std::size_t t = cost.tensor;
    // A cost that is not a number on a finite float reference compared nothing: never reported beside a PASS. (An
    // output that is −∞ by a table function's domain rule, log 0, has an infinite error by design.)
    const bool finite_reference = std::all_of(prepared.reals[t].begin(), prepared.reals[t].end(),
                                              [](double value) { return std::isfinite(value); });
    if (finite_reference && (!std::isfinite(cost.cosine_similarity) || !std::isfinite(cost.max_abs_error)))
      throw util::InputError({workload_path, 0, 0}, "operators",
                             fmt::format("the quantization cost of output '{}' is not a number (max |error| {}, "
                                         "cosine similarity {}): its float reference cannot be compared",
                                         util::shown_value(quantized.network.tensors[t].name), cost.max_abs_error,
                                         cost.cosine_similarity));
    if (quantized.network.tensors[t].elements() == 1) {
      parts.push_back(agreement_text(quantized, tensor_agreement(quantized, t, prepared.expected[t], prepared.reals[t])));
      continue;
    }
    parts.push_back(fmt::format("'{}': max |error| {:.3g}, cosine similarity {:.6f}, top-1 agrees {} of {}",
                                quantized.network.tensors[t].name, cost.max_abs_error, cost.cosine_similarity,
                                cost.top1_agreements(), cost.top1_agrees.size()));
  }
  std::string summary = fmt::format("{}", fmt::join(parts, "; "));
  if (drifting.empty()) return summary + "; no tensor drifts from the float reference";
  std::vector<std::string> names;
  for (const TensorAgreement& drift : drifting) names.push_back(agreement_text(quantized, drift));
  return fmt::format("{}; {} tensor{} drift from the float reference (cosine < {} or a channel off by more than {} of "
                     "its range and {} steps): {}",
                     summary, drifting.size(), drifting.size() == 1 ? "" : "s", kDriftCosine, kDriftChannelFraction,
                     kDriftChannelSteps, fmt::join(names, "; "));
}

// The float reference of the run's inputs; where their values cannot be computed with (a lookup's index outside its
// table, an index that is not a whole number), an error naming the input file (or the seeded workload) and why.
RealTensors checked_float_reference(const contracts::Network& network, const std::vector<RealLayerWeights>& weights,
                                    const std::vector<std::vector<double>>& input, const NetworkRunOptions& options) {
  try {
    return float_reference(network, weights, input);
  } catch (const std::invalid_argument& error) {
    throw util::InputError({options.input_path.empty() ? options.workload_path : options.input_path, 0, 0},
                           "--network-input", error.what());
  }
}

}  // namespace

PreparedNetwork prepare_network_run(const contracts::Network& network, const contracts::Hardware& hardware,
                                    const NamedRealTensors& model_weights, const NetworkRunOptions& options,
                                    bool root) {
  if (const auto violation = contracts::network_violation(network))
    throw util::InputError({options.workload_path, 0, 0}, "operators", *violation);
  require_chained_run_memory(network, options.workload_path);
  PreparedNetwork prepared;
  prepared.hardware = hardware;
  prepared.inputs = network.network_inputs();
  if (prepared.inputs.empty())
    throw util::InputError({options.workload_path, 0, 0}, "inputs",
                           fmt::format("network {} has no input: nothing to chain", network.name));
  const NamedRealTensors given = options.weights_path.empty() ? model_weights : read_weights(options.weights_path, network);
  prepared.fault = parse_fault(options.fault, network, hardware.data_width);
  if (root) check_output_targets(options, network);
  const std::map<std::size_t, std::string> computed = float_computed_inputs(network, options.skipped);
  std::vector<std::vector<double>> input = network_input_values(network, prepared.inputs, computed, options);
  for (std::size_t i = 0; i < input.size() && !options.input_path.empty(); ++i) {
    const contracts::Tensor& tensor = network.tensors[prepared.inputs[i]];
    if (!input[i].empty() || tensor.elements() == 0)
      require_finite(input[i], tensor.shape, options.input_path, "--network-input",
                     "the network input '" + util::shown_value(tensor.name) + "'");
  }
  std::vector<RealLayerWeights> weights;
  std::optional<StreamedReference> streamed;  // rank 0: the integer reference on the run's input, when quantizing made it
  try {
    weights = complete_weights(network, given, options.layers.seed);
    require_finite_weights(network, weights, options.weights_path.empty() ? options.workload_path : options.weights_path);
    prepared.float_computed = computed_input_names(network, prepared.inputs, computed, input);
    compute_float_inputs(network, weights, prepared.inputs, computed, options.skipped, options.workload_path, input);
    QuantizationOptions quantization;
    quantization.data_width = hardware.data_width;
    quantization.acc_width = hardware.acc_width;
    if (options.calibration_path.empty()) {
      // Calibrated on the run's input: its float reference is the run's, computed once, and on rank 0 the headroom
      // check on that input is the run's integer reference (the last candidate's is the quantized network's).
      prepared.reals = float_reference(network, weights, input);
      WrapCheck wrap_check;
      if (root)
        wrap_check = [&](const contracts::QuantizedNetwork& candidate) {
          require_finite_reference(network, prepared.reals, options.workload_path);
          streamed = streamed_integer_reference(candidate, prepared.inputs, quantize_inputs(candidate, input),
                                                prepared.reals);
          return streamed->wrapped;
        };
      prepared.quantized = quantize_network(network, weights, input, prepared.reals, quantization, wrap_check);
      if (!root) RealTensors().swap(prepared.reals);
    } else {
      const auto samples = calibration_samples(options.calibration_path, network, prepared.inputs);
      require_chained_run_memory(network, options.workload_path, samples.size());  // each sample's float reference
      prepared.quantized = quantize_network_calibrated(network, weights, samples, quantization);
    }
  } catch (const std::invalid_argument& error) {
    // Finite inputs and weights whose float reference overflows give scales no multiplier can express: that, not
    // the multiplier, is the reason to name (issue 43, item 5: a chain of 3,500 1×1 convs).
    if (!weights.empty()) require_finite_reference(network, checked_float_reference(network, weights, input, options),
                                                   options.workload_path);
    throw util::InputError({options.weights_path.empty() ? options.workload_path : options.weights_path, 0, 0},
                           "weights", error.what());
  }
  prepared.integer_inputs = quantize_inputs(prepared.quantized, input);
  if (root) {
    if (!options.calibration_path.empty()) prepared.reals = float_reference(network, weights, input);
    require_finite_reference(network, prepared.reals, options.workload_path);
    if (!streamed)
      streamed = streamed_integer_reference(prepared.quantized, prepared.inputs, prepared.integer_inputs, prepared.reals);
    prepared.expected = std::move(streamed->outputs);
    std::vector<std::string> wrapped;
    for (std::size_t o : streamed->wrapped) wrapped.push_back(network.operators[o].name);
    prepared.quantization_summary = quantization_summary(prepared, streamed->drifting, options.workload_path);
    if (!wrapped.empty())
      prepared.quantization_summary +=
          fmt::format("; the sums of {} layer{} wrapped at the {}-bit accumulator on this input, beyond what the "
                      "calibration inputs made them (docs/quantization.md, \"Accumulator headroom\"): {}",
                      wrapped.size(), wrapped.size() == 1 ? "" : "s", prepared.quantized.acc_width,
                      fmt::join(wrapped, ", "));
    if (!prepared.float_computed.empty())
      prepared.quantization_summary +=
          fmt::format("; {} tensor{} computed by the float reference from the real input (the unit does not run "
                      "their node): {}",
                      prepared.float_computed.size(), prepared.float_computed.size() == 1 ? "" : "s",
                      fmt::join(prepared.float_computed, ", "));
    // The float reference is written beside the tensors --outputs writes: keep only those.
    if (!(options.all_tensors && !options.output_directory.empty())) {
      const std::vector<std::size_t> outputs = network.network_outputs();
      for (std::size_t t = 0; t < prepared.reals.size(); ++t)
        if (std::count(outputs.begin(), outputs.end(), t) == 0) RealTensors::value_type().swap(prepared.reals[t]);
    }
  }
  return prepared;
}

}  // namespace maeri::testbench
