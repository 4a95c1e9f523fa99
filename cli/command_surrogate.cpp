// `maeri surrogate train | check`: trains the Mind Mappings-style surrogate on sampled mappings of the given
// workloads × hardware and writes its versioned model file; checks a model's error on other layers or hardware
// (its generalisation gap). docs/search.md, "Surrogate".
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/network_loader.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "util/atomic_file.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct SurrogateOptions {
  std::vector<std::string> hardware, workloads;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch: for every ONNX workload
  std::string objective = "edp";
  bool single_level = false;
  std::uint64_t samples = 1000;
  mapper::SurrogateTraining training;
  std::string model;
  std::string output = "surrogate.json";
};

struct Inputs {
  std::vector<contracts::Layer> layers;
  std::vector<contracts::Hardware> hardware;
  std::string description;
};

Inputs load_inputs(const SurrogateOptions& options) {
  Inputs inputs;
  for (const std::string& path : options.workloads) {
    const contracts::Network network = importer::load_network(path, options.model_inputs);
    inputs.layers.insert(inputs.layers.end(), network.layers.begin(), network.layers.end());
    inputs.description += (inputs.description.empty() ? "" : ", ") + network.name;
  }
  inputs.description += " on ";
  for (const std::string& path : options.hardware) {
    inputs.hardware.push_back(contracts::load_hardware(path));
    inputs.description += inputs.hardware.back().name + " ";
  }
  return inputs;
}

int run_train(const SurrogateOptions& options) {
  util::check_output_path(options.output);
  const Inputs inputs = load_inputs(options);
  const auto objective = *mapper::parse_objective(options.objective);
  const bool two_level = !options.single_level;
  const auto start = std::chrono::steady_clock::now();
  const mapper::SurrogateSamples samples = mapper::sample_surrogate_data(
      inputs.layers, inputs.hardware, objective, two_level, options.samples, options.training.seed);
  const double sampled = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  mapper::SurrogateModel model = mapper::SurrogateModel::train(samples, objective, two_level, options.training);
  const double trained = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - sampled;
  model.description = fmt::format("{} layers of {}; {} samples per layer and hardware, seed {}", inputs.layers.size(),
                                   inputs.description, options.samples, options.training.seed);
  const auto [mse, mae] = model.error(samples);
  model.save(options.output);
  fmt::print("surrogate for the {} space, objective {}: {} samples ({} layers x {} hardware) in {:.1f} s, trained in "
             "{:.1f} s; training error: mean |ln predicted - ln model| = {:.4f} ({:.1f} %), rms {:.4f}; rank correlation "
             "per layer and hardware {:.3f}\n"
             "model: {}\n",
             two_level ? "two-level" : "single-level", options.objective, samples.log_objective.size(),
             inputs.layers.size(), inputs.hardware.size(), sampled, trained, mae, 100 * (std::exp(mae) - 1),
             std::sqrt(mse), model.rank_correlation(samples), options.output);
  return kExitOk;
}

int run_check(const SurrogateOptions& options) {
  const mapper::SurrogateModel model = mapper::SurrogateModel::load(options.model);
  const Inputs inputs = load_inputs(options);
  const mapper::SurrogateSamples samples = mapper::sample_surrogate_data(
      inputs.layers, inputs.hardware, model.objective(), model.two_level(), options.samples, options.training.seed);
  const auto [mse, mae] = model.error(samples);
  fmt::print("model {} ({}): on {} samples of {}: mean |ln predicted - ln model| = {:.4f} ({:.1f} %), rms {:.4f}; "
             "rank correlation per layer and hardware {:.3f}\n",
             options.model, model.description, samples.log_objective.size(), inputs.description, mae,
             100 * (std::exp(mae) - 1), std::sqrt(mse), model.rank_correlation(samples));
  return kExitOk;
}

void add_inputs(CLI::App* command, SurrogateOptions& options) {
  command->add_option("--hardware", options.hardware, "hardware YAML (repeat for several)")->required();
  add_model_input_options(command, options.model_inputs);
  command->add_option("--workload", options.workloads, "workload YAML or ONNX model (repeat for several)")->required();
  command->add_option("--samples", options.samples, "mappings sampled per layer and hardware")
      ->check(CLI::Range(std::uint64_t(2), std::uint64_t(1) << 24))
      ->capture_default_str();
  command->add_option("--seed", options.training.seed, "seed of the sampling (and of the training)")->capture_default_str();
}

}  // namespace

void add_surrogate_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SurrogateOptions>();
  CLI::App* command = app.add_subcommand("surrogate", "Train or check the surrogate cost model of the surrogate search");
  command->require_subcommand(1);
  CLI::App* train = command->add_subcommand("train", "Train a surrogate on sampled mappings and write its model file");
  add_inputs(train, *options);
  train->add_option("--objective", options->objective, "runtime, energy or edp")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  train->add_flag("--single-level", options->single_level, "for the fabric-tile space only (no SDM level)");
  train->add_option("--epochs", options->training.epochs, "training epochs")->check(CLI::Range(1, 100000))->capture_default_str();
  train->add_option("--hidden", options->training.hidden, "width of the two hidden layers")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  train->add_option("-o,--output", options->output, "model file to write")->capture_default_str();
  train->footer("Example: maeri surrogate train --hardware configs/hardware/maeri-64.yaml --hardware configs/hardware/maeri-1024.yaml "
                "--workload configs/workloads/resnet50.yaml -o surrogate.json");
  train->callback([options, &action] { action = [options] { return run_train(*options); }; });
  CLI::App* check = command->add_subcommand("check", "Error of a model on sampled mappings of other layers or hardware");
  check->add_option("--model", options->model, "model file")->required();
  add_inputs(check, *options);
  check->callback([options, &action] { action = [options] { return run_check(*options); }; });
}

}  // namespace maeri::cli
