// Registration of the `maeri` subcommands. Each adds itself to the app and, when selected on the
// command line, stores the work to run in `action` (run after parsing so errors map to exit codes).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace maeri::cli {

using Action = std::function<int()>;

void add_validate_command(CLI::App& app, Action& action);
void add_show_command(CLI::App& app, Action& action);
void add_space_command(CLI::App& app, Action& action);
void add_map_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_sweep_command(CLI::App& app, Action& action);
void add_codegen_command(CLI::App& app, Action& action);
void add_disasm_command(CLI::App& app, Action& action);
void add_verify_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_sim_command(CLI::App& app, Action& action);
void add_calibrate_command(CLI::App& app, Action& action);
void add_fabric_command(CLI::App& app, Action& action);
void add_plot_command(CLI::App& app, Action& action);
void add_import_command(CLI::App& app, Action& action);
void add_explore_command(CLI::App& app, Action& action);
void add_surrogate_command(CLI::App& app, Action& action);

}  // namespace maeri::cli
