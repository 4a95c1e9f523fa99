// `maeri fabric list|build|clean`: the Verilated fabrics a run can use — the prebuilt ones and the fabric cache
// of fabrics built on demand (sim/fabric_cache.hpp, docs/rtl.md "Fabrics built on demand").
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "codegen/config_image.hpp"
#include "sim/fabric_cache.hpp"
#include "sim/fabric_session.hpp"
#include "util/input_error.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

int list_fabrics() {
  fmt::print("prebuilt fabrics:\n");
  for (const std::string& fabric : sim::prebuilt_fabrics()) fmt::print("  {}\n", fabric);
  const std::vector<sim::CachedFabric> cached = sim::cached_fabrics();
  fmt::print("fabric cache {}: {} fabric{}\n", sim::fabric_cache_directory(), cached.size(),
             cached.size() == 1 ? "" : "s");
  for (const sim::CachedFabric& fabric : cached) fmt::print("  {} ({})\n", fabric.key, fabric.parameters);
  for (const sim::UnfinishedBuild& build : sim::unfinished_builds())
    fmt::print("  {} ({:.1f} MB: {})\n", build.name, double(build.bytes) / 1e6,
               build.running ? fmt::format("being built by process {}", build.pid)
                             : fmt::format("left by build process {}, which is gone; maeri fabric clean removes it",
                                           build.pid));
  return kExitOk;
}

int build(const std::string& hardware_path) {
  const contracts::Hardware hardware = contracts::load_hardware(hardware_path);
  const codegen::ImageHardware fabric = codegen::image_hardware_of(hardware);
  if (sim::open_prebuilt_fabric(fabric)) {
    fmt::print("{}: prebuilt, nothing to build\n", hardware_path);
    return kExitOk;
  }
  try {
    fmt::print("{}: {}\n", hardware_path, sim::build_fabric(fabric));
  } catch (const sim::FabricBuildError& error) {
    throw util::InputError({hardware_path, 0, 0}, "", error.what());
  }
  return kExitOk;
}

int clean() {
  const std::string directory = sim::fabric_cache_directory();
  const sim::CacheCleaning cleaning = sim::clean_fabric_cache();
  fmt::print("removed {} fabric{} from {}\n", cleaning.fabrics_removed, cleaning.fabrics_removed == 1 ? "" : "s",
             directory);
  if (!cleaning.left_alone.empty())
    fmt::print("left alone {} entr{} the fabric cache did not make: {}\n", cleaning.left_alone.size(),
               cleaning.left_alone.size() == 1 ? "y" : "ies", fmt::join(cleaning.left_alone, ", "));
  if (!cleaning.builds_running.empty())
    fmt::print("left alone {} build{} under way: {}\n", cleaning.builds_running.size(),
               cleaning.builds_running.size() == 1 ? "" : "s", fmt::join(cleaning.builds_running, ", "));
  return kExitOk;
}

}  // namespace

void add_fabric_command(CLI::App& app, Action& action) {
  CLI::App* command = app.add_subcommand(
      "fabric", "The Verilated fabrics: prebuilt ones and the cache of fabrics built on demand for other specs");
  command->require_subcommand(1);
  command->add_subcommand("list", "List the prebuilt fabrics and the cached ones")->callback([&action] {
    action = list_fabrics;
  });
  auto hardware = std::make_shared<std::string>();
  CLI::App* build_command =
      command->add_subcommand("build", "Verilate and compile the fabric of a hardware spec into the cache now");
  build_command->add_option("--hardware", *hardware, "hardware spec (YAML)")->required()->check(CLI::ExistingFile);
  build_command->callback([hardware, &action] { action = [hardware] { return build(*hardware); }; });
  command->add_subcommand("clean", "Remove every fabric from the cache (and nothing else the folder holds)")->callback([&action] { action = clean; });
  command->footer("The cache is $MAERI_FABRIC_CACHE, else $XDG_CACHE_HOME/maeri/fabrics, else ~/.cache/maeri/fabrics.\n"
                  "Example: maeri fabric build --hardware my-maeri.yaml");
}

}  // namespace maeri::cli
