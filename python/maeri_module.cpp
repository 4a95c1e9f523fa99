// The `maeri` Python module: the toolkit's load, map, codegen, functional (golden-model) check and RTL co-simulation
// as functions returning dicts and lists (python/README.md). Thin: every result comes from the chain's libraries or,
// for the RTL, from `maeri verify` in a child process (python/rtl_run.hpp); reports are the JSON the CLI writes
// turned into Python objects.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "flow/exact_ranking.hpp"
#include "flow/layer_mappings.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/heuristic_mapper.hpp"
#include "mapper/model/report_json.hpp"
#include "python/rtl_run.hpp"
#include "util/input_error.hpp"
#include "contracts/spec_loader.hpp"

namespace py = pybind11;
using namespace maeri;

namespace {

py::object to_python(const nlohmann::json& json) { return py::module_::import("json").attr("loads")(json.dump()); }

py::dict layer_dict(const contracts::Layer& layer) {
  py::dict d;
  d["name"] = layer.name;
  d["type"] = contracts::to_string(layer.type);
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) d[field.name] = layer.*field.member;
  d["X_out"] = layer.output_x();
  d["Y_out"] = layer.output_y();
  d["macs"] = layer.macs();
  return d;
}

// The layers of `workload` (YAML or ONNX), or the one named `layer`.
std::vector<contracts::Layer> select(const contracts::Network& network, const std::string& workload,
                                const std::optional<std::string>& layer) {
  if (!layer) return network.layers;
  for (const contracts::Layer& candidate : network.layers)
    if (candidate.name == *layer) return {candidate};
  throw maeri::util::InputError({workload, 0, 0}, "layers", "the workload has no layer named '" + *layer + "'");
}

mapper::Objective objective_of(const std::string& text) {
  const auto objective = mapper::parse_objective(text);
  if (!objective) throw py::value_error("objective: expected runtime, energy or edp, found '" + text + "'");
  return *objective;
}

// The model's best tiles of one layer (exact traffic), best first.
std::vector<contracts::CostReport> best_tiles(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                         mapper::Objective objective, int top) {
  const mapper::SearchResult found = flow::best_mappings(layer, hardware, objective, top);
  if (found.best.empty()) throw maeri::util::InputError({hardware.name, 0, 0}, "layers." + layer.name, "no tile fits");
  return found.best;
}

// A model's input sizes from the keyword arguments input_shapes={"NAME": [d0, d1, …]} and batch=N, validated as
// the command line's --input-shape and --batch are (ValueError when wrong).
importer::ModelInputShapes model_inputs(const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
                                        std::int64_t batch) {
  importer::ModelInputShapes sizes;
  for (const auto& [name, dims] : input_shapes) {
    std::string text = name + "=";
    for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
    sizes.add(text);
  }
  if (batch < 0 || batch > contracts::kMaxBatch)
    throw std::invalid_argument("batch " + std::to_string(batch) + " is not in [1, " + std::to_string(contracts::kMaxBatch) + "]");
  sizes.batch = batch;
  return sizes;
}

py::dict load(const std::string& workload, const std::map<std::string, std::vector<std::int64_t>>& input_shapes,
              std::int64_t batch) {
  const contracts::Network network = importer::load_network(workload, model_inputs(input_shapes, batch));
  py::dict d;
  d["name"] = network.name;
  d["total_macs"] = network.total_macs();
  py::list layers;
  for (const contracts::Layer& layer : network.layers) layers.append(layer_dict(layer));
  d["layers"] = layers;
  return d;
}

// The exhaustive search, or (search = random, sa, ga, surrogate) `maeri map --search`'s heuristic one.
py::list map(const std::string& hardware_path, const std::string& workload, const std::string& objective, int top,
             const std::optional<std::string>& layer, const std::string& search, std::uint64_t budget, int runs,
             std::uint64_t seed, const std::string& warm_start, const std::optional<std::string>& model,
             const std::map<std::string, std::vector<std::int64_t>>& input_shapes, std::int64_t batch) {
  const contracts::Hardware hardware = contracts::load_hardware(hardware_path);
  const mapper::Objective goal = objective_of(objective);
  mapper::HeuristicMapper heuristic({search, budget, runs, seed, warm_start, model.value_or("")}, goal,
                                    mapper::map_search_options(goal, top, {}).joint.enabled, "maeri.map", "");
  py::list result;
  for (const contracts::Layer& each : select(importer::load_network(workload, model_inputs(input_shapes, batch)), workload, layer)) {
    py::dict entry;
    entry["layer"] = layer_dict(each);
    py::list best;
    std::vector<contracts::CostReport> reports;
    if (heuristic.heuristic()) {
      reports = flow::search_exactly(each, hardware, flow::map_options(each, hardware, goal, top), &heuristic).best;
      entry["search"] = heuristic.summary();
    } else {
      reports = best_tiles(each, hardware, goal, top);
    }
    for (const contracts::CostReport& report : reports) best.append(to_python(mapper::to_json(report)));
    entry["best"] = best;
    result.append(entry);
  }
  return result;
}

py::list codegen_images(const std::string& hardware_path, const std::string& workload, const std::string& objective,
                        const std::optional<std::string>& layer,
                        const std::map<std::string, std::vector<std::int64_t>>& input_shapes, std::int64_t batch) {
  const contracts::Hardware hardware = contracts::load_hardware(hardware_path);
  py::list result;
  for (const contracts::Layer& each : select(importer::load_network(workload, model_inputs(input_shapes, batch)), workload, layer)) {
    const contracts::Mapping tile = best_tiles(each, hardware, objective_of(objective), 1).front().mapping;
    const codegen::ConfigImage image = codegen::build_image(codegen::plan_layer(each, hardware, tile), hardware);
    const std::vector<std::uint8_t> bytes = codegen::encode_image(image);
    py::dict entry;
    entry["layer"] = each.name;
    entry["tile"] = contracts::to_compact_string(tile.tile);
    entry["configurations"] = image.configurations.size();
    entry["instructions"] = image.program.size();
    entry["image"] = py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    entry["disassembly"] = codegen::disassemble(image);
    result.append(entry);
  }
  return result;
}

// The image of the best tile decoded, expanded and executed by the functional (golden) model on seeded random
// tensors, against the reference convolution bit-exactly, and its activity counts against the model's.
py::list functional_check(const std::string& hardware_path, const std::string& workload, const std::string& objective,
                const std::optional<std::string>& layer, std::uint64_t seed,
                const std::map<std::string, std::vector<std::int64_t>>& input_shapes, std::int64_t batch) {
  const contracts::Hardware hardware = contracts::load_hardware(hardware_path);
  py::list result;
  for (const contracts::Layer& each : select(importer::load_network(workload, model_inputs(input_shapes, batch)), workload, layer)) {
    const contracts::CostReport model = best_tiles(each, hardware, objective_of(objective), 1).front();
    const codegen::LayerProgram program = codegen::expand_image(
        codegen::decode_image(codegen::encode_image(codegen::build_image(
                                  codegen::plan_layer(each, hardware, model.mapping), hardware)),
                              each.name),
        each.name);
    const codegen::LayerTensors tensors = codegen::random_tensors(each, hardware.data_width, seed);
    const codegen::FunctionalResult run = codegen::execute_layer(program, hardware, tensors);
    const bool bit_exact = run.output == codegen::reference_convolution(each, tensors, hardware.acc_width);
    const codegen::FunctionalActivity& a = run.activity;
    const contracts::ActivityCounts& c = model.counts;
    py::dict counts;  // count: (model, functional model), for every count both models count
    bool agree = true;
#define MAERI_COUNT_PAIR(name, label, meaning)      \
  counts[#name] = py::make_tuple(c.name, a.name); \
  agree = agree && c.name == a.name;
    MAERI_FABRIC_COUNTS(MAERI_COUNT_PAIR)
    MAERI_PROGRAM_COUNTS(MAERI_COUNT_PAIR)
#undef MAERI_COUNT_PAIR
    py::dict entry;
    entry["layer"] = each.name;
    entry["tile"] = contracts::to_compact_string(model.mapping.tile);
    entry["bit_exact"] = bit_exact;
    entry["outputs"] = run.output.size();
    entry["counts"] = counts;
    entry["model_agrees"] = agree;
    result.append(entry);
  }
  return result;
}

// Optional command-line options of `maeri verify`, in the order given: each (option, value) when the value is set.
void add_options(std::vector<std::string>& arguments,
                 const std::vector<std::pair<const char*, std::optional<std::string>>>& options) {
  for (const auto& [option, value] : options)
    if (value) arguments.insert(arguments.end(), {option, *value});
}

// `maeri verify` (the Verilated fabric co-simulated; `chain`: the whole network, as `maeri verify --chain`) in a
// child process: {"passed", "exit_code", "report"} with the report its --json writes. Bad input raises ValueError
// with maeri's message, a run that could not finish RuntimeError; a failed check is a result (passed False).
py::dict verify(const std::string& hardware, const std::string& workload, bool chain,
                const std::optional<std::string>& mapping, const std::string& memory, std::uint64_t seed,
                const std::optional<std::string>& layer, const std::optional<std::string>& network_input,
                const std::optional<std::string>& network_weights, const std::optional<std::string>& outputs,
                int jobs) {
  std::vector<std::string> arguments{"verify", "--hardware", hardware, "--workload", workload, "--memory", memory,
                                     "--seed", std::to_string(seed), "--jobs", std::to_string(jobs)};
  if (chain) arguments.push_back("--chain");
  add_options(arguments, {{"--mapping", mapping}, {"--layer", layer}, {"--network-input", network_input},
                          {"--network-weights", network_weights}, {"--outputs", outputs}});
  const std::string module_file = py::str(py::module_::import("maeri").attr("__file__"));
  python::RtlRun run;
  {
    py::gil_scoped_release unlocked;  // minutes of co-simulation: other Python threads go on
    run = python::run_maeri(python::maeri_executable(module_file), arguments);
  }
  if (run.exit_code == 1 || run.exit_code == 2) throw py::value_error(run.printed);
  if (run.exit_code != 0 && run.exit_code != 3)
    throw std::runtime_error("maeri verify ended with exit code " + std::to_string(run.exit_code) + ":\n" +
                             run.printed);
  py::dict result;
  result["passed"] = run.exit_code == 0;
  result["exit_code"] = run.exit_code;
  result["report"] = run.json.empty() ? py::object(py::none()) : to_python(nlohmann::json::parse(run.json));
  return result;
}

}  // namespace

PYBIND11_MODULE(maeri, module) {
  module.doc() = "MAERI toolkit: load workloads (YAML or ONNX), map, generate configuration images, check them on the "
                 "functional model and co-simulate them on the RTL";
  // Bad input is ValueError with the toolkit's positioned message.
  py::register_exception<maeri::util::InputError>(module, "maeri::util::InputError", PyExc_ValueError);
  module.def("load", &load, py::arg("workload"), py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{}, py::arg("batch") = 0,
             "A workload (YAML or .onnx) as a dict of its layers");
  module.def("map", &map, py::arg("hardware"), py::arg("workload"), py::arg("objective") = "runtime",
             py::arg("top") = 1, py::arg("layer") = py::none(), py::arg("search") = "exhaustive",
             py::arg("budget") = 1000, py::arg("runs") = 1, py::arg("seed") = 1, py::arg("warm_start") = "none",
             py::arg("model") = py::none(), py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{}, py::arg("batch") = 0,
             "Best mappings per layer, each the report `maeri map --json` writes: the exhaustive optimum, or a "
             "heuristic search (random, sa, ga, surrogate) of `budget` evaluations per run, as `maeri map --search`");
  module.def("codegen", &codegen_images, py::arg("hardware"), py::arg("workload"), py::arg("objective") = "runtime",
             py::arg("layer") = py::none(), py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{}, py::arg("batch") = 0,
             "The configuration image (bytes) of each layer's best tile");
  // Named for what it runs: the functional model, not the RTL (`maeri verify` co-simulates the Verilated fabric).
  module.def("functional_check", &functional_check, py::arg("hardware"), py::arg("workload"), py::arg("objective") = "runtime",
             py::arg("layer") = py::none(), py::arg("seed") = 1, py::arg("input_shapes") = std::map<std::string, std::vector<std::int64_t>>{}, py::arg("batch") = 0,
             "Each layer's image on the functional (golden) model: bit-exact against the reference, counts "
             "against the model (RTL co-simulation: verify)");
  module.def(
      "executable",
      [] { return python::maeri_executable(py::str(py::module_::import("maeri").attr("__file__"))); },
      "The maeri executable verify runs: $MAERI_EXECUTABLE, else the one installed beside the module, else the "
      "build tree's");
  module.def("verify", &verify, py::arg("hardware"), py::arg("workload"), py::arg("chain") = true,
             py::arg("mapping") = py::none(), py::arg("memory") = "both", py::arg("seed") = 1,
             py::arg("layer") = py::none(), py::arg("network_input") = py::none(),
             py::arg("network_weights") = py::none(), py::arg("outputs") = py::none(), py::arg("jobs") = 1,
             "The RTL co-simulation: `maeri verify` (chain=True: `--chain`, the whole network) in a child process; "
             "{'passed', 'exit_code', 'report'} with the report its --json writes (docs/cosim.md)");
}
