// Tensor files (see stimulus.hpp).
#include "testbench/stimulus.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "spec/spec_error.hpp"

namespace maeri::testbench {

std::vector<std::int64_t> read_tensor_file(const std::string& path, std::size_t expected_count, int data_width,
                                           const std::string& what) {
  std::ifstream in(path);
  if (!in) throw spec::SpecError({path, 0, 0}, what, "cannot open the tensor file");
  const std::int64_t half = std::int64_t(1) << (data_width - 1);
  std::vector<std::int64_t> values;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    int column = 1;
    while (words >> word) {
      std::size_t used = 0;
      std::int64_t value = 0;
      try {
        value = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size())
        throw spec::SpecError({path, number, column}, what, "expected an integer, found '" + word + "'");
      if (value < -half || value >= half)
        throw spec::SpecError({path, number, column}, what,
                                fmt::format("{} does not fit {} signed bits ({} … {})", value, data_width, -half,
                                            half - 1));
      values.push_back(value);
      column += int(word.size()) + 1;
    }
  }
  if (values.size() != expected_count)
    throw spec::SpecError({path, 0, 0}, what,
                            fmt::format("expected {} values for the layer, found {}", expected_count, values.size()));
  return values;
}

std::string tensor_text(const std::vector<std::int64_t>& values, const std::string& header) {
  std::string text = "# " + header + "\n";
  for (std::size_t i = 0; i < values.size(); ++i) text += fmt::format("{}{}", values[i], (i + 1) % 16 ? " " : "\n");
  if (values.size() % 16) text += "\n";
  return text;
}

}  // namespace maeri::testbench
