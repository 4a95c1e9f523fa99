// Stimulus for co-simulation runs: tensor files (plain text: whitespace-separated decimal integers in row-major
// order, `#` starts a comment), and a layer's tensors as NumPy arrays (.npy files or .npz members, util/npy_file.hpp;
// docs/cosim.md, "Tensors from NumPy files"). Seeded random tensors are codegen::random_tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/functional_model.hpp"
#include "contracts/layer.hpp"
#include "util/npy_file.hpp"

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

// A tensor from `source` as the command line names it ("FILE.npy", "FILE.npz", "FILE.npz:MEMBER";
// util::tensor_source): an archive given without a member gives its only member, else the member `default_member`
// (a layer's name, for weights), else an error listing its members. The array must have an integer dtype, exactly
// `shape` (contracts::input_shape, weight_shape or output_shape), and every value within `bits`-bit two's
// complement. Throws util::InputError naming the file (and member) and the field ("descr", "fortran_order", "shape",
// "data", "member", …).
std::vector<std::int64_t> read_npy_tensor(const std::string& source, const std::vector<std::int64_t>& shape, int bits,
                                          const std::string& default_member);

// An output tensor of `layer` (acc_width-bit integers, contracts::output_shape) as an array of the smallest signed
// dtype that holds acc_width bits.
util::NpyArray output_array(const contracts::Layer& layer, const std::vector<std::int64_t>& output, int acc_width);

}  // namespace maeri::testbench
