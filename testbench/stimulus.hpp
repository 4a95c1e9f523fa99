// Stimulus for co-simulation runs: tensor files (plain text: whitespace-separated decimal integers in row-major
// order, `#` starts a comment). Seeded random tensors are codegen::random_tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/functional_model.hpp"
#include "spec/layer.hpp"

namespace maeri::testbench {

// Throws spec::SpecError naming the file and the value when the count or a value's range is wrong.
std::vector<std::int64_t> read_tensor_file(const std::string& path, std::size_t expected_count, int data_width,
                                           const std::string& what);
std::string tensor_text(const std::vector<std::int64_t>& values, const std::string& header);

}  // namespace maeri::testbench
