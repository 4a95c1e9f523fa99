// The exploration of the heuristic searches against the exhaustive optimum (explore.hpp).
#include "flow/explore.hpp"

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "mapper/model/cost_model.hpp"
#include "flow/optimum_cache.hpp"
#include "util/atomic_file.hpp"
#include "util/input_error.hpp"
#include "util/svg_chart.hpp"

namespace maeri::flow {
namespace {

const char* warm_start_name(mapper::WarmStart warm_start) {
  switch (warm_start) {
    case mapper::WarmStart::Previous: return "previous";
    case mapper::WarmStart::Similar: return "similar";
    case mapper::WarmStart::None: break;
  }
  return "none";
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
  return objective_value(cycles, mapper::energy_lower_bound(layer, hardware), objective);
}

// Evaluations a run needed to come within 0.5 % of `target` (best ≤ target / 0.995); budget + 1 if it never did.
std::uint64_t samples_to_reach(const std::vector<std::pair<std::uint64_t, double>>& trace, double target,
                               std::uint64_t budget) {
  for (const auto& [samples, best] : trace)
    if (best <= target / 0.995) return samples;
  return budget + 1;
}

// The points no other point dominates (both coordinates minimised), ascending in the first; of equal first
// coordinates only the smallest second is kept.
std::vector<std::pair<double, double>> pareto_front_points(std::vector<std::pair<double, double>> points) {
  std::sort(points.begin(), points.end());
  std::vector<std::pair<double, double>> front;
  for (const auto& point : points)
    if (front.empty() || point.second < front.back().second) {
      if (!front.empty() && front.back().first == point.first) front.pop_back();
      front.push_back(point);
    }
  return front;
}

}  // namespace

struct Exploration::Run {
  std::string layer, method;
  bool warm = false;
  std::uint64_t budget = 0, seed = 0;
  mapper::HeuristicResult result;
};

struct Exploration::State {
  explicit State(const std::string& optimum_cache) : cache(optimum_cache) {}
  OptimumCache cache;
  std::unique_ptr<tbb::global_control> thread_limit;
  std::vector<std::uint64_t> budgets;  // ascending
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
  // Per method, per layer explored so far: the best mappings its cold runs found (the warm starts' sources).
  std::map<std::string, std::vector<mapper::SearchedLayer>> method_history;
};

ExploreFiles explore_files(const std::string& prefix) {
  return {prefix + ".runs.csv", prefix + ".csv", prefix + ".svg", prefix + ".pareto.csv"};
}

Exploration::Exploration(const contracts::Hardware& hardware, ExploreOptions options)
    : hardware_(hardware), options_(std::move(options)), state_(std::make_unique<State>(options_.optimum_cache)) {
  state_->budgets = options_.budgets;
  std::sort(state_->budgets.begin(), state_->budgets.end());
  if (options_.threads > 0)
    state_->thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                                 std::size_t(options_.threads));
}

Exploration::~Exploration() = default;

std::uint64_t Exploration::largest_budget() const { return state_->budgets.back(); }

ExploreOptimum Exploration::optimum(const contracts::Layer& layer) {
  ExploreOptimum found;
  found.minimum = algorithmic_minimum(layer, hardware_, options_.objective);
  const std::string key =
      OptimumCache::key(hardware_, options_.hardware_digest, options_.objective, options_.two_level, layer);
  if (const auto* cached = state_->cache.find(key, found.minimum)) {
    found.optimum = cached->optimum;
    found.exhaustive = cached->exhaustive;
    found.from_cache = true;
    return found;
  }
  mapper::HeuristicOptions exhaustive;
  exhaustive.objective = options_.objective;
  exhaustive.budget = options_.exhaustive_budget;
  exhaustive.two_level = options_.two_level;
  exhaustive.threads = options_.threads;
  const mapper::HeuristicResult run = mapper::run_search(mapper::SearchMethodKind::Exhaustive, layer, hardware_, exhaustive);
  found.optimum = objective_value(run.best.front(), options_.objective);
  found.exhaustive = run.exhaustive_complete;
  found.evaluations = run.evaluations;
  found.seconds = run.seconds;
  found.best = run.best;
  state_->cache.add(key, found.optimum, run.exhaustive_complete);
  return found;
}

std::size_t Exploration::runs_per_layer() const {
  const std::size_t variants = options_.warm_start == mapper::WarmStart::None ? 1 : 2;
  return options_.methods.size() * variants * options_.budgets.size() * std::size_t(options_.runs);
}

// Per method, the best mappings it found on the most similar layer explored before (options_.warm_start's rule).
Exploration::WarmMappings Exploration::warm_mappings(const contracts::Layer& layer) {
  WarmMappings warm;
  for (const auto method : options_.methods)
    if (const auto* source =
            mapper::warm_start_source(state_->method_history[to_string(method)], layer, options_.warm_start))
      warm[to_string(method)] = mapper::carry_mappings(*source, layer);
  return warm;
}

// Every (method, warm, budget, run) is an independent task with its own seed: parallel over runs, results identical
// for any thread count.
std::vector<Exploration::Run> Exploration::run_searches(const contracts::Layer& layer, const WarmMappings& warm,
                                                        const std::function<void(std::int64_t)>& progress) const {
  std::vector<Run> runs;
  for (const auto method : options_.methods)
    for (const bool warm_run : {false, true}) {
      if (warm_run && options_.warm_start == mapper::WarmStart::None) continue;
      for (const std::uint64_t budget : state_->budgets)
        for (int r = 0; r < options_.runs; ++r)
          runs.push_back({layer.name, to_string(method), warm_run, budget, options_.seed + std::uint64_t(r), {}});
    }
  std::mutex progress_mutex;  // one progress call at a time
  std::int64_t done = 0;
  tbb::parallel_for(std::size_t(0), runs.size(), [&](std::size_t i) {
    Run& run = runs[i];
    mapper::HeuristicOptions heuristic;
    heuristic.objective = options_.objective;
    heuristic.budget = run.budget;
    heuristic.seed = run.seed;
    heuristic.two_level = options_.two_level;
    heuristic.surrogate = options_.surrogate;
    if (const auto source = warm.find(run.method); run.warm && source != warm.end())
      heuristic.warm_start = source->second;
    run.result = mapper::run_search(*mapper::parse_search_method(run.method), layer, hardware_, heuristic);
    const std::lock_guard<std::mutex> lock(progress_mutex);
    progress(++done);
  });
  return runs;
}

// A run below a cached exhaustive optimum means the cache was made by another model.
void Exploration::check_cached_optimum(const contracts::Layer& layer, const ExploreOptimum& found,
                                       const std::vector<Run>& runs) const {
  if (!found.from_cache || !found.exhaustive) return;
  for (const Run& run : runs) {
    const double best = objective_value(run.result.best.front(), options_.objective);
    if (best < found.optimum * (1 - 1e-12))
      throw util::InputError({options_.optimum_cache, 0, 0}, "optimum",
                             fmt::format("a {} run found {:.17g} on layer {}, below the cached exhaustive optimum "
                                         "{:.17g}: the file was made by another model; delete it",
                                         run.method, best, layer.name, found.optimum));
  }
}

// The runs of one (method, warm, budget): their rows in the runs CSV, their summary row and plot point; a cold run at
// the largest budget adds its best mappings of each of its best fabric tiles to `cold_costed` (warm starts learn from
// these, as from every mapping those runs costed: best_of_fabric_tiles).
ExploreSummary Exploration::summarise(const contracts::Layer& layer, const ExploreOptimum& found,
                                      const std::vector<Run>& runs, mapper::SearchMethodKind method, bool warm,
                                      std::uint64_t budget, double final_result, bool warm_started,
                                      std::vector<contracts::CostReport>& cold_costed,
                                      std::map<std::string, double>& cold_samples) {
  const mapper::Objective objective = options_.objective;
  const std::string name = to_string(method), warm_name = warm_start_name(options_.warm_start);
  const bool largest = budget == state_->budgets.back();
  const double optimum = found.optimum, minimum = found.minimum;
  std::vector<double> ratios, to_minimum, samples;
  for (const Run& run : runs) {
    if (run.method != name || run.warm != warm || run.budget != budget) continue;
    const double best = objective_value(run.result.best.front(), objective);
    const std::uint64_t reach = samples_to_reach(run.result.trace, final_result, budget);
    ratios.push_back(best / optimum);
    to_minimum.push_back(best / minimum);
    samples.push_back(double(reach));
    state_->runs_text += fmt::format(
        "{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.6f},{:.9g},{:.6f},{},{:.4f},\"{}\"\n", layer.name, name,
        warm ? warm_name : "none", budget, run.seed - options_.seed, run.seed, run.result.evaluations,
        run.result.proposals, best, optimum, best / optimum, minimum, best / minimum, reach, run.result.seconds,
        contracts::to_string(run.result.best.front().mapping));
    if (!warm && largest) {
      const auto top = mapper::best_of_fabric_tiles(run.result.evaluated, objective, mapper::kLearntFabricTiles);
      cold_costed.insert(cold_costed.end(), top.begin(), top.end());
    }
  }
  const double median_samples = median_of(samples);
  if (!warm && largest) cold_samples[name] = median_samples;
  const double speedup = warm && largest ? cold_samples[name] / median_samples : 0;
  if (warm && largest && warm_started) {
    warm_totals_[name].cold += cold_samples[name];
    warm_totals_[name].warm += median_samples;
    ++warm_totals_[name].layers;
  }
  state_->summary_text += fmt::format(
      "{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{}\n", layer.name, name,
      warm ? warm_name : "none", budget, ratios.size(), median_of(ratios), quantile(ratios, 0.25),
      quantile(ratios, 0.75), *std::min_element(ratios.begin(), ratios.end()),
      *std::max_element(ratios.begin(), ratios.end()), median_of(to_minimum), optimum / minimum,
      largest ? fmt::format("{:.0f}", median_samples) : "",
      warm && largest ? fmt::format("{:.0f}", cold_samples[name]) : "", speedup > 0 ? fmt::format("{:.2f}", speedup) : "");
  state_->plotted[name + (warm ? " (warm " + warm_name + ")" : "")][budget].push_back(
      {median_of(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)});
  return {method, warm, budget, median_of(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75),
          largest ? std::optional<double>(median_samples) : std::nullopt, speedup};
}

// The runtime-energy Pareto front of every mapping the runs and the exhaustive search costed on the layer.
void Exploration::add_pareto_front(const contracts::Layer& layer, const ExploreOptimum& found,
                                   const std::vector<Run>& runs) {
  std::vector<std::pair<double, double>> points;
  for (const Run& run : runs)
    for (const auto& report : run.result.evaluated) points.emplace_back(report.cycles.total, report.energy_pj.total);
  for (const auto& report : found.best) points.emplace_back(report.cycles.total, report.energy_pj.total);
  for (const auto& [cycles, energy] : pareto_front_points(points))
    state_->pareto_text += fmt::format("{},{:.9g},{:.9g}\n", layer.name, cycles, energy);
}

std::vector<ExploreSummary> Exploration::explore_layer(const contracts::Layer& layer, const ExploreOptimum& found,
                                                       const std::function<void(std::int64_t)>& progress) {
  const WarmMappings warm = warm_mappings(layer);
  const std::vector<Run> runs = run_searches(layer, warm, progress);
  check_cached_optimum(layer, found, runs);
  std::map<std::string, double> final_result;  // per method: median cold result at the largest budget
  for (const auto method : options_.methods) {
    std::vector<double> finals;
    for (const Run& run : runs)
      if (run.method == to_string(method) && !run.warm && run.budget == state_->budgets.back())
        finals.push_back(objective_value(run.result.best.front(), options_.objective));
    final_result[to_string(method)] = median_of(finals);
  }
  std::vector<ExploreSummary> summaries;
  std::map<std::string, double> cold_samples;  // per method: median samples to 99.5 % of the cold final result
  for (const auto method : options_.methods) {
    const std::string name = to_string(method);
    std::vector<contracts::CostReport> cold_costed;
    for (const bool warm_run : {false, true}) {
      if (warm_run && options_.warm_start == mapper::WarmStart::None) continue;
      for (const std::uint64_t budget : state_->budgets)
        summaries.push_back(summarise(layer, found, runs, method, warm_run, budget, final_result[name],
                                      warm.count(name) > 0, cold_costed, cold_samples));
    }
    // What this method learnt on this layer, for warm starts of the next layers: from what its cold runs costed.
    state_->method_history[name].push_back({layer, mapper::learnt_mappings(std::move(cold_costed), options_.objective)});
  }
  if (options_.pareto) add_pareto_front(layer, found, runs);
  return summaries;
}

void Exploration::write(const ExploreFiles& files, const std::string& network_name, std::size_t layers) const {
  std::vector<util::ChartSeries> series;
  // Geometric mean over the layers (a ratio's natural mean; the median would hide the few hard layers behind the
  // easy ones): the median as a line, the quartiles as points of the same colour.
  const auto geometric_mean = [](const std::vector<std::array<double, 3>>& per_layer, std::size_t which) {
    double sum = 0;
    for (const auto& values : per_layer) sum += std::log(values[which]);
    return std::exp(sum / double(per_layer.size()));
  };
  for (const auto& [name, by_budget] : state_->plotted) {
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
  util::write_file_atomically(files.runs_csv, state_->runs_text);
  util::write_file_atomically(files.summary_csv, state_->summary_text);
  util::write_file_atomically(
      files.svg, util::chart_svg({fmt::format("{} on {}: best found / optimum ({}; {} runs: median, points = "
                                              "quartiles; geometric mean over {} layers)",
                                              network_name, hardware_.name, to_string(options_.objective),
                                              options_.runs, layers),
                                  "samples (model evaluations)", "best found / optimum", true, false},
                                 series));
  if (options_.pareto) util::write_file_atomically(files.pareto_csv, state_->pareto_text);
}

}  // namespace maeri::flow
