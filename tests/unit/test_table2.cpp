// The mRNA paper's claim on its Table II conv layers at 512 MS / bandwidth 512: the searched mapping
// beats the baseline tile (T_R, T_S, 1, T_K, 1, 1, 1) on runtime.
#include <catch2/catch.hpp>

#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"

using namespace maeri::contracts;
using namespace maeri::mapper;

TEST_CASE("Table II conv layers: best mapping beats the paper's baseline on runtime", "[mapper][paper]") {
  const std::string configs = std::string(MAERI_SOURCE_DIR) + "/configs/";
  const Hardware hardware = load_hardware(configs + "hardware/maeri-512.yaml");
  const Network table2 = load_workload(configs + "workloads/mrna-table2.yaml");
  for (const Layer& layer : table2.layers) {
    if (layer.type != LayerType::Convolution) continue;
    INFO(layer.name);
    const SearchResult result = search(layer, hardware, {Objective::Runtime, 1, 0});
    REQUIRE(result.baseline.has_value());
    REQUIRE_FALSE(result.best.empty());
    CHECK(result.best.front().cycles.total < result.baseline->cycles.total);
    // Never slower than the ideal num_ms MACs per cycle allows.
    CHECK(result.best.front().cycles.total >= static_cast<double>(layer.macs()) / static_cast<double>(hardware.num_ms));
  }
}
