// `maeri explore`: measures the heuristic searches against the exhaustive optimum (docs/search.md, "Measuring the
// searches"): options and console report around flow::Exploration (flow/explore.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/layer_selection.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "importer/network_loader.hpp"
#include "flow/explore.hpp"
#include "util/atomic_file.hpp"
#include "util/input_file.hpp"
#include "util/progress_bar.hpp"
#include "util/sha256.hpp"

namespace maeri::cli {
namespace {

struct ExploreCommandLine {
  std::string hardware, workload, layer;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::vector<std::string> methods = {"random", "sa", "ga"};
  std::vector<std::string> budgets = {"100", "300", "1000", "3000", "10000"};
  int runs = 20;
  std::uint64_t seed = 1;
  std::string objective = "edp";
  bool single_level = false;
  std::uint64_t exhaustive_budget = std::uint64_t(1) << 40;
  std::string model;
  std::string warm_start = "none";
  bool pareto = false;
  int threads = 0;
  std::string output = "explore";
  std::string optimum_cache;
};

// CLI11 splits the lists at commas; empty items are skipped, as `--methods random,,sa` has always meant.
std::vector<std::string> nonempty(const std::vector<std::string>& items) {
  std::vector<std::string> kept;
  for (const std::string& item : items)
    if (!item.empty()) kept.push_back(item);
  return kept;
}

// The options of the exploration; the surrogate model, when a method needs it, is loaded into `model`.
flow::ExploreOptions explore_options(const ExploreCommandLine& line, std::optional<mapper::SurrogateModel>& model) {
  flow::ExploreOptions options;
  for (const std::string& name : nonempty(line.methods)) {
    const auto method = mapper::parse_search_method(name);
    if (!method || *method == mapper::SearchMethodKind::Exhaustive)
      throw command_line_error("--methods", "unknown method '" + name + "' (expected random, sa, ga or surrogate; "
                                            "the exhaustive optimum is always computed)");
    options.methods.push_back(*method);
  }
  for (const std::string& text : nonempty(line.budgets)) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || value == 0 || text[0] == '-')
      throw command_line_error("--budgets", "expected positive integers, found '" + text + "'");
    options.budgets.push_back(value);
  }
  if (options.methods.empty() || options.budgets.empty())
    throw command_line_error(options.methods.empty() ? "--methods" : "--budgets", "the list is empty");
  const auto warm_start = mapper::parse_warm_start(line.warm_start);
  if (!warm_start)
    throw command_line_error("--warm-start", "expected none, previous or similar, found '" + line.warm_start + "'");
  options.warm_start = *warm_start;
  options.objective = *mapper::parse_objective(line.objective);
  options.two_level = !line.single_level;
  const auto& methods = options.methods;
  if (std::find(methods.begin(), methods.end(), mapper::SearchMethodKind::Surrogate) != methods.end()) {
    if (line.model.empty())
      throw command_line_error("--model", "the surrogate method needs a model file (`maeri surrogate train`)");
    model = mapper::SurrogateModel::load(line.model);
    model->require_space(options.objective, options.two_level, line.model);
    options.surrogate = &*model;
  }
  options.runs = line.runs;
  options.seed = line.seed;
  options.exhaustive_budget = line.exhaustive_budget;
  options.pareto = line.pareto;
  options.threads = line.threads;
  options.optimum_cache = line.optimum_cache;
  return options;
}

void print_optimum(const contracts::Layer& layer, const flow::ExploreOptimum& found, const std::string& cache) {
  if (found.from_cache)
    fmt::print("\nlayer {}: exhaustive optimum {:.6g} (from {}{}), algorithmic minimum {:.6g} (optimum {:.2f}x it)\n",
               layer.name, found.optimum, cache, found.exhaustive ? "" : ", NOT exhaustive", found.minimum,
               found.optimum / found.minimum);
  else
    fmt::print("\nlayer {}: exhaustive optimum {:.6g} ({} mappings costed{}, {:.1f} s), algorithmic minimum {:.6g} "
               "(optimum {:.2f}x it)\n",
               layer.name, found.optimum, found.evaluations,
               found.exhaustive ? "" : ", NOT exhaustive: raise --exhaustive-budget", found.seconds, found.minimum,
               found.optimum / found.minimum);
}

void print_summaries(const std::vector<flow::ExploreSummary>& summaries) {
  fmt::print("  {:<10} {:>4} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10}\n", "method", "warm", "budget", "median", "q25",
             "q75", "to 99.5%", "speedup");
  for (const flow::ExploreSummary& s : summaries)
    fmt::print("  {:<10} {:>4} {:>7} {:>8.4f}x {:>8.4f}x {:>8.4f}x {:>10} {:>10}\n", mapper::to_string(s.method),
               s.warm ? "yes" : "no", s.budget, s.median, s.q25, s.q75,
               s.median_samples ? fmt::format("{:.0f}", *s.median_samples) : "",
               s.speedup > 0 ? fmt::format("{:.2f}x", s.speedup) : "");
}

int run_explore(const ExploreCommandLine& line) {
  const contracts::Hardware hardware = contracts::load_hardware(line.hardware);
  const contracts::Network network = importer::load_network(line.workload, line.model_inputs);
  const std::vector<contracts::Layer> layers = importer::select_layers(network, line.workload, line.layer);
  std::optional<mapper::SurrogateModel> model;
  flow::ExploreOptions options = explore_options(line, model);
  util::check_output_prefix(line.output);
  const flow::ExploreFiles files = flow::explore_files(line.output);
  for (const std::string& path : {files.runs_csv, files.summary_csv, files.svg}) util::check_output_path(path);
  if (options.pareto) util::check_output_path(files.pareto_csv);
  const std::vector<std::string> methods = nonempty(line.methods), budgets = nonempty(line.budgets);
  fmt::print("exploring '{}' on '{}' ({} MS), objective {}, {} space; methods {}, budgets {}, {} runs each{}\n",
             network.name, hardware.name, hardware.num_ms, line.objective,
             options.two_level ? "two-level" : "single-level", fmt::join(methods, ","), fmt::join(budgets, ","),
             line.runs, options.warm_start == mapper::WarmStart::None ? "" : ", warm start " + line.warm_start);
  options.hardware_digest = util::sha256_hex(util::read_input_file(line.hardware, contracts::kSpecFileRules));
  flow::Exploration exploration(hardware, std::move(options));

  for (const contracts::Layer& layer : layers) {
    const flow::ExploreOptimum found = exploration.optimum(layer);
    print_optimum(layer, found, line.optimum_cache);
    std::fflush(stdout);
    util::ProgressBar progress("explore " + layer.name, std::int64_t(exploration.runs_per_layer()),
                               isatty(STDERR_FILENO), stderr);
    const auto summaries = exploration.explore_layer(layer, found, [&](std::int64_t done) { progress.set_done(done); });
    progress.clear();
    print_summaries(summaries);
    std::fflush(stdout);
  }

  exploration.write(files, network.name, layers.size());
  if (!exploration.warm_start_totals().empty()) {
    // The workload's saving (docs/search.md, "Warm start"): what a whole network's search costs cold and warm.
    fmt::print("\nwarm start ({}): median samples to 99.5 % of the cold final result at {}, summed over the layers "
               "with a source\n",
               line.warm_start, exploration.largest_budget());
    for (const auto& [name, total] : exploration.warm_start_totals())
      fmt::print("  {:<10} {:>3} layers  cold {:>8.0f}  warm {:>8.0f}  ({:.2f}x)\n", name, total.layers, total.cold,
                 total.warm, total.cold / std::max(1.0, total.warm));
  }
  fmt::print("\nruns: {}\nsummary: {}\nplot: {}\n", files.runs_csv, files.summary_csv, files.svg);
  if (line.pareto) fmt::print("pareto: {}\n", files.pareto_csv);
  return kExitOk;
}

}  // namespace

void add_explore_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ExploreCommandLine>();
  CLI::App* command = app.add_subcommand(
      "explore", "Measure the heuristic searches against the exhaustive optimum at several sample budgets");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML or ONNX model (.onnx)")->required();
  add_model_input_options(command, options->model_inputs);
  command->add_option("--layer", options->layer, "only this layer (by name)");
  command->add_option("--methods", options->methods, "comma-separated: random, sa, ga, surrogate")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->default_str("random,sa,ga");
  command->add_option("--budgets", options->budgets, "comma-separated sample budgets (model evaluations)")
      ->delimiter(',')
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->default_str("100,300,1000,3000,10000");
  command->add_option("--runs", options->runs, "runs per method and budget (seeds seed … seed+runs-1)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--seed", options->seed, "first seed")->capture_default_str();
  command->add_option("--objective", options->objective, "runtime, energy or edp")
      ->check(CLI::IsMember({"runtime", "energy", "edp"}))
      ->capture_default_str();
  command->add_flag("--single-level", options->single_level, "search the fabric tiles only (no SDM level)");
  command->add_option("--exhaustive-budget", options->exhaustive_budget,
                      "joint budget of the exhaustive optimum (map's --joint-budget); default: exhaustive")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40));
  command->add_option("--model", options->model, "surrogate model file (`maeri surrogate train`)");
  command->add_option("--warm-start", options->warm_start,
                      "also run each method warm-started from the previous or the most similar layer")
      ->check(CLI::IsMember({"none", "previous", "similar"}))
      ->capture_default_str();
  command->add_option("--optimum-cache", options->optimum_cache,
                      "CSV file of exhaustive optima: read, and extended with the layers it lacks");
  command->add_flag("--pareto", options->pareto, "write each layer's (cycles, energy) Pareto front of the mappings costed");
  command->add_option("--threads", options->threads, "threads (0 = all)")->check(CLI::Range(0, 1024));
  command->add_option("-o,--output", options->output,
                      "output prefix: <prefix>.csv (summary), .runs.csv, .svg, .pareto.csv")
      ->capture_default_str();
  command->footer("Example: maeri explore --hardware configs/hardware/maeri-512.yaml "
                  "--workload configs/workloads/mrna-table2.yaml --methods random,sa,ga --budgets 100,1000 --runs 20");
  command->callback([options, &action] { action = [options] { return run_explore(*options); }; });
}

}  // namespace maeri::cli
