// The model input size options (see model_input_options.hpp).
#include "cli/model_input_options.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "contracts/layer.hpp"

namespace maeri::cli {

void add_model_input_options(CLI::App* command, importer::ModelInputShapes& sizes) {
  command
      ->add_option_function<std::vector<std::string>>(
          "--input-shape",
          [&sizes](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) {
              try {
                sizes.add(text);
              } catch (const std::invalid_argument& error) {
                throw CLI::ValidationError("--input-shape", error.what());
              }
            }
          },
          "ONNX model: the sizes of input NAME, NAME=d0,d1,… (repeat for several inputs)")
      ->type_name("NAME=DIMS");
  command
      ->add_option_function<std::vector<std::string>>(
          "--input-value",
          [&sizes](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) {
              try {
                sizes.add_value(text);
              } catch (const std::invalid_argument& error) {
                throw CLI::ValidationError("--input-value", error.what());
              }
            }
          },
          "ONNX model: input NAME is known to be V at run time (a sample rate, a flag), NAME=V: it becomes a "
          "constant, so an If on it imports the branch taken (repeat for several inputs)")
      ->type_name("NAME=V");
  command->add_option("--batch", sizes.batch, "ONNX model: the first dimension of the inputs where it is dynamic")
      ->check(CLI::Range(std::int64_t{1}, contracts::kMaxBatch));
}

}  // namespace maeri::cli
