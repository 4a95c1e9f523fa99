// libFuzzer harness: the surrogate model reader (mapper::SurrogateModel::load, what `map --search surrogate
// --model` and `explore` read) on arbitrary file contents. Bad input must end in maeri::util::InputError; a model
// the reader accepts must predict on a feature vector of the right width without failing.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapper/search/surrogate_model.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"
#include "util/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".json");
  maeri::mapper::SurrogateModel model;
  try {
    model = maeri::mapper::SurrogateModel::load(file.write(data, size));
  } catch (const maeri::util::InputError&) {
    return 0;
  }
  (void)model.predict(std::vector<double>(maeri::mapper::surrogate_feature_names().size(), 1.0));
  return 0;
}
