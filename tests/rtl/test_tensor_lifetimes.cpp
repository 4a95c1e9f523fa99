// When a chained run may free each tensor (testbench/tensor_lifetimes.hpp), on the tiny network, whose graph has a
// tensor read twice (relu1: by conv2 and by the max pool) and a residual add: the lifetimes below are read off
// configs/workloads/tiny.yaml by hand.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "contracts/spec_loader.hpp"
#include "testbench/network_run.hpp"
#include "testbench/tensor_lifetimes.hpp"

using namespace maeri;

TEST_CASE("tensor lifetimes: each tensor dies after its last reader, outputs never", "[chain][memory]") {
  const contracts::Network network =
      contracts::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  const testbench::TensorLifetimes lifetimes(network);
  const auto op = [&](const std::string& name) {
    for (std::size_t o = 0; o < network.operators.size(); ++o)
      if (network.operators[o].name == name) return o;
    FAIL("no operator " << name);
    return std::size_t(0);
  };
  const auto tensor = [&](const std::string& name) {
    for (std::size_t t = 0; t < network.tensors.size(); ++t)
      if (network.tensors[t].name == name) return t;
    FAIL("no tensor " << name);
    return std::size_t(0);
  };
  const auto dies_after = [&](const std::string& tensor_name, const std::string& reader) {
    const auto& dead = lifetimes.dead_after(op(reader));
    return std::count(dead.begin(), dead.end(), tensor(tensor_name)) == 1;
  };
  CHECK(dies_after("image", "conv1"));
  CHECK(dies_after("conv1", "relu1"));
  CHECK_FALSE(dies_after("relu1", "conv2"));  // the max pool reads it after conv2
  CHECK(dies_after("relu1", "pool1"));
  CHECK(dies_after("conv2", "add1"));
  CHECK(dies_after("pool1", "add1"));
  CHECK(dies_after("flatten", "fc"));
  // The network's output (the softmax at the end) is never freed, and nothing is freed twice.
  std::size_t freed = 0;
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    for (std::size_t t : lifetimes.dead_after(o)) CHECK(std::count(network.operators[o].inputs.begin(),
                                                                    network.operators[o].inputs.end(), t) >= 1);
    freed += lifetimes.dead_after(o).size();
  }
  for (std::size_t t : network.network_outputs()) {
    CHECK_FALSE(lifetimes.unread(t));
    for (std::size_t o = 0; o < network.operators.size(); ++o) {
      const auto& dead = lifetimes.dead_after(o);
      CHECK(std::count(dead.begin(), dead.end(), t) == 0);
    }
  }
  // Every non-constant tensor but the output is freed exactly once.
  std::size_t activations = 0;
  for (const contracts::Tensor& t : network.tensors) activations += !t.constant;
  CHECK(freed == activations - network.network_outputs().size());
}

// Streamed --all-tensors (testbench::TensorFiles): a run that throws before finish() leaves no tensor file in the
// output directory (the files wait in a hidden folder the destructor removes); finish() moves them in beside
// tensors.json and leaves nothing else.
TEST_CASE("streamed tensor files: none without tensors.json, all with it", "[chain][memory]") {
  namespace fs = std::filesystem;
  const contracts::Network network =
      contracts::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  const contracts::Hardware hardware =
      contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  const fs::path directory = fs::temp_directory_path() / ("maeri-tensor-files-" + std::to_string(::getpid()));
  fs::remove_all(directory);
  testbench::NetworkRunOptions options;
  options.output_directory = directory.string();
  options.all_tensors = true;
  const testbench::PreparedNetwork prepared = testbench::prepare_network_run(network, hardware, {}, options, true);
  const std::size_t input = prepared.inputs.at(0);
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  try {
    testbench::TensorFiles files(options, prepared);
    files.write(input, prepared.integer_inputs.at(0));
    throw std::runtime_error("a run that stops midway");
  } catch (const std::runtime_error&) {
  }
  CHECK(listing().empty());
  {
    testbench::TensorFiles files(options, prepared);
    files.write(input, prepared.integer_inputs.at(0));
    files.finish();
  }
  CHECK(listing() == std::vector<std::string>{"image.float.npy", "image.npy", "image.real.npy", "tensors.json"});
  fs::remove_all(directory);
}
