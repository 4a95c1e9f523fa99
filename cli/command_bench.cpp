// `maeri bench`: performance figures of the toolkit: the mapper (mappings searched per second on VGG16's 3x3 conv
// layers at 256/512/1024 multiplier switches, one thread and all threads: the model's own speed (every tile costed,
// by the estimates) over the pruned and the raw space, the search `maeri map` runs (exact traffic, the cycle bound
// skipping tiles that cannot win), and the two-level (joint) space's SDM-level stage); with --exact, the exact
// model's mappings per second (cycles with DRAM equal to the co-simulation, timing::exact_layer_timing) beside the
// fluid estimate's (mapper::evaluate) on the same mappings.
#include <fmt/format.h>

#include <tbb/info.h>

#include <algorithm>
#include <ctime>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "cli/shipped_configs.hpp"
#include "importer/network_loader.hpp"
#include "codegen/exact_traffic.hpp"
#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/exact_timing.hpp"

namespace maeri::cli {
namespace {

struct BenchOptions {
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string hardware;
  int repeats = 5;
  bool exact = false;       // --exact: the exact model against the fluid estimate instead of the mapper
  std::vector<std::string> layers;  // --layers (with --exact): these layers only
  int mappings = 2;         // --mappings: each layer's top mappings timed
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

// CPU seconds of the calling thread (the search's worker threads are not timed; both models run on this one).
double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

// Repeats `cost` on every mapping until `minimum` CPU seconds have passed; mappings per CPU second.
template <class Cost>
double rate_of(const std::vector<contracts::CostReport>& mappings, double minimum, Cost cost) {
  const double start = thread_seconds();
  std::uint64_t costed = 0;
  do {
    for (const contracts::CostReport& report : mappings) cost(report.mapping);
    costed += mappings.size();
  } while (thread_seconds() - start < minimum);
  return double(costed) / (thread_seconds() - start);
}

// The bench layer of the RTL benchmark (tests/rtl/bench_fabric.cpp: 3x3 conv, C = K = 32, 28x28, padding 1).
contracts::Layer rtl_bench_layer() {
  contracts::Layer layer;
  layer.name = "rtl_bench_conv3x3";
  layer.K = layer.C = 32;
  layer.R = layer.S = 3;
  layer.X = layer.Y = 28;
  layer.padding_x = layer.padding_y = 1;
  return layer;
}

// Per layer: its top mappings by `maeri map`'s search, each costed by the fluid estimate and by the exact model;
// mappings per CPU second of each, and what the exact model takes per mapping.
int run_exact_bench(const BenchOptions& options) {
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  std::vector<contracts::Layer> layers;
  if (options.layers.empty()) layers.push_back(rtl_bench_layer());
  for (const contracts::Layer& layer : network.layers)
    if (options.layers.empty() || std::find(options.layers.begin(), options.layers.end(), layer.name) != options.layers.end())
      layers.push_back(layer);
  for (const std::string& name : options.layers)
    if (std::none_of(layers.begin(), layers.end(), [&](const contracts::Layer& layer) { return layer.name == name; }))
      throw util::InputError({options.workload, 0, 0}, "layers", "no layer named '" + name + "'");
  fmt::print("exact model benchmark: '{}' on '{}' ({} MS), the top {} mappings of each layer by `maeri map`'s search\n",
             network.name, hardware.name, hardware.num_ms, options.mappings);
  fmt::print("{:<24} {:>8} {:>12} {:>16} {:>16} {:>14} {:>10}\n", "layer", "mappings", "exact cycles",
             "fluid mapping/s", "exact mapping/s", "exact s/mapping", "fluid/exact");
  double fluid_total = 0, exact_total = 0;
  std::size_t timed = 0;
  for (const contracts::Layer& layer : layers) {
    const mapper::SearchOptions search = mapper::map_search_options(mapper::Objective::Runtime, options.mappings,
                                                                    codegen::exact_traffic_for(layer, hardware));
    const std::vector<contracts::CostReport> best = mapper::search(layer, hardware, search).best;
    if (best.empty()) continue;
    double cycles = 0;
    const double fluid = rate_of(best, 0.02, [&](const contracts::Mapping& mapping) {
      cycles += mapper::evaluate(layer, hardware, mapping).cycles.total;
    });
    const double exact = rate_of(best, 0.0, [&](const contracts::Mapping& mapping) {
      cycles = timing::exact_layer_timing(layer, hardware, mapping).cycles;
    });
    fmt::print("{:<24} {:>8} {:>12.0f} {:>16.0f} {:>16.1f} {:>14.5f} {:>10.0f}\n", layer.name, best.size(), cycles,
               fluid, exact, 1 / exact, fluid / exact);
    fluid_total += double(best.size()) / fluid;
    exact_total += double(best.size()) / exact;
    timed += best.size();
  }
  fmt::print("{:<24} {:>8} {:>12} {:>16.0f} {:>16.1f} {:>14.5f} {:>10.0f}\n", "all", timed, "",
             double(timed) / fluid_total, double(timed) / exact_total, exact_total / double(timed),
             exact_total / fluid_total);
  return kExitOk;
}

}  // namespace

// The benchmark's defaults, among the shipped configs.
const char* const kBenchWorkload = "workloads/vgg16.yaml";
const char* const kBenchHardware = "hardware/maeri-512.yaml";
// --exact: real-size layers at 256 MS (issue 45's measurements).
const char* const kExactBenchWorkload = "workloads/mobilenetv2.yaml";
const char* const kExactBenchHardware = "hardware/maeri-256.yaml";

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
  command->add_flag("--exact", options->exact,
                    "the exact model's mappings per second (cycles with DRAM equal to the co-simulation) beside the "
                    "fluid estimate's, on the RTL bench layer and every layer of the workload (default " +
                        shipped_config_label(kExactBenchWorkload) + " on " + shipped_config_label(kExactBenchHardware) +
                        ")");
  command->add_option("--layers", options->layers, "with --exact: only these layers of the workload")->delimiter(',');
  command->add_option("--mappings", options->mappings, "with --exact: each layer's top mappings timed")
      ->check(CLI::Range(1, 64));
  command->footer("Example: maeri bench --workload configs/workloads/vgg16.yaml\n"
                  "         maeri bench --exact --layers block3_depthwise,block7_depthwise");
  command->callback([options, &action] {
    action = [options] {
      if (options->workload.empty())
        options->workload = shipped_config(options->exact ? kExactBenchWorkload : kBenchWorkload);
      if (options->hardware.empty())
        options->hardware = shipped_config(options->exact ? kExactBenchHardware : kBenchHardware);
      return options->exact ? run_exact_bench(*options) : run_bench(*options);
    };
  });
}

}  // namespace maeri::cli
