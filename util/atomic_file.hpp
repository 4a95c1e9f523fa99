// Writing output files atomically: contents go to a temporary beside the target, then rename(),
// so a failure never leaves a half-written file behind. The rules for what an output may replace live here.
#pragma once

#include <string>

namespace maeri::util {

// Checks that `path` can take an output file: nothing is there yet, or a regular file is (never a directory,
// symbolic link, device, FIFO or socket: rename() would silently replace them, e.g. /dev/null when run as root),
// and the folder it goes into exists. Throws InputError naming the path, what is in the way, or the OS's reason.
// Commands call it for every output before their long work, so a bad -o fails at once.
void check_output_path(const std::string& path);

// Checks a prefix that output file names extend (`explore -o P` writes P.csv, P.svg, …): P must not itself name a
// device, FIFO, socket or symbolic link, which the user meant as the target (`-o /dev/null` would create
// /dev/null.svg). Throws InputError naming the prefix and what it is; the files themselves go through
// check_output_path.
void check_output_prefix(const std::string& prefix);

// Creates a folder for output files with its parents (nothing to do if it exists). Throws InputError naming the
// folder and the OS's reason when it cannot be created or a non-folder is in the way.
void create_output_directory(const std::string& path);

// check_output_path(), then temporary + rename. Throws InputError naming the path when the file cannot be
// written; the temporary is removed on every failure.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace maeri::util
