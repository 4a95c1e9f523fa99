// The surrogate's features, training data, network (forward, backward, Adam) and file (docs/search.md,
// "Surrogate"). Eigen does the matrix work; the network is small enough (≈ 8 k weights) to train in seconds.
#include "mapper/search/surrogate_model.hpp"

#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "mapper/model/cost_model.hpp"
#include "util/atomic_file.hpp"
#include "util/sha256.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::mapper {
namespace {

const char* const kDimKeys[contracts::kNumTileDims] = {"R", "S", "C", "K", "N", "X'", "Y'"};

double log2_of(double value) { return std::log2(std::max(value, 1.0)); }

}  // namespace

const std::vector<std::string>& surrogate_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const char* key : kDimKeys) list.push_back(std::string("log2 extent ") + key);
    for (const char* name : {"log2 stride x", "log2 stride y", "log2 num_ms", "log2 dn_bw", "log2 rn_bw",
                             "log2 sdm_bytes"})
      list.emplace_back(name);
    for (const char* key : kDimKeys) list.push_back(std::string("log2 T_") + key);
    for (const char* key : kDimKeys) list.push_back(std::string("log2 folds ") + key);
    list.emplace_back("log2 mapped MS / num_ms");
    list.emplace_back("SDM level");
    for (int d = 0; d < contracts::kNumSdmDims; ++d) list.push_back(std::string("log2 ") + contracts::sdm_block_name(d));
    for (int d = 0; d < contracts::kNumSdmDims; ++d) list.push_back(std::string("log2 SDM trips ") + contracts::sdm_dim_key(d));
    for (int d = 0; d < contracts::kNumSdmDims; ++d)
      list.push_back(std::string("log2 fabric tiles per block ") + contracts::sdm_dim_key(d));
    for (int d = 0; d < contracts::kNumSdmDims; ++d) list.push_back(std::string("order key ") + contracts::sdm_dim_key(d));
    list.emplace_back("filters-outer");
    return list;
  }();
  return names;
}

std::vector<double> surrogate_features(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                       const RelaxedMapping& point) {
  const auto extents = contracts::layer_extents(layer);
  std::vector<double> f;
  f.reserve(surrogate_feature_names().size());
  for (std::int64_t extent : extents) f.push_back(log2_of(double(extent)));
  f.push_back(log2_of(double(layer.stride_x)));
  f.push_back(log2_of(double(layer.stride_y)));
  const double log2_ms = log2_of(double(hardware.num_ms));
  f.push_back(log2_ms);
  f.push_back(log2_of(double(hardware.dn_bw)));
  f.push_back(log2_of(double(hardware.rn_bw)));
  f.push_back(log2_of(double(hardware.sdm_bytes)));
  double mapped = 0;
  for (int d = 0; d < contracts::kNumTileDims; ++d) {
    f.push_back(point[size_t(kRelaxedFabric + d)]);
    mapped += point[size_t(kRelaxedFabric + d)];
  }
  for (int d = 0; d < contracts::kNumTileDims; ++d) f.push_back(log2_of(double(extents[size_t(d)])) - point[size_t(d)]);
  // T_G enters only the mapped share (its multiplier switches), and only for a grouped layer: an ungrouped layer's
  // features do not depend on it, so its gradient is 0 there and models trained before T_G stay valid.
  if (layer.groups > 1) mapped += point[kRelaxedGroups];
  f.push_back(mapped - log2_ms);
  f.push_back(point[kRelaxedBlocked]);
  for (int d = 0; d < contracts::kNumSdmDims; ++d) f.push_back(point[size_t(kRelaxedBlocks + d)]);
  for (int d = 0; d < contracts::kNumSdmDims; ++d)
    f.push_back(log2_of(double(extents[size_t(contracts::sdm_tile_dim(d))])) - point[size_t(kRelaxedBlocks + d)]);
  for (int d = 0; d < contracts::kNumSdmDims; ++d)
    f.push_back(point[size_t(kRelaxedBlocks + d)] - point[size_t(kRelaxedFabric + contracts::sdm_tile_dim(d))]);
  for (int d = 0; d < contracts::kNumSdmDims; ++d) f.push_back(point[size_t(kRelaxedOrder + d)]);
  f.push_back(point[kRelaxedPhase]);
  return f;
}

std::string surrogate_fingerprint(Objective objective, bool two_level) {
  std::string text = std::string("objective=") + to_string(objective) + ";space=" +
                     (two_level ? "two-level" : "single-level") + ";features=";
  for (const std::string& name : surrogate_feature_names()) text += name + "|";
  return util::sha256_hex(text);
}

SurrogateSamples sample_surrogate_data(const std::vector<contracts::Layer>& layers,
                                       const std::vector<contracts::Hardware>& hardware, Objective objective,
                                       bool two_level, std::uint64_t per_pair, std::uint64_t seed) {
  const std::size_t pairs = layers.size() * hardware.size();
  std::vector<SurrogateSamples> parts(pairs);
  tbb::parallel_for(std::size_t(0), pairs, [&](std::size_t pair) {
    const contracts::Layer& layer = layers[pair / hardware.size()];
    const contracts::Hardware& hw = hardware[pair % hardware.size()];
    const MapSpace space(layer, hw, two_level);
    std::mt19937_64 rng(seed * 1000003 + pair);
    std::vector<contracts::Mapping> tiles;
    for (std::uint64_t i = 0; i < per_pair - per_pair / 2; ++i) tiles.push_back(space.random(rng));
    HeuristicOptions walk;
    walk.objective = objective;
    walk.budget = per_pair / 2;
    walk.seed = seed * 1000003 + pair + 7;
    walk.two_level = two_level;
    for (const contracts::CostReport& report : run_search(SearchMethodKind::Annealing, layer, hw, walk).evaluated)
      tiles.push_back(report.mapping);
    for (const contracts::Mapping& tile : tiles) {
      parts[pair].features.push_back(surrogate_features(layer, hw, space.relax(tile)));
      parts[pair].log_objective.push_back(std::log(objective_value(evaluate(layer, hw, tile), objective)));
      parts[pair].pair.push_back(pair);
    }
  });
  SurrogateSamples samples;
  for (auto& part : parts) {
    samples.features.insert(samples.features.end(), part.features.begin(), part.features.end());
    samples.log_objective.insert(samples.log_objective.end(), part.log_objective.begin(), part.log_objective.end());
    samples.pair.insert(samples.pair.end(), part.pair.begin(), part.pair.end());
  }
  return samples;
}

namespace {

Eigen::MatrixXd to_matrix(const std::vector<std::vector<double>>& rows) {
  const Eigen::Index features = rows.empty() ? 0 : Eigen::Index(rows.front().size());
  Eigen::MatrixXd matrix(features, Eigen::Index(rows.size()));
  for (std::size_t j = 0; j < rows.size(); ++j)
    for (Eigen::Index i = 0; i < features; ++i) matrix(i, Eigen::Index(j)) = rows[j][size_t(i)];
  return matrix;
}

// Adam (Kingma & Ba 2015) state of one parameter block.
struct Adam {
  Eigen::MatrixXd m, v;
  void step(Eigen::MatrixXd& parameter, const Eigen::MatrixXd& gradient, double rate, int t) {
    constexpr double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
    if (m.size() == 0) {
      m = Eigen::MatrixXd::Zero(parameter.rows(), parameter.cols());
      v = m;
    }
    m = beta1 * m + (1 - beta1) * gradient;
    v = beta2 * v + (1 - beta2) * gradient.cwiseProduct(gradient);
    const double m_scale = 1.0 / (1 - std::pow(beta1, t)), v_scale = 1.0 / (1 - std::pow(beta2, t));
    parameter.array() -= rate * (m.array() * m_scale) / ((v.array() * v_scale).sqrt() + epsilon);
  }
};

Eigen::MatrixXd xavier(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng) {
  const double limit = std::sqrt(6.0 / double(rows + cols));
  std::uniform_real_distribution<double> uniform(-limit, limit);
  Eigen::MatrixXd matrix(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) matrix(i, j) = uniform(rng);
  return matrix;
}

}  // namespace

Eigen::VectorXd SurrogateModel::forward(const Eigen::MatrixXd& x) const {
  const Eigen::MatrixXd a1 = ((w1_ * x).colwise() + b1_).array().tanh().matrix();
  const Eigen::MatrixXd a2 = ((w2_ * a1).colwise() + b2_).array().tanh().matrix();
  return ((w3_ * a2).colwise() + b3_).transpose();
}

SurrogateModel SurrogateModel::train(const SurrogateSamples& samples, Objective objective, bool two_level,
                                     const SurrogateTraining& options) {
  SurrogateModel model;
  model.objective_ = objective;
  model.two_level_ = two_level;
  model.fingerprint_ = surrogate_fingerprint(objective, two_level);
  const Eigen::MatrixXd raw = to_matrix(samples.features);
  const Eigen::Index n = raw.cols(), features = raw.rows();
  if (n == 0) throw std::invalid_argument("no training samples");
  model.input_mean_ = raw.rowwise().mean();
  model.input_scale_ = ((raw.colwise() - model.input_mean_).array().square().rowwise().mean()).sqrt().matrix();
  for (Eigen::Index i = 0; i < features; ++i)  // a constant feature (one layer, one hardware) stays as it is
    if (model.input_scale_(i) < 1e-9) model.input_scale_(i) = 1;
  const Eigen::MatrixXd x = (raw.colwise() - model.input_mean_).array().colwise() / model.input_scale_.array();
  Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(samples.log_objective.data(), n);
  model.output_mean_ = y.mean();
  model.output_scale_ = std::max(1e-9, std::sqrt((y.array() - model.output_mean_).square().mean()));
  y = (y.array() - model.output_mean_) / model.output_scale_;

  std::mt19937_64 rng(options.seed);
  const Eigen::Index hidden = options.hidden;
  model.w1_ = xavier(hidden, features, rng);
  model.w2_ = xavier(hidden, hidden, rng);
  model.w3_ = xavier(1, hidden, rng);
  model.b1_ = Eigen::VectorXd::Zero(hidden);
  model.b2_ = Eigen::VectorXd::Zero(hidden);
  model.b3_ = Eigen::VectorXd::Zero(1);
  Adam a_w1, a_w2, a_w3, a_b1, a_b2, a_b3;
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index(0));
  int t = 0;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    // Step decay: the last third of the epochs at a tenth of the rate settles the fit.
    const double rate = options.learning_rate * (epoch >= options.epochs * 2 / 3 ? 0.1 : 1.0);
    for (Eigen::Index start = 0; start < n; start += options.batch) {
      const Eigen::Index size = std::min<Eigen::Index>(options.batch, n - start);
      Eigen::MatrixXd xb(features, size);
      Eigen::RowVectorXd yb(size);
      for (Eigen::Index j = 0; j < size; ++j) {
        xb.col(j) = x.col(order[size_t(start + j)]);
        yb(j) = y(order[size_t(start + j)]);
      }
      const Eigen::MatrixXd a1 = ((model.w1_ * xb).colwise() + model.b1_).array().tanh().matrix();
      const Eigen::MatrixXd a2 = ((model.w2_ * a1).colwise() + model.b2_).array().tanh().matrix();
      const Eigen::RowVectorXd out = (model.w3_ * a2).array() + model.b3_(0);
      const Eigen::RowVectorXd d_out = 2.0 * (out - yb) / double(size);  // d(mean squared error)/d(out)
      const Eigen::MatrixXd d_z2 = (model.w3_.transpose() * d_out).cwiseProduct((1 - a2.array().square()).matrix());
      const Eigen::MatrixXd d_z1 = (model.w2_.transpose() * d_z2).cwiseProduct((1 - a1.array().square()).matrix());
      ++t;
      Eigen::MatrixXd g_b1 = d_z1.rowwise().sum(), g_b2 = d_z2.rowwise().sum(), g_b3 = d_out.rowwise().sum();
      Eigen::MatrixXd b1 = model.b1_, b2 = model.b2_, b3 = model.b3_;
      a_w1.step(model.w1_, d_z1 * xb.transpose(), rate, t);
      a_w2.step(model.w2_, d_z2 * a1.transpose(), rate, t);
      a_w3.step(model.w3_, d_out * a2.transpose(), rate, t);
      a_b1.step(b1, g_b1, rate, t);
      a_b2.step(b2, g_b2, rate, t);
      a_b3.step(b3, g_b3, rate, t);
      model.b1_ = b1;
      model.b2_ = b2;
      model.b3_ = b3;
    }
  }
  return model;
}

Eigen::VectorXd SurrogateModel::predict_batch(const Eigen::MatrixXd& features) const {
  const Eigen::MatrixXd x = (features.colwise() - input_mean_).array().colwise() / input_scale_.array();
  return (forward(x).array() * output_scale_ + output_mean_).matrix();
}

double SurrogateModel::predict(const std::vector<double>& features) const {
  return predict_batch(Eigen::Map<const Eigen::VectorXd>(features.data(), Eigen::Index(features.size())))(0);
}

double SurrogateModel::predict_with_gradient(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                             const RelaxedMapping& point, RelaxedMapping& gradient) const {
  const std::vector<double> raw = surrogate_features(layer, hardware, point);
  const Eigen::VectorXd x =
      (Eigen::Map<const Eigen::VectorXd>(raw.data(), Eigen::Index(raw.size())) - input_mean_).array() /
      input_scale_.array();
  const Eigen::VectorXd a1 = (w1_ * x + b1_).array().tanh().matrix();
  const Eigen::VectorXd a2 = (w2_ * a1 + b2_).array().tanh().matrix();
  const double out = (w3_ * a2)(0) + b3_(0);
  const Eigen::VectorXd d_z2 = w3_.transpose().cwiseProduct((1 - a2.array().square()).matrix());
  const Eigen::VectorXd d_z1 = (w2_.transpose() * d_z2).cwiseProduct((1 - a1.array().square()).matrix());
  const Eigen::VectorXd d_raw = (w1_.transpose() * d_z1).array() / input_scale_.array() * output_scale_;
  // The features are linear in the relaxed mapping, so their Jacobian's columns are exact unit differences.
  const std::vector<double> at_zero = surrogate_features(layer, hardware, RelaxedMapping{});
  for (int j = 0; j < kRelaxedSize; ++j) {
    RelaxedMapping unit{};
    unit[size_t(j)] = 1;
    const std::vector<double> column = surrogate_features(layer, hardware, unit);
    double sum = 0;
    for (std::size_t i = 0; i < column.size(); ++i) sum += (column[i] - at_zero[i]) * d_raw(Eigen::Index(i));
    gradient[size_t(j)] = sum;
  }
  return out * output_scale_ + output_mean_;
}

std::pair<double, double> SurrogateModel::error(const SurrogateSamples& samples) const {
  const Eigen::VectorXd predicted = predict_batch(to_matrix(samples.features));
  double squared = 0, absolute = 0;
  for (Eigen::Index i = 0; i < predicted.size(); ++i) {
    const double e = predicted(i) - samples.log_objective[size_t(i)];
    squared += e * e;
    absolute += std::abs(e);
  }
  const double n = double(std::max<Eigen::Index>(1, predicted.size()));
  return {squared / n, absolute / n};
}

namespace {

// Ranks 1…n, ties given their mean rank.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = double(i + j) / 2 + 1;
    i = j + 1;
  }
  return rank;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = double(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

}  // namespace

double SurrogateModel::rank_correlation(const SurrogateSamples& samples) const {
  const Eigen::VectorXd predicted = predict_batch(to_matrix(samples.features));
  std::map<std::size_t, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (std::size_t i = 0; i < samples.log_objective.size(); ++i) {
    auto& group = groups[samples.pair.empty() ? 0 : samples.pair[i]];
    group.first.push_back(predicted(Eigen::Index(i)));
    group.second.push_back(samples.log_objective[i]);
  }
  double sum = 0;
  for (const auto& entry : groups) sum += pearson(ranks(entry.second.first), ranks(entry.second.second));
  return groups.empty() ? 0.0 : sum / double(groups.size());
}

namespace {

nlohmann::json matrix_json(const Eigen::MatrixXd& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) row.push_back(matrix(i, j));
    rows.push_back(row);
  }
  return rows;
}

[[noreturn]] void bad_file(const std::string& path, const std::string& field, const std::string& problem) {
  throw util::InputError({path, 0, 0}, field, problem);
}

Eigen::MatrixXd json_matrix(const nlohmann::json& document, const char* field, Eigen::Index rows, Eigen::Index cols,
                            const std::string& path) {
  const auto found = document.find(field);
  if (found == document.end() || !found->is_array() || Eigen::Index(found->size()) != rows)
    bad_file(path, field, "expected " + std::to_string(rows) + " rows");
  Eigen::MatrixXd matrix(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& row = (*found)[size_t(i)];
    if (!row.is_array() || Eigen::Index(row.size()) != cols)
      bad_file(path, std::string(field) + "[" + std::to_string(i) + "]", "expected " + std::to_string(cols) + " numbers");
    for (Eigen::Index j = 0; j < cols; ++j) {
      if (!row[size_t(j)].is_number()) bad_file(path, field, "expected numbers");
      matrix(i, j) = row[size_t(j)].get<double>();
    }
  }
  return matrix;
}

Eigen::VectorXd json_vector(const nlohmann::json& document, const char* field, Eigen::Index size,
                            const std::string& path) {
  const nlohmann::json wrapped = {{field, nlohmann::json::array({document.value(field, nlohmann::json())})}};
  return json_matrix(wrapped, field, 1, size, path).transpose();
}

const char* space_name(bool two_level) { return two_level ? "two-level" : "single-level"; }

}  // namespace

void SurrogateModel::save(const std::string& path) const {
  const nlohmann::json document = {
      {"format", kSurrogateFormat},
      {"version", kSurrogateFileVersion},
      {"fingerprint", fingerprint_},
      {"objective", to_string(objective_)},
      {"space", space_name(two_level_)},
      {"description", description},
      {"features", surrogate_feature_names()},
      {"hidden", w1_.rows()},
      {"input_mean", matrix_json(input_mean_.transpose())[0]},
      {"input_scale", matrix_json(input_scale_.transpose())[0]},
      {"output_mean", output_mean_},
      {"output_scale", output_scale_},
      {"w1", matrix_json(w1_)}, {"b1", matrix_json(b1_.transpose())[0]},
      {"w2", matrix_json(w2_)}, {"b2", matrix_json(b2_.transpose())[0]},
      {"w3", matrix_json(w3_)}, {"b3", matrix_json(b3_.transpose())[0]}};
  util::write_file_atomically(path, document.dump(1) + "\n");
}

SurrogateModel SurrogateModel::load(const std::string& path) {
  const std::string text =
      util::read_input_file(path, {"a surrogate model (JSON)", kMaxSurrogateFileBytes, "kMaxSurrogateFileBytes"});
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    bad_file(path, "", std::string("not JSON: ") + error.what());
  }
  // A field of another JSON type than the model writes (a string for a number) throws nlohmann's type_error.
  try {
    if (!document.is_object() || document.value("format", "") != kSurrogateFormat)
      bad_file(path, "format", std::string("not a surrogate model (expected format \"") + kSurrogateFormat + "\")");
    if (!document.contains("version") || !document["version"].is_number_integer() ||
        document["version"].get<int>() != kSurrogateFileVersion)
      bad_file(path, "version", "expected version " + std::to_string(kSurrogateFileVersion) + ", found " +
                                    (document.contains("version") ? document["version"].dump() : "none"));
    SurrogateModel model;
    const auto objective = parse_objective(document.value("objective", ""));
    if (!objective) bad_file(path, "objective", "expected runtime, energy or edp");
    const std::string space = document.value("space", "");
    if (space != "two-level" && space != "single-level") bad_file(path, "space", "expected two-level or single-level");
    model.objective_ = *objective;
    model.two_level_ = space == "two-level";
    model.fingerprint_ = document.value("fingerprint", "");
    if (document.value("features", std::vector<std::string>{}) != surrogate_feature_names() ||
        model.fingerprint_ != surrogate_fingerprint(model.objective_, model.two_level_))
      bad_file(path, "fingerprint",
               "the model was trained on another feature set than this maeri computes (retrain it with "
               "`maeri surrogate train`)");
    model.description = document.value("description", "");
    const Eigen::Index features = Eigen::Index(surrogate_feature_names().size());
    if (!document.contains("hidden") || !document["hidden"].is_number_integer())
      bad_file(path, "hidden", "expected an integer layer width");
    const Eigen::Index hidden = document["hidden"].get<Eigen::Index>();
    if (hidden < 1 || hidden > 4096) bad_file(path, "hidden", "expected a layer width between 1 and 4096");
    model.input_mean_ = json_vector(document, "input_mean", features, path);
    model.input_scale_ = json_vector(document, "input_scale", features, path);
    // Features and costs are divided by these: training makes every scale positive (a constant feature gets 1).
    for (Eigen::Index i = 0; i < features; ++i)
      if (!(model.input_scale_(i) > 0))
        bad_file(path, "input_scale",
                 "expected positive scales (features are divided by them), found " +
                     std::to_string(model.input_scale_(i)) + " for feature '" + surrogate_feature_names()[size_t(i)] +
                     "'");
    model.output_mean_ = document.value("output_mean", 0.0);
    model.output_scale_ = document.value("output_scale", 1.0);
    if (!(model.output_scale_ > 0) || !std::isfinite(model.output_scale_) || !std::isfinite(model.output_mean_))
      bad_file(path, "output_scale", "expected a finite output_mean and a positive, finite output_scale");
    model.w1_ = json_matrix(document, "w1", hidden, features, path);
    model.w2_ = json_matrix(document, "w2", hidden, hidden, path);
    model.w3_ = json_matrix(document, "w3", 1, hidden, path);
    model.b1_ = json_vector(document, "b1", hidden, path);
    model.b2_ = json_vector(document, "b2", hidden, path);
    model.b3_ = json_vector(document, "b3", 1, path);
    return model;
  } catch (const nlohmann::json::exception& error) {
    bad_file(path, "", std::string("a field has the wrong JSON type: ") + error.what());
  }
}

void SurrogateModel::require_space(Objective objective, bool two_level, const std::string& path) const {
  if (fingerprint_ == surrogate_fingerprint(objective, two_level)) return;
  throw util::InputError({path, 0, 0}, "fingerprint",
                        std::string("the model was trained for the ") + space_name(two_level_) + " space with objective " +
                            to_string(objective_) + "; this search is " + space_name(two_level) + " with objective " +
                            to_string(objective) + " (train a model for it with `maeri surrogate train`)");
}

}  // namespace maeri::mapper
