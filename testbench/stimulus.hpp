// Stimulus for co-simulation runs: seeded random tensors in the hardware's data width, and tensor files
// (plain text: whitespace-separated decimal integers in row-major order, `#` starts a comment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/functional_model.hpp"
#include "mapper/layer.hpp"

namespace maeri::testbench {

codegen::LayerTensors random_tensors(const mapper::Layer& layer, int data_width, std::uint64_t seed);

// Throws mapper::SpecError naming the file and the value when the count or a value's range is wrong.
std::vector<std::int64_t> read_tensor_file(const std::string& path, std::size_t expected_count, int data_width,
                                           const std::string& what);
std::string tensor_text(const std::vector<std::int64_t>& values, const std::string& header);

}  // namespace maeri::testbench
