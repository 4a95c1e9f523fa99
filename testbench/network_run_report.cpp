// The chained run's last stage (see network_run.hpp): the tensors it produced as .npy, and its JSON report.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "testbench/network_run.hpp"
#include "testbench/tensor_lifetimes.hpp"
#include "util/atomic_file.hpp"
#include "util/file_names.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

namespace maeri::testbench {
namespace {

nlohmann::ordered_json rows_json(const std::vector<CrossCheckRow>& rows) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CrossCheckRow& row : rows)
    list.push_back({{"metric", row.metric},
                    {"model", row.model},
                    {"rtl", row.rtl},
                    {"error_percent", row.relative_error_defined() ? nlohmann::json(row.error_percent()) : nlohmann::json()}});
  return list;
}

void write_real_npy(const std::string& path, const std::vector<std::int64_t>& shape, std::vector<double> values) {
  util::NpyArray reals;
  reals.type = util::NpyType::Float64;
  reals.shape = shape;
  reals.reals = std::move(values);
  util::write_npy_file(path, reals);
}

// The tensors --outputs writes: the network's outputs, or (--all-tensors) every tensor the run produced; those the
// run did not reach (it stopped before) are left out.
std::vector<std::size_t> tensors_to_write(const NetworkRunOptions& options, const contracts::Network& network,
                                          const IntegerTensors& produced) {
  std::vector<std::size_t> chosen = network.network_outputs();
  if (options.all_tensors) {
    chosen.clear();
    for (std::size_t t = 0; t < network.tensors.size(); ++t)
      if (!network.tensors[t].constant && !produced[t].empty()) chosen.push_back(t);
  }
  chosen.erase(std::remove_if(chosen.begin(), chosen.end(), [&](std::size_t t) { return produced[t].empty(); }),
               chosen.end());
  return chosen;
}

// The files of `chosen` (their stems) and the index, as write_outputs names them.
std::vector<std::string> output_file_names(const std::vector<std::string>& stems) {
  std::vector<std::string> files{"tensors.json"};
  for (const std::string& stem : stems)
    for (const char* suffix : {".npy", ".real.npy", ".float.npy"}) files.push_back(stem + suffix);
  return files;
}

// A tensor named "r.real" must not overwrite r's dequantized file: each stem claims all three of its files.
std::vector<std::string> output_stems(const contracts::Network& network, const std::vector<std::size_t>& chosen) {
  std::vector<std::string> names;
  for (std::size_t t : chosen) names.push_back(network.tensors[t].name);
  return util::unique_file_stems(names, {"", ".real", ".float"});
}

void create_output_directory(const NetworkRunOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(options.output_directory, error);
  if (error) throw util::InputError({options.output_directory, 0, 0}, "", "cannot create the directory: " + error.message());
}

// Tensor t as <stem>.npy (the run's integers), <stem>.real.npy (dequantized) and <stem>.float.npy (the float
// reference, when kept).
void write_tensor_files(const std::string& directory, const PreparedNetwork& prepared, std::size_t t,
                        const std::string& stem_name, const std::vector<std::int64_t>& values) {
  const contracts::QuantizedNetwork& quantized = prepared.quantized;
  const contracts::Tensor& tensor = quantized.network.tensors[t];
  const std::string stem = (std::filesystem::path(directory) / stem_name).string();
  util::write_npy_file(stem + ".npy", util::integer_array(util::smallest_signed_type(quantized.data_width),
                                                          tensor.shape, values));
  write_real_npy(stem + ".real.npy", tensor.shape, dequantize_values(values, quantized.tensors[t].scale));
  if (t < prepared.reals.size() && !prepared.reals[t].empty())
    write_real_npy(stem + ".float.npy", tensor.shape, prepared.reals[t]);
}

// tensors.json: per written tensor its name, file stem, shape, scale and role (input, output or intermediate), so
// that a reader (tests/oracle) finds a tensor by the name its model gives it.
void write_tensor_index(const NetworkRunOptions& options, const PreparedNetwork& prepared,
                        const std::vector<std::size_t>& chosen, const std::vector<std::string>& stems) {
  const contracts::QuantizedNetwork& quantized = prepared.quantized;
  const contracts::Network& network = quantized.network;
  const std::vector<std::size_t> inputs = network.network_inputs(), outputs = network.network_outputs();
  nlohmann::ordered_json index = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::size_t t = chosen[i];
    const contracts::Tensor& tensor = network.tensors[t];
    const bool input = std::count(inputs.begin(), inputs.end(), t) > 0;
    const bool output = std::count(outputs.begin(), outputs.end(), t) > 0;
    index.push_back({{"tensor", tensor.name},
                     {"file", stems[i]},
                     {"shape", tensor.shape},
                     {"scale", quantized.tensors[t].scale},
                     {"role", input ? "input" : output ? "output" : "intermediate"}});
  }
  util::write_file_atomically((std::filesystem::path(options.output_directory) / "tensors.json").string(),
                              index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// Each chosen tensor's files and tensors.json, at the end of a run.
void write_outputs(const NetworkRunOptions& options, const PreparedNetwork& prepared, const IntegerTensors& produced) {
  create_output_directory(options);
  const contracts::Network& network = prepared.network();
  const std::vector<std::size_t> chosen = tensors_to_write(options, network, produced);
  const std::vector<std::string> stems = output_stems(network, chosen);
  for (std::size_t i = 0; i < chosen.size(); ++i)
    write_tensor_files(options.output_directory, prepared, chosen[i], stems[i], produced[chosen[i]]);
  write_tensor_index(options, prepared, chosen, stems);
}


nlohmann::ordered_json operator_json(const OperatorRun& run) {
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
  return entry;
}

nlohmann::ordered_json group_json(const GroupRun& group) {
  return {{"group", group.name},
          {"members", group.members},
          {"stripes", group.stripes},
          {"pinned_weights", group.pinned_weights},
          {"result", group.pass ? "PASS" : "FAIL"},
          {"cross_check", rows_json(group.rows)}};
}

void write_json(const NetworkRunResult& result, const contracts::NetworkPlan& plan, const std::string& path) {
  nlohmann::ordered_json report = {{"network", result.network},
                                   {"hardware", result.hardware},
                                   {"result", result.pass ? "PASS" : "FAIL"},
                                   {"runs", result.operators.size()},
                                   {"planned_runs", result.planned_runs},
                                   {"quantization", result.quantization_summary}};
  if (!result.float_computed.empty()) report["computed_by_float_reference"] = result.float_computed;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const OperatorRun& run : result.operators) list.push_back(operator_json(run));
  report["operators"] = std::move(list);
  if (!plan.groups.empty()) {
    nlohmann::ordered_json group_list = nlohmann::ordered_json::array();
    for (const GroupRun& group : result.groups) group_list.push_back(group_json(group));
    report["groups"] = std::move(group_list);
  }
  util::write_file_atomically(path, report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace

void check_output_targets(const NetworkRunOptions& options, const contracts::Network& network) {
  namespace fs = std::filesystem;
  if (options.output_directory.empty()) return;
  const fs::path folder = options.output_directory;
  const auto refuse = [&](const std::string& why) {
    throw util::InputError({options.output_directory, 0, 0}, "--outputs", why);
  };
  std::error_code error;
  if (!fs::exists(folder, error)) {
    // Created when the run writes; until then the nearest existing folder above it must let us create it.
    fs::path above = fs::absolute(folder, error).parent_path();
    while (!above.empty() && !fs::exists(above, error) && above != above.root_path()) above = above.parent_path();
    if (!fs::is_directory(above, error) || access(above.c_str(), W_OK | X_OK) != 0)
      refuse("cannot be created: " + above.string() + " is not a folder this process may write in");
    return;
  }
  if (!fs::is_directory(folder, error)) refuse("exists and is not a folder");
  if (access(folder.c_str(), W_OK | X_OK) != 0) refuse("is not a folder this process may write in");
  // Every tensor the run may write (the outputs, or --all-tensors every tensor that is not a constant).
  std::vector<std::size_t> chosen = network.network_outputs();
  if (options.all_tensors) {
    chosen.clear();
    for (std::size_t t = 0; t < network.tensors.size(); ++t)
      if (!network.tensors[t].constant) chosen.push_back(t);
  }
  for (const std::string& file : output_file_names(output_stems(network, chosen)))
    if (fs::is_directory(folder / file, error))
      refuse("'" + file + "' in it is a folder: the run would find it only after co-simulating, unable to write");
}

// The stems of every tensor that is not a constant, as write_outputs names those a whole run produced.
TensorFiles::TensorFiles(const NetworkRunOptions& options, const PreparedNetwork& prepared)
    : options_(options), prepared_(prepared), stems_(prepared.network().tensors.size()),
      written_(prepared.network().tensors.size(), false) {
  const contracts::Network& network = prepared.network();
  std::vector<std::size_t> variables;
  for (std::size_t t = 0; t < network.tensors.size(); ++t)
    if (!network.tensors[t].constant) variables.push_back(t);
  const std::vector<std::string> stems = output_stems(network, variables);
  for (std::size_t i = 0; i < variables.size(); ++i) stems_[variables[i]] = stems[i];
  create_output_directory(options);
  staging_ = (std::filesystem::path(options.output_directory) / (".partial-" + std::to_string(::getpid()))).string();
  std::error_code error;
  std::filesystem::remove_all(staging_, error);
  std::filesystem::create_directory(staging_, error);
  if (error) throw util::InputError({staging_, 0, 0}, "--outputs", "cannot create the directory: " + error.message());
}

TensorFiles::~TensorFiles() {
  std::error_code error;
  std::filesystem::remove_all(staging_, error);  // a run that threw leaves no tensor without its tensors.json
}

void TensorFiles::write(std::size_t tensor, const std::vector<std::int64_t>& values) {
  if (prepared_.network().tensors[tensor].constant || values.empty() || written_[tensor]) return;
  write_tensor_files(staging_, prepared_, tensor, stems_[tensor], values);
  written_[tensor] = true;
}

void TensorFiles::finish() {
  namespace fs = std::filesystem;
  std::vector<std::size_t> chosen;
  std::vector<std::string> stems;
  for (std::size_t t = 0; t < written_.size(); ++t)
    if (written_[t]) {
      chosen.push_back(t);
      stems.push_back(stems_[t]);
      for (const char* suffix : {".npy", ".real.npy", ".float.npy"}) {
        const fs::path from = fs::path(staging_) / (stems_[t] + suffix);
        std::error_code error;
        if (!fs::exists(from, error)) continue;
        fs::rename(from, fs::path(options_.output_directory) / (stems_[t] + suffix), error);
        if (error) throw util::InputError({options_.output_directory, 0, 0}, "--outputs",
                                          "cannot move '" + stems_[t] + suffix + "' into it: " + error.message());
      }
    }
  write_tensor_index(options_, prepared_, chosen, stems);
}

IntegerTensors written_integer_reference(const PreparedNetwork& prepared, TensorFiles& files) {
  const contracts::QuantizedNetwork& quantized = prepared.quantized;
  const TensorLifetimes lifetimes(quantized.network);
  IntegerTensors tensors(quantized.network.tensors.size());
  for (std::size_t i = 0; i < prepared.inputs.size(); ++i) {
    tensors[prepared.inputs[i]] = prepared.integer_inputs[i];
    files.write(prepared.inputs[i], tensors[prepared.inputs[i]]);
  }
  for (std::size_t o = 0; o < quantized.network.operators.size(); ++o) {
    run_integer_operator(quantized, o, tensors);
    const std::size_t out = quantized.network.operators[o].outputs[0];
    files.write(out, tensors[out]);
    if (lifetimes.unread(out)) IntegerTensors::value_type().swap(tensors[out]);
    free_dead_inputs(lifetimes, o, tensors);
  }
  files.finish();
  return tensors;
}

void write_network_report(const NetworkRunResult& result, const PreparedNetwork& prepared,
                          const contracts::NetworkPlan& plan, const NetworkRunOptions& options) {
  if (!options.output_directory.empty() && !result.tensors_written) write_outputs(options, prepared, result.tensors);
  if (!options.layers.json_path.empty()) write_json(result, plan, options.layers.json_path);
}

}  // namespace maeri::testbench
