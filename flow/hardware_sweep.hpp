// A sweep of a hardware grid over a workload (`maeri sweep`; docs/sweep.md): the grid from a grid file and/or
// settings, each point's spec written as a hardware file and loaded back, the points shared among the ranks of a
// util::TaskRunner (each rank evaluates its share in parallel), optionally each valid point's decision checked
// on the RTL in a child process of its own, rank 0 gathering; then, on rank 0, the Pareto front, the relative areas
// and the outputs: sweep.csv, sweep_layers.csv, sweep.json and SVG plots against every numeric field.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "contracts/sweep_grid.hpp"
#include "importer/onnx_import.hpp"
#include "flow/design_sweep.hpp"
#include "util/task_runner.hpp"

namespace maeri::flow {

// A point's decision co-simulated (`sweep --verify`; filled by testbench::check_point_on_rtl).
struct LayerRtlCheck {
  std::string layer;
  bool pass = false;               // outputs bit-exact
  std::int64_t outputs = 0, mismatches = 0;
  bool counts_exact = false;       // every activity count of the model equals the RTL's
  std::optional<double> model_compute_cycles, rtl_compute_cycles;  // with ideal memory (absent under --memory dram)
  std::string summary;             // the scoreboard's line
};

struct PointRtlCheck {
  std::string error;  // the point could not be co-simulated (fabric build failed, process died, timed out)
  std::vector<LayerRtlCheck> layers;
  bool pass() const;  // no error, every layer bit-exact with exact counts
  std::string status() const;  // "PASS", "FAIL" or "ERROR"
};

// As JSON and back: how a check travels between processes and MPI ranks, and its part of sweep.json.
nlohmann::json to_json(const PointRtlCheck& check);
PointRtlCheck point_rtl_check_from_json(const nlohmann::json& json);

// Checks a point's decision on the RTL, in a child process of its own (SystemC elaborates one fabric per
// process). A hook because the RTL is below the mapper in the chain.
using PointRtlChecker = std::function<PointRtlCheck(const DesignPoint& point, const contracts::Network& network)>;

struct HardwareSweepOptions {
  std::string hardware_path, workload_path, grid_path;  // grid_path "" = the settings alone
  importer::ModelInputShapes model_inputs;             // an ONNX workload's input sizes
  std::vector<std::string> settings;                    // FIELD=VALUES, as `--set`
  std::string objective = "edp";                        // runtime, energy or edp
  std::string out_dir = "sweep";
  bool two_level = true;
  bool fusion = true;                  // false: every layer alone, as `maeri map --no-fusion`
  contracts::ExactTrafficFor exact_traffic_for;  // how each layer is ranked and reported (codegen::exact_traffic_for)
  bool progress_bars = false;         // on stderr, on rank 0
};

// What write() wrote besides sweep.csv, sweep_layers.csv, sweep.json and points/*.yaml.
struct HardwareSweepFiles {
  std::vector<std::string> plots;
  std::vector<std::string> unplotted_fields;  // fields whose values are not all numbers
};

class HardwareSweep {
 public:
  // Loads the grid, the base hardware (which must be valid itself) and the workload, and builds the points; rank 0
  // creates the output folder and writes each point's spec (an invalid point's error then points at a line of a file
  // the user can open). Throws util::InputError.
  HardwareSweep(const HardwareSweepOptions& options, bool root);

  const contracts::SweepGrid& grid() const { return grid_; }
  const contracts::Network& network() const { return network_; }
  const contracts::Hardware& base_hardware() const { return base_hardware_; }
  const std::vector<DesignPoint>& points() const { return points_; }

  // Evaluates this rank's share of the points, checks its valid ones on the RTL when `check` is set, and gathers
  // every point on rank 0. The results below are rank 0's.
  void evaluate(util::TaskRunner& runner, const PointRtlChecker& check);

  bool verified() const { return verified_; }
  const std::optional<PointRtlCheck>& rtl_check(std::size_t point) const { return checks_[point]; }
  bool on_front(std::size_t point) const { return on_front_[point]; }
  std::string relative_area_text(const DesignPoint& point) const;  // "" without an area
  std::size_t valid_points() const { return valid_.size(); }
  std::size_t invalid_points() const { return points_.size() - valid_.size(); }
  std::size_t front_points() const;
  std::size_t rtl_failures() const;  // valid points whose check did not pass (or is missing)

  HardwareSweepFiles write() const;

 private:
  void find_front();
  std::string points_csv() const;
  std::string layers_csv() const;
  nlohmann::json document() const;
  HardwareSweepFiles write_plots() const;

  HardwareSweepOptions options_;
  mapper::Objective objective_ = mapper::Objective::EnergyDelay;
  contracts::SweepGrid grid_;
  contracts::Hardware base_hardware_;
  contracts::Network network_;
  std::vector<DesignPoint> points_;
  std::vector<double> costs_;  // per point: how points are balanced over ranks
  bool verified_ = false;
  std::vector<std::optional<PointRtlCheck>> checks_;
  std::vector<std::size_t> valid_;                     // indices of the valid points
  std::vector<std::pair<double, double>> coordinates_;  // (cycles, energy) of each valid point
  std::vector<bool> on_front_;
  double smallest_area_ = 0;
};

}  // namespace maeri::flow
