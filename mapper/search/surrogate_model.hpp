// The Mind Mappings-style surrogate (docs/search.md, "Surrogate"): a small multilayer perceptron (two tanh hidden
// layers, Adam) fitted on sampled (layer, hardware, mapping) → ln(objective), differentiable with respect to the
// continuous relaxation of the mapping (RelaxedMapping), so that the search can take gradient steps on it. Its
// file is versioned JSON with a fingerprint of the space it was trained for (feature schema, objective, single- or
// two-level): a model is refused by a search of another space.
#pragma once

#include <Eigen/Dense>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/search/search_method.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"

namespace maeri::mapper {

inline constexpr int kSurrogateFileVersion = 1;
inline constexpr const char* kSurrogateFormat = "maeri-surrogate";
// A model of the default width (64) is about 0.2 MB of JSON and one of 1024 about 25 MB; larger files (and devices)
// are refused before they are parsed (docs/cli.md, "Limits").
inline constexpr std::size_t kMaxSurrogateFileBytes = std::size_t(64) << 20;

// The input features, in order (docs/search.md lists them); every one is linear in the RelaxedMapping.
const std::vector<std::string>& surrogate_feature_names();
std::vector<double> surrogate_features(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                       const RelaxedMapping& point);
// sha256 of the feature names, the objective and the space ("two-level" or "single-level").
std::string surrogate_fingerprint(Objective objective, bool two_level);

struct SurrogateTraining {
  int hidden = 64;
  int epochs = 60;
  int batch = 64;
  double learning_rate = 2e-3;
  std::uint64_t seed = 1;
};

// Samples for training: per (layer, hardware) pair, `per_pair` mappings — half random, half from a short annealing
// run (so the region near the good mappings is covered) — costed by the model. Deterministic for a seed.
struct SurrogateSamples {
  std::vector<std::vector<double>> features;
  std::vector<double> log_objective;
  std::vector<std::size_t> pair;  // the (layer, hardware) pair of each sample: layer index × #hardware + hardware
};
SurrogateSamples sample_surrogate_data(const std::vector<contracts::Layer>& layers,
                                       const std::vector<contracts::Hardware>& hardware, Objective objective,
                                       bool two_level, std::uint64_t per_pair, std::uint64_t seed);

class SurrogateModel {
 public:
  SurrogateModel() = default;
  static SurrogateModel train(const SurrogateSamples& samples, Objective objective, bool two_level,
                              const SurrogateTraining& options);

  // Predicted ln(objective) of a feature vector; of a batch (one column per sample).
  double predict(const std::vector<double>& features) const;
  Eigen::VectorXd predict_batch(const Eigen::MatrixXd& features) const;
  // Predicted ln(objective) of a mapping and its gradient with respect to the relaxed mapping.
  double predict_with_gradient(const contracts::Layer& layer, const contracts::Hardware& hardware, const RelaxedMapping& point,
                               RelaxedMapping& gradient) const;
  // Mean squared error and mean absolute error (in ln) on samples.
  std::pair<double, double> error(const SurrogateSamples& samples) const;
  // Mean over the (layer, hardware) pairs of Spearman's rank correlation between predicted and costed objective:
  // how well the model orders the mappings of one layer on one hardware, which is what the search uses.
  double rank_correlation(const SurrogateSamples& samples) const;

  Objective objective() const { return objective_; }
  bool two_level() const { return two_level_; }
  const std::string& fingerprint() const { return fingerprint_; }
  std::string description;  // free text saved with the model (what it was trained on)

  // Throws util::InputError naming the file and the field on a bad file, another version or a fingerprint that does
  // not match the feature schema of this build. Reads at most kMaxSurrogateFileBytes.
  static SurrogateModel load(const std::string& path);
  void save(const std::string& path) const;  // atomically
  // Throws util::InputError naming `path` when the model was trained for another space than (objective, two_level).
  void require_space(Objective objective, bool two_level, const std::string& path) const;

  // Finite-difference check support (tests): the raw network on normalised inputs.
  Eigen::VectorXd forward(const Eigen::MatrixXd& normalised) const;

 private:
  Objective objective_ = Objective::EnergyDelay;
  bool two_level_ = true;
  std::string fingerprint_;
  Eigen::VectorXd input_mean_, input_scale_;
  double output_mean_ = 0, output_scale_ = 1;
  Eigen::MatrixXd w1_, w2_, w3_;
  Eigen::VectorXd b1_, b2_, b3_;
};

}  // namespace maeri::mapper
