// `maeri explore`: measures the heuristic searches against the exhaustive optimum (docs/search.md, "Measuring the
// searches"). Per layer: the exhaustive optimum of the space, then every chosen method R times at each sample
// budget (cold, and warm-started with --warm-start); writes one CSV row per run, a summary CSV (median and quartiles
// of best-found ÷ optimum per layer, method and budget, the ratio to the algorithmic minimum, warm start's sample
// saving) and an SVG plot of best-found ÷ optimum against samples; with --pareto, each layer's (cycles, energy)
// Pareto front of every mapping costed.
#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/layer_selection.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/cost_model.hpp"
#include "contracts/sdm_budget.hpp"
#include "mapper/search/search_method.hpp"
#include "mapper/search/surrogate_model.hpp"
#include "util/svg_chart.hpp"
#include "mapper/search/warm_start.hpp"
#include "util/atomic_file.hpp"
#include "util/progress_bar.hpp"
#include "util/sha256.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct ExploreOptions {
  std::string hardware, workload, layer;
  std::string methods = "random,sa,ga";
  std::string budgets = "100,300,1000,3000,10000";
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

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// Linear interpolation between order statistics (type 7 of Hyndman & Fan, numpy's default).
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const std::size_t low = std::size_t(std::floor(at));
  const std::size_t high = std::min(values.size() - 1, low + 1);
  return values[low] + (at - double(low)) * (values[high] - values[low]);
}

double median_of(std::vector<double> values) { return quantile(std::move(values), 0.5); }

// The algorithmic minimum of a layer's objective (docs/search.md): every MAC on a multiplier switch every cycle
// (⌈MACs / num_ms⌉ cycles) and only the unavoidable energy: the multiplications and the compulsory DRAM bytes.
double algorithmic_minimum(const contracts::Layer& layer, const contracts::Hardware& hardware, mapper::Objective objective) {
  const double cycles = std::ceil(double(layer.macs()) / double(hardware.num_ms));
  return mapper::objective_value(cycles, mapper::energy_lower_bound(layer, hardware), objective);
}

// Evaluations a run needed to come within 0.5 % of `target` (best ≤ target / 0.995); budget + 1 if it never did.
std::uint64_t samples_to_reach(const std::vector<std::pair<std::uint64_t, double>>& trace, double target,
                               std::uint64_t budget) {
  for (const auto& [samples, best] : trace)
    if (best <= target / 0.995) return samples;
  return budget + 1;
}

// The exhaustive optima already computed (--optimum-cache): one CSV line per (hardware file's content, objective,
// space, layer shape) with the optimum's objective and whether the search was exhaustive. The exhaustive search of
// a large layer takes minutes; its result depends only on this key and on the model: a run that beats a cached
// exhaustive optimum shows the model changed, and explore stops naming the file.
class OptimumCache {
 public:
  explicit OptimumCache(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) {
      const auto comma = line.rfind(',');
      if (comma == std::string::npos || line.rfind("key,", 0) == 0) continue;
      const auto previous = line.rfind(',', comma - 1);
      if (previous == std::string::npos) continue;
      entries_[line.substr(0, previous)] = {std::stod(line.substr(previous + 1, comma - previous - 1)),
                                            line.substr(comma + 1) == "1"};
    }
  }
  static std::string key(const contracts::Hardware& hardware, const std::string& hardware_digest,
                         mapper::Objective objective, bool two_level, const contracts::Layer& layer) {
    std::string text = fmt::format("{}/{}MS/{}/{}/{}/{}", hardware.name, hardware.num_ms, hardware_digest.substr(0, 16),
                                   mapper::to_string(objective), two_level ? "two-level" : "single-level",
                                   contracts::to_string(layer.type));
    for (const auto& field : contracts::kLayerShapeFields) text += fmt::format("/{}={}", field.name, layer.*field.member);
    return text;
  }
  const std::pair<double, bool>* find(const std::string& key) const {
    const auto found = entries_.find(key);
    return found == entries_.end() ? nullptr : &found->second;
  }
  void add(const std::string& key, double optimum, bool complete) {
    entries_[key] = {optimum, complete};
    if (path_.empty()) return;
    std::string text = "key,optimum,exhaustive\n";
    for (const auto& [k, entry] : entries_) text += fmt::format("{},{:.17g},{}\n", k, entry.first, entry.second ? 1 : 0);
    util::write_file_atomically(path_, text);
  }

 private:
  std::string path_;
  std::map<std::string, std::pair<double, bool>> entries_;
};

struct Run {
  std::string layer, method;
  bool warm = false;
  std::uint64_t budget = 0, seed = 0;
  mapper::HeuristicResult result;
};

std::vector<std::pair<double, double>> pareto_front(std::vector<std::pair<double, double>> points) {
  std::sort(points.begin(), points.end());
  std::vector<std::pair<double, double>> front;
  for (const auto& point : points)
    if (front.empty() || point.second < front.back().second) {
      if (!front.empty() && front.back().first == point.first) front.pop_back();
      front.push_back(point);
    }
  return front;
}

int run_explore(const ExploreOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  const contracts::Network network = importer::load_network(options.workload);
  const std::vector<contracts::Layer> layers = select_layers(network, options.workload, options.layer);
  const mapper::Objective objective = *mapper::parse_objective(options.objective);
  const bool two_level = !options.single_level;
  std::vector<mapper::SearchMethodKind> methods;
  for (const std::string& name : split(options.methods)) {
    const auto method = mapper::parse_search_method(name);
    if (!method || *method == mapper::SearchMethodKind::Exhaustive)
      throw util::InputError({"command line", 0, 0}, "--methods",
                            "unknown method '" + name + "' (expected random, sa, ga or surrogate; the exhaustive "
                            "optimum is always computed)");
    methods.push_back(*method);
  }
  std::vector<std::uint64_t> budgets;
  for (const std::string& text : split(options.budgets)) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || value == 0 || text[0] == '-')
      throw util::InputError({"command line", 0, 0}, "--budgets", "expected positive integers, found '" + text + "'");
    budgets.push_back(value);
  }
  if (methods.empty() || budgets.empty())
    throw util::InputError({"command line", 0, 0}, methods.empty() ? "--methods" : "--budgets", "the list is empty");
  std::sort(budgets.begin(), budgets.end());
  const auto warm_start = mapper::parse_warm_start(options.warm_start);
  if (!warm_start)
    throw util::InputError({"command line", 0, 0}, "--warm-start",
                          "expected none, previous or similar, found '" + options.warm_start + "'");
  std::optional<mapper::SurrogateModel> model;
  if (std::find(methods.begin(), methods.end(), mapper::SearchMethodKind::Surrogate) != methods.end()) {
    if (options.model.empty())
      throw util::InputError({"command line", 0, 0}, "--model", "the surrogate method needs a model file "
                                                               "(`maeri surrogate train`)");
    model = mapper::SurrogateModel::load(options.model);
    model->require_space(objective, two_level, options.model);
  }
  const std::string runs_csv = options.output + ".runs.csv", summary_csv = options.output + ".csv",
                    svg = options.output + ".svg", pareto_csv = options.output + ".pareto.csv";
  for (const std::string& path : {runs_csv, summary_csv, svg})
    util::check_output_path(path);
  if (options.pareto) util::check_output_path(pareto_csv);
  std::unique_ptr<tbb::global_control> thread_limit;
  if (options.threads > 0)
    thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         std::size_t(options.threads));

  fmt::print("exploring '{}' on '{}' ({} MS), objective {}, {} space; methods {}, budgets {}, {} runs each{}\n",
             network.name, hardware.name, hardware.num_ms, options.objective, two_level ? "two-level" : "single-level",
             options.methods, options.budgets, options.runs,
             *warm_start == mapper::WarmStart::None ? "" : ", warm start " + options.warm_start);
  std::string runs_text =
      "layer,method,warm_start,budget,run,seed,evaluations,proposals,best,optimum,ratio,algorithmic_minimum,"
      "ratio_to_minimum,samples_to_99.5,seconds,best_mapping\n";
  std::string summary_text =
      "layer,method,warm_start,budget,runs,median_ratio,q25_ratio,q75_ratio,min_ratio,max_ratio,"
      "median_ratio_to_minimum,optimum_ratio_to_minimum,median_samples_to_99.5,cold_median_samples_to_99.5,"
      "warm_speedup\n";
  std::string pareto_text = "layer,cycles,energy_pj\n";
  // Plot: per method (and warm variant) and budget, the per-layer median, first and third quartile of the ratio.
  std::map<std::string, std::map<std::uint64_t, std::vector<std::array<double, 3>>>> plotted;
  OptimumCache cache(options.optimum_cache);
  const std::string hardware_digest = util::sha256_of_file(options.hardware);
  // Per method, per layer searched so far: the best mappings its cold runs found (the warm starts' sources).
  std::map<std::string, std::vector<mapper::SearchedLayer>> method_history;
  const std::uint64_t largest = budgets.back();
  // Per method, over the layers that had a warm-start source: Σ median samples to 99.5 % cold, warm, and the layers.
  struct WarmTotal {
    double cold = 0, warm = 0;
    int layers = 0;
  };
  std::map<std::string, WarmTotal> warm_totals;

  for (const contracts::Layer& layer : layers) {
    const std::string cache_key = OptimumCache::key(hardware, hardware_digest, objective, two_level, layer);
    const double minimum = algorithmic_minimum(layer, hardware, objective);
    double optimum = 0;
    bool cached_exhaustive = false;
    std::vector<contracts::CostReport> optimum_best;
    if (const auto* cached = cache.find(cache_key)) {
      optimum = cached->first;
      cached_exhaustive = cached->second;
      fmt::print("\nlayer {}: exhaustive optimum {:.6g} (from {}{}), algorithmic minimum {:.6g} (optimum {:.2f}x it)\n",
                 layer.name, optimum, options.optimum_cache,
                 cached->second ? "" : ", NOT exhaustive", minimum, optimum / minimum);
    } else {
      mapper::HeuristicOptions exhaustive;
      exhaustive.objective = objective;
      exhaustive.budget = options.exhaustive_budget;
      exhaustive.two_level = two_level;
      exhaustive.threads = options.threads;
      const mapper::HeuristicResult optimum_run =
          mapper::run_search(mapper::SearchMethodKind::Exhaustive, layer, hardware, exhaustive);
      optimum = mapper::objective_value(optimum_run.best.front(), objective);
      optimum_best = optimum_run.best;
      cache.add(cache_key, optimum, optimum_run.exhaustive_complete);
      fmt::print("\nlayer {}: exhaustive optimum {:.6g} ({} mappings costed{}, {:.1f} s), algorithmic minimum {:.6g} "
                 "(optimum {:.2f}x it)\n",
                 layer.name, optimum, optimum_run.evaluations,
                 optimum_run.exhaustive_complete ? "" : ", NOT exhaustive: raise --exhaustive-budget",
                 optimum_run.seconds, minimum, optimum / minimum);
    }
    std::fflush(stdout);

    // Every (method, warm, budget, run) is an independent task with its own seed: parallel over runs, results
    // identical for any thread count.
    std::vector<Run> runs;
    for (const auto method : methods)
      for (const bool warm : {false, true}) {
        if (warm && *warm_start == mapper::WarmStart::None) continue;
        for (const std::uint64_t budget : budgets)
          for (int r = 0; r < options.runs; ++r)
            runs.push_back({layer.name, mapper::to_string(method), warm, budget, options.seed + std::uint64_t(r), {}});
      }
    std::map<std::string, std::vector<contracts::Tile>> warm_mappings;
    for (const auto method : methods)
      if (const auto* source = mapper::warm_start_source(method_history[mapper::to_string(method)], layer, *warm_start))
        warm_mappings[mapper::to_string(method)] = mapper::carry_mappings(*source, layer);
    util::ProgressBar progress("explore " + layer.name, std::int64_t(runs.size()), isatty(STDERR_FILENO), stderr);
    std::mutex progress_mutex;  // the bar is not thread-safe
    std::int64_t done = 0;
    tbb::parallel_for(std::size_t(0), runs.size(), [&](std::size_t i) {
      Run& run = runs[i];
      mapper::HeuristicOptions heuristic;
      heuristic.objective = objective;
      heuristic.budget = run.budget;
      heuristic.seed = run.seed;
      heuristic.two_level = two_level;
      heuristic.surrogate = model ? &*model : nullptr;
      if (const auto found = warm_mappings.find(run.method); run.warm && found != warm_mappings.end())
        heuristic.warm_start = found->second;
      run.result = mapper::run_search(*mapper::parse_search_method(run.method), layer, hardware, heuristic);
      const std::lock_guard<std::mutex> lock(progress_mutex);
      progress.set_done(++done);
    });
    progress.clear();
    for (const Run& run : runs)
      if (cached_exhaustive &&
          mapper::objective_value(run.result.best.front(), objective) < optimum * (1 - 1e-12))
        throw util::InputError({options.optimum_cache, 0, 0}, "optimum",
                              fmt::format("a {} run found {:.17g} on layer {}, below the cached exhaustive optimum "
                                          "{:.17g}: the file was made by another model; delete it",
                                          run.method, mapper::objective_value(run.result.best.front(), objective),
                                          layer.name, optimum));

    fmt::print("  {:<10} {:>4} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10}\n", "method", "warm", "budget", "median",
               "q25", "q75", "to 99.5%", "speedup");
    std::map<std::string, double> cold_samples;  // per method: median samples to 99.5 % of the cold final result
    std::map<std::string, double> final_result;  // per method: median cold result at the largest budget
    for (const auto method : methods) {
      std::vector<double> finals;
      for (const Run& run : runs)
        if (run.method == mapper::to_string(method) && !run.warm && run.budget == largest)
          finals.push_back(mapper::objective_value(run.result.best.front(), objective));
      final_result[mapper::to_string(method)] = median_of(finals);
    }
    for (const auto method : methods) {
      const std::string name = mapper::to_string(method);
      // Per cold run at the largest budget, its best mapping of each of its best fabric tiles (warm starts learn
      // from these, as from every mapping those runs costed: best_of_fabric_tiles).
      std::vector<contracts::CostReport> cold_costed;
      for (const bool warm : {false, true}) {
        if (warm && *warm_start == mapper::WarmStart::None) continue;
        for (const std::uint64_t budget : budgets) {
          std::vector<double> ratios, to_minimum, samples;
          for (const Run& run : runs) {
            if (run.method != name || run.warm != warm || run.budget != budget) continue;
            const double best = mapper::objective_value(run.result.best.front(), objective);
            const std::uint64_t reach = samples_to_reach(run.result.trace, final_result[name], budget);
            ratios.push_back(best / optimum);
            to_minimum.push_back(best / minimum);
            samples.push_back(double(reach));
            runs_text += fmt::format("{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.6f},{:.9g},{:.6f},{},{:.4f},\"{}\"\n",
                                     layer.name, name, warm ? options.warm_start : "none", budget,
                                     run.seed - options.seed, run.seed, run.result.evaluations, run.result.proposals,
                                     best, optimum, best / optimum, minimum, best / minimum, reach,
                                     run.result.seconds, contracts::to_string(run.result.best.front().tile));
            if (!warm && budget == largest) {
              const auto top = mapper::best_of_fabric_tiles(run.result.evaluated, objective, mapper::kLearntFabricTiles);
              cold_costed.insert(cold_costed.end(), top.begin(), top.end());
            }
          }
          const double median_samples = median_of(samples);
          if (!warm && budget == largest) cold_samples[name] = median_samples;
          const double speedup = warm && budget == largest ? cold_samples[name] / median_samples : 0;
          if (warm && budget == largest && warm_mappings.count(name)) {
            warm_totals[name].cold += cold_samples[name];
            warm_totals[name].warm += median_samples;
            ++warm_totals[name].layers;
          }
          summary_text += fmt::format(
              "{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{}\n", layer.name, name,
              warm ? options.warm_start : "none", budget, ratios.size(), median_of(ratios), quantile(ratios, 0.25),
              quantile(ratios, 0.75), *std::min_element(ratios.begin(), ratios.end()),
              *std::max_element(ratios.begin(), ratios.end()), median_of(to_minimum), optimum / minimum,
              budget == largest ? fmt::format("{:.0f}", median_samples) : "",
              warm && budget == largest ? fmt::format("{:.0f}", cold_samples[name]) : "",
              speedup > 0 ? fmt::format("{:.2f}", speedup) : "");
          plotted[name + (warm ? " (warm " + options.warm_start + ")" : "")][budget].push_back(
              {median_of(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)});
          fmt::print("  {:<10} {:>4} {:>7} {:>8.4f}x {:>8.4f}x {:>8.4f}x {:>10} {:>10}\n", name, warm ? "yes" : "no",
                     budget, median_of(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75),
                     budget == largest ? fmt::format("{:.0f}", median_samples) : "",
                     speedup > 0 ? fmt::format("{:.2f}x", speedup) : "");
        }
      }
      // What this method learnt on this layer, for warm starts of the next layers: from what its cold runs costed.
      method_history[name].push_back({layer, mapper::learnt_mappings(std::move(cold_costed), objective)});
    }
    std::fflush(stdout);
    if (options.pareto) {
      std::vector<std::pair<double, double>> points;
      for (const Run& run : runs)
        for (const auto& report : run.result.evaluated) points.emplace_back(report.cycles.total, report.energy_pj.total);
      for (const auto& report : optimum_best) points.emplace_back(report.cycles.total, report.energy_pj.total);
      for (const auto& [cycles, energy] : pareto_front(points))
        pareto_text += fmt::format("{},{:.9g},{:.9g}\n", layer.name, cycles, energy);
    }
  }

  std::vector<util::ChartSeries> series;
  // Geometric mean over the layers (a ratio's natural mean; the median would hide the few hard layers behind the
  // easy ones): the median as a line, the quartiles as points of the same colour.
  const auto geometric_mean = [](const std::vector<std::array<double, 3>>& per_layer, std::size_t which) {
    double sum = 0;
    for (const auto& values : per_layer) sum += std::log(values[which]);
    return std::exp(sum / double(per_layer.size()));
  };
  for (const auto& [name, by_budget] : plotted) {
    const std::string colour = util::series_colour(series.size() / 2);
    util::ChartSeries line{name + ", median", colour, {}, true, {}}, spread{"", colour, {}, false, {}};
    for (const auto& [budget, per_layer] : by_budget) {
      line.points.emplace_back(double(budget), geometric_mean(per_layer, 0));
      spread.points.emplace_back(double(budget), geometric_mean(per_layer, 1));
      spread.points.emplace_back(double(budget), geometric_mean(per_layer, 2));
    }
    series.push_back(line);
    series.push_back(spread);
  }
  util::write_file_atomically(runs_csv, runs_text);
  util::write_file_atomically(summary_csv, summary_text);
  util::write_file_atomically(
      svg, util::chart_svg({fmt::format("{} on {}: best found / optimum ({}; {} runs: median, points = quartiles; "
                                          "geometric mean over {} layers)",
                                          network.name, hardware.name, options.objective, options.runs, layers.size()),
                              "samples (model evaluations)", "best found / optimum", true, false},
                             series));
  if (!warm_totals.empty()) {
    // The workload's saving (docs/search.md, "Warm start"): what a whole network's search costs cold and warm.
    fmt::print("\nwarm start ({}): median samples to 99.5 % of the cold final result at {}, summed over the layers "
               "with a source\n",
               options.warm_start, largest);
    for (const auto& [name, total] : warm_totals)
      fmt::print("  {:<10} {:>3} layers  cold {:>8.0f}  warm {:>8.0f}  ({:.2f}x)\n", name, total.layers, total.cold,
                 total.warm, total.cold / std::max(1.0, total.warm));
  }
  fmt::print("\nruns: {}\nsummary: {}\nplot: {}\n", runs_csv, summary_csv, svg);
  if (options.pareto) {
    util::write_file_atomically(pareto_csv, pareto_text);
    fmt::print("pareto: {}\n", pareto_csv);
  }
  return kExitOk;
}

}  // namespace

void add_explore_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ExploreOptions>();
  CLI::App* command = app.add_subcommand(
      "explore", "Measure the heuristic searches against the exhaustive optimum at several sample budgets");
  command->add_option("--hardware", options->hardware, "hardware YAML")->required();
  command->add_option("--workload", options->workload, "workload YAML or ONNX model (.onnx)")->required();
  command->add_option("--layer", options->layer, "only this layer (by name)");
  command->add_option("--methods", options->methods, "comma-separated: random, sa, ga, surrogate")->capture_default_str();
  command->add_option("--budgets", options->budgets, "comma-separated sample budgets (model evaluations)")
      ->capture_default_str();
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
