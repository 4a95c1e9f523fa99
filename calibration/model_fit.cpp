// Levenberg–Marquardt fit of the model's parameters (see model_fit.hpp).
#include "calibration/model_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mapper/model/cost_model.hpp"

namespace maeri::calibration {

namespace {

// Solves A x = b for a small dense system by Gaussian elimination with partial pivoting; false if singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t row = col + 1; row < n; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    if (std::fabs(a[pivot][col]) < 1e-300) return false;
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (size_t row = col + 1; row < n; ++row) {
      const double factor = a[row][col] / a[col][col];
      for (size_t k = col; k < n; ++k) a[row][k] -= factor * a[col][k];
      b[row] -= factor * b[col];
    }
  }
  x.assign(n, 0);
  for (size_t row = n; row-- > 0;) {
    double sum = b[row];
    for (size_t k = row + 1; k < n; ++k) sum -= a[row][k] * x[k];
    x[row] = sum / a[row][row];
  }
  return true;
}

}  // namespace

double predicted_cycles(const FitSample& sample, const contracts::Hardware& hardware) {
  return sample.predict ? sample.predict(hardware) : mapper::evaluate(sample.layer, hardware, sample.mapping).cycles.total;
}

namespace {

FitResult fit_from(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                   const std::vector<const contracts::ModelParameterInfo*>& fitted, std::vector<double> values) {
  contracts::Hardware trial = hardware;
  const auto residuals = [&](const std::vector<double>& point) {
    for (size_t i = 0; i < fitted.size(); ++i) trial.model.*(fitted[i]->field) = point[i];
    std::vector<double> r;
    r.reserve(samples.size());
    for (const FitSample& sample : samples)
      r.push_back(predicted_cycles(sample, trial) / sample.observed_cycles - 1);
    return r;
  };
  const auto cost = [](const std::vector<double>& r) {
    double sum = 0;
    for (double v : r) sum += v * v;
    return sum;
  };
  const auto clamp = [&](std::vector<double>& point) {
    for (size_t i = 0; i < fitted.size(); ++i) point[i] = std::clamp(point[i], fitted[i]->min, fitted[i]->max);
  };

  std::vector<double> r = residuals(values);
  FitResult result;
  double lambda = 1e-3;
  const size_t n = fitted.size();
  for (int iteration = 0; iteration < 200 && n > 0; ++iteration) {
    result.iterations = iteration + 1;
    // Forward-difference Jacobian, stepping inward at an upper bound.
    std::vector<std::vector<double>> jacobian(n);
    for (size_t j = 0; j < n; ++j) {
      std::vector<double> moved = values;
      // Cycle counts are integers: a parameter in cycles (range above 1) steps by at least half a cycle, or a
      // penalty that starts at 0 would never change a count and look flat.
      const bool in_cycles = fitted[j]->max - fitted[j]->min > 1;
      double step = in_cycles ? std::max(0.5, 1e-4 * std::fabs(values[j])) : 1e-4 * std::max(1.0, std::fabs(values[j]));
      if (moved[j] + step > fitted[j]->max) step = -step;
      moved[j] += step;
      const std::vector<double> rj = residuals(moved);
      jacobian[j].resize(r.size());
      for (size_t i = 0; i < r.size(); ++i) jacobian[j][i] = (rj[i] - r[i]) / step;
    }
    std::vector<std::vector<double>> normal(n, std::vector<double>(n, 0));
    std::vector<double> gradient(n, 0);
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = 0; b < n; ++b)
        for (size_t i = 0; i < r.size(); ++i) normal[a][b] += jacobian[a][i] * jacobian[b][i];
      for (size_t i = 0; i < r.size(); ++i) gradient[a] -= jacobian[a][i] * r[i];
    }
    bool improved = false;
    const double current = cost(r);
    while (lambda < 1e12) {
      std::vector<std::vector<double>> damped = normal;
      for (size_t a = 0; a < n; ++a) damped[a][a] += lambda * std::max(normal[a][a], 1e-12);
      std::vector<double> delta;
      if (solve(damped, gradient, delta)) {
        std::vector<double> candidate = values;
        for (size_t a = 0; a < n; ++a) candidate[a] += delta[a];
        clamp(candidate);
        const std::vector<double> rc = residuals(candidate);
        if (cost(rc) < current) {
          const double gain = current - cost(rc);
          values = candidate;
          r = rc;
          lambda = std::max(lambda / 10, 1e-12);
          improved = true;
          if (gain < 1e-12 * std::max(current, 1e-30)) lambda = 1e12;  // converged
          break;
        }
      }
      lambda *= 10;
    }
    if (!improved || lambda >= 1e12) break;
  }
  result.parameters = hardware.model;
  for (size_t i = 0; i < n; ++i) result.parameters.*(fitted[i]->field) = values[i];
  result.rms_relative_error_after = std::sqrt(cost(r) / double(r.size()));
  return result;
}

}  // namespace

FitResult fit_model(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                    const std::vector<std::string>& names) {
  if (samples.empty()) throw std::invalid_argument("no samples to fit");
  std::vector<const contracts::ModelParameterInfo*> fitted;
  for (const std::string& name : names) fitted.push_back(&contracts::model_parameter(name));
  for (const FitSample& sample : samples)
    if (!(sample.observed_cycles > 0)) throw std::invalid_argument("observed cycles must be positive");

  // Several starts: the file's values, the RTL's nominal values, and for parameters with a bounded range
  // (fractions) also 10 % and 50 % into it, because some terms are flat at their nominal bound (a p-norm at
  // contention 0 is exactly max).
  std::vector<std::vector<double>> starts(2);
  const contracts::ModelParameters nominal;
  for (const contracts::ModelParameterInfo* info : fitted) {
    starts[0].push_back(hardware.model.*(info->field));
    starts[1].push_back(nominal.*(info->field));
  }
  if (starts[1] == starts[0]) starts.pop_back();
  // The replay's DRAM penalties start at 0, where a row or a turnaround costs nothing; a start a few cycles in
  // lets the fit find them (docs/calibration.md).
  for (size_t i = 0; i < fitted.size(); ++i) {
    if (std::string(fitted[i]->name).rfind("dram_", 0) != 0 || fitted[i]->max - fitted[i]->min <= 1) continue;
    const size_t existing = starts.size();
    for (const double cycles : {4.0, 16.0})
      for (size_t s = 0; s < existing; ++s) {
        std::vector<double> start = starts[s];
        start[i] = cycles;
        starts.push_back(start);
      }
  }
  for (size_t i = 0; i < fitted.size(); ++i) {
    if (fitted[i]->max - fitted[i]->min > 1) continue;
    const size_t existing = starts.size();
    for (const double fraction : {0.1, 0.5})
      for (size_t s = 0; s < existing; ++s) {
        std::vector<double> start = starts[s];
        start[i] = fitted[i]->min + fraction * (fitted[i]->max - fitted[i]->min);
        starts.push_back(start);
      }
  }
  FitResult best = fit_from(hardware, samples, fitted, starts[0]);
  const double before = best.rms_relative_error_before = [&] {
    FitResult none = fit_from(hardware, samples, {}, {});
    return none.rms_relative_error_after;
  }();
  for (size_t s = 1; s < starts.size(); ++s) {
    FitResult candidate = fit_from(hardware, samples, fitted, starts[s]);
    if (candidate.rms_relative_error_after < best.rms_relative_error_after) best = candidate;
  }
  best.rms_relative_error_before = before;
  return best;
}

// Not config_words_per_cycle: a reconfiguration takes exactly ⌈configuration bits / config_bw⌉ cycles
// (docs/config-bits.md), a few percent of a layer's cycles at most, so co-simulated runs barely identify it and a
// fit uses it to absorb the DRAM model's error instead (measured on tiny/maeri-64: fitted 0.92 words/cycle, held-out
// cycle MAPE 0.86 % -> 1.99 %). `--fit` still accepts it.
std::vector<std::string> default_calibration_parameters() {
  return {"step_overhead", "phase_overhead", "collect_latency", "dram_efficiency", "dram_row_miss", "dram_turnaround"};
}

double cycle_mape_percent(const contracts::Hardware& hardware, const std::vector<FitSample>& samples) {
  if (samples.empty()) return 0;
  double sum = 0;
  for (const FitSample& sample : samples)
    sum += std::fabs(predicted_cycles(sample, hardware) / sample.observed_cycles - 1);
  return 100 * sum / double(samples.size());
}

namespace {

// Leave-one-group-out error of fitting `names`: every group is predicted by a fit on all the others.
double cross_validated_mape(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                            const std::vector<int>& group_of, int groups, const std::vector<std::string>& names) {
  if (names.empty()) return cycle_mape_percent(hardware, samples);
  double sum = 0;
  for (int g = 0; g < groups; ++g) {
    std::vector<FitSample> train, test;
    for (size_t i = 0; i < samples.size(); ++i) (group_of[i] == g ? test : train).push_back(samples[i]);
    contracts::Hardware fitted = hardware;
    fitted.model = fit_model(hardware, train, names).parameters;
    sum += cycle_mape_percent(fitted, test) * double(test.size());
  }
  return sum / double(samples.size());
}

}  // namespace

ModelSelection select_and_fit(const contracts::Hardware& hardware, const std::vector<FitSample>& samples,
                              const std::vector<std::string>& names, double min_gain_percent) {
  if (samples.empty()) throw std::invalid_argument("no samples to fit");
  for (const std::string& name : names) contracts::model_parameter(name);
  // Folds: one per layer, the layers dealt round-robin into at most kMaxCrossValidationFolds (a real-size workload's
  // dozens of layers would otherwise cost a fit per layer per trial set); with a single layer, one per sample.
  std::vector<std::string> layer_names;
  std::vector<int> group_of;
  for (const FitSample& sample : samples) {
    const auto it = std::find(layer_names.begin(), layer_names.end(), sample.layer.name);
    group_of.push_back(int(it - layer_names.begin()) % kMaxCrossValidationFolds);
    if (it == layer_names.end()) layer_names.push_back(sample.layer.name);
  }
  int groups = std::min(int(layer_names.size()), kMaxCrossValidationFolds);
  if (groups < 2) {
    for (size_t i = 0; i < samples.size(); ++i) group_of[i] = int(i) % kMaxCrossValidationFolds;
    groups = std::min(int(samples.size()), kMaxCrossValidationFolds);
  }
  ModelSelection selection;
  selection.folds = groups;
  const double file_values = cross_validated_mape(hardware, samples, group_of, groups, {});
  selection.steps.push_back({"", file_values});
  const auto negligible = [min_gain_percent](double gain, double error) {
    return gain < std::max(min_gain_percent, 0.05 * error);
  };
  if (groups >= 2 && !names.empty()) {
    // Backward elimination: parameters that are wrong together are only found together, so start from fitting
    // all of them and drop, one at a time, the one whose removal costs least while that cost is negligible.
    selection.selected = names;
    double current = cross_validated_mape(hardware, samples, group_of, groups, names);
    selection.steps.push_back({"all", current});
    while (!selection.selected.empty()) {
      double best = 0;
      size_t best_index = selection.selected.size();
      for (size_t i = 0; i < selection.selected.size(); ++i) {
        std::vector<std::string> trial = selection.selected;
        trial.erase(trial.begin() + long(i));
        const double error = cross_validated_mape(hardware, samples, group_of, groups, trial);
        if (best_index == selection.selected.size() || error < best) best = error, best_index = i;
      }
      if (!negligible(best - current, best)) break;
      selection.steps.push_back({"-" + selection.selected[best_index], best});
      selection.selected.erase(selection.selected.begin() + long(best_index));
      current = std::min(current, best);
    }
    if (negligible(file_values - current, file_values)) selection.selected.clear();
  }
  selection.fit = fit_model(hardware, samples, selection.selected);
  return selection;
}

}  // namespace maeri::calibration
