// The RTL co-simulation as the Python module reaches it: `maeri verify` (per layer, or `--chain` for the whole
// network) run as a child process, its JSON report read back. A child, not a call: SystemC elaborates one
// simulation per process (util/process_pool.hpp), so a notebook that linked the Verilated fabrics could co-simulate
// once; a child also keeps a failing model from taking the interpreter down.
#pragma once

#include <string>
#include <vector>

namespace maeri::python {

struct RtlRun {
  int exit_code = 0;         // maeri's (docs/cli.md, "Exit codes"): 0 pass, 3 a check failed, 2 bad input
  std::string json;          // the report `--json` wrote ("" when the run wrote none)
  std::string printed;       // what the child printed, stdout and stderr (its error message when it failed)
};

// The `maeri` executable the module runs: $MAERI_EXECUTABLE if set; else the one installed beside the module
// (<prefix>/bin/maeri for a module in <prefix>/lib/python3/dist-packages); else the build tree's. Throws
// std::runtime_error naming the places looked at when none exists.
std::string maeri_executable(const std::string& module_file);

// Runs `executable arguments… --json <temporary>` and waits for it.
RtlRun run_maeri(const std::string& executable, const std::vector<std::string>& arguments);

}  // namespace maeri::python
