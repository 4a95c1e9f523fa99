// `maeri bench`: performance figures of the toolkit (for now the mapper: mappings searched per second on VGG16's
// 3x3 conv layers at 256/512/1024 multiplier switches, one thread and all threads: the model's own speed (every
// tile costed, by the estimates) over the pruned and the raw space, the search `maeri map` runs (exact traffic,
// the cycle bound skipping tiles that cannot win), and the two-level (joint) space's SDM-level stage).
#include <fmt/format.h>

#include <tbb/info.h>

#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "cli/shipped_configs.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct BenchOptions {
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string hardware;
  int repeats = 5;
};

// One search per layer, repeated; the figure is total mappings searched (costed, or ruled out by the cycle bound)
// / total wall time. `joint`: the two-level
// space's SDM-level stage alone (its mappings over its time), the SDM levels of up to 2·64 fabric tiles within a
// budget of 2^20 mappings per layer (docs/mapping.md).
double mappings_per_second(const std::vector<contracts::Layer>& layers, const contracts::Hardware& hardware, int threads,
                           int repeats, mapper::RuleSet rules, bool exact, bool joint, bool bound,
                           std::uint64_t& evaluated, std::uint64_t& costed) {
  double seconds = 0;
  evaluated = costed = 0;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (const auto& layer : layers) {
      mapper::SearchOptions search{mapper::Objective::Runtime, 1, threads, rules};
      if (exact) search.exact = codegen::exact_traffic_for(layer, hardware);
      search.joint.enabled = joint;
      search.bound = bound;
      search.joint.budget = std::uint64_t(1) << 20;
      search.joint.candidates = 64;
      const auto result = mapper::search(layer, hardware, search);
      seconds += joint ? result.joint_seconds : result.seconds;
      evaluated += joint ? result.joint_evaluated : result.evaluated;
      costed += joint ? result.joint_evaluated : result.evaluated - result.bounded;
    }
  }
  return static_cast<double>(evaluated) / seconds;
}

int run_bench(const BenchOptions& options) {
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  std::vector<contracts::Layer> layers;
  for (const auto& layer : network.layers) {
    if (layer.type == contracts::LayerType::Convolution && layer.R == 3 && layer.S == 3) layers.push_back(layer);
  }
  if (layers.empty()) {
    throw util::InputError({options.workload, 0, 0}, "layers", "no 3x3 convolution layers to benchmark");
  }
  const int all_threads = tbb::info::default_concurrency();
  fmt::print("mapper benchmark: {} 3x3 conv layers of '{}', {} repeats, objective runtime\n", layers.size(),
             network.name, options.repeats);
  fmt::print("{:>8} {:>26} {:>8} {:>14} {:>14} {:>12}\n", "num_ms", "space", "threads", "searched", "costed",
             "mappings/s");
  for (const std::int64_t num_ms : {256, 512, 1024}) {
    hardware.num_ms = num_ms;
    hardware.dn_bw = std::min<std::int64_t>(hardware.dn_bw, num_ms);
    hardware.rn_bw = std::min<std::int64_t>(hardware.rn_bw, num_ms);
    const struct {
      mapper::RuleSet rules;
      bool exact, joint, bound;
      const char* label;
    } settings[] = {{mapper::RuleSet::all(), false, false, false, "pruned (all rules)"},
                    {mapper::RuleSet(), false, false, false, "raw (unpruned)"},
                    {mapper::RuleSet(), true, false, true, "raw, exact, bound (map)"},
                    {mapper::RuleSet(), false, true, false, "two-level (SDM stage)"}};
    for (const auto& setting : settings) {
      for (const int threads : {1, all_threads}) {
        std::uint64_t evaluated = 0, costed = 0;
        const double rate = mappings_per_second(layers, hardware, threads, options.repeats, setting.rules,
                                                setting.exact, setting.joint, setting.bound, evaluated, costed);
        fmt::print("{:>8} {:>26} {:>8} {:>14} {:>14} {:>12.0f}\n", num_ms, setting.label, threads, evaluated, costed,
                   rate);
      }
    }
  }
  return kExitOk;
}

}  // namespace

// The benchmark's defaults, among the shipped configs.
const char* const kBenchWorkload = "workloads/vgg16.yaml";
const char* const kBenchHardware = "hardware/maeri-512.yaml";

void add_bench_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command = app.add_subcommand("bench", "Measure mapper throughput (mappings evaluated per second)");
  command->add_option("--workload", options->workload,
                      "workload whose 3x3 conv layers are searched (default " + shipped_config_label(kBenchWorkload) +
                          ")");
  add_model_input_options(command, options->model_inputs);
  command->add_option("--hardware", options->hardware,
                      "hardware spec, num_ms swept over 256/512/1024 (default " +
                          shipped_config_label(kBenchHardware) + ")");
  command->add_option("--repeats", options->repeats, "searches per layer and setting")->check(CLI::Range(1, 1000));
  command->footer("Example: maeri bench --workload configs/workloads/vgg16.yaml");
  command->callback([options, &action] {
    action = [options] {
      if (options->workload.empty()) options->workload = shipped_config(kBenchWorkload);
      if (options->hardware.empty()) options->hardware = shipped_config(kBenchHardware);
      return run_bench(*options);
    };
  });
}

}  // namespace maeri::cli
