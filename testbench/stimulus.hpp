// Stimulus for co-simulation runs: tensor files (plain text: whitespace-separated decimal integers in row-major
// order, `#` starts a comment). Seeded random tensors are codegen::random_tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/functional_model.hpp"
#include "contracts/layer.hpp"

namespace maeri::testbench {

// Size limits of a tensor file of `count` values, checked before it is read (docs/cosim.md, "Tensor files"):
// every value needs at least one digit and one separator (the last value none), so a file shorter than
// 2·count − 1 bytes cannot hold the tensor; one longer than kTensorFileSlackBytes + kTensorFileBytesPerValue·count
// is not a tensor file for this layer (32 bytes per value hold the longest 32-bit value, -2147483648, with room
// for alignment and line comments; the slack holds header comments).
inline constexpr std::int64_t kTensorFileBytesPerValue = 32;
inline constexpr std::int64_t kTensorFileSlackBytes = std::int64_t{1} << 20;
// A word longer than this cannot be a DATA_W (≤ 32-bit) integer; reading stops there.
inline constexpr std::size_t kTensorFileMaxWordLength = 40;

// Throws util::InputError naming the file and what was expected when the file's size, the count or a value's
// range is wrong. Reads the file once, holding no more than one word besides the values.
std::vector<std::int64_t> read_tensor_file(const std::string& path, std::size_t expected_count, int data_width,
                                           const std::string& what);
std::string tensor_text(const std::vector<std::int64_t>& values, const std::string& header);

}  // namespace maeri::testbench
