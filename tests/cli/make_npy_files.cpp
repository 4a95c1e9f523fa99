// Writes the NumPy files of the tensor CLI tests (tests/cli/tensor_runs.sh) for one layer of a workload: its input
// and weights (random from seed 7, unlike any `--seed` run), their reference convolution, an archive holding both,
// the reference with one value changed, and each bad file of the list (wrong dtype, shape, byte order,
// Fortran order, truncated, oversized, bad header, values past DATA_W), issue 43's hostile archives and the files of
// the accumulator headroom's chained-run test.
// Usage: maeri_make_npy_files HARDWARE WORKLOAD LAYER DIR
#include <fmt/format.h>

#include <fstream>
#include <string>

#include "codegen/functional_model.hpp"
#include "contracts/network.hpp"
#include "contracts/spec_loader.hpp"
#include "tests/unit/zip_lies.hpp"
#include "util/npy_file.hpp"

namespace {

using namespace maeri;

void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// `bytes` with the first `from` replaced by `to` (same length: the header's length stays right).
std::string replaced(std::string bytes, const std::string& from, const std::string& to) {
  bytes.replace(bytes.find(from), from.size(), to);
  return bytes;
}

// Issue 43's hostile archives (tests/cli/hostile_inputs.sh): members that declare far more than the layer or the
// network needs (2^27 one-byte values deflate to 128 KiB; read whole they were 1.2 GB), a member whose directory
// entry declares 4 bytes more than it has, an empty file, two members of one name, a member name of 60,000 bytes,
// and the network input as f2, u8 and bool (docs/cosim.md: any numeric dtype).
void write_hostile_archives(const std::string& dir, const contracts::Layer& layer, util::NpyType data,
                            const std::vector<std::int64_t>& input) {
  const std::size_t values = std::size_t{1} << 27;  // 1 GiB held as 8-byte values: within kMaxNpyBytes
  const std::string bomb = util::npy_bytes(util::integer_array(util::NpyType::UInt8, {0}, {}));
  std::string bomb_member = replaced(bomb, "(0,)", "(134217728,)");
  // The header's padding absorbs the longer shape: the header keeps its length and alignment.
  bomb_member = replaced(bomb_member, std::string(8, ' ') + "\n", "\n") + std::string(values, '\0');
  write(dir + "/bomb.npz", util::npz_archive_bytes({{"image.npy", bomb_member}}, true));
  write(dir + "/bomb_weights.npz", util::npz_archive_bytes({{layer.name + ".weights.npy", bomb_member}}, true));
  const std::vector<std::int64_t> shape = contracts::input_shape(layer);
  const std::string image = util::npy_bytes(util::integer_array(data, shape, input));
  write(dir + "/directory_lie.npz",
        test::with_declared_size(util::npz_archive_bytes({{"image.npy", image}}, true),
                                 std::uint32_t(image.size() + 4)));
  write(dir + "/empty.npz", "");
  std::string twice = util::npz_archive_bytes({{"image.npy", image}, {"imagf.npy", image}});
  for (std::size_t at = twice.find("imagf"); at != std::string::npos; at = twice.find("imagf", at)) twice[at + 4] = 'e';
  write(dir + "/duplicate.npz", twice);
  write(dir + "/long_member.npz", util::npz_archive_bytes({{std::string(60000, 'm') + ".npy", bomb}}));
  std::vector<std::int64_t> bits(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) bits[i] = input[i] > 0;
  util::write_npy_file(dir + "/input_bool.npy", util::integer_array(util::NpyType::Bool, shape, bits));
  std::vector<std::int64_t> magnitudes(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) magnitudes[i] = input[i] < 0 ? -input[i] : input[i];
  util::write_npy_file(dir + "/input_u8.npy", util::integer_array(util::NpyType::UInt64, shape, magnitudes));
  util::NpyArray halves;
  halves.type = util::NpyType::Float16;
  halves.shape = shape;
  for (const std::int64_t value : input) halves.reals.push_back(double(value) / 1024);
  util::write_npy_file(dir + "/input_f2.npy", halves);
}

}  // namespace

// docs/quantization.md, "Accumulator headroom" (tests/cli/network_chain.sh, calibration_wraps): a filter of 64
// weights alternating +1, −1 (sums_weights.npz, member fc.weights), a calibration set of one sample of ones (its sums
// are 0: sums_calibration.npz, and sums_ones.npy) and the input ±1 alternating (sums_alternating.npy), which lines up
// with the filter.
void write_headroom_files(const std::string& dir) {
  std::vector<std::int64_t> alternating(64), ones(64, 1);
  for (std::size_t i = 0; i < alternating.size(); ++i) alternating[i] = i % 2 ? -1 : 1;
  const util::NpyArray weights = util::integer_array(util::NpyType::Int8, {1, 64, 1, 1}, alternating);
  util::write_npz_file(dir + "/sums_weights.npz", {{"fc.weights", weights}});
  util::write_npz_file(dir + "/sums_calibration.npz",
                       {{"ones", util::integer_array(util::NpyType::Int8, {1, 64, 1, 1}, ones)}});
  util::write_npy_file(dir + "/sums_alternating.npy", weights);
  util::write_npy_file(dir + "/sums_ones.npy", util::integer_array(util::NpyType::Int8, {1, 64, 1, 1}, ones));
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fmt::print(stderr, "usage: {} HARDWARE WORKLOAD LAYER DIR\n", argv[0]);
    return 1;
  }
  const contracts::Hardware hardware = contracts::load_hardware(argv[1]);
  const contracts::Network network = contracts::load_workload(argv[2]);
  const std::string dir = argv[4];
  write_headroom_files(dir);
  for (const contracts::Layer& layer : network.layers) {
    if (layer.name != argv[3]) continue;
    const util::NpyType data = util::smallest_signed_type(hardware.data_width);
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, 7);
    const util::NpyArray input = util::integer_array(data, contracts::input_shape(layer), tensors.input);
    const util::NpyArray weights = util::integer_array(data, contracts::weight_shape(layer), tensors.weights);
    std::vector<std::int64_t> reference = codegen::reference_convolution(layer, tensors, hardware.acc_width);
    const util::NpyType accumulator = util::smallest_signed_type(hardware.acc_width);
    util::write_npy_file(dir + "/input.npy", input);
    util::write_npy_file(dir + "/weights.npy", weights);
    util::write_npy_file(dir + "/expected.npy",
                         util::integer_array(accumulator, contracts::output_shape(layer), reference));
    util::write_npz_file(dir + "/tensors.npz", {{"input", input}, {layer.name, weights}});
    reference[5] += 1;
    util::write_npy_file(dir + "/wrong_expected.npy",
                         util::integer_array(accumulator, contracts::output_shape(layer), reference));

    const std::string good = util::npy_bytes(input);
    const std::string descr = "'" + util::npy_descr(data) + "'";
    std::string big_endian_descr = descr;
    big_endian_descr[1] = '>';
    write(dir + "/big_endian.npy", replaced(good, descr, big_endian_descr));
    write(dir + "/fortran.npy", replaced(good, "False", "True "));
    write(dir + "/bad_header.npy", replaced(good, "'descr'", "'dtype'"));
    write(dir + "/truncated.npy", good.substr(0, good.size() - 1));
    write(dir + "/oversized.npy", good + std::string(util::npy_item_bytes(data), '\0'));
    util::NpyArray reals;
    reals.type = util::NpyType::Float32;
    reals.shape = contracts::input_shape(layer);
    reals.reals.assign(tensors.input.begin(), tensors.input.end());
    util::write_npy_file(dir + "/floats.npy", reals);
    std::vector<std::int64_t> channel_more = contracts::input_shape(layer);
    channel_more[1] += 1;
    const std::size_t count = std::size_t(channel_more[0] * channel_more[1] * channel_more[2] * channel_more[3]);
    util::write_npy_file(dir + "/wrong_shape.npy",
                         util::integer_array(data, channel_more, std::vector<std::int64_t>(count, 1)));
    std::vector<std::int64_t> wide = tensors.input;
    wide[3] = std::int64_t(1) << (hardware.data_width - 1);
    util::write_npy_file(dir + "/out_of_range.npy",
                         util::integer_array(util::NpyType::Int64, contracts::input_shape(layer), wide));
    write_hostile_archives(dir, layer, data, tensors.input);
    return 0;
  }
  fmt::print(stderr, "no layer {}\n", argv[3]);
  return 1;
}
