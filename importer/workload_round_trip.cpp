// The imported workload read back by the loader before it is written (see workload_round_trip.hpp).
#include "importer/workload_round_trip.hpp"

#include <yaml-cpp/yaml.h>

#include <regex>

#include "contracts/spec_loader.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::importer {
namespace {

// The name of the operator or layer `field` ("operators[3].alpha", "layers[0].pad") is about, or "".
std::string named_entry(const std::string& yaml, const std::string& field) {
  static const std::regex entry(R"(^(operators|layers)\[([0-9]+)\])");
  std::smatch match;
  if (!std::regex_search(field, match, entry)) return "";
  try {
    const YAML::Node list = YAML::Load(yaml)[match[1].str()];
    const std::size_t index = std::stoul(match[2].str());
    if (list.IsSequence() && index < list.size() && list[index]["name"].IsScalar())
      return list[index]["name"].Scalar();
  } catch (const std::exception&) {  // the loader's message alone
  }
  return "";
}

}  // namespace

void require_loadable_workload(const std::string& yaml, const std::string& model_path) {
  const std::string origin = "the imported workload";
  try {
    contracts::load_workload_text(yaml, origin);
  } catch (const util::InputError& error) {
    const std::string name = named_entry(yaml, error.field());
    throw util::InputError({model_path, 0, 0}, name.empty() ? "graph" : "node " + util::shown_value(name),
                           std::string("the workload it imports would not load, refused as `maeri validate` would "
                                       "refuse it: ") +
                               error.what());
  }
}

}  // namespace maeri::importer
