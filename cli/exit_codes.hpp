// Exit codes of the `maeri` tool (documented in docs/cli.md); scripts and CI rely on them.
#pragma once

namespace maeri::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,        // bad command line (unknown option, missing argument, bad value)
  kExitBadInput = 2,     // an input file is unreadable or invalid (spec, mapping, image)
  kExitCheckFailed = 3,  // a check ran and failed (bit-exact mismatch, cross-check out of bounds)
  kExitInternal = 4,     // a bug in the tool: please report it
};

}  // namespace maeri::cli
