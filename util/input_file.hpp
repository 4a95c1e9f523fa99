// Input files read whole, with a size limit: the one reader under every loader of a user's file (YAML specs, CSV
// tables, network manifests, surrogate models, optimum caches, ONNX models, images a manifest lists), so a
// directory, a never-ending device or FIFO, or a huge file ends at once in an InputError that names the file, the
// OS's reason or the limit (docs/cli.md, "Limits"), instead of gigabytes of memory or a hang.
#pragma once

#include <cstddef>
#include <string>

namespace maeri::util {

struct InputFileRules {
  const char* expected;    // what the file should be, for messages: "a YAML file", "an ONNX model"
  std::size_t max_bytes;   // files longer than this are refused (reading a stream stops one byte past it)
  const char* limit_name;  // the constant that holds max_bytes, named in the message
  // Devices, FIFOs and sockets are refused when reading one as this kind of file makes no sense (a binary model,
  // a manifest whose images sit beside it); otherwise they are read up to max_bytes.
  bool regular_files_only = false;
};

// The file's bytes, read through one descriptor so that the checks and the read see the same file. Throws
// InputError: cannot open (with strerror), is a directory, is not a regular file (when required), larger than
// the limit, cannot read.
std::string read_input_file(const std::string& path, const InputFileRules& rules);

// Throws InputError when the text's lines end in CR alone (classic Mac OS line endings: a CR and no LF anywhere),
// which text readers would otherwise take for one long line ("the file is empty" for YAML, whose comment then runs
// to the end).
void refuse_cr_only_line_endings(const std::string& text, const std::string& path);

// A value from an input file or the command line as messages show it — the one place a message quotes a value:
// control bytes (NUL, line breaks, DEL) and bytes that are not well-formed UTF-8 escaped as \xNN (well-formed
// UTF-8 is kept: names may be in any script), and anything over kMaxShownValueBytes cut before a whole character,
// with its length named, so a message stays one readable line of valid UTF-8 however long or strange the value is.
inline constexpr std::size_t kMaxShownValueBytes = 80;
std::string shown_value(const std::string& value);

}  // namespace maeri::util
