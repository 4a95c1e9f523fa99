// The chained run of a whole network (see network_run.hpp): tensors flow operator to operator through the fabric and
// the post-processing unit, each compared with the integer reference of the whole network.
#include "testbench/network_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>

#include "codegen/config_image.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/quantized_network.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/post_processing_model.hpp"
#include "sim/fabric_session.hpp"
#include "sim/post_processing_unit.hpp"
#include "testbench/cross_check.hpp"
#include "testbench/fused_run.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/network_verification.hpp"
#include "testbench/quantization.hpp"
#include "util/atomic_file.hpp"
#include "util/file_names.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

namespace maeri::testbench {
namespace {

using contracts::OperatorKind;

// --fault: which tensor element's bit to flip, and where (docs/cosim.md, "Checking the checker").
struct Fault {
  enum class Place { None, Weight, Unit } place = Place::None;
  std::string target;  // the layer (Weight) or the operator (Unit)
  std::int64_t index = 0;
  int bit = 0;
};

Fault parse_fault(const std::string& text, const contracts::Network& network, int data_width) {
  Fault fault;
  if (text.empty()) return fault;
  const auto bad = [&](const std::string& why) {
    return util::InputError({"--fault", 0, 0}, "", "'" + text + "': " + why +
                                                       " (expected weight:LAYER:INDEX:BIT or unit:OPERATOR:INDEX:BIT)");
  };
  std::vector<std::string> parts;
  for (std::size_t begin = 0;;) {
    const std::size_t colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon == std::string::npos ? std::string::npos : colon - begin));
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  if (parts.size() != 4) throw bad("four parts separated by ':'");
  if (parts[0] == "weight") fault.place = Fault::Place::Weight;
  else if (parts[0] == "unit") fault.place = Fault::Place::Unit;
  else throw bad("the place is 'weight' or 'unit'");
  fault.target = parts[1];
  try {
    std::size_t used = 0;
    fault.index = std::stoll(parts[2], &used);
    if (used != parts[2].size() || fault.index < 0) throw std::invalid_argument("index");
    fault.bit = std::stoi(parts[3], &used);
    if (used != parts[3].size() || fault.bit < 0 || fault.bit >= data_width) throw std::invalid_argument("bit");
  } catch (const std::exception&) {
    throw bad(fmt::format("INDEX is an element index ≥ 0 and BIT a bit below data_width {}", data_width));
  }
  bool found = false;
  for (const contracts::Operator& op : network.operators) {
    const bool fabric = op.kind == OperatorKind::FabricLayer;
    if (fault.place == Fault::Place::Weight && fabric && network.layers[op.layer].name == fault.target)
      found = fault.index < network.layers[op.layer].weight_elements();
    if (fault.place == Fault::Place::Unit && op.name == fault.target)
      found = fault.index < network.tensors[op.outputs[0]].elements();
  }
  if (!found) throw bad("no such layer or operator, or the index is past its tensor's end");
  return fault;
}

std::int64_t flip_bit(std::int64_t value, int bit, int width) {
  return contracts::wrap_signed(contracts::WideInt(value ^ (std::int64_t{1} << bit)), width);
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

// The real values of every network input, in network_inputs() order: from --network-input (an .npy for a network
// of one input; an .npz holds one member per input, named by the input tensor) or seeded U(−1, 1), each input from
// its own stream. A network has several inputs when the importer cut its graph at an operator the unit does not
// run (its consumers read a network input of its own): those tensors are then stimulus like the first input.
std::vector<std::vector<double>> network_input_values(const contracts::Network& network,
                                                      const std::vector<std::size_t>& inputs,
                                                      const NetworkRunOptions& options) {
  std::vector<std::vector<double>> values;
  if (!options.input_path.empty() && inputs.size() > 1) {
    const util::TensorSource source = util::tensor_source(options.input_path);
    if (!source.archive || !source.member.empty()) {
      std::vector<std::string> names;
      for (std::size_t t : inputs) names.push_back(network.tensors[t].name);
      throw util::InputError({options.input_path, 0, 0}, "inputs",
                             fmt::format("network {} has {} inputs ({}): give an .npz with one member per input, "
                                         "named by the input",
                                         network.name, inputs.size(), fmt::join(names, ", ")));
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const contracts::Tensor& tensor = network.tensors[inputs[i]];
    if (!options.input_path.empty()) {
      values.push_back(read_input(options.input_path, tensor, inputs.size() > 1));
      continue;
    }
    // Input 0 keeps the stream a one-input network always had, so its runs stay as they were.
    std::mt19937_64 generator((options.layers.seed + i * 0x632BE59BD9B4E019ULL) * 0x9E3779B97F4A7C15ULL + 17);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<double>& drawn = values.emplace_back(std::size_t(tensor.elements()));
    for (double& value : drawn) value = uniform(generator);
  }
  return values;
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

// PASS, or the first element that differs, named.
std::pair<bool, std::string> compare_tensor(const std::string& what, const contracts::Tensor& tensor,
                                            const std::vector<std::int64_t>& got,
                                            const std::vector<std::int64_t>& expected) {
  if (got.size() != expected.size())
    return {false, fmt::format("FAIL: {} '{}' has {} elements, the reference {}", what, tensor.name, got.size(),
                               expected.size())};
  std::int64_t differing = 0;
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i]) {
      ++differing;
      if (!first) first = i;
    }
  if (!first) return {true, fmt::format("PASS ({} elements of '{}' bit-exact)", got.size(), tensor.name)};
  return {false, fmt::format("FAIL: {} of {} elements of '{}' differ; first at element {} {}: {} {}, reference {}",
                             differing, got.size(), tensor.name, *first, element_text(std::int64_t(*first), tensor.shape),
                             what, got[*first], expected[*first])};
}

std::unique_ptr<sim::FabricSession> open_fabric_for(const contracts::Hardware& hardware, const std::string& path) {
  try {
    return sim::open_fabric(codegen::image_hardware_of(hardware), 100000, "");
  } catch (const std::invalid_argument& error) {
    throw util::InputError({path, 0, 0}, "", error.what());
  }
}

nlohmann::ordered_json rows_json(const std::vector<CrossCheckRow>& rows) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CrossCheckRow& row : rows)
    list.push_back({{"metric", row.metric},
                    {"model", row.model},
                    {"rtl", row.rtl},
                    {"error_percent", row.relative_error_defined() ? nlohmann::json(row.error_percent()) : nlohmann::json()}});
  return list;
}

void write_outputs(const NetworkRunOptions& options, const contracts::QuantizedNetwork& quantized,
                   const IntegerTensors& produced) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(options.output_directory, error);
  if (error) throw util::InputError({options.output_directory, 0, 0}, "", "cannot create the directory: " + error.message());
  const contracts::Network& network = quantized.network;
  std::vector<std::size_t> chosen = network.network_outputs();
  if (options.all_tensors) {
    chosen.clear();
    for (std::size_t t = 0; t < network.tensors.size(); ++t)
      if (!network.tensors[t].constant && !produced[t].empty()) chosen.push_back(t);
  }
  // Tensors the run did not reach (it stopped before) are not written.
  chosen.erase(std::remove_if(chosen.begin(), chosen.end(), [&](std::size_t t) { return produced[t].empty(); }),
               chosen.end());
  std::vector<std::string> names;
  for (std::size_t t : chosen) names.push_back(network.tensors[t].name);
  const std::vector<std::string> stems = util::unique_file_stems(names);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::size_t t = chosen[i];
    const contracts::Tensor& tensor = network.tensors[t];
    const std::string stem = (fs::path(options.output_directory) / stems[i]).string();
    util::write_npy_file(stem + ".npy", util::integer_array(util::smallest_signed_type(quantized.data_width),
                                                            tensor.shape, produced[t]));
    util::NpyArray reals;
    reals.type = util::NpyType::Float64;
    reals.shape = tensor.shape;
    reals.reals = dequantize_values(produced[t], quantized.tensors[t].scale);
    util::write_npy_file(stem + ".real.npy", reals);
  }
}

// "member 2 of 3: input from the SDM, output kept in the SDM, 4 stripes, weights pinned".
std::string member_role_text(const FusedGroupPlan& group, std::size_t member) {
  const contracts::FusedRole& role = group.roles[member];
  std::vector<std::string> parts;
  if (role.input_in_sdm) parts.push_back("input from the SDM");
  if (role.output_in_sdm) parts.push_back("output kept in the SDM");
  parts.push_back(role.stripes == 1 ? std::string("1 stripe") : fmt::format("{} stripes", role.stripes));
  if (role.weights_pinned) parts.push_back("weights pinned");
  return fmt::format("member {} of {}: {}", member + 1, group.group.count, fmt::join(parts, ", "));
}

GroupRun group_run(const FusedGroupPlan& plan, const contracts::Network& network, std::vector<CrossCheckRow> rows) {
  GroupRun group;
  group.name = plan.name;
  group.stripes = plan.group.stripes;
  for (std::size_t i = 0; i < plan.group.count; ++i) {
    group.members.push_back(network.layers[plan.group.first + i].name);
    if (plan.roles[i].weights_pinned) group.pinned_weights.push_back(group.members.back());
  }
  group.pass = true;  // only a group whose every member passed is reported
  group.rows = std::move(rows);
  return group;
}

}  // namespace

NetworkRunResult run_network(const NetworkRunOptions& options, util::TaskRunner& runner,
                             const std::function<void(const NetworkRunResult&, const OperatorRun&)>& on_operator,
                             bool progress_bar,
                             const std::function<void(const NetworkRunResult&, const GroupRun&)>& on_group) {
  const bool root = runner.root();
  const contracts::Hardware hardware = contracts::load_hardware(options.layers.hardware_path);
  if (!options.layers.json_path.empty() && root) util::check_output_path(options.layers.json_path);

  contracts::Network network;
  NamedRealTensors given;
  if (importer::is_onnx_path(options.layers.workload_path)) {
    importer::OnnxImport imported = importer::import_onnx(options.layers.workload_path, options.layers.model_inputs);
    network = std::move(imported.network);
    given = std::move(imported.weights);
  } else {
    network = importer::load_network(options.layers.workload_path, options.layers.model_inputs);
  }
  if (const auto violation = contracts::network_violation(network))
    throw util::InputError({options.layers.workload_path, 0, 0}, "operators", *violation);
  const auto loaded_network = std::make_shared<const contracts::Network>(network);
  const std::vector<std::size_t> inputs = network.network_inputs();
  if (inputs.empty())
    throw util::InputError({options.layers.workload_path, 0, 0}, "inputs",
                           fmt::format("network {} has no input: nothing to chain", network.name));
  if (!options.weights_path.empty()) given = read_weights(options.weights_path, network);
  const Fault fault = parse_fault(options.fault, network, hardware.data_width);
  std::vector<FusedGroupPlan> groups;
  if (!options.layers.mapping_path.empty()) {
    const contracts::MappingFile file = contracts::load_mapping_file(options.layers.mapping_path);
    contracts::check_mapping_hardware(file, options.layers.mapping_path, hardware);
    groups = fused_group_plans(network, hardware, file, options.layers.mapping_path);
  }
  const auto group_of = [&](std::size_t layer) -> const FusedGroupPlan* {
    for (const FusedGroupPlan& group : groups)
      if (group.has_layer(layer)) return &group;
    return nullptr;
  };
  std::vector<std::vector<CrossCheckRow>> group_rows;  // of the current group's members that ran

  const std::vector<std::vector<double>> input = network_input_values(network, inputs, options);
  std::vector<RealLayerWeights> weights;
  contracts::QuantizedNetwork quantized;
  try {
    weights = complete_weights(network, given, options.layers.seed);
    QuantizationOptions quantization;
    quantization.data_width = hardware.data_width;
    quantization.acc_width = hardware.acc_width;
    quantized = quantize_network(network, weights, input, quantization);
  } catch (const std::invalid_argument& error) {
    throw util::InputError({options.weights_path.empty() ? options.layers.workload_path : options.weights_path, 0, 0},
                           "weights", error.what());
  }
  const auto integer_inputs = quantize_inputs(quantized, input);

  NetworkRunResult result;
  result.network = network.name;
  result.hardware = hardware.name;
  result.fabric = codegen::image_hardware_of(hardware).name;
  IntegerTensors expected, produced(network.tensors.size());
  if (root) {
    expected = integer_reference(quantized, integer_inputs);
    const RealTensors reals = float_reference(network, weights, input);
    std::vector<std::string> parts;
    for (const OutputQuantizationCost& cost : quantization_cost(quantized, expected, reals))
      parts.push_back(fmt::format("'{}': max |error| {:.3g}, cosine similarity {:.6f}, top-1 agrees {} of {}",
                                  network.tensors[cost.tensor].name, cost.max_abs_error, cost.cosine_similarity,
                                  cost.top1_agreements(), cost.top1_agrees.size()));
    result.quantization_summary = fmt::format("{}", fmt::join(parts, "; "));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) produced[inputs[i]] = integer_inputs[i];

  std::unique_ptr<sim::FabricSession> fabric;  // this process's, when it runs tasks itself
  // Runs unit jobs where the fabric runs: in this process, or (when the runner uses processes) in one child.
  const auto run_on_unit = [&](const std::vector<sim::PostProcessingJob>& jobs) {
    std::vector<sim::PostProcessingResult> results;
    if (runner.single_process()) {
      if (!fabric) fabric = open_fabric_for(hardware, options.layers.hardware_path);
      for (const sim::PostProcessingJob& job : jobs) results.push_back(fabric->post_process(job, hardware.post_processing));
      return results;
    }
    std::vector<std::string> outcomes(jobs.size());
    std::string failure;
    // One child per job would open a fabric per operator; the jobs of one stretch share a child.
    runner.run_in_processes(
        {0},
        [&](int) {
          auto child_fabric = open_fabric_for(hardware, options.layers.hardware_path);
          std::string all;
          for (const sim::PostProcessingJob& job : jobs) {
            const std::string bytes = result_bytes(child_fabric->post_process(job, hardware.post_processing));
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
    for (std::size_t j = 0; j < jobs.size(); ++j) results.push_back(result_of_bytes(outcomes[j], jobs[j].output_shape));
    return results;
  };

  // Rank 0: one operator's unit result checked and recorded; false when it differs from the reference.
  const auto record_unit = [&](std::size_t o, const char* where, sim::PostProcessingResult unit, double seconds) {
    const contracts::Operator& op = network.operators[o];
    const std::size_t out = op.outputs[0];
    if (fault.place == Fault::Place::Unit && fault.target == op.name &&
        std::size_t(fault.index) < unit.output.values.size())
      unit.output.values[size_t(fault.index)] =
          flip_bit(unit.output.values[size_t(fault.index)], fault.bit, quantized.data_width);
    OperatorRun run;
    run.name = op.name;
    run.where = where;
    const auto [pass, verdict] = compare_tensor("unit", network.tensors[out], unit.output.values, expected[out]);
    run.pass = pass;
    run.verdict = verdict;
    run.rows = post_processing_cross_check(mapper::evaluate_post_processing(network, o, hardware).counts, unit.counts,
                                           hardware);
    run.seconds = seconds;
    produced[out] = std::move(unit.output.values);
    result.operators.push_back(run);
    on_operator(result, result.operators.back());
    return pass;
  };

  std::vector<std::size_t> fabric_ops;
  for (std::size_t o = 0; o < network.operators.size(); ++o)
    if (network.operators[o].kind == OperatorKind::FabricLayer) fabric_ops.push_back(o);
  result.fabric_layers = fabric_ops.size();
  result.planned_runs = network.operators.size() + fabric_ops.size();  // each fabric layer has its epilogue

  bool failed = false;
  std::vector<std::size_t> pending_unit;  // operators beside the fabric waiting for the unit, in order
  const auto flush_unit = [&] {
    if (pending_unit.empty() || failed || !root) {
      pending_unit.clear();
      return;
    }
    // Jobs are made one stretch at a time: an operator's inputs are the tensors the unit produced before it, which
    // the unit does not give back until the stretch is done — so a stretch ends where an operator reads one.
    std::size_t begin = 0;
    while (begin < pending_unit.size() && !failed) {
      std::vector<sim::PostProcessingJob> jobs;
      std::vector<std::size_t> ops;
      for (std::size_t i = begin; i < pending_unit.size(); ++i) {
        const contracts::Operator& op = network.operators[pending_unit[i]];
        // Constants (a channel affine's scale and shift) are the job's parameters, not its inputs.
        const std::vector<std::size_t> activations(op.inputs.begin(),
                                                   op.inputs.begin() + std::ptrdiff_t(contracts::activation_inputs(op)));
        bool ready = true;
        for (std::size_t t : activations) ready &= !produced[t].empty();
        if (!ready) break;
        std::vector<sim::IntegerTensor> job_inputs;
        for (std::size_t t : activations) job_inputs.push_back({network.tensors[t].shape, produced[t]});
        jobs.push_back(sim::post_processing_job(quantized, pending_unit[i], std::move(job_inputs)));
        ops.push_back(pending_unit[i]);
      }
      if (jobs.empty())
        throw std::logic_error("operator '" + network.operators[pending_unit[begin]].name + "' reads a tensor no earlier operator produced");
      const auto start = std::chrono::steady_clock::now();
      std::vector<sim::PostProcessingResult> results = run_on_unit(jobs);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / double(jobs.size());
      for (std::size_t j = 0; j < ops.size() && !failed; ++j)
        failed = !record_unit(ops[j], "unit", std::move(results[j]), seconds);
      begin += ops.size();
    }
    pending_unit.clear();
  };

  for (std::size_t f = 0; f < fabric_ops.size(); ++f) {
    const std::size_t o = fabric_ops[f];
    // The unit's operators before this layer (in graph order) run first: this layer may read their outputs.
    for (std::size_t u = (f == 0 ? 0 : fabric_ops[f - 1] + 1); u < o; ++u) pending_unit.push_back(u);
    flush_unit();
    const contracts::Operator& op = network.operators[o];
    const contracts::Layer& layer = network.layers[op.layer];
    // Every rank needs the layer's input, which only rank 0 has; "S" tells the others to stop.
    const std::string message =
        runner.broadcast(root ? (failed ? std::string("S") : "C" + tensor_bytes(produced[op.inputs[0]])) : "");
    if (message.empty() || message[0] != 'C') break;
    codegen::LayerTensors tensors{tensor_of_bytes(message, 1), quantized.operators[o].weights};
    if (fault.place == Fault::Place::Weight && fault.target == layer.name)
      tensors.weights[size_t(fault.index)] =
          flip_bit(tensors.weights[size_t(fault.index)], fault.bit, quantized.data_width);
    std::vector<std::int64_t> accumulators_expected;
    if (root)
      accumulators_expected =
          integer_convolution(layer, tensors.input, quantized.operators[o].weights, quantized.acc_width);

    OperatorRun run;
    run.name = layer.name;
    run.where = "fabric";
    std::vector<std::int64_t> accumulators;
    const FusedGroupPlan* group = group_of(op.layer);
    if (group) {
      // A member of a fused group: its stripe pieces in its role (never cut into filter shards).
      const std::size_t member = op.layer - group->group.first;
      FusedMemberRun fused =
          run_fused_member(*group, member, network, tensors, hardware, options.layers.memory, runner, fabric,
                           [&] { return open_fabric_for(hardware, options.layers.hardware_path); });
      if (!root) continue;
      run.tile = fused.tile_text;
      run.group = group->name;
      run.role = member_role_text(*group, member);
      run.seconds = fused.seconds;
      if (!fused.errors.empty()) {
        run.verdict = "FAIL: " + fmt::format("{}", fmt::join(fused.errors, "; "));
        result.bad_input = true;
      } else {
        run.rows = fused.result.rows;
        accumulators = std::move(fused.result.ideal ? fused.result.ideal->output : fused.result.with_memory->output);
        group_rows.push_back(run.rows);
      }
    } else {
      NetworkVerificationOptions layer_options = options.layers;
      layer_options.loaded_network = loaded_network;
      layer_options.layer = layer.name;
      layer_options.json_path.clear();  // the chained run's JSON is written below
      NetworkVerification verification(layer_options, root);
      verification.adopt_fabric(std::move(fabric));
      verification.use_tensors(layer.name, std::move(tensors), accumulators_expected);
      verification.keep_output();
      verification.plan(runner);
      verification.run(
          runner,
          [&](const VerifiedRun& verified) {
            run.tile = verified.tile_text;
            if (!verified.merged) {
              run.verdict = "FAIL: " + fmt::format("{}", fmt::join(verified.errors, "; "));
              result.bad_input = true;
              return;
            }
            run.rows = verified.merged->result.rows;
            run.seconds = verified.merged->shard_seconds;
            run.shards = verified.merged->shards;
          },
          progress_bar);
      fabric = verification.release_fabric();
      if (!root) continue;
      accumulators = verification.output_tensor();
    }
    if (!result.bad_input) {
      contracts::Tensor accumulator_tensor = network.tensors[op.outputs[0]];
      accumulator_tensor.name = layer.name + " accumulators";
      std::tie(run.pass, run.verdict) = compare_tensor("RTL", accumulator_tensor, accumulators, accumulators_expected);
    }
    result.operators.push_back(run);
    on_operator(result, result.operators.back());
    if (!run.pass) {
      failed = true;
      continue;
    }
    if (group && op.layer + 1 == group->group.first + group->group.count) {
      result.groups.push_back(group_run(*group, network, sum_rows(group_rows)));
      group_rows.clear();
      if (on_group) on_group(result, result.groups.back());
    }
    // The layer's epilogue (bias, requantization) on the unit.
    const auto start = std::chrono::steady_clock::now();
    std::vector<sim::PostProcessingResult> epilogue = run_on_unit(
        {sim::post_processing_job(quantized, o, {{contracts::output_shape(layer), accumulators}})});
    failed = !record_unit(o, "epilogue", std::move(epilogue[0]),
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!failed) {
    for (std::size_t u = fabric_ops.empty() ? 0 : fabric_ops.back() + 1; u < network.operators.size(); ++u)
      pending_unit.push_back(u);
    flush_unit();
  }
  if (!root) return result;
  result.pass = !failed && !result.bad_input;
  for (const OperatorRun& run : result.operators) result.pass &= run.pass;
  if (!options.output_directory.empty()) write_outputs(options, quantized, produced);
  if (!options.layers.json_path.empty()) {
    nlohmann::ordered_json report = {{"network", result.network},
                                     {"hardware", result.hardware},
                                     {"result", result.pass ? "PASS" : "FAIL"},
                                     {"runs", result.operators.size()},
                                     {"planned_runs", result.planned_runs},
                                     {"quantization", result.quantization_summary}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const OperatorRun& run : result.operators) {
      nlohmann::ordered_json entry = {{"operator", run.name},
                                      {"where", run.where},
                                      {"tile", run.tile},
                                      {"result", run.pass ? "PASS" : "FAIL"},
                                      {"verdict", run.verdict},
                                      {"seconds", run.seconds},
                                      {"shards", run.shards},
                                      {"cross_check", rows_json(run.rows)}};
      if (!run.group.empty()) {
        entry["group"] = run.group;
        entry["role"] = run.role;
      }
      list.push_back(std::move(entry));
    }
    report["operators"] = std::move(list);
    if (!groups.empty()) {
      nlohmann::ordered_json group_list = nlohmann::ordered_json::array();
      for (const GroupRun& group : result.groups)
        group_list.push_back({{"group", group.name},
                              {"members", group.members},
                              {"stripes", group.stripes},
                              {"pinned_weights", group.pinned_weights},
                              {"result", group.pass ? "PASS" : "FAIL"},
                              {"cross_check", rows_json(group.rows)}});
      report["groups"] = std::move(group_list);
    }
    util::write_file_atomically(options.layers.json_path,
                                report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  return result;
}

}  // namespace maeri::testbench
