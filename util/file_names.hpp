// File names made from names in the input (workload and layer names are free text in the YAML): every output
// a command names after them stays inside its output folder, and two layers never share a file.
#pragma once

#include <string>
#include <vector>

namespace maeri::util {

// A name that is safe as one path component: bytes other than A-Z a-z 0-9 '-' '_' become '_', a leading '.'
// becomes '_' (no "..", no hidden files), an empty name becomes "_", and at most 100 bytes are kept.
// "conv1" stays "conv1"; "../x" becomes "_._x"; "a/b c" becomes "a_b_c".
std::string safe_file_stem(const std::string& name);

// safe_file_stem of every name, made unique: a stem already taken (compared case-insensitively, for file systems
// that fold case) gets "-2", "-3", … appended. The order of `names` decides who keeps the plain stem. Each stem
// stands for the files stem + suffix for every one of `suffixes` (e.g. "", ".real" for x.npy and x.real.npy): a
// stem is taken when any of its files is, so that names "r" and "r.real" never write the same file.
std::vector<std::string> unique_file_stems(const std::vector<std::string>& names,
                                           const std::vector<std::string>& suffixes = {""});

}  // namespace maeri::util
