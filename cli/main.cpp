// Entry point of the `maeri` tool (sc_main, see below): parses the command line, runs the chosen subcommand and maps
// errors to the documented exit codes.
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <systemc>  // declares sc_main with the linkage libsystemc expects

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "maeri_version.hpp"
#include "codegen/config_image.hpp"
#include "codegen/vn_layout.hpp"
#include "sim/fabric_cache.hpp"
#include "util/input_error.hpp"
#include "util/memory_budget.hpp"

// Keep the tool's output free of SystemC's banner (set before any SystemC object can exist; a user may override).
namespace {
const bool kQuietSystemC = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

// An option given with an empty value (`--tile ''`, `--outputs ''`, `--fault ''`) is a slip of the shell, never a
// choice: every option of every command takes a name, a number or a path, and an empty one would read as "not
// given" (a search instead of the tile, nothing written). Refused with exit 1 like any malformed command line.
void refuse_empty_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options())
    for (const std::string& value : option->results())
      if (option->get_expected_min() > 0 && value.empty())
        throw CLI::ValidationError(option->get_name(), "expected a value, found ''");
  for (const CLI::App* sub : command.get_subcommands()) refuse_empty_values(*sub);
}
}  // namespace

// SystemC's library provides main() and calls sc_main(), so the tool's entry point is sc_main: the co-simulation
// subcommands elaborate Verilated SystemC models in this process.
int sc_main(int argc, char** argv) {
  using namespace maeri::cli;
  CLI::App app{"maeri: mapping, configuration images, RTL co-simulation and model calibration for the MAERI "
               "DNN accelerator"};
  app.set_version_flag("--version", fmt::format("maeri {} (git {})", maeri::kVersion, maeri::kGitRevision));
  app.require_subcommand(1);
  // Every command's memory budget (util/memory_budget.hpp), given before or after the subcommand's name.
  std::string memory_budget;
  app.add_option("--memory-budget", memory_budget,
                 "what a command may hold in memory, in bytes with an optional K, M, G or T (default: half of the "
                 "memory available when it starts); larger inputs are refused up front")
      ->envname("MAERI_MEMORY_BUDGET");
  app.fallthrough();

  Action action;
  add_validate_command(app, action);
  add_show_command(app, action);
  add_space_command(app, action);
  add_map_command(app, action);
  add_bench_command(app, action);
  add_sweep_command(app, action);
  add_codegen_command(app, action);
  add_disasm_command(app, action);
  add_verify_command(app, action);
  add_run_command(app, action);
  add_sim_command(app, action);
  add_calibrate_command(app, action);
  add_fabric_command(app, action);
  add_plot_command(app, action);
  add_import_command(app, action);
  add_explore_command(app, action);
  add_surrogate_command(app, action);

  try {
    app.parse(argc, argv);
    refuse_empty_values(app);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help) == 0 ? kExitOk : kExitUsage;
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help) == 0 ? kExitOk : kExitUsage;
  } catch (const CLI::CallForVersion& version) {
    app.exit(version);
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kExitUsage;
  }

  try {
    if (!memory_budget.empty())
      maeri::util::set_memory_budget(maeri::util::parse_memory_size(memory_budget, "--memory-budget"));
    return action ? action() : kExitUsage;
  } catch (const maeri::util::InputError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitBadInput;
  } catch (const maeri::codegen::ImageError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitBadInput;
  } catch (const maeri::codegen::LayoutError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitBadInput;
  } catch (const maeri::sim::FabricBuildError& error) {  // e.g. no cache directory: HOME and the others unset
    std::cerr << "error: " << error.what() << '\n';
    return kExitBadInput;
  } catch (const std::filesystem::filesystem_error& error) {
    // Safety net: outputs go through contracts/atomic_file's checks, but a file-system failure is never a bug.
    std::cerr << "error: " << error.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& error) {
    std::cerr << "internal error: " << error.what() << '\n';
    return kExitInternal;
  }
}
